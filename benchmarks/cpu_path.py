"""The CPU cost of one tool step without fsync, side by side for code trees (interleaved rounds).

    nice .venv/bin/python benchmarks/cpu_path.py --base /tmp/perf-base --rounds 5

Each measurement is a fresh child process importing one tree's ``minirt``: a SQLite store on
tmpfs (``/dev/shm``) with ``synchronous=OFF`` (no fsync: what is left is minirt's own CPU and
SQLite's), a warm-up run of 200 steps, then one run calling a keyed tool ``--steps`` times; the
figure is wall time per tool step, the CPU time per step (``time.process_time``), and a split
of the store's share (time inside ``store.append``). Rounds alternate the trees so that a change
in the machine's load hits both. Then, on the same store, a run of 100 steps counts the SQL
statements minirt sends (``set_trace_callback``; the run's start, claim and end included, so a
little above the per-step figure). ``--instructions`` also counts instructions per step under
``valgrind --tool=callgrind`` (two runs of 300 and 1,300 steps, differenced): slow, but the one
figure the machine's load does not move. The run's result is checked; every store is removed.
Not a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from minirt.clock import FakeClock
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool
steps = int(sys.argv[2])
def value(i):
    return {"order_id": f"ord_{i:06d}", "status": "ok", "items": [1, 2, 3], "note": "x" * 120}
def wf(ctx, n):
    for i in range(n):
        ctx.call_tool("fetch", i=i)
    return n
tmp = tempfile.TemporaryDirectory(dir="/dev/shm")
store = SQLiteStore(tmp.name + "/s.sqlite", synchronous="OFF")
spent = [0.0]
inner = store.append
def timed(*a, **k):
    t = time.perf_counter()
    try:
        return inner(*a, **k)
    finally:
        spent[0] += time.perf_counter() - t
store.append = timed
rt = Runtime(store, tools=[FunctionTool(value, name="fetch", effect=EffectClass.KEYED)],
             workflows={"wf": wf}, clock=FakeClock(1_700_000_000.0), worker_id="w")
rt.run_workflow("wf", 200)
rid = rt.start("wf", steps)
spent[0] = 0.0
t0, c0 = time.perf_counter(), time.process_time()
out = rt.run(rid)
dt, cpu = time.perf_counter() - t0, time.process_time() - c0
assert out.value == steps, out
statements = []  # counted on a separate run of 100 steps, so the timed run has no callback
store._db.set_trace_callback(statements.append)
assert rt.run_workflow("wf", 100).value == 100
store._db.set_trace_callback(None)
store.close()
tmp.cleanup()
print(json.dumps({"us_per_step": round(1e6 * dt / steps, 1),
                  "cpu_us_per_step": round(1e6 * cpu / steps, 1),
                  "store_append_us_per_step": round(1e6 * spent[0] / steps, 1),
                  "sql_statements_per_step": round(len(statements) / 100, 2)}))
"""


def _child(tree: Path, steps: int) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(steps)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"child for {tree} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def _instructions(tree: Path, steps: tuple[int, int]) -> float:
    """Instructions per tool step under ``valgrind --tool=callgrind`` (its ``Ir`` total): the
    difference between two runs of the child, so start-up, imports and warm-up cancel out.
    Independent of the machine's load, unlike the times (and about 100x slower)."""
    totals = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in steps:
            proc = subprocess.run(["valgrind", "--tool=callgrind",
                                   f"--callgrind-out-file={tmp}/cg.out", sys.executable, "-c",
                                   CHILD, str(tree), str(n)],
                                  capture_output=True, text=True, check=False)
            found = re.search(r"Collected : (\d+)", proc.stderr)
            if proc.returncode != 0 or found is None:
                raise SystemExit(f"callgrind child for {tree} failed:\n{proc.stderr[-3000:]}")
            totals.append(int(found.group(1)))
    return (totals[1] - totals[0]) / (steps[1] - steps[0])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--base", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--instructions", action="store_true",
                    help="also count instructions per step under callgrind (slow, load-free)")
    args = ap.parse_args(argv)
    trees = {"this": HERE}
    if args.base is not None:
        trees["base"] = args.base.resolve()
    print("trees: " + ", ".join(f"{name}={tree}" for name, tree in trees.items()), flush=True)
    raw: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for rnd in range(1, args.rounds + 1):
        order = list(trees.items()) if rnd % 2 else list(reversed(trees.items()))
        for name, tree in order:
            r = _child(tree, args.steps)
            r.update(tree=name, round=rnd)
            raw[name].append(r)
            print(json.dumps(r), flush=True)
    median = {name: {k: statistics.median(r[k] for r in rs)
                     for k in ("us_per_step", "cpu_us_per_step", "store_append_us_per_step",
                               "sql_statements_per_step")}
              for name, rs in raw.items()}
    summary: dict[str, Any] = {"median": median, "steps": args.steps,
                               "note": "shared 2-core machine (other sessions running); tmpfs,"
                                       " synchronous=OFF", "load_avg": os.getloadavg(),
                               "trees": {name: str(tree) for name, tree in trees.items()},
                               "raw": raw}
    if args.instructions:
        summary["instructions_per_step"] = {name: round(_instructions(tree, (300, 1300)))
                                            for name, tree in trees.items()}
    if "base" in median:
        summary["this_over_base"] = {k: round(median["this"][k] / median["base"][k], 3)
                                     for k in ("us_per_step", "cpu_us_per_step")}
    print(json.dumps({k: v for k, v in summary.items() if k != "raw"}, indent=1))
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
