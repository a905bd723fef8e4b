"""Throughput against the number of worker processes: PostgreSQL, with SQLite beside it.

    .venv/bin/python benchmarks/pg_scaling.py                      # workers 1 2 4 8, ~3 minutes
    .venv/bin/python benchmarks/pg_scaling.py --runs 100 --think-ms 20   # agent-like waits

For each store and each number of workers N: a fresh database (or SQLite file) gets ``--runs``
runs of the ``tiny`` workflow (``--steps`` journaled steps of a ~200-byte payload each), then N
``minirt worker --idle-exit`` processes work through them. Each run costs ``steps + 2`` durable
commits (claim, one per step, completion). Throughput is read from the journal itself, in the
steady state: the runs that completed between the 10th and the 90th percentile of completion
times, divided by that interval (process start-up and the last stragglers do not count).
PostgreSQL and SQLite are interleaved within each repetition; the table gives medians.

PostgreSQL is the server at ``$MINIRT_PG_URL`` (a URL whose user may CREATE DATABASE) or, when
unset, a private cluster started here (``minirt.store.pg_local``) with ``fsync=on`` and
``synchronous_commit=on``. SQLite is one file in WAL mode with ``synchronous=FULL``: the same
durability promise on one machine. Both run on this machine, so the curve shows contention
on its cores and its disk, not a cluster of machines.

``--think-ms M`` makes every step wait M ms first, as an agent waits on a model or a tool: then
the workers spend their time waiting, not computing, which is what scaling out is for.

Writes ``pg_scaling_think<M>ms.csv`` and ``.svg`` (and ``.png`` when matplotlib is installed)
under ``--out`` (default ``build/benchmarks``) and prints the table.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from minirt.store import open_store  # noqa: E402
from minirt.store.pg_local import check_reachable, start_local_cluster, with_database  # noqa: E402

APP = "minirt_course.scenarios.pg_chaos:app"


def submit(url: str, runs: int, steps: int, ms: int = 0) -> None:
    from minirt_course.scenarios.pg_chaos import app

    rt = app(open_store(url))
    try:
        for i in range(runs):
            rt.start("tiny", {"steps": steps, "ms": ms}, run_id=f"b{i:05d}")
    finally:
        rt.close()


def fsync_probe(seconds: float = 0.3) -> float:
    """What the disk gives right now: 8 kB write + fdatasync per op, ops per second."""
    with tempfile.NamedTemporaryFile(dir=tempfile.gettempdir()) as f:
        block, n, start = b"x" * 8192, 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            os.pwrite(f.fileno(), block, 0)
            os.fdatasync(f.fileno())
            n += 1
        return n / (time.perf_counter() - start)


def measure(url: str, workers: int, runs: int, steps: int) -> dict[str, float]:
    """Work through the submitted runs with ``workers`` processes; return throughput figures."""
    disk = fsync_probe()
    procs = [subprocess.Popen([sys.executable, "-m", "minirt.cli", "worker", "--store", url,
                               "--app", APP, "--idle-exit", "--poll", "0.01", "--worker-id",
                               f"bench-{k}"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
             for k in range(workers)]
    said = []
    for p in procs:
        out, _ = p.communicate(timeout=600)
        said.append(out.decode()[-600:])
        if p.returncode != 0:
            raise SystemExit(f"worker failed ({p.returncode}): {said[-1]}")
    store = open_store(url)
    try:
        recs = store.list_runs()
        not_done = [r.run.run_id for r in recs if r.run.state.value != "succeeded"]
        if len(recs) != runs or not_done:
            raise SystemExit(f"{len(not_done)} run(s) of {url} did not succeed: "
                             f"{not_done[:5]}; the workers said: {said}")
        ends = sorted(max(e.at for e in store.read(r.run.run_id)) for r in recs)
    finally:
        store.close()
    # Steady state: the runs completed between the 10th and the 90th percentile of completion
    # times, so that process start-up (staggered) and the last stragglers do not count.
    lo, hi = int(0.1 * runs), int(0.9 * runs)
    seconds = ends[hi] - ends[lo]
    return {"seconds": seconds, "runs_per_s": (hi - lo) / seconds,
            "commits_per_s": (hi - lo) * (steps + 2) / seconds, "disk_fsync_per_s": disk}


def one_postgres(admin: str, psycopg: Any, rep: int, n: int, runs: int, steps: int, ms: int
                 ) -> dict[str, float]:
    name = f"minirt_bench_{os.getpid()}_{rep}_{n}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        url = with_database(admin, name)
        submit(url, runs, steps, ms)
        return measure(url, n, runs, steps)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def svg_chart(rows: list[dict], path: Path, subtitle: str = "") -> None:
    """A line chart drawn by hand: runs/s against workers, one line per store."""
    w, h, pad = 640, 400, 60
    xs = sorted({r["workers"] for r in rows})
    ymax = max(r["max"] for r in rows) * 1.1

    def px(x: int) -> float:
        return pad + (xs.index(x) / max(len(xs) - 1, 1)) * (w - 2 * pad)

    def py(y: float) -> float:
        return h - pad - (y / ymax) * (h - 2 * pad)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="24" text-anchor="middle" font-size="15">minirt throughput '
           f'against worker processes (median, min-max bars)</text>',
           f'<text x="{w / 2}" y="42" text-anchor="middle">{subtitle}</text>',
           f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="black"/>',
           f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="black"/>',
           f'<text x="{w / 2}" y="{h - 15}" text-anchor="middle">worker processes</text>',
           f'<text x="18" y="{h / 2}" text-anchor="middle" transform="rotate(-90 18 {h / 2})">'
           'runs per second</text>']
    for x in xs:
        out.append(f'<text x="{px(x)}" y="{h - pad + 18}" text-anchor="middle">{x}</text>')
    for k in range(6):
        y = ymax * k / 5
        out.append(f'<text x="{pad - 8}" y="{py(y) + 4}" text-anchor="end">{y:.0f}</text>')
        out.append(f'<line x1="{pad}" y1="{py(y)}" x2="{w - pad}" y2="{py(y)}" stroke="#ddd"/>')
    colours = {"postgres": "#1f77b4", "sqlite": "#d62728"}
    for i, store in enumerate(sorted({r["store"] for r in rows})):
        pts = sorted((r["workers"], r["runs_per_s"]) for r in rows if r["store"] == store)
        colour = colours.get(store, "#333")
        path_d = " ".join(f"{'M' if j == 0 else 'L'}{px(x):.1f},{py(y):.1f}"
                          for j, (x, y) in enumerate(pts))
        out.append(f'<path d="{path_d}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for r in (r for r in rows if r["store"] == store):
            out.append(f'<line x1="{px(r["workers"]) + (i - 0.5) * 6:.1f}" y1="{py(r["min"]):.1f}"'
                       f' x2="{px(r["workers"]) + (i - 0.5) * 6:.1f}" y2="{py(r["max"]):.1f}" '
                       f'stroke="{colour}" stroke-opacity="0.5"/>')
        for x, y in pts:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="4" fill="{colour}"/>')
            out.append(f'<text x="{px(x):.1f}" y="{py(y) - 9:.1f}" text-anchor="middle" '
                       f'fill="{colour}">{y:.0f}</text>')
        out.append(f'<rect x="{w - pad - 120}" y="{pad + i * 20 - 10}" width="12" height="12" '
                   f'fill="{colour}"/><text x="{w - pad - 102}" y="{pad + i * 20}">{store}</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def png_chart(rows: list[dict], path: Path, subtitle: str = "") -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for i, store in enumerate(sorted({r["store"] for r in rows})):
        pts = sorted((r["workers"], r["runs_per_s"], r["min"], r["max"]) for r in rows
                     if r["store"] == store)
        xs = [p[0] * (1 + (i - 0.5) * 0.04) for p in pts]  # side by side, not on top
        ax.errorbar(xs, [p[1] for p in pts], yerr=[[p[1] - p[2] for p in pts],
                                                   [p[3] - p[1] for p in pts]],
                    marker="o", capsize=3, label=f"{store} (median, min-max)")
    ax.set_xscale("log", base=2)
    ax.set_ylim(bottom=0)
    ax.set_title(f"minirt: runs/s against worker processes\n{subtitle}", fontsize=10)
    ax.set_xlabel("worker processes")
    ax.set_ylabel("runs per second")
    ax.set_xticks(sorted({r["workers"] for r in rows}), [str(w) for w in
                                                          sorted({r["workers"] for r in rows})])
    ax.minorticks_off()
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--think-ms", type=int, default=0,
                    help="each step first waits this long, as an agent waits on a model or a "
                         "tool (0: measure the store alone)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--sqlite-workers", type=int, nargs="+", default=None,
                    help="worker counts for SQLite (default: the same as --workers)")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "benchmarks")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    admin = os.environ.get("MINIRT_PG_URL")
    cluster = None
    if admin:
        check_reachable(admin)
    else:
        cluster = start_local_cluster(settings={"max_connections": "200"})
        admin = cluster.url
    import psycopg

    samples: dict[tuple[str, int], list[dict[str, float]]] = {}
    try:
        for rep in range(args.reps):
            for n in sorted(set(args.workers) | set(args.sqlite_workers or args.workers)):
                order = ["postgres", "sqlite"] if rep % 2 == 0 else ["sqlite", "postgres"]
                for kind in order:  # interleaved, so drift in disk latency hits both alike
                    if kind == "postgres" and n in args.workers:
                        samples.setdefault(("postgres", n), []).append(
                            one_postgres(admin, psycopg, rep, n, args.runs, args.steps,
                                         args.think_ms))
                    elif kind == "sqlite" and n in (args.sqlite_workers or args.workers):
                        with tempfile.TemporaryDirectory() as tmp:
                            url = f"sqlite:///{tmp}/runs.sqlite"
                            submit(url, args.runs, args.steps, args.think_ms)
                            samples.setdefault(("sqlite", n), []).append(
                                measure(url, n, args.runs, args.steps))
            print(f"repetition {rep + 1}/{args.reps} done", flush=True)
    finally:
        if cluster is not None:
            cluster.stop()

    rows = []
    for (store, n), ss in sorted(samples.items()):
        rps = [s["runs_per_s"] for s in ss]
        rows.append({"store": store, "workers": n, "runs_per_s": statistics.median(rps),
                     "min": min(rps), "max": max(rps),
                     "commits_per_s": statistics.median(s["commits_per_s"] for s in ss),
                     "disk_fsync_per_s": statistics.median(s["disk_fsync_per_s"] for s in ss),
                     "reps": len(ss)})
    base = {r["store"]: r["runs_per_s"] for r in rows if r["workers"] == min(args.workers)}
    print(f"\n{args.runs} runs x {args.steps} steps ({args.steps + 2} durable commits per run), "
          f"{args.think_ms} ms of waiting per step, median of {args.reps}; "
          f"cpu cores: {os.cpu_count()}")
    print(f"{'store':<9}{'workers':>8}{'runs/s':>10}{'min-max':>16}{'commits/s':>11}"
          f"{'speed-up':>10}{'disk fsync/s':>14}")
    for r in rows:
        print(f"{r['store']:<9}{r['workers']:>8}{r['runs_per_s']:>10.1f}"
              f"{r['min']:>8.1f}-{r['max']:<7.1f}{r['commits_per_s']:>11.0f}"
              f"{r['runs_per_s'] / base[r['store']]:>9.2f}x{r['disk_fsync_per_s']:>14.0f}")
    print("(disk fsync/s: an 8 kB write + fdatasync loop run just before each measurement; "
          "the median of those probes. A shared disk makes every figure vary with it.)")
    stem = args.out / f"pg_scaling_think{args.think_ms}ms"
    with open(f"{stem}.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    title = f"{args.steps} steps per run, {args.think_ms} ms of waiting per step"
    svg_chart(rows, Path(f"{stem}.svg"), title)
    made_png = png_chart(rows, Path(f"{stem}.png"), title)
    print(f"\nwrote {stem}.csv, {stem}.svg"
          + (f", {stem}.png" if made_png else " (no matplotlib: no PNG)"))
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
