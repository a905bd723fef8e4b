"""The shared store: runs, journals, artifacts and kv in a PostgreSQL database (psycopg 3).

Use it when one machine is not enough: any number of worker processes, on any number of machines,
open the same database URL and claim runs from it. It implements exactly the interface of
:class:`minirt.store.sqlite.SQLiteStore` (the conformance suite runs the same tests on both).

Guarantees (what PostgreSQL gives, and what this file adds):

- A write that returned was committed with ``synchronous_commit=on`` (set on every session): the
  server flushed its WAL to disk before answering, so the write survives a crash of the worker, of
  the server process and, given ``fsync=on`` on the server and a disk that honours it, power loss.
  :meth:`PostgresStore.server_settings` shows what the server really runs with.
- **Fencing.** Every worker write (``append``, fenced ``transition``) first locks the run's row
  (``SELECT ... FOR UPDATE``) and checks the incarnation inside that same transaction. A claim
  changes the incarnation only under the same row lock, so the two are serialised: a write from
  incarnation *k* either commits before incarnation *k+1* is claimed, or sees *k+1* and writes
  nothing (:class:`~minirt.run.StaleIncarnation`). Safety does not depend on clocks.
- **Claiming.** :meth:`claim_next` selects the oldest runnable run with ``FOR UPDATE SKIP LOCKED``:
  concurrent workers never claim the same run at once and never wait on each other's rows.
- Inside :meth:`PostgresStore.transaction`, reading a run (``get_run``, ``kv_get``,
  ``kv_items``) locks its row until the transaction ends, so a look-then-write transaction sees
  no concurrent change to that run, as on SQLite (whose transactions hold its one write lock).
- Every rejected stale write is recorded in ``stale_writes`` (after the rejected transaction was
  rolled back), and every claim in ``incarnations`` with its place in one server-wide sequence
  that also numbers every journal row: :meth:`fencing_audit` lists any journal row that an old
  incarnation wrote after a newer one had claimed the run (it should always be empty).
- Reading a journal verifies its hash chain (:func:`minirt.store.base.verify`; keyed with a
  chain key, :mod:`minirt.store.chainkey`) and its end against the run's recorded head, so a
  changed, removed or reordered row is reported; every claim verifies it too, under the row
  lock and before writing (``claim_next`` skips a run that does not verify). A full disk
  (SQLSTATE 53100) is :class:`~minirt.store.base.StoreFull`, the transaction rolled back.
- :meth:`PostgresStore.prune` deletes finished runs only, with their journals, kv, claim
  history and artifacts.

Does not:

- keep leases honest across machines whose clocks disagree: lease times come from the workers'
  clocks, so a skewed clock can let a run be taken over early or late (a liveness problem: brief
  overlapping execution, as in every lease-based system; fencing still rejects the loser's writes);
- stop a zombie worker from *calling a tool* after its lease was taken: only its journal writes
  are fenced. Tools with provider-side idempotency keys (keyed-idempotent) absorb that; tools
  without them may run twice in that window;
- share a database with other applications' tables named ``runs``, ``events``, ``artifacts``,
  ``kv``: give minirt its own database (or schema, with ``options=-csearch_path=...`` in the URL);
- reconnect by itself: a lost connection raises :class:`StoreUnavailable`; open a new store.

The statements and algorithms are :mod:`minirt.store.sqlcore`'s, shared with SQLite; this file is
the PostgreSQL dialect: ``%s`` placeholders, ``FOR UPDATE`` / ``SKIP LOCKED``, digests as text
(with the previous digest stored beside them), psycopg's connection and savepoints, the schema
version in ``minirt_schema`` (migrated under an advisory lock, in one transaction with the
version's update), the claim history and stale-write records, and the append in **one
statement** (a CTE that moves the head under the fence and inserts the rows: with no kv and no
caller's transaction, it is its own transaction, one round trip).

One :class:`PostgresStore` holds one connection behind a lock and may be shared by threads.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .base import Event, NewEvent, StoreFault, StoreFull, chain, not_storable
from .chainkey import ChainKeys, resolve
from .pg_local import redact
from .sqlcore import Migration, SQLCore, fast_head_update, first_line, pending, split_statements


class StoreUnavailable(StoreFault):
    """The PostgreSQL server cannot be reached, or the connection to it was lost.

    Raised on open and by any call once the connection is broken; nothing is half-written (the
    server rolls back an uncommitted transaction). Not :class:`minirt.store.StoreUnreadable`
    (a SQLite file that is not a database).
    """

    fields = ("url", "reason")
    template = "cannot use the PostgreSQL store at {url}: {reason}"


SCHEMA = """
CREATE SEQUENCE IF NOT EXISTS minirt_write_order;
CREATE TABLE IF NOT EXISTS runs (
    run_id           TEXT PRIMARY KEY,
    workflow         TEXT NOT NULL,
    input_json       TEXT NOT NULL,
    state            TEXT NOT NULL,
    revision         BIGINT NOT NULL,
    incarnation      BIGINT NOT NULL,   -- the fencing token
    worker_id        TEXT,
    lease_expires_at DOUBLE PRECISION,
    detail_json      TEXT NOT NULL DEFAULT '{}',
    last_seq         BIGINT NOT NULL DEFAULT 0,
    last_digest      TEXT NOT NULL,
    created_at       DOUBLE PRECISION NOT NULL,
    updated_at       DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_claimable ON runs (state, lease_expires_at);
CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at, run_id COLLATE "C");
CREATE TABLE IF NOT EXISTS events (
    run_id       TEXT NOT NULL,
    seq          BIGINT NOT NULL,
    kind         TEXT NOT NULL,
    step         BIGINT,
    payload_json TEXT NOT NULL,
    incarnation  BIGINT NOT NULL,
    at           DOUBLE PRECISION NOT NULL,
    prev_digest  TEXT NOT NULL,
    digest       TEXT NOT NULL,
    write_order  BIGINT NOT NULL DEFAULT nextval('minirt_write_order'),  -- for fencing_audit
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS artifacts (
    digest TEXT PRIMARY KEY,
    size   BIGINT NOT NULL,
    data   BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS kv (
    run_id TEXT NOT NULL,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
);
CREATE TABLE IF NOT EXISTS incarnations (
    run_id      TEXT NOT NULL,
    incarnation BIGINT NOT NULL,
    worker_id   TEXT,
    claimed_at  DOUBLE PRECISION NOT NULL,
    claim_order BIGINT NOT NULL DEFAULT nextval('minirt_write_order'),
    PRIMARY KEY (run_id, incarnation)
);
CREATE TABLE IF NOT EXISTS stale_writes (
    id                  BIGSERIAL PRIMARY KEY,
    run_id              TEXT NOT NULL,
    op                  TEXT NOT NULL,
    incarnation         BIGINT,
    current_incarnation BIGINT NOT NULL,
    error               TEXT NOT NULL,
    noted_at            TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS minirt_schema (version INTEGER NOT NULL);
"""

#: The forward migrations, oldest first; ``minirt_schema.version`` is the last one applied.
#: Version 1 is the schema above, unchanged (databases written by earlier code open as they are).
MIGRATIONS: tuple[Migration, ...] = (Migration(1, split_statements(SCHEMA)),)
SCHEMA_VERSION = MIGRATIONS[-1].version
_WRITE_COLS = "run_id, seq, kind, step, payload_json, incarnation, at, prev_digest, digest"
# One event's values in the fused append, typed (a NULL step must still be a bigint).
_ROW_VALUES = ("(%s::text, %s::bigint, %s::text, %s::bigint, %s::text, %s::bigint,"
               " %s::float8, %s::text, %s::text)")
_SCHEMA_LOCK = 0x6D696E6972740001  # pg_advisory_xact_lock key: one schema creator at a time


class PostgresStore(SQLCore):
    """A durable, shared store in one PostgreSQL database (see the module docstring)."""

    PLACEHOLDER = "%s"
    FOR_UPDATE = " FOR UPDATE"
    CLAIM_LOCK = " FOR UPDATE SKIP LOCKED"
    BY_CODEPOINT = ' COLLATE "C"'
    STRPOS = "strpos"
    WRITE_COLS = _WRITE_COLS
    RUN_TABLES = ("incarnations", "stale_writes", "runs")

    def __init__(self, url: str, *, connect_timeout_s: int = 10,
                 idle_in_transaction_timeout_ms: int = 60_000,
                 chain_key: ChainKeys | str | None = None, group_commit: bool = True,
                 group_window_s: float = 0.0, group_max: int = 256) -> None:
        self.url = redact(url)  # Invariant: never holds a password (it goes into messages)
        self._init_core(resolve(chain_key), group_commit=group_commit,
                        group_window_s=group_window_s, group_max=group_max)
        self._rejections: list[tuple[Any, ...]] = []  # stale writes to record after rollback
        try:
            import psycopg
        except ImportError:
            raise StoreUnavailable(url=self.url, reason="the psycopg package is not installed "
                                   "(pip install 'minirt[postgres]')") from None
        self._psycopg = psycopg
        try:
            self._db = psycopg.connect(url, autocommit=True, connect_timeout=connect_timeout_s,
                                       application_name="minirt")
            self._db.execute("SET synchronous_commit TO on")
            # A worker frozen inside a transaction must not hold a run's row lock for ever.
            self._db.execute(f"SET idle_in_transaction_session_timeout TO "
                             f"{int(idle_in_transaction_timeout_ms)}")
            self._migrate()
        except BaseException as exc:
            if hasattr(self, "_db"):
                self._db.close()  # a refused database (newer, unreachable) keeps no connection
            if isinstance(exc, psycopg.Error):
                raise StoreUnavailable(url=self.url, reason=first_line(exc)) from None
            raise

    def _version(self) -> int:
        if not self._db.execute("SELECT to_regclass('minirt_schema') IS NOT NULL").fetchone()[0]:
            return 0
        return int(self._db.execute("SELECT coalesce(max(version), 0) FROM minirt_schema"
                                    ).fetchone()[0])

    def _migrate(self) -> None:
        """Bring the database to :data:`SCHEMA_VERSION`: under an advisory lock (one migrator
        at a time), every pending migration and the version row in one transaction. A database
        at the current version gets no DDL (and takes no table locks)."""
        if self._version() == SCHEMA_VERSION:
            return
        with self._db.transaction():
            self._db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            todo = pending(MIGRATIONS, self._version(), self.url)  # under the lock
            for migration in todo:
                for statement in migration.statements:
                    self._db.execute(statement)
            if todo:
                self._db.execute("DELETE FROM minirt_schema")
                self._db.execute("INSERT INTO minirt_schema (version) VALUES (%s)",
                                 (SCHEMA_VERSION,))

    # -- dialect: transactions ------------------------------------------------------------------

    @contextmanager
    def _outer(self) -> Iterator[Any]:
        self._depth = 1
        try:
            with self._guard(), self._db.transaction():
                yield self._db
        except BaseException:
            self._forget()
            raise
        finally:
            self._depth = 0
            self._flush_rejections()

    @contextmanager
    def _savepoint(self, db: Any) -> Iterator[None]:
        with db.transaction():  # psycopg's nested transaction is a savepoint
            yield

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Turn a lost connection into StoreUnavailable, a full disk into StoreFull; other errors
        pass unchanged."""
        try:
            yield
        except UnicodeEncodeError as exc:  # a lone surrogate in an id or key: nothing sent
            raise not_storable(exc) from None
        except self._psycopg.OperationalError as exc:
            if getattr(exc, "sqlstate", None) == "53100":  # disk_full: nothing was committed
                raise StoreFull(store=self.url, reason=first_line(exc)) from None
            if self._db.broken or self._db.closed:
                raise StoreUnavailable(url=self.url, reason=first_line(exc)) from None
            raise

    def _note_stale(self, run_id: str, op: str, incarnation: int | None, current: int,
                    error: BaseException) -> None:
        self._rejections.append((run_id, op, incarnation, current, type(error).__name__))

    def _flush_rejections(self) -> None:
        """Record rejected stale writes, outside the transaction that was rolled back."""
        if not self._rejections or self._db.closed:
            self._rejections.clear()
            return
        rows, self._rejections = self._rejections, []
        try:
            with self._db.cursor() as cur:
                cur.executemany("INSERT INTO stale_writes (run_id, op, incarnation,"
                                " current_incarnation, error) VALUES (%s,%s,%s,%s,%s)", rows)
        except self._psycopg.Error:
            pass  # the rejection itself stands; only its count is lost (documented)

    def close(self) -> None:
        """Close the connection. Idempotent."""
        with self._lock:
            self._db.close()

    # -- dialect: reads, rows, the fused append -------------------------------------------------

    def _fetch(self, sql: str, args: Sequence[Any], *, one: bool = False) -> Any:
        with self._lock, self._guard():
            cur = self._db.execute(self._sql(sql), args)
            return cur.fetchone() if one else cur.fetchall()

    _query = _fetch

    def _event_params(self, e: Event) -> tuple[Any, ...]:
        return (e.run_id, e.seq, e.kind, e.step, e.payload_json, e.incarnation, e.at,
                e.prev_digest, e.digest)

    def _insert_rows(self, db: Any, rows: Sequence[Event]) -> None:
        with db.cursor() as cur:
            cur.executemany(f"INSERT INTO events ({_WRITE_COLS}) VALUES"
                            " (%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                            [self._event_params(e) for e in rows])

    def _fast_append(self, db: Any, rows: Sequence[Event], head: tuple[int, int, str, Any],
                     lease: float | None, same_lease: float | None) -> bool:
        """The fenced head move and the rows' insert in one statement: a CTE whose UPDATE
        takes the run's row lock and matches only under the fence; the INSERT takes its rows
        from it, so it writes all of them or, the fence failing, none."""
        update, args = fast_head_update(rows, head, lease, same_lease)
        sql = (f"WITH head AS ({self._sql(update)} RETURNING 1)"
               f" INSERT INTO events ({_WRITE_COLS}) SELECT v.* FROM head,"
               f" (VALUES {', '.join([_ROW_VALUES] * len(rows))}) AS v")
        values = [x for e in rows for x in self._event_params(e)]
        return db.execute(sql, (*args, *values)).rowcount == len(rows)

    def _append_alone(self, run_id: str, incarnation: int, events: Sequence[NewEvent],
                      lease_until: float | None, kv: dict[str, str | None] | None
                      ) -> list[Event]:
        """With the head cached and no kv, the fused append runs outside any transaction: one
        statement, its own transaction, committed (``synchronous_commit=on``) when it returns.
        Otherwise (or when the fence does not match) the core's transaction."""
        head = self._heads.get(run_id)
        if head is None or head[0] != incarnation or not events or kv:
            return super()._append_alone(run_id, incarnation, events, lease_until, kv)

        rows = chain(run_id, incarnation, head[1], head[2], events, self.chain_keys)
        lease = self._lease_to_write(head, lease_until)
        same = lease_until if lease is None else None
        try:
            with self._guard():
                ok = self._fast_append(self._db, rows, head, lease, same)
        except BaseException:
            self._forget()
            raise
        if not ok:
            self._heads.pop(run_id, None)
            return super()._append_alone(run_id, incarnation, events, lease_until, kv)
        self._heads[run_id] = (incarnation, rows[-1].seq, rows[-1].digest,
                               head[3] if lease is None else lease)
        return rows

    def _on_claim(self, db: Any, new: Any, at: float) -> None:
        db.execute("INSERT INTO incarnations (run_id, incarnation, worker_id, claimed_at)"
                   " VALUES (%s,%s,%s,%s)", (new.run_id, new.incarnation, new.worker_id, at))

    # -- what only this store offers: fencing evidence ---------------------------------------

    def stale_writes(self, run_id: str | None = None) -> list[dict[str, Any]]:
        """Rejected stale writes, oldest first: run, op, the writer's and the current
        incarnation, and the error raised."""
        sql = ("SELECT run_id, op, incarnation, current_incarnation, error FROM stale_writes"
               + (" WHERE run_id=%s" if run_id else "") + " ORDER BY id")
        rows = self._query(sql, (run_id,) if run_id else ())
        keys = ("run_id", "op", "incarnation", "current_incarnation", "error")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def stale_write_count(self) -> int:
        return int(self._query("SELECT count(*) FROM stale_writes", (), one=True)[0])

    def incarnations(self, run_id: str) -> list[dict[str, Any]]:
        """Every claim of the run: incarnation, worker, claim time, in claim order."""
        rows = self._query("SELECT incarnation, worker_id, claimed_at FROM incarnations"
                           " WHERE run_id=%s ORDER BY incarnation", (run_id,))
        return [{"incarnation": i, "worker_id": w, "claimed_at": t} for i, w, t in rows]

    def fencing_audit(self) -> list[dict[str, Any]]:
        """Journal rows written by an incarnation after a newer incarnation had claimed the run.

        Journal rows and claims draw from one server sequence while holding the run's row lock,
        so this order is the real commit order. A correct store always returns ``[]``.
        """
        rows = self._query(
            "SELECT e.run_id, e.seq, e.incarnation, i.incarnation FROM events e"
            " JOIN incarnations i ON i.run_id = e.run_id AND i.incarnation > e.incarnation"
            " WHERE e.write_order > i.claim_order ORDER BY e.run_id, e.seq", ())
        return [{"run_id": r, "seq": s, "incarnation": k, "newer_incarnation": n}
                for r, s, k, n in rows]

    def server_settings(self) -> dict[str, str]:
        """What the server runs with, for the durability claims: version, fsync,
        synchronous_commit (this session), wal_sync_method."""
        out = {}
        for name in ("server_version", "fsync", "synchronous_commit", "wal_sync_method"):
            out[name] = str(self._query(f"SHOW {name}", (), one=True)[0])
        return out

