"""Run state machines: the logical run, separated from the worker incarnation that executes it.

A **run** is the logical intent ("refund order 42"): it has an id, a state and a revision, and it
outlives every process. An **incarnation** is one worker's attempt at executing the run: it has a
number, the worker's id and a lease expiry. When a worker dies, its lease lapses, another worker
claims the run and gets the next incarnation number.

The incarnation number is a **fencing token**: every write a worker makes carries the number it
was given, and the store accepts a write only if that number is still the run's current one. So a
"zombie" worker (paused, partitioned, or just slow) whose lease expired cannot complete, fail or
journal anything once another worker has taken over, however late its message arrives.

The **revision** counts accepted transitions. Writers use it for compare-and-set: "apply this
event if the run is still at revision r". Two writers that both read revision r cannot both win.

Invariants kept here:

- Every transition is an entry of :data:`TRANSITIONS`; anything else raises
  :class:`IllegalTransition` (or :class:`RunIsTerminal` out of a terminal state). The event kinds
  are :class:`RunEventKind` (a str-enum: its values are the strings stored and sent as JSON).
- A store refuses an event whose kind is outside it with :class:`UnknownRunEvent` (an
  :class:`IllegalTransition`) before it writes or reads anything (:func:`check_run_event`, one
  set membership, first thing in every store's ``transition``). :func:`check_transition` itself
  keeps raising a plain :class:`IllegalTransition` for such a kind: the pure function is the
  course's drill (module 01), whose learners refuse every pair outside the table the same way.
- :func:`apply` is pure: it returns a new :class:`Run` with ``revision + 1`` and never mutates.
- An event carrying an incarnation older than the run's raises :class:`StaleIncarnation` and
  changes nothing.
- ``UNCERTAIN`` is the state of a run whose worker died while an external effect was in flight:
  the effect may or may not have happened, and the run must not continue until the effect is
  reconciled (looked up at the provider). It is not a failure, and it is not "not happened".

What this module does not do: it persists nothing (see :mod:`minirt.store`), and it does not know
what the run computes (see :mod:`minirt.runtime`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from .errors import MinirtError


class RunState(StrEnum):
    PENDING = "pending"  # created or released; no worker holds it
    RUNNING = "running"  # an incarnation holds the lease and executes it
    WAITING = "waiting"  # durably waiting (approval, timer); no lease held
    UNCERTAIN = "uncertain"  # a worker died with an effect in flight; reconcile before going on
    CANCELLING = "cancelling"  # cancel requested; cleanup not finished
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class RunEventKind(StrEnum):
    """Everything that can happen to a run (the second key of :data:`TRANSITIONS`).

    A member equals its string, so ``RunEvent("claim")`` and ``RunEvent(RunEventKind.CLAIM)`` are
    the same event, and stored rows and JSON hold the same values as before the enum existed.
    """

    CLAIM = "claim"
    HEARTBEAT = "heartbeat"
    RELEASE = "release"
    WAIT = "wait"
    WAKE = "wake"
    EFFECT_UNKNOWN = "effect_unknown"
    EFFECT_RESOLVED = "effect_resolved"
    COMPLETE = "complete"
    FAIL = "fail"
    CANCEL_REQUEST = "cancel_request"
    CANCELLED = "cancelled"


#: The run-event vocabulary as plain strings (a set membership check, no enum lookup).
RUN_EVENT_KINDS: frozenset[str] = frozenset(k.value for k in RunEventKind)

TERMINAL: frozenset[RunState] = frozenset(
    {RunState.SUCCEEDED, RunState.FAILED, RunState.CANCELLED}
)

#: Events a worker sends on behalf of its incarnation: fenced by the incarnation number.
E = RunEventKind
FENCED_EVENTS: frozenset[str] = frozenset(
    {E.HEARTBEAT, E.RELEASE, E.WAIT, E.EFFECT_UNKNOWN, E.EFFECT_RESOLVED, E.COMPLETE, E.FAIL,
     E.CANCELLED}
)
del E

S = RunState
#: The whole state machine: (state, event kind) -> next state. Nothing else is legal.
TRANSITIONS: dict[tuple[RunState, str], RunState] = {
    (S.PENDING, "claim"): S.RUNNING,
    (S.RUNNING, "claim"): S.RUNNING,  # takeover: only once the holder's lease has expired
    (S.UNCERTAIN, "claim"): S.UNCERTAIN,  # takeover of a run that must still reconcile
    (S.CANCELLING, "claim"): S.CANCELLING,  # takeover to finish cleanup
    (S.RUNNING, "heartbeat"): S.RUNNING,
    (S.UNCERTAIN, "heartbeat"): S.UNCERTAIN,
    (S.CANCELLING, "heartbeat"): S.CANCELLING,
    (S.RUNNING, "release"): S.PENDING,
    (S.RUNNING, "wait"): S.WAITING,
    (S.WAITING, "wake"): S.PENDING,
    (S.RUNNING, "effect_unknown"): S.UNCERTAIN,
    (S.UNCERTAIN, "effect_resolved"): S.RUNNING,
    (S.RUNNING, "complete"): S.SUCCEEDED,
    (S.RUNNING, "fail"): S.FAILED,
    (S.UNCERTAIN, "fail"): S.FAILED,
    (S.PENDING, "cancel_request"): S.CANCELLING,
    (S.RUNNING, "cancel_request"): S.CANCELLING,
    (S.WAITING, "cancel_request"): S.CANCELLING,
    (S.UNCERTAIN, "cancel_request"): S.CANCELLING,
    (S.CANCELLING, "cancel_request"): S.CANCELLING,  # idempotent: asking twice changes nothing new
    (S.CANCELLING, "cancelled"): S.CANCELLED,
}
del S


class RunError(MinirtError):
    """Base of the run state machine's errors."""


class IllegalTransition(RunError):
    """An event that the transition table does not allow from the run's current state.

    Not :class:`StaleIncarnation` (a legal event from the wrong worker) and not
    :class:`RunIsTerminal` (any event after the run ended).
    """

    fields = ("run_id", "state", "event")
    template = "run {run_id}: event {event!r} is not allowed in state {state!r}"


class UnknownRunEvent(IllegalTransition):
    """An event whose kind is not a :class:`RunEventKind` (a typo, or a kind from elsewhere).

    Not an :class:`IllegalTransition` of a known kind: no state of the table accepts it. Raised
    by :func:`check_run_event`, which every store's ``transition`` calls before anything is
    written; the pure :func:`check_transition` raises a plain :class:`IllegalTransition`.
    """

    template = ("run {run_id}: {event!r} is not a run event (the known kinds: "
                + ", ".join(k.value for k in RunEventKind) + ")")


class RunIsTerminal(IllegalTransition):
    """An event for a run that already ended (succeeded, failed or cancelled). Terminal is final."""

    template = "run {run_id} is {state}: terminal states accept no event (got {event!r})"


class StaleIncarnation(RunError):
    """A write from an incarnation that is no longer the run's current one (a zombie worker).

    Raised by :func:`apply` and by every store write; nothing is applied. Not a
    :class:`RevisionConflict` (same incarnation, concurrent writer).
    """

    fields = ("run_id", "event", "incarnation", "current")
    template = (
        "run {run_id}: {event!r} from incarnation {incarnation} rejected, the run is now at "
        "incarnation {current}"
    )


class LeaseHeld(RunError):
    """A claim on a run whose lease another incarnation still holds.

    The fields are the facts (``lease_expires_at`` stays epoch seconds); the message says them
    for a person (:mod:`minirt.humantime`: local time, "in 27 s") and what to do. ``at``, when
    given (the claim's time, from the claimer's clock), is what "in 27 s" counts from.
    """

    fields = ("run_id", "holder", "lease_expires_at")
    template = "run {run_id} is leased to {holder} until {lease_expires_at}"

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.args = (self.explain(),)

    def explain(self) -> str:
        """Whose lease, when it ends in words, and what to do about it."""
        from .humantime import duration, local

        until = self.attrs.get("lease_expires_at")
        at = self.attrs.get("at")
        try:
            end = float(until)
        except (TypeError, ValueError):
            return self.template.format(**self.attrs)
        now = float(at) if at is not None else time.time()
        left = max(0.0, end - now)
        return (f"run {self.attrs['run_id']} is leased to {self.attrs['holder']} for "
                f"{duration(left)} more, until {local(end, now=now)} (epoch {end:.1f}): that "
                "worker may still be running it, or it died and its lease has not lapsed yet. "
                "Wait for it (rt.resume(run_id, wait=True), or `minirt resume --wait`), or give "
                "the runtime a shorter lease_for (how long a dead worker's runs wait)")


class RevisionConflict(RunError):
    """Compare-and-set lost: the run moved past the revision the writer read.

    The writer should reload and decide again. Not :class:`StaleIncarnation`.
    """

    fields = ("run_id", "expected", "actual")
    template = "run {run_id}: expected revision {expected}, found {actual}"


class RunNotFound(RunError):
    fields = ("run_id",)
    template = "no run with id {run_id!r}"


class DuplicateRun(RunError):
    """A run with this id already exists (starting a run is idempotent only through get-or-create)."""

    fields = ("run_id",)
    template = "a run with id {run_id!r} already exists"


@dataclass(frozen=True)
class Incarnation:
    """One worker's attempt at a run. ``number`` is the fencing token."""

    run_id: str
    number: int  # Invariant: strictly increases with every claim of the run
    worker_id: str
    lease_expires_at: float  # absolute time (seconds), from the claiming worker's clock


@dataclass(frozen=True)
class Run:
    """The logical run. Immutable: :func:`apply` returns a new one."""

    run_id: str
    state: RunState = RunState.PENDING
    revision: int = 0  # Invariant: +1 for every accepted event, never reused
    incarnation: int = 0  # Invariant: the current fencing token; 0 means never claimed
    worker_id: str | None = None
    lease_expires_at: float | None = None
    detail: dict[str, Any] = field(default_factory=dict)  # result digest, error, wait reason...

    @property
    def is_terminal(self) -> bool:
        return self.state in TERMINAL

    def current_incarnation(self) -> Incarnation | None:
        if self.incarnation == 0 or self.worker_id is None:
            return None
        return Incarnation(self.run_id, self.incarnation, self.worker_id,
                           self.lease_expires_at or 0.0)


@dataclass(frozen=True)
class RunEvent:
    """Something that happened to a run. ``incarnation`` is required for fenced kinds.

    ``at`` is the time the event happened (absolute seconds from the writer's clock); ``lease_for``
    is how long a ``claim`` or ``heartbeat`` extends the lease.
    """

    kind: str
    at: float = 0.0
    incarnation: int | None = None
    worker_id: str | None = None
    lease_for: float = 30.0
    detail: dict[str, Any] = field(default_factory=dict)


def check_run_event(run_id: str, event: RunEvent) -> None:
    """Raise :class:`UnknownRunEvent` if ``event``'s kind is not a :class:`RunEventKind`.

    Every store calls it first in ``transition``, before its transaction: a typo is refused by
    name and nothing is read, locked or written.
    """
    if event.kind not in RUN_EVENT_KINDS:
        raise UnknownRunEvent(run_id=run_id, state="?", event=event.kind)


def check_transition(run: Run, event: RunEvent) -> RunState:
    """Return the state ``event`` moves ``run`` to, or raise the named error.

    The order of the checks is the protocol: terminal first (nothing moves a finished run), then
    the table, then fencing (a legal event from a stale incarnation is still refused), then the
    lease for takeovers.
    """
    if run.is_terminal:
        raise RunIsTerminal(run_id=run.run_id, state=run.state.value, event=event.kind)
    target = TRANSITIONS.get((run.state, event.kind))
    if target is None:
        raise IllegalTransition(run_id=run.run_id, state=run.state.value, event=event.kind)
    if event.kind in FENCED_EVENTS and event.incarnation != run.incarnation:
        raise StaleIncarnation(run_id=run.run_id, event=event.kind,
                               incarnation=event.incarnation, current=run.incarnation)
    if (event.kind == "claim" and run.state is not RunState.PENDING
            and run.lease_expires_at is not None and event.at < run.lease_expires_at):
        raise LeaseHeld(run_id=run.run_id, holder=run.worker_id,
                        lease_expires_at=run.lease_expires_at, at=event.at)
    return target


def apply(run: Run, event: RunEvent) -> Run:
    """Apply ``event`` to ``run`` and return the new run (pure; ``run`` is not changed).

    A ``claim`` starts a new incarnation (number + 1) with a fresh lease; ``heartbeat`` extends
    the lease; ``release``, ``wait`` and the terminal events drop it.
    """
    target = check_transition(run, event)
    changes: dict[str, Any] = {"state": target, "revision": run.revision + 1}
    if event.kind == "claim":
        changes.update(incarnation=run.incarnation + 1, worker_id=event.worker_id,
                       lease_expires_at=event.at + event.lease_for)
    elif event.kind == "heartbeat":
        changes["lease_expires_at"] = event.at + event.lease_for
    elif event.kind in {"release", "wait", "complete", "fail", "cancelled"}:
        changes.update(worker_id=None, lease_expires_at=None)
    if event.detail:
        changes["detail"] = {**run.detail, **event.detail}
    return replace(run, **changes)


def replay_events(run_id: str, events: list[RunEvent]) -> Run:
    """Fold ``events`` over a fresh run: the state a journal of run events describes."""
    run = Run(run_id)
    for event in events:
        run = apply(run, event)
    return run
