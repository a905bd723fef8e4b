"""Reading a journal out of SQL: paged, verified as it streams, and verified whole before a claim.

:class:`JournalReads` is the reading half of :class:`minirt.store.sqlcore.SQLCore` (a mixin it
inherits; split out so each file holds one concept). Every read verifies the hash chain from
seq 1 and ends against the run's recorded head; memory is one page (keyset pagination on
``seq``), whatever the journal's length.

Invariant: a row is returned only after its page was checked (seq, link, digest; or, for a page
a claim here verified and nobody has written since per the dialect's data version, seq and
link only). Guarantees: the same rows and the same errors on every dialect (the dialect decodes
a stored digest, :meth:`JournalReads._digest_of`). Does not: lock anything (a read sees the
rows committed when each page is fetched), or trust a keyed chain without hashing it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .base import (
    GENESIS,
    PAGE_SIZE,
    STORED_ROW,
    ChainVerifier,
    Event,
    StepIndexBuilder,
    StoreArgumentInvalid,
    index_from,
    verify_origin,
)
from .chainkey import ChainKeys

if TYPE_CHECKING:
    import threading

    from .sqlcore import RunRow

# What the core stores of an event; the dialect decodes ``digest`` (:meth:`JournalReads._digest_of`).
READ_COLS = ", ".join(STORED_ROW)
# What a journal read fetches a page at a time: the stored row without its run_id (the query
# selects one run, so every row's is the one asked for). Event rows stay plain tuples (a resume
# reads every one; a named tuple costs a call each): loops unpack them by name, and the keyset
# position is read at this index.
PAGE_COLS = ", ".join(c for c in STORED_ROW if c != "run_id")
SEQ = PAGE_COLS.split(", ").index("seq")
# ``Event(*fields)`` without the named tuple's Python-level ``__new__`` (the same object).
_tuple_new = tuple.__new__


class JournalReads:
    """The journal's reads (see the module docstring); :class:`~.sqlcore.SQLCore` provides
    ``_fetch``, ``_x``, the lock and the connection."""

    chain_keys: ChainKeys | None
    _db: Any
    _lock: threading.RLock
    _verified: dict[str, Any]
    _claim_index: dict[str, tuple[Any, int, Any]]

    def _fetch(self, sql: str, args: Sequence[Any], *, one: bool = False) -> Any:
        raise NotImplementedError

    def _x(self, db: Any, sql: str, args: Sequence[Any] = ()) -> Any:
        raise NotImplementedError

    # -- dialect hooks ------------------------------------------------------------------------

    def _digest_of(self, stored: Any) -> Any:
        """A stored digest as the verifier takes it: 32 raw bytes (plain) or the text."""
        return stored


    def _data_version(self, db: Any) -> Any:
        """A token that changes when another connection writes; None where there is none
        (then nothing a claim verified is trusted later)."""
        return None


    def _verifier(self, run_id: str, head: Sequence[Any] | None) -> ChainVerifier:
        """The chain verifier for one journal read (a dialect module may name its own)."""
        return ChainVerifier(run_id, self.chain_keys, head)


    # -- reads --------------------------------------------------------------------------------

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
        claim by this store verified the whole journal and, per the dialect's data version, no
        other connection has written since, nor any caller's :meth:`transaction`); a bad row
        raises :class:`JournalCorrupted` when the stream reaches it (the rows before it were
        yielded: a caller that must not act on a corrupted journal verifies it whole first, as
        a claim does). The store's lock is held while a page is fetched, not between pages."""
        for page in self.iter_pages(run_id, after_seq=after_seq, page_size=page_size):
            yield from page

    def iter_pages(self, run_id: str, *, after_seq: int = 0,
                   page_size: int = PAGE_SIZE) -> Iterator[list[Event]]:
        """:meth:`iter_events` a page at a time: each list holds the next events in seq order
        (at most ``page_size``; none empty), every one of them checked before the list is
        yielded. For a reader that takes the journal in pages (:meth:`Journal.stream`)."""
        if page_size < 1:
            raise StoreArgumentInvalid(reason=f"page_size must be at least 1, not {page_size!r}")
        head = self._fetch("SELECT last_seq, last_digest FROM runs WHERE run_id=?", (run_id,),
                           one=True)
        checker = self._verifier(run_id, head)
        last = 0
        while True:
            with self._lock:
                rows = self._page(None, run_id, last, page_size)
                trusted = (run_id in self._verified
                           and self._verified[run_id] == self._data_version(self._db))
            page = self._checked(checker, rows, trusted=trusted)
            if after_seq and page and page[0].seq <= after_seq:
                page = [e for e in page if e.seq > after_seq]
            if page:
                yield page
            if len(rows) < page_size:
                break
            last = rows[-1][SEQ]
        checker.finish(head)

    def _page(self, db: Any, run_id: str, after: int, limit: int) -> list[Any]:
        sql = f"SELECT {PAGE_COLS} FROM events WHERE run_id=? AND seq>? ORDER BY seq LIMIT ?"
        if db is None:
            return self._fetch(sql, (run_id, after, limit))
        return self._x(db, sql, (run_id, after, limit)).fetchall()

    def step_index(self, run_id: str) -> Sequence[int] | dict[int, int]:
        """For each recorded step position ``p``, the last seq of the run's journal that records
        it (an array indexed by ``p``, 0 where none does; a dict when the positions are
        sparse). What a streamed replay needs to know when it has read everything recorded at
        a position. Right after a claim here, the index its verification built; otherwise read
        from the rows, unverified (the stream that follows verifies them)."""
        with self._lock:
            cached = self._claim_index.pop(run_id, None)
            if cached is not None and cached[0] is not None \
                    and self._verified.get(run_id) == cached[0] == self._data_version(self._db) \
                    and self._fetch("SELECT 1 FROM events WHERE run_id=? AND seq>? AND"
                                    " step IS NOT NULL LIMIT 1", (run_id, cached[1]),
                                    one=True) is None:
                return cached[2]  # the claim's index, and no position recorded since
            rows = self._fetch("SELECT step, MAX(seq) FROM events WHERE run_id=? AND"
                               " step IS NOT NULL GROUP BY step", (run_id,))
        return index_from(rows)

    def _verify_txn(self, db: Any, row: RunRow) -> None:
        """Verify the run's whole journal inside the open transaction (before a claim), and the
        run row's workflow and input against the journal's first event. Streams page by page,
        builds no events but the first, and keeps the positions' index for the replay that
        follows (:meth:`step_index`)."""
        run_id = row.run_id
        head = (row.last_seq, row.last_digest)
        checker = self._verifier(run_id, head)
        check_plain, check = checker.check_plain, checker.check
        digest_of = self._digest_of
        steps = StepIndexBuilder()
        first: list[Event] = []
        last = 0
        plain = type(self)._digest_of is JournalReads._digest_of  # stored digests as read
        digests: list[str] = []
        while True:
            rows = self._page(db, run_id, last, PAGE_SIZE)
            done = checker.check_plain_rows(rows, digests) if plain else 0
            digests.clear()
            for seq, kind, step, payload_json, incarnation, at, stored in (
                    rows[done:] if done else rows):
                prev = checker.prev
                dig = digest_of(stored)
                if type(dig) is bytes and len(dig) == 32:
                    check_plain(seq, kind, step, payload_json, incarnation, at, dig)
                else:
                    check(Event(run_id, seq, kind, step, payload_json, incarnation, at, prev,
                                digest_text(dig)))
            if rows and not first:
                seq, kind, step, payload_json, incarnation, at, _ = rows[0]
                first.append(Event(run_id, seq, kind, step, payload_json, incarnation, at,
                                   GENESIS, digest_text(digest_of(rows[0][-1]))))
            steps.add_rows(rows, step_col=2, seq_col=SEQ)
            if len(rows) < PAGE_SIZE:
                break
            last = rows[-1][SEQ]
        checker.finish(head)
        verify_origin(run_id, first, row.workflow, row.input_json)
        # Inside the write transaction no other writer can commit to this run's rows, so this
        # is the version the data has when ours commits.
        version = self._data_version(db)
        if version is None:
            return
        self._verified[run_id] = version
        while len(self._verified) > 1024:
            self._verified.pop(next(iter(self._verified)))
        self._claim_index[run_id] = (version, checker.seq, steps.result())
        while len(self._claim_index) > 4:
            self._claim_index.pop(next(iter(self._claim_index)))

    def _checked(self, checker: ChainVerifier, rows: Sequence[Sequence[Any]], *,
                 trusted: bool = False) -> list[Event]:
        """Rebuild the events of consecutive rows, each checked by ``checker`` (its
        ``prev_digest`` is the previous row's digest: a missing or reordered row shows up as a
        seq gap or a digest that no longer covers its predecessor). ``trusted``: rows this
        store verified and nobody has written since; their seqs and the head are checked,
        their contents not hashed again. The whole page is checked before any is returned."""
        if trusted and checker.keys is None and rows:
            known = self._known(checker, rows)
            if known is not None:
                return known
        check_plain, check = checker.check_plain, checker.check
        digest_of = self._digest_of
        run_id = checker.run_id
        out: list[Event] = []
        append = out.append
        done = 0
        if type(self)._digest_of is JournalReads._digest_of:  # stored digests as read
            prev, digests = checker.prev, []
            done = checker.check_plain_rows(rows, digests)
            new = _tuple_new
            for row, d in zip(rows, digests, strict=False):  # digests: the checked front
                append(new(Event, (run_id, *row[:-1], prev, d)))
                prev = d
            if done == len(rows):
                return out
            rows = rows[done:]
        for seq, kind, step, payload_json, incarnation, at, stored in rows:
            prev = checker.prev
            dig = digest_of(stored)
            if type(dig) is bytes and len(dig) == 32:
                d = check_plain(seq, kind, step, payload_json, incarnation, at, dig)
                append(Event(run_id, seq, kind, step, payload_json, incarnation, at, prev, d))
            else:
                e = Event(run_id, seq, kind, step, payload_json, incarnation, at, prev,
                          digest_text(dig))
                check(e)
                append(e)
        return out

    def _known(self, checker: ChainVerifier, rows: Sequence[Sequence[Any]]
               ) -> list[Event] | None:
        """A trusted page of plain digests with consecutive seqs, or None (then every row is
        checked one by one). The primary key orders the rows and makes seqs unique, so the
        page is gapless exactly when its last seq is its first plus its length minus one."""
        first = checker.seq + 1
        if rows[0][SEQ] != first or rows[-1][SEQ] != first + len(rows) - 1:
            return None
        out: list[Event] = []
        append = out.append
        prev = checker.prev
        digest_of = (None if type(self)._digest_of is JournalReads._digest_of
                     else self._digest_of)  # None: stored digests as read
        run_id = checker.run_id
        new = _tuple_new
        for seq, kind, step, payload_json, incarnation, at, stored in rows:
            dig = stored if digest_of is None else digest_of(stored)
            if type(dig) is not bytes or len(dig) != 32:
                return None
            d = "sha256:" + dig.hex()
            append(new(Event, (run_id, seq, kind, step, payload_json, incarnation, at, prev, d)))
            prev = d
        checker.known(out)
        return out


def digest_text(value: bytes | str) -> str:
    """A stored digest as text: raw bytes are a plain sha256; text (a keyed digest, or one
    written by hand by a repair tool or a test forging a row) is read as is."""
    return value if isinstance(value, str) else "sha256:" + bytes(value).hex()
