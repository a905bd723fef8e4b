"""Forking a run: copy its journal up to a step position into a new run (``retry``, ``fork``).

**fork** copies a run's journal up to step position N (the ``run_started`` event and every
event of positions ``< N``; not the old run's claims and ends, its operators' actions or its
kv) into a new run id, PENDING. The new run replays those positions from the copy and executes
from N on as new work: its effects from N on get the new run's effect keys, so a fork is a new
run, not a resend of the old one's effects. **retry** of a FAILED or CANCELLED run (terminal:
nothing moves it again) is a fork at :func:`last_consistent`, the first position that is open
or ended in an error, so the failed step runs again in the new run and the steps before it are
not redone. (:class:`minirt.operator.Operator` has both actions and retry of a parked run.)

Invariant: a copy never contains an approval: a cut after a position holding an approval request
(``approval_request`` step) or its decision (an ``approval:`` wait) is refused, and a retry cuts
before the first one, so the new run asks for approval again under its own run id. (A copied
request and its receipt name the old run, so the gate would refuse the call at dispatch, an
``ApprovalMismatch`` on ``run_id``: checked by hand with the floor switched off. Refusing the
cut up front says so before anything runs.) A copy also never contains an open position (an
intent without an outcome, a wait without its result): such a cut is refused
(:class:`CannotFork`), because the new run would have to guess whether that effect happened. The
new run and its ``operator`` event (who, why, the run it came from, the cut) are written in one
transaction with the old run's ``operator`` event (when the old run has not ended: a finished
run's journal is closed).

Not guaranteed: that the copied steps' side effects are still valid (the fork trusts the old
journal, as a replay does). A retry replays every recorded decision before the failed step except
approvals (a model's choice is replayed; a reviewer is asked again). kv is not copied, so a fork
of an approval run needs its own capability minted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .canonical import canonical_json, normalise
from .errors import MinirtError
from .journal import Journal
from .kinds import EventKind
from .store.base import Event, NewEvent, Store

if TYPE_CHECKING:
    from .operator import Operator

#: Kinds a fork never copies: the old run's claims and ends, and its operators' actions.
NOT_COPIED = (EventKind.TRANSITION, EventKind.OPERATOR)


class CannotFork(MinirtError):
    """A fork or retry that cannot be made honestly (an open position, a bad cut, a run in a
    state retry does not apply to). Nothing is written."""

    fields = ("run_id", "reason")
    template = "run {run_id}: {reason}"


@dataclass(frozen=True)
class Forked:
    """What ``fork``/``retry`` made: the new run, the cut, how many events were copied."""

    run_id: str
    from_run: str
    position: int
    copied: int
    resumed: bool = False  # retry of a parked run: the same run executed again, no copy


def _inconsistent(journal: Journal, pos: int) -> str | None:
    """Why position ``pos`` is not consistent (open, or ended in an error), or None."""
    at = journal.at(pos)
    if at is None or at.opening is None:
        return "nothing recorded"
    if at.outcome is None:
        return f"{at.opening.kind} without an outcome"
    if at.outcome.kind in (EventKind.TOOL_ERROR, EventKind.TOOL_REJECTED):
        return at.outcome.kind
    if at.outcome.kind == EventKind.STEP and "error" in journal.payload(at.outcome):
        return "step raised"
    return None


def _is_approval(journal: Journal, pos: int) -> bool:
    at = journal.at(pos)
    if at is None or at.opening is None:
        return False
    p = journal.payload(at.opening)
    name = str(p.get("name", "")) if isinstance(p, dict) else ""
    return ((at.opening.kind == EventKind.STEP and name == "approval_request")
            or (at.opening.kind == EventKind.WAIT and name.startswith("approval:")))


def approval_floor(journal: Journal) -> int:
    """The first position that holds an approval request or decision (a fork may not copy
    it); the number of recorded positions if none does."""
    return next((pos for pos in range(journal.recorded_steps) if _is_approval(journal, pos)),
                journal.recorded_steps)


def last_consistent(store: Store, run_id: str) -> int:
    """Where ``retry`` cuts: the first step position that is open, ended in an error, or holds
    an approval; the number of recorded positions if there is none."""
    journal = Journal.load(store, run_id)
    for pos in range(approval_floor(journal)):
        if _inconsistent(journal, pos) is not None:
            return pos
    return approval_floor(journal)


def free_id(store: Store, run_id: str, word: str) -> str:
    """``<run_id>.<word>N`` for the smallest N not taken."""
    from .run import RunNotFound

    for n in range(1, 10_000):
        candidate = f"{run_id}.{word}{n}"
        try:
            store.get_run(candidate)
        except RunNotFound:
            return candidate
    raise CannotFork(run_id=run_id, reason=f"no free run id {run_id}.{word}N")


def copy_run(op: Operator, run_id: str, position: int, new_id: str, *, action: str, by: str,
             reason: str) -> Forked:
    """Copy ``run_id``'s positions ``< position`` into the new run ``new_id`` (PENDING), with
    ``op``'s ``operator`` events in both runs (see the module docstring)."""
    from .ids import check_run_id

    check_run_id(new_id)
    store = op.store
    rec = store.get_run(run_id)
    journal = Journal.load(store, run_id)
    if not isinstance(position, int) or isinstance(position, bool) or position < 0:
        raise CannotFork(run_id=run_id, reason=f"position must be an int >= 0, not {position!r}")
    if position > journal.recorded_steps:
        raise CannotFork(run_id=run_id, reason=f"position {position} is past the journal "
                         f"({journal.recorded_steps} positions recorded)")
    floor = approval_floor(journal)
    if position > floor:
        raise CannotFork(run_id=run_id, reason=(
            f"position {floor} holds an approval request or decision, which a fork does not "
            f"copy (the new run asks again): fork at {floor} or earlier"))
    for pos in range(position):
        at = journal.at(pos)
        if at is not None and at.opening is not None and at.outcome is None:
            raise CannotFork(run_id=run_id, reason=(
                f"position {pos} is open ({at.opening.kind} without an outcome): resolve it "
                f"first, or fork before it (at {pos} or earlier)"))
    keep: list[Event] = [e for e in journal.events if e.kind == EventKind.RUN_STARTED
                         or (e.step is not None and e.step < position
                             and e.kind not in NOT_COPIED)]
    now = op.clock.now()
    note = canonical_json(normalise({"action": action, "by": by, "reason": reason,
                                     "from_run": run_id, "position": position,
                                     "copied": len(keep)}))
    events = [NewEvent(e.kind, e.step, e.payload_json, e.at) for e in keep]
    events.append(NewEvent(EventKind.OPERATOR, None, note, now))
    with store.transaction():
        store.create_run(new_id, rec.workflow, rec.input_json, now, events=events)
        if not store.get_run(run_id).run.is_terminal:  # a finished run's journal is closed
            op.record(run_id, action, by, reason, to_run=new_id, position=position)
    return Forked(new_id, run_id, position, len(keep))
