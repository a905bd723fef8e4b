"""What SQLite alone costs for one journal append, with minirt's own statements (issue 24's floor).

    .venv/bin/python benchmarks/sqlite_append_floor.py --rounds 5 --half-of 131.9

Issue 24 asks for a tool step without fsync at half of the old main's CPU. A tool step appends
twice (the intent, then the outcome), so its floor is twice what SQLite spends on one append.
This measures that floor with no minirt code on the timed path: the rows' parameters are built
before the clock starts (by minirt's own :func:`~minirt.store.base.chain`, so the digests and
the row sizes are real), and only the ``sqlite3`` calls are timed, on a file in tmpfs
(``/dev/shm``) in WAL mode with ``synchronous=OFF``, as ``benchmarks/cpu_path.py`` runs. Three
ways to write the same row, interleaved round by round:

- ``minirt``: what the store's cached-head path sends today: ``BEGIN IMMEDIATE``, the fenced
  head move (:func:`~minirt.store.sqlcore.fast_head_update`'s own statement), the ``INSERT``,
  ``COMMIT``.
- ``trigger``: ONE statement per append in autocommit: the ``INSERT``, with a ``BEFORE INSERT``
  trigger that fences (incarnation, last seq, not finished) and an ``AFTER INSERT`` trigger
  that moves the head. This is "one statement round trip per append" on SQLite, which has no
  data-modifying CTE. (It would also move the head for a row inserted by hand.)
- ``insert only``: the ``INSERT`` alone in autocommit, no fence and no head: a journal that
  could not tell a stale worker nor a truncated tail. A lower bound, not a design.

Reported: CPU microseconds (``time.process_time``) per append, medians over rounds, and with
``--half-of US`` what a tool step's two appends leave for everything else inside the "half of
US" budget. Not a timed test: the numbers move with the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from minirt.store.base import GENESIS, NewEvent, chain  # noqa: E402
from minirt.store.sqlcore import TERMINAL_VALUES, fast_head_update  # noqa: E402
from minirt.store.sqlite import SCHEMA  # noqa: E402

COLS = "run_id, seq, kind, step, payload_json, incarnation, at, digest"
INSERT = f"INSERT INTO events ({COLS}) VALUES (?,?,?,?,?,?,?,?)"
PAYLOAD = json.dumps({"call_id": "c-000001", "effect_key": "k" * 64, "tool": "fetch",
                      "value": {"order_id": "ord_000001", "status": "ok", "items": [1, 2, 3],
                                "note": "x" * 120}}, separators=(",", ":"), sort_keys=True)
_NOT_DONE = ", ".join(f"'{v}'" for v in TERMINAL_VALUES)
TRIGGERS = f"""
CREATE TRIGGER events_fence BEFORE INSERT ON events BEGIN
  SELECT RAISE(ABORT, 'stale or moved') WHERE NOT EXISTS (
    SELECT 1 FROM runs WHERE run_id=NEW.run_id AND incarnation=NEW.incarnation
      AND last_seq=NEW.seq-1 AND state NOT IN ({_NOT_DONE}));
END;
CREATE TRIGGER events_head AFTER INSERT ON events BEGIN
  UPDATE runs SET last_seq=NEW.seq, last_digest='sha256:'||lower(hex(NEW.digest))
    WHERE run_id=NEW.run_id;
END;
"""


def _rows(n: int) -> list[Any]:
    """``n`` real rows of one run: minirt's chain, digests as the store keeps them."""
    events = [NewEvent("tool_result", i, PAYLOAD, 1_700_000_000.0 + i) for i in range(n)]
    return chain("r", 1, 0, GENESIS, events)


def _db(tmp: str, name: str, triggers: bool) -> sqlite3.Connection:
    db = sqlite3.connect(os.path.join(tmp, name), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=OFF")
    db.executescript(SCHEMA)
    db.execute("INSERT INTO runs (run_id, workflow, input_json, state, revision, incarnation,"
               " worker_id, lease_expires_at, last_seq, last_digest, created_at, updated_at)"
               " VALUES ('r', 'wf', '[]', 'running', 1, 1, 'w', NULL, 0, ?, 0, 0)", (GENESIS,))
    if triggers:
        db.executescript(TRIGGERS)
    return db


def _params(e: Any) -> tuple[Any, ...]:
    return (e.run_id, e.seq, e.kind, e.step, e.payload_json, e.incarnation, e.at,
            bytes.fromhex(e.digest[7:]))


def _minirt(db: sqlite3.Connection, rows: list[Any]) -> float:
    cur = db.cursor()
    heads = [(1, e.seq - 1, e.prev_digest, None) for e in rows]
    updates = [fast_head_update([e], h, None, None) for e, h in zip(rows, heads, strict=True)]
    params = [_params(e) for e in rows]
    t = time.process_time()
    for (sql, args), p in zip(updates, params, strict=True):
        cur.execute("BEGIN IMMEDIATE")
        if cur.execute(sql, args).rowcount != 1:
            raise SystemExit("the fenced head move matched no row")
        cur.execute(INSERT, p)
        cur.execute("COMMIT")
    return time.process_time() - t


def _autocommit(db: sqlite3.Connection, rows: list[Any]) -> float:
    cur = db.cursor()
    params = [_params(e) for e in rows]
    t = time.process_time()
    for p in params:
        cur.execute(INSERT, p)
    return time.process_time() - t


def _check(db: sqlite3.Connection, rows: list[Any], head_moves: bool) -> None:
    n, last = db.execute("SELECT count(*), max(seq) FROM events").fetchone()
    assert n == len(rows) and last == rows[-1].seq, (n, last)
    head = db.execute("SELECT last_seq, last_digest FROM runs").fetchone()
    if head_moves:
        assert head == (rows[-1].seq, rows[-1].digest), head


WAYS = {"minirt": (False, _minirt, True), "trigger": (True, _autocommit, True),
        "insert only": (False, _autocommit, False)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--appends", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--half-of", type=float, help="the old main's CPU per tool step, in µs")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    rows = _rows(args.appends)
    raw: dict[str, list[float]] = {w: [] for w in WAYS}
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        for rnd in range(1, args.rounds + 1):
            order = list(WAYS) if rnd % 2 else list(reversed(WAYS))
            for way in order:
                triggers, run, head_moves = WAYS[way]
                db = _db(tmp, f"{rnd}-{way.replace(' ', '_')}.sqlite", triggers)
                us = 1e6 * run(db, rows) / len(rows)
                _check(db, rows, head_moves)
                db.close()
                raw[way].append(round(us, 2))
                print(f"round {rnd} {way}: {us:.1f} µs CPU per append", flush=True)
    median = {w: round(statistics.median(v), 2) for w, v in raw.items()}
    summary: dict[str, Any] = {
        "median_us_per_append": median,
        "per_tool_step_floor_us": {w: round(2 * v, 1) for w, v in median.items()},
        "appends": args.appends, "rounds": args.rounds, "load_avg": os.getloadavg(),
        "sqlite": sqlite3.sqlite_version, "python": sys.version.split()[0],
        "note": "tmpfs, WAL, synchronous=OFF; only the sqlite3 calls are timed", "raw": raw}
    if args.half_of:
        budget = args.half_of / 2
        summary["half_of_us"] = args.half_of
        summary["left_for_minirt_per_tool_step_us"] = {
            w: round(budget - 2 * v, 1) for w, v in median.items()}
    print(json.dumps({k: v for k, v in summary.items() if k != "raw"}, indent=1))
    if args.out:
        args.out.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
