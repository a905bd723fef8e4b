"""The default store: one SQLite file, WAL mode, synchronous=FULL.

Guarantees:

- A write that returned has been committed with ``synchronous=FULL``: the WAL was fsynced, so it
  survives SIGKILL of the process and, per SQLite's documentation of FULL, power loss.
- Every worker write is one transaction (``BEGIN IMMEDIATE``) that checks the fencing token, so a
  stale incarnation writes nothing; a run transition and the journal rows recording it commit
  together or not at all.
- Reading a journal verifies the hash chain (see :mod:`minirt.store.base`), keyed when a chain
  key is given (:mod:`minirt.store.chainkey`); so does every claim, inside its transaction and
  before it writes (``claim_next`` skips a run that does not verify and names it in
  :attr:`SQLiteStore.refused`). A file that is not a SQLite database, or a row that was altered,
  raises a named error; a full disk (or ``max_page_count``) raises :class:`StoreFull` with the
  write rolled back.
- :meth:`SQLiteStore.prune` deletes finished runs only, with their journals, kv and artifacts.
- Journals are read in pages (:meth:`SQLiteStore.iter_events`), verified as they stream.
- Appends that several threads make at once share one transaction and one fsync (group commit,
  :mod:`minirt.store.group_commit`); each caller returns only once the commit holding its rows
  is durable, and one append's error writes none of it without touching the others.

Does not: share a file across machines (use :mod:`minirt.store.postgres`), or protect against a
disk that lies about fsync.

The statements and algorithms are :mod:`minirt.store.sqlcore`'s, shared with PostgreSQL; this
file is the SQLite dialect: the connection and its ``BEGIN IMMEDIATE`` transactions, savepoints,
digests as 32 raw bytes, ``PRAGMA data_version`` as the "nobody else wrote" token, and the schema
version in ``PRAGMA user_version``, set in the same transaction as the migrations it records.

One :class:`SQLiteStore` may be used from several threads (one connection behind a lock);
several processes may open the same file (SQLite's own locking plus ``busy_timeout``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..sqlite_wal import enter_wal
from .base import ChainVerifier, Event, NewEvent, StoreFault, StoreFull, chain, not_storable
from .chainkey import ChainKeys, resolve
from .sqlcore import Migration, SQLCore, pending, split_statements


class StoreUnreadable(StoreFault):
    """The store's file is not a database we can read (corrupted, truncated, or something else)."""

    fields = ("path", "reason")
    template = "cannot read the store at {path}: {reason}"


SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id           TEXT PRIMARY KEY,
    workflow         TEXT NOT NULL,
    input_json       TEXT NOT NULL,
    state            TEXT NOT NULL,
    revision         INTEGER NOT NULL,
    incarnation      INTEGER NOT NULL,   -- the fencing token
    worker_id        TEXT,
    lease_expires_at REAL,
    detail_json      TEXT NOT NULL DEFAULT '{}',
    last_seq         INTEGER NOT NULL DEFAULT 0,
    last_digest      TEXT NOT NULL,
    created_at       REAL NOT NULL,
    updated_at       REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_claimable ON runs(state, lease_expires_at);
CREATE TABLE IF NOT EXISTS events (
    run_id       TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    kind         TEXT NOT NULL,
    step         INTEGER,
    payload_json TEXT NOT NULL,
    incarnation  INTEGER NOT NULL,
    at           REAL NOT NULL,
    -- the 32 raw bytes of the sha256 chain digest; the previous event's digest is the previous
    -- row's, so it is not stored twice (see read())
    digest       BLOB NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS artifacts (
    digest TEXT PRIMARY KEY,
    size   INTEGER NOT NULL,
    data   BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS kv (
    run_id TEXT NOT NULL,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
"""

#: The forward migrations, oldest first; ``PRAGMA user_version`` is the last one applied.
#: Version 2 is the layout every file written since the digest became 32 raw bytes has (the
#: schema above, unchanged, so those files open as they are). Versions 1 and older are not read.
MIGRATIONS: tuple[Migration, ...] = (Migration(2, split_statements(SCHEMA)),)
SCHEMA_VERSION = MIGRATIONS[-1].version  # PRAGMA user_version of a file this code wrote


class SQLiteStore(SQLCore):
    """A durable store in one SQLite file. ``path=":memory:"`` gives a non-durable one for demos."""

    def __init__(self, path: str | Path, *, synchronous: str = "FULL",
                 busy_timeout_ms: int = 10_000, chain_key: ChainKeys | str | None = None,
                 group_commit: bool = True, group_window_s: float = 0.0,
                 group_max: int = 256) -> None:
        self.path = str(path)
        #: The cursor the cached-head append runs its statements on (under the lock).
        self._append_cursor: sqlite3.Cursor | None = None
        self._init_core(resolve(chain_key), group_commit=group_commit,
                        group_window_s=group_window_s, group_max=group_max)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None,
                                       check_same_thread=False, timeout=busy_timeout_ms / 1000)
            self._db.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            enter_wal(self._db, busy_timeout_ms / 1000)
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._migrate()
        except BaseException as exc:
            if hasattr(self, "_db"):
                self._db.close()  # a refused file (newer, unreadable) keeps no connection open
            if isinstance(exc, sqlite3.DatabaseError):
                raise _store_error(self.path, exc) from None
            raise

    def _migrate(self) -> None:
        """Bring the file to :data:`SCHEMA_VERSION`: every pending migration and the new
        ``user_version`` in one ``BEGIN IMMEDIATE`` transaction (a crash leaves the file as it
        was; two processes opening a new file at once migrate it once). A file at the current
        version is not written at all."""
        db = self._db
        if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            found = db.execute("PRAGMA user_version").fetchone()[0]  # under the write lock
            if 0 < found < MIGRATIONS[0].version:
                raise StoreUnreadable(path=self.path, reason=f"schema version {found}, this "
                                      f"minirt reads versions {MIGRATIONS[0].version} to "
                                      f"{SCHEMA_VERSION}")
            todo = pending(MIGRATIONS, found, self.path)
            for migration in todo:
                for statement in migration.statements:
                    db.execute(statement)
            if todo:
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- dialect: transactions ------------------------------------------------------------------

    def _outer(self) -> _Immediate:
        return _Immediate(self)

    @contextmanager
    def _savepoint(self, db: sqlite3.Connection) -> Iterator[None]:
        db.execute("SAVEPOINT minirt_append")
        try:
            yield
        except BaseException:
            db.execute("ROLLBACK TO minirt_append")
            db.execute("RELEASE minirt_append")
            raise
        db.execute("RELEASE minirt_append")

    def _append_alone(self, run_id: str, incarnation: int, events: Sequence[NewEvent],
                      lease_until: float | None, kv: dict[str, str | None] | None
                      ) -> list[Event]:
        """With the head cached and no kv: ``BEGIN IMMEDIATE``, the fenced head move and the
        insert, ``COMMIT``, called directly (what :class:`_Immediate` does, without building
        a transaction object per append) through the same :func:`_begin`, :func:`_commit` and
        :func:`_failed`, so the same errors and rollback. Otherwise (or when the fence does not
        match) the core's transaction."""
        head = self._heads.get(run_id)
        if head is None or head[0] != incarnation or not events or kv or self._depth:
            return super()._append_alone(run_id, incarnation, events, lease_until, kv)
        rows = chain(run_id, incarnation, head[1], head[2], events, self.chain_keys)
        lease = self._lease_to_write(head, lease_until)
        same = lease_until if lease is None else None  # renewal skipped: fence on it
        db = self._append_cursor  # one cursor for every such append: none built per statement
        if db is None:
            db = self._append_cursor = self._db.cursor()
        _begin(self, db)
        try:
            ok = self._fast_append(db, rows, head, lease, same)
        except BaseException as exc:
            _failed(self, exc)
            raise
        if not ok:  # someone else moved the run: nothing written; the core's slow path
            self._depth = 0
            try:
                db.execute("ROLLBACK")
            except sqlite3.DatabaseError as err:
                self._abandon()
                raise _store_error(self.path, err) from None
            self._heads.pop(run_id, None)
            return super()._append_alone(run_id, incarnation, events, lease_until, kv)
        _commit(self, db)
        self._heads[run_id] = (incarnation, rows[-1].seq, rows[-1].digest,
                               head[3] if lease is None else lease)
        return rows

    def _abandon(self) -> None:
        """Roll back the open transaction (SQLite may already have done so, e.g. on a full
        disk) and forget the cached journal heads, which may describe rows never committed."""
        self._forget()
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass  # nothing was committed; the connection reports the state on next use

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- dialect: reads, rows, digests ----------------------------------------------------------

    def _fetch(self, sql: str, args: Sequence[Any], *, one: bool = False) -> Any:
        with self._lock:
            try:
                cur = self._db.execute(sql, args)
                return cur.fetchone() if one else cur.fetchall()
            except sqlite3.DatabaseError as exc:
                raise StoreUnreadable(path=self.path, reason=str(exc)) from None
            except UnicodeEncodeError as exc:
                raise not_storable(exc) from None

    def _page(self, db: Any, run_id: str, after: int, limit: int) -> list[Any]:
        try:
            return super()._page(db, run_id, after, limit)
        except sqlite3.DatabaseError as exc:
            raise StoreUnreadable(path=self.path, reason=str(exc)) from None
        except UnicodeEncodeError as exc:
            raise not_storable(exc) from None

    def _insert_rows(self, db: sqlite3.Connection | sqlite3.Cursor, rows: Sequence[Event]) -> None:
        sql = "INSERT INTO events (" + _WRITE_COLS + ") VALUES (?,?,?,?,?,?,?,?)"
        if len(rows) == 1:
            db.execute(sql, self._event_params(rows[0]))
        else:
            db.executemany(sql, [self._event_params(e) for e in rows])

    def _event_params(self, e: Event) -> tuple[Any, ...]:
        # A plain digest is kept as its 32 raw bytes; a keyed one (hmac-sha256:<key id>:<hex>)
        # as text, which keeps its key id (SQLite stores either in the BLOB column). The
        # previous digest is the previous row's, so it is not stored twice.
        d = e.digest
        return (e.run_id, e.seq, e.kind, e.step, e.payload_json, e.incarnation, e.at,
                bytes.fromhex(d[7:]) if d.startswith("sha256:") else d)

    def _verifier(self, run_id: str, head: Sequence[Any] | None) -> ChainVerifier:
        # This module's name for it, looked up at call time (a test counts the rows it hashes).
        return ChainVerifier(run_id, self.chain_keys, head)

    def _data_version(self, db: Any) -> Any:
        # Changes when another connection commits to the file (never for this one's commits).
        return self._db.execute("PRAGMA data_version").fetchone()[0]


class _Immediate:
    """The outermost transaction: ``BEGIN IMMEDIATE`` (the write lock from the start), then
    ``COMMIT``, or on any error a rollback with the error named (full disk, not storable)."""

    __slots__ = ("store",)

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def __enter__(self) -> sqlite3.Connection:
        _begin(self.store, self.store._db)
        return self.store._db

    def __exit__(self, typ: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is None:
            _commit(self.store, self.store._db)
        else:
            _failed(self.store, exc)


def _begin(store: SQLiteStore, db: sqlite3.Connection | sqlite3.Cursor) -> None:
    """``BEGIN IMMEDIATE`` on ``db`` (the write lock from the start), the error named."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.DatabaseError as exc:
        raise _store_error(store.path, exc) from None
    store._depth = 1


def _commit(store: SQLiteStore, db: sqlite3.Connection | sqlite3.Cursor) -> None:
    """``COMMIT``; a failure at commit (e.g. the disk filled up) rolls back and is named."""
    store._depth = 0
    try:
        db.execute("COMMIT")
    except sqlite3.DatabaseError as err:
        store._abandon()
        raise _store_error(store.path, err) from None


def _failed(store: SQLiteStore, exc: BaseException) -> None:
    """Roll back after ``exc`` inside the transaction; raise the named error for a full disk or
    a value SQLite cannot store, else return so the caller re-raises ``exc`` itself."""
    store._depth = 0
    store._abandon()
    if isinstance(exc, sqlite3.DatabaseError) and _is_full(exc):
        raise _store_error(store.path, exc) from None
    if isinstance(exc, UnicodeEncodeError):
        raise not_storable(exc) from None


_WRITE_COLS = "run_id, seq, kind, step, payload_json, incarnation, at, digest"


def _is_full(exc: sqlite3.DatabaseError) -> bool:
    return getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL"


def _store_error(path: str, exc: sqlite3.DatabaseError) -> StoreFault:
    """The named error for a failed SQLite call: full (disk or ``max_page_count``), or not a
    database this code can read."""
    if _is_full(exc):
        return StoreFull(store=path, reason=str(exc))
    return StoreUnreadable(path=path, reason=str(exc))
