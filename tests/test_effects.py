"""Effect commit and compensation: the local commit boundary, receipts, the conditional saga.

The fakes below are providers with their own ledgers (dicts keyed like the real ones: charges and
refunds by idempotency key, bookings by client reference). Each test runs a small order saga,
crashes it on purpose where the behaviour under test lives, drops the runtime, reopens the store
with a fresh worker (clock past the lease) and reads the ledgers.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from minirt.clock import FakeClock
from minirt.effects import (
    SAGA_STOPS,
    AbortRequested,
    Action,
    CompensationFailed,
    CompensationNotIdempotent,
    CompensationReport,
    EffectStatus,
    ForwardEffect,
    PlanInvalid,
    PlannedAction,
    Saga,
    SagaMisuse,
    StepFailed,
    compensation_key,
    plan_compensations,
    request_abort,
)
from minirt.errors import ToolError, from_record
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.idempotency import reconcile_by_lookup
from minirt.journal import Journal, NonDeterminism
from minirt.run import RunState
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, Lookup, OutcomeUnknown, ToolCall

RUN = "order-1"


class Providers:
    """Three fake providers. ``ledger`` counts effects that really took place."""

    def __init__(self) -> None:
        self.charges: dict[str, dict[str, Any]] = {}
        self.refunds: dict[str, dict[str, Any]] = {}
        self.bookings: dict[str, dict[str, Any]] = {}
        self.cancelled: Counter[str] = Counter()
        self.emails: list[str] = []
        self.lookups: Counter[str] = Counter()
        self.lookup_down = False

    # payments: deduplicated by idempotency key (the effect key)
    def charge(self, amount: int, call: ToolCall) -> dict[str, Any]:
        key = call.effect_key
        if key not in self.charges:
            self.charges[key] = {"charge_id": f"ch_{len(self.charges) + 1}", "amount": amount}
        return self.charges[key]

    def lookup_charge(self, call: ToolCall) -> Lookup:
        self.lookups["charge"] += 1
        if self.lookup_down:
            raise ConnectionError("payments API unavailable")
        found = self.charges.get(call.effect_key)
        return Lookup(found is not None, found)

    def refund(self, charge_id: str, call: ToolCall) -> dict[str, Any]:
        if call.effect_key not in self.refunds:
            self.refunds[call.effect_key] = {"refund_id": f"re_{len(self.refunds) + 1}",
                                             "charge_id": charge_id}
        return self.refunds[call.effect_key]

    def lookup_refund(self, call: ToolCall) -> Lookup:
        found = self.refunds.get(call.effect_key)
        return Lookup(found is not None, found)

    # bookings: by client reference; cancel is idempotent by booking id
    def book(self, item: str, call: ToolCall) -> dict[str, Any]:
        if item == "sold-out":
            raise ToolError(tool="book", reason="sold out")
        ref = call.effect_key
        if ref not in self.bookings:
            self.bookings[ref] = {"booking_id": f"bk_{len(self.bookings) + 1}", "item": item}
        return self.bookings[ref]

    def lookup_booking(self, call: ToolCall) -> Lookup:
        self.lookups["book"] += 1
        found = self.bookings.get(call.effect_key)
        return Lookup(found is not None, found)

    def cancel(self, booking_id: str) -> dict[str, Any]:
        self.cancelled[booking_id] += 1  # the ledger counts cancel requests...
        return {"booking_id": booking_id, "status": "cancelled"}

    def send(self, to: str) -> dict[str, Any]:
        self.emails.append(to)  # no key, no lookup: a second send is a second email
        return {"message": len(self.emails)}

    def refunds_of(self, charge_id: str) -> int:
        return sum(1 for r in self.refunds.values() if r["charge_id"] == charge_id)

    def tools(self) -> list[FunctionTool]:
        keyed = EffectClass.KEYED
        email = FunctionTool(self.send, name="send_email", effect=EffectClass.IRREVERSIBLE)
        email.delivery = "at-most-once"  # type: ignore[attr-defined]  # never resent
        return [
            FunctionTool(self.charge, name="charge", effect=keyed, lookup=self.lookup_charge),
            FunctionTool(self.refund, name="refund", effect=keyed, lookup=self.lookup_refund),
            FunctionTool(self.book, name="book", effect=keyed, lookup=self.lookup_booking),
            FunctionTool(self.cancel, name="cancel_booking", effect=keyed),
            email,
        ]


def refund_args(args: dict[str, Any], receipt: dict[str, Any]) -> dict[str, Any]:
    return {"charge_id": receipt["charge_id"]}


def cancel_args(args: dict[str, Any], receipt: dict[str, Any]) -> dict[str, Any]:
    return {"booking_id": receipt["booking_id"]}


def order(ctx: Any, inp: dict[str, Any], **saga_kw: Any) -> dict[str, Any]:
    saga = Saga(ctx, "order", **saga_kw)
    try:
        saga.step("charge", {"amount": 30}, compensate=("refund", refund_args),
                  state={"order": "charged"})
        saga.step("book", {"item": inp["item"]}, compensate=("cancel_booking", cancel_args))
        sent = saga.step("send_email", {"to": "ada@example.com"})
        if inp.get("abort_after_email"):
            raise AbortRequested(run_id=ctx.run_id, saga="order", step=-1, reason="customer")
        saga.finish()
    except SAGA_STOPS as stop:
        report = saga.compensate(str(stop), state={"order": "cancelled"})
        if inp.get("compensate_twice"):
            report = saga.compensate("again")
        return {"status": "compensated", "outcomes": report.outcomes()}
    return {"status": "confirmed", "email": "maybe" if sent.get("delivery") else "sent"}


class Harness:
    def __init__(self, tmp: Path, providers: Providers | None = None, **saga_kw: Any) -> None:
        self.path = tmp / "runs.sqlite"
        self.world = providers or Providers()
        self.clock = FakeClock(1_700_000_000.0)
        self.saga_kw = saga_kw
        self.workers = 0

    def runtime(self, faults: FaultPlan | None = None) -> Runtime:
        self.workers += 1
        self.clock.advance(3600)  # every new worker comes after the previous lease expired
        return Runtime(SQLiteStore(self.path), tools=self.world.tools(),
                       workflows={"order": lambda ctx, inp: order(ctx, inp, **self.saga_kw)},
                       clock=self.clock, faults=faults, worker_id=f"w{self.workers}",
                       reconcile=reconcile_by_lookup)

    def crash(self, point: str, inp: dict[str, Any], occurrence: int = 1) -> None:
        rt = self.runtime(FaultPlan(crash_at=point, occurrence=occurrence))
        rt.start("order", inp, run_id=RUN)
        with pytest.raises(SimulatedCrash):
            rt.run(RUN)
        rt.close()

    def resume(self, abort: str | None = None) -> Any:
        rt = self.runtime()
        if abort:
            request_abort(rt, RUN, abort)
        out = rt.resume(RUN)
        self.events = rt.store.read(RUN)
        self.kv = rt.store.kv_items(RUN)
        rt.close()
        return out

    def run(self, inp: dict[str, Any]) -> Any:
        rt = self.runtime()
        out = rt.run_workflow("order", inp, run_id=RUN)
        self.events = rt.store.read(RUN)
        rt.close()
        return out

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]


# -- the local commit boundary -----------------------------------------------------------------

def test_crash_inside_the_commit_leaves_neither_state_nor_outbox_row(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("inside_commit", {"item": "seat"})
    store = SQLiteStore(h.path)
    assert [e.kind for e in store.read(RUN) if e.kind == "intent"] == []
    assert store.kv_get(RUN, "order") is None


def test_crash_right_after_the_commit_leaves_both(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("after_intent", {"item": "seat"})
    store = SQLiteStore(h.path)
    intents = [e for e in store.read(RUN) if e.kind == "intent"]
    assert len(intents) == 1 and intents[0].payload["outbox"]["state"] == ["order"]
    assert store.kv_get(RUN, "order") == "charged"
    assert h.world.charges == {}  # committed, not sent


CHILD = """
import sys
from minirt.clock import FakeClock
from minirt.effects import Saga
from minirt.faults import CrashMode, FaultPlan
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool

def wf(ctx, inp):
    Saga(ctx, "s").step("charge", {"amount": 1}, state={"order": "charged"})

charge = FunctionTool(lambda amount: {"charge_id": "ch_1"}, name="charge",
                      effect=EffectClass.KEYED)
rt = Runtime(SQLiteStore(sys.argv[1]), tools=[charge], workflows={"wf": wf},
             clock=FakeClock(), faults=FaultPlan(crash_at=sys.argv[2], mode=CrashMode.KILL))
rt.run_workflow("wf", {}, run_id="r")
"""


@pytest.mark.parametrize("point,committed", [("inside_commit", False), ("after_intent", True)])
def test_sigkill_at_the_commit_boundary_is_all_or_nothing(tmp_path: Path, point: str,
                                                          committed: bool) -> None:
    db = tmp_path / "runs.sqlite"
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(CHILD), str(db), point],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == -9, proc.stderr
    store = SQLiteStore(db)
    has_row = any(e.kind == "intent" for e in store.read("r"))
    assert (has_row, store.kv_get("r", "order") == "charged") == (committed, committed)


def test_undelivered_outbox_row_is_delivered_once_on_resume(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("after_intent", {"item": "seat"})
    out = h.resume()
    assert out.value == {"status": "confirmed", "email": "sent"}
    assert len(h.world.charges) == 1 and len(h.world.bookings) == 1


def test_the_receipt_is_journaled_as_the_steps_result(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run({"item": "seat"})
    journal = Journal(None, RUN, h.events)  # type: ignore[arg-type]
    first = journal.at(0)
    assert first is not None and first.outcome is not None
    assert first.outcome.payload["value"] == {"charge_id": "ch_1", "amount": 30}


# -- conditional compensation ------------------------------------------------------------------

def test_a_refused_step_compensates_only_effects_with_receipts(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    out = h.run({"item": "sold-out"})
    assert out.value["outcomes"] == {"book": "skipped", "charge": "compensated"}
    assert h.world.refunds_of("ch_1") == 1 and sum(h.world.cancelled.values()) == 0


def test_compensation_commits_the_report_with_the_local_state(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("after_saga_compensated", {"item": "sold-out"})
    store = SQLiteStore(h.path)
    assert store.kv_get(RUN, "order") == "cancelled"
    assert [e.kind for e in store.read(RUN)].count("saga_compensated") == 1


def test_unknown_effect_is_looked_up_before_it_is_compensated(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("after_provider_commit", {"item": "seat"})  # charged, receipt lost
    out = h.resume(abort="operator cancelled")
    assert h.world.lookups["charge"] == 1
    assert out.value["outcomes"] == {"charge": "compensated"}  # the abort came before "book"
    assert h.world.refunds_of("ch_1") == 1
    assert h.kinds().index("forward_reconciled") < h.kinds().index("compensation_intent")


def test_unknown_effect_that_never_happened_is_not_compensated(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("after_intent", {"item": "seat"})  # committed, never sent
    out = h.resume(abort="operator cancelled")
    assert out.value["outcomes"] == {"charge": "skipped"}
    assert h.world.charges == {} and h.world.refunds == {}


def test_unknown_effect_the_provider_cannot_answer_waits_uncertain(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("after_provider_commit", {"item": "seat"})
    h.world.lookup_down = True
    assert h.resume(abort="operator cancelled").state is RunState.UNCERTAIN
    assert h.world.refunds == {}
    h.world.lookup_down = False
    assert h.resume().value["outcomes"]["charge"] == "compensated"
    assert h.world.refunds_of("ch_1") == 1


def test_compensating_twice_compensates_once(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    out = h.run({"item": "sold-out", "compensate_twice": True})
    assert out.value["outcomes"]["charge"] == "compensated"
    assert h.world.refunds_of("ch_1") == 1 and h.kinds().count("compensation_intent") == 1


@pytest.mark.parametrize("point", ["after_compensation_intent", "after_compensation_commit",
                                   "before_compensation_result", "after_compensation_result"])
def test_crash_during_compensation_still_compensates_once(tmp_path: Path, point: str) -> None:
    h = Harness(tmp_path)
    h.crash(point, {"item": "sold-out"})
    out = h.resume()
    assert out.value["outcomes"] == {"book": "skipped", "charge": "compensated"}
    assert h.world.refunds_of("ch_1") == 1


def test_every_effect_is_undone_in_reverse_order(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    out = h.run({"item": "seat", "abort_after_email": True})
    assert list(out.value["outcomes"]) == ["send_email", "book", "charge"]
    assert h.world.cancelled == Counter({"bk_1": 1}) and h.world.refunds_of("ch_1") == 1


def test_what_cannot_be_compensated_is_reported_not_skipped(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.run({"item": "seat", "abort_after_email": True})
    done = [e.payload for e in h.events if e.kind == "saga_compensated"][0]
    line = CompensationReport.from_dict(done["report"]).lines()[0]
    assert line.startswith("not compensable: send_email (step 2) happened at 20")
    assert h.world.emails == ["ada@example.com"]


def test_an_email_with_a_lost_answer_is_maybe_sent_and_not_resent(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("before_result", {"item": "seat"}, occurrence=3)  # the email's W4
    assert h.resume().value == {"status": "confirmed", "email": "maybe"}
    assert h.world.emails == ["ada@example.com"]


def test_a_maybe_sent_email_is_reported_as_maybe_not_as_sent(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("before_result", {"item": "seat", "abort_after_email": True}, occurrence=3)
    assert h.resume().value["outcomes"]["send_email"] == "not compensable"
    done = [e.payload for e in h.events if e.kind == "saga_compensated"][0]
    assert "may have happened" in done["report"]["items"][0]["line"]


def test_abort_after_finish_compensates_nothing(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("before_complete", {"item": "seat"})
    out = h.resume(abort="too late")
    assert out.value == {"status": "confirmed", "email": "sent"}
    assert h.world.refunds == {} and h.world.cancelled == Counter()


# -- keys, plans and refusals ------------------------------------------------------------------

def test_compensation_key_is_a_function_of_the_forward_key() -> None:
    assert compensation_key("ek_1", "refund") == compensation_key("ek_1", "refund")
    assert compensation_key("ek_1", "refund") != compensation_key("ek_2", "refund")
    assert compensation_key("ek_1", "refund").startswith("ck_")


def test_a_compensation_key_that_changes_on_replay_is_nondeterminism(tmp_path: Path) -> None:
    keys = iter(range(100))
    h = Harness(tmp_path, key=lambda fk, tool: f"ck_{fk}_{next(keys)}")
    h.crash("after_compensation_intent", {"item": "sold-out"})
    out = h.resume()
    assert isinstance(out.error, NonDeterminism) and h.world.refunds == {}  # loud, not twice


def test_plan_compensations_looks_up_unknown_and_skips_what_never_happened() -> None:
    effects = [
        ForwardEffect(0, "charge", "ek_a", EffectStatus.RECEIPTED, "refund", {"id": 1}),
        ForwardEffect(1, "book", "ek_b", EffectStatus.UNKNOWN, "cancel_booking"),
        ForwardEffect(2, "book", "ek_c", EffectStatus.UNKNOWN, "cancel_booking"),
        ForwardEffect(3, "send_email", "ek_d", EffectStatus.DECLINED, None),
        ForwardEffect(4, "send_email", "ek_e", EffectStatus.RECEIPTED, None, {"m": 1}),
    ]
    asked: list[str] = []

    def lookup(fx: ForwardEffect) -> Lookup:
        asked.append(str(fx.effect_key))
        return Lookup(fx.effect_key == "ek_b", {"booking_id": "bk"})

    plan = plan_compensations(effects, lookup)
    assert [(p.effect.step, p.action) for p in plan] == [
        (4, Action.NOT_COMPENSABLE), (3, Action.SKIP), (2, Action.SKIP),
        (1, Action.COMPENSATE), (0, Action.COMPENSATE)]
    assert asked == ["ek_c", "ek_b"] and plan[3].effect.receipt == {"booking_id": "bk"}


def test_plan_compensations_leaves_an_unanswerable_effect_unresolved() -> None:
    def lookup(fx: ForwardEffect) -> Lookup:
        raise OutcomeUnknown(tool=fx.tool, effect_key=fx.effect_key, reason="down")

    fx = ForwardEffect(0, "charge", "ek_a", EffectStatus.UNKNOWN, "refund")
    assert [p.action for p in plan_compensations([fx], lookup)] == [Action.UNRESOLVED]


def test_a_plan_that_drops_an_effect_is_refused(tmp_path: Path) -> None:
    def dropping(effects: Any, lookup: Any) -> list[PlannedAction]:
        return [p for p in plan_compensations(effects, lookup) if p.effect.tool != "send_email"]

    h = Harness(tmp_path, planner=dropping)
    out = h.run({"item": "seat", "abort_after_email": True})
    assert isinstance(out.error, PlanInvalid) and "missing" in str(out.error)
    assert h.world.refunds == {}


def test_a_plan_compensating_without_a_receipt_is_refused(tmp_path: Path) -> None:
    def blind(effects: Any, lookup: Any) -> list[PlannedAction]:
        return [PlannedAction(Action.COMPENSATE, fx) for fx in effects]

    h = Harness(tmp_path, planner=blind)
    h.crash("after_provider_commit", {"item": "seat"})
    out = h.resume(abort="operator")
    assert isinstance(out.error, PlanInvalid) and h.world.refunds == {}


def test_a_compensating_tool_that_is_not_idempotent_is_refused(tmp_path: Path) -> None:
    def wf(ctx: Any, inp: Any) -> Any:
        Saga(ctx).step("charge", {"amount": 1}, compensate=("send_email", refund_args))

    world = Providers()
    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=world.tools(), workflows={"wf": wf},
                 clock=FakeClock())
    out = rt.run_workflow("wf", {}, run_id="r")
    assert isinstance(out.error, CompensationNotIdempotent) and world.charges == {}


def test_a_malformed_compensation_is_a_named_error(tmp_path: Path) -> None:
    def wf(ctx: Any, inp: Any) -> Any:
        Saga(ctx, "s").step("charge", {"amount": 1}, compensate="refund")  # type: ignore[arg-type]

    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=Providers().tools(),
                 workflows={"wf": wf}, clock=FakeClock())
    out = rt.run_workflow("wf", {}, run_id="r")
    assert isinstance(out.error, SagaMisuse) and out.error.saga == "s"


# -- the journal round trip --------------------------------------------------------------------

def test_the_report_survives_a_reopen_and_replays_unchanged(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    first = h.run({"item": "sold-out"})
    done = [e.payload for e in SQLiteStore(h.path).read(RUN) if e.kind == "saga_compensated"]
    report = CompensationReport.from_dict(done[0]["report"])
    assert report.outcomes() == first.value["outcomes"]
    assert CompensationReport.from_dict(report.as_dict()) == report


@pytest.mark.parametrize("error", [
    AbortRequested(run_id="r", saga="s", step=1, reason="stop"),
    StepFailed(run_id="r", saga="s", step=1, tool="book", reason="sold out"),
    CompensationFailed(run_id="r", saga="s", tool="refund", compensation_key="ck_1",
                       reason="charge already refunded"),
    PlanInvalid(saga="s", reason="steps [2] are missing"),
])
def test_saga_errors_round_trip_through_the_journal(error: Any) -> None:
    back = from_record(error.to_record())
    assert type(back) is type(error) and str(back) == str(error)


# -- idempotent calls and misuse ---------------------------------------------------------------

def test_request_abort_twice_keeps_the_first_reason(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("after_intent", {"item": "seat"})
    rt = h.runtime()
    request_abort(rt, RUN, "first")
    request_abort(rt, RUN, "second")
    rt.resume(RUN)
    aborts = [e.payload for e in rt.store.read(RUN) if e.kind == "saga_abort"]
    rt.close()
    assert [a["reason"] for a in aborts] == ["first"]


def test_finish_twice_records_one_completion(tmp_path: Path) -> None:
    def wf(ctx: Any, inp: Any) -> Any:
        saga = Saga(ctx, "s")
        saga.step("charge", {"amount": 1}, compensate=("refund", refund_args))
        saga.finish()
        saga.finish()

    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=Providers().tools(),
                 workflows={"wf": wf}, clock=FakeClock())
    rt.run_workflow("wf", {}, run_id="r")
    assert [e.kind for e in rt.store.read("r")].count("saga_completed") == 1


def test_a_step_after_compensation_is_refused_by_name(tmp_path: Path) -> None:
    def wf(ctx: Any, inp: Any) -> Any:
        saga = Saga(ctx, "s")
        saga.step("charge", {"amount": 1}, compensate=("refund", refund_args))
        saga.compensate("changed my mind")
        saga.step("book", {"item": "seat"})

    world = Providers()
    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=world.tools(), workflows={"wf": wf},
                 clock=FakeClock())
    out = rt.run_workflow("wf", {}, run_id="r")
    assert isinstance(out.error, SagaMisuse) and world.bookings == {}
    assert world.refunds_of("ch_1") == 1


def test_a_changed_workflow_is_nondeterminism_not_a_failed_step(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.crash("after_saga_compensated", {"item": "sold-out"})  # book was refused at step 1
    h.saga_kw = {}
    rt = Runtime(SQLiteStore(h.path), tools=h.world.tools(), clock=FakeClock(2e9),
                 workflows={"order": lambda ctx, inp: order(ctx, {**inp, "item": "other"})})
    out = rt.resume(RUN)
    assert isinstance(out.error, NonDeterminism) and h.world.refunds_of("ch_1") == 1
