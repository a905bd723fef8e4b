"""Issue 22's follow-ups: a race's picture drawn from its journal, losers recorded as
cancellations, main's race journals still replaying, and ``minirt.race`` exported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from minirt.clock import FakeClock
from minirt.journal import Journal
from minirt.race import CANCELLED, UNKNOWN, WON, race, recorded_fate
from minirt.run import RunState
from minirt.runtime import Context
from minirt.store.sqlite import SQLiteStore
from minirt.viz.scheduler import gantt, timeline

sys.path.insert(0, str(Path(__file__).parent / "data"))
import race_main_journal as main_race  # noqa: E402  (tests/data is not a package)

DUMP = Path(__file__).parent / "data" / "race_main_a14dc0a.sql"
LOSERS = ("eu", "ch")  # us answers first (0.1 s), then ch (0.2 s), eu (0.3 s)


def run_race(path: Path, clock: FakeClock) -> list[Any]:
    rt = main_race.make_runtime(path, clock)
    out = rt.run(rt.start("quote", None, run_id="q")).result()
    assert out["winner"] == "us"
    rows = rt.store.read("q")
    rt.close()
    return rows


def decision_of(rows: list[Any]) -> dict[str, Any]:
    return next(e.payload for e in rows if e.kind == "decision")


# -- 1. the picture: each bar ends when its outcome was recorded --------------------------------

def test_the_winner_ends_at_its_result_and_the_losers_stop_at_the_cancel(tmp_path: Path) -> None:
    rows = run_race(tmp_path / "r.sqlite", FakeClock(0.0, tick=0.01))  # time moves as it is read
    cancel = decision_of(rows)["cancelled_at"]
    bars = {b.tool: b for b in timeline(rows)}
    result = next(e for e in rows if e.kind == "tool_result")
    assert len({b.start_at for b in bars.values()}) == 1  # one group commit for the three
    assert bars["us"].outcome == "tool_result" and bars["us"].end_at == result.at
    for loser in LOSERS:
        assert bars[loser].outcome == CANCELLED
        assert bars[loser].end_at == cancel  # where the race cancelled it
    assert cancel < bars["us"].end_at  # cancelled before the winner's result was journaled
    assert {bars[loser].end_at for loser in LOSERS} != {bars["us"].end_at}
    records = [e for e in rows if e.kind == "tool_error"]
    assert all(cancel < e.at for e in records)  # their records came after the race waited
    svg = gantt(timeline(rows)).svg
    assert svg.count(">cancelled</text>") == 2 and svg.count('stroke-width="3"') == 2


def test_on_a_clock_that_stands_still_the_losers_still_end_no_later_than_the_cancel(
        tmp_path: Path) -> None:
    rows = run_race(tmp_path / "r.sqlite", FakeClock(0.0))
    cancel = decision_of(rows)["cancelled_at"]
    bars = {b.tool: b for b in timeline(rows)}
    assert cancel == pytest.approx(0.1)  # the instant us answered
    assert all(bars[loser].end_at is not None and bars[loser].end_at <= cancel
               for loser in LOSERS)


# -- 2. a cancelled loser is a cancellation, and is read back as one ---------------------------

def test_a_cancelled_loser_is_recorded_as_a_cancellation_not_an_error(tmp_path: Path) -> None:
    rows = run_race(tmp_path / "r.sqlite", FakeClock(0.0))
    records = {e.step: e.payload for e in rows if e.kind == "tool_error"}
    assert sorted(records) == [0, 2]  # eu and ch
    for rec in records.values():
        assert rec["outcome"] == CANCELLED and rec["effect_key"].startswith("ek_")
        assert rec["cancelled_at"] <= rec["stopped_at"]  # it stopped after it was cancelled
        assert recorded_fate(rec) == CANCELLED
        assert rec["error"]["type"] == "EntrantCancelled"  # for readers that know no races
    assert recorded_fate({"outcome": UNKNOWN, "error": {"type": "EntrantUnknown"}}) == UNKNOWN
    assert recorded_fate({"error": {"type": "ToolError"}}) == "failed"
    store = SQLiteStore(tmp_path / "r.sqlite")
    sent: list[str] = []
    rt = main_race.make_runtime(tmp_path / "other.sqlite", FakeClock(99.0), sent=sent)
    try:
        again = race(Context(rt, "q", 99, Journal.load(store, "q"), None), main_race.ENTRANTS)
    finally:
        rt.close()
        store.close()
    assert again.replayed and again.winners == ("us",) and not sent
    assert dict(again.outcomes) == {"eu": CANCELLED, "us": WON, "ch": CANCELLED}


# -- old journals: written by main's race (a14dc0a), replayed by today's --------------------------

def test_a_journal_written_by_mains_race_replays_unchanged(tmp_path: Path) -> None:
    path = main_race.load(DUMP, tmp_path / "main.sqlite")
    store = SQLiteStore(path)
    old = store.read("done")
    errors = [e.payload for e in old if e.kind == "tool_error"]
    assert errors and all("outcome" not in p for p in errors)  # the old form, as main wrote it
    assert [recorded_fate(p) for p in errors] == [CANCELLED, CANCELLED]
    assert [recorded_fate(p["error"]) for p in errors] == [CANCELLED, CANCELLED]  # the old call
    sent: list[str] = []
    rt = main_race.make_runtime(tmp_path / "other.sqlite", FakeClock(99.0), sent=sent)
    try:
        again = race(Context(rt, "done", 99, Journal.load(store, "done"), None),
                     main_race.ENTRANTS)
    finally:
        rt.close()
        store.close()
    assert again.replayed and again.winners == ("us",) and again.value["mirror"] == "us"
    assert dict(again.outcomes) == decision_of(old)["output"]["outcomes"]
    bars = {b.tool: b for b in timeline(old)}  # no cancel time recorded: the records' own
    assert bars["eu"].outcome == "tool_error"
    assert bars["eu"].end_at == next(e.at for e in old if e.kind == "tool_error" and e.step == 0)
    rt = main_race.make_runtime(path, FakeClock(5000.0), sent=sent)  # after the dead lease
    try:
        out = rt.resume("crashed")
        assert out.state is RunState.SUCCEEDED
        assert out.result() == {"winner": "us", "value": {"mirror": "us", "cents": 900},
                                "outcomes": {"eu": CANCELLED, "us": WON, "ch": CANCELLED}}
        assert rt.outcome("done").result() == out.result()
    finally:
        rt.close()
    assert not sent  # nothing was sent again, by either replay


# -- 3. the export ---------------------------------------------------------------------------------

def test_minirt_race_is_the_module_and_race_calls_the_function() -> None:
    code = ("import types, minirt\n"
            "a = isinstance(minirt.race, types.ModuleType)\n"
            "from minirt import race, Raced, RaceLost, race_calls\n"
            "b = isinstance(race, types.ModuleType) and race is minirt.race\n"
            "import minirt.race\n"
            "from minirt import race as again\n"
            "print(a, b, again is minirt.race, race_calls is minirt.race.race,\n"
            "      Raced is minirt.race.Raced, RaceLost is minirt.race.RaceLost)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert out.stdout.split() == ["True"] * 6


def test_a_ticking_fake_clock_moves_after_each_reading_and_never_backwards() -> None:
    clock = FakeClock(1.0, tick=0.5)
    assert [clock.now(), clock.now(), clock.now()] == [1.0, 1.5, 2.0]
    clock.set(10.0)
    assert clock.now() == 10.0 and FakeClock(3.0).now() == FakeClock(3.0).now() == 3.0
    with pytest.raises(ValueError, match="backwards"):
        FakeClock(0.0, tick=-1.0)


@pytest.mark.parametrize("move", ["tick", "advance", "set"])
def test_a_fake_clock_moved_backwards_raises_a_named_error(move: str) -> None:
    from minirt.clock import ClockBackwards
    from minirt.errors import MinirtError, from_record

    clock = FakeClock(5.0)
    with pytest.raises(ClockBackwards) as caught:
        {"tick": lambda: FakeClock(5.0, tick=-0.5), "advance": lambda: clock.advance(-1.0),
         "set": lambda: clock.set(4.0)}[move]()
    err = caught.value
    assert isinstance(err, MinirtError) and isinstance(err, ValueError)
    assert err.now == 5.0 and err.value in (-0.5, -1.0, 4.0)
    assert type(from_record(err.to_record())) is ClockBackwards
    assert clock.now() == 5.0  # refused moves leave the clock where it was


# -- the trace: a cancelled entrant's span is not a tool error -----------------------------------

def test_a_cancelled_entrants_span_says_cancelled_not_error(tmp_path: Path) -> None:
    from minirt.trace import journal_spans

    rt = main_race.make_runtime(tmp_path / "t.sqlite", FakeClock(0.0, tick=0.01))
    rt.run(rt.start("quote", None, run_id="q")).result()
    tools = {s.attributes["minirt.tool"]: s for s in journal_spans(rt.store, "q")
             if "minirt.tool" in s.attributes and s.name.startswith("tool ")}
    rt.close()
    assert tools["us"].attributes["minirt.outcome"] == "tool_result" and tools["us"].status == "ok"
    for loser in LOSERS:
        assert tools[loser].attributes["minirt.outcome"] == "cancelled"
        assert tools[loser].status == "unset"  # OpenTelemetry: a cancellation is not an error
