"""Module 03: how big a journal is per step, and how long a run with N recorded steps takes to resume.

    .venv/bin/python benchmarks/journal_resume.py                   # N = 1,000 and 10,000
    .venv/bin/python benchmarks/journal_resume.py --sizes 1000 --profile

For each N and each shape of step, a workflow records N positions on a SQLite store (WAL,
synchronous=FULL) and is crashed (simulated) at ``before_complete``, so every position is in the
journal and none is finished. Then the store is reopened by a fresh runtime, as after a restart,
and we time ``Runtime.resume`` (claim, read and verify the whole hash chain, replay N positions
from the journal, complete), split into its parts. Shapes:

- ``step``: ``ctx.step(name, fn)`` returning a ~200-byte JSON value: one event per position;
- ``tool``: ``ctx.call_tool`` of a keyed tool returning the same value: an intent and a result,
  two events per position.

Bytes per step = growth of the database file (after a WAL checkpoint) / N; payload bytes = the
mean length of the positions' canonical JSON payloads. ``--profile`` prints the top functions of a
cProfile of the 10,000-position resume. Not a timed test: numbers vary with the disk and the load.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from minirt.clock import FakeClock
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.journal import Journal
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool

VALUE = {"order_id": "ord_000000", "status": "ok", "items": [1, 2, 3], "note": "x" * 120,
         "amount_cents": 4200, "currency": "EUR"}


def _value(i: int) -> dict[str, Any]:
    return {**VALUE, "order_id": f"ord_{i:06d}"}


def _workflow(shape: str):
    def wf(ctx, n):
        for i in range(n):
            if shape == "step":
                ctx.step(f"fetch_{i}", _value, i)
            else:
                ctx.call_tool("fetch", i=i)
        return n

    return wf


def _runtime(path: Path, shape: str, clock: FakeClock, faults: Any = None) -> Runtime:
    fetch = FunctionTool(_value, name="fetch", effect=EffectClass.KEYED)
    return Runtime(SQLiteStore(path), tools=[fetch], workflows={"wf": _workflow(shape)},
                   clock=clock, faults=faults, worker_id=f"w-{clock.now():.0f}")


def _db_bytes(path: Path) -> int:
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path.stat().st_size


def measure(n: int, shape: str, workdir: Path, profile: bool = False) -> dict[str, Any]:
    path = workdir / f"{shape}-{n}.sqlite"
    clock = FakeClock(1_700_000_000.0)
    rt = _runtime(path, shape, clock)
    rt.start("wf", 0, run_id="empty")  # schema and one run row: the baseline size
    rt.close()
    empty = _db_bytes(path)

    rt = _runtime(path, shape, clock, FaultPlan(crash_at="before_complete"))
    rt.start("wf", n, run_id="r")
    t0 = time.perf_counter()
    try:
        rt.run("r")
    except SimulatedCrash:
        pass
    record_s = time.perf_counter() - t0
    events = rt.store.read("r")
    rt.close()
    full = _db_bytes(path)
    positions = [e for e in events if e.step is not None]
    opening = [e for e in positions if e.kind in ("step", "intent")]

    clock.advance(3600)
    parts: dict[str, float] = {}
    t0 = time.perf_counter()
    rt = _runtime(path, shape, clock)
    parts["open store"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    Journal.load(rt.store, "r")  # what resume does first (timed alone here, then again below)
    parts["read + verify chain"] = time.perf_counter() - t1
    prof = cProfile.Profile() if profile else None
    t1 = time.perf_counter()
    if prof:
        prof.enable()
    out = rt.resume("r")
    if prof:
        prof.disable()
    parts["resume()"] = time.perf_counter() - t1
    rt.close()
    assert out.value == n, out
    if prof:
        print(f"\n-- cProfile of resume(), {shape}, N={n} --")
        pstats.Stats(prof, stream=sys.stdout).sort_stats("cumulative").print_stats(14)
    return {"shape": shape, "n": n, "events": len(events),
            "bytes_per_step": round((full - empty) / n, 1),
            "payload_bytes_per_step": round(sum(len(e.payload_json) for e in positions) / n, 1),
            "opening_payload_bytes": round(statistics.mean(len(e.payload_json)
                                                           for e in opening), 1),
            "record_ms_per_step": round(1000 * record_s / n, 3),
            "resume_s": round(parts["open store"] + parts["resume()"], 3),
            "resume_us_per_step": round(1e6 * parts["resume()"] / n, 1),
            "read_verify_s": round(parts["read + verify chain"], 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--shapes", nargs="+", default=["step", "tool"])
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--json", action="store_true", help="print one JSON object per line")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes:
            for n in args.sizes:
                rows.append(measure(n, shape, Path(tmp), args.profile and n == max(args.sizes)))
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return 0
    cols = list(rows[0])
    print("  ".join(f"{c:>22}" for c in cols))
    for r in rows:
        print("  ".join(f"{r[c]!s:>22}" for c in cols))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
