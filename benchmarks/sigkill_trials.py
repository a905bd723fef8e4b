"""Real SIGKILL trials: kill worker processes at random moments and count, by the provider's own
ledger, duplicate and lost effects (issue 19: the 300-trial figure).

Each trial makes a fresh SQLite store with two runs of an order workflow: ``charge`` (keyed),
``reserve`` (keyed, refuses its first request per key with a ValueError, so the run goes
through a RetryPolicy's durable backoff), a durable ``ctx.sleep``, then ``ship`` (keyed). The
provider is a separate SQLite ledger that applies an effect once per effect key and counts every
request. Two kinds of trial:

- ``kill``: one worker process runs the runs and is SIGKILLed after a random delay; a resumer
  is killed too, at random, in half of the trials; then a clean resumer finishes;
- ``race``: two resumer processes race on the same file after a first worker was killed, and one
  of them is killed at a random moment; then a clean resumer finishes.

Checked per trial, from the ledger (not from minirt's own journal): every run SUCCEEDED, each
logical effect (run, tool) was applied under exactly one effect key (0 duplicates) and none is
missing (0 losses), and each run's result is what the ledger applied.

Usage: ``python benchmarks/sigkill_trials.py --trials 300 [--seed 1] [--json out.json]``;
``run_trials`` is what tests/test_replay_sigkill.py runs (20 trials, bounded). Progress is one
line per 10 trials on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

RUNS = ("order-1", "order-2")
TOOLS = ("charge", "reserve", "ship")

CHILD = r'''
import json, sqlite3, sys, time
from minirt import Runtime
from minirt.retry import RetryPolicy
from minirt.store import open_store
from minirt.tools import EffectClass, FunctionTool, Lookup

db, ledger, mode = sys.argv[1], sys.argv[2], sys.argv[3]

def provider():
    con = sqlite3.connect(ledger, timeout=30, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    return con

def apply(tool, run_id, key, fail_first=False):
    con = provider()
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute("INSERT INTO requests (tool, run_id, effect_key) VALUES (?,?,?)",
                    (tool, run_id, key))
        n = con.execute("SELECT count(*) FROM requests WHERE effect_key=?", (key,)).fetchone()[0]
        if fail_first and n == 1:
            con.execute("COMMIT")
            raise ValueError(f"{tool}: try again later")
        row = con.execute("SELECT result FROM effects WHERE effect_key=?", (key,)).fetchone()
        if row is None:
            result = json.dumps({"tool": tool, "id": f"{tool}-{key[-8:]}"})
            con.execute("INSERT INTO effects (effect_key, tool, run_id, result) VALUES (?,?,?,?)",
                        (key, tool, run_id, result))
            row = (result,)
        con.execute("COMMIT")
        return json.loads(row[0])
    finally:
        con.close()

def lookup_for(tool):
    def lookup(call):
        con = provider()
        try:
            row = con.execute("SELECT result FROM effects WHERE effect_key=?",
                              (call.effect_key,)).fetchone()
        finally:
            con.close()
        return Lookup(row is not None, None if row is None else json.loads(row[0]))
    return lookup

def make(tool, **kw):
    def fn(order, call):
        return apply(tool, call.run_id, call.effect_key, fail_first=(tool == "reserve"))
    return FunctionTool(fn, name=tool, effect=EffectClass.KEYED, lookup=lookup_for(tool), **kw)

def order(ctx, inp):
    a = ctx.call_tool("charge", order=inp["order"])
    b = ctx.call_tool("reserve", order=inp["order"])
    ctx.sleep(0.05)
    c = ctx.call_tool("ship", order=inp["order"])
    return {"charge": a, "reserve": b, "ship": c}

tools = [make("charge"), make("reserve", retry=RetryPolicy(attempts=4, initial_interval=0.05,
                                                           jitter=0.5)), make("ship")]
rt = Runtime(open_store(db), tools=tools, workflows={"order": order}, lease_for=0.4)
if mode == "start":
    for run_id in RUNS_HERE:
        rt.start("order", {"order": run_id}, run_id=run_id)
print("ready", flush=True)
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    rt.work()
    states = {rt.store.get_run(r).run.state.value for r in RUNS_HERE}
    if states <= {"succeeded", "failed", "cancelled", "uncertain"}:
        break
    time.sleep(0.02)
print("done", flush=True)
'''.replace("RUNS_HERE", repr(RUNS))


@dataclass
class Trial:
    kind: str
    kills: int = 0
    requests: int = 0
    duplicates: int = 0
    losses: int = 0
    mismatches: int = 0
    unfinished: int = 0
    notes: list[str] = field(default_factory=list)


def _spawn(db: Path, ledger: Path, mode: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(db), str(ledger), mode],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _kill_after(proc: subprocess.Popen[bytes], delay: float) -> bool:
    """SIGKILL ``proc`` after ``delay`` seconds of its life past "ready" (False: it ended)."""
    assert proc.stdout is not None
    proc.stdout.readline()  # "ready": imports done, runs started
    end = time.monotonic() + delay
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        time.sleep(0.005)
    if proc.poll() is not None:
        return False
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return True


def _finish(proc: subprocess.Popen[bytes], timeout: float = 90.0) -> str:
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        return "a clean resumer did not finish in time"
    return err.decode(errors="replace")[-400:] if proc.returncode else ""


def _ledger(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("CREATE TABLE requests (tool TEXT, run_id TEXT, effect_key TEXT)")
    con.execute("CREATE TABLE effects (effect_key TEXT PRIMARY KEY, tool TEXT, run_id TEXT,"
                " result TEXT)")
    con.commit()
    con.close()


def check(db: Path, ledger: Path, trial: Trial) -> None:
    """Count duplicates, losses and result mismatches from the provider's ledger."""
    from minirt.store import open_store

    con = sqlite3.connect(ledger)
    trial.requests = con.execute("SELECT count(*) FROM requests").fetchone()[0]
    applied = con.execute("SELECT run_id, tool, effect_key, result FROM effects").fetchall()
    con.close()
    store = open_store(str(db))
    try:
        for run_id in RUNS:
            rec = store.get_run(run_id).run
            if rec.state.value != "succeeded":
                trial.unfinished += 1
                trial.notes.append(f"{run_id} ended {rec.state.value}")
                continue
            result = rec.detail.get("result") or {}
            for tool in TOOLS:
                rows = [r for r in applied if r[0] == run_id and r[1] == tool]
                if not rows:
                    trial.losses += 1
                    trial.notes.append(f"{run_id}: {tool} never applied")
                elif len(rows) > 1:
                    trial.duplicates += len(rows) - 1
                    trial.notes.append(f"{run_id}: {tool} applied under {len(rows)} keys")
                elif json.loads(rows[0][3]) != result.get(tool):
                    trial.mismatches += 1
                    trial.notes.append(f"{run_id}: {tool} result differs from the ledger")
    finally:
        store.close()


def calibrate(workdir: Path) -> float:
    """Seconds a crash-free worker takes from "ready" to its exit on this machine, now."""
    db, ledger = workdir / "runs.sqlite", workdir / "ledger.sqlite"
    _ledger(ledger)
    proc = _spawn(db, ledger, "start")
    assert proc.stdout is not None
    proc.stdout.readline()  # "ready"
    t0 = time.monotonic()
    _finish(proc)
    return time.monotonic() - t0


def one_trial(workdir: Path, kind: str, rng: random.Random, span: float = 0.4) -> Trial:
    """One trial; kill delays are drawn within the first ``span`` seconds of a worker's work
    (capped at 0.4 s for the first worker and 0.6 s for a resumer), so kills land mid-work on a
    fast machine as on a slow one."""
    db, ledger = workdir / "runs.sqlite", workdir / "ledger.sqlite"
    _ledger(ledger)
    trial = Trial(kind)
    first = _spawn(db, ledger, "start")
    trial.kills += _kill_after(first, rng.uniform(0.0, min(0.4, span)))
    if kind == "race":
        a, b = _spawn(db, ledger, "resume"), _spawn(db, ledger, "resume")
        victim, other = (a, b) if rng.random() < 0.5 else (b, a)
        trial.kills += _kill_after(victim, rng.uniform(0.0, min(0.6, span)))
        err = _finish(other)
        if err:
            trial.notes.append(f"racing resumer: {err}")
    elif rng.random() < 0.5:
        second = _spawn(db, ledger, "resume")
        trial.kills += _kill_after(second, rng.uniform(0.0, min(0.6, span)))
    last = _spawn(db, ledger, "resume")
    err = _finish(last)
    if err:
        trial.notes.append(f"clean resumer: {err}")
    check(db, ledger, trial)
    return trial


def run_trials(n: int, *, seed: int = 1, workdir: Path | None = None,
               progress: bool = True) -> dict[str, Any]:
    """``n`` trials (alternating kill and race); totals and the trials with a finding."""
    rng = random.Random(seed)
    trials: list[Trial] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        cal = Path(tmp) / "calibration"
        cal.mkdir()
        span = 0.9 * calibrate(cal)  # kills within the work a crash-free worker does here
        for i in range(n):
            d = Path(tmp) / f"t{i:04d}"
            d.mkdir()
            trials.append(one_trial(d, "race" if i % 2 else "kill", rng, span))
            if progress and (i + 1) % 10 == 0:
                bad = sum(t.duplicates + t.losses + t.mismatches + t.unfinished for t in trials)
                print(f"{i + 1}/{n} trials, {sum(t.kills for t in trials)} kills, "
                      f"{bad} findings, {time.monotonic() - started:.0f} s", flush=True)
    totals = {k: sum(getattr(t, k) for t in trials)
              for k in ("kills", "requests", "duplicates", "losses", "mismatches", "unfinished")}
    return {"trials": n, "seed": seed, "seconds": round(time.monotonic() - started, 1),
            "kill_window_s": round(min(0.4, span), 3),
            "by_kind": {k: sum(1 for t in trials if t.kind == k) for k in ("kill", "race")},
            "killed_trials": sum(1 for t in trials if t.kills), **totals,
            "findings": [asdict(t) for t in trials if t.notes]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    report = run_trials(args.trials, seed=args.seed)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    bad = report["duplicates"] + report["losses"] + report["mismatches"] + report["unfinished"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
