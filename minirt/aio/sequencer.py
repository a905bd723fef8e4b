"""The replay sequencer of an async execution: concurrent tasks replay in the journal's order.

The first execution of an ``async def`` workflow that runs calls concurrently
(``asyncio.gather`` of branches, tasks of a ``TaskGroup``) journals its claims and results in
the order the world answered: a slow tool's result comes after a faster sibling's next intent.
A replay answers every recorded call at once, so without help the tasks would race ahead and
claim positions in another order than the one recorded (NonDeterminism). The sequencer makes
every journaled action of the workflow's tasks happen in the recorded order while the execution
replays:

- a **claim** of the next position whose opening is written when it is claimed (an ``intent``,
  a ``tool_rejected``, a ``wait``; the intents of a fan-out, written in one write, count as one
  claim) waits until every recorded event before it (by the journal's ``seq``) is consumed; a
  claim whose record is written later (a ``step`` or a ``decision``, journaled when its work
  ends) has no recorded claim time: it is taken once every result recorded before the first
  claim-time bound at or after it (its own record, the next intent) is consumed;
- a replayed **result** (a tool outcome, a step's or a decision's record) is handed back to its
  awaiting task only when it is the next unconsumed recorded event; the results of a fan-out but
  its last one are consumed in their turn by nobody (the fan-out resumes after its last);
- when several tasks wait to claim, the position goes to the first one (in arrival order) whose
  call matches the recorded opening (tool name and args digest, step name, decision name and
  prompt digest: the identities the replay checks compare, computed by :mod:`minirt.steps`).
  While only one task has used the sequencer (a workflow without concurrency), a claim whose
  turn it is proceeds without that comparison and the replay check decides, as before;
- a recorded position with no opening (a hole) was claimed by a step or a decision whose
  record the crash lost (an intent, a refusal, a wait are written when claimed): only a step or
  a decision matches it, and runs live;
- an intent recorded without an outcome is reconciled (live) only once every other recorded
  event is consumed; once the recorded history is exhausted (the cursor past everything recorded
  and no recorded result left to hand back) the sequencer switches itself off: everything runs
  live, with no waiting and no bookkeeping.

Invariant: at most one claim is granted and not yet made (``reserved``), and nothing else is
granted until it is made, so a grant cannot be overtaken. Guarantees: a workflow without
concurrency claims and replays exactly as without the sequencer (no waiting; a tool call costs a
few comparisons); a claim that no waiting task matches falls back to today's behaviour once the
loop is idle: the first waiting task claims it and the replay check raises its
:class:`~minirt.journal.NonDeterminism`; if only results wait (the call recorded next is never
asked for), the first waiting task raises NonDeterminism naming that position and the other
waiting tasks are cancelled (``CancelledError``: the replay diverged, they wait for nothing).

Idle detection is a **bounded idle check**, not a count of tasks: asyncio cannot tell publicly
whether a task is blocked on its children (the workflow's own task awaiting ``gather``) or on
the outside world, so "every task waits" is approximated by: some task waits here and the
sequencer made no progress for :data:`IDLE_SECONDS` of loop time followed by
:data:`IDLE_SPINS` loop iterations. Limits: a workflow that awaits non-journaled things (an
``asyncio.sleep``, a network read) between its calls replays deterministically only if the order
of those awaits is itself deterministic; one such await that lasts longer than
:data:`IDLE_SECONDS` while every other task waits here for it is taken for a divergence. A
cancellation that reaches a task while it waits here propagates as ``CancelledError`` without
journaling a cancel request (the task is between two replayed positions, and nothing is in
flight). Not guaranteed either: the claim time of a step or a decision is bounded by reading
at most :data:`LOOKAHEAD` positions ahead; two branches asking for the very same call (same
tool and digest, same step name) at a contested position are told apart only by the order in
which they arrive, which mirrors the first execution's only as far as the results above do.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..canonical import digest
from ..journal import Position

if TYPE_CHECKING:
    from ..runtime import Context

INF = float("inf")

#: Loop time without progress, while a task waits here, before the idle check starts.
IDLE_SECONDS = 2.0
#: Loop iterations without progress, after :data:`IDLE_SECONDS`, before the fallback.
IDLE_SPINS = 20
#: How many recorded positions past the cursor are read to bound the next claim's time.
LOOKAHEAD = 4

#: Opening kinds written at the moment their position is claimed.
CLAIM_TIMED = ("intent", "tool_rejected", "wait")


class Want:
    """What a task asks to claim: compared with a recorded opening only when needed."""

    __slots__ = ("kinds", "name", "field", "_value", "_digest")

    def __init__(self, kinds: tuple[str, ...], name: str | None = None,
                 field: str | None = None, digest_value: str | None = None,
                 value: Any = None) -> None:
        self.kinds, self.name, self.field = kinds, name, field
        self._digest, self._value = digest_value, value

    @classmethod
    def tool(cls, name: str, raw_digest: str) -> Want:
        """A tool call: its tool and the digest of its arguments (``steps.args_identity``)."""
        return cls(("intent", "tool_rejected"), name, "args_digest", raw_digest)

    @classmethod
    def step(cls, name: str) -> Want:
        return cls(("step",), name)

    @classmethod
    def decision(cls, name: str, prompt: Any) -> Want:
        """A decision: its name and its prompt's digest (computed only if compared)."""
        return cls(("decision",), name, "prompt_digest", None, prompt)

    @classmethod
    def wait(cls, name: str | None = None) -> Want:
        return cls(("wait",), name)

    def matches(self, ctx: Context, pos: Position | None) -> bool:
        """Whether the opening recorded at ``pos`` is this call (what the replay check of the
        position would accept)."""
        opening = pos.opening if pos is not None else None
        if opening is None:  # a hole: claimed, its record lost in the crash; only a step or
            # a decision leaves one (an intent, a refusal, a wait are written when claimed)
            return "step" in self.kinds or "decision" in self.kinds
        if opening.kind not in self.kinds:
            return False
        if self.name is None and self.field is None:
            return True
        rec = ctx.journal.payload(opening)
        if self.name is not None and rec.get("name", rec.get("tool")) != self.name:
            return False
        if self.field is None:
            return True
        if self._digest is None:
            self._digest = digest(self._value)
        return rec.get(self.field) == self._digest


class _Waiter:
    __slots__ = ("position", "want", "future", "granted")

    def __init__(self, position: int | None, want: Want | None,
                 future: asyncio.Future[bool]) -> None:
        self.position = position  # None: a claim; else the position whose result it awaits
        self.want = want
        self.future = future
        self.granted = False


class ReplaySequencer:
    """The order keeper of one async execution (see the module docstring)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.end = ctx.journal.recorded_steps  # one past the recorded history
        # Invariant: False once the recorded history is exhausted; then every method returns
        # at once (a fresh execution never turns it on).
        self.active = self.end > 0
        # claimed positions whose recorded result is not handed back yet: position -> the seq
        # of that result (INF: an intent recorded without an outcome)
        self.pending: dict[int, float] = {}
        self.auto: set[int] = set()  # pending results that nobody collects (a fan-out's)
        self.waiters: list[_Waiter] = []
        self.reserved: _Waiter | None = None  # the claim granted and not yet made
        self.forced: int | None = None  # a position granted by the idle fallback
        self.first_task: asyncio.Task[Any] | None = None
        self.solo = True  # only one task has used the sequencer so far
        self.waits = 0  # how many times a task waited here (a fact, for tests and tools)
        self.last_seq = 0  # the highest seq consumed (claims made, results handed back)
        self.progress = 0
        self.watchdog: asyncio.TimerHandle | None = None

    # -- claims ----------------------------------------------------------------------------

    def may_claim(self, want: Want | None) -> bool:
        """Whether the calling task may claim the next position now (always, once the
        sequencer is off). If not, it awaits :meth:`turn`. Either way the caller then claims
        synchronously and calls :meth:`claimed` (or :meth:`release` if the claim raised)."""
        if not self.active:
            return True
        self._enter()
        if self.reserved is not None or (self.waiters and any(w.position is None
                                                              for w in self.waiters)):
            return False
        if not self.pending:  # nothing recorded is owed to anyone: the claim's turn
            return (self.solo or want is None or self.ctx.position >= self.end
                    or want.matches(self.ctx, self.ctx.journal.at(self.ctx.position)))
        return self._claim_allowed() and self._chosen(
            [_Waiter(None, want, None)]) is not None  # type: ignore[arg-type]

    async def turn(self, want: Want | None) -> None:
        """Wait until the calling task may claim the next position (see :meth:`may_claim`)."""
        if not self.may_claim(want):
            await self._wait(_Waiter(None, want, asyncio.get_running_loop().create_future()))

    def claimed_one(self, p: int, pos: Position | None) -> None:
        """:meth:`claimed` for one position (the path of every sequential call)."""
        self.reserved = None
        if not self.active:
            return
        opening = pos.opening if pos is not None else None
        if opening is None or self.forced is not None:
            self.claimed(((p, pos),))
            return
        kind = opening.kind
        if kind == "intent":
            if opening.seq > self.last_seq:
                self.last_seq = opening.seq
            outcome = pos.outcome  # type: ignore[union-attr]
            self.pending[p] = outcome.seq if outcome is not None else INF
        elif kind == "step" or kind == "decision":
            self.pending[p] = opening.seq
        else:
            self.claimed(((p, pos),))
            return
        self.progress += 1
        if self.waiters:
            self._pump()

    def claimed(self, slots: Sequence[tuple[int, Position | None]]) -> None:
        """The positions the granted task just claimed (a fan-out claims several at once)."""
        self.reserved = None
        if not self.active:
            return
        forced, self.forced = self.forced, None
        last: tuple[float, int] | None = None
        for p, pos in slots:
            if pos is None or pos.opening is None or p == forced:
                continue
            kind = pos.opening.kind
            if kind in CLAIM_TIMED:
                self.last_seq = max(self.last_seq, pos.opening.seq)
            if kind in ("step", "decision"):
                seq: float = pos.opening.seq
            elif kind == "intent":
                seq = pos.outcome.seq if pos.outcome is not None else INF
            else:  # a refusal or a wait: claimed and answered at once
                continue
            self.pending[p] = seq
            if len(slots) > 1:
                self.auto.add(p)
                if last is None or (seq, p) > last:
                    last = (seq, p)
        if last is not None:
            self.auto.discard(last[1])
        self.progress += 1
        self._changed()

    def release(self) -> None:
        """The granted claim raised before claiming: let the others go on."""
        self.reserved = None
        self.forced = None
        self.progress += 1
        self._changed()

    def claimed_range(self, start: int) -> None:
        """:meth:`claimed` for the positions from ``start`` to the cursor (a synchronous call
        of the context claimed them: a decision, a wait)."""
        journal = self.ctx.journal
        self.claimed([(p, journal.at(p)) for p in range(start, self.ctx.position)])

    def group_last(self, positions: Sequence[int]) -> int | None:
        """The position of a fan-out whose result the fan-out awaits (its other results are
        consumed in their turn by nobody)."""
        owed = [p for p in positions if p in self.pending and p not in self.auto]
        return owed[0] if owed else None

    # -- results ---------------------------------------------------------------------------

    def take(self, p: int) -> bool:
        """Consume the recorded result at ``p`` if it is the next unconsumed recorded event
        (True; also when there is nothing to wait for); False: the caller awaits
        :meth:`result`."""
        if not self.active:
            return True
        seq = self.pending.get(p)
        if seq is None:
            return True
        if self.reserved is not None:
            return False
        if seq == self.last_seq + 1 and len(self.pending) == 1:  # the very next event
            del self.pending[p]
            self.last_seq = int(seq)
            self.progress += 1
            if self.waiters:
                self._pump()
            if self.ctx.position >= self.end:
                self._check_done()
            return True
        if self._result_allowed(p):
            self._consume(p)
            return True
        return False

    async def result(self, p: int) -> None:
        """Wait until the recorded result at ``p`` is the next unconsumed recorded event."""
        if not self.take(p):
            await self._wait(_Waiter(p, None, asyncio.get_running_loop().create_future()))

    # -- the order -------------------------------------------------------------------------

    def _claim_bound(self) -> float:
        """An upper bound of the recorded time (seq) of the next claim: the exact seq of the
        first claim-timed opening at or after the cursor, or the record of a step/decision
        before it (a position is claimed before its record and before the next position)."""
        ctx = self.ctx
        start = ctx.position
        bound = INF
        for k in range(start, min(self.end, start + LOOKAHEAD)):
            pos = ctx.journal.at(k)
            if pos is None or pos.opening is None:
                continue
            bound = min(bound, pos.opening.seq)
            if pos.opening.kind in CLAIM_TIMED:
                break
        return bound

    def _first_owed(self) -> tuple[float, int] | None:
        if not self.pending:
            return None
        return min((s, p) for p, s in self.pending.items())

    def _head_owed(self) -> tuple[float, int, float | None] | None:
        """The first result owed that someone collects, after consuming the uncollected ones
        (a fan-out's) that come before the next claim; with the claim bound if computed."""
        bound: float | None = None
        while True:
            first = self._first_owed()
            if first is None:
                return None
            s, q = first
            if q not in self.auto:
                return s, q, bound
            if bound is None:
                bound = self._claim_bound()
            if not (s < bound or (s == INF and self.ctx.position >= self.end)):
                return s, q, bound
            del self.pending[q]
            self.auto.discard(q)
            if s != INF:
                self.last_seq = max(self.last_seq, int(s))
            self.progress += 1

    def _claim_allowed(self) -> bool:
        head = self._head_owed()
        if head is None:
            return True
        if self.ctx.position >= self.end:  # a live claim: after every recorded result
            return head[0] == INF
        bound = head[2] if head[2] is not None else self._claim_bound()
        return bound < head[0]

    def _result_allowed(self, p: int) -> bool:
        head = self._head_owed()
        if head is None or head[1] != p or head[1] in self.auto:
            return False
        seq = head[0]
        if seq == self.last_seq + 1:  # the very next event: nothing can come between
            return True
        if self.ctx.position >= self.end:
            return True
        if seq == INF:  # reconciled live: once every recorded claim is made
            return False
        bound = head[2] if head[2] is not None else self._claim_bound()
        return seq < bound

    def _chosen(self, claimers: list[_Waiter]) -> _Waiter | None:
        """The claimer the next position goes to: the first whose call matches the recording
        (the only one, while the sequencer has seen one task)."""
        if self.solo and len(claimers) == 1:
            return claimers[0]
        ctx = self.ctx
        if ctx.position >= self.end:
            return claimers[0]
        pos = ctx.journal.at(ctx.position)
        for w in claimers:
            if w.want is None or w.want.matches(ctx, pos):
                return w
        return None

    def _consume(self, p: int) -> None:
        seq = self.pending.pop(p)
        if seq != INF:
            self.last_seq = max(self.last_seq, int(seq))
        self.progress += 1
        if self.waiters:
            self._pump()
        self._check_done()

    def _changed(self) -> None:
        if self.waiters:
            self._pump()
        self._check_done()

    def _check_done(self) -> None:
        if self.active and not self.pending and self.reserved is None \
                and self.ctx.position >= self.end:
            self.active = False  # exhausted: everything runs live from now on
            self.first_task = None
            for w in list(self.waiters):
                self._grant(w)
            if self.watchdog is not None:
                self.watchdog.cancel()
                self.watchdog = None

    def _pump(self) -> None:
        """Grant what the order allows now, as long as it allows something."""
        while self.waiters and self.reserved is None and self.active:
            results = [w for w in self.waiters if w.position is not None and not w.granted]
            granted = False
            for w in results:
                if w.position in self.pending and self._result_allowed(w.position):
                    seq = self.pending.pop(w.position)
                    if seq != INF:
                        self.last_seq = max(self.last_seq, int(seq))
                    self.progress += 1
                    self._grant(w)
                    granted = True
                    break
            if granted:
                continue
            claimers = [w for w in self.waiters if w.position is None and not w.granted]
            if claimers and self._claim_allowed():
                w = self._chosen(claimers)
                if w is not None:
                    self.reserved = w
                    self.progress += 1
                    self._grant(w)
            return

    def _grant(self, w: _Waiter, exc: BaseException | None = None) -> None:
        w.granted = True
        if w.future.done():
            return
        if exc is not None:
            w.future.set_exception(exc)
        else:
            w.future.set_result(True)

    async def _wait(self, w: _Waiter) -> None:
        self.waits += 1
        self.waiters.append(w)
        self.progress += 1
        self._pump()
        self._arm()
        try:
            await w.future
        except BaseException:
            if self.reserved is w:  # granted a claim, cancelled before making it
                self.reserved = None
                self._changed()
            raise
        finally:
            self.waiters.remove(w)

    def _enter(self) -> None:
        task = asyncio.current_task()
        if self.first_task is None:
            self.first_task = task
        elif task is not self.first_task:
            self.solo = False

    # -- the idle check --------------------------------------------------------------------

    def _arm(self) -> None:
        if self.watchdog is None and self.waiters and self.active:
            loop = asyncio.get_running_loop()
            self.watchdog = loop.call_later(IDLE_SECONDS, self._idle, self.progress)

    def _idle(self, seen: int) -> None:
        self.watchdog = None
        if not self.waiters or not self.active:
            return
        if self.progress != seen:
            self._arm()
            return
        asyncio.get_running_loop().call_soon(self._spin, seen, IDLE_SPINS)

    def _spin(self, seen: int, left: int) -> None:
        if not self.waiters or not self.active:
            return
        if self.progress != seen:
            self._arm()
            return
        if left > 0:
            asyncio.get_running_loop().call_soon(self._spin, seen, left - 1)
            return
        self._stall()
        self._arm()

    def _stall(self) -> None:
        """Nothing moved while tasks wait here: fall back to today's behaviour."""
        self.progress += 1
        ctx = self.ctx
        waiting = [w for w in self.waiters if not w.granted]
        claimers = [w for w in waiting if w.position is None]
        if self.reserved is None and claimers:
            # the first claimer claims the position; its replay check raises NonDeterminism
            w = claimers[0]
            self.reserved, self.forced = w, ctx.position
            self._grant(w)
            return
        if waiting:
            p = ctx.position
            pos = ctx.journal.at(p) if p < self.end else None
            exc = ctx.diverged(p, pos.opening if pos is not None else None,
                               "nothing: every task of the workflow waits for another "
                               "task's replayed position")
            self._grant(waiting[0], exc)
            for w in waiting[1:]:  # the replay diverged: the others wait for nothing
                w.granted = True
                w.future.cancel()


__all__ = ["IDLE_SECONDS", "IDLE_SPINS", "ReplaySequencer", "Want"]
