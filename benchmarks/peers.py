"""minirt against DBOS, LangGraph and the raw SQLite floor, side by side in one run.

    .venv/bin/python benchmarks/peers.py --rounds 3 --sizes 1000 --resume-sizes 1000 10000
    .venv/bin/python benchmarks/peers.py --rounds 1 --sizes 200 --resume-sizes 200 --no-syncs

Invariant: every figure comes from a measurement made in a fresh child process, and the systems
are interleaved round by round (each round starting one system later, each measurement after an
``os.sync()``), so drift in disk latency hits them all alike; ratios within one run are the
figures to trust, not absolute numbers across runs or machines.

What each system is given (each setting is read back, not assumed):

- every step writes the same ~200-byte JSON payload (``PAYLOAD``) durably;
- minirt, the floor and LangGraph run SQLite in WAL mode with ``synchronous=FULL``; DBOS is
  measured twice: as it ships (DBOS 3.4 never sets ``journal_mode``: rollback journal) and with its
  database file put in WAL before launch. Each child reports the ``journal_mode`` and
  ``synchronous`` its system's connections really had;
- LangGraph uses ``durability="sync"`` (its default is ``"async"``, which may lose the last
  checkpoints on a crash), and a thread is resumed the documented way, ``invoke(None, cfg)``.

Measured:

- **µs/step**: median gap between consecutive step starts inside one run (for the batched floor:
  the mean, total / N, so that its commits are included); **steps/s**: N / total;
- **resume**: the run is SIGKILLed right after N steps were recorded; a new process is started at
  once, and the time runs from that process's start (interpreter start and imports included) to
  the moment the first unrecorded step begins. Each system recovers the way its user would: minirt
  calls ``rt.resume(run_id)`` and, when the crashed incarnation's lease still holds
  (``LeaseHeld``), waits until it expires and calls it again; DBOS's ``DBOS.launch()`` recovers
  pending workflows through its internal queue, polled every second; LangGraph has no lease. minirt
  is measured with a short lease (1 s) and its default (30 s), both labelled. The resuming child
  also counts the step bodies it executed before that first new step (**redone**: 0 means a real
  resume, N a re-execution);
- **syncs/step**: the child runs under ``strace -f -c`` (fsync, fdatasync, sync_file_range, msync,
  syncfs, all threads) at two sizes; syncs/step = the difference in sync calls / the difference
  in steps, so setup (schema, migrations) cancels out. Needs ``strace`` (apt-get install strace);
  without it the column says so;
- **bytes/step**: database size after a full WAL checkpoint, divided by N.

Not measured: concurrency (see pg_scaling.py), power-loss safety (only process crashes), or any
network store. Peers are optional (``pip install -e '.[bench]'``); a missing one is reported.
"""

from __future__ import annotations

import time

_T_MAIN = time.monotonic()  # the child's interpreter is up; imports start here

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, TypedDict  # noqa: E402

PAYLOAD = {"order_id": "ord_000000", "status": "ok", "items": [1, 2, 3],
           "note": "x" * 120, "amount_cents": 4200, "currency": "EUR"}
HERE = Path(__file__).resolve().parent
SHORT_LEASE = 1.0  # seconds; minirt's default is Runtime(lease_for=30.0) (minirt/runtime.py)
SYNC_CALLS = "fsync,fdatasync,sync_file_range,msync,syncfs"


class GraphState(TypedDict):
    """LangGraph's state for the StateGraph benchmark (module level: LangGraph reads the hints).

    ``last`` is overwritten by each step with the step's payload (no reducer), so each checkpoint
    carries one payload, as every other system writes one per step."""

    i: int
    last: dict


# -- children: each prints one JSON line -----------------------------------------------------------

_T0: list[float] = []  # set right before a resuming child starts its system's recovery
_REDONE = [0]  # step bodies executed by a resuming child before its first new step
_INFO: dict[str, Any] = {}  # settings read back by the child (journal_mode, synchronous, ...)


def _start_recovery_clock() -> None:
    _T0.append(time.monotonic())


def _ran() -> None:
    """Called by every step body: counts re-executions in a resuming child."""
    if _T0:
        _REDONE[0] += 1


def _boundary() -> None:
    """Called when step N+1 (the first unrecorded one) begins. In the killed run it SIGKILLs the
    process (N steps are recorded); in the resuming run it writes its clock readings (monotonic,
    comparable with the parent's) and the redone count, and exits at once."""
    stamp = os.environ.get("BENCH_STAMP")
    if stamp and _T0:
        Path(stamp).write_text(json.dumps({"t_main": _T_MAIN, "t_recover": _T0[0],
                                           "t_first": time.monotonic(), "redone": _REDONE[0],
                                           **_INFO}))
        os._exit(0)
    if os.environ.get("BENCH_KILL"):
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)


def _pragmas(con: Any) -> dict[str, Any]:
    return {"journal_mode": con.execute("PRAGMA journal_mode").fetchone()[0],
            "synchronous": con.execute("PRAGMA synchronous").fetchone()[0]}


def child_floor(mode: str, n: int, db: Path, per_txn: int = 1) -> dict:
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    con.execute("CREATE TABLE IF NOT EXISTS steps (wf TEXT, i INTEGER, out TEXT,"
                " PRIMARY KEY (wf, i))")
    _INFO.update(_pragmas(con))
    if mode == "resume":  # the floor's "resume": read every recorded row back
        _start_recovery_clock()
        rows = con.execute("SELECT i, out FROM steps WHERE wf='w' ORDER BY i").fetchall()
        _ = [json.loads(r[1]) for r in rows]
        _boundary()
        return {"note": "no stamp requested"}
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
    return {"total_s": total, "starts": starts, **_INFO}


def _minirt_runtime(db: Path, kind: str, lease_for: float):
    from minirt import Runtime, SQLiteStore, tool

    starts: list[float] = []

    @tool("keyed-idempotent")
    def lookup_order(i: int) -> dict:
        _ran()
        return PAYLOAD

    def decide() -> dict:
        _ran()
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
                ctx.step("decide", decide)
        return n_steps

    rt = Runtime(SQLiteStore(db, synchronous="FULL"), tools=[lookup_order], workflows={"wf": wf},
                 worker_id=f"bench-{os.getpid()}", lease_for=lease_for)
    return rt, starts


def _minirt_pragmas(rt: Any, con: sqlite3.Connection) -> dict[str, Any]:
    """SQLiteStore sets WAL and the synchronous level it is given on its own connection
    (minirt/store/sqlite.py). WAL persists in the file, so a second connection reads it back
    (https://www.sqlite.org/pragma.html#pragma_journal_mode); synchronous is per connection, read
    through the store's public ``transaction()``, which yields that connection."""
    with rt.store.transaction() as db:
        sync = db.execute("PRAGMA synchronous").fetchone()[0]
    return {"journal_mode": _pragmas(con)["journal_mode"], "synchronous": sync}


def child_minirt(mode: str, kind: str, n: int, db: Path, lease_for: float) -> dict:
    import minirt  # noqa: F401 - imports are not recovery (the peers import before, too)
    from minirt.run import LeaseHeld

    con = sqlite3.connect(db)  # a second connection, to read journal_mode back
    if mode == "resume":
        _start_recovery_clock()
        rt, _ = _minirt_runtime(db, kind, lease_for)
        _INFO.update(_minirt_pragmas(rt, con))
        waited = 0.0
        while True:  # what a user does after a crash: resume; if the lease holds, wait it out
            try:
                rt.resume("bench-run")
                break
            except LeaseHeld as exc:
                pause = max(0.0, exc.lease_expires_at - rt.clock.now()) + 0.001
                waited += pause
                _INFO["lease_waited_s"] = waited
                time.sleep(pause)
        return {"note": "did not reach an unrecorded step"}
    rt, starts = _minirt_runtime(db, kind, lease_for)
    rid = rt.start("wf", n, run_id="bench-run")
    t0 = time.perf_counter()
    rt.run(rid)
    total = time.perf_counter() - t0
    return {"total_s": total, "starts": starts, **_minirt_pragmas(rt, con)}


def child_dbos(mode: str, n: int, db: Path, wal: bool) -> dict:
    import sqlalchemy
    from dbos import DBOS, SetWorkflowID

    if wal:
        # DBOS 3.4 sets only isolation_level, busy_timeout and foreign_keys on its SQLite
        # connections (dbos/_sys_db_sqlite.py, SQLiteSystemDatabase._create_engine), never
        # journal_mode. WAL is a property of the database file that persists across connections
        # (https://www.sqlite.org/pragma.html#pragma_journal_mode), so setting it on the file before
        # DBOS.launch() gives DBOS's own engine WAL without replacing it (the documented
        # alternative, DBOSConfig.system_database_engine, https://docs.dbos.dev/python/reference/
        # configuration, would drop DBOS's IMMEDIATE/busy_timeout connect hook). synchronous is
        # left at the library default, FULL (2) here, as for DBOS's default run.
        pre = sqlite3.connect(db)
        assert pre.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
        pre.close()
    seen: set[tuple[str, int]] = set()

    def read_back(dbapi_con: Any, _record: Any) -> None:  # every connection DBOS's pools open
        cur = dbapi_con.cursor()
        mode_ = cur.execute("PRAGMA journal_mode").fetchone()[0]
        sync_ = cur.execute("PRAGMA synchronous").fetchone()[0]
        cur.close()
        seen.add((mode_, sync_))

    sqlalchemy.event.listen(sqlalchemy.pool.Pool, "connect", read_back)  # public SQLAlchemy API

    starts: list[float] = []
    DBOS(config={"name": "bench", "system_database_url": f"sqlite:///{db}",
                 "run_admin_server": False})

    @DBOS.step()
    def step(i: int) -> dict:
        _ran()
        return PAYLOAD

    @DBOS.workflow()
    def wf(n_steps: int) -> int:
        for i in range(n_steps + 1):
            if i == n_steps:
                _INFO.update(connections=sorted(seen))
                _boundary()
                break
            starts.append(time.perf_counter())
            step(i)
        return n_steps

    if mode == "resume":
        _start_recovery_clock()
        # Recovery of this executor's pending workflows starts in DBOS.launch(): they are
        # re-enqueued on DBOS's internal queue (dbos/_recovery.py), which its queue thread polls
        # every DEFAULT_QUEUE_POLLING_INTERVAL_SEC = 1.0 s (dbos/_queue.py); DBOS 3.4 has no
        # public setting for that queue's interval (only kafka_queue_polling_interval_sec).
        DBOS.launch()
        time.sleep(120)
        return {"note": "recovery did not reach an unrecorded step in 120 s"}
    DBOS.launch()
    t0 = time.perf_counter()
    with SetWorkflowID("bench-run"):
        wf(n)
    total = time.perf_counter() - t0
    DBOS.destroy()
    return {"total_s": total, "starts": starts, "connections": sorted(seen)}


def child_langgraph(mode: str, api: str, n: int, db: Path) -> dict:
    from langgraph.checkpoint.sqlite import SqliteSaver

    starts: list[float] = []
    con = sqlite3.connect(db, check_same_thread=False)
    # SqliteSaver.setup() runs "PRAGMA journal_mode=WAL" itself (langgraph/checkpoint/sqlite/
    # __init__.py) and leaves synchronous at the default; set both here and read them back.
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    saver = SqliteSaver(con)
    _INFO.update(_pragmas(con))
    cfg = {"configurable": {"thread_id": "bench-run"}, "recursion_limit": 10 * n + 100}
    # durability="sync": "changes are persisted synchronously before the next step starts"
    # (langgraph/pregel/main.py, Pregel.stream docstring; the default is "async").
    if api == "graph":
        from langgraph.graph import END, START, StateGraph

        def node(state: GraphState) -> dict:
            i = state["i"]
            if i == n:
                _boundary()
            _ran()
            starts.append(time.perf_counter())
            return {"i": i + 1, "last": PAYLOAD}

        g = StateGraph(GraphState)
        g.add_node("step", node)
        g.add_edge(START, "step")
        g.add_conditional_edges("step", lambda s: END if s["i"] >= n + 1 else "step")
        app = g.compile(checkpointer=saver)
        if mode == "resume":
            _start_recovery_clock()
            app.invoke(None, cfg, durability="sync")  # None: continue the thread's checkpoint
            return {"note": "did not reach an unrecorded step"}
        t0 = time.perf_counter()
        app.invoke({"i": 0, "last": {}}, cfg, durability="sync")
        return {"total_s": time.perf_counter() - t0, "starts": starts[:n], **_INFO}
    from langgraph.func import entrypoint, task

    @task
    def step(i: int) -> dict:
        _ran()
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
        # Resuming a thread is invoke(None, cfg): the entrypoint re-runs and completed tasks
        # return their saved results ("a resumed thread can skip finished work",
        # https://docs.langchain.com/oss/python/langgraph/functional-api-tasks); invoke(n, cfg)
        # would be a new run on the thread that executes every task again.
        wf.invoke(None, cfg, durability="sync")
        return {"note": "did not reach an unrecorded step"}
    t0 = time.perf_counter()
    wf.invoke(n, cfg, durability="sync")
    return {"total_s": time.perf_counter() - t0, "starts": starts, **_INFO}


# name: (label, what one step commits). Rows whose name ends in "_lease30" are resume-only.
SYSTEMS = {
    "floor": ("raw sqlite3, 1 commit per step (the floor)", "1 commit"),
    "floor_batch100": ("raw sqlite3, 100 rows per commit (batched floor; mean incl. commit)",
                       "1 commit per 100 rows"),
    "minirt_tool": ("**minirt tool step**, lease 1 s", "intent commit + result commit"),
    "minirt_tool_lease30": ("minirt tool step, default lease 30 s (resume only)", "as above"),
    "minirt_decision": ("**minirt decision step**, lease 1 s", "1 result commit"),
    "minirt_wave10": ("minirt fan-out, waves of 10 tool calls (per call)",
                      "1 commit per wave of intents + 1 commit per result"),
    "minirt_wave100": ("minirt fan-out, waves of 100 tool calls (per call)",
                       "1 commit per wave of intents + 1 commit per result"),
    "dbos": ("DBOS step, as shipped (rollback journal)", "step output row after it runs"),
    "dbos_wal": ("DBOS step, database file in WAL", "step output row after it runs"),
    "langgraph_sync": ('LangGraph StateGraph + SqliteSaver, durability="sync"',
                       "checkpoint + writes per superstep"),
    "langgraph_func": ('LangGraph functional API (@entrypoint/@task), durability="sync"',
                       "task result writes"),
}
RESUMABLE = {"floor", "minirt_tool", "minirt_tool_lease30", "minirt_decision", "dbos", "dbos_wal",
             "langgraph_sync", "langgraph_func"}


def child_main(argv: list[str]) -> None:
    system, mode, n_text, db_text = argv
    n, db = int(n_text), Path(db_text)
    if system == "floor":
        out = child_floor(mode, n, db)
    elif system == "floor_batch100":
        out = child_floor(mode, n, db, per_txn=100)
    elif system.startswith("minirt_"):
        kind = system.split("_")[1]
        lease = 30.0 if system.endswith("_lease30") else SHORT_LEASE
        out = child_minirt(mode, kind, n, db, lease)
        if kind.startswith("wave"):
            out["per_start"] = int(kind[4:])
    elif system in ("dbos", "dbos_wal"):
        out = child_dbos(mode, n, db, wal=system == "dbos_wal")
    elif system == "langgraph_sync":
        out = child_langgraph(mode, "graph", n, db)
    elif system == "langgraph_func":
        out = child_langgraph(mode, "func", n, db)
    else:
        raise SystemExit(f"unknown system {system!r}; known: {', '.join(SYSTEMS)}")
    print(json.dumps(out))


# -- parent ------------------------------------------------------------------------------------

def _child_cmd(argv: list[str]) -> list[str]:
    return [sys.executable, str(Path(__file__)), "--child", *argv]


def run_child(argv: list[str], env_extra: dict | None = None, timeout: float = 900,
              prefix: list[str] | None = None) -> dict:
    env = dict(os.environ, **(env_extra or {}))
    proc = subprocess.run([*(prefix or []), *_child_cmd(argv)], capture_output=True, text=True,
                          timeout=timeout, env=env)
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


SYNC_NAMES = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}  # PRAGMA synchronous's numbers


def _settings(out: dict) -> str:
    pairs = out["connections"] if "connections" in out else [(out.get("journal_mode"),
                                                               out.get("synchronous"))]
    return ";".join(f"{m}/{SYNC_NAMES.get(s, s)}" for m, s in pairs)


def measure(system: str, n: int, tmp: Path) -> dict:
    db = tmp / f"{system}-{n}.sqlite"
    out = run_child([system, "run", str(n), str(db)])
    if "error" in out:
        return out
    gaps = [b - a for a, b in zip(out["starts"], out["starts"][1:], strict=False)]
    per = out.get("per_start", 1)  # a wave's gap covers ``per`` tool calls
    if system == "floor_batch100":  # the median gap would leave out the 1-in-100 commit
        us = out["total_s"] * 1e6 / n
    else:
        us = statistics.median(gaps) * 1e6 / per if gaps else None
    return {"steps_per_s": n / out["total_s"], "us_per_step": us,
            "bytes_per_step": db_bytes(db) / n, "settings": _settings(out)}


def measure_resume(system: str, n: int, tmp: Path) -> dict:
    db = tmp / f"resume-{system}-{n}.sqlite"
    if system == "floor":
        first = run_child([system, "run", str(n), str(db)])
    else:
        first = run_child([system, "kill", str(n), str(db)], {"BENCH_KILL": "1"})
    if "error" in first:
        return first
    stamp = tmp / f"stamp-{system}-{n}"
    stamp.unlink(missing_ok=True)
    t_spawn = time.monotonic()  # the new process starts right after the crash
    out = run_child([system, "resume", str(n), str(db)], {"BENCH_STAMP": str(stamp)})
    if not stamp.exists():
        return {"error": f"resume never reached step {n + 1}: {out}"}
    s = json.loads(stamp.read_text())
    return {"resume_ms": (s["t_first"] - t_spawn) * 1e3,
            "recovery_ms": (s["t_first"] - s["t_recover"]) * 1e3,
            "startup_ms": (s["t_recover"] - t_spawn) * 1e3,
            "lease_waited_ms": s.get("lease_waited_s", 0.0) * 1e3,
            "redone": s["redone"], "settings": _settings(s)}


def count_syncs(system: str, tmp: Path, sizes: tuple[int, int] = (100, 600)) -> dict:
    """Sync system calls per step: strace -f -c at two sizes, difference / difference."""
    if shutil.which("strace") is None:
        return {"error": "strace not installed (apt-get install -y strace)"}
    calls = []
    for n in sizes:
        db = tmp / f"sync-{system}-{n}.sqlite"
        log = tmp / f"sync-{system}-{n}.strace"
        out = run_child([system, "run", str(n), str(db)],
                        prefix=["strace", "-f", "-qq", "-c", "-e", f"trace={SYNC_CALLS}",
                                "-o", str(log)])
        if "error" in out:
            return out
        total = 0
        for line in log.read_text().splitlines():
            m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$", line)
            if m and m.group(2) != "total":
                total += int(m.group(1))
        calls.append(total)
        for f in tmp.glob(f"sync-{system}-{n}.*"):
            f.unlink()
    return {"syncs_per_step": (calls[1] - calls[0]) / (sizes[1] - sizes[0]), "calls": calls}


def available(system: str) -> bool:
    try:
        if system.startswith("minirt"):
            import minirt  # noqa: F401
        elif system.startswith("dbos"):
            import dbos  # noqa: F401
        elif system.startswith("langgraph"):
            import langgraph.graph  # noqa: F401
            from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: F401
        return True
    except ImportError:
        return False


def versions() -> str:
    parts = [f"Python {platform.python_version()}", f"SQLite {sqlite3.sqlite_version}"]
    for dist in ("dbos", "langgraph", "langgraph-checkpoint-sqlite"):
        try:
            parts.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{dist} not installed")
    return ", ".join(parts)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, {platform.system()} {platform.release()}"


def fmt(values: list[float], digits: int = 0) -> str:
    if not values:
        return "-"
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:,.{digits}f}"
    return f"{med:,.{digits}f} [{min(values):,.{digits}f}-{max(values):,.{digits}f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000])
    ap.add_argument("--resume-sizes", type=int, nargs="*", default=[1000, 10000])
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=list(SYSTEMS))
    ap.add_argument("--no-syncs", action="store_true", help="skip the strace sync count")
    ap.add_argument("--json", type=Path, help="also write all raw figures here")
    ap.add_argument("--from-json", type=Path, help="print the tables of an earlier --json run")
    args = ap.parse_args()
    # a SIGTERM ends the run through SystemExit, so the temporary databases are removed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.from_json:
        saved = json.loads(args.from_json.read_text())
        report(saved["results"], saved["meta"])
        return
    systems = [s for s in args.systems if available(s)]
    meta = {"started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
            "versions": versions(), "rounds": args.rounds, "sizes": args.sizes,
            "resume_sizes": args.resume_sizes,
            "missing": sorted(set(args.systems) - set(systems))}
    results: dict[str, dict] = {s: {} for s in systems}
    with tempfile.TemporaryDirectory() as tmp_text:
        tmp = Path(tmp_text)
        for r in range(args.rounds):
            # each round starts one system later, so no system always follows the same one
            order = systems[r % len(systems):] + systems[:r % len(systems)] if systems else []
            for n in args.sizes:
                for s in order:
                    if s.endswith("_lease30"):
                        continue
                    os.sync()  # start every measurement with no dirty pages left by the last
                    results[s].setdefault(f"run{n}", []).append(measure(s, n, tmp))
                    for f in tmp.glob(f"{s}-{n}.sqlite*"):
                        f.unlink()
                print(f"round {r + 1}/{args.rounds}: runs of {n} done", flush=True)
            for n in args.resume_sizes:
                for s in order:
                    if s not in RESUMABLE:
                        continue
                    os.sync()
                    results[s].setdefault(f"resume{n}", []).append(measure_resume(s, n, tmp))
                    for f in tmp.glob(f"resume-{s}-{n}.sqlite*"):
                        f.unlink()
                print(f"round {r + 1}/{args.rounds}: resumes of {n} done", flush=True)
        if not args.no_syncs:
            for s in systems:
                if not s.endswith("_lease30"):
                    results[s]["syncs"] = [count_syncs(s, tmp)]
            print("sync counts done", flush=True)
    meta["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    report(results, meta)


def _span(values: list[int]) -> str:
    if not values:
        return "–"
    return str(values[0]) if values[0] == values[-1] else f"{values[0]}-{values[-1]}"


def readme_table(results: dict, meta: dict) -> None:
    """The table README.md quotes: medians (µs/step with [min-max]) of one run."""
    n0, rs = meta["sizes"][0], meta["resume_sizes"]
    print(f"\nREADME table ({meta['started']}, {meta['rounds']} rounds, {n0:,} steps; resume"
          f" {' / '.join(f'{n:,}' for n in rs)} recorded steps, from process start):\n")
    print("| system | µs/step | steps/s | syncs/step | resume (ms) | redone on resume |"
          " bytes/step | journal / synchronous |")
    print("|---|--:|--:|--:|--:|--:|--:|---|")
    for s in results:
        def m(key: str, field: str, digits: int = 0, s: str = s) -> str:
            v = _vals(results, s, key, field)
            return f"{statistics.median(v):,.{digits}f}" if v else "–"

        us = fmt(_vals(results, s, f"run{n0}", "us_per_step"))
        resume = " / ".join(m(f"resume{n}", "resume_ms") for n in rs)
        redone = sorted({x["redone"] for n in rs for x in results[s].get(f"resume{n}", [])
                         if "redone" in x})
        settings = sorted({x["settings"] for k in results[s] for x in results[s][k]
                           if "settings" in x})
        print(f"| {SYSTEMS[s][0]} | {us if us != '-' else '–'} | {m(f'run{n0}', 'steps_per_s')} |"
              f" {m('syncs', 'syncs_per_step', 2)} | {resume if redone else '–'} |"
              f" {_span(redone)} |"
              f" {m(f'run{n0}', 'bytes_per_step')} | {', '.join(settings) or '–'} |")
    print()


def _vals(results: dict, s: str, key: str, field: str) -> list[float]:
    return [m[field] for m in results.get(s, {}).get(key, []) if field in m]


def report(results: dict, meta: dict) -> None:
    sizes, resume_sizes = meta["sizes"], meta["resume_sizes"]
    print(f"\n{meta['started']}; {meta['machine']}; {meta['versions']};"
          f" median [min-max] of {meta['rounds']} rounds\n")
    head = (["system"] + [f"µs/step {n}" for n in sizes] + [f"steps/s {n}" for n in sizes]
            + [f"resume {n} (ms)" for n in resume_sizes] + ["redone", "syncs/step",
                                                            "bytes/step", "journal/sync"])
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for s in results:
        row = [SYSTEMS[s][0]]
        row += [fmt(_vals(results, s, f"run{n}", "us_per_step"), 1) for n in sizes]
        row += [fmt(_vals(results, s, f"run{n}", "steps_per_s")) for n in sizes]
        row += [fmt(_vals(results, s, f"resume{n}", "resume_ms")) for n in resume_sizes]
        redone = sorted({m["redone"] for k in results[s] if k.startswith("resume")
                         for m in results[s][k] if "redone" in m})
        row.append("/".join(map(str, redone)) or "-")
        row.append(fmt(_vals(results, s, "syncs", "syncs_per_step"), 2))
        row.append(fmt(_vals(results, s, f"run{sizes[0]}", "bytes_per_step")))
        settings = sorted({m["settings"] for k in results[s] for m in results[s][k]
                           if "settings" in m})
        row.append(", ".join(settings) or "-")
        print("| " + " | ".join(row) + " |")
    print()
    for s in results:
        errs = [m["error"] for k in results[s] for m in results[s][k] if "error" in m]
        if errs:
            print(f"{s}: {len(errs)} failed measurement(s), first: {errs[0][:300]}")
    print("Resume split, median ms (startup = process start + imports; recovery = from the"
          " system's recovery call to the first new step; lease wait is part of recovery):")
    for s in results:
        for n in resume_sizes:
            key = f"resume{n}"
            if _vals(results, s, key, "resume_ms"):
                parts = [f"{f} {statistics.median(_vals(results, s, key, f)):,.0f}"
                         for f in ("resume_ms", "startup_ms", "recovery_ms", "lease_waited_ms")]
                print(f"- {s} {n}: " + ", ".join(parts))
    n0 = sizes[0]

    def med(s: str, key: str, field: str) -> float | None:
        v = _vals(results, s, key, field)
        return statistics.median(v) if v else None

    floor_us = med("floor", f"run{n0}", "us_per_step")
    print(f"Ratios at {n0} steps (median per-step time):")
    for mine, label in (("minirt_tool", "tool step"), ("minirt_decision", "decision step")):
        m = med(mine, f"run{n0}", "us_per_step")
        if m is None:
            continue
        parts = [f"{m / floor_us:.2f}x the floor"] if floor_us else []
        for peer in ("dbos", "dbos_wal", "langgraph_sync", "langgraph_func"):
            p = med(peer, f"run{n0}", "us_per_step")
            if p:
                parts.append(f"{peer} {p / m:.2f}x minirt's time")
        print(f"- minirt {label}: {m:.0f} µs/step: " + ", ".join(parts))
    batch_us = med("floor_batch100", f"run{n0}", "us_per_step")
    for wave in ("minirt_wave10", "minirt_wave100"):
        m = med(wave, f"run{n0}", "us_per_step")
        if m is not None and batch_us and floor_us:
            print(f"- {wave}: {m:.1f} µs per call = {m / batch_us:.1f}x the batched floor, "
                  f"{m / floor_us:.2f}x the single-commit floor")
    readme_table(results, meta)
    if meta["missing"]:
        print("Not measured (not installed: pip install -e '.[bench]'): "
              + ", ".join(meta["missing"]))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        sys.path.insert(0, str(HERE.parent))
        child_main(sys.argv[2:])
    else:
        main()
