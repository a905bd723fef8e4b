"""Hidden-test logic of the capstone drill (module 11): the learner's agent, graded by behaviour.

The learner writes, on the reference minirt: ``support_agent(ctx, ticket)`` (the workflow),
``refund_key(call)``, ``choose_delivery()``, ``needs_approval(args)``, ``check_approval(...)``
(their effect policies), ``my_adversarial_case()`` and an architecture note. Each ``check_*``
function builds a fresh shop, runs the learner's code through the real runtime and returns a
list of failure messages, each starting with the property's name in brackets; empty means the
property holds. Learner code is never trusted: every call into it is wrapped, so an exception
becomes a failure message, and results are rebuilt before they are compared.

The oracle is :func:`minirt.capstone.scenario.judge`: the providers' ledgers, the run's state, the
approval marks and the budget's audit.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..approvals import Receipt, call_approved, request_approval
from ..capstone.scenario import CapstoneScenario, judge, run_sweep, scratch_dir
from ..capstone.shop import (
    APPROVAL_THRESHOLD_CENTS,
    ORDERS,
    TICKET,
    CapstoneRuntime,
    Policies,
    build_runtime,
    read_orders,
    setup_world,
    start_ticket,
)
from ..errors import MinirtError
from ..faults import FaultPlan, SimulatedCrash, recover
from ..idempotency import Delivery
from ..run import RunState
from ..runtime import Context
from ..tools import ToolCall
from ..world.faults import FAULTS
from ..world.ledger import Ledger

PROVIDERS = ("payments", "booking", "email")


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


def _result_matches(wd: Path, result: Any) -> list[str]:
    if not isinstance(result, dict) or not isinstance(result.get("refunded"), list):
        return ["[happy-path] the run's result is not {'refunded': [charge ids], ...}"]
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
        return out
    return _guard(go)


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
    return []


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
        from ..budget import Accounts, audit

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
        return []
    return _guard(go)


# -- predict, then run ---------------------------------------------------------------------------

def emails_after_w3(a: Answers) -> int:
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
        got = emails_after_w3(a)
        if guess != got:
            return [f"[predict-then-run] you predicted {guess} email(s); the ledger holds {got}"]
        return []
    return _guard(go)


# -- the architecture note ----------------------------------------------------------------------

def figures_of(a: Answers, runs: int = 3) -> dict[str, float]:
    """The learner's agent's measured figures, recomputed now, plus its sweep size."""
    from ..capstone.measure import measure

    sc = a.scenario()
    figures = measure(sc, runs=runs).figures()
    return figures


def check_note(a: Answers, note: Any, *, sweep_cells: int | None = None) -> list[str]:
    """[note] sections Decisions / Trade-offs / Remaining risks, quoting >= 2 measured figures."""
    from ..capstone.note import check_note as check

    def go() -> list[str]:
        figures = figures_of(a)
        if sweep_cells is not None:
            figures["sweep_cells"] = float(sweep_cells)
        return check(note, figures).problems()
    return _guard(go)


def sweep_size(a: Answers) -> int:
    """How many crash points the learner's agent passes (the sweep's size)."""
    from ..faults import boundaries

    with tempfile.TemporaryDirectory() as tmp:
        return len(boundaries(a.scenario(), Path(tmp)))


__all__ = ["Answers", "check_adversary", "check_approvals",
           "check_budget", "check_happy", "check_note", "check_prediction", "check_sweep",
           "sweep_size"]
