"""Group commit: appends that threads make at the same time share one transaction and one fsync.

A caller submits its append and blocks. If no commit is being led, it becomes the **leader**: it
takes every request queued so far (at most ``max_batch``; after waiting up to ``window_s`` for
more when the queue holds only its own), hands them to the store's ``commit_batch`` (one
transaction, one durable commit), and releases each caller of the batch. Requests that arrive
while a batch is committing queue up for the next one: the fsync a leader waits for is the window
in which the next batch fills, so throughput grows with concurrency instead of being capped at
one fsync per append. A leader leads one batch, then hands leadership to the first waiting
caller, so no caller waits for more than the batches ahead of it.

Invariant: a caller is released only after ``commit_batch`` returned for the batch holding its
request, with the request's ``rows`` set (committed, and durable as the store's commit is) or its
``error`` set (nothing of it was written). Guarantees: every submitted request is in exactly one
batch; the callers of a batch see their own outcome. Does not: order appends across runs (within
one run a caller waits for its append before making the next), or batch across processes (each
process's store has its own leader; SQLite serialises their transactions).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from .base import Event, NewEvent, StoreArgumentInvalid


class AppendRequest:
    """One caller's append, and, once its batch committed, its outcome."""

    __slots__ = ("run_id", "incarnation", "events", "lease_until", "kv", "rows", "error",
                 "done", "lead")

    def __init__(self, run_id: str, incarnation: int, events: Sequence[NewEvent],
                 lease_until: float | None, kv: dict[str, str | None] | None) -> None:
        self.run_id, self.incarnation, self.events = run_id, incarnation, events
        self.lease_until, self.kv = lease_until, kv
        self.rows: list[Event] | None = None
        self.error: BaseException | None = None
        # Only a caller that waits gets an event (a lone caller leads at once, without one).
        self.done: threading.Event | None = None
        self.lead = False  # set by the previous leader: this caller leads the next batch


class GroupCommit:
    """The commit leader protocol (see the module docstring) around ``commit_batch``."""

    def __init__(self, commit_batch: Callable[[Sequence[AppendRequest]], None], *,
                 window_s: float = 0.0, max_batch: int = 256) -> None:
        if not window_s >= 0 or max_batch < 1:
            raise StoreArgumentInvalid(reason=f"group commit needs window_s >= 0 and max_batch"
                                              f" >= 1, not {window_s!r} and {max_batch!r}")
        self._commit_batch = commit_batch
        self._window_s = float(window_s)
        self._max_batch = int(max_batch)
        self._mutex = threading.Lock()
        self._queue: list[AppendRequest] = []
        self._leading = False  # Invariant: True exactly while some caller leads a batch
        #: Batches committed and requests in them (for benchmarks and tests).
        self.batches = 0
        self.requests = 0

    def submit(self, req: AppendRequest) -> list[Event]:
        """Queue ``req``, wait until a commit holds it, return its rows or raise its error."""
        with self._mutex:
            lead = not self._leading
            if lead:
                self._leading = True
            else:
                req.done = threading.Event()
            self._queue.append(req)
        if not lead:
            assert req.done is not None
            req.done.wait()
            if req.lead:  # handed leadership, own request still queued
                req.done.clear()
                self._lead(req)
        else:
            self._lead(req)
        if req.error is not None:
            raise req.error
        assert req.rows is not None
        return req.rows

    def _lead(self, own: AppendRequest) -> None:
        if self._window_s and len(self._queue) < 2:
            time.sleep(self._window_s)
        with self._mutex:
            batch = self._queue[:self._max_batch]
            del self._queue[:len(batch)]
        try:
            self._commit_batch(batch)
        except BaseException as exc:  # commit_batch sets errors itself; this is a bug or a kill
            for r in batch:
                if r.rows is None and r.error is None:
                    r.error = exc
            raise
        finally:
            self.batches += 1
            self.requests += len(batch)
            with self._mutex:
                nxt = self._queue[0] if self._queue else None
                if nxt is None:
                    self._leading = False
                else:
                    nxt.lead = True
            for r in batch:
                if r.done is not None:
                    r.done.set()
            if nxt is not None and nxt.done is not None:
                nxt.done.set()
        if own not in batch:  # cannot happen: the leader's request is queued first or earlier
            raise RuntimeError("group commit: the leader's request was not committed")

    @property
    def busy(self) -> bool:
        """Whether a caller is leading a batch now (read without the mutex: a hint)."""
        return self._leading

    def stats(self) -> dict[str, Any]:
        return {"batches": self.batches, "requests": self.requests}
