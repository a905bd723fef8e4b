"""minirt.cancel: the request, quiescence, bounded cleanup, reconciliation, nested deadlines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from minirt.cancel import (
    CANCEL_KEY,
    CancelHook,
    CancellableRuntime,
    Cancelled,
    Child,
    Cleanup,
    DeadlineExceeded,
    DeadlineInvalid,
    EffectRecord,
    cancel,
    cancel_record,
    effective_deadline,
    fail_after,
    is_quiescent,
    move_on_after,
    set_deadline,
)
from minirt.clock import FakeClock
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.run import RunState
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, Lookup


class World:
    """Keyed tools with a lookup (``act``), a tool without one (``mail``), a clock-advancing
    tool (``wait``); ``cancel_on`` names an act whose call requests the cancel mid-flight."""

    def __init__(self, path: Path, clock: FakeClock, cancel_on: str | None = None) -> None:
        self.path, self.clock, self.cancel_on = path, clock, cancel_on
        self.sent: list[str] = []
        self.saved: dict[str, Any] = {}
        self.lookup_down = 0

    def tools(self) -> list[FunctionTool]:
        def act(name: str, call: Any = None) -> Any:
            if name == self.cancel_on:
                other = SQLiteStore(self.path)
                cancel(other, call.run_id, "stop", at=self.clock.now())
                other.close()
            self.sent.append(name)
            self.saved[call.effect_key] = {"did": name}
            return {"did": name}

        def look(call: Any) -> Lookup:
            if self.lookup_down:
                self.lookup_down -= 1
                raise RuntimeError("provider down")
            found = self.saved.get(call.effect_key)
            return Lookup(found is not None, found)

        def mail(to: str) -> Any:
            self.sent.append(f"mail:{to}")
            return {"to": to}

        def wait(seconds: float) -> Any:
            self.clock.advance(seconds)
            return seconds

        return [FunctionTool(act, effect=EffectClass.KEYED, lookup=look),
                FunctionTool(mail, effect=EffectClass.IRREVERSIBLE),
                FunctionTool(wait, effect=EffectClass.PURE)]


def agent(ctx: Any, names: list[str]) -> Any:
    try:
        for n in names:
            ctx.call_tool("act", name=n)
        return "done"
    except Cancelled as c:
        with Cleanup(ctx, c) as cleanup:
            for fx in c.happened("act"):
                cleanup.call("act", name="undo-" + fx.value["did"])
        raise


def make(path: Path, world: World, *, faults: Any = None, clock: FakeClock | None = None,
         hook: CancelHook | None = None, workflow: Any = agent) -> CancellableRuntime:
    return CancellableRuntime(SQLiteStore(path), tools=world.tools(), workflows={"wf": workflow},
                              clock=clock or world.clock, faults=faults, cancel_hook=hook)


@pytest.fixture
def setup(tmp_path: Path) -> Any:
    def build(cancel_on: str | None = "b", **kw: Any) -> tuple[CancellableRuntime, World]:
        clock = FakeClock(1000.0)
        world = World(tmp_path / "r.sqlite", clock, cancel_on)
        return make(tmp_path / "r.sqlite", world, **kw), world
    return build


def events(rt: CancellableRuntime, run_id: str = "r") -> list[str]:
    return [e.kind for e in rt.store.read(run_id)]


# -- the request -------------------------------------------------------------------------------

def test_a_cancel_request_is_durable_with_its_record_in_one_transaction(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    store = SQLiteStore(path)
    store.create_run("r", "wf", "null", 0.0)
    assert cancel(store, "r", "customer asked", at=5.0) is True
    store.close()
    reopened = SQLiteStore(path)
    assert reopened.get_run("r").run.state is RunState.CANCELLING
    rec = cancel_record(reopened, "r")
    assert rec == {"stage": "requested", "reason": "customer asked", "by": "operator",
                   "requested_at": 5.0}
    assert [e.kind for e in reopened.read("r")] == ["transition", "cancel_requested"]
    reopened.close()


def test_cancel_is_idempotent_and_the_first_reason_wins(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "r.sqlite")
    store.create_run("r", "wf", "null", 0.0)
    assert cancel(store, "r", "first", at=1.0) is True
    assert cancel(store, "r", "second", at=2.0) is False
    assert cancel_record(store, "r")["reason"] == "first"
    assert [e.kind for e in store.read("r")].count("cancel_requested") == 1
    store.close()


def test_a_finished_run_cannot_be_cancelled(setup: Any) -> None:
    rt, _ = setup(cancel_on=None)
    assert rt.run(rt.start("wf", ["a"], run_id="r")).state is RunState.SUCCEEDED
    assert cancel(rt, "r", "too late") is False
    assert rt.store.get_run("r").run.state is RunState.SUCCEEDED
    rt.close()


# -- the cancellation point, quiescence, cleanup ------------------------------------------------

def test_the_call_in_flight_completes_and_nothing_new_starts(setup: Any) -> None:
    rt, world = setup(cancel_on="b")
    out = rt.run(rt.start("wf", ["a", "b", "c", "d"], run_id="r"))
    assert out.state is RunState.CANCELLED
    assert world.sent == ["a", "b", "undo-a", "undo-b"]  # c and d never started
    rt.close()


def test_every_stage_is_recorded_in_order(setup: Any) -> None:
    rt, _ = setup(cancel_on="b")
    rt.run(rt.start("wf", ["a", "b", "c"], run_id="r"))
    kinds = [k for k in events(rt) if k.startswith("cancel_")]
    assert kinds == ["cancel_requested", "cancel_quiesced", "cancel_cleaned_up",
                     "cancel_reconciled"]
    assert cancel_record(rt.store, "r")["stage"] == "reconciled"
    rt.close()


def test_cancelled_is_not_swallowed_by_except_exception(setup: Any) -> None:
    def careless(ctx: Any, _: Any) -> Any:
        for n in ("a", "b", "c"):
            try:
                ctx.call_tool("act", name=n)
            except Exception:
                pass
        return "done"

    rt, world = setup(cancel_on="b", workflow=careless)
    assert rt.run(rt.start("wf", None, run_id="r")).state is RunState.CANCELLED
    assert world.sent == ["a", "b"]
    rt.close()


def test_cleanup_is_not_repeated_after_a_crash_during_it(setup: Any, tmp_path: Path) -> None:
    rt, world = setup(cancel_on="b", faults=FaultPlan(crash_at="after_result", occurrence=3))
    with pytest.raises(SimulatedCrash):  # after_result #3: the first cleanup call's result
        rt.run(rt.start("wf", ["a", "b", "c"], run_id="r"))
    rt.close()
    rt = make(tmp_path / "r.sqlite", world, clock=FakeClock(1100.0))
    assert rt.resume("r").state is RunState.CANCELLED
    assert world.sent == ["a", "b", "undo-a", "undo-b"]  # undo-a once, though it was replayed
    rt.close()


def test_a_crash_after_the_request_still_ends_cancelled(setup: Any, tmp_path: Path) -> None:
    rt, world = setup(cancel_on="b", faults=FaultPlan(crash_at="before_cancel_quiesced"))
    with pytest.raises(SimulatedCrash):
        rt.run(rt.start("wf", ["a", "b", "c"], run_id="r"))
    rt.close()
    rt = make(tmp_path / "r.sqlite", world, clock=FakeClock(1100.0))
    assert rt.resume("r").state is RunState.CANCELLED
    assert world.sent == ["a", "b", "undo-a", "undo-b"]
    rt.close()


def test_an_effect_in_flight_is_looked_up_and_never_resent(setup: Any, tmp_path: Path) -> None:
    rt, world = setup(cancel_on="b", faults=FaultPlan(crash_at="after_provider_commit",
                                                      occurrence=2))
    with pytest.raises(SimulatedCrash):  # b committed at the provider, its result is lost
        rt.run(rt.start("wf", ["a", "b", "c"], run_id="r"))
    rt.close()
    rt = make(tmp_path / "r.sqlite", world, clock=FakeClock(1100.0))
    assert rt.resume("r").state is RunState.CANCELLED
    assert world.sent == ["a", "b", "undo-a", "undo-b"]  # b found by lookup, then undone
    notes = [json.loads(e.payload_json) for e in rt.store.read("r") if e.kind == "reconciled"]
    assert notes[0]["cancel"] and notes[0]["resolution"] == "result"
    rt.close()


def test_an_effect_that_never_happened_is_not_sent_after_the_cancel(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    world = World(tmp_path / "r.sqlite", clock, cancel_on=None)
    rt = make(tmp_path / "r.sqlite", world, faults=FaultPlan(crash_at="after_intent",
                                                            occurrence=2))
    with pytest.raises(SimulatedCrash):  # b's intent is journaled, nothing was sent
        rt.run(rt.start("wf", ["a", "b"], run_id="r"))
    rt.close()
    cancel(SQLiteStore(tmp_path / "r.sqlite"), "r", "stop", at=2000.0)
    rt = make(tmp_path / "r.sqlite", world, clock=FakeClock(1100.0))
    assert rt.resume("r").state is RunState.CANCELLED
    assert world.sent == ["a", "undo-a"]  # b looked up: not found, and not resent
    statuses = {e["step"]: e["status"] for e in cancel_record(rt.store, "r")["effects"]}
    assert statuses[1] == "not_found"
    rt.close()


def test_an_effect_without_lookup_is_reported_unknown_not_assumed(tmp_path: Path) -> None:
    def mailer(ctx: Any, _: Any) -> Any:
        ctx.call_tool("mail", to="ann")
        ctx.call_tool("mail", to="cy")

    clock = FakeClock(1000.0)
    world = World(tmp_path / "r.sqlite", clock)
    rt = make(tmp_path / "r.sqlite", world, workflow=mailer,
              faults=FaultPlan(crash_at="after_provider_commit", occurrence=1))
    with pytest.raises(SimulatedCrash):
        rt.run(rt.start("wf", None, run_id="r"))
    rt.close()
    cancel(SQLiteStore(tmp_path / "r.sqlite"), "r", "stop", at=2000.0)
    rt = make(tmp_path / "r.sqlite", world, workflow=mailer, clock=FakeClock(1100.0))
    assert rt.resume("r").state is RunState.CANCELLED
    assert world.sent == ["mail:ann"]  # not resent, not assumed unsent either
    assert cancel_record(rt.store, "r")["effects"][0]["status"] == "unknown"
    rt.close()


def test_a_failing_lookup_keeps_the_run_from_quiescing_until_it_answers(
        tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    world = World(tmp_path / "r.sqlite", clock, cancel_on="b")
    rt = make(tmp_path / "r.sqlite", world, faults=FaultPlan(crash_at="after_provider_commit",
                                                            occurrence=2))
    with pytest.raises(SimulatedCrash):
        rt.run(rt.start("wf", ["a", "b", "c"], run_id="r"))
    rt.close()
    world.lookup_down = 1
    rt = make(tmp_path / "r.sqlite", world, clock=FakeClock(1100.0))
    first = rt.resume("r")
    assert first.state is RunState.CANCELLING and "cannot quiesce" in str(first.error)
    assert cancel_record(rt.store, "r")["stage"] == "requested"
    rt.close()
    rt = make(tmp_path / "r.sqlite", world, clock=FakeClock(1200.0))
    assert rt.resume("r").state is RunState.CANCELLED
    assert world.sent == ["a", "b", "undo-a", "undo-b"]
    rt.close()


def test_the_cleanup_bound_reports_the_calls_it_refused(setup: Any) -> None:
    rt, world = setup(cancel_on="c", hook=CancelHook(max_cleanup_calls=1))
    assert rt.run(rt.start("wf", ["a", "b", "c", "d"], run_id="r")).state is RunState.CANCELLED
    items = cancel_record(rt.store, "r")["cleanup"]
    assert [i["outcome"] for i in items] == ["done", "not attempted", "not attempted"]
    assert world.sent == ["a", "b", "c", "undo-a"]
    rt.close()


def test_the_cleanup_time_bound_refuses_calls_after_its_deadline(tmp_path: Path) -> None:
    def slow_cleanup(ctx: Any, _: Any) -> Any:
        try:
            ctx.call_tool("act", name="a")
            ctx.call_tool("act", name="b")
        except Cancelled as c:
            with Cleanup(ctx, c) as cleanup:
                cleanup.call("wait", seconds=120)
                cleanup.call("act", name="undo")
            raise

    clock = FakeClock(1000.0)
    world = World(tmp_path / "r.sqlite", clock, cancel_on="a")
    rt = make(tmp_path / "r.sqlite", world, workflow=slow_cleanup,
              hook=CancelHook(cleanup_for=60.0))
    assert rt.run(rt.start("wf", None, run_id="r")).state is RunState.CANCELLED
    items = cancel_record(rt.store, "r")["cleanup"]
    assert [i["outcome"] for i in items] == ["done", "not attempted"]
    assert "deadline" in items[1]["why"]
    rt.close()


def test_a_cancelled_pending_run_is_finished_by_work(setup: Any) -> None:
    rt, world = setup(cancel_on=None)
    rid = rt.start("wf", ["a"], run_id="r")
    assert cancel(rt, rid, "before it ran") is True
    done = rt.work()
    assert [o.state for o in done] == [RunState.CANCELLED] and world.sent == []
    rt.close()


def test_a_workflow_that_ends_after_the_request_still_ends_cancelled(setup: Any) -> None:
    rt, world = setup(cancel_on="c")  # c is the last call: no cancellation point after it
    assert rt.run(rt.start("wf", ["a", "b", "c"], run_id="r")).state is RunState.CANCELLED
    rec = cancel_record(rt.store, "r")
    assert "nothing cleaned up" in rec["note"] and world.sent == ["a", "b", "c"]
    rt.close()


def test_the_hook_reads_the_run_row_only_at_unrecorded_positions(setup: Any) -> None:
    rt, _ = setup(cancel_on=None)
    rt.run(rt.start("wf", ["a", "b", "c"], run_id="r"))
    reads = []
    real = rt.store.get_run
    rt.store.get_run = lambda rid: (reads.append(rid), real(rid))[1]  # type: ignore[method-assign]
    from minirt.journal import Journal
    from minirt.runtime import Context
    ctx = Context(rt, "r", 1, Journal.load(rt.store, "r"), None)
    for _ in range(3):
        ctx.claim_position()  # replayed positions: closed, no read
    assert reads == []
    ctx.claim_position()  # a fresh position: one read
    assert reads == ["r"]
    rt.close()


# -- quiescence, as a rule -----------------------------------------------------------------------

def fx(status: str) -> EffectRecord:
    return EffectRecord(0, "charge", "ek_0", status)


@pytest.mark.parametrize("children,effects,expected", [
    ([], [fx("done"), fx("failed")], True),
    ([], [fx("unknown"), fx("not_found")], True),  # settled, reported: not in flight
    ([], [fx("in_flight")], False),
    ([Child("lookup", True)], [fx("done")], False),
    ([Child("lookup", False)], [], True),
])
def test_quiescent_means_nothing_in_flight(children: Any, effects: Any, expected: bool) -> None:
    assert is_quiescent(children, effects) is expected


# -- nested deadlines ----------------------------------------------------------------------------

def test_a_child_deadline_never_exceeds_its_parent() -> None:
    assert effective_deadline(100.0, 0.0, after=500.0) == 100.0
    assert effective_deadline(100.0, 0.0, deadline_at=50.0) == 50.0
    assert effective_deadline(None, 10.0, after=5.0) == 15.0  # relative to now
    assert effective_deadline(None, 10.0, deadline_at=5.0) == 5.0  # absolute: not shifted
    assert effective_deadline(None, 10.0) is None and effective_deadline(7.0, 10.0) == 7.0


@pytest.mark.parametrize("kw", [{"after": -1.0}, {"after": 1.0, "deadline_at": 2.0}])
def test_an_invalid_deadline_is_refused(kw: dict[str, float]) -> None:
    with pytest.raises(DeadlineInvalid):
        effective_deadline(None, 0.0, **kw)


def nested(ctx: Any, _: Any) -> Any:
    out = []
    with fail_after(ctx, 100.0, name="research"):
        with move_on_after(ctx, 500.0, name="search") as search:
            ctx.call_tool("wait", seconds=30)
            ctx.call_tool("wait", seconds=90)  # past research's deadline (100)
            ctx.call_tool("act", name="never")
        out.append(("search expired", search.expired))
    return out


def test_a_child_scope_cannot_outlive_its_parent_and_the_parent_fails(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    world = World(tmp_path / "r.sqlite", clock)
    rt = make(tmp_path / "r.sqlite", world, workflow=nested)
    out = rt.run(rt.start("wf", None, run_id="r"))
    assert out.state is RunState.FAILED and isinstance(out.error, DeadlineExceeded)
    assert out.error.attrs["scope"] == "research"  # the outer scope's deadline ended both
    steps = [json.loads(e.payload_json) for e in rt.store.read("r") if e.kind == "step"]
    search = next(s["value"] for s in steps if s["name"] == "deadline:search")
    assert search["deadline_at"] == 1100.0 and search["requested_at"] == 1500.0  # clamped
    assert "never" not in world.sent
    rt.close()


def test_move_on_after_exits_quietly_and_replays_the_same_way(tmp_path: Path) -> None:
    def wf(ctx: Any, _: Any) -> Any:
        with move_on_after(ctx, 60.0, name="emails") as scope:
            ctx.call_tool("wait", seconds=90)
            ctx.call_tool("mail", to="late")
        ctx.call_tool("act", name="after")
        return scope.expired

    clock = FakeClock(1000.0)
    world = World(tmp_path / "r.sqlite", clock)
    rt = make(tmp_path / "r.sqlite", world, workflow=wf,
              faults=FaultPlan(crash_at="after_result", occurrence=2))
    with pytest.raises(SimulatedCrash):  # after "after" is journaled
        rt.run(rt.start("wf", None, run_id="r"))
    rt.close()
    rt = make(tmp_path / "r.sqlite", world, workflow=wf, clock=FakeClock(99000.0))
    assert rt.resume("r").result() is True  # the expiry came back from the journal
    assert world.sent == ["after"]  # the late email never went out, before or after the crash
    rt.close()


def test_the_run_deadline_cancels_the_run(tmp_path: Path) -> None:
    def wf(ctx: Any, _: Any) -> Any:
        try:
            ctx.call_tool("act", name="a")
            ctx.call_tool("wait", seconds=120)
            ctx.call_tool("act", name="b")
        except Cancelled as c:
            assert "deadline" in c.reason
            raise

    clock = FakeClock(1000.0)
    world = World(tmp_path / "r.sqlite", clock)
    rt = make(tmp_path / "r.sqlite", world, workflow=wf)
    rid = rt.start("wf", None, run_id="r")
    set_deadline(rt.store, rid, 1060.0)
    set_deadline(rt.store, rid, 9999.0)  # idempotent: the first deadline stays
    assert rt.run(rid).state is RunState.CANCELLED and world.sent == ["a"]
    assert cancel_record(rt.store, rid)["by"] == "deadline"
    rt.close()


def test_the_cancel_record_lives_in_kv_under_one_key(setup: Any) -> None:
    rt, _ = setup(cancel_on="b")
    rt.run(rt.start("wf", ["a", "b"], run_id="r"))
    assert set(rt.store.kv_items("r")) == {CANCEL_KEY}
    rt.close()


# -- the pictures (minirt.viz.cancel) ----------------------------------------------------------

def test_the_cancel_diagram_marks_the_stages_a_run_recorded(setup: Any) -> None:
    from minirt.viz.cancel import cancel_diagram

    rt, _ = setup(cancel_on="b")
    rt.run(rt.start("wf", ["a", "b", "c"], run_id="r"))
    dot = cancel_diagram(rt.store.read("r")).source
    assert dot == cancel_diagram(rt.store.read("r")).source
    assert dot.count("#dbeafe") == 6  # running, the four stages, cancelled
    assert "pending" in dot and "waiting" in dot and "uncertain" in dot
    rt.close()


def test_the_deadline_tree_shows_the_clamped_and_expired_scopes(tmp_path: Path) -> None:
    from minirt.viz.cancel import deadline_nodes, deadline_tree

    clock = FakeClock(1000.0)
    world = World(tmp_path / "r.sqlite", clock)
    rt = make(tmp_path / "r.sqlite", world, workflow=nested)
    rt.run(rt.start("wf", None, run_id="r"))
    nodes = deadline_nodes(rt.store.read("r"))
    assert [(n.name, n.clamped, n.expired) for n in nodes] == [
        ("run", False, False), ("research", False, True), ("search", True, False)]
    dot = deadline_tree(nodes, origin=1000.0).source
    assert "s0 -> s1" in dot and "clamped" in dot and "EXPIRED" in dot
    rt.close()


def test_a_fan_out_stops_at_its_next_wave_and_its_wave_in_flight_finishes(tmp_path: Path) -> None:
    from minirt.scheduler import Call, parallel

    def fan(ctx: Any, _: Any) -> Any:
        try:
            parallel(ctx, [Call("act", {"name": "a"}), Call("act", {"name": "b"}),
                           Call("act", {"name": "c"}, after=[0])], max_in_flight=2)
            return "done"
        except Cancelled as c:
            assert sorted(e.tool for e in c.happened()) == ["act", "act"]
            raise

    clock = FakeClock(1000.0)
    world = World(tmp_path / "r.sqlite", clock, cancel_on="a")
    rt = make(tmp_path / "r.sqlite", world, workflow=fan)
    assert rt.run(rt.start("wf", None, run_id="r")).state is RunState.CANCELLED
    assert sorted(world.sent) == ["a", "b"]  # wave 0 finished; wave 1 (c) never started
    rt.close()
