"""The agent loop: replay from the journal, divergence, reconciliation, errors, waits, fencing.

Each test crashes a run on purpose (a simulated crash at a named fault point), drops the runtime,
reopens the store with a fresh runtime (a new worker, the fake clock past the old lease) and checks
what the resumed run did to the outside world, counted by the fake tools below.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from minirt.clock import FakeClock
from minirt.errors import MinirtError, RecordedError, ToolError
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.journal import Journal, NonDeterminism, UnresolvedIntent
from minirt.run import DuplicateRun, RunState, StaleIncarnation
from minirt.runtime import Resolution, Runtime, RuntimeHook, ScriptedModel, UnknownWorkflow
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, Lookup, OutcomeUnknown, ToolCall

RUN = "run-1"


class World:
    """Fake tools that count every real invocation and remember the effect keys they saw."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.keys: dict[str, list[str]] = {}
        self.attempts: dict[str, list[int]] = {}
        self.step_calls: Counter[str] = Counter()

    def tool(self, name: str, effect: EffectClass = EffectClass.KEYED, *, result: Any = None,
             error: Exception | None = None, lookup: Any = None) -> FunctionTool:
        def fn(call: ToolCall, **args: Any) -> Any:
            self.calls[name] += 1
            self.keys.setdefault(name, []).append(call.effect_key)
            self.attempts.setdefault(name, []).append(call.attempt)
            if error is not None:
                raise error
            return result if result is not None else {"tool": name, "args": args}

        return FunctionTool(fn, name=name, effect=effect, lookup=lookup)

    def counted(self, name: str, value: Any) -> Any:
        self.step_calls[name] += 1
        return value


class Harness:
    """One store file, one clock, and a fresh Runtime per 'process'."""

    def __init__(self, tmp_path: Path, world: World, tools: list[FunctionTool],
                 workflow: Any, model_outputs: list[Any] | None = None) -> None:
        self.path = tmp_path / "runs.sqlite"
        self.world = world
        self.tools = tools
        self.workflow = workflow
        self.clock = FakeClock(1000.0)
        self.model = ScriptedModel(model_outputs or [])
        self.n = 0

    def runtime(self, *, faults: Any = None, workflow: Any = None, **kw: Any) -> Runtime:
        self.n += 1
        return Runtime(SQLiteStore(self.path), tools=self.tools,
                       workflows={"wf": workflow or self.workflow}, model=self.model,
                       clock=self.clock, faults=faults, worker_id=f"w{self.n}", **kw)

    def crash(self, point: str, occurrence: int = 1, input: Any = None) -> None:
        rt = self.runtime(faults=FaultPlan(crash_at=point, occurrence=occurrence))
        rt.start("wf", input, run_id=RUN)
        with pytest.raises(SimulatedCrash):
            rt.run(RUN)
        rt.close()
        self.clock.advance(3600)  # past the crashed worker's lease

    def resume(self, **kw: Any):
        rt = self.runtime(**kw)
        try:
            return rt.resume(RUN)
        finally:
            rt.close()
            self.clock.advance(3600)

    def journal(self) -> Journal:
        store = SQLiteStore(self.path)
        try:
            return Journal.load(store, RUN)
        finally:
            store.close()

    def kinds(self) -> list[str]:
        return [e.kind for e in self.journal().events]


def _charge_flow(world: World):
    def wf(ctx, inp):
        plan = ctx.decide({"task": "refund"}, name="plan")
        stamp = ctx.now()
        charge = ctx.call_tool("charge", amount=plan["amount"])
        n = ctx.step("count", world.counted, "count", 7)
        return {"charge": charge, "n": n, "at": stamp}

    return wf


@pytest.fixture()
def world() -> World:
    return World()


@pytest.fixture()
def h(tmp_path, world) -> Harness:
    return Harness(tmp_path, world, [world.tool("charge")], _charge_flow(world),
                   model_outputs=[{"amount": 30}])


# -- replay returns recorded results without touching the world ------------------------------

def test_crash_free_run_succeeds(h):
    rt = h.runtime()
    out = rt.run_workflow("wf", run_id=RUN)
    assert (out.state, out.value["charge"]["args"], out.value["n"]) == (
        RunState.SUCCEEDED, {"amount": 30}, 7)


def test_replay_does_not_call_a_recorded_step_function_again(h, world):
    h.crash("before_complete")
    assert h.resume().state is RunState.SUCCEEDED
    assert world.step_calls["count"] == 1


def test_replay_does_not_ask_the_model_again(h):
    h.crash("before_complete")
    h.resume()
    assert h.model.calls == 1


def test_replay_does_not_invoke_a_tool_whose_result_is_recorded(h, world):
    h.crash("after_result")
    out = h.resume()
    assert (out.state, world.calls["charge"]) == (RunState.SUCCEEDED, 1)


def test_resumed_result_equals_the_crash_free_result(h, tmp_path, world):
    h.crash("after_step_record")
    resumed = h.resume().value
    fresh = Harness(tmp_path / "b", World(), [World().tool("charge")], _charge_flow(World()),
                    model_outputs=[{"amount": 30}])
    (tmp_path / "b").mkdir()
    assert fresh.runtime().run_workflow("wf", run_id=RUN).value == resumed


def test_recorded_time_is_returned_on_replay_not_the_clock(h):
    h.crash("before_complete")
    out = h.resume()
    assert out.value["at"] == 1000.0 and h.clock.now() > 1000.0


def test_resume_continues_at_the_first_unrecorded_position(h, world):
    h.crash("before_step_record", occurrence=2)  # 1 is ctx.now(); 2 is the count step
    h.resume()
    assert (world.step_calls["count"], world.calls["charge"]) == (2, 1)


def test_resume_of_a_finished_run_executes_nothing(h, world):
    rt = h.runtime()
    rt.run_workflow("wf", run_id=RUN)
    rt.close()
    before = len(h.journal().events)
    out = h.resume()
    assert (out.state, len(h.journal().events), world.calls["charge"]) == (
        RunState.SUCCEEDED, before, 1)


def test_replayed_positions_are_reported_to_hooks_as_replayed(h):
    seen: list[tuple[int, bool]] = []

    class Spy(RuntimeHook):
        def on_position(self, ctx, step, kind, name, replayed):
            seen.append((step, replayed))

    h.crash("before_complete")
    h.resume(hooks=[Spy()])
    assert seen == [(0, True), (1, True), (2, True), (3, True)]


# -- divergence ---------------------------------------------------------------------------------

def _diverge(h: Harness, changed) -> NonDeterminism:
    h.crash("before_complete")
    out = h.resume(workflow=changed)
    assert out.state is RunState.WAITING  # parked, resumable after a rollback (issue 19)
    assert isinstance(out.error, NonDeterminism)
    return out.error


def test_renamed_step_raises_nondeterminism_with_position(h, world):
    def changed(ctx, inp):
        ctx.decide({"task": "refund"}, name="plan")
        ctx.step("clock", lambda: 0.0)
        return None

    err = _diverge(h, changed)
    assert (err.run_id, err.step, err.recorded, err.requested) == (
        RUN, 1, "step 'now'", "step 'clock'")


def test_changed_tool_arguments_raise_nondeterminism(h, world):
    def changed(ctx, inp):
        ctx.decide({"task": "refund"}, name="plan")
        ctx.now()
        ctx.call_tool("charge", amount=31)
        return None

    err = _diverge(h, changed)
    assert err.step == 2
    assert err.recorded.startswith("tool 'charge' with args digest")
    assert err.requested.startswith("tool 'charge' with args digest")
    assert err.recorded != err.requested


def test_other_tool_at_a_position_raises_nondeterminism(h, world):
    h.tools.append(world.tool("email"))

    def changed(ctx, inp):
        ctx.decide({"task": "refund"}, name="plan")
        ctx.now()
        ctx.call_tool("email", amount=30)
        return None

    err = _diverge(h, changed)
    assert err.step == 2 and err.requested.startswith("tool 'email'")


def test_a_step_where_a_tool_was_recorded_raises_nondeterminism(h):
    def changed(ctx, inp):
        ctx.decide({"task": "refund"}, name="plan")
        ctx.now()
        ctx.step("charge", lambda: 1)
        return None

    err = _diverge(h, changed)
    assert err.step == 2 and err.recorded.startswith("tool 'charge'")


def test_changed_prompt_raises_nondeterminism(h):
    def changed(ctx, inp):
        ctx.decide({"task": "refund twice"}, name="plan")
        return None

    err = _diverge(h, changed)
    assert (err.step, err.recorded, err.requested) == (0, "decision 'plan'", "decision 'plan'")


def test_inserted_call_shifts_positions_and_is_caught_at_the_first(h):
    def changed(ctx, inp):
        ctx.step("audit", lambda: "x")
        return None

    assert _diverge(h, changed).step == 0


def test_divergence_leaves_the_outside_world_alone(h, world):
    def changed(ctx, inp):
        ctx.decide({"task": "refund"}, name="plan")
        ctx.now()
        ctx.call_tool("charge", amount=999)
        return None

    _diverge(h, changed)
    assert world.calls["charge"] == 1


def test_divergence_is_recorded_and_rebuilt_from_the_run(h):
    def changed(ctx, inp):
        ctx.step("audit", lambda: "x")

    _diverge(h, changed)
    rt = h.runtime()
    err = rt.outcome(RUN).error
    rt.close()
    assert type(err) is NonDeterminism and err.step == 0


# -- unresolved intents and the default reconcile policy ---------------------------------------

def test_intent_without_outcome_is_found_on_recovery(h):
    h.crash("after_intent")
    (pos,) = h.journal().unresolved()
    payload = h.journal().payload(pos.opening)
    assert (pos.step, payload["tool"], payload["effect_key"].startswith("ek_")) == (
        2, "charge", True)


def test_no_unresolved_intent_after_the_result_is_journaled(h):
    h.crash("after_result")
    assert h.journal().unresolved() == []


def test_keyed_tool_is_resent_with_the_same_effect_key(h, world):
    h.crash("after_provider_commit")
    out = h.resume()
    assert out.state is RunState.SUCCEEDED
    assert world.calls["charge"] == 2
    assert len(set(world.keys["charge"])) == 1
    assert world.attempts["charge"] == [1, 2]


def test_resend_is_journaled_as_a_reconciliation_and_an_attempt(h):
    h.crash("before_result")
    h.resume()
    kinds = h.kinds()
    i = kinds.index("reconciled")
    assert kinds[i:i + 3] == ["reconciled", "attempt", "tool_result"]


def test_pure_tool_is_resent_with_the_same_effect_key(tmp_path, world):
    def wf(ctx, inp):
        return ctx.call_tool("quote", sku="A1")

    h = Harness(tmp_path, world, [world.tool("quote", EffectClass.PURE)], wf)
    h.crash("before_result")
    assert h.resume().state is RunState.SUCCEEDED
    assert world.calls["quote"] == 2 and len(set(world.keys["quote"])) == 1


def _irreversible(tmp_path: Path, world: World, **tool_kw: Any) -> Harness:
    def wf(ctx, inp):
        return ctx.call_tool("wire", amount=100)

    return Harness(tmp_path, world, [world.tool("wire", EffectClass.IRREVERSIBLE, **tool_kw)], wf)


@pytest.mark.parametrize("point", ["after_intent", "after_provider_commit", "before_result"])
def test_irreversible_without_lookup_goes_uncertain_and_is_not_resent(tmp_path, world, point):
    h = _irreversible(tmp_path, world)
    h.crash(point)
    sent_before = world.calls["wire"]
    out = h.resume()
    assert (out.state, world.calls["wire"]) == (RunState.UNCERTAIN, sent_before)
    assert isinstance(out.error, UnresolvedIntent) and out.error.tool == "wire"


def test_uncertain_run_stays_uncertain_on_every_resume(tmp_path, world):
    h = _irreversible(tmp_path, world)
    h.crash("after_provider_commit")
    h.resume()
    assert h.resume().state is RunState.UNCERTAIN
    assert world.calls["wire"] == 1


def test_compensatable_without_lookup_goes_uncertain(tmp_path, world):
    def wf(ctx, inp):
        return ctx.call_tool("book", seat=1)

    h = Harness(tmp_path, world, [world.tool("book", EffectClass.COMPENSATABLE)], wf)
    h.crash("before_result")
    assert h.resume().state is RunState.UNCERTAIN and world.calls["book"] == 1


def test_lookup_that_finds_the_effect_returns_its_result_without_resending(tmp_path, world):
    found = {"wire_id": "wr_1"}
    h = _irreversible(tmp_path, world, lookup=lambda call: Lookup(True, found))
    h.crash("after_provider_commit")
    out = h.resume()
    assert (out.state, out.value, world.calls["wire"]) == (RunState.SUCCEEDED, found, 1)


def test_lookup_result_is_journaled_with_the_reconciliation_note(tmp_path, world):
    h = _irreversible(tmp_path, world, lookup=lambda call: Lookup(True, {"wire_id": "wr_1"}))
    h.crash("after_provider_commit")
    h.resume()
    pos = h.journal().at(0)
    note = h.journal().payload(pos.extra[0])
    assert (pos.outcome.kind, note["resolution"]) == ("tool_result", "result")


def test_lookup_that_finds_nothing_resends_with_the_same_key(tmp_path, world):
    h = _irreversible(tmp_path, world, lookup=lambda call: Lookup(False))
    h.crash("after_intent")
    out = h.resume()
    assert (out.state, world.calls["wire"]) == (RunState.SUCCEEDED, 1)


def test_lookup_is_asked_with_the_recorded_effect_key(tmp_path, world):
    asked: list[str] = []

    def lookup(call: ToolCall) -> Lookup:
        asked.append(call.effect_key)
        return Lookup(True, {"ok": 1})

    h = _irreversible(tmp_path, world, lookup=lookup)
    h.crash("before_result")
    h.resume()
    assert asked == world.keys["wire"]


def test_outcome_unknown_from_a_keyed_tool_is_resent_in_process(tmp_path, world):
    state = {"n": 0}

    def flaky(call: ToolCall, amount: int) -> Any:
        state["n"] += 1
        if state["n"] == 1:
            raise OutcomeUnknown(tool="pay", effect_key=call.effect_key, reason="timeout")
        return {"paid": amount, "key": call.effect_key}

    def wf(ctx, inp):
        return ctx.call_tool("pay", amount=5)

    h = Harness(tmp_path, world, [FunctionTool(flaky, name="pay", effect=EffectClass.KEYED)], wf)
    out = h.runtime().run_workflow("wf", run_id=RUN)
    assert (out.state, state["n"]) == (RunState.SUCCEEDED, 2)


def test_resends_stop_after_max_attempts_and_the_run_goes_uncertain(tmp_path, world):
    def never(call: ToolCall, amount: int) -> Any:
        world.calls["pay"] += 1
        raise OutcomeUnknown(tool="pay", effect_key=call.effect_key, reason="timeout")

    def wf(ctx, inp):
        return ctx.call_tool("pay", amount=5)

    h = Harness(tmp_path, world, [FunctionTool(never, name="pay", effect=EffectClass.KEYED)], wf)
    out = h.runtime(max_attempts=3).run_workflow("wf", run_id=RUN)
    assert (out.state, world.calls["pay"]) == (RunState.UNCERTAIN, 3)


def test_uncertain_run_completes_once_a_policy_settles_the_effect(tmp_path, world):
    h = _irreversible(tmp_path, world)
    h.crash("after_provider_commit")
    h.resume()
    out = h.resume(reconcile=lambda ctx, tool, call: Resolution("result", {"wire_id": "wr_9"}))
    assert (out.state, out.value, world.calls["wire"]) == (
        RunState.SUCCEEDED, {"wire_id": "wr_9"}, 1)


def test_uncertain_run_settled_then_waiting_parks_as_waiting(tmp_path, world):
    def wf(ctx, inp):
        wire = ctx.call_tool("wire", amount=100)
        return [wire, ctx.wait_for("approval")]

    h = Harness(tmp_path, world, [world.tool("wire", EffectClass.IRREVERSIBLE)], wf)
    h.crash("after_provider_commit")
    assert h.resume().state is RunState.UNCERTAIN
    out = h.resume(reconcile=lambda ctx, tool, call: Resolution("result", {"wire_id": "wr_9"}))
    assert out.state is RunState.WAITING


# -- errors are recorded and raised again on replay ---------------------------------------------

def test_tool_error_is_replayed_with_the_same_type_and_fields(tmp_path, world):
    caught: list[ToolError] = []

    def wf(ctx, inp):
        try:
            ctx.call_tool("charge", amount=5)
        except ToolError as exc:
            caught.append(exc)
        return ctx.step("after", lambda: "went on")

    tool = world.tool("charge", error=ToolError(tool="charge", reason="card declined"))
    h = Harness(tmp_path, world, [tool], wf)
    h.crash("before_step_record")
    h.resume()
    first, replayed = caught
    assert type(replayed) is ToolError and replayed is not first
    assert (replayed.tool, replayed.reason) == ("charge", "card declined")
    assert world.calls["charge"] == 1


def test_step_error_is_replayed_without_running_the_step_again(tmp_path, world):
    caught: list[str] = []

    def failing():
        world.step_calls["fetch"] += 1
        raise ToolError(tool="fetch", reason="404")

    def wf(ctx, inp):
        try:
            ctx.step("fetch", failing)
        except ToolError as exc:
            caught.append(exc.reason)
        return ctx.step("later", lambda: 1)

    h = Harness(tmp_path, world, [], wf)
    h.crash("before_step_record", occurrence=2)
    h.resume()
    assert (caught, world.step_calls["fetch"]) == (["404", "404"], 1)


class PositiveAmountTool(FunctionTool):
    """A tool whose prepare() refuses a negative amount before anything is journaled or sent."""

    def prepare(self, args: dict[str, Any], scopes: frozenset[str]) -> dict[str, Any]:
        from minirt.tools import ToolArgumentsInvalid

        if args.get("amount", 0) < 0:
            raise ToolArgumentsInvalid(tool=self.name, reason="amount must not be negative")
        return super().prepare(args, scopes)


def test_rejected_tool_arguments_are_replayed_as_the_same_error(tmp_path, world):
    from minirt.tools import ToolArgumentsInvalid

    caught: list[str] = []

    def wf(ctx, inp):
        try:
            ctx.call_tool("charge", amount=-5)
        except ToolArgumentsInvalid as exc:
            caught.append(exc.reason)
        return ctx.step("later", lambda: 1)

    inner = world.tool("charge")
    h = Harness(tmp_path, world, [PositiveAmountTool(inner.fn, name="charge")], wf)
    h.crash("before_step_record")
    h.resume()
    assert caught == ["amount must not be negative"] * 2
    assert world.calls["charge"] == 0


def test_bug_in_a_pure_tool_is_recorded_as_its_error(tmp_path, world):
    def wf(ctx, inp):
        return ctx.call_tool("parse", text="x")

    h = Harness(tmp_path, world,
                [world.tool("parse", EffectClass.PURE, error=ValueError("bad text"))], wf)
    out = h.runtime().run_workflow("wf", run_id=RUN)
    assert out.state is RunState.FAILED
    assert type(out.error) is RecordedError and out.error.type_name == "ValueError"


def test_failed_run_outcome_rebuilds_the_recorded_error(tmp_path, world):
    def wf(ctx, inp):
        ctx.call_tool("charge", amount=5)

    tool = world.tool("charge", error=ToolError(tool="charge", reason="card declined"))
    h = Harness(tmp_path, world, [tool], wf)
    h.runtime().run_workflow("wf", run_id=RUN)
    err = h.runtime().outcome(RUN).error
    assert (type(err), err.reason) == (ToolError, "card declined")


# -- waits and signals --------------------------------------------------------------------------

def _approval_flow(world: World):
    def wf(ctx, inp):
        amount = ctx.step("amount", lambda: 30)
        verdict = ctx.wait_for("approval")
        charge = ctx.call_tool("charge", amount=amount, by=verdict["by"])
        return {"charge": charge, "verdict": verdict}

    return wf


@pytest.fixture()
def waiting(tmp_path, world) -> Harness:
    return Harness(tmp_path, world, [world.tool("charge")], _approval_flow(world))


def test_wait_for_suspends_the_run_as_waiting_without_a_lease(waiting, world):
    out = waiting.runtime().run_workflow("wf", run_id=RUN)
    run = waiting.runtime().store.get_run(RUN).run
    assert (out.state, run.state, run.worker_id, run.lease_expires_at) == (
        RunState.WAITING, RunState.WAITING, None, None)
    assert world.calls["charge"] == 0


def test_signal_wakes_a_waiting_run_to_pending(waiting):
    rt = waiting.runtime()
    rt.run_workflow("wf", run_id=RUN)
    rt.signal(RUN, "approval", {"by": "ops"})
    assert rt.store.get_run(RUN).run.state is RunState.PENDING


def test_resume_after_signal_continues_with_the_payload(waiting, world):
    rt = waiting.runtime()
    rt.run_workflow("wf", run_id=RUN)
    rt.signal(RUN, "approval", {"by": "ops"})
    out = waiting.runtime().resume(RUN)
    assert (out.state, out.value["verdict"], world.calls["charge"]) == (
        RunState.SUCCEEDED, {"by": "ops"}, 1)


def test_woken_run_is_claimed_by_the_worker_loop(waiting):
    rt = waiting.runtime()
    rt.run_workflow("wf", run_id=RUN)
    rt.signal(RUN, "approval", {"by": "ops"})
    (out,) = waiting.runtime().work()
    assert out.state is RunState.SUCCEEDED


def test_signal_is_idempotent_and_the_first_payload_wins(waiting):
    rt = waiting.runtime()
    rt.run_workflow("wf", run_id=RUN)
    rt.signal(RUN, "approval", {"by": "ops"})
    revision = rt.store.get_run(RUN).run.revision
    rt.signal(RUN, "approval", {"by": "someone else"})
    assert rt.store.get_run(RUN).run.revision == revision
    assert waiting.runtime().resume(RUN).value["verdict"] == {"by": "ops"}


def test_signal_before_the_wait_does_not_suspend(waiting):
    rt = waiting.runtime()
    rt.start("wf", run_id=RUN)
    rt.signal(RUN, "approval", {"by": "early"})
    assert rt.run(RUN).state is RunState.SUCCEEDED


def test_signal_arriving_while_the_run_parks_is_not_lost(tmp_path, world):
    """The signal lands after the workflow looked for it and before the run is WAITING."""
    path = tmp_path / "runs.sqlite"
    clock = FakeClock(1000.0)
    wf = _approval_flow(world)

    class LateSignalStore(SQLiteStore):
        delivered = False

        def kv_get(self, run_id: str, key: str) -> str | None:
            value = super().kv_get(run_id, key)
            if key == "signal:approval" and not self.delivered:
                self.delivered = True  # another process delivers it right after our read
                other = Runtime(SQLiteStore(path), workflows={"wf": wf}, clock=clock)
                other.signal(run_id, "approval", {"by": "ops"})
                other.close()
            return value

    rt = Runtime(LateSignalStore(path), tools=[world.tool("charge")], workflows={"wf": wf},
                 clock=clock, worker_id="w1")
    rt.run_workflow("wf", run_id=RUN)
    assert rt.store.get_run(RUN).run.state is RunState.PENDING
    (out,) = rt.work()
    assert out.state is RunState.SUCCEEDED


def test_waiting_run_survives_reopen_and_resumes_after_the_signal(waiting):
    waiting.runtime().run_workflow("wf", run_id=RUN)
    waiting.runtime().signal(RUN, "approval", {"by": "ops"})
    assert waiting.resume().state is RunState.SUCCEEDED
    assert waiting.journal().at(1).outcome.kind == "wait_result"


# -- start, fencing, durability ----------------------------------------------------------------

def test_start_with_the_same_id_and_input_is_get_or_create(h):
    rt = h.runtime()
    first = rt.start("wf", {"order": 42}, run_id=RUN)
    second = rt.start("wf", {"order": 42}, run_id=RUN)
    assert first == second == RUN
    assert [e.kind for e in rt.store.read(RUN)] == ["run_started"]


def test_start_with_the_same_id_and_another_input_raises_duplicate_run(h):
    rt = h.runtime()
    rt.start("wf", {"order": 42}, run_id=RUN)
    with pytest.raises(DuplicateRun):
        rt.start("wf", {"order": 43}, run_id=RUN)


def test_start_of_an_unknown_workflow_raises_and_creates_nothing(h):
    rt = h.runtime()
    with pytest.raises(UnknownWorkflow):
        rt.start("nope", run_id=RUN)
    assert rt.store.list_runs() == []


def test_zombie_worker_is_fenced_out_of_the_journal(tmp_path, world):
    """Worker A stalls inside a tool; B takes over after A's lease expired; A wakes up."""
    path = tmp_path / "runs.sqlite"
    clock = FakeClock(1000.0)
    outcomes: list[Any] = []

    def wf(ctx, inp):
        return ctx.call_tool("slow", n=1)

    def slow(call: ToolCall, n: int) -> Any:
        if call.incarnation == 1:  # A is paused here long enough to lose its lease
            clock.advance(3600)
            b = Runtime(SQLiteStore(path), tools=[FunctionTool(slow, name="slow")],
                        workflows={"wf": wf}, clock=clock, worker_id="B")
            outcomes.append(b.resume(RUN))
            b.close()
        return {"by": call.incarnation}

    a = Runtime(SQLiteStore(path), tools=[FunctionTool(slow, name="slow")],
                workflows={"wf": wf}, clock=clock, worker_id="A")
    a.start("wf", run_id=RUN)
    with pytest.raises(StaleIncarnation) as err:
        a.run(RUN)
    assert (err.value.incarnation, err.value.current) == (1, 2)
    assert (outcomes[0].state, outcomes[0].value) == (RunState.SUCCEEDED, {"by": 2})
    assert {e.incarnation for e in a.store.read(RUN) if e.seq > 3} == {2}


def test_finished_run_survives_close_and_reopen(h):
    rt = h.runtime()
    value = rt.run_workflow("wf", run_id=RUN).value
    rt.close()
    again = h.runtime()
    assert (again.outcome(RUN).state, again.outcome(RUN).value) == (RunState.SUCCEEDED, value)


def test_every_event_written_by_a_run_survives_reopen(h):
    rt = h.runtime()
    rt.run_workflow("wf", run_id=RUN)
    written = rt.store.read(RUN)
    rt.close()
    assert h.journal().events == written


def test_crashed_runtime_leaves_no_half_written_step(h):
    h.crash("before_step_record")
    assert "step" not in h.kinds()[-1:]
    assert h.journal().at(3) is None


def test_workflow_bug_fails_the_run_with_a_recorded_error(tmp_path, world):
    def wf(ctx, inp):
        return {}["missing"]

    h = Harness(tmp_path, world, [], wf)
    out = h.runtime().run_workflow("wf", run_id=RUN)
    assert (out.state, out.error.type_name) == (RunState.FAILED, "KeyError")


def test_minirt_errors_are_named_and_carry_fields():
    err = NonDeterminism(run_id="r", step=3, recorded="step 'a'", requested="step 'b'")
    assert isinstance(err, MinirtError)
    assert str(err) == ("run r diverged from its journal at step 3: recorded step 'a', "
                        "the code now asks for step 'b'")
