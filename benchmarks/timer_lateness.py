"""Durable timers: how late a timer fires, with real time, on a loaded worker.

    .venv/bin/python benchmarks/timer_lateness.py                  # 100 timers, 2 worker threads
    .venv/bin/python benchmarks/timer_lateness.py --timers 100 --load 2 --poll 0.05

``--timers`` runs each sleep a random 0.2-2.0 s (``ctx.sleep``) on one SQLite store (WAL,
synchronous=FULL). ``--workers`` threads, each with its own store connection, loop over
``Runtime.work`` (which runs the due-timer query, :func:`minirt.timers.fire_due`, before every
claim) and sleep ``--poll`` seconds when idle, like ``minirt worker``. ``--load`` busy processes
spin on the CPU meanwhile. Lateness of a timer = the ``fired_at`` its wait journaled minus its
journaled ``until``; a timer never fires early (checked). Prints the median, p90 and worst, and
the end-to-end delay to the run's completion. Not a timed test: numbers vary with the machine.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from tqdm import tqdm

from minirt import Runtime, SQLiteStore


def napper(ctx, inp):
    ctx.sleep(inp["seconds"])
    return {"done_at": ctx.now_raw()}


def spin(stop: multiprocessing.Event) -> None:  # type: ignore[valid-type]
    while not stop.is_set():  # type: ignore[attr-defined]
        sum(i * i for i in range(10_000))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timers", type=int, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--poll", type=float, default=0.05)
    ap.add_argument("--load", type=int, default=2, help="busy processes spinning meanwhile")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    path = Path(tempfile.mkdtemp(prefix="minirt-timers-")) / "runs.sqlite"
    rt = Runtime(SQLiteStore(path), workflows={"napper": napper})
    ids = [rt.start("napper", {"seconds": round(rng.uniform(0.2, 2.0), 3)}, run_id=f"t{i:03d}")
           for i in range(args.timers)]
    stop_load = multiprocessing.Event()
    load = [multiprocessing.Process(target=spin, args=(stop_load,), daemon=True)
            for _ in range(args.load)]
    for p in load:
        p.start()
    stop = threading.Event()

    def worker(n: int) -> None:
        w = Runtime(SQLiteStore(path), workflows={"napper": napper}, worker_id=f"w{n}")
        while not stop.is_set():
            if not w.work(max_runs=1):
                stop.wait(args.poll)
        w.close()

    threads = [threading.Thread(target=worker, args=(n,), daemon=True)
               for n in range(args.workers)]
    for t in threads:
        t.start()
    with tqdm(total=len(ids), desc="timers", file=sys.stdout) as bar:
        done = 0
        while done < len(ids):
            now_done = sum(1 for r in rt.store.list_runs(["succeeded"]))
            bar.update(now_done - done)
            done = now_done
            time.sleep(0.1)
    stop.set()
    stop_load.set()
    for t in threads:
        t.join(10)
    late, end = [], []
    for run_id in ids:
        events = rt.store.read(run_id)
        wait = next(json.loads(e.payload_json) for e in events if e.kind == "wait")
        fired = next(json.loads(e.payload_json) for e in events if e.kind == "wait_result")
        lag = fired["payload"]["fired_at"] - wait["until"]
        if lag < 0:
            raise SystemExit(f"{run_id}: fired {-lag:.3f} s EARLY")
        late.append(lag)
        end.append(rt.store.get_run(run_id).run.detail["result"]["done_at"] - wait["until"])
    rt.close()

    def ms(xs: list[float], q: float) -> float:
        return 1000 * statistics.quantiles(xs, n=100)[int(q) - 1] if q < 100 else 1000 * max(xs)

    print(f"{args.timers} timers, {args.workers} worker threads, poll {args.poll * 1000:.0f} ms, "
          f"{args.load} busy processes")
    print(f"fired late by: median {1000 * statistics.median(late):.1f} ms, p90 {ms(late, 90):.1f}"
          f" ms, worst {1000 * max(late):.1f} ms (never early)")
    print(f"due -> run finished: median {1000 * statistics.median(end):.1f} ms, "
          f"worst {1000 * max(end):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
