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

One :class:`PostgresStore` holds one connection behind a lock and may be shared by threads.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..canonical import digest_bytes
from ..errors import MinirtError
from ..run import (
    FENCED_EVENTS,
    TERMINAL,
    DuplicateRun,
    RevisionConflict,
    Run,
    RunEvent,
    RunIsTerminal,
    RunNotFound,
    RunState,
    StaleIncarnation,
    apply,
    check_run_event,
)
from .base import (
    GENESIS,
    PAGE_SIZE,
    ArtifactMissing,
    ChainVerifier,
    Event,
    JournalCorrupted,
    NewEvent,
    NotStorable,
    PruneReport,
    RunRecord,
    StoreArgumentInvalid,
    StoreFault,
    StoreFull,
    artifact_refs,
    chain,
    check_event_kinds,
    check_prune_age,
    index_from,
    not_storable,
    verify_origin,
)
from .chainkey import ChainKeys, ChainKeyUnknown, resolve
from .group_commit import AppendRequest, GroupCommit
from .pg_local import redact


class StoreUnavailable(StoreFault):
    """The PostgreSQL server cannot be reached, or the connection to it was lost.

    Raised on open and by any call once the connection is broken; nothing is half-written (the
    server rolls back an uncommitted transaction). Not :class:`minirt.store.StoreUnreadable`
    (a SQLite file that is not a database).
    """

    fields = ("url", "reason")
    template = "cannot use the PostgreSQL store at {url}: {reason}"


SCHEMA_VERSION = 1
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

_RUN_COLS = ("run_id, workflow, input_json, state, revision, incarnation, worker_id, "
             "lease_expires_at, detail_json, created_at")
_EVENT_COLS = "run_id, seq, kind, step, payload_json, incarnation, at, prev_digest, digest"
_SCHEMA_LOCK = 0x6D696E6972740001  # pg_advisory_xact_lock key: one schema creator at a time


class PostgresStore:
    """A durable, shared store in one PostgreSQL database (see the module docstring)."""

    def __init__(self, url: str, *, connect_timeout_s: int = 10,
                 idle_in_transaction_timeout_ms: int = 60_000,
                 chain_key: ChainKeys | str | None = None, group_commit: bool = True,
                 group_window_s: float = 0.0, group_max: int = 256) -> None:
        self.url = redact(url)  # Invariant: never holds a password (it goes into messages)
        #: The keyed chain's keys (:mod:`.chainkey`), or None for the plain sha256 chain.
        self.chain_keys = resolve(chain_key)
        #: Runs that :meth:`claim_next` skipped because their journal did not verify.
        self.refused: dict[str, MinirtError] = {}
        self._lock = threading.RLock()
        self._depth = 0  # Invariant: >0 exactly while a transaction is open on self._db
        self._rejections: list[tuple[Any, ...]] = []  # stale writes to record after rollback
        #: Appends of concurrent threads committed together (None: one transaction each).
        self._group = (GroupCommit(self._commit_batch, window_s=group_window_s,
                                   max_batch=group_max) if group_commit else None)
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
            self._ensure_schema()
        except psycopg.Error as exc:
            raise StoreUnavailable(url=self.url, reason=_first_line(exc)) from None

    def _ensure_schema(self) -> None:
        row = self._db.execute("SELECT to_regclass('minirt_schema') IS NOT NULL").fetchone()
        if row[0] and self._db.execute("SELECT max(version) FROM minirt_schema"
                                       ).fetchone()[0] == SCHEMA_VERSION:
            return  # no DDL (and no table locks) when the schema is already there
        with self._db.transaction():
            self._db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            self._db.execute(SCHEMA)
            if self._db.execute("SELECT count(*) FROM minirt_schema").fetchone()[0] == 0:
                self._db.execute("INSERT INTO minirt_schema (version) VALUES (%s)",
                                 (SCHEMA_VERSION,))

    # -- transactions -------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """One write transaction; nested calls join the outer one (all commit or none).

        Yields the psycopg connection (``db.execute(sql)`` works on it as on sqlite3's).
        """
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._db
                finally:
                    self._depth -= 1
                return
            self._depth = 1
            try:
                with self._guard(), self._db.transaction():
                    yield self._db
            finally:
                self._depth = 0
                self._flush_rejections()

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
                raise StoreFull(store=self.url, reason=_first_line(exc)) from None
            if self._db.broken or self._db.closed:
                raise StoreUnavailable(url=self.url, reason=_first_line(exc)) from None
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

    # -- runs ---------------------------------------------------------------------------------

    def create_run(self, run_id: str, workflow: str, input_json: str, at: float,
                   events: Sequence[NewEvent] = ()) -> RunRecord:
        check_event_kinds(events)  # before anything is written
        with self.transaction() as db:
            cur = db.execute(
                "INSERT INTO runs (run_id, workflow, input_json, state, revision, incarnation,"
                " detail_json, last_seq, last_digest, created_at, updated_at)"
                " VALUES (%s,%s,%s,%s,0,0,'{}',0,%s,%s,%s) ON CONFLICT (run_id) DO NOTHING",
                (run_id, workflow, input_json, RunState.PENDING.value, GENESIS, at, at))
            if cur.rowcount != 1:
                raise DuplicateRun(run_id=run_id)
            if events:
                self._append_txn(db, run_id, 0, 0, GENESIS, events)
        return RunRecord(Run(run_id), workflow, input_json, at)

    def get_run(self, run_id: str) -> RunRecord:
        """The run. Inside :meth:`transaction` the run's row stays locked until the end of it."""
        try:
            row = self._query(f"SELECT {_RUN_COLS} FROM runs WHERE run_id=%s" + self._held(),
                              (run_id,), one=True)
        except NotStorable:  # a lone surrogate: no stored run can have this id
            raise RunNotFound(run_id=ascii(run_id)) from None
        if row is None:
            raise RunNotFound(run_id=run_id)
        return _record(row)

    def list_runs(self, states: Sequence[str] | None = None) -> list[RunRecord]:
        sql = f"SELECT {_RUN_COLS} FROM runs"
        args: tuple[Any, ...] = ()
        if states:
            sql += " WHERE state = ANY(%s)"
            args = ([str(s) for s in states],)
        rows = self._query(sql + ' ORDER BY created_at, run_id COLLATE "C"', args)
        return [_record(r) for r in rows]

    def transition(self, run_id: str, event: RunEvent, *, expected_revision: int | None = None,
                   events: Sequence[NewEvent] = (), kv: dict[str, str | None] | None = None
                   ) -> Run:
        """Apply ``event`` (compare-and-set on the revision) and append ``events``, atomically.

        The run's row is locked first, so a fenced event is checked against the incarnation that
        is current at commit time.
        """
        check_run_event(run_id, event)  # an unknown kind, by name, before the txn
        check_event_kinds(events)  # before anything is written
        with self.transaction() as db:
            row = db.execute(f"SELECT {_RUN_COLS}, last_seq, last_digest FROM runs"
                             " WHERE run_id=%s FOR UPDATE", (run_id,)).fetchone()
            if row is None:
                raise RunNotFound(run_id=run_id)
            current = _record(row[:10]).run
            if expected_revision is not None and current.revision != expected_revision:
                raise RevisionConflict(run_id=run_id, expected=expected_revision,
                                       actual=current.revision)
            try:
                new = apply(current, event)
            except (StaleIncarnation, RunIsTerminal) as exc:
                if event.kind in FENCED_EVENTS and event.incarnation != current.incarnation:
                    self._note_stale(run_id, event.kind, event.incarnation, current.incarnation,
                                     exc)
                raise
            if event.kind == "claim":  # verify before the claim writes anything (a resume)
                self._verify_txn(db, row)
            self._write_run_txn(db, new, current.revision, event.at)
            if event.kind == "claim":
                self._claimed_txn(db, new, event.at)
            if events:
                self._append_txn(db, run_id, new.incarnation, row[10], row[11], events)
            if kv:
                self._kv_txn(db, run_id, kv)
        return new

    def claim_next(self, worker_id: str, at: float, lease_for: float,
                   workflows: Sequence[str] | None = None,
                   events: Sequence[NewEvent] = ()) -> RunRecord | None:
        """Claim the oldest runnable run (pending, or leased with an expired lease), or None.
        ``events`` (the claim's journal record) are appended in the same transaction.

        ``FOR UPDATE SKIP LOCKED``: a run another worker is claiming or writing right now is
        skipped, not waited for.
        """
        check_event_kinds(events)  # before anything is written
        sql = (f"SELECT {_RUN_COLS}, last_seq, last_digest FROM runs WHERE (state=%s OR (state IN (%s,%s,%s)"
               " AND lease_expires_at < %s))")
        args: list[Any] = [RunState.PENDING.value, RunState.RUNNING.value,
                           RunState.UNCERTAIN.value, RunState.CANCELLING.value, at]
        if workflows:
            sql += " AND workflow = ANY(%s)"
            args.append([str(w) for w in workflows])
        order = ' ORDER BY created_at, run_id COLLATE "C" LIMIT 1 FOR UPDATE SKIP LOCKED'
        with self.transaction() as db:
            skipped: list[str] = []
            while True:
                q = sql + (" AND NOT (run_id = ANY(%s))" if skipped else "") + order
                row = db.execute(q, [*args, skipped] if skipped else args).fetchone()
                if row is None:
                    return None
                try:  # verify before the claim writes anything; a corrupted run is skipped
                    self._verify_txn(db, row)
                except (JournalCorrupted, ChainKeyUnknown) as exc:
                    self.refused[row[0]] = exc
                    skipped.append(row[0])
                    continue
                self.refused.pop(row[0], None)
                break
            rec = _record(row[:-2])
            new = apply(rec.run, RunEvent("claim", at=at, worker_id=worker_id,
                                          lease_for=lease_for))
            self._write_run_txn(db, new, rec.run.revision, at)
            self._claimed_txn(db, new, at)
            if events:
                self._append_txn(db, new.run_id, new.incarnation, row[-2], row[-1], events)
        return RunRecord(new, rec.workflow, rec.input_json, rec.created_at)

    def _write_run_txn(self, db: Any, new: Run, expected_revision: int, at: float) -> None:
        cur = db.execute(
            "UPDATE runs SET state=%s, revision=%s, incarnation=%s, worker_id=%s,"
            " lease_expires_at=%s, detail_json=%s, updated_at=%s WHERE run_id=%s AND revision=%s",
            (new.state.value, new.revision, new.incarnation, new.worker_id, new.lease_expires_at,
             json.dumps(new.detail, sort_keys=True), at, new.run_id, expected_revision))
        if cur.rowcount != 1:
            raise RevisionConflict(run_id=new.run_id, expected=expected_revision, actual="?")

    def _claimed_txn(self, db: Any, new: Run, at: float) -> None:
        db.execute("INSERT INTO incarnations (run_id, incarnation, worker_id, claimed_at)"
                   " VALUES (%s,%s,%s,%s)", (new.run_id, new.incarnation, new.worker_id, at))

    # -- journal ------------------------------------------------------------------------------

    def append(self, run_id: str, incarnation: int, events: Sequence[NewEvent], *,
               lease_until: float | None = None, kv: dict[str, str | None] | None = None
               ) -> list[Event]:
        """Append ``events`` to the run's journal if ``incarnation`` is still current (fenced).

        All rows, the lease extension and ``kv`` changes commit in one transaction. With no
        events and a ``lease_until`` this is a fenced heartbeat. With group commit (the
        default), appends that threads make at the same time share one transaction and one
        commit, each in its own savepoint (:mod:`minirt.store.group_commit`); every caller
        returns only after the commit holding its rows. Inside an open :meth:`transaction`
        the append joins it instead.
        """
        check_event_kinds(events)  # before anything is written, or queued
        if self._group is None or self._depth:
            with self.transaction() as db:
                return self._append_body(db, run_id, incarnation, events, lease_until, kv)
        return self._group.submit(AppendRequest(run_id, incarnation, events, lease_until, kv))

    def _commit_batch(self, batch: Sequence[AppendRequest]) -> None:
        """The group commit leader's work: ``batch`` in one transaction, a savepoint each
        (psycopg's nested transaction; none for a batch of one)."""
        try:
            with self.transaction() as db:
                if len(batch) == 1:
                    r = batch[0]
                    r.rows = self._append_body(db, r.run_id, r.incarnation, r.events,
                                               r.lease_until, r.kv)
                    return
                for r in batch:
                    try:
                        with db.transaction():
                            r.rows = self._append_body(db, r.run_id, r.incarnation, r.events,
                                                       r.lease_until, r.kv)
                    except (MinirtError, UnicodeEncodeError) as exc:  # this append only
                        r.rows = None
                        r.error = (not_storable(exc) if isinstance(exc, UnicodeEncodeError)
                                   else exc)
        except Exception as exc:  # the transaction failed as a whole (lost connection, commit)
            for r in batch:
                r.rows = None
                r.error = r.error or exc

    def _append_body(self, db: Any, run_id: str, incarnation: int, events: Sequence[NewEvent],
                     lease_until: float | None, kv: dict[str, str | None] | None
                     ) -> list[Event]:
        row = db.execute("SELECT incarnation, state, last_seq, last_digest FROM runs"
                         " WHERE run_id=%s FOR UPDATE", (run_id,)).fetchone()
        if row is None:
            raise RunNotFound(run_id=run_id)
        current, state, last_seq, last_digest = row
        if current != incarnation:
            exc = StaleIncarnation(run_id=run_id, event="append", incarnation=incarnation,
                                   current=current)
            self._note_stale(run_id, "append" if events else "heartbeat", incarnation,
                             current, exc)
            raise exc
        if RunState(state) in TERMINAL:
            raise RunIsTerminal(run_id=run_id, state=state, event="append")
        out = self._append_txn(db, run_id, incarnation, last_seq, last_digest, events)
        if lease_until is not None:
            db.execute("UPDATE runs SET lease_expires_at=%s WHERE run_id=%s",
                       (lease_until, run_id))
        if kv:
            self._kv_txn(db, run_id, kv)
        return out

    def _append_txn(self, db: Any, run_id: str, incarnation: int, last_seq: int,
                    last_digest: str, events: Sequence[NewEvent]) -> list[Event]:
        rows = chain(run_id, incarnation, last_seq, last_digest, events, self.chain_keys)
        if not rows:
            return rows
        with db.cursor() as cur:
            cur.executemany(f"INSERT INTO events ({_EVENT_COLS}) VALUES"
                            " (%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                            [(e.run_id, e.seq, e.kind, e.step, e.payload_json, e.incarnation,
                              e.at, e.prev_digest, e.digest) for e in rows])
        db.execute("UPDATE runs SET last_seq=%s, last_digest=%s WHERE run_id=%s",
                   (rows[-1].seq, rows[-1].digest, run_id))
        return rows

    def read(self, run_id: str, *, after_seq: int = 0) -> list[Event]:
        """The run's journal, chain verified from the first event; ``after_seq`` trims the front.

        The chain alone cannot see a missing or rewritten *last* row (nothing links to it), so the
        rows are also checked against the run's head (``last_seq``/``last_digest``, written in
        the same transaction as every append). The head is read first: a concurrent append can
        only add rows after it. The whole list is built: use :meth:`iter_events` to stream.
        """
        return list(self.iter_events(run_id, after_seq=after_seq))

    def iter_events(self, run_id: str, *, after_seq: int = 0,
                    page_size: int = PAGE_SIZE) -> Iterator[Event]:
        """The run's journal as :meth:`read` checks it, streamed in pages of ``page_size`` rows
        (keyset pagination on ``seq``), the chain verified as it streams; memory is one page.
        A bad row raises :class:`JournalCorrupted` when the stream reaches it (see
        :meth:`minirt.store.sqlite.SQLiteStore.iter_events`)."""
        if page_size < 1:
            raise StoreArgumentInvalid(reason=f"page_size must be at least 1, not {page_size!r}")
        head = self._query("SELECT last_seq, last_digest FROM runs WHERE run_id=%s", (run_id,),
                           one=True)
        checker = ChainVerifier(run_id, self.chain_keys, head)
        last = 0
        while True:
            rows = self._query(f"SELECT {_EVENT_COLS} FROM events WHERE run_id=%s AND seq>%s"
                               " ORDER BY seq LIMIT %s", (run_id, last, page_size))
            for r in rows:
                e = Event(*r)
                checker.check(e)
                if e.seq > after_seq:
                    yield e
            if len(rows) < page_size:
                break
            last = rows[-1][1]
        checker.finish(head)

    def step_index(self, run_id: str) -> Sequence[int] | dict[int, int]:
        """For each recorded step position, the last seq that records it (see
        :meth:`minirt.store.sqlite.SQLiteStore.step_index`); not verified."""
        return index_from(self._query("SELECT step, MAX(seq) FROM events WHERE run_id=%s AND"
                                      " step IS NOT NULL GROUP BY step", (run_id,)))

    def _verify_txn(self, db: Any, row: Sequence[Any]) -> None:
        """Verify the run's whole journal inside the open transaction (before a claim), and the
        run row's workflow and input against the journal's first event (``row``: the run's
        columns, ending with its head ``last_seq, last_digest``). Streams page by page and
        keeps nothing but the first event."""
        run_id = row[0]
        head = (row[-2], row[-1])
        checker = ChainVerifier(run_id, self.chain_keys, head)
        first: list[Event] = []
        last = 0
        while True:
            rows = db.execute(f"SELECT {_EVENT_COLS} FROM events WHERE run_id=%s AND seq>%s"
                              " ORDER BY seq LIMIT %s", (run_id, last, PAGE_SIZE)).fetchall()
            for r in rows:
                e = Event(*r)
                checker.check(e)
                if not first:
                    first.append(e)
            if len(rows) < PAGE_SIZE:
                break
            last = rows[-1][1]
        checker.finish(head)
        verify_origin(run_id, first, row[1], row[2])

    # -- artifacts and kv ---------------------------------------------------------------------

    def put_artifact(self, data: bytes) -> str:
        """Store ``data`` once under its digest (idempotent) and return the digest."""
        d = digest_bytes(data)
        with self.transaction() as db:
            db.execute("INSERT INTO artifacts (digest, size, data) VALUES (%s,%s,%s)"
                       " ON CONFLICT (digest) DO NOTHING", (d, len(data), bytes(data)))
        return d

    def get_artifact(self, digest: str) -> bytes:
        row = self._query("SELECT data FROM artifacts WHERE digest=%s", (digest,), one=True)
        if row is None:
            raise ArtifactMissing(digest=digest)
        data = bytes(row[0])
        if digest_bytes(data) != digest:
            raise ArtifactMissing(digest=digest + " (stored bytes do not match)")
        return data

    def kv_get(self, run_id: str, key: str) -> str | None:
        """One kv value. Inside :meth:`transaction` the run's row stays locked until the end."""
        self._hold_run(run_id)
        row = self._query("SELECT value FROM kv WHERE run_id=%s AND key=%s", (run_id, key),
                          one=True)
        return None if row is None else row[0]

    def kv_items(self, run_id: str) -> dict[str, str]:
        self._hold_run(run_id)
        rows = self._query('SELECT key, value FROM kv WHERE run_id=%s ORDER BY key COLLATE "C"',
                           (run_id,))
        return dict(rows)

    # A read inside transaction() locks the run's row, so "look, then write" in one transaction
    # means what it means on SQLite (whose transactions hold the one write lock from BEGIN):
    # nobody can change the run between the look and the write (Runtime.signal relies on it).

    def _held(self) -> str:
        return " FOR UPDATE" if self._depth else ""

    def _hold_run(self, run_id: str) -> None:
        if self._depth:
            self._query("SELECT 1 FROM runs WHERE run_id=%s FOR UPDATE", (run_id,))

    def set_kv(self, run_id: str, kv: dict[str, str | None]) -> None:
        """Change per-run state outside any worker's fencing (signals from outside the run)."""
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM runs WHERE run_id=%s FOR UPDATE",
                          (run_id,)).fetchone() is None:
                raise RunNotFound(run_id=run_id)
            self._kv_txn(db, run_id, kv)

    def _kv_txn(self, db: Any, run_id: str, kv: dict[str, str | None]) -> None:
        for key, value in kv.items():
            if value is None:
                db.execute("DELETE FROM kv WHERE run_id=%s AND key=%s", (run_id, key))
            else:
                db.execute("INSERT INTO kv (run_id, key, value) VALUES (%s,%s,%s) ON CONFLICT"
                           " (run_id, key) DO UPDATE SET value=excluded.value",
                           (run_id, key, value))

    # -- retention ----------------------------------------------------------------------------

    def prune(self, older_than: float, *, now: float, dry_run: bool = False) -> PruneReport:
        """Delete every *finished* run (succeeded, failed, cancelled) last changed more than
        ``older_than`` seconds before ``now``, with its journal, kv, claim history and stale-write
        records, and every artifact that no remaining run names. A run in any other state is
        never touched (its row is locked and re-checked). One transaction; ``dry_run`` computes
        the same report and rolls back."""
        cutoff = now - check_prune_age(older_than)
        report: PruneReport | None = None
        try:
            with self.transaction() as db:
                ids = [r[0] for r in db.execute(
                    "SELECT run_id FROM runs WHERE state = ANY(%s) AND updated_at < %s"
                    ' ORDER BY updated_at, run_id COLLATE "C" FOR UPDATE',
                    (list(_TERMINAL_VALUES), cutoff)).fetchall()]
                refs: set[str] = set()
                n_events = n_kv = 0
                for run_id in ids:
                    refs |= artifact_refs([r[0] for r in db.execute(
                        "SELECT payload_json FROM events WHERE run_id=%s", (run_id,)).fetchall()])
                    refs |= artifact_refs([r[0] for r in db.execute(
                        "SELECT value FROM kv WHERE run_id=%s", (run_id,)).fetchall()])
                    n_events += db.execute("DELETE FROM events WHERE run_id=%s",
                                           (run_id,)).rowcount
                    n_kv += db.execute("DELETE FROM kv WHERE run_id=%s", (run_id,)).rowcount
                    for table in ("incarnations", "stale_writes", "runs"):
                        db.execute(f"DELETE FROM {table} WHERE run_id=%s", (run_id,))
                n_art = 0
                for d in sorted(refs):  # only blobs nothing left names (shared ones stay)
                    if db.execute("SELECT 1 FROM events WHERE strpos(payload_json, %s) > 0"
                                  " UNION ALL SELECT 1 FROM kv WHERE strpos(value, %s) > 0"
                                  " LIMIT 1", (d, d)).fetchone() is None:
                        n_art += db.execute("DELETE FROM artifacts WHERE digest=%s",
                                            (d,)).rowcount
                report = PruneReport(tuple(ids), n_events, n_kv, n_art, dry_run)
                if dry_run:
                    raise _DryRun
        except _DryRun:
            pass
        assert report is not None
        return report

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

    def _query(self, sql: str, args: Sequence[Any], *, one: bool = False) -> Any:
        with self._lock, self._guard():
            cur = self._db.execute(sql, args)
            return cur.fetchone() if one else cur.fetchall()


_TERMINAL_VALUES = tuple(sorted(state.value for state in TERMINAL))


class _DryRun(Exception):  # noqa: N818 - control flow: roll the prune's transaction back
    pass


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _record(row: Sequence[Any]) -> RunRecord:
    (run_id, workflow, input_json, state, revision, incarnation, worker_id, lease, detail,
     created_at) = row
    run = Run(run_id, RunState(state), int(revision), int(incarnation), worker_id, lease,
              json.loads(detail))
    return RunRecord(run, workflow, input_json, created_at)
