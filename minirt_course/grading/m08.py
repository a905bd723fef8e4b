"""Hidden-test logic for drill 08 (cancellation). Course tooling, not runtime core.

The learner writes ``effective_deadline(parent_at, now, *, deadline_at=None, after=None)``,
``is_quiescent(children, effects)`` and ``request_record(run, existing, reason, at)`` (the
decision of an idempotent cancel request: the record to write, or None). Each ``check_*``
returns a list of failure messages (empty = the property holds); a message starts with the
property's name in brackets and never states the expected answer. Learner code is never trusted:
every call is wrapped (an exception becomes a message), inputs are fresh copies, returned values
are rebuilt (``float``, ``bool``, a dict of plain values) before they are compared, and the
references come from :mod:`minirt.cancel`.

The three functions are also plugged into minirt itself: the deadline rule and the quiescence
check into :class:`minirt.cancel.CancelHook`, the request into the operator's cancel button of
:mod:`minirt_course.scenarios.m08_cancel`, which is then crashed at every boundary.
"""

from __future__ import annotations

import copy
import itertools
import os
import random
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from minirt.cancel import (
    CancelHook,
    CancellableRuntime,
    Child,
    EffectRecord,
    cancel_kv,
    cancel_record,
    effective_deadline,
    fail_after,
    move_on_after,
)
from minirt.cancel import is_quiescent as ref_is_quiescent
from minirt.canonical import canonical_json
from minirt.clock import FakeClock
from minirt.faults import Faults, crash_once
from minirt.run import TERMINAL, Run, RunEvent, RunState
from minirt.scheduler import Call, parallel
from minirt.store.base import NewEvent
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool
from minirt.world.ledger import Ledger

from ..scenarios.m08_cancel import NOTICE, cancel_drill, during_email
from .differential import plain_equal

#: What the drill's answer and plain cells may use (the out-of-kernel run allows nothing else).
LEARNER_API = ("learner_scenario",)
SEEDS = (2, 13, 31, 67)
STATUSES = ("done", "failed", "in_flight", "not_found", "unknown")
#: The boundaries of the cancel drill (a test checks this list against a fresh probe).
BOUNDARIES = (
    [("after_claim", 1)]
    + [(p, n) for n in (1, 2) for p in ("before_intent", "after_intent", "after_provider_commit",
                                         "before_result", "after_result")]
    + [("before_cancel_quiesced", 1), ("after_cancel_quiesced", 1)]
    + [(p, n) for n in (3, 4, 5) for p in ("before_intent", "after_intent",
                                            "after_provider_commit", "before_result",
                                            "after_result")]
    + [("before_cancel_cleaned_up", 1), ("after_cancel_cleaned_up", 1),
       ("before_cancelled", 1)])


def _repr(value: Any) -> str:
    try:
        return repr(value)[:80]
    except Exception:
        return f"<{type(value).__name__}>"


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args, **kwargs), None
    except Exception as exc:  # a learner's bug becomes a failure message, not a crashed cell
        return None, exc


def _deadline(value: Any) -> float | None:
    return None if value is None else float(value)


# -- adapters: the learner's functions inside minirt --------------------------------------------

def as_propagate(fn: Callable[..., Any]) -> Callable[..., Any]:
    def propagate(parent_at: float | None, now: float, *, deadline_at: float | None = None,
                  after: float | None = None) -> float | None:
        return _deadline(fn(parent_at, now, deadline_at=deadline_at, after=after))
    return propagate


def as_quiescent(fn: Callable[..., Any]) -> Callable[..., Any]:
    def quiescent(children: list[Child], effects: list[EffectRecord]) -> bool:
        return bool(fn(copy.deepcopy(children), copy.deepcopy(effects)))
    return quiescent


def rebuild_record(value: Any) -> dict[str, Any] | None:
    """The learner's record as plain JSON data, or None; raises ValueError if unreadable."""
    if value is None:
        return None
    rec = dict(value)
    out = {"stage": str(rec["stage"]), "reason": str(rec["reason"]),
           "requested_at": float(rec["requested_at"])}
    return {**{str(k): v for k, v in rec.items()}, **out}


def as_request(decide: Callable[..., Any]) -> Callable[..., bool]:
    """An operator's cancel button built on the learner's decision (one transaction)."""
    def request(store: Any, run_id: str, reason: str, at: float) -> bool:
        with store.transaction():
            run = store.get_run(run_id).run
            existing = cancel_record(store, run_id)
            rec = rebuild_record(decide(replace(run), copy.deepcopy(existing), reason, at))
            if rec is None or run.is_terminal:
                return False
            store.transition(run_id, RunEvent("cancel_request", at=at),
                             events=[NewEvent("cancel_requested", None, canonical_json(rec),
                                              at)],
                             kv=cancel_kv(rec))
        return True
    return request


# -- deadlines ----------------------------------------------------------------------------------

def deadline_cases(seed: int) -> list[tuple[float | None, float, dict[str, float]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(40):
        now = round(rng.uniform(1000, 2000), 1)
        parent = rng.choice([None, round(now + rng.uniform(-50, 400), 1)])
        kind = rng.choice(["after", "deadline_at", "none"])
        kw = {"after": round(rng.uniform(0, 500), 1)} if kind == "after" else (
            {"deadline_at": round(now + rng.uniform(-100, 600), 1)} if kind == "deadline_at"
            else {})
        out.append((parent, now, kw))
    return out


def _show(parent: Any, now: Any, kw: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={v}" for k, v in kw.items())
    return f"parent_at={parent}, now={now}" + (f", {args}" if args else "")


def check_within_parent(fn: Callable[..., Any], seeds: Sequence[int] = SEEDS) -> list[str]:
    """[child-within-parent] a child's deadline is never later than its parent's, and a child
    with no deadline of its own inherits the parent's."""
    for seed in seeds:
        for parent, now, kw in deadline_cases(seed):
            got, exc = _call(fn, parent, now, **kw)
            if exc is not None:
                return [f"[child-within-parent] effective_deadline({_show(parent, now, kw)}) "
                        f"raised {type(exc).__name__}: {exc}"]
            try:
                got = _deadline(got)
            except Exception:
                return [f"[child-within-parent] returned {_repr(got)}, not a time or None"]
            if parent is not None and (got is None or got > parent):
                return [f"[child-within-parent] effective_deadline({_show(parent, now, kw)}) "
                        f"gave {got}: later than the parent's"]
            if not kw and got != parent:
                return [f"[child-within-parent] effective_deadline({_show(parent, now, kw)}) "
                        f"gave {got}: a child with no deadline of its own keeps its parent's"]
    return (_differential_deadline("child-within-parent", fn, lambda parent: parent is not None)
            or check_runtime_deadlines(fn))


def check_absolute_and_relative(fn: Callable[..., Any], seeds: Sequence[int] = SEEDS
                                ) -> list[str]:
    """[absolute-and-relative] ``after`` counts from ``now``; ``deadline_at`` is a time already
    and is not moved by ``now``; no deadline anywhere is None."""
    for seed in seeds:
        for parent, now, kw in deadline_cases(seed):
            got, exc = _call(fn, parent, now, **kw)
            if exc is not None:
                return [f"[absolute-and-relative] raised {type(exc).__name__}: {exc}"]
            try:
                got = _deadline(got)
            except Exception:
                return [f"[absolute-and-relative] returned {_repr(got)}, not a time or None"]
            if got != effective_deadline(parent, now, **kw):
                return [f"[absolute-and-relative] effective_deadline({_show(parent, now, kw)}) "
                        f"gave {got}"]
    return _differential_deadline("absolute-and-relative", fn, lambda parent: True)


def boundary_deadlines() -> list[tuple[float | None, float, dict[str, float]]]:
    """Every combination of the comparisons' boundaries, simplest first: ``now`` and the parent
    at 0, the parent in the past, now, a bit later; ``after`` 0, exactly to the parent's
    deadline, past it; ``deadline_at`` 0, in the past, now, exactly the parent's, later."""
    out: list[tuple[float | None, float, dict[str, float]]] = []
    for now in (0.0, 1000.0):
        for parent in (None, 0.0, now - 10.0, now, now + 30.0, now + 100.0):
            kws: list[dict[str, float]] = [{}]
            for after in (0.0, 30.0, 100.0, 1e9):
                kws.append({"after": after})
            if parent is not None and parent > now:
                kws.append({"after": parent - now})
            for at in (0.0, now - 10.0, now, now + 30.0, now + 500.0):
                kws.append({"deadline_at": at})
            if parent is not None:
                kws.append({"deadline_at": parent})
            out += [(parent, now, kw) for kw in kws]
    return out


def _differential_deadline(prop: str, fn: Callable[..., Any],
                           keep: Callable[[Any], bool]) -> list[str]:
    """The learner's deadline equals the reference's on every boundary case ``keep`` selects
    (the first one that differs, simplest first, is shown)."""
    for parent, now, kw in boundary_deadlines():
        if not keep(parent):
            continue
        got, exc = _call(fn, parent, now, **copy.deepcopy(kw))
        want = effective_deadline(parent, now, **kw)
        if exc is not None:
            return [f"[{prop}] effective_deadline({_show(parent, now, kw)}) raised "
                    f"{type(exc).__name__}: {exc}"]
        try:
            got = _deadline(got)
        except Exception:
            return [f"[{prop}] effective_deadline({_show(parent, now, kw)}) returned "
                    f"{_repr(got)}, not a time or None"]
        if got != want:
            said = "no deadline" if got is None else got
            return [f"[{prop}] effective_deadline({_show(parent, now, kw)}) gave {said}; "
                    "expected " + ("no deadline" if want is None else f"{want}") +
                    " — the smallest boundary case that differs"]
    return []


def _nested(ctx: Any, _: Any) -> Any:
    with fail_after(ctx, 100.0, name="research"):
        with move_on_after(ctx, 500.0, name="search"):
            parallel(ctx, [Call("probe", {})])  # a fan-out child is handed the scope's deadline
            ctx.call_tool("wait", seconds=30)
            ctx.call_tool("wait", seconds=90)
            ctx.call_tool("wait", seconds=1)
    return "finished"


def check_runtime_deadlines(fn: Callable[..., Any]) -> list[str]:
    """[child-within-parent] inside minirt: a 500 s child scope in a 100 s parent ends with the
    parent, at the first cancellation point past 100 s."""
    with tempfile.TemporaryDirectory(prefix="m08-") as tmp:
        clock = FakeClock(1000.0)

        def wait(seconds: float) -> float:
            clock.advance(seconds)
            return seconds

        handed: list[float | None] = []

        def probe(call: Any = None) -> None:
            handed.append(call.deadline_at)

        rt = CancellableRuntime(SQLiteStore(Path(tmp) / "r.sqlite"),
                                tools=[FunctionTool(wait, effect=EffectClass.PURE),
                                       FunctionTool(probe, effect=EffectClass.PURE)],
                                workflows={"wf": _nested}, clock=clock,
                                cancel_hook=CancelHook(propagate=as_propagate(fn)))
        try:
            out = rt.run(rt.start("wf", None, run_id="r"))
            waits = sum(1 for e in rt.store.read("r") if e.kind == "tool_result") - 1
        except Exception as exc:
            return [f"[child-within-parent] the nested scopes raised {type(exc).__name__}: {exc}"]
        finally:
            rt.close()
    if handed != [1100.0]:
        return [f"[child-within-parent] inside a 500 s scope within a 100 s scope (started at "
                f"1000.0), a tool call was handed the deadline {handed[:1]}"]
    scope = getattr(out.error, "attrs", {}).get("scope") if out.error else None
    if out.state is not RunState.FAILED or scope != "research" or waits != 2:
        return ["[child-within-parent] a 500 s scope inside a 100 s scope did not end with its "
                f"parent (run {out.state.value}, {waits} waits done, scope {scope!r})"]
    return []


# -- quiescence ---------------------------------------------------------------------------------

def _effects(rng: random.Random, statuses: Sequence[str]) -> list[EffectRecord]:
    return [EffectRecord(i, rng.choice(("charge", "book", "send_email")), f"ek_{i:032d}", s)
            for i, s in enumerate(statuses)]


def _quiescent(fn: Callable[..., Any], children: list[Child], effects: list[EffectRecord]
               ) -> tuple[bool | None, str | None]:
    got, exc = _call(fn, copy.deepcopy(children), copy.deepcopy(effects))
    if exc is not None:
        return None, f"is_quiescent raised {type(exc).__name__}: {exc}"
    try:
        return bool(got), None
    except Exception:
        return None, f"is_quiescent returned {_repr(got)}, not a bool"


def _exhaustive_quiescent(prop: str, fn: Callable[..., Any],
                          cases: Iterable[tuple[list[Child], list[EffectRecord]]]) -> list[str]:
    """Every case, smallest first: the learner's verdict equals minirt's, and the lists and
    records handed in are left as they were."""
    for children, effects in cases:
        kids, effs = copy.deepcopy(children), copy.deepcopy(effects)
        got, exc = _call(fn, kids, effs)
        shown = (f"children running={[c.running for c in children]}, effects "
                 f"{[e.status for e in effects]}")
        if exc is not None:
            return [f"[{prop}] {shown}: is_quiescent raised {type(exc).__name__}: {exc}"]
        if kids != children or effs != effects:
            return [f"[{prop}] {shown}: is_quiescent changed the lists it was given"]
        try:
            verdict = bool(got)
        except Exception:
            return [f"[{prop}] {shown}: is_quiescent returned {_repr(got)}, not a bool"]
        want = ref_is_quiescent(children, effects)
        if verdict != want:
            return [f"[{prop}] {shown}: you said quiescent={verdict}, expected {want} (the "
                    "smallest case that differs)"]
    return []


def _effect_lists(statuses: Sequence[str], most: int) -> Iterator[list[EffectRecord]]:
    tools = ("charge", "book", "send_email")
    for n in range(most + 1):
        for combo in itertools.product(statuses, repeat=n):
            yield [EffectRecord(i + 1, tools[i % 3], f"ek_{i:032d}", st,
                                {"nested": [st]} if st == "done" else None)
                   for i, st in enumerate(combo)]


def _children(most: int) -> Iterator[list[Child]]:
    for n in range(most + 1):
        for combo in itertools.product((False, True), repeat=n):
            yield [Child(f"child{i}", r) for i, r in enumerate(combo)]


def check_quiescent_effects(fn: Callable[..., Any], seeds: Sequence[int] = SEEDS) -> list[str]:
    """[quiescence-effects] with no child running, quiescent exactly when no effect is still
    in flight (``unknown`` and ``not_found`` are settled answers)."""
    for seed in seeds:
        rng = random.Random(seed)
        for _ in range(30):
            statuses = [rng.choice(STATUSES) for _ in range(rng.randint(0, 5))]
            got, why = _quiescent(fn, [], _effects(rng, statuses))
            if why:
                return [f"[quiescence-effects] {why}"]
            if got != ("in_flight" not in statuses):
                return [f"[quiescence-effects] effects {statuses} and no child running: "
                        f"you said quiescent={got}"]
    cases = ((kids, effs) for effs in _effect_lists(STATUSES, 3)
             for kids in ([], [Child("done", False)]))
    return _exhaustive_quiescent("quiescence-effects", fn, cases)


def check_quiescent_children(fn: Callable[..., Any], seeds: Sequence[int] = SEEDS) -> list[str]:
    """[quiescence-children] with every effect settled, quiescent exactly when no child runs."""
    for seed in seeds:
        rng = random.Random(seed + 1)
        for _ in range(30):
            running = [rng.random() < 0.3 for _ in range(rng.randint(0, 4))]
            children = [Child(f"child{i}", r) for i, r in enumerate(running)]
            got, why = _quiescent(fn, children, _effects(rng, ["done", "failed"]))
            if why:
                return [f"[quiescence-children] {why}"]
            if got != (not any(running)):
                return [f"[quiescence-children] children running={running}, every effect "
                        f"settled: you said quiescent={got}"]
    settled = [s for s in STATUSES if s != "in_flight"]
    cases = ((kids, effs) for kids in _children(4) for effs in _effect_lists(settled, 1))
    return _exhaustive_quiescent("quiescence-children", fn, cases)


# -- the request --------------------------------------------------------------------------------

def check_request(decide: Callable[..., Any]) -> list[str]:
    """[cancel-idempotent] the first request writes a ``requested`` record; any later one, and
    one for a finished run, writes nothing (the first reason wins)."""
    fresh = Run("r", RunState.RUNNING, 3, 1, "w-a", 100.0)
    got, exc = _call(decide, replace(fresh), None, "customer asked", 50.0)
    if exc is not None:
        return [f"[cancel-idempotent] request_record raised {type(exc).__name__}: {exc}"]
    try:
        first = rebuild_record(got)
    except Exception:
        return [f"[cancel-idempotent] the first request returned {_repr(got)}: not a record "
                "with stage, reason and requested_at"]
    if first is None or first["stage"] != "requested" or first["reason"] != "customer asked" \
            or first["requested_at"] != 50.0:
        return ["[cancel-idempotent] the first request of a running run did not give a "
                "'requested' record with its reason and time"]
    for state in (RunState.PENDING, RunState.WAITING, RunState.UNCERTAIN):
        got, _ = _call(decide, replace(fresh, state=state), None, "why", 1.0)
        if got is None:
            return [f"[cancel-idempotent] a {state.value} run could not be cancelled"]
    for stage in ("requested", "quiesced", "cleaned_up"):
        existing = {**first, "stage": stage, "point": 4, "cleanup_from": 6}
        got, exc = _call(decide, replace(fresh, state=RunState.CANCELLING),
                         copy.deepcopy(existing), "pressed again", 80.0)
        if exc is not None or got is not None:
            return [f"[cancel-idempotent] a second request (record at stage {stage!r}) wrote "
                    f"{_repr(got) if exc is None else type(exc).__name__}"]
    for state in sorted(TERMINAL):
        got, exc = _call(decide, replace(fresh, state=state), None, "too late", 90.0)
        if exc is not None or got is not None:
            return [f"[cancel-idempotent] a {state.value} run got a cancel record"]
    return _exhaustive_request(decide)


def reference_request(run: Run, existing: dict[str, Any] | None, reason: str, at: float
                      ) -> dict[str, Any] | None:
    """The decision the drill asks for (the same rule as :func:`minirt.cancel.cancel`)."""
    if run.is_terminal or existing is not None:
        return None
    return {"stage": "requested", "reason": reason, "requested_at": at}


EXISTING = (None, {"stage": "requested", "reason": "first", "requested_at": 10.0},
            {"stage": "quiesced", "reason": "first", "requested_at": 10.0, "point": 4,
             "nested": {"effects": [3, 4]}},
            {"stage": "cleaned_up", "reason": "", "requested_at": 0.0, "cleanup_from": 6})


def _exhaustive_request(decide: Callable[..., Any]) -> list[str]:
    """[cancel-idempotent] every run state x every existing record x reasons (empty, long) x
    times (0.0 too): the record returned equals the reference's, field by field (or None), and
    neither the run nor the existing record is changed."""
    for existing in EXISTING:
        for state in RunState:
            for reason, at in (("customer asked", 50.0), ("", 0.0), ("x" * 300, 1e9)):
                run = Run("r", state, 3, 1, "w-a", 100.0)
                mine = copy.deepcopy(existing)
                got, exc = _call(decide, replace(run), mine, reason, at)
                want = reference_request(run, existing, reason, at)
                shown = (f"a {state.value} run, existing record {_repr(existing)}, reason "
                         f"{reason[:20]!r}, at={at}")
                if exc is not None:
                    return [f"[cancel-idempotent] {shown}: request_record raised "
                            f"{type(exc).__name__}: {exc}"]
                if mine != existing:
                    return [f"[cancel-idempotent] {shown}: the existing record was changed in "
                            "place (a second press must change nothing)"]
                if (got is None) != (want is None):
                    return [f"[cancel-idempotent] {shown}: " + (
                        "you wrote nothing; expected a 'requested' record" if got is None
                        else "you wrote a record; expected nothing")]
                if want is not None:
                    try:
                        rec = {str(k): v for k, v in dict(got).items()}
                    except Exception:
                        return [f"[cancel-idempotent] {shown}: returned {_repr(got)}, not a dict"]
                    if not plain_equal(rec, want):
                        return [f"[cancel-idempotent] {shown}: the record is {_repr(rec)}; "
                                f"expected {_repr(want)}"]
    return []


# -- the crash drill and the prediction ---------------------------------------------------------

def scratch() -> tempfile.TemporaryDirectory[str]:
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        return tempfile.TemporaryDirectory(prefix="m08-", dir=shm)
    return tempfile.TemporaryDirectory(prefix="m08-")


def learner_scenario(propagate: Callable[..., Any], quiescent: Callable[..., Any],
                     decide: Callable[..., Any]) -> Any:
    """The cancel drill with the learner's three functions (for a scratch cell)."""
    return replace(cancel_drill, name="m08-cancel (yours)", ref="",
                   propagate=as_propagate(propagate), quiescent=as_quiescent(quiescent),
                   request=as_request(decide))


def check_crash_sweep(propagate: Callable[..., Any], quiescent: Callable[..., Any],
                      decide: Callable[..., Any],
                      points: Sequence[tuple[str, int]] = BOUNDARIES) -> list[str]:
    """[crash-sweep] with the learner's functions, every crash point ends CANCELLED and clean."""
    sc = learner_scenario(propagate, quiescent, decide)
    for point, n in points:
        with scratch() as tmp:
            verdict = crash_once(sc, point, occurrence=n, workdir=Path(tmp))
        if not verdict.ok:
            return [f"[crash-sweep] crash at {point}#{n}: {verdict.outcome.value}: "
                    f"{verdict.detail}"]
    return []


def _observe_prediction() -> dict[str, int]:
    """Run the variant that cancels during the first guest email; count what the world did."""
    with scratch() as tmp:
        wd = Path(tmp)
        during_email.setup(wd)
        rt = during_email.make_runtime(wd, faults=Faults(), clock_offset=0.0, worker_id="w-1")
        try:
            rt.run(during_email.start(rt))
        finally:
            rt.close()
        pay, mail = Ledger(wd / "payments.sqlite"), Ledger(wd / "email.sqlite")
        try:
            emails = mail.effects("email")
            return {"emails": len(emails), "refunds": len(pay.effects("refund")),
                    "notices": sum(1 for e in emails if e["params"]["subject"] == NOTICE)}
        finally:
            pay.close()
            mail.close()


def check_prediction(emails: Any, refunds: Any) -> list[str]:
    """[prediction] the learner's two counts match the providers' ledgers."""
    try:
        guess = (int(emails), int(refunds))
    except Exception:
        return ["[prediction] predicted_emails and predicted_refunds must be whole numbers"]
    seen = _observe_prediction()
    if guess != (seen["emails"], seen["refunds"]):
        return ["[prediction] your counts do not match the providers' ledgers"]
    return []


def probe() -> list[tuple[str, int]]:
    """The drill's boundaries, probed afresh (tests compare them with BOUNDARIES)."""
    from minirt.faults import boundaries

    return boundaries(cancel_drill)
