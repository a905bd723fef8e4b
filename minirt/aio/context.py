"""What an ``async def`` workflow sees: the same journal, fencing and replay rules, awaited.

An :class:`AsyncContext` wraps the execution's :class:`~minirt.runtime.Context` (``actx.ctx``,
which the hooks, the policies and the cancellation path keep seeing) and offers its calls as
coroutines: ``await ctx.step(...)``, ``await ctx.decide(...)``, ``await ctx.call_tool(...)``,
``await ctx.parallel([...])``, ``await ctx.wait_for(...)``. Each one is the synchronous
pipeline with an ``await`` where the sync one blocks, nothing else:

- a step and a decision replay and record through :mod:`minirt.steps` (the functions
  ``Context.step`` / ``Context.decide`` use);
- a tool call goes through :mod:`minirt.dispatch`: ``replay`` or ``prepare`` (gate, key, hooks),
  ``rejection`` or ``write_intent``, then the tool is awaited (:func:`ainvoke`) and its answer is
  classified by ``dispatch.invoke`` itself and journaled by ``dispatch.settle``. A resend that
  reconciliation allows comes back here through the runtime's policy (:class:`Resend`), so it is
  awaited too.

Invariant: every journal write happens on the event loop's thread between two awaits, so the
writes of concurrent calls never interleave and a position is claimed before the first await of
the call that owns it. That alone does not make concurrent calls replay: the first execution of
``asyncio.gather(branch("A"), branch("B"))`` claims positions in the order the tools answered
(A's second call after B's two if A's first tool was slower), while a replay answers every call
at once. So while an execution replays, every claim and every replayed result of its tasks goes
through the execution's :class:`~minirt.aio.sequencer.ReplaySequencer`, which lets them happen
in the journal's recorded order and gives a contested position to the task whose call matches
the recording (see :mod:`minirt.aio.sequencer` for the rules, the idle check that turns a
workflow changed between runs into NonDeterminism instead of a hang, and the limits: awaits of
non-journaled things between calls are deterministic only if their order is). Once the recorded
history is exhausted the sequencer is off and nothing waits; a workflow without concurrency
never waits in it.

A crash (a BaseException such as :class:`~minirt.faults.SimulatedCrash`) raised by any journal
write of one task stops the others: they claim, write and journal a cancel request no more (a
killed process would not either), so the two crash modes leave the same journal.

**Fan-out** (:meth:`AsyncContext.parallel`): the calls claim consecutive positions in list
order, their intents are journaled in ONE write before any is sent, then they run as tasks of an
``asyncio.TaskGroup``; each result is journaled as it arrives, so the journal's order is the
order of completion (``minirt.scheduler.completion_order`` reads it), while the results are
returned in list order. A crash mid-fan-out loses no finished sibling; an unfinished one is an
intent without an outcome, reconciled on replay like any other. It follows the rules of the
synchronous wave (:mod:`minirt.scheduler`), through the same :mod:`minirt.dispatch` functions:

- with commit checks (a hook's ``at_intent_commit``: the approval gate's revocations and
  cumulative limits), the one write is one store transaction, inside which every child's
  checks run in step order (``dispatch.check_at_commit``); a refused child is journaled as its
  ``tool_rejected`` instead of its intent, in that transaction (fault point ``inside_commit``);
- an answered error vs an unknown outcome is ``dispatch.is_unknown``'s call: an unknown one is
  reconciled after every sibling is recorded, in step order (its resend awaited then; one that
  cannot be reconciled stops the fan-out without cancelling a sibling in flight); an answer is
  settled by ``dispatch.settle(defer_retry=True)`` as it arrives: an answered error the tool's
  retry policy retries has its failed attempt journaled then, and its durable wait and next attempt
  (``dispatch.retry_attempt``) come after every sibling is recorded, in step order: a wait not
  yet due parks the run (resumed by replaying those positions), so the fan-out waits for its
  slowest retry, and a retry never parks the run mid-group.

**Cancellation** is asyncio's: a ``CancelledError`` that reaches a tool call or a model call
(the workflow's task was cancelled, or the tool raised it) becomes the run's cancellation path
(:mod:`minirt.cancel`): a durable cancel request is journaled, the call in flight stays an
intent without an outcome (looked up, never resent), and the cancellation point raises
:class:`~minirt.cancel.Cancelled` right there, so the workflow's ``except Cancelled`` cleanup
runs and the run ends CANCELLED.

Not guaranteed: that a tool that ignores cancellation stops (it is awaited to its end only
inside a fan-out's group); a journal write never blocks the loop (SQLite writes are synchronous:
the loop waits for the fsync, by design); a fan-out with dependencies (``after``, ``ref``): use
the synchronous :func:`minirt.scheduler.parallel` for waves.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import dispatch, steps
from ..canonical import normalise
from ..errors import MinirtError, ToolError
from ..runtime import Context
from ..scheduler import FATAL, Call, PlanInvalid, Ref
from ..tools import Tool, ToolCall
from .sequencer import ReplaySequencer, Want

#: Set while an async call settles: the policy turns a resend into :class:`Resend`.
_AWAITING: contextvars.ContextVar[bool] = contextvars.ContextVar("minirt_aio_awaiting",
                                                                 default=False)


class Resend(BaseException):  # noqa: N818 - control flow between the policy and the context
    """Reconciliation allowed a resend of ``call``: the async context awaits it."""

    def __init__(self, call: ToolCall) -> None:
        super().__init__(f"resend {call.tool} attempt {call.attempt}")
        self.call = call


class ResendPolicy(dispatch.DispatchPolicy):
    """The default policy, except that a resend asked for inside an async call is handed back
    to the awaiting :class:`AsyncContext` (a synchronous caller, such as a cleanup's
    ``Cleanup.call``, still gets the synchronous delivery)."""

    def deliver(self, ctx: Context, tool: Tool, call: ToolCall) -> Any:
        if _AWAITING.get():
            raise Resend(call)
        return dispatch.deliver(ctx, tool, call)


RESEND_POLICY = ResendPolicy()


class _Answered:
    """A tool whose answer is already in: ``dispatch.invoke`` classifies it, as for any tool."""

    def __init__(self, tool: Tool, value: Any = None, exc: Exception | None = None) -> None:
        self.name, self.effect = tool.name, tool.effect
        self.value, self.exc = value, exc

    def invoke(self, call: ToolCall) -> Any:
        if self.exc is not None:
            raise self.exc
        return self.value


async def ainvoke(tool: Tool, call: ToolCall) -> tuple[str, Any]:
    """Step 5 awaited: an async tool (``ainvoke``, or an ``async def`` function tool) is awaited
    on this loop; a synchronous one runs in a worker thread. The answer is classified by
    :func:`minirt.dispatch.invoke`. ``CancelledError`` propagates (it is not an answer)."""
    native = getattr(tool, "ainvoke", None)
    if native is not None and getattr(tool, "is_async", True) is False:
        native = None  # a plain typed tool: in a worker thread, like any synchronous tool
    try:
        if native is not None:
            value = await native(call)
        elif inspect.iscoroutinefunction(getattr(tool, "fn", None)):
            value = await tool.invoke(call)
        else:
            value = await asyncio.to_thread(tool.invoke, call)
    except Exception as exc:
        return dispatch.invoke(_Answered(tool, exc=exc), call)  # type: ignore[arg-type]
    return dispatch.invoke(_Answered(tool, value), call)  # type: ignore[arg-type]


class AsyncContext:
    """What an ``async def`` workflow sees (see the module docstring)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        # Invariant: once a crash (a BaseException such as SimulatedCrash) left a journal write
        # (an intent, a settle step, a step's or a decision's record, a fan-out's commit), no
        # other task of this execution claims or journals anything: a killed process writes nothing
        # after its crash point either, and the two crash modes must agree.
        self.crashed: BaseException | None = None
        # Invariant: while this execution replays, every claim and every replayed result of
        # its tasks goes through the sequencer, in the journal's order (minirt.aio.sequencer).
        self.sequencer = ReplaySequencer(ctx)

    # -- facts of the execution (the sync context's) --------------------------------------------

    @property
    def run_id(self) -> str:
        return self.ctx.run_id

    @property
    def input(self) -> Any:
        return self.ctx.input

    @property
    def runtime(self) -> Any:
        return self.ctx.runtime

    @property
    def journal(self) -> Any:
        return self.ctx.journal

    @property
    def position(self) -> int:
        return self.ctx.position

    @property
    def incarnation(self) -> int:
        return self.ctx.incarnation

    @property
    def replaying(self) -> bool:
        return self.ctx.replaying

    # -- steps ------------------------------------------------------------------------------

    async def step(self, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``Context.step`` for a function or a coroutine function: run it once, journal what
        it returned (or its named error); on replay return (or raise) the record."""
        ctx = self.ctx
        p, pos = await self._claim(Want.step(name))
        if pos is not None:
            if not self.sequencer.take(p):
                await self.sequencer.result(p)
            return steps.replay_step(ctx, p, pos, name)
        try:
            out = fn(*args, **kwargs)
            value = normalise(await out if inspect.isawaitable(out) else out)
        except MinirtError as exc:
            self._journaling(steps.record_step, ctx, p, name, error=exc)
        return self._journaling(steps.record_step, ctx, p, name, value, normalised=True)

    async def now(self) -> float:
        """The time, recorded as a step (``Context.now``'s step)."""
        return await self.step("now", self.ctx.runtime.clock.now)

    async def decide(self, prompt: Any, *, name: str = "decide", model: Any = None) -> Any:
        """``Context.decide``, awaiting an async model (``acomplete``); a sync model is called.
        On replay the recorded decision is returned and the model is not asked."""
        ctx = self.ctx
        seq = self.sequencer
        if seq.active:
            start = ctx.position
            await seq.turn(Want.decision(name, prompt))
            try:
                replayed, got = steps.open_decision(ctx, prompt, name, model)
            finally:
                seq.claimed_range(start)
            if replayed:
                await seq.result(start)
                return got
        else:
            replayed, got = steps.open_decision(ctx, prompt, name, model)
            if replayed:
                return got
        m, index = got.model, got.index
        acomplete = getattr(m, "acomplete", None)
        try:
            output = (await acomplete(prompt, index=index) if acomplete is not None
                      else m.complete(prompt, index=index))
        except asyncio.CancelledError:
            self.cancelled(f"decision {name!r}")
            raise
        return self._journaling(steps.record_decision, ctx, got.step, name, got.prompt_digest,
                                output)

    # -- tools --------------------------------------------------------------------------------

    async def call_tool(self, tool_name: str, args: Mapping[str, Any] | None = None,
                        **kw: Any) -> Any:
        """``Context.call_tool`` awaited: validate, journal the intent, await the tool with its
        effect key, journal the outcome; on replay return the recorded outcome."""
        ctx = self.ctx
        raw: Any = {**args, **kw} if isinstance(args, Mapping) else (kw if args is None else args)
        tool = ctx.runtime.tool(tool_name)
        raw_digest, raw_text = steps.args_identity(raw)  # the raw arguments encoded once
        p, pos = await self._claim(Want.tool(tool_name, raw_digest))
        if pos is not None:
            if not self.sequencer.take(p):
                await self.sequencer.result(p)
            return await self._settling(tool, lambda: dispatch.replay(ctx, p, pos, tool,
                                                                      raw_digest))
        try:  # a refusal by prepare or by a hook is journaled, so replay raises it again
            call, staged, args_text = dispatch.prepare_call(ctx, tool, p, raw, raw_text,
                                                            raw_digest)
        except MinirtError as exc:
            ctx.append(dispatch.rejection(ctx, p, tool_name, raw_digest, exc))
            raise
        self._journaling(dispatch.write_intent, ctx, tool, call, raw_digest, staged,
                         args_text=args_text)
        try:
            kind, value = await ainvoke(tool, call)
        except asyncio.CancelledError:
            self.cancelled(f"tool {tool_name!r} at step {p}")
            raise
        return await self._settling(tool, lambda: dispatch.settle(ctx, tool, call, kind, value))

    def _dead(self) -> BaseException:
        """What a task raises once a crash killed this execution: the crash itself, or a
        plain ``CancelledError`` for a task being cancelled (the loop winding down after the
        crash reached the workflow: a dead process's leftover tasks end silently)."""
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            return asyncio.CancelledError()
        assert self.crashed is not None
        return self.crashed

    def _journaling(self, write: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``write(*args, **kwargs)``, a journal write of this execution: refused once a crash
        left one (see ``crashed``), and a crash it raises is remembered."""
        if self.crashed is not None:
            raise self._dead()
        try:
            return write(*args, **kwargs)
        except Exception:
            raise
        except BaseException as exc:
            self._remember_crash(exc)
            raise

    def _remember_crash(self, exc: BaseException) -> None:
        """A non-``Exception`` raised by a journal write (a simulated or real crash, an exit)
        ends this execution's journaling; asyncio's cancellation is not a crash."""
        if not isinstance(exc, asyncio.CancelledError):
            self.crashed = exc

    async def _claim(self, want: Want) -> tuple[int, Any]:
        """Claim the next position, in the sequencer's order while the execution replays."""
        if self.crashed is not None:
            raise self._dead()
        seq = self.sequencer
        if not seq.active:
            return self.ctx.claim_position()
        if not seq.may_claim(want):
            await seq.turn(want)
        try:
            p, pos = self.ctx.claim_position()
        except BaseException:
            seq.release()
            raise
        seq.claimed_one(p, pos)
        return p, pos

    async def _settling(self, tool: Tool, settle: Callable[[], Any]) -> Any:
        """Run a synchronous settle step; await every resend reconciliation asks for."""
        ctx = self.ctx
        while True:
            if self.crashed is not None:
                raise self._dead()
            token = _AWAITING.set(True)
            try:
                return settle()
            except Resend as r:
                call = r.call
            except Exception:
                raise
            except BaseException as exc:
                self._remember_crash(exc)
                raise
            finally:
                _AWAITING.reset(token)
            try:
                kind, value = await ainvoke(tool, call)
            except asyncio.CancelledError:
                self.cancelled(f"tool {tool.name!r} at step {call.step} (attempt {call.attempt})")
                raise
            settle = (lambda call=call, kind=kind, value=value:  # noqa: E731
                      dispatch.settle(ctx, tool, call, kind, value))

    async def run_tool_calls(self, decision: Mapping[str, Any], *, parallel: bool = False
                             ) -> list[Any]:
        """:func:`minirt.models.arun_tool_calls` on this context."""
        from ..models import arun_tool_calls

        return await arun_tool_calls(self, decision, parallel=parallel)

    async def parallel(self, calls: Sequence[Call | tuple[str, Mapping[str, Any]]], *,
                       return_errors: bool = False) -> list[Any]:
        """Run ``calls`` (:class:`~minirt.scheduler.Call` or ``(tool, args)``) at once over an
        ``asyncio.TaskGroup`` (see the module docstring); return their results in list order.

        A recorded failure of one call (a refusal, the tool's "no") never cancels its siblings
        (their effects are real): with ``return_errors`` it is returned in its slot, else the
        first one by step is raised after every sibling finished. An unknown outcome that cannot
        be reconciled, a divergence or a crash always propagates."""
        ctx, rt = self.ctx, self.ctx.runtime
        items = [_item(c) for c in calls]
        tools = [rt.tool(name) for name, _ in items]  # an unknown tool: before any claim
        seq = self.sequencer
        if seq.active and items:  # the fan-out's intents are one claim (one write)
            await seq.turn(Want.tool(items[0][0], steps.safe_digest(items[0][1])))
            slots: list[tuple[int, Any]] = []
            try:
                slots.extend(ctx.claim_position() for _ in items)
            finally:
                seq.claimed(slots)
            last = seq.group_last([p for p, _ in slots])
            if last is not None:  # it resumes after its last recorded result, as it did
                await seq.result(last)
        else:
            slots = [ctx.claim_position() for _ in items]
        results: list[Any] = [None] * len(items)
        failed: dict[int, BaseException] = {}
        fresh: list[tuple[int, Tool, ToolCall, str]] = []
        refusals: list[Any] = []
        staged: dict[str, str | None] = {}
        for i, ((_, args), tool, (p, pos)) in enumerate(zip(items, tools, slots, strict=True)):
            raw_digest = steps.safe_digest(args)
            if pos is not None:  # recorded: replay it (an open intent is reconciled, serially)
                try:
                    results[i] = await self._settling(
                        tool, lambda p=p, pos=pos, t=tool, d=raw_digest:
                        dispatch.replay(ctx, p, pos, t, d))
                except FATAL:
                    raise
                except MinirtError as exc:
                    failed[i] = exc
                continue
            try:
                call, kv = dispatch.prepare(ctx, tool, p, args)
            except MinirtError as exc:
                refusals.append(dispatch.rejection(ctx, p, tool.name, raw_digest, exc))
                failed[i] = exc
                continue
            staged.update(kv)
            fresh.append((i, tool, call, raw_digest))
        sent = self._journaling(self._group_commit, fresh, refusals, staged, failed)
        retrying: list[tuple[int, Tool, ToolCall]] = []
        unknown: list[tuple[int, Tool, ToolCall, str]] = []

        async def child(i: int, tool: Tool, call: ToolCall) -> None:
            kind, value = await ainvoke(tool, call)
            if dispatch.is_unknown(tool, kind, value):  # reconciled after the siblings
                unknown.append((i, tool, call, dispatch.why_unknown(kind, value)))
                return

            def settled() -> Any:  # the wave's rules: a retry's wait comes after the siblings
                out = dispatch.settle(ctx, tool, call, kind, value, defer_retry=True)
                if out is dispatch.RETRY_SCHEDULED:
                    retrying.append((i, tool, call))
                return out

            try:  # journaled as it completes: the journal keeps the order of completion
                results[i] = await self._settling(tool, settled)
            except FATAL:
                raise
            except (MinirtError, ToolError) as exc:
                failed[i] = exc

        steps_in_flight = [call.step for _, _, call in sent]
        ctx.children_in_flight.update(steps_in_flight)
        try:
            async with asyncio.TaskGroup() as group:
                for i, tool, call in sent:
                    group.create_task(child(i, tool, call))
        except asyncio.CancelledError:  # the group has awaited every child's end: none runs
            ctx.children_in_flight.difference_update(steps_in_flight)
            self.cancelled(f"a fan-out of {len(sent)} calls")
            raise
        except BaseExceptionGroup as eg:  # a crash or a fatal error in a child: raise it as is
            raise _first_leaf(eg) from None
        finally:
            ctx.children_in_flight.difference_update(steps_in_flight)
        for i, tool, call, why in sorted(unknown, key=lambda u: u[2].step):
            # every sibling is recorded: reconcile the lost answers, in step order (a resend
            # is awaited here; one that cannot be reconciled stops the fan-out)
            try:
                results[i] = await self._settling(
                    tool, lambda t=tool, c=call, w=why: rt.policy.reconcile(ctx, t, c, w))
            except FATAL:
                raise
            except (MinirtError, ToolError) as exc:
                failed[i] = exc
        retrying.sort(key=lambda r: r[2].step)
        for i, tool, call in retrying:  # every sibling is recorded: the durable waits, in step
            # order (one not due parks the run; the fan-out waits for its slowest retry)
            try:
                results[i] = await self._settling(
                    tool, lambda t=tool, c=call: dispatch.retry_attempt(ctx, t, c))
            except FATAL:
                raise
            except (MinirtError, ToolError) as exc:
                failed[i] = exc
        if return_errors:
            for i, exc in failed.items():
                results[i] = exc
        elif failed:
            raise failed[min(failed, key=lambda i: slots[i][0])]
        return results

    def _group_commit(self, fresh: list[tuple[int, Tool, ToolCall, str]], refusals: list[Any],
                      staged: dict[str, str | None], failed: dict[int, BaseException]
                      ) -> list[tuple[int, Tool, ToolCall]]:
        """ONE write: every fresh intent and every refusal of the fan-out, before any is sent.

        With commit checks (a hook's ``at_intent_commit``: the approval gate's revocations and
        cumulative limits) the write is one store transaction, inside which each fresh child's
        checks run (:func:`minirt.dispatch.check_at_commit`, in step order, as the synchronous
        wave does); a child they refuse is journaled as its ``tool_rejected`` instead of its
        intent, in the same transaction, and its error goes to ``failed``. Returns the children
        whose intents committed (the ones to send)."""
        ctx, rt = self.ctx, self.ctx.runtime
        if not fresh and not refusals:
            return []
        for _, tool, call, _ in fresh:
            rt.faults.hit("before_intent", step=call.step, tool=tool.name)
        sent: list[tuple[int, Tool, ToolCall]] = []
        events = list(refusals)
        if not dispatch.has_commit_checks(ctx):
            for i, tool, call, raw_digest in fresh:
                events.append(dispatch.intent_event(ctx, tool, call, raw_digest))
                sent.append((i, tool, call))
            events.sort(key=lambda e: e.step)
            ctx.append(*events, kv=staged or None)
        else:
            with rt.store.transaction():
                for i, tool, call, raw_digest in sorted(fresh, key=lambda f: f[2].step):
                    try:
                        dispatch.check_at_commit(ctx, tool, call)
                    except dispatch.CommitRefused as refused:
                        events.append(dispatch.rejection(ctx, call.step, tool.name, raw_digest,
                                                         refused.error))
                        failed[i] = refused.error
                        continue
                    events.append(dispatch.intent_event(ctx, tool, call, raw_digest))
                    sent.append((i, tool, call))
                events.sort(key=lambda e: e.step)
                ctx.append(*events, kv=staged or None)
                rt.faults.hit("inside_commit", step=events[0].step, tool="fan-out")
        for _, tool, call in sent:
            rt.faults.hit("after_intent", step=call.step, tool=tool.name)
        return sent

    # -- waits ---------------------------------------------------------------------------------

    async def wait_for(self, name: str, *, timeout: float | None = None) -> Any:
        """``Context.wait_for``: the run leaves the worker until the signal arrives."""
        return await self._sync_claim(Want.wait(name), self.ctx.wait_for, name, timeout=timeout)

    async def sleep(self, seconds: float) -> None:
        """``Context.sleep``: a durable timer (never ``asyncio.sleep``, which a crash forgets)."""
        await self._sync_claim(Want.wait(), self.ctx.sleep, seconds)

    async def _sync_claim(self, want: Want, fn: Callable[..., Any], *args: Any,
                          **kwargs: Any) -> Any:
        """A synchronous call of the context that claims its own position (a wait), taken in
        the sequencer's order while the execution replays."""
        seq = self.sequencer
        if not seq.active:
            return fn(*args, **kwargs)
        start = self.ctx.position
        await seq.turn(want)
        try:
            return fn(*args, **kwargs)
        finally:
            seq.claimed_range(start)

    # -- cancellation ------------------------------------------------------------------------

    def cancelled(self, what: str) -> None:
        """asyncio cancelled ``what``: journal the run's cancel request, then take the
        cancellation point at once (a :class:`~minirt.cancel.CancelHook` raises
        :class:`~minirt.cancel.Cancelled` after looking the call in flight up). Returns only
        if the runtime has no cancel hook, or after a crash (the caller re-raises the
        ``CancelledError``)."""
        from ..cancel import cancel

        if self.crashed is not None:  # the process is dead: its leftover tasks journal nothing
            return
        ctx = self.ctx
        cancel(ctx.runtime, ctx.run_id, f"asyncio.CancelledError during {what}", by="asyncio")
        for hook in ctx.runtime.hooks:
            hook.at_checkpoint(ctx)


def _item(c: Any) -> tuple[str, Any]:
    if isinstance(c, Call):
        if c.after or _has_ref(c.args):
            raise PlanInvalid(reason="an async fan-out runs its calls at once: dependencies "
                                     "(after, ref) need minirt.scheduler.parallel")
        return c.tool, normalise(dict(c.args))
    if isinstance(c, tuple) and len(c) == 2 and isinstance(c[0], str):
        return c[0], c[1] if not isinstance(c[1], Mapping) else dict(c[1])
    raise PlanInvalid(reason=f"a fan-out call is a Call or (tool, args), not {type(c).__name__}")


def _has_ref(value: Any) -> bool:
    if isinstance(value, Ref):
        return True
    if isinstance(value, Mapping):
        return any(_has_ref(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_ref(v) for v in value)
    return False


def _first_leaf(eg: BaseExceptionGroup) -> BaseException:
    """The exception to raise for a group: a crash first, then the first non-cancellation."""
    leaves: list[BaseException] = []
    stack: list[BaseException] = [eg]
    while stack:
        e = stack.pop(0)
        if isinstance(e, BaseExceptionGroup):
            stack = list(e.exceptions) + stack
        else:
            leaves.append(e)
    for e in leaves:
        if not isinstance(e, Exception) and not isinstance(e, asyncio.CancelledError):
            return e
    for e in leaves:
        if not isinstance(e, asyncio.CancelledError):
            return e
    return leaves[0]


__all__ = ["AsyncContext", "RESEND_POLICY", "Resend", "ResendPolicy", "ainvoke"]
