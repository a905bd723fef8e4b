"""The race journal written by main's race (a14dc0a), kept to prove old journals still replay.

``race_main_a14dc0a.sql`` next to this file was recorded by main's code at a14dc0a, before
cancelled losers got a named ``outcome`` and the race recorded its cancel time, and kept as the
SQLite store's text dump (``*.sqlite`` is git-ignored; the dump holds every row and digest)::

    git archive a14dc0a minirt minirt_course | tar -x -C /tmp/gantt-main
    PYTHONPATH=/tmp/gantt-main python tests/data/race_main_journal.py tests/data/race_main_a14dc0a.sql

It holds two runs of :func:`quote` (three pure mirrors raced, ``us`` fastest): ``done``, run to
the end, and ``crashed``, whose worker died at ``after_decision_record`` (its decision is
durable, the run is not complete). ``tests/test_race_gantt.py`` loads the dump into a fresh
store (:func:`load`), builds the same runtime with :func:`make_runtime` and replays both with
today's code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from minirt import EffectClass, FunctionTool, Runtime, SQLiteStore
from minirt.clock import FakeClock
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.race import race
from minirt.scheduler import Call
from minirt_course.scenarios.m07_fanout import Sequencer

LATENCY = {"eu": 0.3, "us": 0.1, "ch": 0.2}
ENTRANTS = [Call(name, {"sku": "A-42"}, name=name) for name in LATENCY]


def quote(ctx: Any, _: Any) -> Any:
    won = race(ctx, ENTRANTS)
    return {"winner": won.winners[0], "value": won.value, "outcomes": dict(won.outcomes)}


def make_runtime(path: Path, clock: FakeClock, faults: Any = None,
                 sent: list[str] | None = None) -> Runtime:
    """The runtime both runs were recorded with; ``sent`` collects every mirror that ran."""
    seq = Sequencer(clock, LATENCY)

    def mirror(name: str) -> FunctionTool:
        def fn(sku: str, call: Any = None) -> Any:
            def body() -> Any:
                if sent is not None:
                    sent.append(name)
                return {"mirror": name, "cents": 900}
            return seq.invoke(call, body)
        return FunctionTool(fn, name=name, effect=EffectClass.PURE)

    return Runtime(SQLiteStore(path), tools=[mirror(n) for n in LATENCY],
                   workflows={"quote": quote}, clock=clock, faults=faults, hooks=[seq])


def load(dump: Path, path: Path) -> Path:
    """A SQLite store at ``path`` holding exactly the rows of ``dump``."""
    import sqlite3

    con = sqlite3.connect(path)
    con.executescript(dump.read_text())
    con.close()
    return path


def main(dump: Path) -> None:
    import sqlite3
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="race-main-")) / "runs.sqlite"
    rt = make_runtime(path, FakeClock(0.0))
    print("done:", rt.run(rt.start("quote", None, run_id="done")).result())
    rt.close()
    rt = make_runtime(path, FakeClock(10.0), FaultPlan(crash_at="after_decision_record"))
    try:
        rt.run(rt.start("quote", None, run_id="crashed"))
    except SimulatedCrash:
        print("crashed: at after_decision_record")
    rt.close()
    con = sqlite3.connect(path)
    dump.write_text("\n".join(con.iterdump()) + "\n")
    con.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
