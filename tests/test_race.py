"""minirt.race: first of N, the winner journaled as a decision, crashes on both sides of it."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minirt.clock import FakeClock
from minirt.errors import ToolError
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.journal import Journal
from minirt.race import CANCELLED, FAILED, UNKNOWN, WON, RaceInvalid, RaceLost, race
from minirt.run import RunState
from minirt.runtime import Context, Runtime
from minirt.scheduler import Call, ref
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, Lookup
from minirt_course.scenarios.m07_fanout import Sequencer

NAMES = ("m0", "m1", "m2", "m3")


class Mirrors:
    """Four quote mirrors: keyed-idempotent, each execution counted per effect key."""

    def __init__(self, fail: frozenset[str] = frozenset()) -> None:
        self.fail = fail
        self.executions: dict[str, int] = {}  # effect key -> how many times the provider ran it
        self.ran: list[str] = []
        self.lock = threading.Lock()

    def tools(self, seq: Sequencer, effect: EffectClass = EffectClass.KEYED
              ) -> list[FunctionTool]:
        def make(name: str) -> FunctionTool:
            def fn(item: str, call: Any = None) -> Any:
                def body() -> Any:
                    with self.lock:
                        self.ran.append(name)
                        self.executions[call.effect_key] = \
                            self.executions.get(call.effect_key, 0) + 1
                    if name in self.fail:
                        raise ToolError(tool=name, reason="no quote")
                    return {"mirror": name, "item": item}
                return seq.invoke(call, body)

            def look(call: Any) -> Lookup:
                return Lookup(call.effect_key in self.executions, None)

            return FunctionTool(fn, name=name, effect=effect,
                                lookup=look if effect is EffectClass.KEYED else None)

        return [make(n) for n in NAMES]


class RaceSequencer(Sequencer):
    """The sequencer, with a resend during recovery admitted too: a resumed race is as
    deterministic as the first one."""

    def before_redispatch(self, ctx: Any, tool: Any, call: Any) -> None:
        self.before_dispatch(ctx, tool, call)


ENTRANTS = [Call(n, {"item": "A-42"}, name=n) for n in NAMES]


def quote(ctx: Any, want: Any) -> Any:
    won = race(ctx, ENTRANTS, want=want or 1)
    return {"winners": list(won.winners), "values": list(won.values),
            "outcomes": dict(won.outcomes)}


def make(path: Path, mirrors: Mirrors, order: list[int], *, faults: Any = None,
         clock: FakeClock | None = None, effect: EffectClass = EffectClass.KEYED,
         workflow: Any = quote) -> Runtime:
    """A runtime whose entrants finish in ``order`` (entrant indexes, first finisher first)."""
    clock = clock or FakeClock(1000.0)
    seq = RaceSequencer(clock, key=lambda call, finish_at: order.index(call.step))
    return Runtime(SQLiteStore(path), tools=mirrors.tools(seq, effect), workflows={"wf": workflow},
                   clock=clock, faults=faults, hooks=[seq])


def terminal_at_every_position(path: Path, n: int = 4) -> bool:
    store = SQLiteStore(path)
    try:
        journal = Journal.load(store, "r")
        return all(journal.at(p) is not None and journal.at(p).outcome is not None
                   for p in range(n + 1))
    finally:
        store.close()


def replay(path: Path, mirrors: Mirrors, order: list[int], want: int = 1) -> Any:
    """Run the race again over the recorded journal in a fresh context (another worker)."""
    store = SQLiteStore(path)
    rt = make(path.with_suffix(".other"), mirrors, order)
    try:
        ctx = Context(rt, "r", 99, Journal.load(store, "r"), None)
        return race(ctx, ENTRANTS, want=want)
    finally:
        rt.close()
        store.close()


# -- the first execution -----------------------------------------------------------------------

def test_the_first_success_wins_and_the_others_are_cancelled_before_they_run(
        tmp_path: Path) -> None:
    mirrors = Mirrors()
    rt = make(tmp_path / "r.sqlite", mirrors, order=[2, 0, 3, 1])
    out = rt.run(rt.start("wf", None, run_id="r")).result()
    assert out["winners"] == ["m2"] and out["values"] == [{"mirror": "m2", "item": "A-42"}]
    assert out["outcomes"] == {"m0": CANCELLED, "m1": CANCELLED, "m2": WON, "m3": CANCELLED}
    assert mirrors.ran == ["m2"]  # the losers were waiting for their turn and never ran
    rows = rt.store.read("r")
    decision = [e.payload for e in rows if e.kind == "decision"]
    assert decision[0]["name"] == "race" and decision[0]["output"]["winners"] == ["m2"]
    errors = [e.payload["error"]["type"] for e in rows if e.kind == "tool_error"]
    assert errors == ["EntrantCancelled"] * 3
    rt.close()
    assert terminal_at_every_position(tmp_path / "r.sqlite")


def test_want_two_keeps_the_first_two_successes_in_completion_order(tmp_path: Path) -> None:
    mirrors = Mirrors()
    rt = make(tmp_path / "r.sqlite", mirrors, order=[3, 1, 0, 2])
    out = rt.run(rt.start("wf", 2, run_id="r")).result()
    assert out["winners"] == ["m3", "m1"]
    assert [out["outcomes"][n] for n in NAMES] == [CANCELLED, WON, CANCELLED, WON]
    rt.close()


def test_a_failing_entrant_never_wins(tmp_path: Path) -> None:
    mirrors = Mirrors(fail=frozenset({"m2"}))
    rt = make(tmp_path / "r.sqlite", mirrors, order=[2, 0, 3, 1])
    out = rt.run(rt.start("wf", None, run_id="r")).result()
    assert out["winners"] == ["m0"] and out["outcomes"]["m2"] == FAILED
    assert mirrors.ran == ["m2", "m0"]
    rt.close()


def test_when_every_entrant_fails_the_race_is_lost_and_replays_lost(tmp_path: Path) -> None:
    mirrors = Mirrors(fail=frozenset(NAMES))
    rt = make(tmp_path / "r.sqlite", mirrors, order=[0, 1, 2, 3])
    out = rt.run(rt.start("wf", None, run_id="r"))
    assert out.state is RunState.FAILED and type(out.error).__name__ == "RaceLost"
    rt.close()
    with pytest.raises(RaceLost, match="got 0"):
        replay(tmp_path / "r.sqlite", mirrors, [3, 2, 1, 0])
    assert sorted(mirrors.ran) == sorted(NAMES)  # the replay sent nothing


def test_replay_returns_the_recorded_winner_whatever_the_timing_now(tmp_path: Path) -> None:
    mirrors = Mirrors()
    rt = make(tmp_path / "r.sqlite", mirrors, order=[2, 0, 3, 1])
    first = rt.run(rt.start("wf", None, run_id="r")).result()
    rt.close()
    again = replay(tmp_path / "r.sqlite", mirrors, order=[0, 1, 2, 3])  # m0 would win now
    assert again.replayed and list(again.winners) == first["winners"] == ["m2"]
    assert list(again.values) == first["values"] and dict(again.outcomes) == first["outcomes"]
    assert mirrors.ran == ["m2"]


# -- refused before anything is journaled ---------------------------------------------------------

@pytest.mark.parametrize("calls,want,reason", [
    ([], 1, "at least one"),
    (ENTRANTS[:2], 3, "want must be"),
    (ENTRANTS[:2], 0, "want must be"),
    (ENTRANTS[:2], True, "want must be"),
    ([Call("m0", {"item": "x"}), Call("m1", {"item": ref(0, "mirror")})], 1, "depends on"),
    ([Call("m0", {"item": "x"}), Call("m1", {"item": "y"}, after=[0])], 1, "depends on"),
    ([Call("m0", {"item": "x"}, name="a"), Call("m1", {"item": "y"}, name="a")], 1, "same name"),
    ([("m0", {"item": "x"})], 1, "not a Call"),
    ([Call("m0", ["x"])], 1, "not a mapping"),  # type: ignore[arg-type]
])
def test_a_bad_race_is_refused_with_the_reason(tmp_path: Path, calls: Any, want: Any,
                                               reason: str) -> None:
    def wf(ctx: Any, _: Any) -> Any:
        return race(ctx, calls, want=want)

    mirrors = Mirrors()
    rt = make(tmp_path / "r.sqlite", mirrors, [0, 1, 2, 3], workflow=wf)
    out = rt.run(rt.start("wf", None, run_id="r"))
    assert out.state is RunState.FAILED and type(out.error).__name__ == "RaceInvalid"
    assert reason in str(out.error)
    assert not [e for e in rt.store.read("r") if e.step is not None] and not mirrors.ran
    rt.close()


@pytest.mark.parametrize("effect", [EffectClass.IRREVERSIBLE, EffectClass.COMPENSATABLE])
def test_a_race_over_effects_nothing_undoes_is_refused(tmp_path: Path,
                                                       effect: EffectClass) -> None:
    mirrors = Mirrors()
    rt = make(tmp_path / "r.sqlite", mirrors, [0, 1, 2, 3], effect=effect)
    out = rt.run(rt.start("wf", None, run_id="r"))
    assert isinstance(out.error, RaceInvalid) or type(out.error).__name__ == "RaceInvalid"
    assert effect.value in str(out.error) and not mirrors.ran
    rt.close()


# -- crashes on both sides of the decision -------------------------------------------------------

def crash_then_resume(path: Path, mirrors: Mirrors, point: str, occurrence: int = 1,
                      order: tuple[list[int], list[int]] = ([2, 0, 3, 1], [0, 1, 2, 3])
                      ) -> Any:
    rt = make(path, mirrors, order[0], faults=FaultPlan(crash_at=point, occurrence=occurrence))
    with pytest.raises(SimulatedCrash):
        rt.run(rt.start("wf", None, run_id="r"))
    rt.close()
    rt = make(path, mirrors, order[1], clock=FakeClock(5000.0))  # after the dead lease
    try:
        return rt.resume("r").result()
    finally:
        rt.close()


def test_a_crash_after_the_decision_replays_the_recorded_winner(tmp_path: Path) -> None:
    mirrors = Mirrors()
    out = crash_then_resume(tmp_path / "r.sqlite", mirrors, "after_decision_record")
    assert out["winners"] == ["m2"]  # not m0, which would win under the resumed timing
    assert mirrors.ran == ["m2"]  # nothing was sent again
    assert terminal_at_every_position(tmp_path / "r.sqlite")


def test_a_crash_before_the_decision_keeps_a_recorded_success_as_the_winner(
        tmp_path: Path) -> None:
    mirrors = Mirrors()
    out = crash_then_resume(tmp_path / "r.sqlite", mirrors, "before_decision_record")
    assert out["winners"] == ["m2"]  # its result was journaled before the crash
    assert mirrors.ran == ["m2"]
    # the losers' intents were open when the worker died: recorded as unknown, not resent
    assert [out["outcomes"][n] for n in ("m0", "m1", "m3")] == [UNKNOWN] * 3
    assert terminal_at_every_position(tmp_path / "r.sqlite")


def test_a_crash_before_any_result_reruns_the_race_with_the_same_keys(tmp_path: Path) -> None:
    path, mirrors = tmp_path / "r.sqlite", Mirrors()
    out = crash_then_resume(path, mirrors, "before_result")  # m2 ran; its result was not kept
    assert mirrors.ran[0] == "m2" and out["winners"] == ["m0"]  # the resumed timing decides
    store = SQLiteStore(path)
    rows = store.read("r")
    store.close()
    intents = {e.step: e.payload["effect_key"] for e in rows if e.kind == "intent"}
    attempts = {e.step: e.payload["effect_key"] for e in rows if e.kind == "attempt"}
    assert attempts and all(attempts[s] == intents[s] for s in attempts)  # same effect keys
    assert set(attempts) == {0, 1, 2, 3}  # every open intent was resent
    # m1 ran twice under ONE key: a keyed provider keeps one effect
    assert len(mirrors.executions) == len(set(mirrors.ran)) and max(
        mirrors.executions.values()) <= 2
    assert terminal_at_every_position(path)


# -- the property --------------------------------------------------------------------------------

POINTS = [None, ("inside_commit", 1), ("after_intent", 2), ("before_result", 1),
          ("after_result", 1), ("after_result", 2), ("before_decision_record", 1),
          ("after_decision_record", 1)]


@settings(max_examples=40, deadline=None)
@given(order=st.permutations(range(4)), fail=st.sets(st.sampled_from(NAMES)),
       want=st.integers(1, 2), crash=st.sampled_from(POINTS),
       later=st.permutations(range(4)))
def test_any_timing_failures_and_crash_give_a_recorded_winner_that_replays(
        order: list[int], fail: set[str], want: int, crash: Any, later: list[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path, mirrors = Path(tmp) / "r.sqlite", Mirrors(frozenset(fail))
        rt = make(path, mirrors, list(order),
                  faults=FaultPlan(crash_at=crash[0], occurrence=crash[1]) if crash else None)
        crashed = False
        try:
            rt.run(rt.start("wf", want, run_id="r"))
        except SimulatedCrash:
            crashed = True
        rt.close()
        rt = make(path, mirrors, list(later), clock=FakeClock(5000.0))
        final = rt.resume("r") if crashed else rt.outcome("r")
        rt.close()
        successes = [n for n in NAMES if n not in fail]
        if len(successes) < want:
            assert final.state is RunState.FAILED and type(final.error).__name__ == "RaceLost"
        else:
            out = final.result()
            assert len(out["winners"]) == want and set(out["winners"]) <= set(successes)
            # the answers journaled before the crash win first, in the order they came; then
            # the resumed race's timing decides among the rest
            if not crashed or crash[0].endswith("decision_record"):
                recorded = [NAMES[i] for i in order]
            elif crash[0] == "after_result":
                recorded = [NAMES[i] for i in order[:crash[1]]]
            else:
                recorded = []
            expected = [n for n in recorded if n in successes] + [
                NAMES[i] for i in later if NAMES[i] in successes and NAMES[i] not in recorded]
            assert out["winners"] == expected[:want], (crashed, recorded)
            ran = list(mirrors.ran)
            again = replay(path, mirrors, list(range(4)), want)
            assert list(again.winners) == out["winners"] and list(again.values) == out["values"]
            assert dict(again.outcomes) == out["outcomes"] and mirrors.ran == ran
        assert terminal_at_every_position(path)
        assert all(n <= 2 for n in mirrors.executions.values())  # a resend reuses the key


# -- real threads: a blocked loser is woken by the cancel; one that ignores it is journaled -------

def blocked_until_cancelled(honours_cancel: bool) -> FunctionTool:
    from minirt.scheduler import current_scope

    def slow(item: str, call: Any = None) -> Any:
        scope = current_scope()
        woken = threading.Event()
        scope.on_cancel(woken.set)
        assert woken.wait(30), "never cancelled"
        if honours_cancel:
            scope.checkpoint()  # raises ChildCancelled: the loser stops before its effect
        return {"mirror": "slow", "item": item}  # answered anyway: its effect is real

    return FunctionTool(slow, name="slow", effect=EffectClass.PURE)


@pytest.mark.parametrize("honours_cancel,fate,kind", [(True, CANCELLED, "tool_error"),
                                                      (False, "finished", "tool_result")])
def test_a_loser_blocked_in_its_tool_is_cancelled_or_its_late_answer_is_kept(
        tmp_path: Path, honours_cancel: bool, fate: str, kind: str) -> None:
    def fast(item: str) -> Any:
        return {"mirror": "fast", "item": item}

    def wf(ctx: Any, _: Any) -> Any:
        won = race(ctx, [Call("slow", {"item": "x"}, name="slow"),
                         Call("fast", {"item": "x"}, name="fast")])
        return {"winners": list(won.winners), "outcomes": dict(won.outcomes)}

    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"),
                 tools=[blocked_until_cancelled(honours_cancel),
                        FunctionTool(fast, effect=EffectClass.PURE)],
                 workflows={"wf": wf}, clock=FakeClock())
    out = rt.run(rt.start("wf", None, run_id="r")).result()
    assert out == {"winners": ["fast"], "outcomes": {"slow": fate, "fast": WON}}
    assert [e.kind for e in rt.store.read("r") if e.step == 0][-1] == kind
    assert not [t for t in threading.enumerate() if t.name.startswith("minirt-race")]
    rt.close()


# -- the crash sweep: every boundary a race passes, judged by the provider's ledger --------------

class RaceScenario:
    """Three keyed mirrors race (m1 always says no); the provider's ledger (SQLite, in the
    workdir) counts each execution under its effect key."""

    name = "race"
    ref = "test_race:RACE"  # importable with tests/ on the path (the kill test sets it)
    latency = {"m0": 0.3, "m1": 0.1, "m2": 0.2}

    def setup(self, workdir: Path) -> None:
        import sqlite3

        con = sqlite3.connect(workdir / "ledger.sqlite")
        con.execute("CREATE TABLE IF NOT EXISTS ran (key TEXT, mirror TEXT)")
        con.commit()
        con.close()

    def make_runtime(self, workdir: Path, *, faults: Any, clock_offset: float,
                     worker_id: str) -> Runtime:
        import sqlite3

        clock = FakeClock(1000.0 + clock_offset)
        seq = RaceSequencer(clock, self.latency)

        def make(name: str) -> FunctionTool:
            def fn(item: str, call: Any = None) -> Any:
                def body() -> Any:
                    con = sqlite3.connect(workdir / "ledger.sqlite")
                    con.execute("INSERT INTO ran VALUES (?, ?)", (call.effect_key, name))
                    con.commit()
                    con.close()
                    if name == "m1":
                        raise ToolError(tool=name, reason="no quote")
                    return {"mirror": name, "item": item}
                return seq.invoke(call, body)
            return FunctionTool(fn, name=name, effect=EffectClass.KEYED)

        def wf(ctx: Any, _: Any) -> Any:
            won = race(ctx, [Call(n, {"item": "A-42"}, name=n) for n in self.latency])
            return {"winner": won.winners[0], "outcomes": dict(won.outcomes)}

        return Runtime(SQLiteStore(workdir / "runs.sqlite"), tools=[make(n) for n in self.latency],
                       workflows={"wf": wf}, clock=clock, faults=faults, hooks=[seq],
                       worker_id=worker_id)

    def start(self, rt: Runtime) -> str:
        return rt.start("wf", None, run_id="race-1")

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Any:
        import sqlite3

        from minirt.faults import Outcome, Verdict

        out = rt.outcome(run_id)
        if out.state is not RunState.SUCCEEDED:
            return Verdict(Outcome.STUCK, f"state {out.state}")
        con = sqlite3.connect(workdir / "ledger.sqlite")
        keys = con.execute("SELECT mirror, COUNT(DISTINCT key) FROM ran GROUP BY mirror").fetchall()
        con.close()
        if any(n > 1 for _, n in keys):  # a resend under another key: a second effect
            return Verdict(Outcome.DUPLICATE, str(keys))
        winner = out.result()["winner"]
        if winner == "m1":
            return Verdict(Outcome.WRONG, "a failing entrant won")
        journal = Journal.load(rt.store, run_id)
        open_ = [p for p in range(4) if journal.at(p) is None or journal.at(p).outcome is None]
        if open_:
            return Verdict(Outcome.LOST, f"positions without a terminal record: {open_}")
        ctx = Context(rt, run_id, 99, journal, None)
        again = race(ctx, [Call(n, {"item": "A-42"}, name=n) for n in self.latency])
        if again.winners[0] != winner or dict(again.outcomes) != out.result()["outcomes"]:
            return Verdict(Outcome.WRONG, f"replay gave {again.winners} / {again.outcomes}")
        return Verdict(Outcome.CLEAN)


RACE = RaceScenario()


def test_every_crash_point_of_a_race_recovers_to_a_winner_that_replays() -> None:
    from minirt.faults import boundaries, sweep

    points = boundaries(RACE)
    assert {"inside_commit", "after_intent", "after_result", "before_decision_record",
            "after_decision_record"} <= {p for p, _ in points}
    cells = sweep(RACE)
    bad = [f"{c.point}#{c.occurrence}: {c.verdict.outcome.value} ({c.verdict.detail})"
           for c in cells if not c.verdict.ok]
    assert not bad and len(cells) == len(points), bad


@pytest.mark.slow
def test_a_race_killed_with_sigkill_recovers_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from minirt.faults import crash_once

    here = str(Path(__file__).resolve().parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (here, os.environ.get("PYTHONPATH")) if p))  # the child imports test_race

    for point, n in [("after_result", 1), ("before_decision_record", 1),
                     ("after_decision_record", 1)]:
        verdict = crash_once(RACE.ref, point, occurrence=n, mode="kill")
        assert verdict.ok, (point, verdict)


def test_an_entrant_a_hook_refuses_is_journaled_as_refused_and_the_others_race(
        tmp_path: Path) -> None:
    from minirt.runtime import RuntimeHook

    class NoEU(RuntimeHook):
        def before_dispatch(self, ctx: Any, tool: Any, call: Any) -> None:
            if call.tool == "m2":
                raise ToolError(tool=call.tool, reason="not allowed here")

    mirrors = Mirrors()
    clock = FakeClock(1000.0)
    order = [2, 0, 3, 1]
    seq = RaceSequencer(clock, key=lambda call, finish_at: order.index(call.step))
    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=mirrors.tools(seq),
                 workflows={"wf": quote}, clock=clock, hooks=[NoEU(), seq])
    out = rt.run(rt.start("wf", None, run_id="r")).result()
    assert out["winners"] == ["m0"] and out["outcomes"]["m2"] == FAILED  # m2 would have won
    assert [e.kind for e in rt.store.read("r") if e.step == 2] == ["tool_rejected"]
    assert "m2" not in mirrors.ran
    rt.close()
    again = replay(tmp_path / "r.sqlite", mirrors, order)
    assert list(again.winners) == ["m0"] and again.outcomes["m2"] == FAILED
