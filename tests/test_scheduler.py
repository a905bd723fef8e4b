"""minirt.scheduler: the plan's rules, group commit, ownership, deterministic joins, crashes."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minirt.canonical import canonical_json
from minirt.clock import FakeClock
from minirt.errors import ToolError
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.run import RunState
from minirt.runtime import Runtime
from minirt.scheduler import (
    Call,
    ChildScope,
    Failed,
    Node,
    PlanInvalid,
    Skipped,
    check_plan,
    completion_order,
    conflicts,
    parallel,
    plan_waves,
    ref,
)
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, Lookup
from minirt_course.scenarios.m07_fanout import Sequencer


def node(name: str, step: int, after: tuple[str, ...] = (), reads: tuple[str, ...] = (),
         writes: tuple[str, ...] = ()) -> Node:
    return Node(name, step, frozenset(after), frozenset(reads), frozenset(writes))


# -- the rules ---------------------------------------------------------------------------------

def test_a_data_dependency_puts_the_call_in_a_later_wave() -> None:
    nodes = [node("a", 0), node("b", 1, after=("a",))]
    assert plan_waves(nodes, 4) == [["a"], ["b"]]


def test_readers_of_one_resource_share_a_wave() -> None:
    nodes = [node("a", 0, reads=("r",)), node("b", 1, reads=("r",))]
    assert plan_waves(nodes, 4) == [["a", "b"]]


def test_two_writers_of_one_resource_are_serialised_in_step_order() -> None:
    nodes = [node("late", 5, writes=("r",)), node("early", 2, writes=("r",))]
    assert plan_waves(nodes, 4) == [["early"], ["late"]]


def test_a_reader_and_a_writer_never_share_a_wave() -> None:
    assert plan_waves([node("w", 0, writes=("r",)), node("r", 1, reads=("r",))], 4) == [
        ["w"], ["r"]]
    assert plan_waves([node("r", 0, reads=("r",)), node("w", 1, writes=("r",))], 4) == [
        ["r"], ["w"]]


def test_conflicts_is_symmetric_and_reads_never_conflict() -> None:
    a, b = node("a", 0, reads=("x",), writes=("y",)), node("b", 1, reads=("y",))
    assert conflicts(a, b) and conflicts(b, a)
    assert not conflicts(node("c", 0, reads=("x",)), node("d", 1, reads=("x",)))


def test_no_wave_holds_more_than_the_bound_and_earlier_steps_go_first() -> None:
    nodes = [node(f"n{i}", i) for i in range(5)]
    assert plan_waves(nodes, 2) == [["n0", "n1"], ["n2", "n3"], ["n4"]]


def test_a_ready_call_fills_a_free_slot_of_an_earlier_wave() -> None:
    # c does not depend on a; it must not wait behind b just because b is listed before it
    nodes = [node("a", 0), node("b", 1, after=("a",)), node("c", 2)]
    assert plan_waves(nodes, 2) == [["a", "c"], ["b"]]


def test_the_plan_does_not_depend_on_how_the_input_is_listed() -> None:
    nodes = [node("a", 0, writes=("r",)), node("b", 1, reads=("r",)), node("c", 2),
             node("d", 3, after=("a", "c"))]
    rng = random.Random(7)
    for _ in range(20):
        shuffled = nodes[:]
        rng.shuffle(shuffled)
        assert plan_waves(shuffled, 2) == plan_waves(nodes, 2)


@pytest.mark.parametrize("nodes,reason", [
    ([node("a", 0), node("a", 1)], "same name"),
    ([node("a", 0), node("b", 0)], "same step"),
    ([node("a", 0, after=("z",))], "not a call"),
    ([node("a", 0, after=("b",)), node("b", 1)], "not before it"),
])
def test_an_invalid_fan_out_is_refused_with_the_reason(nodes: list[Node], reason: str) -> None:
    with pytest.raises(PlanInvalid, match=reason):
        plan_waves(nodes, 2)


def test_check_plan_names_every_broken_rule() -> None:
    nodes = [node("w", 0, writes=("r",)), node("x", 1, writes=("r",)), node("d", 2, after=("w",))]
    assert check_plan(nodes, plan_waves(nodes, 2), 2) == []
    assert any("conflicting" in p for p in check_plan(nodes, [["w", "x"], ["d"]], 2))
    assert any("bound" in p for p in check_plan(nodes, [["w"], ["x", "d"]], 1))
    assert any("after w" in p for p in check_plan(nodes, [["w", "d"], ["x"]], 2))
    assert any("exactly once" in p for p in check_plan(nodes, [["w"], ["x"]], 2))


# -- running fan-outs --------------------------------------------------------------------------

class World:
    """Fake tools: every execution is counted; writes are keyed with a lookup."""

    def __init__(self) -> None:
        self.executed: list[str] = []
        self.saved: dict[str, Any] = {}
        self.lock = threading.Lock()

    def tools(self, seq: Sequencer | None = None, *, barrier: threading.Barrier | None = None,
              fail: set[str] | frozenset[str] = frozenset()) -> list[FunctionTool]:
        def make(name: str, effect: EffectClass) -> FunctionTool:
            def fn(call: Any = None, **args: Any) -> Any:
                def body() -> Any:
                    if barrier is not None:
                        barrier.wait()
                    with self.lock:
                        self.executed.append(name)
                    if name in fail:
                        raise ToolError(tool=name, reason="said no")
                    out = {"tool": name, **args}
                    self.saved[call.effect_key] = out
                    return out
                return seq.invoke(call, body) if seq is not None else body()

            def look(call: Any) -> Lookup:
                found = self.saved.get(call.effect_key)
                return Lookup(found is not None, found)

            return FunctionTool(fn, name=name, effect=effect,
                                lookup=look if effect is EffectClass.KEYED else None)

        return [make(n, EffectClass.PURE) for n in ("a", "b", "c", "d")] + [
            make(n, EffectClass.KEYED) for n in ("w", "x")]


def runtime(path: Path, world: World, workflow: Any, *, faults: Any = None, order: Any = None,
            clock: FakeClock | None = None, **tool_kw: Any) -> Runtime:
    clock = clock or FakeClock(1000.0)
    key = (lambda call, finish_at: order.index(call.step)) if order is not None else None
    seq = Sequencer(clock, {"a": 3, "b": 1, "c": 2, "d": 4}, key=key)
    return Runtime(SQLiteStore(path), tools=world.tools(seq, **tool_kw), workflows={"wf": workflow},
                   clock=clock, faults=faults, hooks=[seq])


FOUR = [Call("a", {"i": 0}), Call("b", {"i": 1}), Call("c", {"i": 2}), Call("d", {"i": 3})]


def four(ctx: Any, _: Any) -> Any:
    return parallel(ctx, FOUR, max_in_flight=4)


def test_results_come_back_in_step_order_whatever_finishes_first(tmp_path: Path) -> None:
    world = World()
    rt = runtime(tmp_path / "r.sqlite", world, four, order=[3, 2, 1, 0])
    out = rt.run(rt.start("wf", None, run_id="r")).result()
    assert [r["tool"] for r in out] == ["a", "b", "c", "d"]
    assert world.executed == ["d", "c", "b", "a"]  # they really finished in reverse
    rt.close()


def test_the_calls_of_one_wave_are_in_flight_together(tmp_path: Path) -> None:
    barrier = threading.Barrier(4, timeout=10)  # breaks (and fails) unless all 4 run at once
    world = World()
    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=world.tools(barrier=barrier),
                 workflows={"wf": four}, clock=FakeClock())
    assert len(rt.run(rt.start("wf", None, run_id="r")).result()) == 4
    rt.close()


def test_never_more_than_max_in_flight_calls_run_at_once(tmp_path: Path) -> None:
    state = {"now": 0, "peak": 0}
    lock = threading.Lock()
    barrier = threading.Barrier(2, timeout=10)

    def slow(i: int) -> int:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        barrier.wait()  # both of a pair are inside at once
        with lock:
            state["now"] -= 1
        return i

    def wf(ctx: Any, _: Any) -> Any:
        return parallel(ctx, [Call("slow", {"i": i}) for i in range(6)], max_in_flight=2)

    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=[FunctionTool(slow)],
                 workflows={"wf": wf}, clock=FakeClock())
    assert rt.run(rt.start("wf", None, run_id="r")).result() == list(range(6))
    assert state["peak"] == 2
    rt.close()


def test_a_ref_passes_one_result_into_a_later_call(tmp_path: Path) -> None:
    def wf(ctx: Any, _: Any) -> Any:
        return parallel(ctx, [Call("a", {"n": 7}, name="first"),
                              Call("b", {"got": ref("first", "n")}, name="second")])

    world = World()
    rt = runtime(tmp_path / "r.sqlite", world, wf)
    out = rt.run(rt.start("wf", None, run_id="r")).result()
    assert out[1] == {"tool": "b", "got": 7}
    waves = [e.payload["steps"] for e in rt.store.read("r") if e.kind == "wave"]
    assert waves == [[0], [1]]
    rt.close()


def test_the_intents_of_a_wave_commit_in_one_transaction(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    rt = runtime(path, World(), four, faults=FaultPlan(crash_at="inside_commit"))
    with pytest.raises(SimulatedCrash):
        rt.run(rt.start("wf", None, run_id="r"))
    rt.close()
    reopened = SQLiteStore(path)
    assert [e.kind for e in reopened.read("r") if e.kind in ("intent", "wave")] == []
    reopened.close()
    rt = runtime(path, World(), four, faults=FaultPlan(crash_at="after_intent"),
                 clock=FakeClock(2000.0))  # after the first worker's lease
    with pytest.raises(SimulatedCrash):
        rt.run("r")
    rt.close()
    reopened = SQLiteStore(path)
    rows = reopened.read("r")
    assert [e.kind for e in rows if e.step is not None or e.kind == "wave"] == [
        "wave", "intent", "intent", "intent", "intent"]
    assert len({e.at for e in rows if e.kind == "intent"}) == 1  # one commit
    reopened.close()


def test_a_result_is_durable_as_soon_as_it_completes(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    rt = runtime(path, World(), four, faults=FaultPlan(crash_at="after_result", occurrence=1))
    with pytest.raises(SimulatedCrash):
        rt.run(rt.start("wf", None, run_id="r"))
    rt.close()
    reopened = SQLiteStore(path)
    assert [e.step for e in reopened.read("r") if e.kind == "tool_result"] == [1]  # b was first
    reopened.close()


def test_finished_siblings_are_not_run_again_after_a_crash_mid_wave(tmp_path: Path) -> None:
    path, world = tmp_path / "r.sqlite", World()
    rt = runtime(path, world, four, faults=FaultPlan(crash_at="after_result", occurrence=2))
    with pytest.raises(SimulatedCrash):
        rt.run(rt.start("wf", None, run_id="r"))
    rt.close()
    assert world.executed == ["b", "c"]  # the two fastest finished; a and d were cancelled
    rt = runtime(path, world, four, clock=FakeClock(5000.0))
    out = rt.resume("r").result()
    assert [r["tool"] for r in out] == ["a", "b", "c", "d"]
    assert sorted(world.executed) == ["a", "b", "c", "d"]  # each exactly once
    rt.close()


def test_a_parent_crash_leaves_no_child_thread_behind(tmp_path: Path) -> None:
    rt = runtime(tmp_path / "r.sqlite", World(), four,
                 faults=FaultPlan(crash_at="after_provider_commit"))
    with pytest.raises(SimulatedCrash):
        rt.run(rt.start("wf", None, run_id="r"))
    rt.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("minirt-wave")]


def test_a_cancelled_scope_stops_children_at_their_checkpoint() -> None:
    scope = ChildScope()
    woken: list[str] = []
    scope.on_cancel(lambda: woken.append("woken"))
    scope.checkpoint()  # not cancelled: passes
    scope.cancel()
    scope.cancel()  # idempotent
    from minirt.scheduler import ChildCancelled
    with pytest.raises(ChildCancelled):
        scope.checkpoint()
    assert woken == ["woken"] and scope.cancel_called


def test_replay_returns_the_recorded_results_without_sending_anything(tmp_path: Path) -> None:
    path, world = tmp_path / "r.sqlite", World()
    rt = runtime(path, world, four)
    first = rt.run(rt.start("wf", None, run_id="r")).result()
    rt.close()
    store = SQLiteStore(path)
    from minirt.journal import Journal
    from minirt.runtime import Context
    ctx = Context(runtime(tmp_path / "other.sqlite", world, four), "r", 1,
                  Journal.load(store, "r"), None)
    again = parallel(ctx, FOUR, max_in_flight=4)
    assert again == first and len(world.executed) == 4
    ctx.runtime.close()
    store.close()


def test_a_failed_call_lets_its_siblings_finish_then_raises_the_first_failure(
        tmp_path: Path) -> None:
    def wf(ctx: Any, _: Any) -> Any:
        return parallel(ctx, [Call("a", {}), Call("w", {}), Call("x", {}), Call("b", {})],
                        max_in_flight=3)

    world = World()
    rt = runtime(tmp_path / "r.sqlite", world, wf, fail={"w", "x"})
    out = rt.run(rt.start("wf", None, run_id="r"))
    assert out.state is RunState.FAILED and out.error.attrs["tool"] == "w"  # first by step
    assert sorted(world.executed) == ["a", "w", "x"]  # siblings ran; no further wave started
    kinds = [e.kind for e in rt.store.read("r") if e.step is not None]
    assert kinds.count("tool_result") == 1 and kinds.count("tool_error") == 2
    rt.close()


def test_isolate_returns_failures_in_place_and_skips_their_dependents(tmp_path: Path) -> None:
    def wf(ctx: Any, _: Any) -> Any:
        out = parallel(ctx, [Call("w", {}, name="pay"), Call("a", {}, name="look"),
                             Call("b", {"p": ref("pay")}, name="mail")], on_error="isolate")
        return [type(r).__name__ for r in out]

    world = World()
    rt = runtime(tmp_path / "r.sqlite", world, wf, fail={"w"})
    first = rt.run(rt.start("wf", None, run_id="r")).result()
    assert first == ["Failed", "dict", "Skipped"] and "b" not in world.executed
    rt.close()


def test_isolate_results_carry_the_names(tmp_path: Path) -> None:
    captured: list[Any] = []

    def wf(ctx: Any, _: Any) -> Any:
        captured.extend(parallel(ctx, [Call("w", {}, name="pay"),
                                       Call("b", {"p": ref("pay")}, name="mail")],
                                 on_error="isolate"))
        return None

    rt = runtime(tmp_path / "r.sqlite", World(), wf, fail={"w"})
    rt.run(rt.start("wf", None, run_id="r"))
    assert isinstance(captured[0], Failed) and captured[0].name == "pay"
    assert isinstance(captured[1], Skipped) and captured[1].because == "pay"
    rt.close()


def test_a_planner_that_breaks_a_rule_is_refused_before_anything_is_journaled(
        tmp_path: Path) -> None:
    def everything_at_once(nodes: Any, bound: int) -> list[list[str]]:
        return [[n.name for n in nodes]]

    def wf(ctx: Any, _: Any) -> Any:
        return parallel(ctx, [Call("w", {}, writes={"r"}), Call("x", {}, writes={"r"})],
                        planner=everything_at_once)

    world = World()
    rt = runtime(tmp_path / "r.sqlite", world, wf)
    out = rt.run(rt.start("wf", None, run_id="r"))
    assert out.state is RunState.FAILED and "conflicting" in str(out.error)
    assert not world.executed
    assert not [e for e in rt.store.read("r") if e.kind in ("intent", "wave")]
    rt.close()


def test_completion_order_reads_the_journal(tmp_path: Path) -> None:
    seen: list[list[int]] = []

    def wf(ctx: Any, _: Any) -> Any:
        parallel(ctx, FOUR)
        seen.append(completion_order(ctx, range(4)))

    rt = runtime(tmp_path / "r.sqlite", World(), wf, order=[2, 0, 3, 1])
    rt.run(rt.start("wf", None, run_id="r"))
    assert seen == [[2, 0, 3, 1]]
    rt.close()


# -- the property: any completion order, the same journal and result ----------------------------

def _journal_facts(path: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    store = SQLiteStore(path)
    rows = store.read("r")
    store.close()
    everything = sorted((e.kind, e.step, e.payload_json) for e in rows if e.kind != "transition")
    in_seq_order = [(e.kind, e.step) for e in rows if e.kind not in ("tool_result",)]
    return everything, in_seq_order


SIX = [Call("a", {"i": 0}, reads={"r"}), Call("w", {"i": 1}, writes={"r"}),
       Call("b", {"i": 2}, reads={"s"}), Call("c", {"v": ref(0, "i")}),
       Call("x", {"i": 4}, writes={"s"}), Call("d", {"i": 5})]


def six(ctx: Any, _: Any) -> Any:
    return parallel(ctx, SIX, max_in_flight=3)


@settings(max_examples=25, deadline=None)
@given(st.permutations(range(6)))
def test_any_completion_order_gives_the_same_journal_and_result(order: list[int]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        outs = []
        for i, o in enumerate((list(range(6)), list(order))):
            path = Path(tmp) / f"{i}.sqlite"
            rt = runtime(path, World(), six, order=o)
            outs.append((canonical_json(rt.run(rt.start("wf", None, run_id="r")).result()),
                         _journal_facts(path)))
            rt.close()
        assert outs[0] == outs[1]


# -- the pictures (minirt.viz.scheduler) -------------------------------------------------------

def test_the_plan_picture_draws_every_call_dependency_and_conflict() -> None:
    from minirt.scheduler import nodes_of
    from minirt.viz.scheduler import plan_diagram
    from minirt_course.scenarios.m07_fanout import REQUEST, fanout_calls

    nodes = nodes_of(fanout_calls(REQUEST))
    dot = plan_diagram(nodes, plan_waves(nodes, 3)).source
    assert dot == plan_diagram(nodes, plan_waves(nodes, 3)).source  # deterministic
    assert dot.count("cluster_wave") == 3
    assert "order -> invoice" in dot and "address -> invoice" in dot
    assert 'label="customers:cus_42"' in dot and 'label="stock:lamp"' in dot


def test_the_timeline_and_gantt_come_from_the_journal(tmp_path: Path) -> None:
    from minirt.viz.scheduler import gantt, timeline

    path = tmp_path / "r.sqlite"
    rt = runtime(path, World(), six, faults=FaultPlan(crash_at="after_result", occurrence=1))
    with pytest.raises(SimulatedCrash):
        rt.run(rt.start("wf", None, run_id="r"))
    rt.close()
    rt = runtime(path, World(), six, clock=FakeClock(9000.0))
    rt.resume("r")
    bars = timeline(rt.store.read("r"))
    rt.close()
    assert [b.step for b in bars] == list(range(6))
    assert [b.recovered for b in bars].count(True) == 2  # wave 0: one result came in time
    chart = gantt(bars)
    assert chart.svg == gantt(bars).svg and chart.svg.count("<rect x=") >= 6
    assert "+7999 s" in chart.svg or "+8000 s" in chart.svg  # the recovery gap, collapsed


def test_a_lost_answer_in_a_wave_is_reconciled_after_its_siblings(tmp_path: Path) -> None:
    from minirt.tools import OutcomeUnknown

    world, lost = World(), {"once": True}
    clock = FakeClock(1000.0)
    seq = Sequencer(clock, {"a": 3, "w": 1, "b": 2})

    def lossy(call: Any = None) -> Any:
        def body() -> Any:
            world.executed.append("lossy")
            world.saved[call.effect_key] = {"tool": "lossy"}
            if lost.pop("once", False):
                raise OutcomeUnknown(tool="lossy", effect_key=call.effect_key,
                                     reason="response lost after commit")
            return {"tool": "lossy"}
        return seq.invoke(call, body)

    tools = world.tools(seq) + [FunctionTool(
        lossy, effect=EffectClass.KEYED,
        lookup=lambda c: Lookup(c.effect_key in world.saved, world.saved.get(c.effect_key)))]

    def wf(ctx: Any, _: Any) -> Any:
        return parallel(ctx, [Call("a", {}), Call("lossy", {}), Call("b", {})])

    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=tools, workflows={"wf": wf},
                 clock=clock, hooks=[seq])
    out = rt.run(rt.start("wf", None, run_id="r")).result()
    assert [r["tool"] for r in out] == ["a", "lossy", "b"]
    assert world.executed.count("lossy") == 1  # found by lookup, not sent again
    kinds = [e.kind for e in rt.store.read("r") if e.step == 1]
    assert kinds == ["intent", "reconciled", "tool_result"]
    rt.close()


@given(st.lists(st.tuples(st.sets(st.sampled_from("abcd"), max_size=2),
                          st.sets(st.sampled_from("abcd"), max_size=2)), max_size=12))
def test_indexed_predecessors_equal_the_pairwise_definition(touches):
    from minirt.scheduler import Node, conflicts, predecessors

    nodes = [Node(f"c{i}", i, frozenset(), frozenset(r), frozenset(w))
             for i, (r, w) in enumerate(touches)]
    brute = {n.name: {a.name for a in nodes if a.step < n.step and conflicts(a, n)}
             for n in nodes}
    assert predecessors(nodes) == brute
