"""Async workflows and tools (minirt.aio): the same journal, replay, reconcile, fan-out and
cancellation rules as the synchronous runtime, crash and resume included."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from minirt import EffectClass, FakeClock, FaultPlan, ScriptedModel, SimulatedCrash, SQLiteStore
from minirt.aio import AsyncPolicyUnsupported, AsyncRuntime, LoopAlreadyRunning
from minirt.cancel import Cancelled, cancel_record
from minirt.dispatch import DispatchPolicy
from minirt.journal import NonDeterminism
from minirt.scheduler import completion_order
from minirt.schema import tool
from minirt.tools import Lookup

RUN = "async-1"


class Bank:
    """A keyed provider in memory: executions counted, effects deduplicated by key."""

    def __init__(self) -> None:
        self.executions: list[str] = []
        self.effects: dict[str, dict[str, Any]] = {}

    def tools(self, sync: bool = False) -> list[Any]:
        def book(order_id: str, amount_cents: int, key: str) -> dict[str, Any]:
            self.executions.append(key)
            return self.effects.setdefault(key, {"order_id": order_id,
                                                 "refunded": amount_cents})

        if sync:
            @tool(EffectClass.KEYED, name="refund")
            def refund(order_id: str, amount_cents: int, call=None) -> dict[str, Any]:
                "Refund an order."
                return book(order_id, amount_cents, call.effect_key)
        else:
            @tool(EffectClass.KEYED, name="refund")
            async def refund(order_id: str, amount_cents: int, call=None) -> dict[str, Any]:
                "Refund an order."
                await asyncio.sleep(0)  # a real await point
                return book(order_id, amount_cents, call.effect_key)

        @tool(EffectClass.PURE, name="quote")
        def quote(order_id: str) -> dict[str, Any]:  # a sync tool in an async workflow
            "Price of an order."
            return {"order_id": order_id, "amount_cents": 3000}

        return [refund, quote]


async def support(ctx: Any, task: Any) -> Any:
    q = await ctx.call_tool("quote", order_id=task["order"])
    plan = await ctx.decide({"order": task["order"], "quote": q})
    stamp = await ctx.step("stamp", lambda: "s-1")
    r = await ctx.call_tool("refund", order_id=task["order"], amount_cents=plan["amount"])
    return {"refunded": r["refunded"], "stamp": stamp}


class Harness:
    def __init__(self, tmp_path: Path, workflow: Any = support, **kw: Any) -> None:
        self.path = tmp_path / "runs.sqlite"
        self.clock = FakeClock(1000.0)
        self.bank = Bank()
        self.model = ScriptedModel([{"amount": 3000}])
        self.workflow, self.kw, self.n = workflow, kw, 0

    def runtime(self, faults: Any = None, tools: Any = None) -> AsyncRuntime:
        self.n += 1
        return AsyncRuntime(SQLiteStore(self.path), tools=tools or self.bank.tools(),
                            workflows={"wf": self.workflow}, model=self.model, clock=self.clock,
                            faults=faults, worker_id=f"w{self.n}", **self.kw)

    def run(self, faults: Any = None, **kw: Any) -> Any:
        rt = self.runtime(faults, **kw)
        try:
            return rt.run(rt.start("wf", {"order": "o1"}, run_id=RUN))
        finally:
            rt.close()
            self.clock.advance(3600)

    def kinds(self) -> list[str]:
        store = SQLiteStore(self.path)
        try:
            return [e.kind for e in store.read(RUN)]
        finally:
            store.close()


def test_an_async_workflow_runs_and_replays_from_its_journal(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    out = h.run()
    assert out.state.value == "succeeded", out.error
    assert out.result() == {"refunded": 3000, "stamp": "s-1"}
    kinds = h.kinds()
    assert kinds.count("intent") == 2 and kinds.count("decision") == 1
    assert kinds.index("intent") < kinds.index("tool_result")
    assert h.model.calls == 1 and len(h.bank.executions) == 1
    again = h.run()  # a finished run: the recorded outcome, nothing re-asked or re-sent
    assert again.result() == out.result() and h.model.calls == 1
    assert len(h.bank.executions) == 1


@pytest.mark.parametrize("point,executions", [
    ("before_intent", 1), ("after_intent", 1), ("after_provider_commit", 2),
    ("before_result", 2), ("after_result", 1), ("before_decision_record", 1),
    ("after_step_record", 1),
])
def test_a_crash_at_each_point_refunds_once(tmp_path: Path, point: str, executions: int) -> None:
    h = Harness(tmp_path)
    occurrence = 2 if point in ("before_intent", "after_intent", "after_provider_commit",
                                "before_result", "after_result") else 1  # the refund's
    with pytest.raises(SimulatedCrash):
        h.run(FaultPlan(crash_at=point, occurrence=occurrence))
    out = h.run()
    assert out.state.value == "succeeded", out.error
    assert len(h.bank.effects) == 1, f"{point}: {len(h.bank.effects)} refunds"
    assert len(h.bank.executions) == executions, point
    kinds = h.kinds()
    if executions == 2:  # reconciled, and the resend was awaited as a new attempt
        assert "reconciled" in kinds and "attempt" in kinds


def test_a_replay_that_asks_for_another_tool_diverges(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    with pytest.raises(SimulatedCrash):
        h.run(FaultPlan(crash_at="after_step_record"))

    async def other(ctx: Any, task: Any) -> Any:
        await ctx.call_tool("refund", order_id="o1", amount_cents=1)

    h.workflow = other
    out = h.run()  # parked for an operator (issue 19), as a sync run is: not failed for good
    assert out.state.value == "waiting" and isinstance(out.error, NonDeterminism)


def test_a_custom_policy_and_a_running_loop_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(AsyncPolicyUnsupported):
        AsyncRuntime(SQLiteStore(tmp_path / "x.sqlite"), policy=DispatchPolicy())
    h = Harness(tmp_path)
    rt = h.runtime()

    async def inside() -> None:
        rt.run(rt.start("wf", {"order": "o1"}, run_id=RUN))

    with pytest.raises(LoopAlreadyRunning):
        asyncio.run(inside())
    rt.close()


def test_arun_runs_the_workflow_on_the_callers_loop(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    seen: list[Any] = []

    async def here(ctx: Any, task: Any) -> Any:
        seen.append(asyncio.get_running_loop())
        return await support(ctx, task)

    h.workflow = here

    async def main() -> Any:
        rt = h.runtime()
        try:
            out = await rt.arun(rt.start("wf", {"order": "o1"}, run_id=RUN))
        finally:
            rt.close()
        return out, asyncio.get_running_loop()

    out, loop = asyncio.run(main())
    assert out.result()["refunded"] == 3000 and seen == [loop]


# -- the fan-out over a TaskGroup --------------------------------------------------------------

class Gated:
    """Three async tools whose completion order the test sets (events, not timing)."""

    def __init__(self, order: list[str]) -> None:
        self.order = order
        self.runs: list[str] = []

    def tools(self) -> list[Any]:
        return [self.make(name) for name in ("a", "b", "c")]

    def make(self, name: str) -> Any:
        async def fn(x: int) -> dict[str, Any]:
            self.runs.append(name)
            await self.turn_of(name)
            return {"tool": name, "x": x}

        fn.__name__, fn.__doc__ = name, "A gated tool."
        return tool(EffectClass.KEYED, name=name)(fn)

    async def turn_of(self, name: str) -> None:
        while self.order and self.order[0] != name:
            await asyncio.sleep(0)
        if self.order:
            self.order.pop(0)


async def fan(ctx: Any, task: Any) -> Any:
    return await ctx.parallel([("a", {"x": 1}), ("b", {"x": 2}), ("c", {"x": 3})])


def test_parallel_journals_completion_order_and_returns_list_order(tmp_path: Path) -> None:
    g = Gated(["c", "a", "b"])
    h = Harness(tmp_path, fan)
    out = h.run(tools=g.tools())
    assert [r["tool"] for r in out.result()] == ["a", "b", "c"]
    store = SQLiteStore(h.path)
    try:
        from minirt.journal import Journal

        journal = Journal.load(store, RUN)
        intents = [e.step for e in journal.events if e.kind == "intent"]
        assert completion_order(type("C", (), {"journal": journal})(), intents) == [2, 0, 1]
        kinds = [e.kind for e in store.read(RUN)]
    finally:
        store.close()
    # every intent before any result (one write), then results as they completed
    assert max(i for i, k in enumerate(kinds) if k == "intent") < kinds.index("tool_result")


def test_a_crash_mid_fan_out_resends_only_the_unfinished_call(tmp_path: Path) -> None:
    g = Gated(["c", "a", "b"])
    h = Harness(tmp_path, fan)
    with pytest.raises(SimulatedCrash):  # after the 2nd result (c, then a): b is in flight
        h.run(FaultPlan(crash_at="after_result", occurrence=2), tools=g.tools())
    assert sorted(g.runs) == ["a", "b", "c"]
    g.runs.clear()
    out = h.run(tools=g.tools())
    assert [r["tool"] for r in out.result()] == ["a", "b", "c"]
    assert g.runs == ["b"]  # the finished siblings replayed from the journal


# -- cancellation is asyncio's --------------------------------------------------------------------

class Stuck:
    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.lookups = 0

    def tools(self) -> list[Any]:
        def lookup(call: Any) -> Lookup:
            self.lookups += 1
            return Lookup(found=False)

        @tool(EffectClass.KEYED, name="slow", lookup=lookup)
        async def slow(x: int) -> dict[str, Any]:
            "Never answers."
            self.started.set()
            await asyncio.Event().wait()
            return {}

        @tool(EffectClass.PURE, name="undo")
        def undo(x: int) -> dict[str, Any]:
            "Cleanup."
            return {"undone": x}

        return [slow, undo]


async def cancellable(ctx: Any, task: Any) -> Any:
    from minirt.cancel import Cleanup

    try:
        return await ctx.call_tool("slow", x=1)
    except Cancelled as c:
        with Cleanup(ctx.ctx, c) as cleanup:
            cleanup.call("undo", x=1)
        raise


def test_cancelling_the_task_takes_the_runs_cancellation_path(tmp_path: Path) -> None:
    h = Harness(tmp_path, cancellable)
    stuck = Stuck()

    async def main() -> None:
        rt = h.runtime(tools=stuck.tools())
        try:
            job = asyncio.ensure_future(rt.arun(rt.start("wf", {}, run_id=RUN)))
            await stuck.started.wait()
            job.cancel()
            with pytest.raises(asyncio.CancelledError):
                await job
            assert rt.store.get_run(RUN).run.state.value == "cancelled"
            rec = cancel_record(rt.store, RUN)
            assert rec is not None and rec["by"] == "asyncio"
        finally:
            rt.close()

    asyncio.run(main())
    assert stuck.lookups >= 1  # the call in flight was looked up, never resent
    kinds = h.kinds()
    assert kinds.count("intent") == 2  # slow, then the cleanup's undo
    assert "cancel_requested" in kinds and "cancel_reconciled" in kinds


def test_a_tool_that_raises_cancelled_error_cancels_the_run(tmp_path: Path) -> None:
    @tool(EffectClass.KEYED, name="slow")
    async def slow(x: int) -> dict[str, Any]:
        "Cancelled from inside."
        raise asyncio.CancelledError

    @tool(EffectClass.PURE, name="undo")
    def undo(x: int) -> dict[str, Any]:
        "Cleanup."
        return {"undone": x}

    h = Harness(tmp_path, cancellable)
    out = h.run(tools=[slow, undo])
    assert out.state.value == "cancelled"


# -- one pipeline: the async journal is the sync journal ----------------------------------------

def support_sync(ctx: Any, task: Any) -> Any:
    q = ctx.call_tool("quote", order_id=task["order"])
    plan = ctx.decide({"order": task["order"], "quote": q})
    stamp = ctx.step("stamp", lambda: "s-1")
    r = ctx.call_tool("refund", order_id=task["order"], amount_cents=plan["amount"])
    return {"refunded": r["refunded"], "stamp": stamp}


def journal_of(path: Path) -> list[tuple[str, Any, str]]:
    store = SQLiteStore(path)
    try:
        return [(e.kind, e.step, e.payload_json) for e in store.read(RUN)
                if e.kind != "transition"]
    finally:
        store.close()


@pytest.mark.parametrize("crash", [None, "after_intent", "after_provider_commit"])
def test_the_async_journal_is_the_sync_journal(tmp_path: Path, crash: str | None) -> None:
    """The same workflow, written sync and async, journals the same events, payloads and
    steps, crash and recovery included (the async path is the sync pipeline, awaited)."""
    from minirt import Runtime

    journals = []
    for name, wf in (("sync", support_sync), ("async", support)):
        path, clock, bank = tmp_path / f"{name}.sqlite", FakeClock(1000.0), Bank()
        for life, faults in enumerate(([FaultPlan(crash_at=crash, occurrence=2)] if crash
                                       else []) + [None]):
            cls = AsyncRuntime if name == "async" else Runtime
            rt = cls(SQLiteStore(path), tools=bank.tools(sync=name == "sync"),
                     workflows={"wf": wf},
                     model=ScriptedModel([{"amount": 3000}]), clock=clock, faults=faults,
                     worker_id=f"w{life}")
            try:
                rt.run(rt.start("wf", {"order": "o1"}, run_id=RUN))
            except SimulatedCrash:
                pass
            finally:
                rt.close()
                clock.advance(3600)
        journals.append(journal_of(path))
    assert journals[0] == journals[1]
    assert any(k == "tool_result" for k, _, _ in journals[0])


def test_a_sync_run_refuses_an_async_tool_by_name(tmp_path: Path) -> None:
    from minirt import Runtime
    from minirt.schema import AsyncToolNeedsAwait

    bank = Bank()
    rt = Runtime(SQLiteStore(tmp_path / "s.sqlite"), tools=bank.tools(),
                 workflows={"wf": support_sync}, model=ScriptedModel([{"amount": 3000}]))
    out = rt.run(rt.start("wf", {"order": "o1"}, run_id=RUN))
    rt.close()
    assert out.state.value == "failed" and isinstance(out.error, AsyncToolNeedsAwait)
    assert bank.executions == []


def test_cancelling_a_fan_out_cancels_the_run_and_looks_up_every_call(tmp_path: Path) -> None:
    stuck = Stuck()

    async def fan_stuck(ctx: Any, task: Any) -> Any:
        return await ctx.parallel([("slow", {"x": 1}), ("slow", {"x": 2})])

    h = Harness(tmp_path, fan_stuck)

    async def main() -> None:
        rt = h.runtime(tools=stuck.tools())
        try:
            job = asyncio.ensure_future(rt.arun(rt.start("wf", {}, run_id=RUN)))
            await stuck.started.wait()
            job.cancel()
            with pytest.raises(asyncio.CancelledError):
                await job
            assert rt.store.get_run(RUN).run.state.value == "cancelled"
        finally:
            rt.close()

    asyncio.run(main())
    assert stuck.lookups >= 2  # both calls in flight looked up, none resent
    kinds = h.kinds()
    assert kinds.count("intent") == 2 and "tool_result" not in kinds


def test_an_async_workflow_waits_durably_for_a_signal(tmp_path: Path) -> None:
    async def approve_then_refund(ctx: Any, task: Any) -> Any:
        ok = await ctx.wait_for("approval")
        r = await ctx.call_tool("refund", order_id="o1", amount_cents=ok["cents"])
        return r["refunded"]

    h = Harness(tmp_path, approve_then_refund)
    assert h.run().state.value == "waiting"
    rt = h.runtime()
    rt.signal(RUN, "approval", {"cents": 1200})
    rt.close()
    out = h.run()
    assert out.result() == 1200 and len(h.bank.effects) == 1
