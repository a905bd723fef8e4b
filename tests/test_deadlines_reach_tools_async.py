"""The async runtime's dispatch paths and the race's hand the tool the deadline in force, the
runtime's scopes and the incarnation of the worker that sends it, as the synchronous paths do
(tests/test_deadlines_reach_tools.py, whose probe tools and runtime factory this file reuses).

Async paths (:mod:`minirt.aio`): a sequential ``await ctx.call_tool`` (a synchronous tool in a
worker thread and an ``async def`` tool on the loop), an ``await ctx.parallel`` fan-out, a resend
after a crash at ``after_intent`` (sequential and in a fan-out), a resend the reconcile policy
allows after an unknown outcome (sequential and in a fan-out), the cancellation look-up of an
open intent (after an explicit cancel, and after asyncio cancelled the task awaiting the tool).
The next attempt of a retried answered error, sent after its durable wait by the next
execution (sync and async, a single call and a fan-out). Race paths (:func:`minirt.race.race`,
synchronous): every entrant, and the resend of the open entrants after a crash before the
decision.

Deadline scopes belong to the asyncio task that opens them: a sibling task outside the scope is
sent with the run's deadline, a child task created inside it inherits it, a scope's parent is the
innermost scope of its own task, and a scope's expiry is raised in the task inside it, not in
whichever task reaches a checkpoint first. The final reconcile look-up of a cancelled run
(:func:`minirt.cancel.finish_cancel`) runs after every scope closed, and carries the deadline in
force then (the run's own).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_deadlines_reach_tools import SCOPES, Probe, runtime

from minirt import FaultPlan, SimulatedCrash
from minirt.aio import AsyncRuntime
from minirt.cancel import (
    EXPIRED,
    CancellableRuntime,
    DeadlineExceeded,
    cancel,
    fail_after,
    move_on_after,
)
from minirt.journal import Journal
from minirt.race import race
from minirt.retry import RetryPolicy
from minirt.scheduler import Call, parallel
from minirt.tools import EffectClass, Lookup, ToolCall, tool


class AsyncProbe(Probe):
    """The sync probe's tools, plus ``aprobe`` (an ``async def`` tool, awaited on the loop) and
    ``stuck`` (an ``async def`` tool that never answers; its look-ups are recorded), ``gated``
    (answers once ``gate`` is set) and ``retried`` (its first attempt is declined; retried after
    a durable wait of 5 s)."""

    def __init__(self) -> None:
        super().__init__()
        self.started = asyncio.Event()
        self.gate = asyncio.Event()

    def tools(self) -> list[Any]:
        @tool(EffectClass.KEYED)
        async def aprobe(call=None):
            self.note("aprobe", call)
            return {"ok": True}

        def lookup(call: ToolCall) -> Lookup:
            self.looked_up.append(call)
            return Lookup(False)

        @tool(EffectClass.KEYED, lookup=lookup)
        async def stuck(call=None):
            self.note("stuck", call)
            self.started.set()
            await asyncio.Event().wait()  # until the task is cancelled
            return {}

        @tool(EffectClass.KEYED)
        async def gated(call=None):
            self.note("gated", call)
            await self.gate.wait()  # until the test opens it
            return {"ok": True}

        @tool(EffectClass.KEYED, retry=RetryPolicy(attempts=2, initial_interval=5, backoff=1))
        def retried(call=None):
            self.note("retried", call)
            if call.attempt == 1:
                raise ValueError("declined")  # an answered error: the retry policy's
            return {"ok": True}

        return [*super().tools(), aprobe, stuck, gated, retried]


def aruntime(tmp_path, probe: Probe, agent: Any, **kw: Any) -> AsyncRuntime:
    return runtime(tmp_path, probe, agent, cls=AsyncRuntime, **kw)  # type: ignore[return-value]


# -- the async runtime --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["probe", "aprobe"])  # a worker thread / the loop
def test_an_async_tool_call_sees_the_innermost_deadline(tmp_path, name):
    probe = AsyncProbe()

    async def agent(ctx, _):
        await ctx.call_tool(name)
        with fail_after(ctx.ctx, 60, name="outer"):
            await ctx.call_tool(name)
            with fail_after(ctx.ctx, 10, name="inner"):
                await ctx.call_tool(name)
            await ctx.call_tool(name)
        return None

    rt = aruntime(tmp_path, probe, agent)
    rt.run_workflow("agent", None, run_id="r1").result()
    assert probe.seen == [(name, 1, d, SCOPES, 1) for d in (None, 1060.0, 1010.0, 1060.0)]


def test_a_scope_opened_on_the_async_context_itself_reaches_the_tool(tmp_path):
    probe = AsyncProbe()

    async def agent(ctx, _):  # ctx, not ctx.ctx: before, the run failed with an AttributeError
        with fail_after(ctx, 60, name="outer"), move_on_after(ctx, 10, name="inner"):
            await ctx.call_tool("aprobe")
        return None

    rt = aruntime(tmp_path, probe, agent)
    assert rt.run_workflow("agent", None, run_id="r1").state.value == "succeeded"
    assert probe.seen == [("aprobe", 1, 1010.0, SCOPES, 1)]


def test_an_async_fan_out_sees_the_innermost_deadline(tmp_path):
    probe = AsyncProbe()

    async def agent(ctx, _):
        with fail_after(ctx.ctx, 60, name="outer"):
            with fail_after(ctx.ctx, 10, name="inner"):
                await ctx.parallel([Call("probe", name="a"), Call("aprobe", name="b")])
        return None

    rt = aruntime(tmp_path, probe, agent)
    rt.run_workflow("agent", None, run_id="r1").result()
    assert sorted(probe.seen) == [("aprobe", 1, 1010.0, SCOPES, 1), ("probe", 1, 1010.0, SCOPES, 1)]


async def one_call(ctx, name):
    await ctx.call_tool(name)


async def fan_out(ctx, name):
    await ctx.parallel([Call(name, name="a"), Call("aprobe", name="b")])


@pytest.mark.parametrize("shape", [one_call, fan_out], ids=["call_tool", "parallel"])
def test_an_async_resend_after_a_crash_at_after_intent_keeps_the_deadline(tmp_path, shape):
    probe = AsyncProbe()

    async def agent(ctx, _):
        with fail_after(ctx.ctx, 60):
            await shape(ctx, "probe")
        return None

    rt = aruntime(tmp_path, probe, agent, faults=FaultPlan(crash_at="after_intent"))
    run_id = rt.start("agent", None, run_id="r1")
    with pytest.raises(SimulatedCrash):
        rt.run(run_id)
    rt.close()
    assert probe.seen == []
    rt2 = aruntime(tmp_path, probe, agent, at=1040.0, worker="w2")  # past the first lease
    rt2.resume(run_id).result()
    resent = [s for s in probe.seen if s[0] == "probe"]
    assert resent == [("probe", 2, 1060.0, SCOPES, 2)]
    assert all(s[2:] == (1060.0, SCOPES, 2) for s in probe.seen)  # aprobe: resent too, or first


@pytest.mark.parametrize("shape", [one_call, fan_out], ids=["call_tool", "parallel"])
def test_an_async_resend_the_reconcile_policy_allows_keeps_the_deadline(tmp_path, shape):
    probe = AsyncProbe()

    async def agent(ctx, _):
        with fail_after(ctx.ctx, 60):
            await shape(ctx, "flaky")
        return None

    rt = aruntime(tmp_path, probe, agent)
    rt.run_workflow("agent", None, run_id="r1").result()
    flaky = [s for s in probe.seen if s[0] == "flaky"]
    assert flaky == [("flaky", 1, 1060.0, SCOPES, 1), ("flaky", 2, 1060.0, SCOPES, 1)]


def test_the_async_cancellation_look_up_sees_the_deadline(tmp_path):
    probe = AsyncProbe()

    async def agent(ctx, _):
        with fail_after(ctx.ctx, 60):
            await ctx.call_tool("looked")  # Cancelled is raised here on resume, after the look-up
        return None

    rt = aruntime(tmp_path, probe, agent, faults=FaultPlan(crash_at="after_intent"))
    run_id = rt.start("agent", None, run_id="r1")
    with pytest.raises(SimulatedCrash):
        rt.run(run_id)
    rt.close()
    rt2 = aruntime(tmp_path, probe, agent, at=1040.0, worker="w2")
    assert cancel(rt2, run_id, "stop")
    assert rt2.resume(run_id).state.value == "cancelled"
    assert probe.seen == []  # never resent after a cancel, only looked up
    assert probe.looked_up, "the open intent was not looked up"
    call = probe.looked_up[0]  # at the cancellation point (the final reconcile: see below)
    assert (call.deadline_at, call.scopes, call.incarnation) == (1060.0, SCOPES, 2)


def test_the_look_up_after_asyncio_cancelled_the_call_sees_the_deadline(tmp_path):
    probe = AsyncProbe()

    async def agent(ctx, _):
        with fail_after(ctx.ctx, 60, name="outer"):
            with fail_after(ctx.ctx, 10, name="inner"):
                await ctx.call_tool("stuck")  # the task is cancelled while this awaits
        return None

    async def main() -> None:
        rt = aruntime(tmp_path, probe, agent)
        try:
            job = asyncio.ensure_future(rt.arun(rt.start("agent", None, run_id="r1")))
            await probe.started.wait()
            job.cancel()
            with pytest.raises(asyncio.CancelledError):
                await job
            assert rt.store.get_run("r1").run.state.value == "cancelled"
        finally:
            rt.close()

    asyncio.run(main())
    assert probe.seen == [("stuck", 1, 1010.0, SCOPES, 1)]
    assert probe.looked_up, "the call in flight was not looked up"
    call = probe.looked_up[0]  # at the cancellation point (the final reconcile: see below)
    assert (call.attempt, call.deadline_at, call.scopes, call.incarnation) == (
        1, 1010.0, SCOPES, 1)


@pytest.mark.parametrize("cls", [CancellableRuntime, AsyncRuntime], ids=["sync", "async"])
def test_the_final_reconcile_look_up_carries_the_deadline_in_force_when_it_runs(tmp_path, cls):
    """The look-up at the cancellation point runs inside the scope (its 1060); the final one in
    ``finish_cancel`` runs after every scope has closed, so it carries the deadline in force then:
    the run's own (None here). A closed scope's deadline does not bind a later request."""
    probe = AsyncProbe()

    def sync_agent(ctx, _):
        with fail_after(ctx, 60):
            ctx.call_tool("looked")
        return None

    async def async_agent(ctx, _):
        with fail_after(ctx.ctx, 60):
            await ctx.call_tool("looked")
        return None

    agent = sync_agent if cls is CancellableRuntime else async_agent
    rt = runtime(tmp_path, probe, agent, cls=cls, faults=FaultPlan(crash_at="after_intent"))
    run_id = rt.start("agent", None, run_id="r1")
    with pytest.raises(SimulatedCrash):
        rt.run(run_id)
    rt.close()
    rt2 = runtime(tmp_path, probe, agent, cls=cls, at=1040.0, worker="w2")
    assert cancel(rt2, run_id, "stop")
    assert rt2.resume(run_id).state.value == "cancelled"
    assert len(probe.looked_up) == 2  # at the cancellation point, then in finish_cancel
    assert [c.deadline_at for c in probe.looked_up] == [1060.0, None]
    assert {(c.scopes, c.incarnation) for c in probe.looked_up} == {(SCOPES, 2)}


def sync_retry_once(ctx, _):
    with fail_after(ctx, 60):
        ctx.call_tool("retried")


def sync_retry_in_a_wave(ctx, _):
    with fail_after(ctx, 60):
        parallel(ctx, [Call("retried", name="a"), Call("probe", name="b")])


async def async_retry_once(ctx, _):
    with fail_after(ctx.ctx, 60):
        await ctx.call_tool("retried")


async def async_retry_in_a_fan_out(ctx, _):
    with fail_after(ctx.ctx, 60):
        await ctx.parallel([Call("retried", name="a"), Call("probe", name="b")])


@pytest.mark.parametrize("cls, agent", [
    (CancellableRuntime, sync_retry_once), (CancellableRuntime, sync_retry_in_a_wave),
    (AsyncRuntime, async_retry_once), (AsyncRuntime, async_retry_in_a_fan_out)],
    ids=["sync-call", "sync-wave", "async-call", "async-fan-out"])
def test_a_retry_after_its_durable_wait_keeps_the_deadline(tmp_path, cls, agent):
    probe = AsyncProbe()
    rt = runtime(tmp_path, probe, agent, cls=cls)
    assert rt.run_workflow("agent", None, run_id="r1").state.value == "waiting"  # parked 5 s
    rt.clock.advance(5)
    (done,) = rt.work()  # the second execution (incarnation 2) sends the next attempt
    assert done.state.value == "succeeded"
    assert [s for s in probe.seen if s[0] == "retried"] == [
        ("retried", 1, 1060.0, SCOPES, 1), ("retried", 2, 1060.0, SCOPES, 2)]


def test_a_sibling_task_outside_a_scope_does_not_get_its_deadline(tmp_path):
    probe = AsyncProbe()

    async def agent(ctx, _):
        async def scoped():
            with fail_after(ctx.ctx, 10, name="inner"):
                await ctx.call_tool("gated")  # suspends until plain() opened the gate

        async def plain():  # no scope of its own: the run's deadline (None) is in force
            await ctx.call_tool("probe")
            probe.gate.set()

        await asyncio.gather(scoped(), plain())  # positions claimed in start order

    rt = aruntime(tmp_path, probe, agent)
    rt.run_workflow("agent", None, run_id="r1").result()
    assert probe.seen[0] == ("gated", 1, 1010.0, SCOPES, 1)
    assert probe.seen[1] == ("probe", 1, None, SCOPES, 1)


def test_a_child_task_created_inside_a_scope_inherits_it(tmp_path):
    probe = AsyncProbe()

    async def agent(ctx, _):
        async def child(name):  # no scope of its own: the one in force where it was created
            await ctx.call_tool(name)

        async def nested():  # its own scope nests in the inherited one and stays in this task
            with fail_after(ctx.ctx, 5, name="nested"):
                await ctx.call_tool("probe")

        with fail_after(ctx.ctx, 60, name="outer"):
            with fail_after(ctx.ctx, 10, name="inner"):
                await asyncio.create_task(child("probe"))
                await asyncio.gather(child("aprobe"))
                await asyncio.create_task(nested())
                await ctx.call_tool("probe")  # the child's scope closed with the child
            await asyncio.create_task(child("aprobe"))
        await asyncio.create_task(child("probe"))

    rt = aruntime(tmp_path, probe, agent)
    assert rt.run_workflow("agent", None, run_id="r1").state.value == "succeeded"
    assert [(s[0], s[2]) for s in probe.seen] == [
        ("probe", 1010.0), ("aprobe", 1010.0), ("probe", 1005.0), ("probe", 1010.0),
        ("aprobe", 1060.0), ("probe", None)]


def test_a_child_task_s_scope_replays_its_recorded_deadline_after_a_crash(tmp_path):
    """The child task's scope deadline was journaled at the step that opened it (1000 + 100);
    the resend after a crash, at 1040, carries that, not a new 1040 + 100."""
    probe = AsyncProbe()

    async def agent(ctx, _):
        async def child():
            with fail_after(ctx.ctx, 100, name="child"):
                await ctx.call_tool("probe")

        with fail_after(ctx.ctx, 200, name="outer"):
            await asyncio.create_task(child())

    rt = aruntime(tmp_path, probe, agent, faults=FaultPlan(crash_at="after_intent"))
    run_id = rt.start("agent", None, run_id="r1")
    with pytest.raises(SimulatedCrash):
        rt.run(run_id)
    rt.close()
    rt2 = aruntime(tmp_path, probe, agent, at=1040.0, worker="w2")
    assert rt2.resume(run_id).state.value == "succeeded"
    assert probe.seen == [("probe", 2, 1100.0, SCOPES, 2)]
    journal = Journal.load(rt2.store, "r1")
    opened = {p["name"]: p["value"] for p in map(journal.payload, journal.events)
              if str(p.get("name", "")).startswith("deadline:")}
    assert opened["deadline:child"]["parent"] == "outer"


def test_a_scope_takes_its_parent_from_its_own_task_not_a_sibling(tmp_path):
    probe = AsyncProbe()

    async def agent(ctx, _):
        async def first():
            with fail_after(ctx.ctx, 10, name="a"):
                await ctx.call_tool("gated")  # suspends inside "a" until second() opened the gate

        async def second():
            with fail_after(ctx.ctx, 60, name="b"):  # the run's child, not a's
                await ctx.call_tool("probe")
            probe.gate.set()

        await asyncio.gather(first(), second())

    rt = aruntime(tmp_path, probe, agent)
    assert rt.run_workflow("agent", None, run_id="r1").state.value == "succeeded"
    assert [(s[0], s[2]) for s in probe.seen] == [("gated", 1010.0), ("probe", 1060.0)]
    journal = Journal.load(rt.store, "r1")
    opened = {p["name"]: p["value"] for p in map(journal.payload, journal.events)
              if str(p.get("name", "")).startswith("deadline:")}
    assert opened["deadline:a"]["parent"] == opened["deadline:b"]["parent"] == "run"
    assert opened["deadline:b"]["deadline_at"] == 1060.0  # not capped at a's 1010


def test_an_expiry_is_raised_in_the_task_whose_scope_expired(tmp_path):
    probe = AsyncProbe()
    ended: dict[str, Any] = {}

    async def agent(ctx, _):
        async def scoped():
            try:
                with fail_after(ctx.ctx, 5, name="inner"):
                    await ctx.call_tool("gated")  # suspends until plain() opened the gate
                    await ctx.call_tool("probe")  # the first checkpoint of this task past 1005
                ended["scoped"] = "finished"
            except DeadlineExceeded as exc:
                ended["scoped"] = exc.scope

        async def plain():  # reaches checkpoints past 1005 first: none of them is its expiry
            ctx.runtime.clock.advance(10)
            await ctx.call_tool("aprobe")
            await ctx.call_tool("aprobe")
            ended["plain"] = "finished"
            probe.gate.set()

        await asyncio.gather(scoped(), plain())

    rt = aruntime(tmp_path, probe, agent)
    assert rt.run_workflow("agent", None, run_id="r1").state.value == "succeeded"
    assert ended == {"plain": "finished", "scoped": "inner"}
    assert [(s[0], s[2]) for s in probe.seen] == [
        ("gated", 1005.0), ("aprobe", None), ("aprobe", None)]  # probe: never sent
    journal = Journal.load(rt.store, "r1")
    expired = [(e.step, journal.payload(e)) for e in journal.events
               if e.kind == "step" and journal.payload(e).get("name") == EXPIRED]
    assert len(expired) == 1 and expired[0][1]["error"]["attrs"]["scope"] == "inner"


# -- the race (minirt.race, synchronous) -------------------------------------------------------

def raced(ctx, _):
    with fail_after(ctx, 120, name="outer"):
        with fail_after(ctx, 60, name="inner"):  # not passed yet when the crashed run resumes
            won = race(ctx, [Call("probe", name="a"), Call("probe", name="b")], want=2)
    return sorted(won.winners)  # want=2: both must answer, so both are sent


def test_every_race_entrant_sees_the_innermost_deadline(tmp_path):
    probe = Probe()
    rt = runtime(tmp_path, probe, raced)
    assert rt.run_workflow("agent", None, run_id="r1").result() == ["a", "b"]
    assert probe.seen == [("probe", 1, 1060.0, SCOPES, 1)] * 2


def test_a_race_resends_its_open_entrants_with_the_deadline_after_a_crash(tmp_path):
    probe = Probe()
    rt = runtime(tmp_path, probe, raced, faults=FaultPlan(crash_at="after_intent"))
    run_id = rt.start("agent", None, run_id="r1")
    with pytest.raises(SimulatedCrash):  # both intents committed, none sent, no decision
        rt.run(run_id)
    rt.close()
    assert probe.seen == []
    rt2 = runtime(tmp_path, probe, raced, at=1040.0, worker="w2")  # past the first lease
    assert rt2.resume(run_id).result() == ["a", "b"]
    assert probe.seen == [("probe", 2, 1060.0, SCOPES, 2)] * 2
