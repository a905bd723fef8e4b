"""Hidden-test logic for drill 01 (run state machines). Course tooling, not runtime core.

Each ``check_*`` function takes the learner's function(s), calls them on cases built here, and
returns a list of failure messages (empty = the property holds). A message starts with the
property's name in brackets, says which case broke it and what the learner's code did, and never
states the expected answer. Learner code is never trusted:

- every call is wrapped, so an exception becomes a failure message instead of a crashed cell;
- returned states are compared to :class:`~minirt.run.RunState` members by identity;
- returned runs are rebuilt field by field into a fresh :class:`~minirt.run.Run` before use;
- the reference answers come from :mod:`minirt.run`, imported here, never from the learner.

The learner's ``apply`` is also driven through a real SQLite store (:class:`LearnerStore`) and the
module's crash scenario (:class:`LearnerScenario`) under the fault sweep.
"""

from __future__ import annotations

import copy
import json
import random
import tempfile
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from minirt.canonical import canonical_json
from minirt.clock import FakeClock
from minirt.faults import crash_once
from minirt.run import (
    FENCED_EVENTS,
    TERMINAL,
    TRANSITIONS,
    IllegalTransition,
    LeaseHeld,
    RevisionConflict,
    Run,
    RunEvent,
    RunIsTerminal,
    RunState,
    StaleIncarnation,
)
from minirt.run import apply as reference_apply
from minirt.run import check_transition as reference_check
from minirt.store.base import NewEvent, Store
from minirt.store.sqlite import SQLiteStore

from ..scenarios.m01_lease import RefundScenario
from .differential import falsify, plain_equal

#: The only names of this module the learner's answer and plain cells may use (the out-of-kernel
#: run refuses the others): helpers for scratch cells, never a check, a reference or an answer.
LEARNER_API = ("raised", "rebuild_run", "LearnerStore", "LearnerScenario", "ERROR_NAMES")

CheckFn = Callable[[Run, RunEvent], Any]
ApplyFn = Callable[[Run, RunEvent], Any]

KINDS = sorted({kind for _, kind in TRANSITIONS} | {"retry", "resume", "finish"})
SEEDS = (1, 7, 42)
#: The boundaries of the refund scenario (``minirt.faults.boundaries`` of RefundScenario; a test
#: checks this list against a fresh probe). Fixed here so a broken ``apply`` cannot shrink it.
BOUNDARIES = (("after_claim", 1), ("before_step_record", 1), ("after_step_record", 1),
              ("before_step_record", 2), ("after_step_record", 2), ("before_complete", 1))


class LearnerAnswerInvalid(Exception):
    """What the learner's function returned cannot be read as a run (internal to grading)."""


# -- calling and rebuilding learner values ---------------------------------------------------

def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any
          ) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args, **kwargs), None
    except Exception as exc:  # a learner's bug becomes a failure message, not a crashed cell
        return None, exc


def raised(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str | None:
    """The name of the exception ``fn(*args, **kwargs)`` raises, or None (for visible tests).

    ``NotImplementedError`` is raised again, so an answer cell not filled in yet says so."""
    _, exc = _call(fn, *args, **kwargs)
    if isinstance(exc, NotImplementedError):
        raise exc
    return None if exc is None else type(exc).__name__


def _name(exc: BaseException | None) -> str:
    return "nothing" if exc is None else type(exc).__name__


def _repr(value: Any) -> str:
    """A short repr of a learner value that cannot raise (a learner's __repr__ may)."""
    try:
        return repr(value)[:80]
    except Exception:
        return f"<{type(value).__name__}>"


def rebuild_run(value: Any) -> Run:
    """A fresh Run with the same fields as ``value``, or LearnerAnswerInvalid."""
    try:
        state = value.state
        if type(state) is not RunState:  # identity of the enum member, not a look-alike
            raise LearnerAnswerInvalid(f"state is {type(state).__name__}, not a RunState")
        lease = value.lease_expires_at
        return Run(run_id=str(value.run_id), state=RunState(state.value),
                   revision=int(value.revision), incarnation=int(value.incarnation),
                   worker_id=None if value.worker_id is None else str(value.worker_id),
                   lease_expires_at=None if lease is None else float(lease),
                   detail=json.loads(canonical_json(value.detail)))
    except LearnerAnswerInvalid:
        raise
    except Exception as exc:
        raise LearnerAnswerInvalid(f"{type(value).__name__} is not a Run ({exc})") from None


def _snapshot(run: Run) -> tuple[Any, ...]:
    return tuple(copy.deepcopy(getattr(run, f.name)) for f in fields(run))


def _show(run: Run, event: RunEvent) -> str:
    inc = "" if event.incarnation is None else f" from incarnation {event.incarnation}"
    return (f"{event.kind!r}{inc} at t={event.at:g} on a {run.state.value} run "
            f"(incarnation {run.incarnation}, lease until {run.lease_expires_at})")


def _run(state: RunState, *, incarnation: int = 3, worker: str | None = "w-a",
         lease: float | None = 100.0, revision: int = 5) -> Run:
    if state is RunState.PENDING:
        worker, lease = None, None
    return Run("run-1", state, revision, incarnation, worker, lease)


# -- check(run, event) -> RunState -----------------------------------------------------------

def check_table(check: CheckFn) -> list[str]:
    """[table] every pair in TRANSITIONS gives its target; every other pair from a non-terminal
    state raises IllegalTransition (not RunIsTerminal)."""
    out = []
    for (state, kind), target in TRANSITIONS.items():
        run = _run(state)
        event = RunEvent(kind, at=1000.0, incarnation=run.incarnation,
                         worker_id="w-b" if kind == "claim" else run.worker_id)
        got, exc = _call(check, run, event)
        if exc is not None or got is not target:
            what = f"raised {_name(exc)}" if exc is not None else f"returned {_repr(got)}"
            out.append(f"[table] check({_show(run, event)}) {what}; a pair in TRANSITIONS must "
                       "give the state the table lists")
    for state in RunState:
        if state in TERMINAL:
            continue
        for kind in KINDS:
            if (state, kind) in TRANSITIONS:
                continue
            run = _run(state)
            event = RunEvent(kind, at=1000.0, incarnation=run.incarnation, worker_id="w-b")
            got, exc = _call(check, run, event)
            if type(exc) is not IllegalTransition:
                what = f"raised {_name(exc)}" if exc is not None else f"returned {_repr(got)}"
                out.append(f"[table] check({_show(run, event)}) {what}; a pair that is not in "
                           "TRANSITIONS must be refused with the error named for it")
    return out or check_table_properties(check)


def check_terminal(check: CheckFn, apply: ApplyFn) -> list[str]:
    """[terminal-is-final] every event on a succeeded/failed/cancelled run raises RunIsTerminal,
    from check and from apply, whatever its incarnation or time."""
    out = []
    for state in sorted(TERMINAL):
        for kind in KINDS:
            for inc in (3, None):
                run = Run("run-1", state, 9, 3, None, None, {"result": 1})
                event = RunEvent(kind, at=10_000.0, incarnation=inc, worker_id="w-b")
                for name, fn in (("check", check), ("apply", apply)):
                    got, exc = _call(fn, run, event)
                    if not isinstance(exc, RunIsTerminal):
                        what = f"raised {_name(exc)}" if exc is not None else "returned a result"
                        out.append(f"[terminal-is-final] {name}({_show(run, event)}) {what}")
    return out or check_terminal_properties(check, apply)


def check_stale(check: CheckFn) -> list[str]:
    """[stale-completion] a fenced event whose incarnation is not the run's current one raises
    StaleIncarnation (also when the same worker re-claimed, or no incarnation is given); the
    current incarnation and unfenced events pass."""
    out = []
    for (state, kind), target in TRANSITIONS.items():
        run = _run(state, incarnation=2, worker="w-a")
        if kind in FENCED_EVENTS:
            cases = [(RunEvent(kind, at=50.0, incarnation=1, worker_id="w-old"), "an older"),
                     (RunEvent(kind, at=50.0, incarnation=1, worker_id="w-a"),
                      "an older (same worker id, which re-claimed)"),
                     (RunEvent(kind, at=50.0, incarnation=None, worker_id="w-a"), "no")]
            for event, which in cases:
                got, exc = _call(check, run, event)
                if not isinstance(exc, StaleIncarnation):
                    what = f"raised {_name(exc)}" if exc is not None else f"returned {_repr(got)}"
                    out.append(f"[stale-completion] {kind!r} carrying {which} incarnation on a "
                               f"{state.value} run at incarnation 2 {what}; it must be refused")
            event = RunEvent(kind, at=50.0, incarnation=2, worker_id="w-a")
        else:
            event = RunEvent(kind, at=1000.0, incarnation=None, worker_id="w-b")
        got, exc = _call(check, run, event)
        if exc is not None or got is not target:
            what = f"raised {_name(exc)}" if exc is not None else f"returned {_repr(got)}"
            out.append(f"[stale-completion] check({_show(run, event)}) {what}; events from the "
                       "current incarnation, and unfenced events, must pass")
    return out or check_stale_properties(check)


# -- differential properties: the learner's functions against minirt.run on generated cases ----

LEASE = 100.0
#: event times around the lease expiry: well before, just before, exactly at, just after, later
TIMES = (LEASE - 30.0, LEASE - 0.5, LEASE, LEASE + 0.5, LEASE + 40.0)
HELD = (RunState.RUNNING, RunState.UNCERTAIN)
UNHELD = (RunState.PENDING, RunState.WAITING, *sorted(TERMINAL))
_values = st.one_of(st.integers(-2, 2), st.sampled_from(["", "ok", "refund by A"]),
                    st.lists(st.integers(0, 3), max_size=2),
                    st.fixed_dictionaries({"k": st.lists(st.integers(0, 3), max_size=2)}))
DETAILS = st.dictionaries(st.sampled_from(["result", "error", "n", "nested"]), _values,
                          max_size=3)


@st.composite
def run_and_event(draw: Any, states: tuple[RunState, ...] = tuple(RunState),
                  kinds: tuple[str, ...] = tuple(KINDS), fence: str = "any",
                  times: tuple[float, ...] = TIMES) -> tuple[Run, RunEvent]:
    """A consistent run (a holder and a lease exactly when its state keeps one) and an event:
    every kind, times around the lease expiry, incarnations older, equal, newer or missing."""
    state = draw(st.sampled_from(states))
    inc = draw(st.integers(1 if state in HELD else 0, 4))
    held = inc > 0 and (state in HELD or (state is RunState.CANCELLING and draw(st.booleans())))
    run = Run("run-1", state, draw(st.integers(0, 9)), inc,
              draw(st.sampled_from(["w-a", "w-b"])) if held else None,
              LEASE if held else None, draw(DETAILS))
    legal = [k for k in kinds if (state, k) in TRANSITIONS]
    # half the events are legal from the state, so fence and lease are reached, not only the table
    kind = draw(st.sampled_from(legal if legal and draw(st.booleans()) else kinds))
    incs: list[int | None] = [inc] if fence == "current" else [None, inc - 1, inc, inc + 1, inc + 3]
    event = RunEvent(kind, at=draw(st.sampled_from(times)),
                     incarnation=draw(st.sampled_from(incs)),
                     worker_id=draw(st.sampled_from([None, "w-a", "w-b", "w-c"])),
                     lease_for=draw(st.sampled_from([30.0, 12.5, 0.0])), detail=draw(DETAILS))
    return run, event


def _outcome(fn: Callable[..., Any], run: Run, event: RunEvent
             ) -> tuple[str, Any, BaseException | None]:
    """("returned", value, None) or ("raised", type name, the exception)."""
    got, exc = _call(fn, copy.deepcopy(run), copy.deepcopy(event))
    if exc is not None:
        return "raised", type(exc).__name__, exc
    return "returned", got, None


def _same_error(got: BaseException, want: BaseException) -> str | None:
    if type(got).__name__ != type(want).__name__:
        return f"raised {type(got).__name__}, expected {type(want).__name__}"
    for name in getattr(type(want), "fields", ()):
        a, b = getattr(got, name, "<missing>"), getattr(want, name)
        if not plain_equal(a, b):
            return (f"raised {type(want).__name__} with {name}={_repr(a)}, expected "
                    f"{name}={_repr(b)}")
    return None


def _untouched(fn: Callable[..., Any], run: Run, event: RunEvent) -> str | None:
    """None when ``fn(run, event)`` leaves both inputs (nested detail values included) alone."""
    before = (_snapshot(run), _snapshot(event))
    _call(fn, run, event)
    if (_snapshot(run), _snapshot(event)) != before:
        return "changed the run or the event it was given (a nested detail value, say)"
    return None


def _diff_check(check: CheckFn) -> Callable[[tuple[Run, RunEvent]], str | None]:
    def prop(case: tuple[Run, RunEvent]) -> str | None:
        run, event = case
        kind, got, exc = _outcome(check, run, event)
        _, want, want_exc = _outcome(reference_check, run, event)
        if want_exc is not None:
            if exc is None:
                return f"check returned {_repr(got)}, expected {type(want_exc).__name__}"
            return _same_error(exc, want_exc)
        if exc is not None:
            return f"check raised {_name(exc)}: {exc}; expected it to return {want.value}"
        if type(got) is not RunState or got is not want:
            return f"check returned {_repr(got)}, expected RunState.{want.name}"
        return _untouched(check, run, event)
    return prop


def _diff_apply(apply: ApplyFn) -> Callable[[tuple[Run, RunEvent]], str | None]:
    def prop(case: tuple[Run, RunEvent]) -> str | None:
        run, event = case
        problem = _untouched(apply, run, event)
        if problem:
            return "apply " + problem
        _, got, exc = _outcome(apply, run, event)
        _, want, want_exc = _outcome(reference_apply, run, event)
        if want_exc is not None:
            if exc is None:
                return f"apply returned a run, expected {type(want_exc).__name__}"
            return _same_error(exc, want_exc)
        if exc is not None:
            return f"apply raised {_name(exc)}: {exc}; the event is accepted"
        try:
            mine = rebuild_run(got)
        except LearnerAnswerInvalid as bad:
            return f"apply returned something that is not a Run: {bad}"
        for f in fields(Run):
            a, b = getattr(mine, f.name), getattr(want, f.name)
            if f.name == "state":
                a, b = a.value, b.value
            if not plain_equal(a, b):
                return f"the new run's {f.name} is {_repr(a)}, expected {_repr(b)}"
        return None
    return prop


def _show_case(case: tuple[Run, RunEvent]) -> str:
    run, event = case
    return f"run={run!r}, event={event!r}"


def differential(prop: str, check: Callable[[Any], str | None],
                 strategy: st.SearchStrategy[Any], max_examples: int = 120,
                 examples: tuple[tuple[Run, RunEvent], ...] = ()) -> list[str]:
    """``check`` (a :func:`_diff_check` or :func:`_diff_apply` property) on ``examples`` (always
    tried) and ``strategy``: ``[]`` or one message, named ``[prop]``, with the smallest
    counterexample hypothesis found."""
    return falsify(prop, strategy, check, max_examples=max_examples, show=_show_case,
                   examples=examples)


def every_entry() -> tuple[tuple[Run, RunEvent], ...]:
    """Every entry of TRANSITIONS once, sent by the current incarnation after the lease, on a run
    with a holder and a nested detail: each must give every field the reference gives."""
    out = []
    for (state, kind) in TRANSITIONS:
        held = state in HELD or state is RunState.CANCELLING
        run = Run("run-1", state, 4, 2, "w-a" if held else None, LEASE if held else None,
                  {"result": {"k": [1]}, "n": 1})
        out.append((run, RunEvent(kind, at=LEASE + 0.5, incarnation=2, worker_id="w-b",
                                  lease_for=12.5, detail={"n": 2, "error": {"k": [2]}})))
    return tuple(out)


def check_table_properties(check: CheckFn) -> list[str]:
    """[table] differential: on non-terminal runs, events of every kind (known or not) from the
    current incarnation after the lease: the same state or the same IllegalTransition."""
    nonterminal = tuple(s for s in RunState if s not in TERMINAL)
    return differential("table", _diff_check(check), run_and_event(
        states=nonterminal, fence="current", times=(LEASE + 0.5, LEASE + 40.0)))


def check_stale_properties(check: CheckFn) -> list[str]:
    """[stale-completion] differential: events of every kind with incarnations older, equal,
    newer or missing: the same state, or the same error (table before fence) with the same
    incarnation/current attributes."""
    nonterminal = tuple(s for s in RunState if s not in TERMINAL)
    return differential("stale-completion", _diff_check(check),
                        run_and_event(states=nonterminal, times=(LEASE + 40.0,)))


def check_terminal_properties(check: CheckFn, apply: ApplyFn) -> list[str]:
    """[terminal-is-final] differential on terminal runs: RunIsTerminal with its attributes from
    check and from apply, before any other refusal."""
    strategy = run_and_event(states=tuple(sorted(TERMINAL)))
    return (differential("terminal-is-final", _diff_check(check), strategy)
            or differential("terminal-is-final", _diff_apply(apply), strategy))


def check_takeover_properties(apply: ApplyFn) -> list[str]:
    """[takeover] differential: claims and heartbeats around the exact lease expiry (a claim at
    ``at == lease_expires_at`` is a takeover): every field of the new run (incarnation, holder,
    lease) or LeaseHeld with its holder and expiry."""
    return differential("takeover", _diff_apply(apply), run_and_event(
        states=(RunState.PENDING, *HELD, RunState.CANCELLING), kinds=("claim", "heartbeat")))


def check_revision_properties(apply: ApplyFn) -> list[str]:
    """[revision] differential on every state and kind: every field of the new run (revision,
    detail merged into a new dict, holder, lease) or the same refusal; inputs untouched."""
    return differential("revision", _diff_apply(apply), run_and_event(), max_examples=200,
                        examples=every_entry())


# -- apply(run, event) -> Run ------------------------------------------------------------------

def _apply_checked(apply: ApplyFn, run: Run, event: RunEvent, prop: str
                   ) -> tuple[Run | None, BaseException | None, list[str]]:
    before = _snapshot(run)
    got, exc = _call(apply, run, event)
    problems = []
    if _snapshot(run) != before:
        problems.append(f"[{prop}] apply changed the run it was given ({event.kind!r}); it must "
                        "return a new run and leave its input alone")
    if exc is not None:
        return None, exc, problems
    try:
        return rebuild_run(got), None, problems
    except LearnerAnswerInvalid as bad:
        return None, bad, problems + [f"[{prop}] apply({_show(run, event)}) returned something "
                                      f"that is not a Run: {bad}"]


def check_takeover(apply: ApplyFn) -> list[str]:
    """[takeover] a claim while the lease is held raises LeaseHeld and changes nothing; after
    expiry it starts incarnation old+1 for the new worker with lease at+lease_for; a heartbeat
    pushes the expiry."""
    out: list[str] = []
    held = Run("run-1", RunState.RUNNING, 1, 1, "w-a", 130.0)
    for at, who in ((100.0, "w-b"), (129.5, "w-b"), (120.0, "w-a")):
        event = RunEvent("claim", at=at, worker_id=who, lease_for=30.0)
        new, exc, problems = _apply_checked(apply, held, event, "takeover")
        out += problems
        if not isinstance(exc, LeaseHeld):
            out.append(f"[takeover] apply({_show(held, event)}) by {who} "
                       f"{'raised ' + _name(exc) if exc else 'was accepted'}; the lease is held")
    for state, inc in ((RunState.PENDING, 0), (RunState.RUNNING, 1), (RunState.UNCERTAIN, 4),
                       (RunState.CANCELLING, 2)):
        run = Run("run-1", state, 6, inc, None if inc == 0 else "w-a",
                  None if inc == 0 else 130.0)
        event = RunEvent("claim", at=131.0, worker_id="w-b", lease_for=20.0)
        new, exc, problems = _apply_checked(apply, run, event, "takeover")
        out += problems
        if new is None:
            out.append(f"[takeover] apply({_show(run, event)}) raised {_name(exc)}; the lease "
                       "had expired")
            continue
        got = (new.incarnation, new.worker_id, new.lease_expires_at)
        if got != (inc + 1, "w-b", 151.0):
            out.append(f"[takeover] after a claim of a {state.value} run at incarnation {inc}, "
                       f"(incarnation, worker_id, lease_expires_at) = {got}; check the fencing "
                       "token, the holder and the new lease")
    beat, exc, problems = _apply_checked(
        apply, held, RunEvent("heartbeat", at=125.0, incarnation=1, lease_for=30.0), "takeover")
    out += problems
    if beat is None or beat.lease_expires_at != 155.0:
        what = f"raised {_name(exc)}" if beat is None else f"left the lease at {beat.lease_expires_at}"
        out.append(f"[takeover] a heartbeat at t=125 with lease_for=30 {what}; a heartbeat "
                   "extends the lease")
    else:
        _, exc = _call(apply, beat, RunEvent("claim", at=140.0, worker_id="w-b"))
        if not isinstance(exc, LeaseHeld):
            out.append("[takeover] a claim at t=140, after a heartbeat at t=125 extended a 30 s "
                       f"lease, {'raised ' + _name(exc) if exc else 'was accepted'}")
    return out or check_takeover_properties(apply)


def random_walk(seed: int, n: int = 40) -> list[RunEvent]:
    """A seeded list of events that the reference ``apply`` accepts one after the other, from a
    fresh run until a terminal state or ``n`` events (claims, heartbeats, waits, takeovers...)."""
    rng = random.Random(seed)
    run, t, out = Run("run-1"), 0.0, []
    while len(out) < n and not run.is_terminal:
        t += rng.choice((1.0, 5.0, 40.0))
        kind = rng.choice([k for (s, k) in TRANSITIONS if s is run.state])
        if TRANSITIONS[(run.state, kind)] in TERMINAL and len(out) < n // 2:
            continue  # end late, so the walk visits most of the table first
        if kind == "cancel_request" and rng.random() < 0.9:
            continue  # cancelling is a dead end for most of the table: visit it less often
        event = RunEvent(kind, at=t, incarnation=None if kind == "claim" else run.incarnation,
                         worker_id=f"w-{rng.randrange(3)}" if kind == "claim" else None,
                         lease_for=30.0,
                         detail={"n": rng.randrange(100)} if rng.random() < 0.3 else {})
        try:
            run = reference_apply(run, event)
        except LeaseHeld:
            continue
        out.append(event)
    return out


def check_revision(apply: ApplyFn) -> list[str]:
    """[revision] every accepted event moves the revision up by exactly one (and the state as the
    table says); apply never changes the run it is given, also when it refuses an event."""
    out: list[str] = []
    for seed in SEEDS:
        mine = Run("run-1")
        for i, event in enumerate(random_walk(seed)):
            if event.incarnation is not None:  # speak with the learner's own fencing token
                event = replace(event, incarnation=mine.incarnation)
            new, exc, problems = _apply_checked(apply, mine, event, "revision")
            out += [f"{p} (seed {seed}, event {i})" for p in problems]
            if new is None:
                out.append(f"[revision] seed {seed}, event {i}: apply({_show(mine, event)}) "
                           f"raised {_name(exc)}; the event is legal")
                break
            target = TRANSITIONS[(mine.state, event.kind)]
            if new.revision != mine.revision + 1 or new.state is not target:
                out.append(f"[revision] seed {seed}, event {i}: {event.kind!r} took revision "
                           f"{mine.revision} to {new.revision} and state {mine.state.value} to "
                           f"{new.state.value}")
                break
            mine = new
    for (state, kind), target in TRANSITIONS.items():  # every entry once, from revision 5
        run = _run(state)
        event = RunEvent(kind, at=1000.0, incarnation=None if kind == "claim" else 3,
                         worker_id="w-b" if kind == "claim" else None)
        new, exc, problems = _apply_checked(apply, run, event, "revision")
        out += problems
        if new is None or new.revision != 6 or new.state is not target:
            what = (f"raised {_name(exc)}" if new is None else
                    f"gave revision {new.revision}, state {new.state.value}")
            out.append(f"[revision] apply({_show(run, event)}) at revision 5 {what}")
    for state in RunState:  # refusals must not touch the input either
        run = Run("run-1", state, 4, 2, "w-a", 100.0, {"k": [1]})
        for event in (RunEvent("complete", at=1.0, incarnation=1), RunEvent("nonsense", at=1.0)):
            _, _, problems = _apply_checked(apply, run, event, "revision")
            out += problems
    return out or check_revision_properties(apply)


# -- apply inside a real SQLite store ----------------------------------------------------------

class LearnerStore(SQLiteStore):
    """A SQLiteStore whose ``transition`` runs the learner's ``apply`` (rebuilt, never trusted).

    The store's own transaction, compare-and-set and journal append
    (:meth:`SQLiteStore.transition`); only the pure transition function is the learner's. ``claim_next`` is not used by the drill and
    refuses, so the reference ``apply`` can never run in its place by accident.
    """

    def __init__(self, path: str | Path, apply: ApplyFn) -> None:
        super().__init__(path)
        self.learner_apply = apply

    def apply_event(self, run: Run, event: RunEvent) -> Run:
        return rebuild_run(self.learner_apply(run, event))

    def claim_next(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("LearnerStore drives runs through transition() only")


def check_compare_and_set(apply: ApplyFn) -> list[str]:
    """[compare-and-set] two writers (two connections to one SQLite file) read revision r; the
    first write with expected_revision=r wins, the second raises RevisionConflict."""
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "runs.sqlite"
        one, two = LearnerStore(path, apply), LearnerStore(path, apply)
        try:
            one.create_run("run-1", "refund", "{}", 0.0)
            _, exc = _call(one.transition, "run-1", RunEvent("claim", at=0.0, worker_id="w-a"))
            if exc is not None:
                return [f"[compare-and-set] the first claim of a new run raised {_name(exc)}"]
            for kind in ("heartbeat", "heartbeat", "complete"):
                seen_one, seen_two = one.get_run("run-1").run, two.get_run("run-1").run
                r, inc = seen_one.revision, seen_one.incarnation
                assert seen_two.revision == r  # both writers read revision r
                _, exc = _call(lambda k=kind, r=r, i=inc: one.transition(
                    "run-1", RunEvent(k, at=1.0, incarnation=i), expected_revision=r))
                if exc is not None:
                    out.append(f"[compare-and-set] the first writer's {kind!r} at revision {r} "
                               f"raised {_name(exc)}")
                    break
                _, exc = _call(lambda k=kind, r=r, i=inc: two.transition(
                    "run-1", RunEvent(k, at=2.0, incarnation=i), expected_revision=r))
                if not isinstance(exc, RevisionConflict):
                    out.append(f"[compare-and-set] two writers read revision {r}; after the first "
                               f"wrote {kind!r}, the second's write with expected_revision={r} "
                               f"{'raised ' + _name(exc) if exc else 'was accepted too'}")
                    break
        finally:
            one.close()
            two.close()
    return out


class LearnerScenario(RefundScenario):
    """Module 01's refund scenario with the learner's ``apply`` in the store (simulate mode)."""

    def __init__(self, apply: ApplyFn) -> None:
        self.learner_apply = apply

    def open_store(self, workdir: Path) -> Store:
        return LearnerStore(Path(workdir) / "runs.sqlite", self.learner_apply)


def check_crash_sweep(apply: ApplyFn) -> list[str]:
    """[crash-sweep] with the learner's apply in the store: a crash-free run, and a crash at every
    boundary of the refund scenario followed by a takeover, each end succeeded exactly once with
    the right result and the zombie's late completion refused."""
    out = []
    for point, n in (("no crash", 1), *BOUNDARIES):
        cell = f"crash at {point}#{n}" if point != "no crash" else "crash-free run"
        try:
            verdict = crash_once(LearnerScenario(apply), None if point == "no crash" else point,
                                 occurrence=n)
        except Exception as exc:
            out.append(f"[crash-sweep] {cell}: your apply raised {_name(exc)}: {exc}")
            continue
        if not verdict.ok:
            out.append(f"[crash-sweep] {cell}: {verdict.outcome.value}: {verdict.detail}")
    return out


# -- the predict-then-run pair ------------------------------------------------------------------

def zombie_story(lease_for: float = 30.0, pause: float = 45.0) -> dict[str, Any]:
    """Run the drill's story on a real SQLite file and report what the disk shows.

    A claims (lease ``lease_for``), pauses ``pause`` seconds; B claims and completes; then A's
    completion arrives. Returns ``{"accepted_incarnation", "zombie_error", "result"}``.
    """
    with tempfile.TemporaryDirectory() as tmp:
        clock = FakeClock(0.0)
        store = SQLiteStore(Path(tmp) / "runs.sqlite")
        try:
            store.create_run("refund-A-42", "refund", "{}", clock.now())

            def send(event: RunEvent, who: str) -> Run:
                note = NewEvent("transition", None,
                                canonical_json({"event": event.kind, "worker_id": who}), event.at)
                return store.transition("refund-A-42", event, events=[note])

            a = send(RunEvent("claim", at=clock.now(), worker_id="A", lease_for=lease_for), "A")
            clock.advance(pause)
            b = send(RunEvent("claim", at=clock.now(), worker_id="B", lease_for=lease_for), "B")
            send(RunEvent("complete", at=clock.now(), incarnation=b.incarnation,
                          detail={"result": "refund by B"}), "B")
            clock.advance(1.0)
            try:
                send(RunEvent("complete", at=clock.now(), incarnation=a.incarnation,
                              detail={"result": "refund by A"}), "A")
                zombie_error = None
            except (IllegalTransition, StaleIncarnation, LeaseHeld, RevisionConflict) as exc:
                zombie_error = type(exc).__name__
            ends = [e.incarnation for e in store.read("refund-A-42")
                    if e.kind == "transition" and json.loads(e.payload_json)["event"] == "complete"]
            result = store.get_run("refund-A-42").run.detail.get("result")
        finally:
            store.close()
    return {"accepted_incarnation": ends[0] if len(ends) == 1 else ends,
            "zombie_error": zombie_error, "result": result}


ERROR_NAMES = ("StaleIncarnation", "RunIsTerminal", "LeaseHeld", "RevisionConflict")


def check_prediction(accepted: Any, zombie_error: Any) -> list[str]:
    """[prediction] the learner's two predictions equal what :func:`zombie_story` shows on disk."""
    try:
        accepted_n = int(accepted)
        error_name = str(zombie_error) if zombie_error is not None else "None"
    except (TypeError, ValueError):
        return ["[prediction] predicted_accepted must be an incarnation number (1 or 2) and "
                "predicted_zombie_error the name of an error, as a string"]
    if error_name not in ERROR_NAMES:
        return [f"[prediction] predicted_zombie_error must be one of {', '.join(ERROR_NAMES)}"]
    seen = zombie_story()
    out = []
    if accepted_n != seen["accepted_incarnation"]:
        out.append("[prediction] the incarnation whose completion the store accepted is not the "
                   "one you predicted; run the cell after this one and compare")
    if error_name != str(seen["zombie_error"]):
        out.append("[prediction] the error the zombie got is not the one you predicted; run "
                   "the cell after this one and compare")
    return out
