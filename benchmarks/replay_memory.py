"""Peak memory and time to resume a run with N recorded tool steps, side by side for code trees.

    nice .venv/bin/python benchmarks/replay_memory.py --n 100000 --base /tmp/perf-base
    nice .venv/bin/python benchmarks/replay_memory.py --n 100000 --shapes tool decision --base ..
    nice .venv/bin/python benchmarks/replay_memory.py --n 20000 --rounds 1       # this tree only

One journal per shape is recorded once (by this tree's code, on a tmpfs file with
``synchronous=OFF``, so the recording is quick): a workflow calls a keyed tool N times (``tool``:
an intent and a result per step, 2N events) or asks a scripted model N times (``decision``: one
event per step, N events), and is crashed (simulated) at ``before_complete``. Then, for every
round and every tree (this one, and ``--base`` if given, interleaved, the order alternating by
round), a **fresh child process** importing only that tree's ``minirt`` resumes a copy of the file (WAL, ``synchronous=FULL``, the default store) with a
fresh runtime, and reports:

- ``rss_mb``: the child's peak resident set (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) at
  the end of the resume, and ``rss_before_mb`` right after the imports (the interpreter and
  minirt, before the store is opened);
- ``resume_s``: the time from opening the store to ``resume()`` returning (claim, read and verify
  the chain, replay N positions, complete), and ``cpu_s`` the CPU time the child spent on it
  (``time.process_time``: on a shared machine, less sensitive to the other processes' load).

The child checks the result (the workflow returns N) so a resume that silently skipped the
replay cannot look fast. Results: one JSON object per line, and with ``--out`` a JSON file (median
of the rounds per tree). Not a timed test; numbers vary with the disk and the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from minirt.clock import FakeClock
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
path, n, shape = sys.argv[2], int(sys.argv[3]), sys.argv[4]
VALUE = {"order_id": "ord_000000", "status": "ok", "items": [1, 2, 3], "note": "x" * 120,
         "amount_cents": 4200, "currency": "EUR"}
def value(i):
    return {**VALUE, "order_id": f"ord_{i:06d}"}
class Model:
    def complete(self, prompt, *, index):
        return {**VALUE, "order_id": f"ord_{index:06d}", "action": "next"}
def wf(ctx, inp):
    n, shape = inp["n"], inp["shape"]
    for i in range(n):
        if shape == "decision":
            ctx.decide({"task": "refund", "i": i}, name="next")
        else:
            ctx.call_tool("fetch", i=i)
    return n
clock = FakeClock(1_700_000_000.0 + 7200)
t0, c0 = time.perf_counter(), time.process_time()
rt = Runtime(SQLiteStore(path), tools=[FunctionTool(value, name="fetch", effect=EffectClass.KEYED)],
             workflows={"wf": wf}, clock=clock, worker_id="w-resume", model=Model())
out = rt.resume("r")
dt, cpu = time.perf_counter() - t0, time.process_time() - c0
rt.close()
assert out.value == n, out
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"resume_s": round(dt, 3), "cpu_s": round(cpu, 3), "rss_mb": round(rss / 1024, 1),
                  "rss_before_mb": round(rss0 / 1024, 1)}))
"""

RECORD = r"""
import sys
sys.path.insert(0, sys.argv[1])
from minirt.clock import FakeClock
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool
path, n, shape = sys.argv[2], int(sys.argv[3]), sys.argv[4]
VALUE = {"order_id": "ord_000000", "status": "ok", "items": [1, 2, 3], "note": "x" * 120,
         "amount_cents": 4200, "currency": "EUR"}
def value(i):
    return {**VALUE, "order_id": f"ord_{i:06d}"}
class Model:
    def complete(self, prompt, *, index):
        return {**VALUE, "order_id": f"ord_{index:06d}", "action": "next"}
def wf(ctx, inp):
    n, shape = inp["n"], inp["shape"]
    for i in range(n):
        if shape == "decision":
            ctx.decide({"task": "refund", "i": i}, name="next")
        else:
            ctx.call_tool("fetch", i=i)
        if i % 20000 == 19999:
            print(f"recorded {i + 1}/{n} {shape} steps", flush=True)
    return n
rt = Runtime(SQLiteStore(path, synchronous="OFF"),
             tools=[FunctionTool(value, name="fetch", effect=EffectClass.KEYED)],
             workflows={"wf": wf}, clock=FakeClock(1_700_000_000.0), model=Model(),
             faults=FaultPlan(crash_at="before_complete"), worker_id="w-record")
rt.start("wf", {"n": n, "shape": shape}, run_id="r")
try:
    rt.run("r")
except SimulatedCrash:
    pass
rt.close()
"""


def _child(code: str, tree: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code, str(tree), *args], capture_output=True,
                          text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"child for {tree} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="positions recorded per journal")
    ap.add_argument("--shapes", nargs="+", default=["tool"], choices=["tool", "decision"],
                    help="tool: an intent and a result per position (2N events); decision: one"
                         " decision event per position (N events)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--base", type=Path, help="another tree (e.g. a worktree of main) to compare")
    ap.add_argument("--workdir", type=Path, default=Path("/dev/shm") if Path("/dev/shm").is_dir()
                    else None, help="where the journal file is kept (default: /dev/shm)")
    ap.add_argument("--out", type=Path, help="write the summary as JSON here")
    args = ap.parse_args(argv)
    trees = {"this": HERE}
    if args.base is not None:
        trees["base"] = args.base.resolve()
    keys = ("resume_s", "cpu_s", "rss_mb", "rss_before_mb")
    summary: dict[str, Any] = {"n": args.n, "rounds": args.rounds,
                               "python": sys.version.split()[0], "cpus": os.cpu_count(),
                               "load_before": os.getloadavg(),
                               "note": "shared 2-core machine (other sessions running); child"
                                       " process per resume; tree order alternates by round",
                               "trees": {name: str(tree) for name, tree in trees.items()},
                               "shapes": {}}
    print("trees: " + ", ".join(f"{name}={tree}" for name, tree in trees.items()), flush=True)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for shape in args.shapes:
            master = Path(tmp) / f"journal-{shape}.sqlite"
            t0 = time.perf_counter()
            print(f"recording {args.n} {shape} positions with this tree's code...", flush=True)
            for line in _child(RECORD, HERE, str(master), str(args.n), shape).splitlines():
                print("  " + line, flush=True)
            print(f"recorded in {time.perf_counter() - t0:.1f} s", flush=True)
            rows: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
            for rnd in range(1, args.rounds + 1):
                order = list(trees.items()) if rnd % 2 else list(reversed(trees.items()))
                for name, tree in order:
                    copy = Path(tmp) / f"resume-{name}.sqlite"
                    for suffix in ("", "-wal", "-shm"):
                        src = Path(str(master) + suffix)
                        dst = Path(str(copy) + suffix)
                        if src.exists():
                            shutil.copyfile(src, dst)
                        elif dst.exists():
                            dst.unlink()
                    r = json.loads(_child(CHILD, tree, str(copy), str(args.n), shape))
                    r.update(tree=name, round=rnd, shape=shape)
                    rows[name].append(r)
                    print(json.dumps(r), flush=True)
            median = {name: {k: statistics.median(r[k] for r in rs) for k in keys}
                      for name, rs in rows.items()}
            summary["shapes"][shape] = {"events": (2 if shape == "tool" else 1) * args.n + 2,
                                        "median": median, "rounds_raw": rows}
            print(json.dumps({"shape": shape, "median": median}), flush=True)
    summary["load_after"] = os.getloadavg()
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
