"""The CPU cost of one tool step without fsync, side by side for code trees (interleaved rounds).

    nice .venv/bin/python benchmarks/cpu_path.py --base /tmp/perf-base --rounds 5

Each measurement is a fresh child process importing one tree's ``minirt``: a SQLite store on
tmpfs (``/dev/shm``) with ``synchronous=OFF`` (no fsync: what is left is minirt's own CPU and
SQLite's), a warm-up run of 200 steps, then one run calling a keyed tool ``--steps`` times; the
figure is wall time per tool step, the CPU time per step (``time.process_time``), and a split of the store's share (time inside
``store.append``). Rounds alternate the trees so that a change in the machine's load hits both.
The run's result is checked. Not a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
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
store.close()
tmp.cleanup()
print(json.dumps({"us_per_step": round(1e6 * dt / steps, 1),
                  "cpu_us_per_step": round(1e6 * cpu / steps, 1),
                  "store_append_us_per_step": round(1e6 * spent[0] / steps, 1)}))
"""


def _child(tree: Path, steps: int) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(steps)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"child for {tree} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--base", type=Path)
    ap.add_argument("--out", type=Path)
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
                     for k in ("us_per_step", "cpu_us_per_step", "store_append_us_per_step")}
              for name, rs in raw.items()}
    summary: dict[str, Any] = {"median": median, "steps": args.steps,
                               "note": "shared 2-core machine (other sessions running); tmpfs,"
                                       " synchronous=OFF", "load_avg": os.getloadavg(),
                               "trees": {name: str(tree) for name, tree in trees.items()},
                               "raw": raw}
    if "base" in median:
        summary["this_over_base"] = {k: round(median["this"][k] / median["base"][k], 3)
                                     for k in ("us_per_step", "cpu_us_per_step")}
    print(json.dumps({k: v for k, v in summary.items() if k != "raw"}, indent=1))
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
