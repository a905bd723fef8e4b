"""Cancellation: distinguish the request from quiescence, cleanup and reconciliation.

Cancelling a run that calls tools is four facts, recorded in this order, each as a journal event
and the ``cancel`` kv record in the same transaction:

1. **requested** (:func:`cancel`): someone asked; the run moves to CANCELLING. Idempotent and
   durable: any process may call it while a worker runs the run; the first reason wins.
2. **quiesced**: the worker reached a *cooperative cancellation point* (:class:`CancelHook`, run
   before every step position) and nothing of the run is in flight any more: no fan-out child is
   running, and every effect that was in flight at the request (an intent without an outcome)
   has been looked up (the tool's ``lookup`` or the runtime's reconcile policy), **never
   resent and never assumed not to have happened**. An effect that cannot be looked up is
   recorded as ``unknown``; one whose lookup fails *now* keeps the run from quiescing
   (:class:`NotQuiescent`) until a later attempt can ask.
3. **cleaned up**: the workflow's ``except Cancelled`` handler ran its cleanup (through
   :class:`Cleanup`) within its own bound (``max_cleanup_calls`` calls, ``cleanup_for``
   seconds), and reported what it could not do.
4. **reconciled**: every effect of the run (forward, in flight at the request, cleanup's own) is
   looked up once more and its status recorded; then the run becomes CANCELLED.

Where the cancel takes effect: at the first step position that is not closed (nothing recorded,
or an intent without an outcome) after the request, like DBOS's "at the beginning of its next
step". Closed positions replay as usual. The position (``point``) and the first position the
cleanup uses (``cleanup_from``, past everything recorded) are part of the quiesced record, so a
replay after a crash raises :class:`Cancelled` at the same place and the cleanup's calls replay
from the journal instead of running again.

Deadlines nest: :func:`fail_after` / :func:`move_on_after` (relative, seconds) and
:func:`fail_at` / :func:`move_on_at` (absolute ``deadline_at``) open a scope whose deadline is
:func:`effective_deadline`: never later than its parent's, the run's own deadline
(:func:`set_deadline`) at the root. Entering a scope records its deadline as a step; an expiry
at a cancellation point is recorded at that position, so replay takes the same exit. A ``fail``
scope raises :class:`DeadlineExceeded`; a ``move_on`` scope ends quietly; the run's deadline
cancels the run.

Not guaranteed: stopping work between two cancellation points (a tool call in progress runs to
completion; cancellation is cooperative); undoing what happened (cleanup compensates what it
can and reports the rest); a cleanup whose time bound passed during a crash (it is reported as
not done). A cancel that arrives after the workflow's last cancellation point still ends the run
CANCELLED, with nothing cleaned up, and says so.

Scopes belong to the asyncio task (or thread) that opens them, not to the whole execution: the
scope chain is a ``contextvars.ContextVar`` (:meth:`Context.enter_deadline_scope`), which
asyncio copies into each task it creates. A child task created inside a scope inherits it (and
the scope's expiry can end it there); a scope one task opens (an async workflow's scope takes its
``AsyncContext``) is not in force in its siblings (``asyncio.gather``): their calls carry their
own chain's deadline, a scope's expiry is raised only in a task inside that scope, and a scope's
parent is the innermost scope of the task that opens it. A plain thread starts outside every
scope (the sync fan-out's child threads only send calls their parent built, with its deadline).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from . import dispatch
from .canonical import canonical_json, normalise
from .errors import MinirtError, from_record
from .journal import Journal, new_event
from .resolution import Kind
from .run import IllegalTransition, RunEvent, RunState
from .runtime import Context, RunOutcome, Runtime, RuntimeHook
from .store.base import NewEvent, Store
from .tools import EffectClass, OutcomeUnknown, has_lookup

CANCEL_KEY = "cancel"  # kv: the cancel record (JSON), written with every cancel event
DEADLINE_KEY = "deadline"  # kv: the run's own deadline_at (JSON number)
EXPIRED = "deadline_expired"  # the step recorded where a deadline expired


class CancelStage(StrEnum):
    REQUESTED = "requested"
    QUIESCED = "quiesced"
    CLEANED_UP = "cleaned_up"
    RECONCILED = "reconciled"


ORDER = list(CancelStage)


class NotQuiescent(MinirtError):
    """The run cannot quiesce yet: an effect in flight could not be looked up now (or a child
    still runs). The run stays CANCELLING; a later attempt asks again. Not a failure."""

    fields = ("run_id", "blockers")
    template = "run {run_id} cannot quiesce yet: {blockers}"


class CleanupBoundExceeded(MinirtError):
    """A cleanup call was refused because the cleanup used up its bound (calls or time).

    Raised before anything is journaled; :class:`Cleanup` reports the call as not done."""

    fields = ("run_id", "bound")
    template = "run {run_id}: cleanup bound reached ({bound}); the call was not made"


class DeadlineExceeded(MinirtError):
    """A ``fail_after``/``fail_at`` scope's deadline passed at a cancellation point.

    Not :class:`Cancelled` (nobody asked to stop the run; only this scope ran out of time)."""

    fields = ("run_id", "scope", "deadline_at", "now")
    template = "run {run_id}: scope {scope!r} passed its deadline {deadline_at} (now {now})"


class DeadlineInvalid(MinirtError):
    fields = ("reason",)
    template = "invalid deadline: {reason}"


@dataclass(frozen=True)
class EffectRecord:
    """What the journal says about one tool call of the run."""

    step: int
    tool: str
    effect_key: str
    status: str  # done | failed | in_flight | not_found | unknown
    value: Any = None  # the result, when done
    note: str = ""


@dataclass(frozen=True)
class Child:
    """A fan-out child as the quiescence check sees it."""

    name: str
    running: bool


class Cancelled(BaseException):  # noqa: N818 - control flow, like trio.Cancelled
    """Raised at a cancellation point of a run whose cancel was requested and that quiesced.

    A BaseException, so ``except Exception`` does not swallow it. A workflow may catch it to
    clean up (with :class:`Cleanup`) and should raise it again. Carries the quiesced record."""

    def __init__(self, run_id: str, record: dict[str, Any]) -> None:
        super().__init__(f"run {run_id} was cancelled: {record.get('reason')}")
        self.run_id = run_id
        self.record = record
        self.reason = str(record.get("reason"))
        self.effects = [EffectRecord(**e) for e in record.get("effects", [])]

    def happened(self, tool: str | None = None) -> list[EffectRecord]:
        """The forward effects known to have happened (``done``), of ``tool`` if given."""
        return [e for e in self.effects if e.status == "done" and tool in (None, e.tool)]


class _NotYet(BaseException):  # noqa: N818 - control flow inside CancellableRuntime
    def __init__(self, error: NotQuiescent) -> None:
        super().__init__(str(error))
        self.error = error


# -- the request ------------------------------------------------------------------------------

def cancel_kv(record: dict[str, Any]) -> dict[str, str]:
    """The kv that stores ``record`` as the run's cancel record, to commit with the cancel event
    it goes with; this module owns the ``cancel`` key and its format."""
    return {CANCEL_KEY: canonical_json(record)}


def cancel_record(store: Store, run_id: str) -> dict[str, Any] | None:
    """The run's cancel record, or None if nobody asked."""
    raw = store.kv_get(run_id, CANCEL_KEY)
    return None if raw is None else json.loads(raw)


def cancel(target: Store | Runtime, run_id: str, reason: str, *, by: str = "operator",
           at: float | None = None) -> bool:
    """Request the cancellation of ``run_id``. Idempotent and durable: the first request wins,
    a second one (or one for a finished run) changes nothing and returns False.

    The CANCELLING transition, its journal events and the cancel record commit in ONE
    transaction. ``target`` is a store (e.g. opened by another process) or a runtime."""
    store = target.store if isinstance(target, Runtime) else target
    now = at if at is not None else (target.clock.now() if isinstance(target, Runtime)
                                     else time.time())
    with store.transaction():
        run = store.get_run(run_id).run
        if run.is_terminal or store.kv_get(run_id, CANCEL_KEY) is not None:
            return False
        record = {"stage": CancelStage.REQUESTED.value, "reason": str(reason), "by": str(by),
                  "requested_at": now}
        store.transition(run_id, RunEvent("cancel_request", at=now),
                         events=[_transition("cancel_request", now, by=str(by),
                                             reason=str(reason)),
                                 NewEvent("cancel_requested", None, canonical_json(record), now)],
                         kv={CANCEL_KEY: canonical_json(record)})
    return True


#: ``minirt.cancel_run``: the package-level name of :func:`cancel` (``minirt.cancel`` is the
#: module).
cancel_run = cancel


def set_deadline(store: Store, run_id: str, deadline_at: float) -> None:
    """Give the run its own absolute deadline (the root of its deadline tree). Idempotent:
    the first deadline stays."""
    with store.transaction():
        if store.kv_get(run_id, DEADLINE_KEY) is None:
            store.set_kv(run_id, {DEADLINE_KEY: canonical_json(float(deadline_at))})


def _transition(kind: str, at: float, **detail: Any) -> NewEvent:
    return NewEvent("transition", None, canonical_json({"event": kind, **detail}), at)


# -- quiescence ---------------------------------------------------------------------------------

def effects_of(journal: Journal, steps: range | None = None) -> list[EffectRecord]:
    """Every tool call in the journal (at ``steps``), with its status from the journal alone."""
    out = []
    for e in journal.events:
        if e.kind != "intent" or (steps is not None and e.step not in steps):
            continue
        pos = journal.at(e.step)
        p = journal.payload(e)
        status, value, note = "in_flight", None, ""
        if pos is not None and pos.outcome is not None:
            out_p = journal.payload(pos.outcome)
            status = "done" if pos.outcome.kind == "tool_result" else "failed"
            value = out_p.get("value") if status == "done" else None
        elif pos is not None:
            for x in pos.extra:
                xp = json.loads(x.payload_json)
                if x.kind == "reconciled" and xp.get("cancel"):
                    status, note = xp["resolution"], xp.get("reason", "")
        out.append(EffectRecord(e.step, p["tool"], p["effect_key"], status, value, note))
    return out


def is_quiescent(children: Sequence[Child], effects: Sequence[EffectRecord]) -> bool:
    """Nothing in flight: no child runs and no effect is still ``in_flight``. An effect looked
    up as ``unknown`` or ``not_found`` is settled (recorded), not in flight."""
    return not any(c.running for c in children) and not any(
        e.status == "in_flight" for e in effects)


def _look_up(ctx: Context, step: int) -> None:
    """Settle the open intent at ``step`` without ever resending it; journal the answer."""
    rt, pos = ctx.runtime, ctx.journal.at(step)
    assert pos is not None and pos.opening is not None
    tool = rt.tool(ctx.journal.payload(pos.opening)["tool"])
    call = dispatch.recorded_call(ctx, pos, tool)  # the one factory: deadline, scopes, incarnation
    try:
        if has_lookup(tool):
            found = tool.lookup(call)  # type: ignore[attr-defined]
            kind, value = (Kind.RESULT, found.result) if found.found else (Kind.NOT_FOUND, None)
            reason = "found at the provider" if found.found else "not found at the provider"
        else:
            res = rt.reconcile(ctx, tool, call)
            kind, value, reason = res.kind, res.value, res.reason
            if kind is Kind.REDISPATCH:  # never resent after a cancel
                kind = Kind.NOT_FOUND if tool.effect is EffectClass.PURE else Kind.UNKNOWN
    except (OutcomeUnknown, MinirtError, Exception):  # no answer now: still in flight
        return
    note = new_event(rt.store, "reconciled", step, {
        "effect_key": call.effect_key, "resolution": str(kind),
        "reason": f"cancelled, not resent: {reason}", "cancel": True}, ctx.now_raw())
    if kind is Kind.RESULT:
        ctx.append(note, new_event(rt.store, "tool_result", step, {
            "effect_key": call.effect_key, "value": normalise(value)}, ctx.now_raw()))
    else:
        ctx.append(note)
    rt.faults.hit("after_cancel_lookup", step=step, tool=tool.name)


# -- the cancellation point ------------------------------------------------------------------------

@dataclass
class _RunState:
    """What one execution of a run knows about its cancel (cached on the context)."""

    record: dict[str, Any] | None
    deadline_at: float | None
    raised: bool = False  # a fact: Cancelled was raised in this execution (cleanup follows)
    checks: int = 0


class CancelHook(RuntimeHook):
    """The cooperative cancellation point (``at_checkpoint``) and the cleanup bound.

    At a closed position it does nothing (replay); at an open or fresh one it reads the run's
    row (one primary-key SELECT) every ``every`` checks, and quiesces and raises
    :class:`Cancelled` when the run is CANCELLING. ``quiescent`` and ``propagate`` are the
    quiescence check and the deadline rule (swappable for the drill)."""

    def __init__(self, *, cleanup_for: float | None = 300.0, max_cleanup_calls: int = 10,
                 every: int = 1, quiescent: Callable[..., Any] = is_quiescent,
                 propagate: Callable[..., Any] | None = None) -> None:
        self.cleanup_for = cleanup_for
        self.max_cleanup_calls = int(max_cleanup_calls)
        self.every = max(int(every), 1)
        self.quiescent = quiescent
        self.propagate = propagate or effective_deadline

    def state(self, ctx: Context) -> _RunState:
        """This hook's state for the execution of ``ctx`` (read from the store on first use;
        it also sets ``ctx.run_deadline_at``, the root of the deadline tree, to the run's own
        deadline)."""
        return ctx.state_for(self, lambda: self._load(ctx))

    @staticmethod
    def _load(ctx: Context) -> _RunState:
        store = ctx.runtime.store
        raw = store.kv_get(ctx.run_id, DEADLINE_KEY)
        st = _RunState(cancel_record(store, ctx.run_id), None if raw is None else
                       float(json.loads(raw)))
        ctx.run_deadline_at = st.deadline_at
        return st

    def at_checkpoint(self, ctx: Context) -> None:
        st, p = self.state(ctx), ctx.position
        if st.raised:
            return self._bound(ctx, st, p)
        rec = st.record
        if rec is not None and rec["stage"] != CancelStage.REQUESTED.value:
            if p == rec["point"]:  # replay of a cancelled run: the same exit, the same cleanup
                raise self._raise(ctx, st, rec)
            return
        pos = ctx.journal.at(p)
        if pos is not None and pos.outcome is not None:
            if pos.opening is not None and pos.opening.kind == "step" and \
                    ctx.journal.payload(pos.opening).get("name") == EXPIRED:
                _replay_expiry(ctx, st, p, pos)
            return
        st.checks += 1
        if rec is None and (pos is not None or st.checks % self.every == 0):
            if ctx.runtime.store.get_run(ctx.run_id).run.state is RunState.CANCELLING:
                st.record = rec = cancel_record(ctx.runtime.store, ctx.run_id)
        if rec is None and pos is None and self._run_expired(ctx, st):
            st.record = rec = cancel_record(ctx.runtime.store, ctx.run_id)
        if rec is not None:  # a cancel wins over a scope's deadline
            raise self._raise(ctx, st, self._quiesce(ctx, st, p))
        if pos is None:  # a deadline ends a scope only where nothing is recorded yet
            self._expire(ctx, st, p)

    def on_exit(self, ctx: Context, exc: BaseException) -> RunOutcome | None:
        """How a cancelled execution ends: :class:`Cancelled` (raised here) or a workflow that
        ended after the request -> :func:`finish_cancel`; not quiescent yet -> CANCELLING."""
        rt = ctx.runtime
        if isinstance(exc, Cancelled):
            return finish_cancel(rt, ctx.run_id, ctx.incarnation)
        if isinstance(exc, _NotYet):
            return RunOutcome(ctx.run_id, RunState.CANCELLING, error=exc.error)
        if isinstance(exc, IllegalTransition) and \
                rt.store.get_run(ctx.run_id).run.state is RunState.CANCELLING:
            return finish_cancel(rt, ctx.run_id, ctx.incarnation)
        return None

    def _quiesce(self, ctx: Context, st: _RunState, point: int) -> dict[str, Any]:
        rt = ctx.runtime
        for pos in ctx.journal.unresolved():
            _look_up(ctx, pos.step)
        children = [Child(str(s), True) for s in sorted(ctx.children_in_flight)]
        effects = effects_of(ctx.journal)
        if not _call_bool(self.quiescent, list(children), list(effects)):
            blockers = [f"step {e.step} {e.tool}" for e in effects if e.status == "in_flight"]
            raise _NotYet(NotQuiescent(run_id=ctx.run_id, blockers=blockers or ["children"]))
        now = ctx.now_raw()
        rec = {**(st.record or {}), "stage": CancelStage.QUIESCED.value, "point": point,
               "cleanup_from": max(ctx.journal.recorded_steps, point), "quiesced_at": now,
               "cleanup_deadline_at": None if self.cleanup_for is None else
               now + self.cleanup_for, "max_cleanup_calls": self.max_cleanup_calls,
               "effects": [asdict(e) for e in effects]}
        rt.faults.hit("before_cancel_quiesced", step=point)
        ctx.append(new_event(rt.store, "cancel_quiesced", None, rec, now),
                    kv={CANCEL_KEY: canonical_json(rec)})
        rt.faults.hit("after_cancel_quiesced", step=point)
        st.record = rec
        return rec

    def _raise(self, ctx: Context, st: _RunState, rec: dict[str, Any]) -> Cancelled:
        st.raised = True
        ctx.skip_to(int(rec["cleanup_from"]))
        return Cancelled(ctx.run_id, rec)

    def _bound(self, ctx: Context, st: _RunState, p: int) -> None:
        """Cleanup mode: a fresh position must stay within the cleanup's bound."""
        if ctx.journal.at(p) is not None or st.record is None:
            return
        rec = st.record
        used = p - int(rec["cleanup_from"])
        deadline = rec.get("cleanup_deadline_at")
        if used >= int(rec["max_cleanup_calls"]):
            raise CleanupBoundExceeded(run_id=ctx.run_id, bound=f"{used} calls")
        if deadline is not None and ctx.runtime.clock.now() > float(deadline):
            raise CleanupBoundExceeded(run_id=ctx.run_id, bound=f"deadline {deadline}")

    def _run_expired(self, ctx: Context, st: _RunState) -> bool:
        """The run's own deadline passed: request the cancel (the root of the deadline tree)."""
        now = ctx.runtime.clock.now()
        if st.deadline_at is None or now < st.deadline_at:
            return False
        cancel(ctx.runtime, ctx.run_id, f"the run's deadline {st.deadline_at} passed",
               by="deadline", at=now)
        return True

    def _expire(self, ctx: Context, st: _RunState, p: int) -> None:
        """At a fresh position: the outermost scope, of those the current task is inside, whose
        deadline passed ends here (a sibling task's scope ends in that task, not here)."""
        now = ctx.runtime.clock.now()
        for scope in ctx.deadline_scopes():
            if scope.deadline_at is not None and now >= scope.deadline_at:
                value = {"scope": scope.name, "deadline_at": scope.deadline_at, "now": now,
                         "action": scope.action}
                err = DeadlineExceeded(run_id=ctx.run_id, scope=scope.name,
                                       deadline_at=scope.deadline_at, now=now)
                payload: dict[str, Any] = {"name": EXPIRED, "value": value}
                if scope.action == "fail":
                    payload = {"name": EXPIRED, "error": err.to_record()}
                ctx.append(new_event(ctx.runtime.store, "step", p, payload, now))
                ctx.skip_to(p + 1)
                raise err if scope.action == "fail" else _MoveOn(scope)


def _replay_expiry(ctx: Context, st: _RunState, p: int, pos: Any) -> None:
    rec = ctx.journal.payload(pos.opening)
    ctx.skip_to(p + 1)
    if "error" in rec:
        raise from_record(rec["error"])
    name = rec["value"]["scope"]
    scope = next((s for s in ctx.deadline_scopes() if s.name == name), None)
    if scope is not None:
        raise _MoveOn(scope)


def _call_bool(fn: Callable[..., Any], *args: Any) -> bool:
    return bool(fn(*args))


# -- cleanup -------------------------------------------------------------------------------------

class Cleanup:
    """The cleanup a workflow runs after :class:`Cancelled`: bounded, journaled, reported.

    ``with Cleanup(ctx, cancelled) as cleanup: cleanup.call("refund", charge_id=...)``. Each call
    is an ordinary journaled tool call (replayed, never repeated, after a crash); one refused by
    the bound or failing is reported, not raised. On exit the report is recorded (once)."""

    def __init__(self, ctx: Context, cancelled: Cancelled) -> None:
        self.ctx, self.cancelled = ctx, cancelled
        self.items: list[dict[str, Any]] = []

    def __enter__(self) -> Cleanup:
        return self

    def call(self, tool: str, args: dict[str, Any] | None = None, **kw: Any) -> Any:
        """Call ``tool`` as part of the cleanup; None if it was not done (see the report)."""
        item: dict[str, Any] = {"tool": tool, "step": self.ctx.position}
        try:
            value = self.ctx.call_tool(tool, args, **kw)
            item["outcome"] = "done"
            return value
        except CleanupBoundExceeded as exc:
            item["outcome"], item["why"] = "not attempted", str(exc)
        except MinirtError as exc:
            item["outcome"], item["why"] = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            self.items.append(item)
        return None

    def __exit__(self, exc_type: Any, *exc: object) -> None:
        if exc_type is not None:  # a crash or a bug inside the cleanup: nothing to report yet
            return
        ctx, rt = self.ctx, self.ctx.runtime
        current = cancel_record(rt.store, ctx.run_id) or {}
        if ORDER.index(CancelStage(current.get("stage", "requested"))) >= 2:
            return  # already recorded (a replay after a crash)
        rec = {**current, "stage": CancelStage.CLEANED_UP.value, "cleanup": self.items}
        rt.faults.hit("before_cancel_cleaned_up")
        ctx.append(new_event(rt.store, "cancel_cleaned_up", None, {"cleanup": self.items},
                              ctx.now_raw()), kv={CANCEL_KEY: canonical_json(rec)})
        rt.faults.hit("after_cancel_cleaned_up")


# -- the runtime that finishes cancelled runs ---------------------------------------------------

class CancellableRuntime(Runtime):
    """A runtime with the :class:`CancelHook` installed (which ends cancelled runs CANCELLED).

    ``work()`` also picks up cancelled runs that no worker holds (a PENDING or WAITING run that
    was cancelled has no lease, which the store's claim query does not pick up). Any runtime
    with a :class:`CancelHook` among its hooks cancels runs the same way; this class only adds
    the hook and that ``work()``."""

    def __init__(self, store: Store, *, cancel_hook: CancelHook | None = None,
                 hooks: Sequence[RuntimeHook] = (), **kwargs: Any) -> None:
        self.cancel_hook = cancel_hook or CancelHook()
        super().__init__(store, hooks=[self.cancel_hook, *hooks], **kwargs)

    def finish_cancel(self, run_id: str, incarnation: int) -> RunOutcome:
        """Reconcile every effect once more and end the run CANCELLED (one transaction)."""
        return finish_cancel(self, run_id, incarnation)

    def work(self, *, max_runs: int | None = None, workflows: Any = None) -> list[RunOutcome]:
        done = super().work(max_runs=max_runs, workflows=workflows)
        for rec in self.store.list_runs([RunState.CANCELLING.value]):
            if max_runs is not None and len(done) >= max_runs:
                break
            if rec.run.lease_expires_at is None:
                done.append(self.run(rec.run.run_id))
        return done


def finish_cancel(rt: Runtime, run_id: str, incarnation: int) -> RunOutcome:
    """Reconcile every effect once more and end the run CANCELLED (one transaction).

    The look-ups here run after the workflow's scopes have closed, so each call carries the
    deadline in force now, the run's own (``DEADLINE_KEY``), with the run's scopes and this
    incarnation; a closed scope's deadline does not bind a later request."""
    rec = rt.store.get_run(run_id)
    journal = Journal.load(rt.store, run_id)
    ctx = rt.new_context(run_id, incarnation, journal, json.loads(rec.input_json))
    for hook in rt.hooks:  # the run's own deadline reaches the look-ups' calls too
        if isinstance(hook, CancelHook):
            hook.state(ctx)
    for pos in journal.unresolved():
        _look_up(ctx, pos.step)
    current = cancel_record(rt.store, run_id) or {}
    final = {**current, "stage": CancelStage.RECONCILED.value,
             "effects": [asdict(e) for e in effects_of(ctx.journal)]}
    if "point" not in current:
        final["note"] = "the workflow ended before a cancellation point: nothing cleaned up"
    now = rt.clock.now()
    rt.faults.hit("before_cancelled", run_id=run_id)
    rt.store.transition(
        run_id, RunEvent("cancelled", at=now, incarnation=incarnation,
                         detail={"cancel_reason": current.get("reason")}),
        events=[rt.transition_event("cancelled", now),
                NewEvent("cancel_reconciled", None, canonical_json(final), now)],
        kv={CANCEL_KEY: canonical_json(final)})
    rt.notify_end(ctx, RunState.CANCELLED)
    return RunOutcome(run_id, RunState.CANCELLED)


# -- nested deadlines ------------------------------------------------------------------------------

def effective_deadline(parent_at: float | None, now: float, *, deadline_at: float | None = None,
                       after: float | None = None) -> float | None:
    """A child's deadline: its own (absolute ``deadline_at``, or ``now + after`` seconds) but
    never later than ``parent_at``; None means no deadline. Pure."""
    if deadline_at is not None and after is not None:
        raise DeadlineInvalid(reason="give deadline_at or after, not both")
    if after is not None and after < 0:
        raise DeadlineInvalid(reason=f"after must be >= 0 seconds, not {after}")
    own = deadline_at if after is None else now + after
    found = [d for d in (own, parent_at) if d is not None]
    return min(found) if found else None


@dataclass
class _Scope:
    name: str
    deadline_at: float | None
    action: str  # "fail" | "move_on"
    step: int  # the step position that recorded the scope's deadline
    expired: bool = False  # a fact: the scope ended because its deadline passed


class _MoveOn(BaseException):  # noqa: N818 - control flow: a move_on scope ends quietly
    def __init__(self, scope: _Scope) -> None:
        super().__init__(scope.name)
        self.scope = scope


def current_deadline(ctx: Context) -> float | None:
    """The deadline every new call of ``ctx`` made from the current task must meet (the
    innermost scope that task is inside, else the run's own)."""
    return ctx.deadline_at


@contextmanager
def _scope(ctx: Context, name: str, action: str, *, deadline_at: float | None = None,
           after: float | None = None) -> Iterator[_Scope]:
    if not isinstance(ctx, Context) and isinstance(getattr(ctx, "ctx", None), Context):
        ctx = ctx.ctx  # an async workflow's AsyncContext (minirt.aio): the Context it wraps
    hook = next((h for h in ctx.runtime.hooks if isinstance(h, CancelHook)), None)
    if hook is None:
        raise DeadlineInvalid(reason="deadline scopes need a CancelHook (CancellableRuntime)")
    st = hook.state(ctx)
    chain = ctx.deadline_scopes()  # the current task's: a sibling's scope is never the parent
    parent: _Scope | None = chain[-1] if chain else None
    parent_at = parent.deadline_at if parent else st.deadline_at

    def compute() -> dict[str, Any]:
        now = ctx.runtime.clock.now()
        own = deadline_at if after is None else now + after
        return {"name": name, "requested_at": own, "parent": parent.name if parent else "run",
                "parent_step": parent.step if parent else None,
                "deadline_at": hook.propagate(parent_at, now, deadline_at=deadline_at,
                                              after=after)}

    rec = ctx.step(f"deadline:{name}", compute)
    scope = _Scope(name, None if rec["deadline_at"] is None else float(rec["deadline_at"]),
                   action, ctx.position - 1)
    token = ctx.enter_deadline_scope(scope)
    try:
        yield scope
    except _MoveOn as m:
        if m.scope is not scope:
            raise
        scope.expired = True
    finally:
        ctx.exit_deadline_scope(token)


def fail_after(ctx: Context, seconds: float, *, name: str = "scope") -> Any:
    """A scope that raises :class:`DeadlineExceeded` ``seconds`` from now (or at its parent's
    deadline, if earlier). Pair of :func:`move_on_after`."""
    return _scope(ctx, name, "fail", after=seconds)


def move_on_after(ctx: Context, seconds: float, *, name: str = "scope") -> Any:
    """A scope that ends quietly ``seconds`` from now (``scope.expired`` says whether it did)."""
    return _scope(ctx, name, "move_on", after=seconds)


def fail_at(ctx: Context, deadline_at: float, *, name: str = "scope") -> Any:
    """Like :func:`fail_after`, with an absolute deadline."""
    return _scope(ctx, name, "fail", deadline_at=deadline_at)


def move_on_at(ctx: Context, deadline_at: float, *, name: str = "scope") -> Any:
    """Like :func:`move_on_after`, with an absolute deadline."""
    return _scope(ctx, name, "move_on", deadline_at=deadline_at)
