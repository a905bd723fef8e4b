"""What every store keeps, and the journal's record format and hash chain.

A store persists four things and knows nothing of agents:

- **runs**: one row per logical run (:class:`minirt.run.Run`), changed only by compare-and-set on
  the revision, with the fencing token (incarnation) checked in the same transaction;
- **events**: the append-only journal of each run, each row chained to the previous one by digest;
- **artifacts**: content-addressed blobs (large tool outputs), stored once, referenced by digest;
- **kv**: small per-run key/value state that application code changes in the same transaction as
  a journal append (the local half of a transactional outbox).

Every write that a worker makes is fenced: the store checks, inside the write's transaction, that
the worker's incarnation is still the run's current one, and raises
:class:`minirt.run.StaleIncarnation` otherwise, writing nothing.

The hash chain: an event's ``digest`` covers its run, sequence number, kind, step, payload,
incarnation, time and the previous event's digest. Reading a journal recomputes every digest and
link, so a changed, removed or reordered row is reported as :class:`JournalCorrupted` naming the
run and the position, never silently skipped. The plain chain (sha256) catches accidents; the
keyed chain (HMAC under the operator's key, :mod:`.chainkey`) also catches someone who rewrote a
row and recomputed the digests after it.
"""

from __future__ import annotations

import hashlib
import json
import re
from array import array
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from ..canonical import canonical_json
from ..errors import MinirtError
from ..kinds import KNOWN_EVENT_KINDS
from ..run import Run, RunEvent
from .chainkey import PREFIX as KEYED_PREFIX
from .chainkey import ChainKeys, ChainKeyUnknown

GENESIS = "sha256:" + "0" * 64  # the "previous digest" of a run's first event
PAGE_SIZE = 1000  # rows per page when a journal is streamed (iter_events, a claim's check)
#: A journal row as a store reads it back: an :class:`Event`'s fields in its order but
#: ``prev_digest`` (the previous row's digest: the chain implies it), and the digest as stored
#: (32 raw bytes for a plain sha256, text for a keyed one). What :meth:`StepIndexBuilder.add_rows`
#: reads.
STORED_ROW = ("run_id", "seq", "kind", "step", "payload_json", "incarnation", "at", "digest")


class JournalCorrupted(MinirtError):
    """A journal row does not match its digest, or its chain link, or a sequence number is missing.

    Raised on read with the run and the first bad position; nothing after it is trusted or used.
    Not a :class:`minirt.journal.NonDeterminism` (the code changed, the journal is intact).
    """

    fields = ("run_id", "seq", "reason")
    template = "journal of run {run_id} is corrupted at seq {seq}: {reason}"


class StoreFault(MinirtError):
    """Base of the errors that mean "the store could not do this write, try again later".

    Whatever was being written is not recorded (its transaction was rolled back) and the run is
    unchanged: it keeps its lease, and is resumed (or taken over once the lease lapses) when the
    store works again. The runtime re-raises these instead of failing the run, because a run
    that could not record its last step must not record a failure either. Subclasses:
    :class:`StoreFull`, :class:`minirt.store.sqlite.StoreUnreadable`,
    :class:`minirt.store.postgres.StoreUnavailable`.
    """


class StoreFull(StoreFault):
    """The store's disk (or its configured size limit) is full. Nothing of the write is recorded.

    Free space and resume the run: every write that returned before is intact and verified.
    """

    fields = ("store", "reason")
    template = ("the store at {store} is full ({reason}): the write was not recorded; free "
                "space, then resume the run")


class NotStorable(MinirtError):
    """A text argument the store cannot encode (a lone surrogate in a run id, a kv key...).

    Raised before anything is written; a run id is checked earlier still, at start
    (:class:`minirt.ids.InvalidRunId`)."""

    fields = ("reason",)
    template = "the store cannot take this argument: {reason}"


def not_storable(exc: UnicodeEncodeError) -> NotStorable:
    bad = exc.object[exc.start:exc.end] if isinstance(exc.object, str) else "?"
    return NotStorable(reason=f"{ascii(bad)} at index {exc.start} has no UTF-8 form")


class StoreArgumentInvalid(MinirtError):
    """A store tuning argument that cannot work (a page size below 1, a negative group commit
    window). Raised before anything is read or written."""

    fields = ("reason",)
    template = "store argument invalid: {reason}"


class ArtifactMissing(MinirtError):
    fields = ("digest",)
    template = "artifact {digest} is referenced but not stored"


class UnknownEventKind(MinirtError):
    """A journal event whose kind is neither minirt's (:class:`minirt.kinds.EventKind`) nor
    registered (:func:`minirt.kinds.register_event_kinds`): a typo, or an application's kind
    that was never registered. Raised by every store write before anything is written."""

    fields = ("kind",)
    template = ("event kind {kind!r} is not known: not one of minirt.kinds.EventKind, and not "
                "registered with minirt.kinds.register_event_kinds")


def check_event_kinds(events: Sequence[NewEvent]) -> None:
    """Raise :class:`UnknownEventKind` for the first event of ``events`` whose kind the stores
    do not accept. One set membership per event; every store calls it before its write."""
    for e in events:
        if e.kind not in KNOWN_EVENT_KINDS:
            raise UnknownEventKind(kind=e.kind)


@dataclass(frozen=True)
class NewEvent:
    """An event to append: the store assigns ``seq``, ``prev_digest`` and ``digest``."""

    kind: str
    step: int | None
    payload_json: str  # canonical JSON text (minirt.canonical.canonical_json)
    at: float


class Event(NamedTuple):
    """One immutable journal row. (A named tuple: a resume builds one per recorded event, and
    a tuple is several times cheaper to build than a frozen dataclass.)"""

    run_id: str
    seq: int  # Invariant: 1, 2, 3, ... with no gap within a run
    kind: str
    step: int | None
    payload_json: str
    incarnation: int
    at: float
    prev_digest: str  # Invariant: the digest of event seq-1, or GENESIS for seq 1
    digest: str  # Invariant: event_digest(...) of all the fields above

    @property
    def payload(self) -> Any:
        return json.loads(self.payload_json)


def _message(run_id: str, seq: int, kind: str, step: int | None, payload_json: str,
             incarnation: int, at: float, prev_digest: str) -> bytes:
    # The header is length-prefixed (``len:text``) field by field, so no choice of run id or
    # kind can make two different events share a header.
    header = (f"{len(run_id)}:{run_id}|{seq}|{len(kind)}:{kind}|{step}|{incarnation}|"
              f"{float(at)!r}|{prev_digest}")
    return (header.encode("utf-8", "surrogatepass") + b"\n"
            + payload_json.encode("utf-8"))


def event_digest(run_id: str, seq: int, kind: str, step: int | None, payload_json: str,
                 incarnation: int, at: float, prev_digest: str) -> str:
    """The plain digest that chains an event to its predecessor. Pure and deterministic."""
    message = _message(run_id, seq, kind, step, payload_json, incarnation, at, prev_digest)
    return "sha256:" + hashlib.sha256(message).hexdigest()


def chain(run_id: str, incarnation: int, prev_seq: int, prev_digest: str,
          new: Sequence[NewEvent], keys: ChainKeys | None = None) -> list[Event]:
    """Give ``new`` events their sequence numbers and digests, continuing a chain; with
    ``keys``, each digest is an HMAC under the current key (see :mod:`.chainkey`)."""
    out: list[Event] = []
    for e in new:
        prev_seq += 1
        if keys is None:
            d = event_digest(run_id, prev_seq, e.kind, e.step, e.payload_json, incarnation, e.at,
                             prev_digest)
        else:
            d = keys.sign(_message(run_id, prev_seq, e.kind, e.step, e.payload_json, incarnation,
                                   e.at, prev_digest))
        out.append(Event(run_id, prev_seq, e.kind, e.step, e.payload_json, incarnation, e.at,
                         prev_digest, d))
        prev_digest = d
    return out


class ChainVerifier:
    """Checks a journal streamed in seq order, one event at a time, in constant memory.

    Feed every event from seq 1 on to :meth:`check` (it raises :class:`JournalCorrupted` or
    :class:`~.chainkey.ChainKeyUnknown` at the first bad one, exactly as :func:`verify` does),
    then call :meth:`finish` with the run's recorded head. Holds only the last digest, the
    count, and the digest at the head's seq, so a store can verify a journal page by page
    without keeping it."""

    __slots__ = ("run_id", "keys", "seq", "prev", "at_head", "_head_seq", "_pre")

    def __init__(self, run_id: str, keys: ChainKeys | None = None,
                 head: Sequence[Any] | None = None) -> None:
        self.run_id = run_id
        self.keys = keys
        self.seq = 0  # Invariant: the seq of the last event checked (0 before the first)
        self.prev = GENESIS  # Invariant: the digest of event ``seq`` (GENESIS before the first)
        self._head_seq = int(head[0]) if head is not None and head[0] > 0 else 0
        self.at_head: str | None = None  # the digest checked at the head's seq, once reached
        self._pre = f"{len(run_id)}:{run_id}|"

    def check(self, row: Event) -> None:
        """Check one event, the next in seq order (see :func:`verify` for the rules)."""
        expected_seq = self.seq + 1
        run_id = self.run_id
        if row.seq != expected_seq:
            raise JournalCorrupted(run_id=run_id, seq=expected_seq,
                                   reason=f"expected seq {expected_seq}, found {row.seq}")
        if row.prev_digest != self.prev:
            raise JournalCorrupted(run_id=run_id, seq=row.seq,
                                   reason="link to the previous event does not match")
        d = row.digest
        keys = self.keys
        if d.startswith(KEYED_PREFIX):
            if keys is None:
                raise ChainKeyUnknown(run_id=run_id, seq=row.seq,
                                      key_id=d[len(KEYED_PREFIX):].partition(":")[0][:40])
            message = _message(run_id, row.seq, row.kind, row.step, row.payload_json,
                               row.incarnation, row.at, row.prev_digest)
            if not keys.matches(d, message, run_id=run_id, seq=row.seq):
                raise JournalCorrupted(run_id=run_id, seq=row.seq,
                                       reason="content does not match its keyed digest")
        elif keys is not None:
            raise JournalCorrupted(run_id=run_id, seq=row.seq,
                                   reason="a plain sha256 digest where the keyed chain needs an "
                                          "HMAC: written or rewritten without the chain key")
        elif d != event_digest(run_id, row.seq, row.kind, row.step, row.payload_json,
                               row.incarnation, row.at, row.prev_digest):
            raise JournalCorrupted(run_id=run_id, seq=row.seq,
                                   reason="content does not match its digest")
        self.seq = expected_seq
        self.prev = d
        if expected_seq == self._head_seq:
            self.at_head = d

    def check_plain(self, seq: int, kind: str, step: int | None, payload_json: str,
                    incarnation: int, at: float, raw: bytes) -> str:
        """:meth:`check` for a row whose stored digest is a plain sha256 as 32 raw bytes and
        whose link is implied (the previous row's digest): compares the raw digests, builds
        no :class:`Event`. Returns the digest text. Under a keyed chain it raises, as
        :meth:`check` does for a plain digest."""
        expected_seq = self.seq + 1
        if seq != expected_seq:
            raise JournalCorrupted(run_id=self.run_id, seq=expected_seq,
                                   reason=f"expected seq {expected_seq}, found {seq}")
        if self.keys is not None:
            raise JournalCorrupted(run_id=self.run_id, seq=seq,
                                   reason="a plain sha256 digest where the keyed chain needs an "
                                          "HMAC: written or rewritten without the chain key")
        message = (f"{self._pre}{seq}|{len(kind)}:{kind}|{step}|{incarnation}|{float(at)!r}|"
                   f"{self.prev}").encode("utf-8", "surrogatepass") + b"\n" \
            + payload_json.encode("utf-8")
        if _sha256(message).digest() != raw:
            raise JournalCorrupted(run_id=self.run_id, seq=seq,
                                   reason="content does not match its digest")
        d = "sha256:" + raw.hex()
        self.seq = expected_seq
        self.prev = d
        if expected_seq == self._head_seq:
            self.at_head = d
        return d

    def check_plain_rows(self, rows: Sequence[Sequence[Any]], digests: list[str]) -> int:
        """:meth:`check_plain` for consecutive stored rows ``(seq, kind, step, payload_json,
        incarnation, at, digest)``, in one loop: each checked row's digest text is appended to
        ``digests``. Stops at the first row whose stored digest is not 32 raw bytes (a keyed or
        hand-written one: the caller checks it with :meth:`check`) and returns how many rows it
        checked. Raises exactly what :meth:`check_plain` raises at the first bad row (the
        rows before it were checked; a caller must not use any row of a page that raised)."""
        if self.keys is not None:
            return 0
        run_id, pre, head_seq, sha = self.run_id, self._pre, self._head_seq, _sha256
        expected, prev = self.seq + 1, self.prev
        append = digests.append
        n = 0
        try:
            for seq, kind, step, payload_json, incarnation, at, raw in rows:
                if type(raw) is not bytes or len(raw) != 32:
                    break
                if seq != expected:
                    raise JournalCorrupted(run_id=run_id, seq=expected,
                                           reason=f"expected seq {expected}, found {seq}")
                try:  # the message of :func:`event_digest`, encoded at once: strict UTF-8
                    # gives the same bytes as its surrogatepass wherever it does not raise
                    message = (f"{pre}{seq}|{len(kind)}:{kind}|{step}|{incarnation}|"
                               f"{float(at)!r}|{prev}\n{payload_json}").encode()
                except UnicodeEncodeError:  # a lone surrogate: the rule's own encoding
                    message = (f"{pre}{seq}|{len(kind)}:{kind}|{step}|{incarnation}|"
                               f"{float(at)!r}|{prev}").encode("utf-8", "surrogatepass") \
                        + b"\n" + payload_json.encode("utf-8")
                if sha(message).digest() != raw:
                    raise JournalCorrupted(run_id=run_id, seq=seq,
                                           reason="content does not match its digest")
                prev = "sha256:" + raw.hex()
                append(prev)
                if expected == head_seq:
                    self.at_head = prev
                expected += 1
                n += 1
        finally:
            self.seq, self.prev = expected - 1, prev
        return n

    def known(self, events: Sequence[Event]) -> None:
        """Take ``events`` (the next ones, consecutive from ``seq + 1``, each linked to the one
        before) as verified without hashing: the caller knows this store verified them and
        nobody has written since (see ``SQLiteStore.iter_events``). Head bookkeeping only."""
        if not events:
            return
        if events[0].seq != self.seq + 1 or events[0].prev_digest != self.prev:
            raise JournalCorrupted(run_id=self.run_id, seq=self.seq + 1,
                                   reason=f"expected seq {self.seq + 1}, found {events[0].seq}")
        first = events[0].seq
        if first <= self._head_seq < first + len(events):
            self.at_head = events[self._head_seq - first].digest
        self.seq = events[-1].seq
        self.prev = events[-1].digest

    def finish(self, head: Sequence[Any] | None) -> None:
        """After the last event: check the count and the head's digest (:func:`verify_head`)."""
        if head is None or head[0] <= 0:
            return
        last_seq, last_digest = head
        if self.seq < last_seq:
            raise JournalCorrupted(run_id=self.run_id, seq=self.seq + 1,
                                   reason=f"the journal ends at seq {self.seq} but the run"
                                          f" recorded events up to seq {last_seq}")
        at_head = self.at_head if int(last_seq) == self._head_seq else None
        if at_head != last_digest:
            raise JournalCorrupted(run_id=self.run_id, seq=last_seq,
                                   reason="digest does not match the run's recorded head")


_sha256 = hashlib.sha256


def verify(run_id: str, rows: Sequence[Event], keys: ChainKeys | None = None) -> list[Event]:
    """Check the chain of ``rows`` (ordered by seq); return them or raise JournalCorrupted.

    With ``keys`` every digest must be a valid HMAC under one of them: a plain ``sha256:``
    digest is refused (anyone can compute one). Without keys, a keyed journal cannot be checked
    and is refused with :class:`~.chainkey.ChainKeyUnknown`. (:class:`ChainVerifier` is the
    same check, streamed.)"""
    checker = ChainVerifier(run_id, keys)
    for row in rows:
        checker.check(row)
    return list(rows)


class StepIndexBuilder:
    """Builds a store's ``step_index`` from ``(step, seq)`` pairs given in seq order: a compact
    array (8 bytes a position) while the positions are dense, a dict once they are sparse."""

    __slots__ = ("arr", "sparse")

    def __init__(self) -> None:
        self.arr = array("q")
        self.sparse: dict[int, int] | None = None

    def add(self, step: int, seq: int) -> None:
        sparse = self.sparse
        if sparse is not None:
            sparse[step] = max(seq, sparse.get(step, 0))
            return
        arr = self.arr
        n = len(arr)
        if step == n:
            arr.append(seq)
        elif 0 <= step < n:
            if seq > arr[step]:
                arr[step] = seq
        elif n < step < 2 * n + 1024:
            arr.extend(array("q", bytes(8 * (step - n))))
            arr.append(seq)
        else:  # a negative or far-away position: keep a dict from now on
            self.sparse = {i: v for i, v in enumerate(arr) if v}
            self.sparse[step] = max(seq, self.sparse.get(step, 0))

    def add_rows(self, rows: Sequence[Sequence[Any]], *, step_col: int = 3,
                 seq_col: int = 1) -> None:
        """:meth:`add` for the ``(step, seq)`` of each stored row that records a position, in
        one loop (the dense case without a call per row). The columns default to
        :data:`STORED_ROW`'s."""
        arr = self.arr
        append = arr.append
        add = self.add
        for row in rows:
            step = row[step_col]
            if step is None:
                continue
            if self.sparse is None:
                n = len(arr)
                if step == n:
                    append(row[seq_col])
                    continue
                if 0 <= step < n:
                    if row[seq_col] > arr[step]:
                        arr[step] = row[seq_col]
                    continue
            add(step, row[seq_col])

    def result(self) -> Sequence[int] | dict[int, int]:
        return self.sparse if self.sparse is not None else self.arr


def index_from(rows: Sequence[Sequence[Any]]) -> Sequence[int] | dict[int, int]:
    """``(step, max seq)`` rows (any order) as a store's ``step_index`` returns them."""
    builder = StepIndexBuilder()
    for step, seq in sorted(rows, key=lambda r: r[1]):
        builder.add(int(step), int(seq))
    return builder.result()


def verify_head(run_id: str, events: Sequence[Event], head: Sequence[Any] | None) -> None:
    """Check verified ``events`` against the run's recorded head ``(last_seq, last_digest)``.

    The chain alone cannot see a missing or rewritten *last* row (nothing links to it); the head,
    written in the same transaction as every append, can. Every store calls this after
    :func:`verify`."""
    if head is None or head[0] <= 0:
        return
    last_seq, last_digest = head
    if len(events) < last_seq:
        raise JournalCorrupted(run_id=run_id, seq=len(events) + 1,
                               reason=f"the journal ends at seq {len(events)} but the run"
                                      f" recorded events up to seq {last_seq}")
    if events[last_seq - 1].digest != last_digest:
        raise JournalCorrupted(run_id=run_id, seq=last_seq,
                               reason="digest does not match the run's recorded head")


def verify_origin(run_id: str, events: Sequence[Event], workflow: str, input_json: str) -> None:
    """Check the run row's ``workflow`` and ``input_json`` (outside the chain) against the
    journal's first event when it is the runtime's ``run_started`` record (inside the chain).

    A resume executes the workflow on ``input_json``: a rewritten input (another order, another
    amount) must not be replayed as if it had been started that way."""
    if not events or events[0].kind != "run_started":
        return
    try:
        started = json.loads(events[0].payload_json)
        if not (isinstance(started, dict) and "workflow" in started and "input" in started):
            return  # not the runtime's record (a store used directly): nothing to compare
        same = (started["workflow"] == workflow
                and canonical_json(started["input"]) == input_json)
    except (ValueError, MinirtError):
        same = False
    if not same:
        raise JournalCorrupted(run_id=run_id, seq=events[0].seq,
                               reason="the run row's workflow or input_json does not match the "
                                      "journal's run_started event")


@dataclass(frozen=True)
class PruneReport:
    """What :meth:`Store.prune` deleted (or, with ``dry_run``, would delete)."""

    runs: tuple[str, ...]  # the run ids, oldest first
    events: int
    kv: int
    artifacts: int
    dry_run: bool


class PruneInvalid(MinirtError):
    """A retention request that cannot be right (a negative age, a NaN). Nothing was deleted."""

    fields = ("reason",)
    template = "prune: {reason}"


_ARTIFACT_REF = re.compile(r"sha256:[0-9a-f]{64}")


def artifact_refs(texts: Iterator[str] | Sequence[str]) -> set[str]:
    """Every artifact digest a run's journal payloads or kv values could name.

    Deliberately broad (any ``sha256:<64 hex>`` in the text, not only ``{"$artifact": ...}``): an
    artifact is deleted only when nothing left names it, so a false match keeps a blob, never
    loses one."""
    out: set[str] = set()
    for text in texts:
        if "sha256:" in text:
            out.update(_ARTIFACT_REF.findall(text))
    return out


def check_prune_age(older_than: float) -> float:
    age = float(older_than)
    if not age >= 0:  # NaN too
        raise PruneInvalid(reason=f"older_than must be a duration of 0 s or more, not {age!r}")
    return age


@dataclass(frozen=True)
class RunRecord:
    """A run plus what it was started with."""

    run: Run
    workflow: str
    input_json: str
    created_at: float


class Store(Protocol):
    """The interface every store implements (SQLite, PostgreSQL). See the conformance tests."""

    def create_run(self, run_id: str, workflow: str, input_json: str, at: float,
                   events: Sequence[NewEvent] = ()) -> RunRecord: ...

    def get_run(self, run_id: str) -> RunRecord: ...

    def list_runs(self, states: Sequence[str] | None = None) -> list[RunRecord]: ...

    def transition(self, run_id: str, event: RunEvent, *, expected_revision: int | None = None,
                   events: Sequence[NewEvent] = (), kv: dict[str, str | None] | None = None
                   ) -> Run: ...

    def claim_next(self, worker_id: str, at: float, lease_for: float,
                   workflows: Sequence[str] | None = None,
                   events: Sequence[NewEvent] = ()) -> RunRecord | None: ...

    def append(self, run_id: str, incarnation: int, events: Sequence[NewEvent], *,
               lease_until: float | None = None, kv: dict[str, str | None] | None = None
               ) -> list[Event]: ...

    def read(self, run_id: str, *, after_seq: int = 0) -> list[Event]: ...

    def iter_events(self, run_id: str, *, after_seq: int = 0,
                    page_size: int = PAGE_SIZE) -> Iterator[Event]: ...

    def step_index(self, run_id: str) -> Sequence[int] | dict[int, int]: ...

    def put_artifact(self, data: bytes) -> str: ...

    def get_artifact(self, digest: str) -> bytes: ...

    def kv_get(self, run_id: str, key: str) -> str | None: ...

    def kv_items(self, run_id: str) -> dict[str, str]: ...

    def set_kv(self, run_id: str, kv: dict[str, str | None]) -> None: ...

    def prune(self, older_than: float, *, now: float, dry_run: bool = False) -> PruneReport: ...

    def close(self) -> None: ...

    def transaction(self) -> AbstractContextManager[Any]: ...


def iter_kinds(events: Sequence[Event], *kinds: str) -> Iterator[Event]:
    return (e for e in events if e.kind in kinds)
