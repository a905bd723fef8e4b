"""CPU time of resuming a run of N recorded tool steps (issue 24: 100k in 1.5 s), side by side.

    .venv/bin/python benchmarks/resume_cpu.py --n 100000 --build /dev/shm/r100k.sqlite
    .venv/bin/python benchmarks/resume_cpu.py --n 100000 --db /dev/shm/r100k.sqlite --profile
    .venv/bin/python benchmarks/resume_cpu.py --db /dev/shm/r100k.sqlite --trees A=/work/wt/x B=.

``--build`` records a journal of N keyed tool calls (an intent and a result each) crashed at
``before_complete``, once. Every resume runs on a fresh copy of that file, in a child process
whose ``sys.path`` starts with the tree under test, and reports ``time.process_time`` of
``Runtime.resume`` alone (the store already open) plus the child's peak RSS. ``--trees`` runs
the trees interleaved for ``--rounds`` rounds and prints the median per tree. On a shared
machine separate processes differ by up to +-20 % for the same code; ``--one-process`` copies
each tree's ``minirt`` package under its own name (``minirt_A``, ...; minirt imports itself
relatively) and alternates the resumes inside ONE process (A B, then B A), which compares the
trees under the same conditions. CPU time, not wall time: the numbers do not depend on the other
load of the machine as much, but they do vary with the CPU. Not a timed test.
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

CHILD = r"""
import cProfile, json, pstats, resource, sys, time
sys.path.insert(0, sys.argv[1])
from minirt.clock import FakeClock
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool
VALUE = {"order_id": "ord_000000", "status": "ok", "items": [1, 2, 3], "note": "x" * 120,
         "amount_cents": 4200, "currency": "EUR"}
def _value(i):
    return {**VALUE, "order_id": f"ord_{i:06d}"}
def wf(ctx, n):
    for i in range(n):
        ctx.call_tool("fetch", i=i)
    return n
def runtime(path, clock, faults=None):
    fetch = FunctionTool(_value, name="fetch", effect=EffectClass.KEYED)
    return Runtime(SQLiteStore(path), tools=[fetch], workflows={"wf": wf}, clock=clock,
                   faults=faults, worker_id=f"w-{clock.now():.0f}")
mode, path, n, prof = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
clock = FakeClock(1_700_000_000.0)
if mode == "build":
    from minirt.faults import FaultPlan, SimulatedCrash
    rt = runtime(path, clock, FaultPlan(crash_at="before_complete"))
    rt.start("wf", n, run_id="r")
    try:
        rt.run("r")
    except SimulatedCrash:
        pass
    rt.close()
    raise SystemExit(0)
clock.advance(3600)
rt = runtime(path, clock)
p = cProfile.Profile() if prof else None
t0 = time.process_time()
if p:
    p.enable()
out = rt.resume("r")
if p:
    p.disable()
cpu = time.process_time() - t0
assert out.value == n, out
rt.close()
if p:
    pstats.Stats(p, stream=sys.stderr).sort_stats("tottime").print_stats(30)
print(json.dumps({"cpu_s": cpu,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_child(tree: str, mode: str, db: str, n: int, profile: bool = False) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, os.path.abspath(tree), mode, db, str(n),
                          "1" if profile else "0"], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    if profile:
        print(out.stderr)
    return json.loads(out.stdout) if mode == "resume" else {}


def resume_once(tree: str, db: str, n: int, profile: bool = False) -> dict:
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(db))) as tmp:
        copy = os.path.join(tmp, "r.sqlite")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                shutil.copyfile(db + suffix, copy + suffix)
        return run_child(tree, "resume", copy, n, profile)


VALUE = {"order_id": "ord_000000", "status": "ok", "items": [1, 2, 3], "note": "x" * 120,
         "amount_cents": 4200, "currency": "EUR"}


def _value(i: int) -> dict:
    """The tool's answer (the child's, see CHILD)."""
    return {**VALUE, "order_id": f"ord_{i:06d}"}


def _wf(ctx: object, n: int) -> int:
    """The workflow that recorded the journal (the child's, see CHILD)."""
    for i in range(n):
        ctx.call_tool("fetch", i=i)  # type: ignore[attr-defined]
    return n


def one_process(trees: list[list[str]], db: str, n: int, rounds: int) -> dict[str, list[dict]]:
    """Every tree's resume in this process, alternated (see the module docstring)."""
    import importlib
    import resource
    import time

    pkgs = tempfile.mkdtemp(prefix="resume-cpu-")
    names = []
    for name, path in trees:
        pkg = "minirt_" + "".join(c if c.isalnum() else "_" for c in name)
        shutil.copytree(os.path.join(path, "minirt"), os.path.join(pkgs, pkg),
                        ignore=shutil.ignore_patterns("__pycache__"))
        names.append((name, pkg))
    sys.path.insert(0, pkgs)
    results: dict[str, list[dict]] = {name: [] for name, _ in trees}
    try:
        for r in range(rounds):
            order = names if r % 2 == 0 else names[::-1]
            for name, pkg in order:
                m = lambda mod, pkg=pkg: importlib.import_module(f"{pkg}.{mod}")  # noqa: E731
                with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(db))) as t:
                    copy = os.path.join(t, "r.sqlite")
                    for suffix in ("", "-wal", "-shm"):
                        if os.path.exists(db + suffix):
                            shutil.copyfile(db + suffix, copy + suffix)
                    tools = m("tools")
                    fetch = tools.FunctionTool(_value, name="fetch",
                                               effect=tools.EffectClass.KEYED)
                    rt = m("runtime").Runtime(
                        m("store.sqlite").SQLiteStore(copy), tools=[fetch],
                        workflows={"wf": _wf},
                        clock=m("clock").FakeClock(1_700_003_600.0), worker_id="w")
                    t0 = time.process_time()
                    out = rt.resume("r")
                    cpu = time.process_time() - t0
                    rt.close()
                assert out.value == n, out
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                results[name].append({"cpu_s": cpu, "rss_mb": rss})
                print(f"round {r + 1} {name}: cpu {cpu:.3f} s (one process)", flush=True)
    finally:
        shutil.rmtree(pkgs, ignore_errors=True)
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--build", help="record the journal to this path first")
    ap.add_argument("--db", help="a journal recorded by --build")
    ap.add_argument("--trees", nargs="+", default=[], help="NAME=PATH of source trees to compare")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--one-process", action="store_true",
                    help="alternate the trees inside one process (rss is then the process's)")
    args = ap.parse_args(argv)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if args.build:
        run_child(here, "build", args.build, args.n)
        args.db = args.build
    if not args.db:
        ap.error("--db or --build")
    trees = [t.split("=", 1) for t in args.trees] or [["this", here]]
    if args.one_process:
        return report(one_process(trees, args.db, args.n, args.rounds), args.n)
    results: dict[str, list[dict]] = {name: [] for name, _ in trees}
    for r in range(args.rounds if not args.profile else 1):
        for name, path in trees:
            res = resume_once(path, args.db, args.n, args.profile)
            results[name].append(res)
            print(f"round {r + 1} {name}: cpu {res['cpu_s']:.3f} s  rss {res['rss_mb']:.1f} MB",
                  flush=True)
    return report(results, args.n)


def report(results: dict[str, list[dict]], n: int) -> int:
    """Print the median CPU per tree (and the largest peak RSS seen)."""
    for name, rs in results.items():
        cpu = statistics.median(x["cpu_s"] for x in rs)
        print(f"median {name}: cpu {cpu:.3f} s ({1e6 * cpu / (2 * n):.2f} us/event), "
              f"rss {max(x['rss_mb'] for x in rs):.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
