"""One SQL core for every store: each statement and algorithm that SQLite and PostgreSQL share.

:class:`SQLCore` holds the store's whole behaviour (create, transition and claim with the
fencing check, append with its hash chain and head, the lease, the paged and verified journal
stream, the positions' index, artifacts, kv, prune, group commit, forward migrations; the
journal's reads are its mixin :class:`minirt.store.sqlread.JournalReads`); a dialect
subclass (:class:`minirt.store.sqlite.SQLiteStore`, :class:`minirt.store.postgres.PostgresStore`)
supplies only what differs between the engines: the placeholder, the row-locking clauses, how a
digest is stored, the connection and its transactions (and savepoints), how the schema version
is kept, and the statements it can fuse (PostgreSQL appends in one statement).

Invariants (every dialect): a worker write checks the run's incarnation inside the transaction
that writes, so a stale incarnation writes nothing; a run's head (``last_seq``, ``last_digest``)
moves in the same transaction as the rows it names; a journal is verified from seq 1 on every
read and before every claim writes. The cached head (``_heads``) is a hint only: the fast append
re-checks incarnation, head and state in the WHERE clause of the statement that moves the head.

Guarantees: SQL is written once, with ``?`` placeholders, and translated for the dialect;
rows of ``runs`` are read by name (:class:`RunRow`). Does not: open connections, or decide how
durable a commit is (the dialect's settings do).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, ClassVar, NamedTuple

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
    ArtifactMissing,
    Event,
    JournalCorrupted,
    NewEvent,
    NotStorable,
    PruneReport,
    RunRecord,
    StoreArgumentInvalid,
    artifact_refs,
    chain,
    check_event_kinds,
    check_prune_age,
    not_storable,
)
from .chainkey import ChainKeys, ChainKeyUnknown
from .group_commit import AppendRequest, GroupCommit
from .sqlread import READ_COLS, JournalReads, digest_text


class SchemaTooNew(MinirtError):
    """The database was written by a newer minirt (its schema version is above this code's).

    Raised on open, before anything is read or written: this code would misread the newer
    format. Upgrade minirt, or open another database."""

    fields = ("store", "found", "supported")
    template = ("the store at {store} has schema version {found}; this minirt reads versions up "
                "to {supported}: upgrade minirt")


class Migration(NamedTuple):
    """One forward step of a schema: the statements that take version ``version - 1`` (or an
    empty database, for the first) to ``version``. Applied once, in order, each in the same
    transaction as the version's update."""

    version: int
    statements: tuple[str, ...]


def pending(migrations: Sequence[Migration], found: int, store: str) -> list[Migration]:
    """The migrations still to apply to a database at version ``found``, in order; raises
    :class:`SchemaTooNew` for a database newer than the last of ``migrations``."""
    versions = [m.version for m in migrations]
    if versions != sorted(set(versions)) or not versions or versions[0] < 1:
        raise StoreArgumentInvalid(reason=f"migrations must have increasing versions >= 1, "
                                          f"not {versions}")
    if found > versions[-1]:
        raise SchemaTooNew(store=store, found=found, supported=versions[-1])
    return [m for m in migrations if m.version > found]


def split_statements(script: str) -> tuple[str, ...]:
    """A schema script as single statements (no ``;`` inside a statement; ``--`` comments
    dropped), so that a migration runs statement by statement inside one transaction."""
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return tuple(s.strip() for s in "\n".join(lines).split(";") if s.strip())


class RunRow(NamedTuple):
    """A ``runs`` row as the core selects it (``SELECT {RUN_COLS}``): read by name."""

    run_id: str
    workflow: str
    input_json: str
    state: str
    revision: int
    incarnation: int
    worker_id: str | None
    lease_expires_at: float | None
    detail_json: str
    created_at: float
    last_seq: int
    last_digest: str

    def record(self) -> RunRecord:
        run = Run(self.run_id, RunState(self.state), int(self.revision), int(self.incarnation),
                  self.worker_id, self.lease_expires_at, json.loads(self.detail_json))
        return RunRecord(run, self.workflow, self.input_json, self.created_at)


RUN_COLS = ", ".join(RunRow._fields)
TERMINAL_VALUES = tuple(sorted(state.value for state in TERMINAL))
_CLAIMABLE = (RunState.RUNNING.value, RunState.UNCERTAIN.value, RunState.CANCELLING.value)


def marks(n: int) -> str:
    """``?,?,?`` for ``n`` values (an ``IN (...)`` list; both engines take it)."""
    return ",".join("?" * n)


class _Txn:
    """The store's lock, then the outermost transaction (the dialect's ``_outer``) or a join of
    the open one. A class, not a generator: every append enters one."""

    __slots__ = ("store", "outer")

    def __init__(self, store: SQLCore) -> None:
        self.store = store
        self.outer: AbstractContextManager[Any] | None = None

    def __enter__(self) -> Any:
        store = self.store
        store._lock.acquire()
        try:
            if store._depth:
                store._depth += 1
                return store._db
            self.outer = store._outer()
            return self.outer.__enter__()
        except BaseException:
            store._lock.release()
            raise

    def __exit__(self, *exc: Any) -> bool | None:
        store = self.store
        try:
            if self.outer is None:
                store._depth -= 1
                return None
            return self.outer.__exit__(*exc)
        finally:
            store._lock.release()


class _DryRun(Exception):  # noqa: N818 - control flow: roll the prune's transaction back
    pass


class SQLCore(JournalReads):
    """The shared store (see the module docstring). A subclass sets the dialect hooks below and
    opens ``self._db``; everything else is here."""

    # -- dialect hooks: data ------------------------------------------------------------------
    #: The dialect's placeholder; the core's SQL is written with ``?`` and translated once.
    PLACEHOLDER: ClassVar[str] = "?"
    #: Row-lock clause for a read inside a write transaction ("" where the transaction itself
    #: holds the write lock, as SQLite's BEGIN IMMEDIATE does).
    FOR_UPDATE: ClassVar[str] = ""
    #: Lock clause of a claim's SELECT (skip rows other workers hold, never wait for them).
    CLAIM_LOCK: ClassVar[str] = ""
    #: Collation that orders run ids by code point, as SQLite's default does.
    BY_CODEPOINT: ClassVar[str] = ""
    #: The substring-position function (``instr`` / ``strpos``).
    STRPOS: ClassVar[str] = "instr"
    #: The events columns an insert writes, in :meth:`_event_params`'s order.
    WRITE_COLS: ClassVar[str] = READ_COLS
    #: Tables a prune clears of a run besides events and kv (``runs`` last).
    RUN_TABLES: ClassVar[tuple[str, ...]] = ("runs",)

    chain_keys: ChainKeys | None
    refused: dict[str, MinirtError]
    _db: Any
    _depth: int
    _group: GroupCommit | None

    def _init_core(self, chain_keys: ChainKeys | None, *, group_commit: bool,
                   group_window_s: float, group_max: int) -> None:
        """The core's state; a dialect calls it first in ``__init__``."""
        import threading

        #: The keyed chain's keys (:mod:`.chainkey`), or None for the plain sha256 chain.
        self.chain_keys = chain_keys
        #: Runs that :meth:`claim_next` skipped because their journal did not verify (run id ->
        #: the error). They stay as they are, for an operator (``minirt show`` names the row).
        self.refused = {}
        self._lock = threading.RLock()
        self._depth = 0  # Invariant: >0 exactly while a transaction is open on self._db
        # run_id -> (incarnation, last_seq, last_digest, lease written) as this store last wrote
        # them. Only a hint: the fast append re-checks the first three in its WHERE clause.
        self._heads: dict[str, tuple[int, int, str, float | None]] = {}
        # run_id -> data version (see _data_version) when a claim here verified the run's whole
        # journal: while unchanged, nobody else wrote, so those rows need not be hashed again.
        self._verified: dict[str, Any] = {}
        # run_id -> (data version, last seq, step index) of the journal the last claims here
        # verified; used once, by the next step_index, if nothing was written since.
        self._claim_index: dict[str, tuple[Any, int, Any]] = {}
        self._sql_cache: dict[str, str] = {}
        #: Appends of concurrent threads committed together (None: one transaction each).
        self._group = (GroupCommit(self._commit_batch, window_s=group_window_s,
                                   max_batch=group_max) if group_commit else None)

    # -- dialect hooks: behaviour -------------------------------------------------------------

    def _outer(self) -> AbstractContextManager[Any]:
        """Open, commit (or on error roll back) the outermost write transaction, with
        ``_depth`` 1 while it is open, the dialect's errors mapped; yields the connection."""
        raise NotImplementedError

    def _savepoint(self, db: Any) -> AbstractContextManager[None]:
        """A savepoint inside the open transaction: an error inside rolls back to it."""
        raise NotImplementedError

    def _fetch(self, sql: str, args: Sequence[Any], *, one: bool = False) -> Any:
        """Run one read (translated SQL) under the lock, the dialect's errors mapped."""
        raise NotImplementedError

    def _insert_rows(self, db: Any, rows: Sequence[Event]) -> None:
        """Insert journal rows (``WRITE_COLS``)."""
        raise NotImplementedError

    def _event_params(self, e: Event) -> tuple[Any, ...]:
        raise NotImplementedError

    def _fast_append(self, db: Any, rows: Sequence[Event], head: tuple[int, int, str, Any],
                     lease: float | None, same_lease: float | None) -> bool:
        """Move the head (fenced on incarnation, head and state) and insert ``rows``; False
        (nothing written) when the fence does not match. Two statements; a dialect may fuse
        them (:func:`fast_head_update` is the fenced UPDATE both use)."""
        sql, args = fast_head_update(rows, head, lease, same_lease)
        if db.execute(self._sql(sql), args).rowcount != 1:
            return False
        self._insert_rows(db, rows)
        return True

    def _note_stale(self, run_id: str, op: str, incarnation: int | None, current: int,
                    error: BaseException) -> None:
        """A rejected stale write (PostgreSQL records it; SQLite does not)."""

    def _on_claim(self, db: Any, new: Run, at: float) -> None:
        """Inside a claim's transaction, after the run row was written."""

    # -- transactions -------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """One write transaction; nested calls join the outer one (all commit or none). Yields
        the dialect's connection (``db.execute(sql, args)`` works on both).

        What a caller does with the connection is not known, so it forgets which journals a
        claim verified (see :meth:`iter_events`): they are hashed again on their next read."""
        with self._lock:
            self._verified.clear()
            with self._txn() as db:
                yield db

    def _txn(self) -> AbstractContextManager[Any]:
        """:meth:`transaction` for the core's own writes (which only ever add rows)."""
        return _Txn(self)

    # -- helpers ------------------------------------------------------------------------------

    def _sql(self, sql: str) -> str:
        out = self._sql_cache.get(sql)
        if out is None:
            out = sql if self.PLACEHOLDER == "?" else sql.replace("?", self.PLACEHOLDER)
            self._sql_cache[sql] = out
        return out

    def _x(self, db: Any, sql: str, args: Sequence[Any] = ()) -> Any:
        return db.execute(self._sql(sql), args)

    def _held(self) -> str:
        """The row lock for a read inside a caller's transaction (see ``get_run``)."""
        return self.FOR_UPDATE if self._depth else ""

    def _hold_run(self, run_id: str) -> None:
        if self.FOR_UPDATE and self._depth:
            self._fetch("SELECT 1 FROM runs WHERE run_id=?" + self.FOR_UPDATE, (run_id,))

    def _forget(self) -> None:
        """After a rollback: cached heads may name rows never committed."""
        self._heads.clear()

    # -- runs ---------------------------------------------------------------------------------

    def create_run(self, run_id: str, workflow: str, input_json: str, at: float,
                   events: Sequence[NewEvent] = ()) -> RunRecord:
        check_event_kinds(events)  # before anything is written
        with self._txn() as db:
            cur = self._x(db, "INSERT INTO runs (run_id, workflow, input_json, state, revision,"
                          " incarnation, detail_json, last_seq, last_digest, created_at,"
                          " updated_at) VALUES (?,?,?,?,0,0,'{}',0,?,?,?)"
                          " ON CONFLICT (run_id) DO NOTHING",
                          (run_id, workflow, input_json, RunState.PENDING.value, GENESIS, at, at))
            if cur.rowcount != 1:
                raise DuplicateRun(run_id=run_id)
            if events:
                self._append_txn(db, run_id, 0, 0, GENESIS, events)
        return RunRecord(Run(run_id), workflow, input_json, at)

    def get_run(self, run_id: str) -> RunRecord:
        """The run. Inside :meth:`transaction` the run's row stays locked until the end of it."""
        try:
            row = self._fetch(f"SELECT {RUN_COLS} FROM runs WHERE run_id=?" + self._held(),
                              (run_id,), one=True)
        except NotStorable:  # a lone surrogate: no stored run can have this id
            raise RunNotFound(run_id=ascii(run_id)) from None
        if row is None:
            raise RunNotFound(run_id=run_id)
        return RunRow._make(row).record()

    def list_runs(self, states: Sequence[str] | None = None) -> list[RunRecord]:
        sql = f"SELECT {RUN_COLS} FROM runs"
        args: tuple[Any, ...] = ()
        if states:
            sql += f" WHERE state IN ({marks(len(states))})"
            args = tuple(str(s) for s in states)
        rows = self._fetch(sql + f" ORDER BY created_at, run_id{self.BY_CODEPOINT}", args)
        return [RunRow._make(r).record() for r in rows]

    def apply_event(self, run: Run, event: RunEvent) -> Run:
        """The transition function :meth:`transition` uses: :func:`minirt.run.apply`. A seam
        for the course's drill, which runs a learner's function inside the real transaction."""
        return apply(run, event)

    def transition(self, run_id: str, event: RunEvent, *, expected_revision: int | None = None,
                   events: Sequence[NewEvent] = (), kv: dict[str, str | None] | None = None
                   ) -> Run:
        """Apply ``event`` (compare-and-set on the revision) and append ``events``, atomically.

        The run's row is read under the transaction's lock, so a fenced event is checked
        against the incarnation that is current at commit time."""
        check_run_event(run_id, event)  # an unknown kind, by name, before the txn
        check_event_kinds(events)  # before anything is written
        with self._txn() as db:
            raw = self._x(db, f"SELECT {RUN_COLS} FROM runs WHERE run_id=?" + self.FOR_UPDATE,
                          (run_id,)).fetchone()
            if raw is None:
                raise RunNotFound(run_id=run_id)
            row = RunRow._make(raw)
            current = row.record().run
            if expected_revision is not None and current.revision != expected_revision:
                raise RevisionConflict(run_id=run_id, expected=expected_revision,
                                       actual=current.revision)
            try:
                new = self.apply_event(current, event)
            except (StaleIncarnation, RunIsTerminal) as exc:
                if event.kind in FENCED_EVENTS and event.incarnation != current.incarnation:
                    self._note_stale(run_id, event.kind, event.incarnation, current.incarnation,
                                     exc)
                raise
            if event.kind == "claim":  # verify before the claim writes anything (a resume)
                self._verify_txn(db, row)
            self._write_run_txn(db, new, current.revision, event.at)
            if event.kind == "claim":
                self._on_claim(db, new, event.at)
            if events:
                self._append_txn(db, run_id, new.incarnation, row.last_seq, row.last_digest,
                                 events)
            if kv:
                self._kv_txn(db, run_id, kv)
        return new

    def claim_next(self, worker_id: str, at: float, lease_for: float,
                   workflows: Sequence[str] | None = None,
                   events: Sequence[NewEvent] = ()) -> RunRecord | None:
        """Claim the oldest runnable run (pending, or leased with an expired lease), or None.
        ``events`` (the claim's journal record) are appended in the same transaction. A run
        whose journal does not verify is skipped and named in :attr:`refused`; where the
        dialect can (``SKIP LOCKED``), so is a run another worker holds right now."""
        check_event_kinds(events)  # before anything is written
        sql = (f"SELECT {RUN_COLS} FROM runs WHERE (state=? OR (state IN ({marks(3)})"
               " AND lease_expires_at < ?))")
        args: list[Any] = [RunState.PENDING.value, *_CLAIMABLE, at]
        if workflows:
            sql += f" AND workflow IN ({marks(len(workflows))})"
            args += [str(w) for w in workflows]
        order = f" ORDER BY created_at, run_id{self.BY_CODEPOINT} LIMIT 1" + self.CLAIM_LOCK
        with self._txn() as db:
            skipped: list[str] = []
            while True:
                q = sql + (f" AND run_id NOT IN ({marks(len(skipped))})" if skipped else "")
                raw = self._x(db, q + order, [*args, *skipped]).fetchone()
                if raw is None:
                    return None
                row = RunRow._make(raw)
                try:  # verify before the claim writes anything; a corrupted run is skipped
                    self._verify_txn(db, row)
                except (JournalCorrupted, ChainKeyUnknown) as exc:
                    self.refused[row.run_id] = exc
                    skipped.append(row.run_id)
                    continue
                self.refused.pop(row.run_id, None)
                break
            rec = row.record()
            new = apply(rec.run, RunEvent("claim", at=at, worker_id=worker_id,
                                          lease_for=lease_for))
            self._write_run_txn(db, new, rec.run.revision, at)
            self._on_claim(db, new, at)
            if events:
                self._append_txn(db, new.run_id, new.incarnation, row.last_seq,
                                 row.last_digest, events)
        return RunRecord(new, rec.workflow, rec.input_json, rec.created_at)

    def _write_run_txn(self, db: Any, new: Run, expected_revision: int, at: float) -> None:
        cur = self._x(db, "UPDATE runs SET state=?, revision=?, incarnation=?, worker_id=?,"
                      " lease_expires_at=?, detail_json=?, updated_at=?"
                      " WHERE run_id=? AND revision=?",
                      (new.state.value, new.revision, new.incarnation, new.worker_id,
                       new.lease_expires_at, json.dumps(new.detail, sort_keys=True), at,
                       new.run_id, expected_revision))
        if cur.rowcount != 1:
            raise RevisionConflict(run_id=new.run_id, expected=expected_revision, actual="?")
        head = self._heads.get(new.run_id)
        if head is not None:  # the lease this store last wrote changed with the run
            self._heads[new.run_id] = (new.incarnation, head[1], head[2], new.lease_expires_at)

    # -- journal ------------------------------------------------------------------------------

    def append(self, run_id: str, incarnation: int, events: Sequence[NewEvent], *,
               lease_until: float | None = None, kv: dict[str, str | None] | None = None
               ) -> list[Event]:
        """Append ``events`` to the run's journal if ``incarnation`` is still current (fenced).

        All rows, the lease extension and ``kv`` changes commit in one transaction. With no
        events and a ``lease_until`` this is a fenced heartbeat. With group commit (the
        default), appends that threads make at the same time share one transaction and one
        durable commit (:mod:`minirt.store.group_commit`), each in its own savepoint, so one
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
                return group.submit(AppendRequest(run_id, incarnation, events, lease_until, kv))
            try:
                return self._append_alone(run_id, incarnation, events, lease_until, kv)
            finally:
                self._lock.release()
        with self._txn() as db:
            return self._append_body(db, run_id, incarnation, events, lease_until, kv)

    def _append_alone(self, run_id: str, incarnation: int, events: Sequence[NewEvent],
                      lease_until: float | None, kv: dict[str, str | None] | None
                      ) -> list[Event]:
        """One append in its own transaction (a dialect may commit it in one statement)."""
        with self._txn() as db:
            return self._append_body(db, run_id, incarnation, events, lease_until, kv)

    def _commit_batch(self, batch: Sequence[AppendRequest]) -> None:
        """The group commit leader's work: ``batch`` in one transaction, a savepoint each
        (none for a batch of one: its transaction is its savepoint). Sets each request's
        ``rows`` or ``error``; :mod:`.group_commit` releases the callers afterwards."""
        try:
            if len(batch) == 1:
                r = batch[0]
                with self._lock:
                    r.rows = self._append_alone(r.run_id, r.incarnation, r.events,
                                                r.lease_until, r.kv)
                return
            with self._txn() as db:
                for r in batch:
                    try:
                        with self._savepoint(db):
                            r.rows = self._append_body(db, r.run_id, r.incarnation, r.events,
                                                       r.lease_until, r.kv)
                    except (MinirtError, UnicodeEncodeError) as exc:  # this append only
                        self._heads.pop(r.run_id, None)
                        r.rows = None
                        r.error = (not_storable(exc) if isinstance(exc, UnicodeEncodeError)
                                   else exc)
        except Exception as exc:  # the transaction failed as a whole (full disk, commit)
            for r in batch:
                r.rows = None
                r.error = r.error or exc

    def _lease_to_write(self, head: tuple[int, int, str, float | None] | None,
                        lease_until: float | None) -> float | None:
        """The lease an append writes: None when it would not change the one this store last
        wrote (so the claimable index is not rewritten by a no-op renewal)."""
        if lease_until is None or (head is not None and head[3] == lease_until):
            return None
        return lease_until

    def _append_body(self, db: Any, run_id: str, incarnation: int, events: Sequence[NewEvent],
                     lease_until: float | None, kv: dict[str, str | None] | None
                     ) -> list[Event]:
        head = self._heads.get(run_id)
        if head is not None and head[0] == incarnation and events:
            # Fast path: one conditional statement fences (incarnation), checks nobody appended
            # meanwhile (last_seq) and moves the head; the rows go in with it.
            rows = chain(run_id, incarnation, head[1], head[2], events, self.chain_keys)
            lease = self._lease_to_write(head, lease_until)
            same = lease_until if lease is None else None  # renewal skipped: fence on it
            if self._fast_append(db, rows, head, lease, same):
                if kv:
                    self._kv_txn(db, run_id, kv)
                self._heads[run_id] = (incarnation, rows[-1].seq, rows[-1].digest,
                                       head[3] if lease is None else lease)
                return rows
            self._heads.pop(run_id, None)  # someone else moved the run: take the slow path
        raw = self._x(db, "SELECT incarnation, state, last_seq, last_digest, lease_expires_at"
                      " FROM runs WHERE run_id=?" + self.FOR_UPDATE, (run_id,)).fetchone()
        if raw is None:
            raise RunNotFound(run_id=run_id)
        current, state, last_seq, last_digest, lease_now = raw
        if current != incarnation:
            exc = StaleIncarnation(run_id=run_id, event="append", incarnation=incarnation,
                                   current=current)
            self._note_stale(run_id, "append" if events else "heartbeat", incarnation,
                             current, exc)
            raise exc
        if RunState(state) in TERMINAL:
            raise RunIsTerminal(run_id=run_id, state=state, event="append")
        out = self._append_txn(db, run_id, incarnation, last_seq, last_digest, events)
        if lease_until is not None and lease_until != lease_now:
            self._x(db, "UPDATE runs SET lease_expires_at=? WHERE run_id=?",
                    (lease_until, run_id))
            lease_now = lease_until
        if kv:
            self._kv_txn(db, run_id, kv)
        if run_id in self._heads:
            h = self._heads[run_id]
            self._heads[run_id] = (h[0], h[1], h[2], lease_now)
        return out

    def _append_txn(self, db: Any, run_id: str, incarnation: int, last_seq: int,
                    last_digest: str, events: Sequence[NewEvent]) -> list[Event]:
        rows = chain(run_id, incarnation, last_seq, last_digest, events, self.chain_keys)
        if not rows:
            return rows
        self._insert_rows(db, rows)
        self._x(db, "UPDATE runs SET last_seq=?, last_digest=? WHERE run_id=?",
                (rows[-1].seq, rows[-1].digest, run_id))
        old = self._heads.get(run_id)
        self._heads[run_id] = (incarnation, rows[-1].seq, rows[-1].digest,
                               old[3] if old is not None and old[0] == incarnation else None)
        return rows

    # -- artifacts and kv ---------------------------------------------------------------------

    def put_artifact(self, data: bytes) -> str:
        """Store ``data`` once under its digest (idempotent) and return the digest."""
        d = digest_bytes(data)
        with self._txn() as db:
            self._x(db, "INSERT INTO artifacts (digest, size, data) VALUES (?,?,?)"
                    " ON CONFLICT (digest) DO NOTHING", (d, len(data), bytes(data)))
        return d

    def get_artifact(self, digest: str) -> bytes:
        row = self._fetch("SELECT data FROM artifacts WHERE digest=?", (digest,), one=True)
        if row is None:
            raise ArtifactMissing(digest=digest)
        data = bytes(row[0])
        if digest_bytes(data) != digest:
            raise ArtifactMissing(digest=digest + " (stored bytes do not match)")
        return data

    # A read inside transaction() locks the run's row where the dialect has row locks, so
    # "look, then write" in one transaction means the same on every store: nobody can change
    # the run between the look and the write (Runtime.signal relies on it).

    def kv_get(self, run_id: str, key: str) -> str | None:
        """One kv value. Inside :meth:`transaction` the run's row stays locked until the end."""
        self._hold_run(run_id)
        row = self._fetch("SELECT value FROM kv WHERE run_id=? AND key=?", (run_id, key),
                          one=True)
        return None if row is None else row[0]

    def kv_items(self, run_id: str) -> dict[str, str]:
        self._hold_run(run_id)
        rows = self._fetch(f"SELECT key, value FROM kv WHERE run_id=? ORDER BY"
                           f" key{self.BY_CODEPOINT}", (run_id,))
        return dict(rows)

    def set_kv(self, run_id: str, kv: dict[str, str | None]) -> None:
        """Change per-run state outside any worker's fencing (signals from outside the run)."""
        with self._txn() as db:
            if self._x(db, "SELECT 1 FROM runs WHERE run_id=?" + self.FOR_UPDATE,
                       (run_id,)).fetchone() is None:
                raise RunNotFound(run_id=run_id)
            self._kv_txn(db, run_id, kv)

    def _kv_txn(self, db: Any, run_id: str, kv: dict[str, str | None]) -> None:
        for key, value in kv.items():
            if value is None:
                self._x(db, "DELETE FROM kv WHERE run_id=? AND key=?", (run_id, key))
            else:
                self._x(db, "INSERT INTO kv (run_id, key, value) VALUES (?,?,?) ON CONFLICT"
                        " (run_id, key) DO UPDATE SET value=excluded.value",
                        (run_id, key, value))

    # -- retention ----------------------------------------------------------------------------

    def prune(self, older_than: float, *, now: float, dry_run: bool = False) -> PruneReport:
        """Delete every *finished* run (succeeded, failed, cancelled) last changed more than
        ``older_than`` seconds before ``now``, with its journal, its kv (and the dialect's own
        per-run records), and every artifact that no remaining run names. A run in any other
        state is never touched (its row is locked and re-checked where the dialect has row
        locks). One transaction: all of it or nothing; ``dry_run`` computes the same report and
        rolls back."""
        cutoff = now - check_prune_age(older_than)
        report: PruneReport | None = None
        try:
            with self._txn() as db:
                ids = [r[0] for r in self._x(
                    db, f"SELECT run_id FROM runs WHERE state IN ({marks(len(TERMINAL_VALUES))})"
                        f" AND updated_at < ? ORDER BY updated_at, run_id{self.BY_CODEPOINT}"
                        + self.FOR_UPDATE, (*TERMINAL_VALUES, cutoff)).fetchall()]
                refs: set[str] = set()
                n_events = n_kv = 0
                for run_id in ids:
                    refs |= artifact_refs([r[0] for r in self._x(
                        db, "SELECT payload_json FROM events WHERE run_id=?",
                        (run_id,)).fetchall()])
                    refs |= artifact_refs([r[0] for r in self._x(
                        db, "SELECT value FROM kv WHERE run_id=?", (run_id,)).fetchall()])
                    n_events += self._x(db, "DELETE FROM events WHERE run_id=?",
                                        (run_id,)).rowcount
                    n_kv += self._x(db, "DELETE FROM kv WHERE run_id=?", (run_id,)).rowcount
                    for table in self.RUN_TABLES:
                        self._x(db, f"DELETE FROM {table} WHERE run_id=?", (run_id,))
                    self._heads.pop(run_id, None)
                n_art = 0
                for d in sorted(refs):  # only blobs nothing left names (shared ones stay)
                    if self._x(db, f"SELECT 1 FROM events WHERE {self.STRPOS}(payload_json, ?)"
                               f" > 0 UNION ALL SELECT 1 FROM kv WHERE {self.STRPOS}(value, ?)"
                               " > 0 LIMIT 1", (d, d)).fetchone() is None:
                        n_art += self._x(db, "DELETE FROM artifacts WHERE digest=?",
                                         (d,)).rowcount
                report = PruneReport(tuple(ids), n_events, n_kv, n_art, dry_run)
                if dry_run:
                    raise _DryRun
        except _DryRun:
            pass
        assert report is not None
        return report


_FAST_UPDATE = {(renew, fence): "UPDATE runs SET last_seq=?, last_digest=?"
                + (", lease_expires_at=?" if renew else "")
                + " WHERE run_id=? AND incarnation=? AND last_seq=?"
                + (" AND lease_expires_at=?" if fence else "")
                + f" AND state NOT IN ({marks(len(TERMINAL_VALUES))})"
                for renew in (False, True) for fence in (False, True)}


def fast_head_update(rows: Sequence[Event], head: tuple[int, int, str, Any],
                     lease: float | None, same_lease: float | None
                     ) -> tuple[str, tuple[Any, ...]]:
    """The fast append's fenced head move (``?`` placeholders): matches one row exactly when
    the run is still at ``head`` (incarnation, last seq), not finished, and, when the renewal
    is skipped (``same_lease``), still holds that lease; sets the new head (and ``lease``)."""
    sql = _FAST_UPDATE[lease is not None, same_lease is not None]
    args = (rows[-1].seq, rows[-1].digest, *(() if lease is None else (lease,)),
            rows[0].run_id, head[0], head[1], *(() if same_lease is None else (same_lease,)),
            *TERMINAL_VALUES)
    return sql, args


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


__all__ = ["RUN_COLS", "Migration", "RunRow", "SQLCore", "SchemaTooNew", "digest_text",
           "first_line", "marks", "pending", "split_statements"]
