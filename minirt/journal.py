"""Step journals: an append-only record of what a run decided and what the world answered.

Each run has a journal of immutable events (see :class:`minirt.store.base.Event`): a sequence
number, the run, a kind, the step position, a canonical JSON payload, the incarnation that wrote it,
the time, and a digest chained to the previous event's digest.

Replay rule: a run is re-executed from the top after every crash. At step position ``p`` the
runtime first looks in the journal:

- an outcome is recorded at ``p`` → return it (or raise the recorded error) without touching the
  outside world;
- an **intent** is recorded at ``p`` but no outcome → the call may or may not have happened: hand it
  to a reconciliation policy, never simply run it again;
- what is recorded at ``p`` is a different call (another kind, name, tool or arguments) → raise
  :class:`NonDeterminism` with the position, the recorded call and the new one;
- nothing is recorded at ``p`` → execute, journaling as you go.

Large payloads are stored once as content-addressed artifacts and the event keeps a reference
(``{"$artifact": digest, "size": n}``), so the journal stays small and a repeated output is stored
once.

Guarantees: a journal that was altered, truncated in the middle, or reordered is refused with
:class:`~minirt.store.base.JournalCorrupted` naming the run and position. The result (or error)
of a finished run is served from its verified journal (:func:`verified_end`), not from the run
row's ``detail_json`` alone, which is outside the chain. Not guaranteed: that the
code replaying the journal is the code that wrote it; that is what :class:`NonDeterminism` detects.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .canonical import canonical_json, normalise
from .errors import MinirtError
from .store.base import Event, JournalCorrupted, NewEvent, Store

#: Payloads above this many bytes go to the artifact store and are referenced by digest.
ARTIFACT_THRESHOLD = 16 * 1024

#: Event kinds that open a step position. ``step``, ``decision`` and ``tool_rejected`` carry their
#: own outcome (one durable write per step); an ``intent`` or a ``wait`` is closed by a later event.
OPENING_KINDS = ("step", "decision", "intent", "wait", "tool_rejected")
SELF_CLOSING_KINDS = ("step", "decision", "tool_rejected")
OUTCOME_KINDS = ("tool_result", "tool_error", "wait_result")


class NonDeterminism(MinirtError):
    """On replay, the code asked for something other than what the journal recorded here.

    Carries the position and both calls. Not a :class:`JournalCorrupted` (the journal is intact;
    the code or its inputs changed).
    """

    fields = ("run_id", "step", "recorded", "requested")
    template = ("run {run_id} diverged from its journal at step {step}: recorded {recorded}, "
                "the code now asks for {requested}")


class UnresolvedIntent(MinirtError):
    """A tool intent with no recorded outcome, that the reconciliation policy could not settle.

    The effect may or may not have happened. The run is moved to UNCERTAIN and waits for an
    operator or a provider lookup; it is never retried blindly.
    """

    fields = ("run_id", "step", "tool", "effect_key", "reason")
    template = ("run {run_id} step {step}: outcome of {tool} ({effect_key}) is unknown and was "
                "not reconciled: {reason}")


@dataclass(frozen=True)
class Position:
    """What the journal holds at one step position."""

    step: int
    opening: Event | None  # the step/decision/intent/wait event
    outcome: Event | None  # its result, or None if the position is open (an unresolved intent)
    extra: tuple[Event, ...] = ()  # reconciliation notes, attempts...

    @property
    def is_unresolved(self) -> bool:
        return self.opening is not None and self.outcome is None


class Journal:
    """The journal of one run as seen by one incarnation: a replay index plus an appender."""

    def __init__(self, store: Store, run_id: str, events: Sequence[Event]) -> None:
        self.store = store
        self.run_id = run_id
        self.events: list[Event] = list(events)
        self._by_step: dict[int, list[Event]] = defaultdict(list)
        for e in self.events:
            if e.step is not None:
                self._by_step[e.step].append(e)

    @classmethod
    def load(cls, store: Store, run_id: str) -> Journal:
        """Read and verify the whole journal (raises JournalCorrupted on any bad row)."""
        return cls(store, run_id, store.read(run_id))

    def at(self, step: int) -> Position | None:
        """What is recorded at ``step``, or None if nothing is."""
        rows = self._by_step.get(step)
        if not rows:
            return None
        opening = next((e for e in rows if e.kind in OPENING_KINDS), None)
        outcome = next((e for e in reversed(rows) if e.kind in OUTCOME_KINDS), None)
        if opening is not None and opening.kind in SELF_CLOSING_KINDS:
            outcome = opening
        extra = tuple(e for e in rows if e is not opening and e is not outcome)
        if opening is None and outcome is not None:
            raise JournalCorrupted(run_id=self.run_id, seq=outcome.seq,
                                   reason=f"outcome at step {step} has no opening event")
        return Position(step, opening, outcome, extra)

    @property
    def recorded_steps(self) -> int:
        return max(self._by_step, default=-1) + 1

    def unresolved(self) -> list[Position]:
        """Every position with an intent and no outcome (what recovery must reconcile)."""
        out = []
        for step in sorted(self._by_step):
            pos = self.at(step)
            if pos is not None and pos.is_unresolved and pos.opening is not None \
                    and pos.opening.kind == "intent":
                out.append(pos)
        return out

    def note(self, events: Sequence[Event]) -> None:
        """Add events this incarnation has just appended to the replay index."""
        for e in events:
            self.events.append(e)
            if e.step is not None:
                self._by_step[e.step].append(e)

    def payload(self, event: Event) -> Any:
        """The event's payload, with an artifact reference resolved."""
        data = json.loads(event.payload_json)
        if type(data) is dict and len(data) == 2 and "$artifact" in data and "size" in data:
            return json.loads(self.store.get_artifact(data["$artifact"]).decode("utf-8"))
        return data


def new_event(store: Store, kind: str, step: int | None, payload: Any, at: float, *,
              normalised: bool = False) -> NewEvent:
    """Build an event, moving a large payload into the artifact store. ``normalised=True``:
    the payload is already normalised (see :func:`minirt.canonical.canonical_json`)."""
    text = canonical_json(payload, normalised=normalised)
    data = text.encode("utf-8")  # the threshold and the size are in bytes, not characters
    if len(data) > ARTIFACT_THRESHOLD:
        ref = store.put_artifact(data)
        text = canonical_json({"$artifact": ref, "size": len(data)})
    return NewEvent(kind, step, text, at)


def describe(event: Event | None) -> str:
    """A short, stable description of an opening event, for NonDeterminism messages."""
    if event is None:
        return "nothing"
    p = json.loads(event.payload_json)
    if event.kind == "intent":
        return f"tool {p.get('tool')!r} with args digest {p.get('args_digest', '?')[:19]}"
    if event.kind == "step":
        return f"step {p.get('name')!r}"
    if event.kind == "decision":
        return f"decision {p.get('name')!r}"
    if event.kind == "wait":
        return f"wait for {p.get('name')!r}"
    return event.kind


#: The final transition each terminal outcome is journaled with, and the detail key it carries.
_ENDS = {"succeeded": ("complete", "result"), "failed": ("fail", "error")}


def verified_end(store: Store, run_id: str, state: str, detail: dict[str, Any]) -> dict[str, Any]:
    """The ``result``/``error`` of a finished run, from its verified journal.

    The runtime journals a run's end (``transition`` ``complete``/``fail``) in the same
    transaction that sets the run row's state and ``detail_json``, so the two must agree. The
    journal is read and verified (:meth:`Store.read`, keyed or plain chain) and its end is served;
    a row whose state or ``detail_json`` disagrees with it was changed outside the chain and is
    refused as :class:`JournalCorrupted`. A run whose journal records no end (ended by hand,
    through the store) is served from ``detail`` under the plain chain, and refused under a
    keyed chain (nothing the key covers says how it ended).
    """
    kind, key = _ENDS[state]
    events = store.read(run_id)
    end = next((e for e in reversed(events) if e.kind == "transition"
                and json.loads(e.payload_json).get("event") in ("complete", "fail")), None)
    if end is None:
        if getattr(store, "chain_keys", None) is not None:
            raise JournalCorrupted(run_id=run_id, seq=len(events) + 1,
                                   reason=f"the run is recorded as {state} but its keyed journal"
                                          " records no end")
        return {key: detail.get(key)} if key in detail else {}
    payload = json.loads(end.payload_json)
    if payload["event"] != kind:
        raise JournalCorrupted(run_id=run_id, seq=end.seq,
                               reason=f"the run row says {state}, the journal ended with "
                                      f"{payload['event']!r}")
    if key in detail and normalise(detail[key]) != payload.get(key):
        raise JournalCorrupted(run_id=run_id, seq=end.seq,
                               reason=f"the run row's {key} (detail_json) does not match the "
                                      "journal's final transition")
    return {key: payload.get(key)}
