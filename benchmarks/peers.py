"""minirt against DBOS, LangGraph and the raw SQLite floor, side by side in one run.

    .venv/bin/python benchmarks/peers.py                 # the default table (about 3 minutes)
    .venv/bin/python benchmarks/peers.py --rounds 5 --sizes 1000 10000 --resume-sizes 1000 10000 100000

Every measurement runs in a fresh child process (so no system warms another's caches), and the
systems are interleaved round by round, so drift in disk latency hits them all alike. Every system
writes a ~200-byte JSON payload per step to a SQLite file in WAL mode with synchronous=FULL (the
peers are configured to match; the table says what each really gives).

Per-step time is the median of the gaps between consecutive step starts inside the run; steps/s is
N / total. "Resume" kills the process (SIGKILL) right after N steps were recorded, starts a new
process, and measures from the start of recovery to the moment the first unrecorded step begins.
Bytes/step is the database size after a full checkpoint, divided by N.

Peers are optional (``pip install -e '.[bench]'``); a missing one is reported, not fatal.
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, TypedDict

PAYLOAD = {"order_id": "ord_000000", "status": "ok", "items": [1, 2, 3],
           "note": "x" * 120, "amount_cents": 4200, "currency": "EUR"}
HERE = Path(__file__).resolve().parent


class GraphState(TypedDict):
    """LangGraph's state for the StateGraph benchmark (module level: LangGraph reads the hints)."""

    i: int
    out: Annotated[list, operator.add]


# -- children: each prints one JSON line -----------------------------------------------------------

def _stamp_file() -> Path | None:
    p = os.environ.get("BENCH_STAMP")
    return Path(p) if p else None


_T0: list[float] = []  # set right before a resuming child starts its system's recovery


def _start_recovery_clock() -> None:
    _T0.append(time.perf_counter())


def _boundary() -> None:
    """Called when step N+1 (the first unrecorded one) begins. In the killed run it SIGKILLs the
    process (N steps are recorded); in the resuming run it writes the time elapsed since recovery
    started (process start and imports excluded) and exits at once."""
    stamp = _stamp_file()
    if stamp is not None and _T0:
        stamp.write_text(repr(time.perf_counter() - _T0[0]))
        os._exit(0)
    if os.environ.get("BENCH_KILL"):
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)


def child_floor(mode: str, n: int, db: Path, per_txn: int = 1, sync: str = "FULL") -> dict:
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute(f"PRAGMA synchronous={sync}")
    con.execute("CREATE TABLE IF NOT EXISTS steps (wf TEXT, i INTEGER, out TEXT,"
                " PRIMARY KEY (wf, i))")
    if mode == "resume":
        t0 = time.perf_counter()
        rows = con.execute("SELECT i, out FROM steps WHERE wf='w' ORDER BY i").fetchall()
        _ = [json.loads(r[1]) for r in rows]
        return {"resume_s": time.perf_counter() - t0, "rows": len(rows)}
    starts = []
    text = json.dumps(PAYLOAD)
    t0 = time.perf_counter()
    for i in range(n):
        starts.append(time.perf_counter())
        if i % per_txn == 0:
            con.execute("BEGIN")
        con.execute("INSERT INTO steps VALUES ('w', ?, ?)", (i, text))
        if i % per_txn == per_txn - 1 or i == n - 1:
            con.execute("COMMIT")
    total = time.perf_counter() - t0
    return {"total_s": total, "starts": starts}


def _minirt_runtime(db: Path, kind: str, n: int):
    from minirt import Runtime, SQLiteStore, tool

    starts: list[float] = []

    @tool("keyed-idempotent")
    def lookup_order(i: int) -> dict:
        return PAYLOAD

    def wf(ctx, n_steps):
        if kind.startswith("wave"):
            from minirt.scheduler import Call, parallel

            width = int(kind[4:])
            for start in range(0, n_steps, width):
                starts.append(time.perf_counter())
                parallel(ctx, [Call("lookup_order", {"i": i})
                               for i in range(start, min(start + width, n_steps))],
                         max_in_flight=width)
            return n_steps
        for i in range(n_steps + 1):
            if i == n_steps:  # the first step beyond the recorded ones
                if not ctx.journal.at(ctx.position):
                    _boundary()
                break
            starts.append(time.perf_counter())
            if kind == "tool":
                ctx.call_tool("lookup_order", i=i)
            else:
                ctx.step("decide", lambda: PAYLOAD)
        return n_steps

    rt = Runtime(SQLiteStore(db), tools=[lookup_order], workflows={"wf": wf},
                 worker_id="bench", lease_for=0.0)
    return rt, starts


def child_minirt(mode: str, kind: str, n: int, db: Path) -> dict:
    if mode == "resume":
        import minirt  # noqa: F401 - imports are not recovery (the peers import before, too)

        _start_recovery_clock()
        rt, _ = _minirt_runtime(db, kind, n)
        rt.resume("bench-run")
        return {"resume_s": None, "note": "did not reach an unrecorded step"}
    rt, starts = _minirt_runtime(db, kind, n)
    rid = rt.start("wf", n, run_id="bench-run")
    t0 = time.perf_counter()
    rt.run(rid)
    total = time.perf_counter() - t0
    return {"total_s": total, "starts": starts}


def child_dbos(mode: str, n: int, db: Path) -> dict:
    from dbos import DBOS, SetWorkflowID

    starts: list[float] = []
    DBOS(config={"name": "bench", "system_database_url": f"sqlite:///{db}",
                 "run_admin_server": False})

    @DBOS.step()
    def step(i: int) -> dict:
        return PAYLOAD

    @DBOS.workflow()
    def wf(n_steps: int) -> int:
        for i in range(n_steps + 1):
            if i == n_steps:
                _boundary()
                break
            starts.append(time.perf_counter())
            step(i)
        return n_steps

    if mode == "resume":
        _start_recovery_clock()
        DBOS.launch()  # recovery of pending workflows starts here, in DBOS's own threads
        time.sleep(60)
        return {"resume_s": None, "note": "recovery did not reach an unrecorded step in 60 s"}
    DBOS.launch()
    t0 = time.perf_counter()
    with SetWorkflowID("bench-run"):
        wf(n)
    total = time.perf_counter() - t0
    DBOS.destroy()
    return {"total_s": total, "starts": starts}


def child_langgraph(mode: str, api: str, n: int, db: Path) -> dict:
    from langgraph.checkpoint.sqlite import SqliteSaver

    starts: list[float] = []
    con = sqlite3.connect(db, check_same_thread=False)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    saver = SqliteSaver(con)
    cfg = {"configurable": {"thread_id": "bench-run"}, "recursion_limit": 10 * n + 100}
    if api == "graph":
        from langgraph.graph import END, START, StateGraph

        def node(state: GraphState) -> dict:
            i = state["i"]
            if i == n:
                _boundary()
            starts.append(time.perf_counter())
            return {"i": i + 1, "out": []}

        g = StateGraph(GraphState)
        g.add_node("step", node)
        g.add_edge(START, "step")
        g.add_conditional_edges("step", lambda s: END if s["i"] >= n + 1 else "step")
        app = g.compile(checkpointer=saver)
        if mode == "resume":
            _start_recovery_clock()
            app.invoke(None, cfg, durability="sync")
            return {"resume_s": None}
        t0 = time.perf_counter()
        app.invoke({"i": 0, "out": []}, cfg, durability="sync")
        return {"total_s": time.perf_counter() - t0, "starts": starts[:n]}
    from langgraph.func import entrypoint, task

    @task
    def step(i: int) -> dict:
        return PAYLOAD

    @entrypoint(checkpointer=saver)
    def wf(n_steps: int) -> int:
        for i in range(n_steps + 1):
            if i == n_steps:
                _boundary()
                break
            starts.append(time.perf_counter())
            step(i).result()
        return n_steps

    if mode == "resume":
        _start_recovery_clock()
        wf.invoke(n, cfg)  # the same input and thread: completed tasks are read back
        return {"resume_s": None}
    t0 = time.perf_counter()
    wf.invoke(n, cfg)
    return {"total_s": time.perf_counter() - t0, "starts": starts}


SYSTEMS = {
    # name: (description, durability note)
    "floor": ("raw sqlite3, WAL, synchronous=FULL, 1 txn/step", "one fsync'd commit per step"),
    "floor_batch100": ("raw sqlite3, WAL, FULL, 100 steps/txn", "group commit (not per step)"),
    "minirt_tool": ("minirt tool step (intent + result)", "2 fsync'd commits per step"),
    "minirt_decision": ("minirt decision step (result only)", "1 fsync'd commit per step"),
    "minirt_wave10": ("minirt fan-out, waves of 10 tool calls (per call)",
                      "1 commit per wave of intents + group-committed results"),
    "minirt_wave100": ("minirt fan-out, waves of 100 tool calls (per call)",
                       "1 commit per wave of intents + group-committed results"),
    "dbos": ("DBOS Transact step (SQLite system db)", "1 commit per step after it runs"),
    "langgraph_sync": ('LangGraph StateGraph + SqliteSaver, durability="sync"',
                       "checkpoint per superstep"),
    "langgraph_func": ("LangGraph functional API (@entrypoint/@task)", "task results saved"),
}


def run_child(argv: list[str], env_extra: dict | None = None, timeout: float = 600) -> dict:
    env = dict(os.environ, **(env_extra or {}))
    proc = subprocess.run([sys.executable, str(Path(__file__)), "--child", *argv],
                          capture_output=True, text=True, timeout=timeout, env=env)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode not in (0, -signal.SIGKILL) or (proc.returncode == 0 and not lines):
        return {"error": f"exit {proc.returncode}: {(proc.stderr or proc.stdout)[-400:]}"}
    return json.loads(lines[-1]) if lines else {"killed": True}


def db_bytes(db: Path) -> int:
    try:
        con = sqlite3.connect(db)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
    except sqlite3.DatabaseError:
        pass
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))


def measure(system: str, n: int, tmp: Path) -> dict:
    db = tmp / f"{system}-{n}.sqlite"
    out = run_child([system, "run", str(n), str(db)])
    if "error" in out:
        return out
    gaps = [b - a for a, b in zip(out["starts"], out["starts"][1:], strict=False)]
    per = out.get("per_start", 1)  # a wave's gap covers ``per`` tool calls
    return {"steps_per_s": n / out["total_s"],
            "median_us": statistics.median(gaps) * 1e6 / per if gaps else None,
            "bytes_per_step": db_bytes(db) / n}


def measure_resume(system: str, n: int, tmp: Path) -> dict:
    db = tmp / f"resume-{system}-{n}.sqlite"
    if system == "floor":
        run_child([system, "run", str(n), str(db)])
        out = run_child([system, "resume", str(n), str(db)])
        return {"resume_ms": out["resume_s"] * 1e3} if "resume_s" in out else out
    first = run_child([system, "kill", str(n), str(db)], {"BENCH_KILL": "1"})
    if "error" in first:
        return first
    stamp = tmp / f"stamp-{system}-{n}"
    stamp.unlink(missing_ok=True)
    out = run_child([system, "resume", str(n), str(db)], {"BENCH_STAMP": str(stamp)})
    if not stamp.exists():
        return {"error": f"resume never reached step {n + 1}: {out}"}
    return {"resume_ms": float(stamp.read_text()) * 1e3}


def child_main(argv: list[str]) -> None:
    system, mode, n_text, db_text = argv
    n, db = int(n_text), Path(db_text)
    if mode == "noop":
        _import_only(system)
        print(json.dumps({"noop": True}))
        return
    if system == "floor":
        out = child_floor(mode, n, db)
    elif system == "floor_batch100":
        out = child_floor(mode, n, db, per_txn=100)
    elif system in ("minirt_tool", "minirt_decision", "minirt_wave10", "minirt_wave100"):
        out = child_minirt(mode, system.split("_")[1], n, db)
        if system.startswith("minirt_wave"):
            out["per_start"] = int(system[len("minirt_wave"):])
    elif system == "dbos":
        out = child_dbos(mode, n, db)
    elif system == "langgraph_sync":
        out = child_langgraph(mode, "graph", n, db)
    elif system == "langgraph_func":
        out = child_langgraph(mode, "func", n, db)
    else:
        raise SystemExit(f"unknown system {system}")
    print(json.dumps(out))


def _import_only(system: str) -> None:
    if system.startswith("minirt"):
        import minirt  # noqa: F401
    elif system == "dbos":
        import dbos  # noqa: F401
    elif system.startswith("langgraph"):
        import langgraph.graph  # noqa: F401
        from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: F401


def available(system: str) -> bool:
    try:
        _import_only(system)
        return True
    except ImportError:
        return False


def fmt(values: list[float], digits: int = 0) -> str:
    if not values:
        return "-"
    med = statistics.median(values)
    return f"{med:,.{digits}f} [{min(values):,.{digits}f}-{max(values):,.{digits}f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000])
    ap.add_argument("--resume-sizes", type=int, nargs="*", default=[1000, 10000])
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS))
    ap.add_argument("--json", type=Path, help="also write all raw figures here")
    args = ap.parse_args()
    systems = [s for s in args.systems if available(s)]
    missing = sorted(set(args.systems) - set(systems))
    results: dict[str, dict] = {s: {} for s in systems}
    with tempfile.TemporaryDirectory() as tmp_text:
        tmp = Path(tmp_text)
        for r in range(args.rounds):
            for n in args.sizes:
                for s in systems:
                    m = measure(s, n, tmp)
                    results[s].setdefault(f"run{n}", []).append(m)
                    for f in tmp.glob(f"{s}-{n}.sqlite*"):
                        f.unlink()
            for n in args.resume_sizes:
                for s in systems:
                    if s == "floor_batch100" or s.startswith("minirt_wave"):
                        continue
                    m = measure_resume(s, n, tmp)
                    results[s].setdefault(f"resume{n}", []).append(m)
                    for f in tmp.glob(f"resume-{s}-{n}.sqlite*"):
                        f.unlink()
            print(f"round {r + 1}/{args.rounds} done", flush=True)
    report(results, args, missing)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


def _vals(results: dict, s: str, key: str, field: str) -> list[float]:
    return [m[field] for m in results.get(s, {}).get(key, []) if field in m]


def report(results: dict, args: argparse.Namespace, missing: list[str]) -> None:
    print()
    head = ["system"] + [f"steps/s {n}" for n in args.sizes] + \
        [f"µs/step {n}" for n in args.sizes] + [f"resume {n} (ms)" for n in args.resume_sizes] + \
        ["bytes/step"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for s in results:
        row = [SYSTEMS[s][0]]
        row += [fmt(_vals(results, s, f"run{n}", "steps_per_s")) for n in args.sizes]
        row += [fmt(_vals(results, s, f"run{n}", "median_us"), 1) for n in args.sizes]
        row += [fmt(_vals(results, s, f"resume{n}", "resume_ms"), 1) for n in args.resume_sizes]
        row += [fmt(_vals(results, s, f"run{args.sizes[0]}", "bytes_per_step"))]
        print("| " + " | ".join(row) + " |")
        errs = [m["error"] for k in results[s] for m in results[s][k] if "error" in m]
        if errs:
            print(f"|   {s}: {len(errs)} failed measurement(s), first: {errs[0][:200]} |")
    print()
    n0 = args.sizes[0]

    def med(s: str, key: str, field: str) -> float | None:
        v = _vals(results, s, key, field)
        return statistics.median(v) if v else None

    floor_us = med("floor", f"run{n0}", "median_us")
    print(f"Ratios at {n0} steps (median per-step time; lower is better for minirt):")
    for mine, label in (("minirt_tool", "tool step"), ("minirt_decision", "decision step")):
        m = med(mine, f"run{n0}", "median_us")
        if m is None:
            continue
        parts = []
        if floor_us:
            parts.append(f"{m / floor_us:.2f}x the floor")
        for peer in ("dbos", "langgraph_sync", "langgraph_func"):
            p = med(peer, f"run{n0}", "median_us")
            if p:
                parts.append(f"{p / m:.1f}x faster than {peer}")
        print(f"- minirt {label}: {m:.0f} µs/step: " + ", ".join(parts))
    batch_us = med("floor_batch100", f"run{n0}", "median_us")
    for wave in ("minirt_wave10", "minirt_wave100"):
        m = med(wave, f"run{n0}", "median_us")
        if m is not None and batch_us:
            print(f"- {wave}: {m:.1f} µs per call = {m / batch_us:.1f}x the batched floor "
                  f"(100 rows per commit), {m / floor_us:.2f}x the single-commit floor")
    for n in args.resume_sizes:
        f = med("floor", f"resume{n}", "resume_ms")
        m = med("minirt_tool", f"resume{n}", "resume_ms")
        if f and m:
            extra = ""
            d = med("dbos", f"resume{n}", "resume_ms")
            if d:
                extra = f", {d / m:.0f}x faster than DBOS"
            print(f"- resume {n}: minirt {m:.0f} ms = {m / f:.1f}x the floor's read-back{extra}")
    if missing:
        print(f"Not measured (not installed: pip install -e '.[bench]'): {', '.join(missing)}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        sys.path.insert(0, str(HERE.parent))
        child_main(sys.argv[2:])
    else:
        main()
