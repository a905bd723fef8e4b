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

A replay reads the journal through :meth:`Journal.stream`: pages from the store as positions are
claimed, a window of at most :data:`WINDOW` positions behind the furthest claimed one kept in
memory, so resuming a run costs memory independent of its length; :meth:`Journal.load` keeps
every event (tools, tests, the viz).

Guarantees: a journal that was altered, truncated in the middle, or reordered is refused with
:class:`~minirt.store.base.JournalCorrupted` naming the run and position. The result (or error)
of a finished run is served from its verified journal (:func:`verified_end`), not from the run
row's ``detail_json`` alone, which is outside the chain. Not guaranteed: that the
code replaying the journal is the code that wrote it; that is what :class:`NonDeterminism` detects.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .canonical import canonical_json, normalise
from .errors import MinirtError
from .store.base import Event, JournalCorrupted, NewEvent, Store

#: Payloads above this many bytes go to the artifact store and are referenced by digest.
ARTIFACT_THRESHOLD = 16 * 1024

#: A streamed journal keeps the positions at most this far behind the furthest one claimed.
WINDOW = 256

#: Event kinds that open a step position. ``step``, ``decision`` and ``tool_rejected`` carry their
#: own outcome (one durable write per step); an ``intent`` or a ``wait`` is closed by a later event.
OPENING_KINDS = ("step", "decision", "intent", "wait", "tool_rejected")
SELF_CLOSING_KINDS = ("step", "decision", "tool_rejected")
OUTCOME_KINDS = ("tool_result", "tool_error", "wait_result")
_OPENS_ONLY = tuple(k for k in OPENING_KINDS if k not in SELF_CLOSING_KINDS)  # intent, wait


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


_new = object.__new__


def _position(step: int, opening: Event, outcome: Event) -> Position:
    """``Position(step, opening, outcome, ())``, the same object (same class, fields, equality
    and immutability), built without the frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` call per field): a replay builds one per position."""
    pos = _new(Position)
    fields = pos.__dict__
    fields["step"] = step
    fields["opening"] = opening
    fields["outcome"] = outcome
    fields["extra"] = ()
    return pos


class Journal:
    """The journal of one run as seen by one incarnation: a replay index plus an appender.

    Two forms with one interface. :meth:`load` (and the constructor) hold every event in memory,
    verified at load. :meth:`stream` holds a bounded window: events are read from the store in
    pages as positions are claimed (the chain verified as they stream), and positions more than
    :data:`WINDOW` behind the furthest claimed one are dropped (looking one up again re-reads the
    journal from the start: correct, slow)."""

    def __init__(self, store: Store, run_id: str, events: Sequence[Event]) -> None:
        self.store = store
        self.run_id = run_id
        self._events: list[Event] | None = list(events)
        self._by_step: dict[int, list[Event]] = defaultdict(list)
        for e in self._events:
            if e.step is not None:
                self._by_step[e.step].append(e)
        # streamed: the store's pages not yet taken. Invariant: None in the in-memory form
        self._pages: Iterator[Sequence[Event]] | None = None
        self._streamed = False
        self._index: Sequence[int] | dict[int, int] = ()
        self._read_seq = 0  # streamed: the seq of the last event taken from the stream
        self._floor = 0  # streamed: positions below this were dropped from the window
        self._top = -1  # streamed: the highest position recorded or noted
        self._noted_from: int | None = None  # streamed: the seq of the first event noted

    @classmethod
    def load(cls, store: Store, run_id: str) -> Journal:
        """Read and verify the whole journal (raises JournalCorrupted on any bad row)."""
        return cls(store, run_id, store.read(run_id))

    @classmethod
    def stream(cls, store: Store, run_id: str) -> Journal:
        """A journal read from the store as the replay advances, in bounded memory.

        For a store without ``iter_events``/``step_index`` this is :meth:`load`. Verification
        happens as the rows stream: a bad row raises :class:`JournalCorrupted` when it is reached,
        and at the latest when a position past everything recorded is claimed (before this
        incarnation's first new write), since that reads the journal to its end. Meant for a
        replay right after a claim, which verified the whole journal before it wrote."""
        if not (hasattr(store, "iter_events") and hasattr(store, "step_index")):
            return cls.load(store, run_id)
        j = cls(store, run_id, ())
        j._events = None
        j._streamed = True
        j._index = store.step_index(run_id)
        j._top = (max(j._index) if isinstance(j._index, dict) and j._index
                  else len(j._index) - 1)
        pages = (store.iter_pages(run_id) if hasattr(store, "iter_pages")
                 else _one_by_one(store.iter_events(run_id)))
        first = next(pages, None)  # starts the stream now: its head is the index's moment
        j._pages = None if first is None else itertools.chain((first,), pages)
        return j

    @property
    def events(self) -> Sequence[Event]:
        """Every event, in seq order. Streamed: a view that re-reads (and re-verifies) the
        store's journal each time it is iterated, this incarnation's writes included."""
        if self._events is not None:
            return self._events
        return _StoreView(self.store, self.run_id)

    def _take(self, upto: int | None) -> None:
        """Move events from the stream into the window a page at a time, until seq ``upto``
        is in it (None: all). The pages come checked whole (:meth:`iter_pages`)."""
        pages = self._pages
        if pages is None:
            return
        by_step, floor, noted = self._by_step, self._floor, self._noted_from
        for page in pages:
            if noted is not None and page[-1].seq >= noted:
                for e in page:
                    if e.seq >= noted:
                        break  # this incarnation's own writes: already in the window (note)
                    self._read_seq = e.seq
                    if e.step is not None and e.step >= floor:
                        by_step[e.step].append(e)
                break
            for e in page:
                step = e.step
                if step is not None and step >= floor:
                    by_step[step].append(e)
            self._read_seq = page[-1].seq
            if upto is not None and self._read_seq >= upto:
                return
        self._pages = None  # read to the end: the whole journal and its head are verified

    def _advance(self, step: int) -> list[Event] | None:
        """Streamed form: make the window hold every event recorded at ``step``."""
        if step < self._floor:
            return [e for e in self.events if e.step == step] or None
        index = self._index
        if type(index) is dict:
            last = index.get(step, 0)
        else:
            last = index[step] if 0 <= step < len(index) else 0
        if last > self._read_seq:
            self._take(last)
        elif last == 0 and step >= self._top:
            self._take(None)  # past everything recorded: verify the rest before any new write
        if step - self._floor > 2 * WINDOW:
            old, self._floor = self._floor, step - WINDOW
            by_step, floor = self._by_step, self._floor
            if floor - old <= len(by_step):  # drop the positions that left the window
                for k in range(old, floor):
                    by_step.pop(k, None)
            if floor - old > len(by_step) or (by_step and min(by_step) < floor):
                self._by_step = defaultdict(list, ((k, v) for k, v in by_step.items()
                                                   if k >= floor))
        return self._by_step.get(step)

    def at(self, step: int) -> Position | None:
        """What is recorded at ``step``, or None if nothing is."""
        if not self._streamed:
            rows = self._by_step.get(step)
        else:
            index = self._index
            # the replay's usual case, :meth:`_advance` without its call: a dense index, the
            # position's events already in the window, the window not due to move
            if (type(index) is not dict and self._floor <= step < len(index)
                    and 0 < index[step] <= self._read_seq
                    and step - self._floor <= 2 * WINDOW):
                rows = self._by_step.get(step)
            else:
                rows = self._advance(step)
        if not rows:
            return None
        # The two shapes nearly every position has (what the general rule below gives them):
        # an intent/wait and its outcome, or one self-closing event.
        n = len(rows)
        if n == 2:
            a, b = rows
            if a.kind in _OPENS_ONLY and b.kind in OUTCOME_KINDS:
                return _position(step, a, b)
        elif n == 1 and rows[0].kind in SELF_CLOSING_KINDS:
            return _position(step, rows[0], rows[0])
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
        """One past the highest position recorded (or written by this incarnation)."""
        if self._streamed:
            return self._top + 1
        return max(self._by_step, default=-1) + 1

    def has_recorded_at_or_after(self, step: int) -> bool:
        """Whether any event is recorded at a position ``>= step`` (cheap in both forms)."""
        return self.recorded_steps > step

    def unresolved(self) -> list[Position]:
        """Every position with an intent and no outcome (what recovery must reconcile)."""
        if self._streamed:
            first_kind: dict[int, str] = {}
            closed: set[int] = set()
            for e in self.events:
                if e.step is None:
                    continue
                if e.kind in OPENING_KINDS:
                    first_kind.setdefault(e.step, e.kind)
                elif e.kind in OUTCOME_KINDS:
                    closed.add(e.step)
            steps = sorted(s for s, k in first_kind.items() if k == "intent" and s not in closed)
        else:
            steps = sorted(self._by_step)
        out = []
        for step in steps:
            pos = self.at(step)
            if pos is not None and pos.is_unresolved and pos.opening is not None \
                    and pos.opening.kind == "intent":
                out.append(pos)
        return out

    def note(self, events: Sequence[Event]) -> None:
        """Add events this incarnation has just appended to the replay index."""
        if self._streamed and self._noted_from is None and events:
            self._noted_from = events[0].seq
        for e in events:
            if self._events is not None:
                self._events.append(e)
            if e.step is not None:
                self._by_step[e.step].append(e)
                if e.step > self._top:
                    self._top = e.step

    def payload(self, event: Event) -> Any:
        """The event's payload, with an artifact reference resolved."""
        data = decode(event.payload_json)
        if type(data) is dict and len(data) == 2 and "$artifact" in data and "size" in data:
            return json.loads(self.store.get_artifact(data["$artifact"]).decode("utf-8"))
        return data


_scan = json.decoder.JSONDecoder().scan_once  # the C scanner where there is one


def decode(text: str) -> Any:
    """``json.loads(text)`` for a journal payload: the same value, the same errors. A payload is
    canonical JSON (no whitespace), so the scanner reads it from index 0 without the whitespace
    passes of ``json.loads``; anything it does not consume whole (whitespace, trailing text, a
    syntax error) goes to ``json.loads``, which decides."""
    try:
        value, end = _scan(text, 0)
    except (StopIteration, ValueError):
        return json.loads(text)
    if end != len(text):
        return json.loads(text)
    return value


def _one_by_one(events: Iterator[Event]) -> Iterator[Sequence[Event]]:
    """A store's events as pages of one (a store without ``iter_pages``)."""
    for e in events:
        yield (e,)


class _StoreView(Sequence[Event]):
    """A streamed journal's ``events``: each iteration re-reads and re-verifies the store's
    journal (bounded memory; O(n) time per pass). Indexing builds the list once."""

    def __init__(self, store: Store, run_id: str) -> None:
        self._store, self._run_id = store, run_id

    def __iter__(self) -> Iterator[Event]:
        return iter(self._store.iter_events(self._run_id))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __getitem__(self, i):  # type: ignore[no-untyped-def, override]
        return list(self)[i]


def new_event(store: Store, kind: str, step: int | None, payload: Any, at: float, *,
              normalised: bool = False) -> NewEvent:
    """Build an event, moving a large payload into the artifact store. ``normalised=True``:
    the payload is already normalised (see :func:`minirt.canonical.canonical_json`)."""
    return _sized(store, kind, step, canonical_json(payload, normalised=normalised), at)


def new_event_text(store: Store, kind: str, step: int | None, text: str, at: float) -> NewEvent:
    """:func:`new_event` for a payload whose canonical JSON text the caller already built (the
    same artifact rule: a text above :data:`ARTIFACT_THRESHOLD` bytes is stored as an artifact)."""
    return _sized(store, kind, step, text, at)


def _sized(store: Store, kind: str, step: int | None, text: str, at: float) -> NewEvent:
    # the threshold and the size are in bytes, not characters (an ASCII text: one per character)
    size = len(text) if text.isascii() else len(text.encode("utf-8"))
    if size > ARTIFACT_THRESHOLD:
        data = text.encode("utf-8")
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
