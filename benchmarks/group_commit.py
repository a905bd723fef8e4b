"""Tool-step throughput of concurrent runs on one SQLite file: group commit on, off, and a base tree.

    nice .venv/bin/python benchmarks/group_commit.py --base /tmp/perf-base --rounds 3

Each measurement is a fresh child process importing one tree's ``minirt``: it opens one
``SQLiteStore`` on a file on a real disk (``--dir``, default the system temp directory; WAL,
``synchronous=FULL``: every commit is fsynced), starts ``C`` runs of a workflow that calls a keyed
tool ``--steps`` times (an intent and a result, two appends a step), and runs them on ``C``
threads, one runtime each, all sharing the store. Reported: tool steps per second over all runs
(wall clock from the first thread's start to the last one's end), and for group commit the mean
appends per commit. ``C=1`` is the single-run baseline. Variants:

- ``group``: this tree, ``SQLiteStore(group_commit=True)`` (the default);
- ``nogroup``: this tree, ``group_commit=False``, one transaction per append;
- ``base``: the ``--base`` tree (e.g. a worktree of main), its default store.

``--pg``: the same on PostgreSQL (``pg/group``, ``pg/nogroup``, ``pg/base``), a fresh database
for each measurement, one connection per process (one store shared by the threads).

Every run's result is checked (each returns its step count) and so is its journal length, so a
variant that skipped writes cannot look fast. Not a timed test; the disk and the machine's load
decide the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys, threading, time
sys.path.insert(0, sys.argv[1])
from minirt.clock import FakeClock
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool
path, conc, steps, variant = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
kw = {} if variant.endswith("base") else {"group_commit": not variant.endswith("nogroup")}
if path.startswith("postgresql://"):
    from minirt.store.postgres import PostgresStore
    store = PostgresStore(path, **kw)
else:
    store = SQLiteStore(path, **kw)
def value(i):
    return {"order_id": f"ord_{i:06d}", "status": "ok", "note": "x" * 120}
def wf(ctx, n):
    for i in range(n):
        ctx.call_tool("fetch", i=i)
    return n
def runtime(k):
    return Runtime(store, tools=[FunctionTool(value, name="fetch", effect=EffectClass.KEYED)],
                   workflows={"wf": wf}, clock=FakeClock(1_700_000_000.0), worker_id=f"w{k}")
rts = [runtime(k) for k in range(conc)]
ids = [rt.start("wf", steps, run_id=f"r{k}") for k, rt in enumerate(rts)]
out = [None] * conc
def go(k):
    out[k] = rts[k].run(ids[k]).value
threads = [threading.Thread(target=go, args=(k,)) for k in range(conc)]
g = getattr(store, "_group", None)
b0 = (g.batches, g.requests) if g else (0, 0)
t0 = time.perf_counter()
for t in threads:
    t.start()
for t in threads:
    t.join()
dt = time.perf_counter() - t0
assert out == [steps] * conc, out
for r in ids:
    kinds = [e.kind for e in store.read(r)]
    assert kinds.count("intent") == kinds.count("tool_result") == steps, (r, len(kinds))
per = None
if g:
    led = g.batches - b0[0]  # 0 when every append found the connection free (no batch led)
    per = round((g.requests - b0[1]) / led, 2) if led else None
print(json.dumps({"steps_per_s": round(conc * steps / dt, 1), "seconds": round(dt, 3),
                  "appends_per_commit": per}))
"""


def _child(tree: Path, path: Path | str, conc: int, steps: int, variant: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(path), str(conc),
                           str(steps), variant], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{variant} C={conc} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 64])
    ap.add_argument("--steps", type=int, default=0,
                    help="tool steps per run (default: 1600 / C, at least 25)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--base", type=Path)
    ap.add_argument("--dir", type=Path, default=None, help="a directory on a real disk")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--pg", action="store_true",
                    help="PostgreSQL instead: $MINIRT_PG_URL, or a private local cluster "
                         "(fsync=on, synchronous_commit=on), a fresh database each measurement")
    args = ap.parse_args(argv)
    prefix = "pg/" if args.pg else ""
    variants = {f"{prefix}group": HERE, f"{prefix}nogroup": HERE}
    if args.base is not None:
        variants[f"{prefix}base"] = args.base.resolve()
    raw: dict[str, list[dict[str, Any]]] = {}
    cluster = admin = None
    if args.pg:
        import psycopg

        from minirt.store.pg_local import check_reachable, start_local_cluster, with_database
        admin = os.environ.get("MINIRT_PG_URL")
        if admin:
            check_reachable(admin)
        else:
            cluster = start_local_cluster(settings={"max_connections": "200"})
            admin = cluster.url
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for rnd in range(1, args.rounds + 1):
            for conc in args.concurrency:
                steps = args.steps or max(25, 1600 // conc)
                for variant, tree in variants.items():
                    name = f"{variant.replace('/', '_')}-{conc}-{rnd}"
                    if args.pg:
                        db = f"minirt_gc_{os.getpid()}_{name.replace('-', '_')}"
                        with psycopg.connect(admin, autocommit=True) as conn:
                            conn.execute(f'CREATE DATABASE "{db}"')
                        try:
                            r = _child(tree, with_database(admin, db), conc, steps, variant)
                        finally:
                            with psycopg.connect(admin, autocommit=True) as conn:
                                conn.execute(f'DROP DATABASE "{db}" WITH (FORCE)')
                    else:
                        r = _child(tree, Path(tmp) / f"{name}.sqlite", conc, steps, variant)
                    r.update(variant=variant, concurrency=conc, steps=steps, round=rnd)
                    raw.setdefault(f"{variant}/C={conc}", []).append(r)
                    print(json.dumps(r), flush=True)
    median = {k: statistics.median(r["steps_per_s"] for r in rs) for k, rs in raw.items()}
    single = {v: median.get(f"{v}/C=1") for v in variants}
    speedup = {k: round(m / single[k.rsplit("/", 1)[0]], 2) for k, m in median.items()
               if single.get(k.rsplit("/", 1)[0])}
    # the same ratio within each round (C runs / one run, same variant), then its median: a
    # change of the machine's load between rounds then cancels out
    per_round = {}
    for k, rs in raw.items():
        v = k.rsplit("/", 1)[0]
        ones = raw.get(f"{v}/C=1", [])
        if ones and k != f"{v}/C=1":
            per_round[k] = round(statistics.median(r["steps_per_s"] / o["steps_per_s"]
                                                   for r, o in zip(rs, ones, strict=True)), 2)
    summary = {"median_steps_per_s": median, "x_single_run_same_variant": speedup,
               "x_single_run_same_round_median": per_round,
               "note": "shared 2-core machine (other sessions running); WAL, synchronous=FULL",
               "python": sys.version.split()[0], "raw": raw}
    print(json.dumps({"median_steps_per_s": median, "x_single_run": speedup,
                      "x_single_run_same_round_median": per_round}, indent=1))
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2) + "\n")
    if cluster is not None:
        cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
