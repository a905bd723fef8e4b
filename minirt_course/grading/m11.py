"""Hidden-test logic of the capstone drill (module 11): the learner's agent, graded by behaviour.

The learner writes, on the reference minirt: ``support_agent(ctx, ticket)`` (the workflow),
``refund_key(call)``, ``choose_delivery()``, ``needs_approval(args)``, ``check_approval(...)``
(their effect policies), ``my_adversarial_case()`` and an architecture note. Each ``check_*``
function builds a fresh shop, runs the learner's code through the real runtime and returns a
list of failure messages, each starting with the property's name in brackets; empty means the
property holds. Learner code is never trusted: every call into it is wrapped, so an exception
becomes a failure message, and results are rebuilt before they are compared.

The oracle is :func:`minirt_course.capstone.scenario.judge`: the providers' ledgers, the run's state, the
approval marks and the budget's audit.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from minirt.approvals import Receipt, call_approved, request_approval
from minirt.errors import MinirtError
from minirt.faults import FaultPlan, SimulatedCrash, recover
from minirt.idempotency import Delivery
from minirt.run import RunState
from minirt.runtime import Context, ScriptedModel
from minirt.tools import ToolCall
from minirt.world.faults import FAULTS
from minirt.world.ledger import Ledger

from ..capstone.scenario import CapstoneScenario, judge, run_sweep, scratch_dir
from ..capstone.shop import (
    APPROVAL_THRESHOLD_CENTS,
    ORDERS,
    TICKET,
    CapstoneRuntime,
    Options,
    Policies,
    build_runtime,
    read_orders,
    setup_world,
    start_ticket,
)

PROVIDERS = ("payments", "booking", "email")
#: What the drill's answer and plain cells may use (the out-of-kernel run allows nothing else).
LEARNER_API = ("Answers", "try_once", "tool_point", "sweep_size")


class AnswerBroken(Exception):
    """A learner's function raised or returned something unusable; the message says which."""


@dataclass
class Answers:
    """The learner's answers, as the test cells pass them."""

    support_agent: Callable[..., Any]
    refund_key: Callable[[ToolCall], Any]
    choose_delivery: Callable[[], Any]
    needs_approval: Callable[[dict[str, Any]], Any]
    check_approval: Callable[..., Any]

    def policies(self) -> Policies:
        try:
            delivery = Delivery(str(self.choose_delivery()))
        except Exception as exc:
            raise AnswerBroken(f"[delivery-choice] choose_delivery() did not return a Delivery: "
                               f"{type(exc).__name__}: {exc}") from None
        key, needs = self.refund_key, self.needs_approval
        return Policies(refund_key=lambda call: str(key(call)), delivery=delivery,
                        needs_approval=lambda args: bool(needs(dict(args))),
                        check_approval=self.check_approval)

    def scenario(self, **changes: Any) -> CapstoneScenario:
        return CapstoneScenario(workflow=self.support_agent, policies=self.policies(), **changes)


def _guard(fn: Callable[[], list[str]]) -> list[str]:
    try:
        return fn()
    except AnswerBroken as exc:
        return [str(exc)]
    except Exception as exc:  # the learner's code broke the check itself
        return [f"[runs] your code raised {type(exc).__name__}: {exc}"[:400]]


def _crash_free(sc: CapstoneScenario, wd: Path, **opts: Any) -> tuple[CapstoneRuntime, str]:
    sc.setup(wd)
    rt = build_runtime(wd, options=sc.options(), **opts)
    sc.arm(rt, wd)
    run_id = start_ticket(rt, sc.ticket, run_id=sc.run_id)
    rt.run(run_id)
    return rt, run_id


# -- happy path ---------------------------------------------------------------------------------

#: Another ticket for the hidden tests: one order delivered fine, one lost.
TICKET_2 = {**TICKET, "ticket_id": "T-2", "orders": ["A-103", "A-102"],
            "text": "The teapot never came. The grinder is fine."}


def check_happy(a: Answers, ticket: dict[str, Any] | None = None) -> list[str]:
    """[happy-path] crash-free, the ticket ends SUCCEEDED with every effect exactly once."""
    def go() -> list[str]:
        sc = a.scenario(ticket=dict(ticket or TICKET))
        with scratch_dir() as tmp:
            rt, run_id = _crash_free(sc, Path(tmp))
            try:
                verdict = judge(Path(tmp), rt, run_id, sc.ticket)
                result = rt.outcome(run_id).value
            finally:
                rt.close()
            if not verdict.ok:
                return [f"[happy-path] without any crash: {verdict.outcome.value}: "
                        f"{verdict.detail}"]
            return _result_matches(Path(tmp), result)
    return _guard(go)


def try_once(a: Answers) -> dict[str, Any]:
    """Run the agent once, crash-free, and report what happened (for a plain cell): the run's
    state, its result, and what each provider's own ledger holds. Observes; judges nothing."""
    sc = a.scenario()
    with scratch_dir() as tmp:
        wd = Path(tmp)
        rt, run_id = _crash_free(sc, wd)
        try:
            out = rt.outcome(run_id)
            state, result = out.state.value, out.value
        finally:
            rt.close()
        return {"state": state, "result": result,
                "refunds": _ledger_count(wd, "payments", "refund"),
                "bookings": _ledger_count(wd, "booking", "booking"),
                "emails": _ledger_count(wd, "email", "email")}


def _plan_model(refund: list[str], replace_: list[str]) -> ScriptedModel:
    def model(prompt: Any, index: int) -> dict[str, Any]:
        return {"refund": list(refund), "replace": list(replace_), "reply": "Sorry.",
                "usage": {"total_tokens": 200}}
    return ScriptedModel(model)


#: plans the agent must refuse before anything moves: (why, refund, replace)
BAD_PLANS = (("names one order twice", ["A-100", "A-100"], []),
             ("names the approved refund twice", ["A-101", "A-100", "A-101"], []),
             ("refunds and replaces the same order", ["A-100"], ["A-100"]),
             ("names an order the ticket does not", ["A-100", "A-103"], []))


def check_bad_plans(a: Answers) -> list[str]:
    """[happy-path] a model plan that names one order twice, or an order the agent did not look
    up, is refused before any refund, booking or email: the run ends FAILED (PlanRejected), and
    every provider's ledger is empty."""
    def go() -> list[str]:
        for why, refund, replace_ in BAD_PLANS:
            with scratch_dir() as tmp:
                wd = Path(tmp)
                setup_world(wd)
                rt = build_runtime(wd, options=Options(workflow=a.support_agent,
                                                       policies=a.policies(),
                                                       model=_plan_model(refund, replace_)))
                try:
                    run_id = start_ticket(rt, dict(TICKET), run_id="run-bad-plan")
                    out = rt.run(run_id)
                    state = out.state
                    error = getattr(out.error, "kind", None) or type(out.error).__name__ \
                        if out.error is not None else None
                finally:
                    rt.close()
                moved = {k: _ledger_count(wd, p, k) for p, k in
                         (("payments", "refund"), ("booking", "booking"), ("email", "email"))}
                if any(moved.values()):
                    return [f"[happy-path] a plan that {why} (refund {refund}, replace "
                            f"{replace_}) was not refused before acting: the ledgers hold "
                            f"{moved}"]
                if state is not RunState.FAILED:
                    return [f"[happy-path] a plan that {why} should end the run FAILED "
                            f"(PlanRejected); it is {state.value} ({error})"]
                attrs = getattr(out.error, "attrs", None)
                attrs = attrs if isinstance(attrs, dict) else {}
                if error != "PlanRejected" or str(attrs.get("run_id")) != run_id or \
                        not str(attrs.get("reason") or "").strip():
                    return [f"[happy-path] a plan that {why} should be refused with "
                            f"PlanRejected(run_id=<this run>, reason=<what is wrong>); the run "
                            f"failed with {error} {str(out.error)[:120]!r}"]
        return []
    return _guard(go)


def _registered_compensations(rt: CapstoneRuntime, run_id: str) -> list[tuple[str, Any]]:
    """(tool, compensation registered in its intent's outbox) for every journaled intent."""
    out = []
    for e in rt.store.read(run_id):
        if e.kind == "intent":
            raw = e.payload
            rec = json.loads(raw) if isinstance(raw, (str, bytes)) else dict(raw or {})
            out.append((str(rec.get("tool")), (rec.get("outbox") or {}).get("compensation")))
    return out


def check_booking_is_compensable(a: Answers) -> list[str]:
    """[happy-path] a replacement booked by the saga registers its compensation
    (cancel_booking) in the intent, before the call: a saga stopped later, or an operator, can
    then undo exactly what was booked (the reference registers it on every booking); and the
    saga is finished once its bookings are done."""
    def go() -> list[str]:
        with scratch_dir() as tmp:
            rt, run_id = _crash_free(a.scenario(), Path(tmp))
            try:
                got = [c for c in _registered_compensations(rt, run_id) if c[0] == "book"]
                kinds = {e.kind for e in rt.store.read(run_id)}
            finally:
                rt.close()
        if not got:
            return ["[happy-path] the crash-free run booked no replacement"]
        if "saga_completed" not in kinds:
            return ["[happy-path] the replacement saga was never finished (Saga.finish): a "
                    "cancel arriving after the email would still undo the bookings"]
        missing = [t for t, comp in got if comp != "cancel_booking"]
        if missing:
            return [f"[happy-path] a replacement booking was journaled without its compensation "
                    f"(registered: {[comp for _, comp in got]}); a stopped saga could not "
                    "cancel it"]
        return []
    return _guard(go)


def check_saga_stops(a: Answers) -> list[str]:
    """[happy-path] with the booking provider down for good, the replacement saga stops: the
    run still refunds both damaged orders and emails once, ends SUCCEEDED, and its result does
    not claim the replacement was booked."""
    def go() -> list[str]:
        sc = a.scenario(provider_faults=(("booking", "error_5xx", "book", 50),))
        with scratch_dir() as tmp:
            wd = Path(tmp)
            rt, run_id = _crash_free(sc, wd)
            try:
                out = rt.outcome(run_id)
            finally:
                rt.close()
            counts = (_ledger_count(wd, "payments", "refund"), _ledger_count(wd, "email", "email"))
        if out.state is not RunState.SUCCEEDED or counts != (2, 1):
            return [f"[happy-path] with the booking provider down, the run should still refund "
                    f"twice and email once and succeed; it is {out.state.value} with "
                    f"(refunds, emails) = {counts}"]
        if isinstance(out.value, dict) and out.value.get("replacements") == "booked":
            return ["[happy-path] with the booking provider down, the result says the "
                    "replacement was booked"]
        return []
    return _guard(go)


def check_when_things_go_wrong(a: Answers) -> list[str]:
    """[happy-path] hidden: bad plans refused, a stopped saga handled, bookings compensable."""
    return check_bad_plans(a) or check_saga_stops(a) or check_booking_is_compensable(a)


def _result_matches(wd: Path, result: Any) -> list[str]:
    if not isinstance(result, dict) or not isinstance(result.get("refunded"), list):
        return ["[happy-path] the run's result is not {'refunded': [charge ids], ...}"]
    missing = [k for k in ("refunded", "replacements", "email") if k not in result]
    if missing:
        return [f"[happy-path] the run's result has no {missing[0]!r}"]
    ledger = Ledger(wd / "payments.sqlite")
    try:
        refunded = sorted(r["params"]["charge_id"] for r in ledger.effects("refund"))
    finally:
        ledger.close()
    if sorted(map(str, result["refunded"])) != refunded:
        return [f"[happy-path] the result says refunded {sorted(map(str, result['refunded']))}, "
                f"the payment ledger says {refunded}"]
    return []


# -- the crash sweep ----------------------------------------------------------------------------

def check_sweep(a: Answers, *, points: list[tuple[str, int]] | None = None) -> list[str]:
    """[crash-sweep] a crash at every boundary, then recovery: the ledgers show every effect once."""
    def go() -> list[str]:
        report = run_sweep(a.scenario(), points=points)
        if not report.cells:
            return ["[crash-sweep] the agent passed no crash point at all"]
        return [f"[crash-sweep] crash at {c.point} (occurrence {c.occurrence}) of "
                f"{len(report.cells)}: {c.verdict.outcome.value}: {c.verdict.detail}"[:400]
                for c in report.failures]
    return _guard(go)


def tool_point(a: Answers, tool: str, point: str = "after_provider_commit") -> tuple[str, int]:
    """The (point, occurrence) of the first call of ``tool`` in a crash-free run of the agent."""
    sc = a.scenario()
    with scratch_dir() as tmp:
        wd = Path(tmp)
        sc.setup(wd)
        plan = _ToolPoints()
        rt = build_runtime(wd, faults=plan, options=sc.options())
        try:
            rt.run(start_ticket(rt, sc.ticket, run_id=sc.run_id))
        finally:
            rt.close()
    for p, n, t in plan.seen:
        if p == point and t == tool:
            return p, n
    raise AnswerBroken(f"[runs] the agent never reached {point} of {tool!r}")


class _ToolPoints(FaultPlan):
    """A fault plan that never crashes and records which tool each point belonged to."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, int, str | None]] = []

    def hit(self, point: str, **ids: Any) -> None:
        super().hit(point, **ids)
        self.seen.append((point, self.counts[point], ids.get("tool")))


# -- approvals ----------------------------------------------------------------------------------

BIG = ORDERS["A-101"]  # 120.00 EUR: above the threshold
OTHER = ORDERS["A-103"]  # 90.00 EUR, delivered fine: nobody approved refunding it


def _args(wd: Path, order: dict[str, Any]) -> dict[str, Any]:
    o = read_orders(wd)[order["order_id"]]
    return {"order_id": o["order_id"], "charge_id": o["charge_id"],
            "amount_cents": o["amount_cents"]}


def attacks() -> dict[str, Callable[[Context, Any], Any]]:
    """Workflows that try to move money without the authority to (each must be refused), and
    one that has the authority (it must go through)."""

    def no_receipt(ctx: Context, wd: str) -> Any:
        return ctx.call_tool("refund", _args(Path(wd), BIG))

    def other_order(ctx: Context, wd: str) -> Any:
        receipt = request_approval(ctx, "refund", _args(Path(wd), BIG))
        return call_approved(ctx, "refund", _args(Path(wd), OTHER), receipt)

    def spent_twice(ctx: Context, wd: str) -> Any:
        receipt = request_approval(ctx, "refund", _args(Path(wd), BIG))
        call_approved(ctx, "refund", _args(Path(wd), BIG), receipt)
        return call_approved(ctx, "refund", _args(Path(wd), BIG), receipt)

    def tampered(ctx: Context, wd: str) -> Any:
        receipt = request_approval(ctx, "refund", _args(Path(wd), BIG))
        forged = Receipt.from_dict({**receipt.to_dict(), "approver": "mallory"})
        return call_approved(ctx, "refund", _args(Path(wd), BIG), forged)

    def expired(ctx: Context, wd: str) -> Any:
        receipt = request_approval(ctx, "refund", _args(Path(wd), BIG))
        ctx.runtime.clock.advance(7 * 3600)  # type: ignore[attr-defined]  # past its expiry
        return call_approved(ctx, "refund", _args(Path(wd), BIG), receipt)

    def genuine(ctx: Context, wd: str) -> Any:
        receipt = request_approval(ctx, "refund", _args(Path(wd), BIG))
        return call_approved(ctx, "refund", _args(Path(wd), BIG), receipt)

    return {"no-receipt": no_receipt, "receipt-for-another-order": other_order,
            "receipt-spent-twice": spent_twice, "tampered-receipt": tampered,
            "expired-receipt": expired, "genuine": genuine}


def _dispatched(rt: CapstoneRuntime, run_id: str) -> list[dict[str, Any]]:
    return [e.payload for e in rt.store.read(run_id)
            if e.kind == "intent" and e.payload.get("tool") == "refund"]


def run_attack(a: Answers, name: str) -> tuple[RunState, int, int]:
    """Run one attack with the learner's policies: (final state, refund intents, refunds)."""
    workflow = attacks()[name]
    with scratch_dir() as tmp:
        wd = Path(tmp)
        setup_world(wd)
        rt = build_runtime(wd, workflow=workflow, policies=a.policies(), budget=None)
        try:
            run_id = rt.start("support_agent", str(wd), run_id=f"run-attack-{name}")
            rt.gate.mint(rt, run_id, "refund", resource="order:*", max_amount=50_000)
            state = rt.run(run_id).state
            intents = len(_dispatched(rt, run_id))
        finally:
            rt.close()
        ledger = Ledger(wd / "payments.sqlite")
        try:
            refunds = len(ledger.effects("refund"))
        finally:
            ledger.close()
    return state, intents, refunds


def check_approvals(a: Answers) -> list[str]:
    """[approval-enforced] no refund above the threshold dispatches without a receipt for exactly
    that refund, unspent, unexpired, signed by the gate; a genuine receipt still works."""
    def go() -> list[str]:
        out = []
        for name in attacks():
            state, intents, refunds = run_attack(a, name)
            allowed = 2 if name == "receipt-spent-twice" else 1
            if name == "genuine":
                if not (state is RunState.SUCCEEDED and refunds == 1):
                    out.append(f"[approval-enforced] a genuine, approved refund did not go "
                               f"through (run {state.value}, {refunds} refunds)")
            elif name == "no-receipt" and intents:
                out.append("[approval-enforced] a refund above the threshold was dispatched "
                           "without any approval")
            elif name != "no-receipt" and intents >= allowed:
                out.append(f"[approval-enforced] attack {name!r}: the refund was dispatched")
        out += _agent_waits(a)
        return out or check_policies(a)
    return _guard(go)


#: amounts around the threshold, as ints, and as the strings and floats a tool may pass on
THRESHOLD_AMOUNTS = (0, 1, APPROVAL_THRESHOLD_CENTS - 1, APPROVAL_THRESHOLD_CENTS,
                     APPROVAL_THRESHOLD_CENTS + 1, 12_000, 10 ** 9)


def check_policies(a: Answers) -> list[str]:
    """[approval-enforced] the policies from the other side: ``needs_approval`` on every amount
    around the threshold (the exact threshold needs none) with its args left unchanged;
    ``check_approval`` allows and refuses exactly what :func:`minirt.approvals.check_receipt`
    does on the drill-06 attack classes (generated cases); ``refund_key`` is the same for
    every attempt and incarnation of one call and differs between calls."""
    from . import m06

    for amount in THRESHOLD_AMOUNTS:
        args = {"order_id": "A-101", "charge_id": "ch_000002", "amount_cents": amount,
                "meta": {"why": ["damaged"]}}
        given = copy.deepcopy(args)
        try:
            got = bool(a.needs_approval(given))
        except Exception as exc:  # noqa: BLE001 - learner code
            return [f"[approval-enforced] needs_approval({args}) raised {type(exc).__name__}"]
        if given != args:
            return ["[approval-enforced] needs_approval changed the args it was given"]
        want = amount > APPROVAL_THRESHOLD_CENTS
        if got != want:
            return [f"[approval-enforced] a refund of {amount} cents (threshold "
                    f"{APPROVAL_THRESHOLD_CENTS}): needs_approval said {got}, expected {want}"]
    for prop in m06.TWISTS:
        failure = m06.differential(prop, a.check_approval, max_examples=25, verdict_only=True)
        if failure:
            return ["[approval-enforced] check_approval: " + failure[0]]
    return _key_stability(a)


def _key_stability(a: Answers) -> list[str]:
    base = ToolCall("run-capstone", 7, "refund", {"order_id": "A-100", "charge_id": "ch_000001",
                                                 "amount_cents": 3000}, "ek_" + "7" * 60)
    others = [replace(base, step=8, effect_key="ek_" + "8" * 60),
              replace(base, run_id="run-other", effect_key="ek_" + "9" * 60),
              replace(base, args={**base.args, "amount_cents": 3001}, effect_key="ek_" + "a" * 60)]
    try:
        key = str(a.refund_key(copy.deepcopy(base)))
        again = [str(a.refund_key(replace(base, attempt=n, incarnation=i)))
                 for n, i in ((2, 0), (1, 3), (5, 9))]
        distinct = [str(a.refund_key(c)) for c in others]
    except Exception as exc:  # noqa: BLE001 - learner code
        return [f"[approval-enforced] refund_key raised {type(exc).__name__}: {exc}"]
    if any(k != key for k in again):
        return ["[approval-enforced] refund_key changed between attempts or incarnations of one "
                "refund: a resend after a lost response would refund twice"]
    if len({key, *distinct}) != 4:
        return ["[approval-enforced] refund_key gave two different refunds (another step, run "
                "or amount) the same key: the provider would drop the second as a duplicate"]
    return []


def _agent_waits(a: Answers) -> list[str]:
    """The learner's agent, with nobody to review: the big refund must not happen."""
    sc = a.scenario()
    with scratch_dir() as tmp:
        rt, run_id = _crash_free(sc, Path(tmp), reviewer=None)
        try:
            big = [p for p in _dispatched(rt, run_id)
                   if int(p["args"].get("amount_cents", 0)) > APPROVAL_THRESHOLD_CENTS]
            state = rt.store.get_run(run_id).run.state
        finally:
            rt.close()
    if big:
        return ["[approval-enforced] your agent dispatched a refund above the threshold "
                "while no reviewer had answered"]
    if state is not RunState.WAITING:
        return [f"[approval-enforced] with the reviewer away, your agent's run should wait "
                f"(WAITING), it is {state.value}"]
    small = _ledger_count_after(sc, reviewer=None)
    if small != 1:
        return [f"[approval-enforced] with the reviewer away, the refund below the threshold "
                f"should go through while the big one waits; the payment ledger holds {small}"]
    return []


def _ledger_count_after(sc: CapstoneScenario, **opts: Any) -> int:
    with scratch_dir() as tmp:
        rt, _ = _crash_free(sc, Path(tmp), **opts)
        rt.close()
        return _ledger_count(Path(tmp), "payments", "refund")


# -- budget -------------------------------------------------------------------------------------

_DOWN_ONCE = (("payments", "error_5xx", "refund", 1),)
#: (limits, provider faults): budgets too small for the ticket, one with a refund that needs a
#: resend the budget does not allow.
BUDGETS = (({"tool_attempts": 4, "tokens": 4000}, ()), ({"tool_attempts": 20, "tokens": 100}, ()),
           ({"tool_attempts": 20, "tokens": 4000, "retries": 0}, _DOWN_ONCE))
HIDDEN_BUDGETS = (({"tool_attempts": 5, "tokens": 4000}, ()),
                  ({"tool_attempts": 7, "tokens": 4000}, ()),
                  ({"tool_attempts": 6, "tokens": 4000, "retries": 1}, _DOWN_ONCE))


def check_budget(a: Answers, *, hidden: bool = False) -> list[str]:
    """[budget-kept] the budget's ledger balances and no limit is passed; a ticket the budget
    cannot cover does not end SUCCEEDED claiming refunds that did not happen."""
    def go() -> list[str]:
        from minirt.budget import Accounts, audit

        out = []
        for limits, faults in HIDDEN_BUDGETS if hidden else BUDGETS:
            sc = a.scenario(budget=limits, provider_faults=faults)
            with scratch_dir() as tmp:
                rt, run_id = _crash_free(sc, Path(tmp))
                try:
                    outcome = rt.outcome(run_id)
                    # a hold of a call whose outcome is still unknown stays open until it settles
                    problems = [p for p in audit(Accounts(rt.store), run_id)
                                if p[0] != "open" or rt.store.get_run(run_id).run.is_terminal]
                finally:
                    rt.close()
                if problems:
                    out.append(f"[budget-kept] limits {limits}: {problems[0][1]}")
                if outcome.state is RunState.SUCCEEDED:
                    out += [m.replace("[happy-path]", "[budget-kept]")
                            for m in _result_matches(Path(tmp), outcome.value)]
                    if not _ledger_count(Path(tmp), "payments", "refund"):
                        out.append(f"[budget-kept] limits {limits}: the run SUCCEEDED though "
                                   "the budget allowed none of its refunds")
        return out
    return _guard(go)


def _ledger_count(wd: Path, provider: str, kind: str) -> int:
    ledger = Ledger(wd / f"{provider}.sqlite")
    try:
        return len(ledger.effects(kind))
    finally:
        ledger.close()


# -- the learner's adversarial case --------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    name: str
    provider_faults: tuple[tuple[str, str, str | None, int], ...]
    crash_at: str | None
    occurrence: int


def parse_case(raw: Any) -> Case:
    """Rebuild the learner's case from plain data (never trusting the object they returned)."""
    try:
        data = json.loads(json.dumps(raw() if callable(raw) else raw))
        faults = []
        for f in data.get("provider_faults", []):
            provider, fault = str(f["provider"]), str(f["fault"])
            if provider not in PROVIDERS or fault not in FAULTS:
                raise ValueError(f"unknown provider {provider!r} or fault {fault!r}")
            op = None if f.get("op") is None else str(f["op"])
            faults.append((provider, fault, op, max(1, int(f.get("times", 1)))))
        crash_at = data.get("crash_at")
        return Case(str(data.get("name", "my case")), tuple(faults),
                    None if crash_at is None else str(crash_at),
                    max(1, int(data.get("occurrence", 1))))
    except Exception as exc:
        raise AnswerBroken(f"[my-adversary] the case is not a dict of the documented shape: "
                           f"{type(exc).__name__}: {exc}") from None


def run_case(a: Answers, case: Case) -> tuple[bool, str, list[str]]:
    """Run the agent under ``case`` and recover: (it bit, the verdict's text, journal kinds)."""
    sc = a.scenario(provider_faults=case.provider_faults)
    with scratch_dir() as tmp:
        wd = Path(tmp)
        sc.setup(wd)
        plan = FaultPlan(crash_at=case.crash_at, occurrence=case.occurrence)
        rt = sc.make_runtime(wd, faults=plan, clock_offset=0.0, worker_id="w-case")
        armed = {n: sum(i.times for i in p.faults.armed) for n, p in rt.world.items()}
        run_id = sc.start(rt)
        try:
            rt.run(run_id)
        except (SimulatedCrash, MinirtError):
            pass
        finally:
            fired = any(sum(i.times for i in p.faults.armed) < armed[n]
                        for n, p in rt.world.items())
            rt.close()
        rt = recover(sc, wd, run_id)
        try:
            verdict = judge(wd, rt, run_id, sc.ticket)
            kinds = [e.kind for e in rt.store.read(run_id)]
        finally:
            rt.close()
    return (plan.crashed or fired), f"{verdict.outcome.value}: {verdict.detail}", kinds


def check_adversary(a: Answers, raw_case: Any) -> list[str]:
    """[my-adversary] the learner's own case fires (a crash or a provider fault happens) and the
    agent recovers with every effect exactly once."""
    def go() -> list[str]:
        case = parse_case(raw_case)
        if case.crash_at is None and not case.provider_faults:
            return ["[my-adversary] the case injects nothing (no crash point, no provider fault)"]
        bit, verdict, _ = run_case(a, case)
        if not bit:
            return [f"[my-adversary] {case.name!r} never fired: the agent did not pass the crash "
                    "point, nor call the faulty operation"]
        if not verdict.startswith("clean"):
            return [f"[my-adversary] under {case.name!r}: {verdict}"]
        careless = _careless(a)
        _, careless_verdict, _ = run_case(careless, case)
        if careless_verdict.startswith("clean"):
            return [f"[my-adversary] {case.name!r} cannot hurt: the same agent with a fresh "
                    "idempotency key every time one is asked for and blind email resends also "
                    "comes out clean under it. Pick a case that a careless agent fails"]
        return []
    return _guard(go)


def _careless(a: Answers) -> Answers:
    """The learner's agent with the two policies the course warns about: a refund key made
    fresh every time it is asked for (a uuid per send: the look-up after a lost response asks
    under a key nobody used), and email resent on a lost response."""
    fresh = itertools.count(1)

    def careless_key(call: ToolCall) -> str:
        return f"{call.effect_key}:{next(fresh)}"
    return replace(a, refund_key=careless_key, choose_delivery=lambda: Delivery.AT_LEAST_ONCE)


# -- predict, then run ---------------------------------------------------------------------------

def _emails_after_w3(a: Answers) -> int:
    """Crash in W3 of the agent's email (sent, response lost), recover: emails in the ledger."""
    point, n = tool_point(a, "send_email")
    sc = a.scenario()
    with scratch_dir() as tmp:
        wd = Path(tmp)
        sc.setup(wd)
        rt = sc.make_runtime(wd, faults=FaultPlan(point, n), clock_offset=0.0, worker_id="w-p")
        try:
            rt.run(sc.start(rt))
        except SimulatedCrash:
            pass
        finally:
            rt.close()
        recover(sc, wd, sc.run_id).close()
        return _ledger_count(wd, "email", "email")


def check_prediction(a: Answers, predicted: Any) -> list[str]:
    """[predict-then-run] the number of emails predicted after a W3 crash on the email."""
    def go() -> list[str]:
        try:
            guess = int(predicted)
        except Exception:
            return ["[predict-then-run] the prediction is not a whole number"]
        got = _emails_after_w3(a)
        if guess != got:
            return [f"[predict-then-run] you predicted {guess} email(s); the email provider's "
                    "ledger disagrees — think about what your delivery choice does with a lost "
                    "response"]
        return []
    return _guard(go)


# -- the architecture note ----------------------------------------------------------------------

def figures_of(a: Answers, runs: int = 3) -> dict[str, float]:
    """The learner's agent's measured figures, recomputed now, plus its sweep size."""
    from ..capstone.measure import measure

    sc = a.scenario()
    figures = measure(sc, runs=runs).figures()
    return figures


#: numbers a note may quote that are facts of the shop, not measurements (amounts in EUR and
#: cents, the threshold, the ticket's three orders)
SHOP_FACTS = tuple(sorted({float(o["amount_cents"]) for o in ORDERS.values()}
                          | {o["amount_cents"] / 100 for o in ORDERS.values()}
                          | {float(APPROVAL_THRESHOLD_CENTS), APPROVAL_THRESHOLD_CENTS / 100}))
_DELIVERY_WORDS = {Delivery.AT_MOST_ONCE: r"at[\s-]+most[\s-]+once",
                   Delivery.AT_LEAST_ONCE: r"at[\s-]+least[\s-]+once"}


def _words(name: str) -> str:
    return r"[\s_-]+".join(re.escape(w) for w in name.split("_"))


def check_note(a: Answers, note: Any, *, sweep_cells: int | None = None,
               case: Any = None) -> list[str]:
    """[note] sections Decisions / Trade-offs / Remaining risks, quoting >= 2 measured figures;
    its claims match the run: at most a third of the numbers it quotes (10 and above) match
    neither a measured figure (within 20%) nor, exactly, a fact of the shop; it names the delivery the
    agent really uses and not the other one; and, given ``case`` (the learner's adversarial
    case), it names the failure that case injects (a fault or the crash point). Whether the
    reasoning is good is a human's to mark, not this check's."""
    from ..capstone.note import check_note as check
    from ..capstone.note import numbers

    def go() -> list[str]:
        figures = figures_of(a)
        if sweep_cells is not None:
            figures["sweep_cells"] = float(sweep_cells)
        problems = check(note, figures).problems()
        if problems:
            return problems
        text = str.__str__(note) if isinstance(note, str) else ""
        quoted = [x for x in numbers(text) if x >= 10]
        stray = [x for x in quoted if x not in SHOP_FACTS and not any(
            abs(x - v) <= 0.2 * abs(v) for v in figures.values() if abs(v) >= 10)]
        if len(stray) * 3 > len(quoted):
            return [f"[note-claims] {len(stray)} of the {len(quoted)} numbers the note quotes "
                    f"match nothing your agent measured (e.g. {stray[0]:g}): quote your own "
                    "figures, not a spray of numbers"]
        delivery = a.policies().delivery
        lower = text.lower()
        if not re.search(_DELIVERY_WORDS[delivery], lower):
            return [f"[note-claims] the note does not say your email is {delivery.value.replace('_', ' ')}, "
                    "which is what your agent does"]
        other = next(d for d in _DELIVERY_WORDS if d is not delivery)
        if re.search(_DELIVERY_WORDS[other], lower):
            return [f"[note-claims] the note says {other.value.replace('_', ' ')}, which is not "
                    "what your agent does"]
        if case is not None:
            c = parse_case(case)
            names = [f[1] for f in c.provider_faults] + ([c.crash_at] if c.crash_at else [])
            if names and not any(re.search(_words(n), lower) for n in names):
                return [f"[note-failure] the note never names the failure your adversarial case "
                        f"injects ({', '.join(names)})"]
        return []
    return _guard(go)


def sweep_size(a: Answers) -> int:
    """How many crash points the learner's agent passes (the sweep's size)."""
    from minirt.faults import boundaries

    with tempfile.TemporaryDirectory() as tmp:
        return len(boundaries(a.scenario(), Path(tmp)))


__all__ = ["Answers", "check_adversary", "check_approvals",
           "check_budget", "check_happy", "check_note", "check_prediction", "check_sweep",
           "sweep_size"]
