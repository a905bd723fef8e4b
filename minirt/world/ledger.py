"""A provider's ledger: its own SQLite file, the authoritative count of the effects it applied.

Each provider (payments, email, booking) owns one file. The ``effects`` table has one row per
effect the provider applied: a charge, a refund, an email sent, a booking, a cancellation.

Invariant: a row is written in the same transaction as everything else the provider keeps about
that request (the saved idempotent response, the changed status of a charge), with
``synchronous=FULL`` in WAL mode; so once a provider has answered, the row survives SIGKILL of
the provider's process, and a request that was not committed left no row at all.

The effect-count oracle reads a ledger only through :class:`minirt.idempotency.EffectLedger`
(``count`` and ``effects``), the same small protocol a learner's own provider can implement.

Not guaranteed: ``effect_id`` values are sequential per file (``ch_000001``), unique within one
ledger only; rows are never deleted, but a row's ``status`` may change (a charge becomes
``refunded``, a booking ``cancelled``).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..canonical import canonical_json
from ..errors import MinirtError
from ..idempotency import EffectLedger
from ..sqlite_wal import enter_wal

__all__ = ["EffectLedger", "Ledger", "LedgerUnreadable"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS effects (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    effect_id   TEXT NOT NULL UNIQUE,
    kind        TEXT NOT NULL,
    effect_key  TEXT,               -- the idempotency key / client reference it was applied under
    params_json TEXT NOT NULL,      -- canonical JSON of the request's parameters
    created_at  REAL NOT NULL,
    status      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS effects_by_key ON effects(effect_key, kind);
"""


class LedgerUnreadable(MinirtError):
    """The ledger's file is not a SQLite database (or cannot be opened). Raised when the ledger
    is opened, before anything is written; not a provider's answer to a request."""

    fields = ("path", "reason")
    template = "cannot open the ledger at {path}: {reason}"


class Ledger:
    """One provider's ledger file. Implements :class:`EffectLedger`.

    Thread-safe (one connection behind a lock); several processes may open the same file (the
    oracle reads it while the provider's server runs).
    """

    def __init__(self, path: str | Path, *, extra_schema: str = "") -> None:
        self.path = str(path)
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                       timeout=10.0)
            self._db.execute("PRAGMA busy_timeout=10000")
            enter_wal(self._db, 10.0)
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA + extra_schema)
        except sqlite3.DatabaseError as exc:
            raise LedgerUnreadable(path=self.path, reason=str(exc)) from None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``): all of it commits, or none of it."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def record_txn(self, db: sqlite3.Connection, *, prefix: str, kind: str,
                   effect_key: str | None, params: Any, at: float, status: str) -> str:
        """Append one effect row inside the caller's transaction; return its ``effect_id``."""
        seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM effects").fetchone()[0]
        effect_id = f"{prefix}_{seq:06d}"
        db.execute("INSERT INTO effects (seq, effect_id, kind, effect_key, params_json,"
                   " created_at, status) VALUES (?,?,?,?,?,?,?)",
                   (seq, effect_id, kind, effect_key, canonical_json(params), at, status))
        return effect_id

    def set_status_txn(self, db: sqlite3.Connection, effect_id: str, status: str) -> None:
        db.execute("UPDATE effects SET status=? WHERE effect_id=?", (status, effect_id))

    # -- the EffectLedger protocol -----------------------------------------------------------

    def count(self, effect_key: str, kind: str | None = None) -> int:
        """How many effects were applied under ``effect_key`` (of ``kind``, if given)."""
        sql, args = "SELECT COUNT(*) FROM effects WHERE effect_key=?", [effect_key]
        if kind is not None:
            sql += " AND kind=?"
            args.append(kind)
        with self._lock:
            return int(self._db.execute(sql, args).fetchone()[0])

    def effects(self, kind: str | None = None) -> list[dict[str, Any]]:
        """Every effect (of ``kind``, if given) in the order applied, as plain dicts with the
        table's columns plus ``params`` (the parsed ``params_json``)."""
        if kind is None:
            return self._rows("", ())
        return self._rows("WHERE kind=?", (kind,))

    def get(self, effect_id: str) -> dict[str, Any] | None:
        """One effect by id, or None."""
        rows = self._rows("WHERE effect_id=?", (effect_id,))
        return rows[0] if rows else None

    def _rows(self, where: str, args: tuple[Any, ...]) -> list[dict[str, Any]]:
        cols = ("effect_id", "kind", "effect_key", "params_json", "created_at", "status")
        with self._lock:
            rows = self._db.execute(f"SELECT {', '.join(cols)} FROM effects {where} ORDER BY seq",
                                    args).fetchall()
        out = []
        for row in rows:
            d = dict(zip(cols, row, strict=True))
            d["params"] = json.loads(d["params_json"])
            out.append(d)
        return out

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            self._db.close()
