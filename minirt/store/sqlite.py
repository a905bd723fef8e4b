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

One :class:`SQLiteStore` may be used from several threads (one connection behind a lock);
several processes may open the same file (SQLite's own locking plus ``busy_timeout``).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..canonical import digest_bytes
from ..errors import MinirtError
from ..run import (
    TERMINAL,
    DuplicateRun,
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
    StepIndexBuilder,
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
from .group_commit import AppendRequest as _AppendRequest
from .group_commit import GroupCommit


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

_RUN_COLS = ("run_id, workflow, input_json, state, revision, incarnation, worker_id, "
             "lease_expires_at, detail_json, created_at")
_EVENT_COLS = "run_id, seq, kind, step, payload_json, incarnation, at, digest"
SCHEMA_VERSION = 2  # PRAGMA user_version of a file this code wrote


class SQLiteStore:
    """A durable store in one SQLite file. ``path=":memory:"`` gives a non-durable one for demos."""

    def __init__(self, path: str | Path, *, synchronous: str = "FULL",
                 busy_timeout_ms: int = 10_000, chain_key: ChainKeys | str | None = None,
                 group_commit: bool = True, group_window_s: float = 0.0,
                 group_max: int = 256) -> None:
        self.path = str(path)
        #: The keyed chain's keys (:mod:`.chainkey`), or None for the plain sha256 chain.
        self.chain_keys = resolve(chain_key)
        self._lock = threading.RLock()
        self._depth = 0  # Invariant: >0 exactly while a transaction is open on self._db
        # run_id -> (incarnation, last_seq, last_digest) as this process last wrote them. Only a
        # hint: the fast append path re-checks all three in its UPDATE's WHERE clause.
        self._heads: dict[str, tuple[int, int, str]] = {}
        #: Runs that :meth:`claim_next` skipped because their journal did not verify (run id ->
        #: the error). They stay as they are, for an operator (``minirt show`` names the row).
        self.refused: dict[str, MinirtError] = {}
        # run_id -> PRAGMA data_version when a claim here verified the run's whole journal. While
        # it is unchanged no other connection has written, and this store only added rows since
        # (a caller's transaction() clears it): those rows need not be hashed again on read.
        self._verified: dict[str, int] = {}
        # run_id -> (data_version, last seq, step index) of the journal the last claims here
        # verified; used once, by the next step_index, if nothing was written since.
        self._claim_index: dict[str, tuple[int, int, Any]] = {}
        #: Appends of concurrent threads committed together (None: one transaction each).
        self._group = (GroupCommit(self._commit_batch, window_s=group_window_s,
                                   max_batch=group_max) if group_commit else None)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None,
                                       check_same_thread=False, timeout=busy_timeout_ms / 1000)
            self._db.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, SCHEMA_VERSION):
                raise StoreUnreadable(path=self.path, reason=f"schema version {version}, this "
                                      f"minirt reads version {SCHEMA_VERSION}")
            self._db.executescript(SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise _store_error(self.path, exc) from None

    # -- transactions -------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; nested calls join the outer one (all commit or none).

        What a caller does with the connection is not known, so it forgets which journals a
        claim verified (see :meth:`iter_events`): they are hashed again on their next read."""
        with self._lock:
            self._verified.clear()
            with self._txn() as db:
                yield db

    @contextmanager
    def _txn(self) -> Iterator[sqlite3.Connection]:
        """:meth:`transaction` for this class's own writes (which only ever add rows)."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._db
                finally:
                    self._depth -= 1
                return
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as exc:
                raise _store_error(self.path, exc) from None
            self._depth = 1
            try:
                yield self._db
            except BaseException as exc:
                self._depth = 0
                self._abandon()
                if isinstance(exc, sqlite3.DatabaseError) and _is_full(exc):
                    raise _store_error(self.path, exc) from None
                if isinstance(exc, UnicodeEncodeError):
                    raise not_storable(exc) from None
                raise
            else:
                self._depth = 0
                try:
                    self._db.execute("COMMIT")
                except sqlite3.DatabaseError as exc:  # e.g. the disk filled up at commit
                    self._abandon()
                    raise _store_error(self.path, exc) from None

    def _abandon(self) -> None:
        """Roll back the open transaction (SQLite may already have done so, e.g. on a full
        disk) and forget the cached journal heads, which may describe rows never committed."""
        self._heads.clear()
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass  # nothing was committed; the connection reports the state on next use

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- runs ---------------------------------------------------------------------------------

    def create_run(self, run_id: str, workflow: str, input_json: str, at: float,
                   events: Sequence[NewEvent] = ()) -> RunRecord:
        check_event_kinds(events)  # before anything is written
        with self._txn() as db:
            if db.execute("SELECT 1 FROM runs WHERE run_id=?", (run_id,)).fetchone():
                raise DuplicateRun(run_id=run_id)
            db.execute(
                "INSERT INTO runs (run_id, workflow, input_json, state, revision, incarnation,"
                " detail_json, last_seq, last_digest, created_at, updated_at)"
                " VALUES (?,?,?,?,0,0,'{}',0,?,?,?)",
                (run_id, workflow, input_json, RunState.PENDING.value, GENESIS, at, at))
            if events:
                self._append_txn(db, run_id, 0, 0, GENESIS, events)
        return RunRecord(Run(run_id), workflow, input_json, at)

    def get_run(self, run_id: str) -> RunRecord:
        try:
            row = self._query_one(f"SELECT {_RUN_COLS} FROM runs WHERE run_id=?", (run_id,))
        except NotStorable:  # a lone surrogate: no stored run can have this id
            raise RunNotFound(run_id=ascii(run_id)) from None
        if row is None:
            raise RunNotFound(run_id=run_id)
        return _record(row)

    def list_runs(self, states: Sequence[str] | None = None) -> list[RunRecord]:
        sql = f"SELECT {_RUN_COLS} FROM runs"
        args: tuple[Any, ...] = ()
        if states:
            sql += f" WHERE state IN ({','.join('?' * len(states))})"
            args = tuple(states)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY created_at, run_id", args).fetchall()
        return [_record(r) for r in rows]

    def transition(self, run_id: str, event: RunEvent, *, expected_revision: int | None = None,
                   events: Sequence[NewEvent] = (), kv: dict[str, str | None] | None = None
                   ) -> Run:
        """Apply ``event`` (compare-and-set on the revision) and append ``events``, atomically."""
        from ..run import RevisionConflict

        check_run_event(run_id, event)  # an unknown kind, by name, before the txn
        check_event_kinds(events)  # before anything is written
        with self._txn() as db:
            row = db.execute(f"SELECT {_RUN_COLS}, last_seq, last_digest FROM runs"
                             " WHERE run_id=?", (run_id,)).fetchone()
            if row is None:
                raise RunNotFound(run_id=run_id)
            current = _record(row[:10]).run
            if expected_revision is not None and current.revision != expected_revision:
                raise RevisionConflict(run_id=run_id, expected=expected_revision,
                                       actual=current.revision)
            new = self.apply_event(current, event)
            if event.kind == "claim":  # verify before the claim writes anything (a resume)
                self._verify_txn(db, row)
            self._write_run_txn(db, new, current.revision, event.at)
            if events:
                self._append_txn(db, run_id, new.incarnation, row[10], row[11], events)
            if kv:
                self._kv_txn(db, run_id, kv)
        return new

    def apply_event(self, run: Run, event: RunEvent) -> Run:
        """The transition function :meth:`transition` uses: :func:`minirt.run.apply`. A seam
        for the course's drill, which runs a learner's function inside the real transaction."""
        return apply(run, event)

    def claim_next(self, worker_id: str, at: float, lease_for: float,
                   workflows: Sequence[str] | None = None,
                   events: Sequence[NewEvent] = ()) -> RunRecord | None:
        """Claim the oldest runnable run (pending, or leased with an expired lease), or None.
        ``events`` (the claim's journal record) are appended in the same transaction."""
        check_event_kinds(events)  # before anything is written
        sql = (f"SELECT {_RUN_COLS}, last_seq, last_digest FROM runs WHERE (state=? OR (state IN (?,?,?)"
               " AND lease_expires_at < ?))")
        args: list[Any] = [RunState.PENDING.value, RunState.RUNNING.value,
                           RunState.UNCERTAIN.value, RunState.CANCELLING.value, at]
        if workflows:
            sql += f" AND workflow IN ({','.join('?' * len(workflows))})"
            args += list(workflows)
        with self._txn() as db:
            skipped: list[str] = []
            while True:
                q = sql + (f" AND run_id NOT IN ({','.join('?' * len(skipped))})"
                           if skipped else "")
                row = db.execute(q + " ORDER BY created_at, run_id LIMIT 1",
                                 [*args, *skipped]).fetchone()
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
            if events:
                self._append_txn(db, new.run_id, new.incarnation, row[-2], row[-1], events)
        return RunRecord(new, rec.workflow, rec.input_json, rec.created_at)

    def _write_run_txn(self, db: sqlite3.Connection, new: Run, expected_revision: int,
                       at: float) -> None:
        from ..run import RevisionConflict

        cur = db.execute(
            "UPDATE runs SET state=?, revision=?, incarnation=?, worker_id=?, lease_expires_at=?,"
            " detail_json=?, updated_at=? WHERE run_id=? AND revision=?",
            (new.state.value, new.revision, new.incarnation, new.worker_id, new.lease_expires_at,
             json.dumps(new.detail, sort_keys=True), at, new.run_id, expected_revision))
        if cur.rowcount != 1:
            raise RevisionConflict(run_id=new.run_id, expected=expected_revision, actual="?")

    # -- journal ------------------------------------------------------------------------------

    def append(self, run_id: str, incarnation: int, events: Sequence[NewEvent], *,
               lease_until: float | None = None, kv: dict[str, str | None] | None = None
               ) -> list[Event]:
        """Append ``events`` to the run's journal if ``incarnation`` is still current (fenced).

        All rows, the lease extension and ``kv`` changes commit in one transaction. With group
        commit (the default), appends that threads make at the same time share one transaction
        and one fsync (:mod:`minirt.store.group_commit`), each in its own savepoint, so one
        append's error (a stale incarnation) writes none of it and does not touch the others;
        every caller returns only after the commit holding its rows. Inside an open
        :meth:`transaction` the append joins that transaction instead.
        """
        check_event_kinds(events)  # before anything is written, or queued
        group = self._group
        if group is not None and not self._depth:
            # Alone (no commit being led, the connection free): commit at once, as without
            # group commit; a caller arriving meanwhile finds the lock taken and queues.
            if group.busy or not self._lock.acquire(blocking=False):
                return group.submit(_AppendRequest(run_id, incarnation, events, lease_until, kv))
            try:
                with self._txn() as db:
                    return self._append_body(db, run_id, incarnation, events, lease_until, kv)
            finally:
                self._lock.release()
        with self._txn() as db:
            return self._append_body(db, run_id, incarnation, events, lease_until, kv)

    def _commit_batch(self, batch: Sequence[_AppendRequest]) -> None:
        """The group commit leader's work: ``batch`` in one transaction, a savepoint each
        (none for a batch of one: its transaction is its savepoint). Sets each request's
        ``rows`` or ``error``; :mod:`.group_commit` releases the callers afterwards."""
        try:
            with self._txn() as db:
                if len(batch) == 1:
                    r = batch[0]
                    r.rows = self._append_body(db, r.run_id, r.incarnation, r.events,
                                               r.lease_until, r.kv)
                    return
                for r in batch:
                    db.execute("SAVEPOINT minirt_append")
                    try:
                        r.rows = self._append_body(db, r.run_id, r.incarnation, r.events,
                                                   r.lease_until, r.kv)
                    except (MinirtError, UnicodeEncodeError) as exc:  # this append only
                        db.execute("ROLLBACK TO minirt_append")
                        self._heads.pop(r.run_id, None)
                        r.error = (not_storable(exc) if isinstance(exc, UnicodeEncodeError)
                                   else exc)
                    db.execute("RELEASE minirt_append")
        except Exception as exc:  # the transaction failed as a whole (full disk, commit)
            for r in batch:
                r.rows = None
                r.error = r.error or exc

    def _append_body(self, db: sqlite3.Connection, run_id: str, incarnation: int,
                     events: Sequence[NewEvent], lease_until: float | None,
                     kv: dict[str, str | None] | None) -> list[Event]:
        head = self._heads.get(run_id)
        if head is not None and head[0] == incarnation and events:
            # Fast path: one conditional UPDATE both fences (incarnation), checks nobody
            # appended meanwhile (last_seq) and moves the head; then the INSERT.
            rows = chain(run_id, incarnation, head[1], head[2], events, self.chain_keys)
            cur = db.execute(
                "UPDATE runs SET last_seq=?, last_digest=?,"
                " lease_expires_at=COALESCE(?, lease_expires_at)"
                " WHERE run_id=? AND incarnation=? AND last_seq=? AND state NOT IN (?,?,?)",
                (rows[-1].seq, rows[-1].digest, lease_until, run_id, incarnation, head[1],
                 *_TERMINAL_VALUES))
            if cur.rowcount == 1:
                self._insert_txn(db, rows)
                if kv:
                    self._kv_txn(db, run_id, kv)
                self._heads[run_id] = (incarnation, rows[-1].seq, rows[-1].digest)
                return rows
            self._heads.pop(run_id, None)  # someone else moved the run: take the slow path
        row = db.execute("SELECT incarnation, state, last_seq, last_digest FROM runs"
                         " WHERE run_id=?", (run_id,)).fetchone()
        if row is None:
            raise RunNotFound(run_id=run_id)
        current, state, last_seq, last_digest = row
        if current != incarnation:
            raise StaleIncarnation(run_id=run_id, event="append", incarnation=incarnation,
                                   current=current)
        if RunState(state) in TERMINAL:
            raise RunIsTerminal(run_id=run_id, state=state, event="append")
        out = self._append_txn(db, run_id, incarnation, last_seq, last_digest, events)
        if lease_until is not None:
            db.execute("UPDATE runs SET lease_expires_at=? WHERE run_id=?",
                       (lease_until, run_id))
        if kv:
            self._kv_txn(db, run_id, kv)
        return out

    def _append_txn(self, db: sqlite3.Connection, run_id: str, incarnation: int, last_seq: int,
                    last_digest: str, events: Sequence[NewEvent]) -> list[Event]:
        rows = chain(run_id, incarnation, last_seq, last_digest, events, self.chain_keys)
        if not rows:
            return rows
        self._insert_txn(db, rows)
        db.execute("UPDATE runs SET last_seq=?, last_digest=? WHERE run_id=?",
                   (rows[-1].seq, rows[-1].digest, run_id))
        self._heads[run_id] = (incarnation, rows[-1].seq, rows[-1].digest)
        return rows

    @staticmethod
    def _insert_txn(db: sqlite3.Connection, rows: Sequence[Event]) -> None:
        db.executemany(f"INSERT INTO events ({_EVENT_COLS}) VALUES (?,?,?,?,?,?,?,?)",
                       [(e.run_id, e.seq, e.kind, e.step, e.payload_json, e.incarnation, e.at,
                         _digest_blob(e.digest)) for e in rows])

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
        (keyset pagination on ``seq``), the chain verified as it streams.

        Memory is one page, whatever the journal's length. Every row is verified, from seq 1
        even when ``after_seq`` skips the front (seq, link, head; and its content hash unless a
        claim by this store verified the whole journal and, per ``PRAGMA data_version``, no
        other connection has written the file since, nor any caller's :meth:`transaction`); a bad row raises :class:`JournalCorrupted` when
        the stream reaches it (the rows before it were yielded: a caller that must not act on
        a corrupted journal verifies it whole first, as a claim does). The store's lock is held
        while a page is fetched, not between pages, so other threads write meanwhile."""
        if page_size < 1:
            raise StoreArgumentInvalid(reason=f"page_size must be at least 1, not {page_size!r}")
        with self._lock:
            try:
                head = self._db.execute("SELECT last_seq, last_digest FROM runs WHERE run_id=?",
                                        (run_id,)).fetchone()
            except sqlite3.DatabaseError as exc:
                raise StoreUnreadable(path=self.path, reason=str(exc)) from None
            except UnicodeEncodeError as exc:
                raise not_storable(exc) from None
        checker = ChainVerifier(run_id, self.chain_keys, head)
        last = 0
        while True:
            with self._lock:
                rows = self._page(self._db, run_id, last, page_size)
                trusted = (run_id in self._verified and self._verified[run_id]
                           == self._db.execute("PRAGMA data_version").fetchone()[0])
            page = _checked(checker, rows, trusted=trusted)
            if after_seq and page and page[0].seq <= after_seq:
                page = [e for e in page if e.seq > after_seq]
            yield from page
            if len(rows) < page_size:
                break
            last = rows[-1][1]
        checker.finish(head)

    def _page(self, db: sqlite3.Connection, run_id: str, after: int, limit: int) -> list[Any]:
        try:
            return db.execute(f"SELECT {_EVENT_COLS} FROM events WHERE run_id=? AND seq>?"
                              " ORDER BY seq LIMIT ?", (run_id, after, limit)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreUnreadable(path=self.path, reason=str(exc)) from None
        except UnicodeEncodeError as exc:
            raise not_storable(exc) from None

    def step_index(self, run_id: str) -> Sequence[int] | dict[int, int]:
        """For each recorded step position ``p``, the last seq of the run's journal that records
        it (an array indexed by ``p``, 0 where none does; a dict when the positions are
        sparse). What a streamed replay needs to know when it has read everything recorded at
        a position. Right after a claim here, the index its verification built; otherwise read
        from the rows, unverified (the stream that follows verifies them)."""
        with self._lock:
            cached = self._claim_index.pop(run_id, None)
            try:
                if cached is not None and self._verified.get(run_id) == cached[0] \
                        == self._db.execute("PRAGMA data_version").fetchone()[0] \
                        and self._db.execute("SELECT 1 FROM events WHERE run_id=? AND seq>? AND"
                                             " step IS NOT NULL LIMIT 1",
                                             (run_id, cached[1])).fetchone() is None:
                    return cached[2]  # the claim's index, and no position recorded since
                rows = self._db.execute("SELECT step, MAX(seq) FROM events WHERE run_id=? AND"
                                        " step IS NOT NULL GROUP BY step", (run_id,)).fetchall()
            except sqlite3.DatabaseError as exc:
                raise StoreUnreadable(path=self.path, reason=str(exc)) from None
            except UnicodeEncodeError as exc:
                raise not_storable(exc) from None
        return index_from(rows)

    def _verify_txn(self, db: sqlite3.Connection, row: Sequence[Any]) -> None:
        """Verify the run's whole journal inside the open transaction (before a claim), and the
        run row's workflow and input against the journal's first event (``row``: the run's
        columns, ending with its head ``last_seq, last_digest``). Streams page by page, builds
        no events but the first, and keeps the positions' index for the replay that follows
        (:meth:`step_index`)."""
        run_id = row[0]
        head = (row[-2], row[-1])
        checker = ChainVerifier(run_id, self.chain_keys, head)
        check_plain, check = checker.check_plain, checker.check
        steps = StepIndexBuilder()
        first: list[Event] = []
        last = 0
        while True:
            rows = self._page(db, run_id, last, PAGE_SIZE)
            for rid, seq, kind, step, payload_json, incarnation, at, dig in rows:
                prev = checker.prev
                if type(dig) is bytes and len(dig) == 32:
                    check_plain(seq, kind, step, payload_json, incarnation, at, dig)
                else:
                    check(Event(rid, seq, kind, step, payload_json, incarnation, at, prev,
                                _digest_text(dig)))
                if step is not None:
                    steps.add(step, seq)
                if not first:
                    first.append(Event(rid, seq, kind, step, payload_json, incarnation, at,
                                       prev, checker.prev))
            if len(rows) < PAGE_SIZE:
                break
            last = rows[-1][1]
        checker.finish(head)
        verify_origin(run_id, first, row[1], row[2])
        # Inside the write transaction no other connection can commit, so this is the version
        # the file has when ours commits (a connection's own commits do not change it).
        version = db.execute("PRAGMA data_version").fetchone()[0]
        self._verified[run_id] = version
        while len(self._verified) > 1024:
            self._verified.pop(next(iter(self._verified)))
        self._claim_index[run_id] = (version, checker.seq, steps.result())
        while len(self._claim_index) > 4:
            self._claim_index.pop(next(iter(self._claim_index)))

    # -- artifacts and kv ---------------------------------------------------------------------

    def put_artifact(self, data: bytes) -> str:
        """Store ``data`` once under its digest (idempotent) and return the digest."""
        d = digest_bytes(data)
        with self._txn() as db:
            db.execute("INSERT OR IGNORE INTO artifacts (digest, size, data) VALUES (?,?,?)",
                       (d, len(data), data))
        return d

    def get_artifact(self, digest: str) -> bytes:
        row = self._query_one("SELECT data FROM artifacts WHERE digest=?", (digest,))
        if row is None:
            raise ArtifactMissing(digest=digest)
        data = bytes(row[0])
        if digest_bytes(data) != digest:
            raise ArtifactMissing(digest=digest + " (stored bytes do not match)")
        return data

    def kv_get(self, run_id: str, key: str) -> str | None:
        row = self._query_one("SELECT value FROM kv WHERE run_id=? AND key=?", (run_id, key))
        return None if row is None else row[0]

    def kv_items(self, run_id: str) -> dict[str, str]:
        with self._lock:
            try:
                rows = self._db.execute("SELECT key, value FROM kv WHERE run_id=? ORDER BY key",
                                        (run_id,)).fetchall()
            except UnicodeEncodeError as exc:
                raise not_storable(exc) from None
        return dict(rows)

    def set_kv(self, run_id: str, kv: dict[str, str | None]) -> None:
        """Change per-run state outside any worker's fencing (signals from outside the run)."""
        with self._txn() as db:
            if db.execute("SELECT 1 FROM runs WHERE run_id=?", (run_id,)).fetchone() is None:
                raise RunNotFound(run_id=run_id)
            self._kv_txn(db, run_id, kv)

    def _kv_txn(self, db: sqlite3.Connection, run_id: str, kv: dict[str, str | None]) -> None:
        for key, value in kv.items():
            if value is None:
                db.execute("DELETE FROM kv WHERE run_id=? AND key=?", (run_id, key))
            else:
                db.execute("INSERT INTO kv (run_id, key, value) VALUES (?,?,?) ON CONFLICT"
                           " (run_id, key) DO UPDATE SET value=excluded.value",
                           (run_id, key, value))

    # -- retention ----------------------------------------------------------------------------

    def prune(self, older_than: float, *, now: float, dry_run: bool = False) -> PruneReport:
        """Delete every *finished* run (succeeded, failed, cancelled) last changed more than
        ``older_than`` seconds before ``now``, with its journal, its kv, and every artifact that
        no remaining run names. A run in any other state is never touched. One transaction:
        all of it or nothing; ``dry_run`` computes the same report and rolls back."""
        cutoff = now - check_prune_age(older_than)
        report: PruneReport | None = None
        try:
            with self._txn() as db:
                ids = [r[0] for r in db.execute(
                    "SELECT run_id FROM runs WHERE state IN (?,?,?) AND updated_at < ?"
                    " ORDER BY updated_at, run_id", (*_TERMINAL_VALUES, cutoff))]
                refs: set[str] = set()
                n_events = n_kv = 0
                for run_id in ids:
                    refs |= artifact_refs([r[0] for r in db.execute(
                        "SELECT payload_json FROM events WHERE run_id=?", (run_id,))])
                    refs |= artifact_refs([r[0] for r in db.execute(
                        "SELECT value FROM kv WHERE run_id=?", (run_id,))])
                    n_events += db.execute("DELETE FROM events WHERE run_id=?",
                                           (run_id,)).rowcount
                    n_kv += db.execute("DELETE FROM kv WHERE run_id=?", (run_id,)).rowcount
                    db.execute("DELETE FROM runs WHERE run_id=?", (run_id,))
                    self._heads.pop(run_id, None)
                n_art = 0
                for d in sorted(refs):  # only blobs nothing left names (shared ones stay)
                    if db.execute("SELECT 1 FROM events WHERE instr(payload_json, ?) > 0"
                                  " UNION ALL SELECT 1 FROM kv WHERE instr(value, ?) > 0"
                                  " LIMIT 1", (d, d)).fetchone() is None:
                        n_art += db.execute("DELETE FROM artifacts WHERE digest=?",
                                            (d,)).rowcount
                report = PruneReport(tuple(ids), n_events, n_kv, n_art, dry_run)
                if dry_run:
                    raise _DryRun
        except _DryRun:
            pass
        assert report is not None
        return report

    def _query_one(self, sql: str, args: tuple[Any, ...]) -> Any:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchone()
            except sqlite3.DatabaseError as exc:
                raise StoreUnreadable(path=self.path, reason=str(exc)) from None
            except UnicodeEncodeError as exc:
                raise not_storable(exc) from None


_TERMINAL_VALUES = tuple(sorted(state.value for state in TERMINAL))


class _DryRun(Exception):  # noqa: N818 - control flow: roll the prune's transaction back
    pass


def _is_full(exc: sqlite3.DatabaseError) -> bool:
    return getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL"


def _store_error(path: str, exc: sqlite3.DatabaseError) -> StoreFault:
    """The named error for a failed SQLite call: full (disk or ``max_page_count``), or not a
    database this code can read."""
    if _is_full(exc):
        return StoreFull(store=path, reason=str(exc))
    return StoreUnreadable(path=path, reason=str(exc))


def _digest_blob(d: str) -> bytes | str:
    # A plain digest is kept as its 32 raw bytes; a keyed one (hmac-sha256:<key id>:<hex>) as
    # text, which keeps its key id (SQLite stores either in the BLOB column).
    return bytes.fromhex(d[7:]) if d.startswith("sha256:") else d


def _digest_text(value: bytes | str) -> str:
    # A digest written by hand as text (a repair tool, a test forging a row) is read as is.
    return value if isinstance(value, str) else "sha256:" + bytes(value).hex()


def _checked(checker: ChainVerifier, rows: Sequence[Sequence[Any]], *,
             trusted: bool = False) -> list[Event]:
    """Rebuild the events of consecutive rows, each checked by ``checker`` (its ``prev_digest``
    is the previous row's digest: a missing or reordered row shows up as a seq gap or a digest
    that no longer covers its predecessor). ``trusted``: rows this store verified and nobody
    has written since; their seqs and the head are checked, their contents not hashed again.
    The whole page is checked before any of it is returned."""
    if trusted and checker.keys is None and rows:
        known = _known(checker, rows)
        if known is not None:
            return known
    check_plain, check = checker.check_plain, checker.check
    out: list[Event] = []
    append = out.append
    for run_id, seq, kind, step, payload_json, incarnation, at, dig in rows:
        prev = checker.prev
        if type(dig) is bytes and len(dig) == 32:
            d = check_plain(seq, kind, step, payload_json, incarnation, at, dig)
            append(Event(run_id, seq, kind, step, payload_json, incarnation, at, prev, d))
        else:
            e = Event(run_id, seq, kind, step, payload_json, incarnation, at, prev,
                      _digest_text(dig))
            check(e)
            append(e)
    return out


def _known(checker: ChainVerifier, rows: Sequence[Sequence[Any]]) -> list[Event] | None:
    """A trusted page of plain digests with consecutive seqs, or None (then every row is
    checked one by one). The primary key orders the rows and makes seqs unique, so the page is
    gapless exactly when its last seq is its first plus its length minus one."""
    first = checker.seq + 1
    if rows[0][1] != first or rows[-1][1] != first + len(rows) - 1:
        return None
    out: list[Event] = []
    append = out.append
    prev = checker.prev
    for run_id, seq, kind, step, payload_json, incarnation, at, dig in rows:
        if type(dig) is not bytes or len(dig) != 32:
            return None
        d = "sha256:" + dig.hex()
        append(Event(run_id, seq, kind, step, payload_json, incarnation, at, prev, d))
        prev = d
    checker.known(out)
    return out


def _record(row: Sequence[Any]) -> RunRecord:
    (run_id, workflow, input_json, state, revision, incarnation, worker_id, lease, detail,
     created_at) = row
    run = Run(run_id, RunState(state), revision, incarnation, worker_id, lease,
              json.loads(detail))
    return RunRecord(run, workflow, input_json, created_at)
