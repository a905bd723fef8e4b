"""Divergence between a run's history and the code replaying it: detected, parked, or marked.

Three facts about a replay (see :mod:`minirt.journal` for the replay rule itself):

- **consumed**: at the end of a replayed run, every recorded position must have been claimed
  again. A deploy that *removes* a recorded call finishes without reaching it; that is refused
  as :class:`HistoryNotConsumed` (a :class:`~minirt.journal.NonDeterminism`), never completed
  with a result that ignores what was done.
- **parked**: a run that diverges (a changed or removed call) is not FAILED. The runtime moves
  it to WAITING through the ordinary ``wait`` transition of :data:`minirt.run.TRANSITIONS`, with
  ``detail["diverged"]`` holding the position, the recorded and the requested call and the error
  (what ``minirt show`` and the operator see), and ``waiting_for`` None, so no signal or timer
  wakes it and no worker picks it up. Rolling the deploy back and calling ``rt.resume(run_id)``
  wakes it (a journaled ``wake``) and replays it again; it finishes if the code matches.
- **patched**: a change that is meant is marked with ``ctx.patched("name")`` (Temporal-style):
  True for a new execution (a ``patched`` marker event is journaled at that position) and for a
  replay whose history recorded the marker there; False for a history recorded before the patch
  (nothing is consumed, so the old positions still line up).

Invariant: a parked run's journal is not written past what was recorded before it diverged
(replay raises before any write). Guarantees: a removed, changed or reordered call never
completes a run silently. Not guaranteed: that a step whose *inputs* changed is detected (steps
match by name; see :meth:`minirt.runtime.Context.step`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import MinirtError
from .journal import NonDeterminism, describe, new_event
from .kinds import KIND

if TYPE_CHECKING:
    from .runtime import Context


class HistoryNotConsumed(NonDeterminism):
    """The workflow ended while recorded positions were never claimed again (a removed call)."""

    template = ("run {run_id} diverged from its journal at step {step}: recorded {recorded}, "
                "the code now asks for {requested}")


class PatchNameInvalid(MinirtError):
    """``ctx.patched(name)`` needs a non-empty string name."""

    fields = ("name",)
    template = "ctx.patched() needs a non-empty name, not {name!r}"


def unconsumed(ctx: Context) -> list[int]:
    """The recorded positions at or after the cursor (none if the history was consumed)."""
    return ctx.cursor.unconsumed()


def check_consumed(ctx: Context, requested: str = "the end of the workflow") -> None:
    """Raise :class:`HistoryNotConsumed` naming the first recorded position never claimed."""
    left = unconsumed(ctx)
    if not left:
        return
    pos = ctx.journal.at(left[0])
    recorded = describe(pos.opening) if pos is not None and pos.opening is not None \
        else _marker(ctx, pos) or "an event"
    if len(left) > 1:
        recorded += f" (and {len(left) - 1} more recorded position(s))"
    raise HistoryNotConsumed(run_id=ctx.run_id, step=left[0], recorded=recorded,
                             requested=requested)


def _marker(ctx: Context, pos: Any) -> str | None:
    for e in getattr(pos, "extra", ()):
        if e.kind == KIND.PATCHED:
            return f"patch marker {ctx.journal.payload(e).get('name')!r}"
    return None


def parked_detail(ctx: Context, exc: NonDeterminism, *, uncertain: bool) -> dict[str, Any]:
    """The run detail of a parked, diverged run (what the operator sees)."""
    return {"waiting_for": None,
            "diverged": {"step": exc.attrs.get("step"), "recorded": exc.attrs.get("recorded"),
                         "requested": exc.attrs.get("requested"), "error": exc.to_record(),
                         "was_uncertain": uncertain,
                         "resume": "roll the deploy back (or mark the change with "
                                   "ctx.patched), then rt.resume(run_id)"}}


def patched(ctx: Context, name: str) -> bool:
    """Whether the code after a marked change runs (see the module docstring)."""
    if not isinstance(name, str) or not name:
        raise PatchNameInvalid(name=name)
    pos = ctx.journal.at(ctx.cursor.position)
    if pos is not None:
        marks = [ctx.journal.payload(e).get("name") for e in pos.extra if e.kind == KIND.PATCHED]
        if name not in marks:
            return False  # a history from before the patch: consume nothing
        ctx.claim_position()
        return True
    p, _ = ctx.claim_position()
    ctx.append(new_event(ctx.runtime.store, KIND.PATCHED, p, {"name": name}, ctx.now_raw()))
    return True
