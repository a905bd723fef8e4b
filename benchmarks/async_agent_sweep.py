"""Issue 21: the full crash sweep of the async agent, every fault point in both crash modes.

    .venv/bin/python benchmarks/async_agent_sweep.py            # every point, simulate + kill
    .venv/bin/python benchmarks/async_agent_sweep.py --modes kill

The agent is ``tests/fakes/async_agent_scenario.py``: an ``async def`` workflow over
``openai.AsyncOpenAI`` (pointed at the fake model server on 127.0.0.1), whose model asks for two
tool calls in one turn, run at once over an ``asyncio.TaskGroup``: ``refund``, an MCP tool of a
real MCP server over stdio (its own ledger), and ``book``, a ``minirt.world`` BookingProvider
(its own ledger). :func:`minirt.faults.sweep` lists every (point, occurrence) a crash-free run
passes, then crashes a fresh run at each one (a ``SimulatedCrash``, or SIGKILL of a child
process), recovers with fresh runtimes and asks the oracle: exactly one refund and one booking in
the providers' ledgers, the run succeeded with the expected answer, the model asked 2 times (3
when an answer was lost before it was journaled). Prints one line per cell (progress) and the
figures; ``--out`` writes them as JSON. Not a timed test: it takes minutes (each kill cell starts
a child interpreter and MCP servers); ``tests/test_async_agent_sweep.py`` runs a bounded part.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
REF = "fakes.async_agent_scenario:AsyncAgent"
TOOL_POINTS = {"before_intent", "after_intent", "after_provider_commit", "before_result",
               "after_result"}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modes", nargs="+", default=["simulate", "kill"])
    ap.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(TESTS))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS),
                                                           os.environ.get("PYTHONPATH")) if p)
    from minirt.faults import boundaries, crash_once

    started = time.perf_counter()
    points = boundaries(REF)
    cells = []
    for point, n in points:
        for mode in args.modes:
            t = time.perf_counter()
            verdict = crash_once(REF, point, occurrence=n, mode=mode)
            facts = json.loads(verdict.detail) if verdict.detail.startswith("{") else {}
            cells.append({"point": point, "occurrence": n, "mode": mode,
                          "outcome": verdict.outcome.value, **facts})
            print(f"{point}#{n}/{mode}: {verdict.outcome.value} {verdict.detail} "
                  f"({time.perf_counter() - t:.1f} s)", flush=True)
    figures = {
        "trials": len(cells), "fault_points": len(points),
        "tool_call_fault_points": sum(1 for p, _ in points if p in TOOL_POINTS),
        "modes": args.modes, "outcomes": dict(Counter(c["outcome"] for c in cells)),
        "duplicates": sum(1 for c in cells if c.get("refunds", 0) > 1 or
                          c.get("bookings", 0) > 1),
        "lost": sum(1 for c in cells if c.get("refunds", 1) == 0 or c.get("bookings", 1) == 0),
        "refund_resends": sum(1 for c in cells if c.get("refund_executions", 0) > 1),
        "seconds": round(time.perf_counter() - started, 1), "cells": cells}
    print(json.dumps({k: v for k, v in figures.items() if k != "cells"}))
    if args.out is not None:
        args.out.write_text(json.dumps(figures, indent=1) + "\n")
    return figures


if __name__ == "__main__":
    sys.exit(0 if main()["outcomes"].keys() <= {"clean"} else 1)
