"""Keyed tool steps journaled by main's write path (83ba8fd), kept to prove the write path's
bytes do not move: a journal written by main replays on today's code, and today's code writes
the same rows, digest for digest.

``keyed_step_main_83ba8fd.sql`` next to this file was recorded by main's code at 83ba8fd,
before the leaner CPU path (issue 24), as the SQLite store's text dump (``*.sqlite`` is
git-ignored; the dump holds every row and digest)::

    git worktree add --detach /tmp/keyed-main 83ba8fd
    PYTHONPATH=/tmp/keyed-main python tests/data/keyed_step_journal.py \\
        tests/data/keyed_step_main_83ba8fd.sql

It holds two runs of :func:`orders`: ``done``, run to the end, and ``crashed``, whose worker
died at the third ``after_intent`` (the intent of position 2 is durable, its answer is not).
The arguments cover what the write path normalises (a decomposed accent, a tuple, a float, a
nested object) and both ways an intent's arguments are encoded: FunctionTool's copying
``prepare`` (``fetch``) and a tool whose ``prepare`` changes them (``charge``).
``tests/test_keyed_step_journal.py`` loads the dump (:func:`load`), replays both runs with
today's code and records them again to compare the rows.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from minirt import EffectClass, FunctionTool, Runtime, SQLiteStore
from minirt.clock import FakeClock
from minirt.faults import FaultPlan, SimulatedCrash


def orders(ctx: Any, n: int) -> Any:
    out = []
    for i in range(n):
        got = ctx.call_tool("fetch", i=i, who="Jose\u0301", tags=("a", "b"), ratio=0.5,
                            where={"city": "Zu\u0308rich", "zip": [8001, 8002]})
        paid = ctx.call_tool("charge", order=got["order_id"], cents=100 + i)
        out.append([got["order_id"], paid["charged"]])
    return out


class Charge(FunctionTool):
    """A tool whose gate changes the arguments (adds the currency): not a plain copy."""

    def prepare(self, args: dict[str, Any], scopes: frozenset[str]) -> dict[str, Any]:
        return {**super().prepare(args, scopes), "currency": "EUR"}

    def invoke(self, call: Any) -> Any:
        return {"charged": call.args["cents"], "currency": call.args["currency"]}


def make_runtime(path: Path, clock: FakeClock, faults: Any = None,
                 sent: list[str] | None = None) -> Runtime:
    """The runtime both runs were recorded with; ``sent`` collects every tool that ran."""

    def fetch(i: int, who: str, tags: list[str], ratio: float, where: dict[str, Any]) -> Any:
        if sent is not None:
            sent.append(f"fetch {i}")
        return {"order_id": f"ord_{i:04d}", "who": who, "note": "x" * 40, "ratio": ratio}

    def charge(order: str, cents: int, currency: str = "") -> Any:
        raise AssertionError("Charge.invoke answers")

    def counted(call: Any) -> Any:
        if sent is not None:
            sent.append(f"charge {call.args['order']}")
        return Charge.invoke(tool, call)

    tool = Charge(charge, name="charge", effect=EffectClass.KEYED)
    tool.invoke = counted  # type: ignore[method-assign]
    return Runtime(SQLiteStore(path),
                   tools=[FunctionTool(fetch, name="fetch", effect=EffectClass.KEYED), tool],
                   workflows={"orders": orders}, clock=clock, faults=faults, worker_id="w")


def record(path: Path) -> None:
    """Both runs, into the store at ``path`` (what main's code recorded)."""
    rt = make_runtime(path, FakeClock(1_700_000_000.0))
    rt.run(rt.start("orders", 3, run_id="done")).result()
    rt.close()
    rt = make_runtime(path, FakeClock(1_700_000_100.0), FaultPlan(crash_at="after_intent",
                                                                  occurrence=3))
    try:
        rt.run(rt.start("orders", 3, run_id="crashed"))
    except SimulatedCrash:
        pass
    else:
        raise AssertionError("the crash point was not reached")
    rt.close()


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

    with tempfile.TemporaryDirectory(prefix="keyed-main-") as tmp:
        path = Path(tmp) / "runs.sqlite"
        record(path)
        con = sqlite3.connect(path)
        dump.write_text("\n".join(con.iterdump()) + "\n")
        con.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
