"""Concurrent tools: schedule the dependency graph, not the visible list.

An agent often wants several tool calls at once ("look up the order, the customer and the stock,
then update the address and send the invoice"). Running the visible list in parallel is wrong in
two ways: a call that reads what another writes may run before or after it depending on timing
(a race), and a join that collects results *as they complete* makes the next decision depend on
timing, so a replay after a crash sees another order and diverges.

Here a fan-out is a list of :class:`Call` objects. Each declares

- its **data dependencies**: :class:`Ref` placeholders in its arguments ("the ``charge_id`` of the
  ``charge`` call's result") and names in ``after``; a call may depend only on calls listed
  before it;
- its **resource sets**: names it ``reads`` and ``writes`` (``"customers:42"``).

The rule for resources (hazards, as in a CPU pipeline): **two calls conflict when one writes a
resource the other reads or writes.** Reads never conflict with reads. Conflicting calls keep
their list order (the step order) and never share a wave.

:func:`plan_waves` turns the graph into **waves**: wave *k* holds, in step order, the first
``max_in_flight`` calls whose data dependencies and earlier conflicting calls are all in waves
before *k*. This is the *greedy, step-priority* plan: no wave has a free slot that a ready call
could have taken, and a ready call is only ever delayed by calls with earlier steps. It is a pure
function of the calls' steps, names, dependencies and resource sets, so the same fan-out always
gets the same plan. (With no bound it has as few waves as the longest chain; with a bound,
finding the fewest waves is NP-hard in general, so the plan is the greedy one, not the optimum.)

:func:`parallel` runs a fan-out inside a workflow:

- each call gets the step position of its place in the list, whatever order things complete in;
- the plan is checked against the rules (:func:`check_plan`) before anything is journaled, so a
  custom ``planner`` cannot smuggle in a race;
- **group commit**: the intents of one wave (and a ``wave`` event naming its steps) are appended
  in ONE store transaction, before any of them is sent; inside it, every child's
  ``at_intent_commit`` checks run as for a sequential call (the approval gate's revocations and
  cumulative limits), and a child they refuse is journaled as refused instead;
- **the rules of a sequential call**: a child's answer is classified by
  :func:`minirt.dispatch.is_unknown` and settled by :func:`minirt.dispatch.settle`, so an
  answered error is an answer (not an unknown outcome) and follows the tool's retry policy.
  Failed attempts are journaled as the children finish; the durable waits come after the wave's
  siblings are recorded, in step order, and a wait not yet due parks the run (a crash or a park
  during them is resumed by replaying those positions), so the wave waits for its slowest
  retry;
- **structured ownership**: the calls of a wave run as child threads owned by the fan-out; it
  does not return or raise before every child has finished (no orphans). Results are journaled
  by the parent thread one by one *as they complete*, so a crash mid-wave loses no finished
  sibling: replay returns its recorded result and never sends it again, and an unfinished one is
  reconciled (lookup, or a resend with the same effect key) like any intent without an outcome;
- **deterministic join**: results come back in step order, not completion order;
- a failing child (a recorded tool error) follows ``on_error``: ``"cancel"`` (default) lets the
  wave's siblings finish and be recorded (their effects are real), starts no further wave and
  raises the first failure by step; ``"isolate"`` returns :class:`Failed` in its slot, skips
  (:class:`Skipped`) every call that depends on it, and runs the rest. An unknown outcome that
  cannot be reconciled, a stale incarnation or a divergence always stops the fan-out.

Why threads (``concurrent.futures``) and not an asyncio ``TaskGroup``: the runtime is
synchronous (``ctx.call_tool`` blocks; tools are plain functions over HTTP clients and SQLite),
so threads let blocking calls overlap without rewriting every tool as a coroutine or running an
event loop inside a synchronous workflow. The ownership a TaskGroup gives is kept by hand: one
executor per wave, joined before the fan-out returns, and a :class:`ChildScope` the parent
cancels when it stops early (a child sees it at its cooperative cancellation points; a thread
cannot be killed, so a child blocked elsewhere is waited for).

Not guaranteed: that the declared read/write sets are true (the scheduler trusts them, as Restate
trusts a virtual object's key); parallel recovery (the unfinished calls of a crashed wave are
reconciled one by one, in step order, and the retries of a wave's children are sent one by
one too); noticing a cancel request in the middle of a wave (the fan-out's cancellation points
are the wave boundaries).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import dispatch
from .canonical import digest, normalise
from .errors import MinirtError
from .journal import OUTCOME_KINDS, NonDeterminism, UnresolvedIntent, new_event
from .run import RunError
from .store.base import JournalCorrupted
from .tools import Tool, ToolCall

if TYPE_CHECKING:
    from .runtime import Context

ON_ERROR = ("cancel", "isolate")


class PlanInvalid(MinirtError):
    """A fan-out's calls, or the waves a planner returned, break a scheduling rule.

    Raised before anything of the fan-out is journaled or sent. Not a :class:`NonDeterminism`
    (that is a replay asking for something other than what was recorded).
    """

    fields = ("reason",)
    template = "invalid fan-out plan: {reason}"


@dataclass(frozen=True)
class Ref:
    """A placeholder in a call's arguments for another call's result (or a part of it).

    ``Ref("charge", "charge_id")`` is ``result_of_charge["charge_id"]``; the call is a data
    dependency. ``call`` is a name or a list index."""

    call: str | int
    path: tuple[str | int, ...] = ()


def ref(call: str | int, *path: str | int) -> Ref:
    """``ref("charge", "charge_id")``: shorthand for :class:`Ref`."""
    return Ref(call, tuple(path))


@dataclass(frozen=True)
class Call:
    """One tool call of a fan-out, with what it depends on and what it touches."""

    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    reads: Iterable[str] = frozenset()
    writes: Iterable[str] = frozenset()
    after: Iterable[str | int] = ()  # data dependencies without a Ref (names or list indexes)
    name: str | None = None  # default: "<tool>#<list index>"


@dataclass(frozen=True)
class Node:
    """A call as the planner sees it."""

    name: str
    step: int  # Invariant: the call's step position; step order is the program order
    after: frozenset[str] = frozenset()  # names of the calls whose results it needs
    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Failed:
    """Under ``on_error="isolate"``: the call ran and failed with ``error`` (recorded)."""

    name: str
    step: int
    error: MinirtError


@dataclass(frozen=True)
class Skipped:
    """Under ``on_error="isolate"``: never sent, because a call it depends on failed."""

    name: str
    step: int
    because: str  # the name of the failed (or skipped) dependency


Planner = Callable[[Sequence[Node], int], Any]


# -- the rules ---------------------------------------------------------------------------------

def conflicts(a: Node, b: Node) -> bool:
    """Whether ``a`` and ``b`` touch a resource that one of them writes (symmetric)."""
    return bool(a.writes & (b.reads | b.writes) or b.writes & a.reads)


def predecessors(nodes: Sequence[Node]) -> dict[str, set[str]]:
    """name -> the calls that must be in an earlier wave: its data dependencies and every
    conflicting call with an earlier step."""
    out = {n.name: set(n.after) for n in nodes}
    # One pass in step order with an index per resource: the same pairs as testing
    # conflicts(a, b) for every earlier a, without the quadratic loop over calls that touch
    # nothing in common.
    readers: dict[str, list[str]] = {}
    writers: dict[str, list[str]] = {}
    for b in sorted(nodes, key=lambda n: n.step):
        for r in b.writes:
            out[b.name].update(readers.get(r, ()))
            out[b.name].update(writers.get(r, ()))
        for r in b.reads:
            out[b.name].update(writers.get(r, ()))
        for r in b.reads:
            readers.setdefault(r, []).append(b.name)
        for r in b.writes:
            writers.setdefault(r, []).append(b.name)
    return out


def validate(nodes: Sequence[Node]) -> None:
    """Raise :class:`PlanInvalid` unless names and steps are unique and every dependency names
    a call with an earlier step."""
    by_name = {n.name: n for n in nodes}
    if len(by_name) != len(nodes):
        raise PlanInvalid(reason="two calls have the same name")
    if len({n.step for n in nodes}) != len(nodes):
        raise PlanInvalid(reason="two calls have the same step")
    for n in nodes:
        for dep in sorted(n.after):
            if dep not in by_name:
                raise PlanInvalid(reason=f"{n.name} depends on {dep!r}, which is not a call")
            if by_name[dep].step >= n.step:
                raise PlanInvalid(reason=f"{n.name} depends on {dep}, which is not before it")


def plan_waves(nodes: Sequence[Node], max_in_flight: int) -> list[list[str]]:
    """The greedy, step-priority plan (see the module docstring): names per wave, step order."""
    if int(max_in_flight) < 1:
        raise PlanInvalid(reason=f"max_in_flight must be at least 1, not {max_in_flight}")
    validate(nodes)
    preds = predecessors(nodes)
    remaining = sorted(nodes, key=lambda n: n.step)
    placed: set[str] = set()
    waves: list[list[str]] = []
    while remaining:
        wave = [n.name for n in remaining if preds[n.name] <= placed][:max_in_flight]
        placed.update(wave)
        waves.append(wave)
        remaining = [n for n in remaining if n.name not in placed]
    return waves


def check_plan(nodes: Sequence[Node], waves: Any, max_in_flight: int) -> list[str]:
    """Every rule ``waves`` breaks (empty: the plan may run). Does not require minimality."""
    by_name = {n.name: n for n in nodes}
    try:
        plan = [[str(name) for name in wave] for wave in waves]
    except Exception:
        return [f"the plan is {type(waves).__name__}, not a list of lists of names"]
    flat = [name for wave in plan for name in wave]
    problems = []
    if sorted(flat) != sorted(by_name):
        problems.append("the plan does not hold every call exactly once")
    wave_of = {name: k for k, wave in enumerate(plan) for name in wave}
    for k, wave in enumerate(plan):
        if not wave or len(wave) > max_in_flight:
            problems.append(f"wave {k} holds {len(wave)} calls (bound {max_in_flight})")
        touching = [x for x in wave if x in by_name and (by_name[x].reads or by_name[x].writes)]
        for x in touching:
            for y in touching:
                if x < y and conflicts(by_name[x], by_name[y]):
                    problems.append(f"wave {k} holds the conflicting calls {x} and {y}")
    for name, preds in predecessors(list(by_name.values())).items():
        for p in sorted(preds):
            if name in wave_of and p in wave_of and wave_of[p] >= wave_of[name]:
                problems.append(f"{name} is not in a wave after {p}")
    return problems


# -- structured ownership of the children ------------------------------------------------------

class ChildCancelled(BaseException):  # noqa: N818 - control flow, like trio.Cancelled
    """Raised at a child's cancellation point after its parent fan-out stopped early.

    A BaseException, so a tool's ``except Exception`` cannot swallow it. Not a crash and not a
    tool error: the child's call stays an intent without an outcome, reconciled on recovery.
    """


class ChildScope:
    """The cancel scope a wave's children share. The parent calls :meth:`cancel` when it stops
    early (a crash, a failure, a cancellation); children see it at :meth:`checkpoint`."""

    def __init__(self) -> None:
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._wakers: list[Callable[[], None]] = []

    @property
    def cancel_called(self) -> bool:
        """A fact: the parent asked the children to stop."""
        return self._cancelled.is_set()

    def cancel(self) -> None:
        """Ask the children to stop at their next cancellation point (idempotent)."""
        with self._lock:
            self._cancelled.set()
            wakers, self._wakers = self._wakers, []
        for wake in wakers:
            wake()

    def on_cancel(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` when the scope is cancelled (at once if it already is): how a child
        blocked on a condition variable gets woken up."""
        with self._lock:
            if not self._cancelled.is_set():
                self._wakers.append(wake)
                return
        wake()

    def checkpoint(self) -> None:
        """A cooperative cancellation point: raise :class:`ChildCancelled` if cancelled."""
        if self._cancelled.is_set():
            raise ChildCancelled()


_local = threading.local()


def current_scope() -> ChildScope | None:
    """The scope of the fan-out child running on this thread, or None outside a fan-out."""
    return getattr(_local, "scope", None)


def _child(scope: ChildScope, tool: Tool, call: ToolCall) -> tuple[str, Any]:
    """What a child thread does: only the tool invocation (:func:`minirt.dispatch.invoke`). It
    journals nothing (the parent does)."""
    _local.scope = scope
    try:
        scope.checkpoint()
        return dispatch.invoke(tool, call)
    except ChildCancelled:
        return "cancelled", None
    finally:
        _local.scope = None


def run_child(scope: ChildScope, tool: Tool, call: ToolCall) -> tuple[str, Any]:
    """The body of a child thread owned by ``scope``, for another fan-out shape
    (:mod:`minirt.race`): :func:`current_scope` is ``scope`` while the tool runs, and a
    :class:`ChildCancelled` at a cancellation point comes back as ``("cancelled", None)``;
    otherwise what :func:`minirt.dispatch.invoke` returns. Journals nothing."""
    return _child(scope, tool, call)


# -- running a fan-out in a workflow -----------------------------------------------------------

FATAL = (UnresolvedIntent, NonDeterminism, RunError, JournalCorrupted, PlanInvalid)


def parallel(ctx: Context, calls: Sequence[Call], *, max_in_flight: int = 4,
             on_error: str = "cancel", planner: Planner = plan_waves) -> list[Any]:
    """Run ``calls`` as a durable fan-out; return their results in list (step) order."""
    calls = list(calls)
    if on_error not in ON_ERROR:
        raise PlanInvalid(reason=f"on_error must be one of {ON_ERROR}, not {on_error!r}")
    if int(max_in_flight) < 1:
        raise PlanInvalid(reason=f"max_in_flight must be at least 1, not {max_in_flight}")
    names = names_of(calls)
    slots = [ctx.claim_position() for _ in calls]  # step positions in list order, before anything runs
    nodes = nodes_of(calls, [p for p, _ in slots])
    try:
        waves = planner([Node(n.name, n.step, n.after, n.reads, n.writes) for n in nodes],
                        int(max_in_flight))
    except MinirtError:
        raise
    except Exception as exc:
        raise PlanInvalid(reason=f"the planner raised {type(exc).__name__}: {exc}") from None
    problems = check_plan(nodes, waves, int(max_in_flight))
    if problems:
        raise PlanInvalid(reason=problems[0])
    fan = _FanOut(ctx, calls, names, slots, on_error)
    for k, wave in enumerate(waves):
        if k:
            for hook in ctx.runtime.hooks:  # the wave boundary is a cancellation point
                hook.at_checkpoint(ctx)
        fan.run_wave(k, [str(name) for name in wave])
    return fan.results


def names_of(calls: Sequence[Call]) -> list[str]:
    """Each call's name: its own, or ``"<tool>#<list index>"``."""
    return [c.name or f"{c.tool}#{i}" for i, c in enumerate(calls)]


def nodes_of(calls: Sequence[Call], steps: Sequence[int] | None = None) -> list[Node]:
    """The planner's view of ``calls`` (steps: their step positions; default 0, 1, 2, ...),
    validated (:func:`validate`)."""
    names = names_of(calls)
    steps = list(range(len(calls))) if steps is None else list(steps)
    nodes = [Node(names[i], steps[i], frozenset(_deps(c, names)),
                  frozenset(map(str, c.reads)), frozenset(map(str, c.writes)))
             for i, c in enumerate(calls)]
    validate(nodes)
    return nodes


def completion_order(ctx: Context, steps: Iterable[int]) -> list[int]:
    """The steps among ``steps`` in the order their outcomes were journaled (seq order)."""
    wanted, seen = set(steps), []
    for e in ctx.journal.events:
        if e.kind in OUTCOME_KINDS and e.step in wanted and e.step not in seen:
            seen.append(e.step)
    return seen


def _deps(call: Call, names: list[str]) -> set[str]:
    found = {_name_of(d, names) for d in call.after}
    stack: list[Any] = [call.args]
    while stack:
        item = stack.pop()
        if isinstance(item, Ref):
            found.add(_name_of(item.call, names))
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def _name_of(dep: str | int, names: list[str]) -> str:
    if isinstance(dep, int) and not isinstance(dep, bool):
        if not 0 <= dep < len(names):
            raise PlanInvalid(reason=f"dependency index {dep} is not a call of the fan-out")
        return names[dep]
    return str(dep)


class _FanOut:
    """The parent's bookkeeping for one fan-out. Only this (parent) thread writes the journal."""

    def __init__(self, ctx: Context, calls: list[Call], names: list[str],
                 slots: list[tuple[int, Any]], on_error: str) -> None:
        self.ctx, self.calls, self.names, self.slots = ctx, calls, names, slots
        self.on_error = on_error
        self.index = {name: i for i, name in enumerate(names)}
        self.results: list[Any] = [None] * len(calls)
        self.failed: dict[int, MinirtError] = {}

    def run_wave(self, k: int, wave: list[str]) -> None:
        ctx, rt = self.ctx, self.ctx.runtime
        fresh: list[tuple[int, Tool, ToolCall, str]] = []
        rejected: list[tuple[int, Any]] = []
        staged: dict[str, str | None] = {}
        for name in sorted(wave, key=lambda n: self.slots[self.index[n]][0]):
            i = self.index[name]
            blocker = self._blocker(i)
            if blocker is not None:
                self.results[i] = Skipped(name, self.slots[i][0], blocker)
                continue
            p, pos = self.slots[i]
            tool = rt.tool(self.calls[i].tool)
            args = normalise(_resolve(self.calls[i].args, self))
            raw_digest = digest(args)
            if pos is not None:  # recorded: replay it (an open intent is reconciled, serially)
                self._settle(i, lambda p=p, pos=pos, t=tool, d=raw_digest:
                             dispatch.replay(ctx, p, pos, t, d))
                continue
            try:  # the pipeline's prepare -> key -> hooks, as for a sequential call
                call, kv = dispatch.prepare(ctx, tool, p, args)
            except MinirtError as exc:
                rejected.append((i, dispatch.rejection(ctx, p, tool.name, raw_digest, exc)))
                self._fail(i, exc)
                continue
            staged.update(kv)
            fresh.append((i, tool, call, raw_digest))
        fresh = self._group_commit(k, fresh, rejected, staged)
        self._run_children(k, fresh)
        self._raise_if_cancelled()

    def _blocker(self, i: int) -> str | None:
        """The failed or skipped dependency that keeps call ``i`` from running (isolate)."""
        for j, result in enumerate(self.results):
            if isinstance(result, (Failed, Skipped)) and j in self._dep_indexes(i):
                return self.names[j]
        return None

    def _dep_indexes(self, i: int) -> set[int]:
        return {self.index[d] for d in _deps(self.calls[i], self.names)}

    def _group_commit(self, k: int, fresh: list[tuple[int, Tool, ToolCall, str]],
                      rejected: list[tuple[int, Any]], staged: dict[str, str | None]
                      ) -> list[tuple[int, Tool, ToolCall, str]]:
        """ONE transaction: the wave marker, every fresh intent and every refusal of the wave.

        Inside it, each fresh child's ``at_intent_commit`` checks run
        (:func:`minirt.dispatch.check_at_commit`, in step order, as for a sequential call); a
        child they refuse is journaled as its ``tool_rejected`` instead of its intent, in the same
        transaction. Returns the children whose intents committed (the ones to send)."""
        if not fresh and not rejected:
            return fresh
        ctx, rt = self.ctx, self.ctx.runtime
        steps = sorted([c.step for _, _, c, _ in fresh] + [self.slots[i][0] for i, _ in rejected])
        for _, tool, call, _ in fresh:
            rt.faults.hit("before_intent", step=call.step, tool=tool.name)
        checks = dispatch.has_commit_checks(ctx)
        sent: list[tuple[int, Tool, ToolCall, str]] = []
        with rt.store.transaction():
            now = ctx.now_raw()
            events = [new_event(rt.store, "wave", None, {"fanout": self.slots[0][0], "wave": k,
                                                         "steps": steps}, now)]
            refusals = [e for _, e in rejected]
            for i, tool, call, raw_digest in fresh:
                try:
                    if checks:
                        dispatch.check_at_commit(ctx, tool, call)
                except dispatch.CommitRefused as refused:
                    refusals.append(dispatch.rejection(ctx, call.step, tool.name, raw_digest,
                                                       refused.error))
                    self._fail(i, refused.error)
                    continue
                events.append(dispatch.intent_event(ctx, tool, call, raw_digest))
                sent.append((i, tool, call, raw_digest))
            ctx.append(*events, *refusals, kv=staged or None)
            rt.faults.hit("inside_commit", step=steps[0], tool="wave")
        for _, tool, call, _ in sent:
            rt.faults.hit("after_intent", step=call.step, tool=tool.name)
        return sent

    def _run_children(self, k: int, fresh: list[tuple[int, Tool, ToolCall, str]]) -> None:
        """Run the wave's calls as owned child threads; journal each outcome as it arrives."""
        if not fresh:
            return
        scope = ChildScope()
        unknown: list[tuple[int, Tool, ToolCall, str]] = []
        retrying: list[tuple[int, Tool, ToolCall]] = []
        running = self.ctx.children_in_flight  # see its invariant on Context
        with ThreadPoolExecutor(max_workers=len(fresh),
                                thread_name_prefix=f"minirt-wave{k}") as pool:
            running.update(call.step for _, _, call, _ in fresh)
            owned: dict[Future[tuple[str, Any]], tuple[int, Tool, ToolCall]] = {
                pool.submit(_child, scope, tool, call): (i, tool, call)
                for i, tool, call, _ in fresh}
            try:
                pending = set(owned)
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    # One commit per result, in step order within what finished: the sequence
                    # of fault points a crash sweep sees does not depend on thread timing.
                    for fut in sorted(done, key=lambda f: owned[f][2].step):
                        i, tool, call = owned[fut]
                        kind, value = fut.result()
                        running.discard(call.step)
                        self._complete(i, tool, call, kind, value, unknown, retrying)
                for i, tool, call, why in unknown:  # after the siblings: reconcile, in step order
                    self._settle(i, lambda t=tool, c=call, w=why:
                                 self.ctx.runtime.policy.reconcile(self.ctx, t, c, w))
                for i, tool, call in retrying:  # then the retries' durable waits, in step order:
                    # one not due parks the run (Parked), and the wave waits for its slowest
                    self._settle(i, lambda t=tool, c=call: dispatch.retry_attempt(self.ctx, t, c))
            except BaseException:
                scope.cancel()  # children at a cancellation point stop; the pool joins the rest
                raise
            finally:
                running.difference_update(call.step for _, _, call, _ in fresh)

    def _complete(self, i: int, tool: Tool, call: ToolCall, kind: str, value: Any,
                  unknown: list[tuple[int, Tool, ToolCall, str]],
                  retrying: list[tuple[int, Tool, ToolCall]]) -> None:
        """The parent's half of :func:`minirt.dispatch.deliver` for one finished child, by the
        same rules as a sequential call (:func:`minirt.dispatch.is_unknown`,
        :func:`minirt.dispatch.settle`): an unknown answer waits until the wave's siblings are
        recorded, then is reconciled; an answered error the retry policy retries has its failed
        attempt journaled now and its wait (and next attempt) after the siblings."""
        if kind == "cancelled":  # only after the parent stopped; the intent stays open
            return
        if dispatch.is_unknown(tool, kind, value):
            unknown.append((i, tool, call, dispatch.why_unknown(kind, value)))
            return
        ctx = self.ctx

        def settled() -> Any:
            out = dispatch.settle(ctx, tool, call, kind, value, defer_retry=True)
            if out is dispatch.RETRY_SCHEDULED:
                retrying.append((i, tool, call))
            return out

        self._settle(i, settled)

    def _settle(self, i: int, outcome: Callable[[], Any]) -> None:
        try:
            self.results[i] = outcome()
        except FATAL:
            raise
        except MinirtError as exc:  # the call's recorded failure: the on_error policy decides
            self._fail(i, exc)

    def _fail(self, i: int, exc: MinirtError) -> None:
        self.failed[i] = exc
        self.results[i] = Failed(self.names[i], self.slots[i][0], exc)

    def _raise_if_cancelled(self) -> None:
        if self.failed and self.on_error == "cancel":
            first = min(self.failed, key=lambda i: self.slots[i][0])
            raise self.failed[first]


def _resolve(value: Any, fan: _FanOut) -> Any:
    """``value`` with every :class:`Ref` replaced by the referenced result (or part of it)."""
    if isinstance(value, Ref):
        out = fan.results[fan.index[_name_of(value.call, fan.names)]]
        for part in value.path:
            try:
                out = out[part]
            except (KeyError, IndexError, TypeError):
                raise PlanInvalid(reason=f"{value} does not match the result it points to"
                                  ) from None
        return out
    if isinstance(value, Mapping):
        return {k: _resolve(v, fan) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_resolve(v, fan) for v in value]
    return value
