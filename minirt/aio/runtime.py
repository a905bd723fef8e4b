"""The async runtime: ``async def`` workflows executed by the one synchronous run loop.

:class:`AsyncRuntime` is a :class:`~minirt.cancel.CancellableRuntime` (claims, leases, fencing,
replay, the end of a run, cancellation: all the synchronous runtime's, not a copy) whose
``async def`` workflows are wrapped so that the run loop calls a plain function. That function
drives the coroutine, with an :class:`~minirt.aio.context.AsyncContext`, in one of two ways:

- ``rt.run(run_id)`` / ``rt.resume(run_id)`` (no event loop running in this thread, as in a
  script, a worker process or the crash sweep's child): ``asyncio.run`` for the execution; the
  async resources given as ``resources=[...]`` (an :class:`~minirt.aio.mcp.AsyncMCPSession`)
  are closed when that loop ends;
- ``await rt.arun(run_id)`` (inside a running loop: an application, a notebook): the run loop
  runs in a worker thread and hands the coroutine to the caller's loop, so the workflow, its
  tools, the model client and the MCP session all run natively on the caller's loop, and the
  worker thread waits. Cancelling the task awaiting ``arun`` cancels the workflow's task: the
  run takes its cancellation path (:mod:`minirt.aio.context`), ends CANCELLED, and then
  ``arun`` raises ``CancelledError`` to its caller.

Invariant: an async run executes on exactly one event loop at a time, and only that loop's
thread writes its journal while the coroutine runs (the worker thread writes only before and
after: claim, end). Guarantees: an exception, a :class:`~minirt.faults.SimulatedCrash`, a
suspension (``wait_for``) or a cancellation leaves the coroutine exactly as it would leave a
synchronous workflow. Not guaranteed: a custom ``policy=`` (refused: the async path needs its
resend policy, :class:`~minirt.aio.context.ResendPolicy`); running ``rt.run`` inside a running
loop (refused by name: use ``await rt.arun``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from ..cancel import CancellableRuntime
from ..errors import MinirtError
from ..runtime import Context, RunOutcome
from ..store.base import Store
from .context import RESEND_POLICY, AsyncContext

AsyncWorkflow = Callable[[AsyncContext, Any], Awaitable[Any]]


class LoopAlreadyRunning(MinirtError):
    """``rt.run`` was called for an async workflow from inside a running event loop."""

    fields = ("run_id",)
    template = ("run {run_id}: an event loop is already running in this thread; "
                "use `await rt.arun(run_id)` instead of rt.run")


class AsyncPolicyUnsupported(MinirtError):
    fields = ("policy",)
    template = ("AsyncRuntime takes no policy= ({policy}): its resends are awaited through "
                "minirt.aio.ResendPolicy")


class _Handoff:
    """The caller's loop, to which a worker thread hands a workflow's coroutine."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.task: asyncio.Task[Any] | None = None

    def run(self, coro: Awaitable[Any]) -> Any:
        """From the worker thread: run ``coro`` as a task on the loop; wait for its end."""
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def finished(task: asyncio.Task[Any]) -> None:
            if task.cancelled():
                done.set_exception(asyncio.CancelledError())
            elif task.exception() is not None:
                done.set_exception(task.exception())  # type: ignore[arg-type]
            else:
                done.set_result(task.result())

        def start() -> None:
            self.task = self.loop.create_task(coro)  # type: ignore[arg-type]
            self.task.add_done_callback(finished)

        self.loop.call_soon_threadsafe(start)
        return done.result()


_HANDOFF: contextvars.ContextVar[_Handoff | None] = contextvars.ContextVar("minirt_aio_handoff",
                                                                           default=None)


class AsyncRuntime(CancellableRuntime):
    """A runtime for ``async def`` workflows (sync workflows run too, unchanged)."""

    def __init__(self, store: Store, *, workflows: Mapping[str, Any] | None = None,
                 resources: Iterable[Any] = (), policy: Any = None, **kwargs: Any) -> None:
        if policy is not None:
            raise AsyncPolicyUnsupported(policy=type(policy).__name__)
        super().__init__(store, policy=RESEND_POLICY, **kwargs)
        self.resources = list(resources)  # closed when an execution's own loop ends
        for name, fn in (workflows or {}).items():
            self.workflows[name] = self.wrap(fn)

    def workflow(self, fn: Any = None, *, name: str | None = None) -> Any:
        """Register a workflow, async or not (usable as ``@rt.workflow``)."""

        def reg(f: Any) -> Any:
            self.workflows[name or f.__name__] = self.wrap(f)
            return f

        return reg(fn) if fn is not None else reg

    def wrap(self, fn: Any) -> Any:
        """The plain function the run loop calls for ``fn`` (``fn`` itself if it is sync)."""
        if not inspect.iscoroutinefunction(fn) or getattr(fn, "__minirt_async__", None):
            return fn

        @functools.wraps(fn)
        def execute(ctx: Context, input: Any) -> Any:
            return self.drive(fn, AsyncContext(ctx), input)

        execute.__minirt_async__ = fn  # type: ignore[attr-defined]
        return execute

    def drive(self, fn: AsyncWorkflow, actx: AsyncContext, input: Any) -> Any:
        """Run ``fn(actx, input)`` to its end (see the module docstring)."""
        handoff = _HANDOFF.get()
        if handoff is not None:
            return handoff.run(fn(actx, input))
        if _loop_running():  # rt.run checks first; a subclass that bypasses it still stops here
            raise LoopAlreadyRunning(run_id=actx.run_id)
        return asyncio.run(self._own_loop(fn, actx, input))

    async def _own_loop(self, fn: AsyncWorkflow, actx: AsyncContext, input: Any) -> Any:
        try:
            return await fn(actx, input)
        finally:
            for r in self.resources:
                close = getattr(r, "aclose_here", None)
                if close is not None:
                    await close()

    def run(self, run_id: str) -> RunOutcome:
        """Claim the run and execute it (see the module docstring); refused by name, before
        any claim, from inside a running loop (:class:`LoopAlreadyRunning`)."""
        if _HANDOFF.get() is None and _loop_running():
            fn = self.workflows.get(self.store.get_run(run_id).workflow)
            if getattr(fn, "__minirt_async__", None) is not None:
                raise LoopAlreadyRunning(run_id=run_id)
        return super().run(run_id)

    def work(self, *, max_runs: int | None = None, workflows: Any = None) -> list[RunOutcome]:
        if _HANDOFF.get() is None and _loop_running():
            raise LoopAlreadyRunning(run_id="(any: work)")
        return super().work(max_runs=max_runs, workflows=workflows)

    async def arun(self, run_id: str, *, wait: bool = False, timeout: float | None = None
                   ) -> RunOutcome:
        """:meth:`run` from inside a running loop: the workflow runs on this loop. With
        ``wait=True``, right after a crash, first wait out the dead worker's lease (as
        ``rt.resume(run_id, wait=True)``; the waiting is the worker thread's, not the loop's)."""
        handoff = _Handoff(asyncio.get_running_loop())
        token = _HANDOFF.set(handoff)
        try:
            job = asyncio.ensure_future(asyncio.to_thread(self.resume, run_id, wait=wait,
                                                          timeout=timeout))
        finally:
            _HANDOFF.reset(token)
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            if handoff.task is not None and not handoff.task.done():
                handoff.task.cancel()  # the run's cancellation path (minirt.aio.context)
            await asyncio.wait({job})
            if not job.cancelled():
                job.exception()  # retrieved: the caller asked for the cancellation
            raise

    async def aresume(self, run_id: str, *, wait: bool = False, timeout: float | None = None
                      ) -> RunOutcome:
        """:meth:`arun` after a crash (``wait=True``: wait out the dead worker's lease)."""
        return await self.arun(run_id, wait=wait, timeout=timeout)

    async def arun_workflow(self, workflow: str, input: Any = None, *,
                            run_id: str | None = None) -> RunOutcome:
        return await self.arun(self.start(workflow, input, run_id=run_id))


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


__all__ = ["AsyncPolicyUnsupported", "AsyncRuntime", "AsyncWorkflow", "LoopAlreadyRunning"]
