"""The journal cursor: where one execution of a run stands in its journal, and its only writer.

:class:`~minirt.runtime.Context` is the facade a workflow sees; under it, a :class:`JournalCursor`
owns the two facts that make replay work:

- the **position**: the next step position. It advances by one per claimed position
  (:meth:`JournalCursor.claim`), identically on replay, and only moves otherwise through
  :meth:`JournalCursor.skip_to`, forward (a cancelled run's cleanup starts past everything
  recorded; an expired deadline closes its position);
- the **writes**: every event this execution appends goes through :meth:`JournalCursor.write`,
  fenced by the incarnation, renewing the lease, and noted in the replay index at once.

Invariant: ``position`` never decreases, and the replay index (``journal``) holds every event
this cursor wrote. Guarantees: a position is claimed once per execution. Not guaranteed: that
what is written is right (the dispatch pipeline and the policies decide that).

May import: errors, journal, store.base. Nothing of runtime, dispatch or the course.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .errors import MinirtError
from .journal import Journal, Position
from .store.base import Event, NewEvent, Store

PATCHED = "patched"  # minirt.kinds.KIND.PATCHED (this module imports no kinds)


class PositionInvalid(MinirtError):
    """:meth:`JournalCursor.skip_to` was asked to move the step position back. Not a
    :class:`~minirt.journal.NonDeterminism` (the journal was not consulted)."""

    fields = ("run_id", "position", "current")
    template = "run {run_id}: cannot move the step position back to {position} from {current}"


class JournalCursor:
    """One execution's place in its run's journal (see the module docstring)."""

    __slots__ = ("journal", "store", "run_id", "incarnation", "position", "decisions")

    def __init__(self, journal: Journal, store: Store, run_id: str, incarnation: int) -> None:
        self.journal = journal
        self.store = store
        self.run_id = run_id
        self.incarnation = incarnation
        self.position = 0  # Invariant: the next step position; advances identically on replay
        self.decisions = 0  # Invariant: decisions claimed so far (the model's script index)

    def claim(self) -> tuple[int, Position | None]:
        """Claim the next position; return it and what the journal records there."""
        p = self.position
        self.position = p + 1
        return p, self.journal.at(p)

    def next_decision(self) -> int:
        """The index of the decision being claimed (replayed ones count too)."""
        index = self.decisions
        self.decisions = index + 1
        return index

    def unconsumed(self) -> list[int]:
        """The recorded positions at or after ``position``: each holds an opening event (or a
        ``patched`` marker). Empty once a replay consumed its whole history (what the runtime
        checks at the end of a run: :mod:`minirt.divergence`)."""
        out = []
        for step in range(self.position, self.journal.recorded_steps):
            pos = self.journal.at(step)
            if pos is not None and (pos.opening is not None
                                    or any(e.kind == PATCHED for e in pos.extra)):
                out.append(step)
        return out

    def heartbeat(self, lease_until: float) -> None:
        """Renew this incarnation's lease without writing an event (a fenced, empty append):
        what a long replay, which writes nothing, does so that no one takes the run over."""
        self.store.append(self.run_id, self.incarnation, [], lease_until=lease_until)

    def skip_to(self, position: int) -> None:
        """Move the next position forward to ``position``; never back (PositionInvalid)."""
        if position < self.position:
            raise PositionInvalid(run_id=self.run_id, position=position, current=self.position)
        self.position = int(position)

    def write(self, events: Sequence[NewEvent], kv: Mapping[str, str | None] | None, *,
              lease_until: float) -> list[Event]:
        """Append ``events`` (and ``kv``) now, fenced by this incarnation; note them for replay."""
        rows = self.store.append(self.run_id, self.incarnation, events,
                                 lease_until=lease_until, kv=dict(kv) if kv else None)
        self.journal.note(rows)
        return rows
