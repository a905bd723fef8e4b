"""asyncio.gather in async workflows replays in the journal's order (minirt.aio.sequencer).

The first execution journals the calls of concurrent branches in the order the tools answered;
a resume must hand the replayed results back in that order, so that every branch claims the
positions it claimed the first time. Crash sweeps (simulate mode, every fault point and
occurrence a crash-free run passes) over gather workflows with varied tool delays: every resume
returns the crash-free result and no keyed call takes effect twice. A changed workflow raises
NonDeterminism naming the position instead of hanging.
"""

from __future__ import annotations

import asyncio
import os
import random
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from minirt.aio import AsyncRuntime
from minirt.clock import FakeClock
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.journal import NonDeterminism
from minirt.runtime import RunState
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, tool

HANG = 20.0  # seconds: a resume that takes longer than this hangs (the test fails)


class Provider:
    """The outside world: applies each effect key once (a keyed provider), counts attempts."""

    def __init__(self, delays: dict[tuple[str, int], int]) -> None:
        self.delays = delays  # loop iterations a call takes (deterministic, no wall time)
        self.applied: Counter[str] = Counter()
        self.answers: dict[str, Any] = {}

    def tools(self) -> list[Any]:
        provider = self

        @tool(EffectClass.KEYED)
        async def work(name: str, i: int, seed: int = 0, call: Any = None) -> dict[str, Any]:
            for _ in range(provider.delays.get((name, i), 0)):
                await asyncio.sleep(0)
            key = call.effect_key
            if key not in provider.answers:
                provider.applied[key] += 1
                provider.answers[key] = {"name": name, "i": i, "v": (seed * 31 + i) % 97}
            return provider.answers[key]

        return [work]


class Echo:
    """A model whose answer depends on the prompt only."""

    def complete(self, prompt: Any, *, index: int) -> Any:
        return {"echo": prompt}


@pytest.fixture()
def db() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as d:
        yield os.path.join(d, "g.sqlite")


def runtime(path: str, provider: Provider, workflow: Callable[..., Any], clock: FakeClock,
            faults: FaultPlan | None = None) -> AsyncRuntime:
    kw: dict[str, Any] = {} if faults is None else {"faults": faults}
    return AsyncRuntime(SQLiteStore(path), tools=provider.tools(), workflows={"wf": workflow},
                        clock=clock, lease_for=0, model=Echo(), **kw)


def crash_then_resume(path: str, workflow: Callable[..., Any], provider: Provider,
                      point: str | None, occurrence: int = 1,
                      resume_workflow: Callable[..., Any] | None = None) -> Any:
    """Run once (crashing at ``point`` if given), then resume on a fresh runtime."""
    clock = FakeClock()
    rt = runtime(path, provider, workflow, clock,
                 FaultPlan(crash_at=point, occurrence=occurrence) if point else None)
    rid = rt.start("wf", None, run_id="r1")
    try:
        out = rt.run(rid)
    except SimulatedCrash:
        out = None
    if out is not None and point is None:
        return out
    clock.advance(100)
    rt2 = runtime(path, provider, resume_workflow or workflow, clock)

    async def resume() -> Any:
        return await asyncio.wait_for(rt2.arun(rid), HANG)

    return asyncio.run(resume())


def passed_points(path: str, workflow: Callable[..., Any], provider: Provider
                  ) -> list[tuple[str, int]]:
    plan = FaultPlan()
    rt = runtime(path, provider, workflow, FakeClock(), plan)
    out = rt.run(rt.start("wf", None, run_id="ref"))
    assert out.state is RunState.SUCCEEDED, out
    return list(plan.passed)


# -- workflows ----------------------------------------------------------------------------------

def gather_of(branches: int, calls: int) -> Callable[..., Any]:
    async def branch(ctx: Any, name: str) -> list[Any]:
        out, seed = [], 0
        for i in range(calls):  # each call's args depend on the previous answer
            r = await ctx.call_tool("work", {"name": name, "i": i, "seed": seed})
            seed = r["v"]
            out.append(f"{name}{i}:{seed}")
        return out

    async def wf(ctx: Any, _: Any) -> Any:
        return await asyncio.gather(*(branch(ctx, "ABC"[b]) for b in range(branches)))

    return wf


async def repro_branch(ctx: Any, name: str) -> list[str]:
    a = await ctx.call_tool("work", {"name": name, "i": 0})
    b = await ctx.call_tool("work", {"name": name, "i": 1})
    return [a["name"] + str(a["i"]), b["name"] + str(b["i"])]


async def repro(ctx: Any, _: Any) -> Any:
    return await asyncio.gather(repro_branch(ctx, "A"), repro_branch(ctx, "B"))


async def mixed_branch(ctx: Any, name: str) -> list[Any]:
    a = await ctx.call_tool("work", {"name": name, "i": 0})
    s = await ctx.step(f"step:{name}", _slow_step, name, a["v"])
    d = await ctx.decide({"ask": name, "after": s}, name=f"d:{name}")
    b = await ctx.call_tool("work", {"name": name, "i": 1, "seed": len(str(d))})
    return [a["v"], s, d["echo"]["ask"], b["v"]]


async def _slow_step(name: str, v: int) -> str:
    for _ in range({"A": 3, "B": 0, "C": 1}.get(name, 0)):
        await asyncio.sleep(0)
    return f"{name}-{v}"


async def mixed(ctx: Any, _: Any) -> Any:
    first = await ctx.step("first", lambda: "go")
    out = await asyncio.gather(*(mixed_branch(ctx, n) for n in "ABC"))
    last = await ctx.call_tool("work", {"name": "Z", "i": 0, "seed": len(out)})
    return [first, out, last["v"]]


async def nested(ctx: Any, _: Any) -> Any:
    async def inner(name: str) -> Any:
        return await asyncio.gather(repro_branch(ctx, name + "x"), repro_branch(ctx, name + "y"))

    async def outer(name: str) -> Any:
        head = await ctx.call_tool("work", {"name": name, "i": 0})
        return [head["v"], await inner(name)]

    return await asyncio.gather(outer("A"), outer("B"), repro_branch(ctx, "C"))


def delay_patterns(names: str, calls: int, seeds: range) -> list[dict[tuple[str, int], int]]:
    out = [{}, {("A", 0): 6}]  # all at once; the repro's shape (A's first call slower)
    for seed in seeds:
        rnd = random.Random(seed)
        out.append({(n, i): rnd.choice([0, 0, 1, 2, 5, 9]) for n in names for i in range(calls)})
    return out


# -- the tests ---------------------------------------------------------------------------------

def test_the_repro_resumes_with_the_same_result(db: str) -> None:
    provider = Provider({("A", 0): 5})
    out = crash_then_resume(db, repro, provider, "before_complete")
    assert out.state is RunState.SUCCEEDED, out.error
    assert out.value == [["A0", "A1"], ["B0", "B1"]]
    assert all(n == 1 for n in provider.applied.values()) and len(provider.applied) == 4


def sweep(path: str, workflow: Callable[..., Any], delays: dict[tuple[str, int], int]) -> int:
    """Every point and occurrence the crash-free run passes: crash there, resume."""
    ref_provider = Provider(delays)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(path)) as d:
        ref_path = os.path.join(d, "ref.sqlite")
        points = passed_points(ref_path, workflow, ref_provider)
        expected = runtime(ref_path, Provider(delays), workflow, FakeClock()).resume("ref")
        assert expected.state is RunState.SUCCEEDED
        cells = 0
        for k, (point, occurrence) in enumerate(points):
            cells += sweep_cell(os.path.join(d, f"{k}.sqlite"), workflow, delays, point,
                                occurrence, expected.value, len(ref_provider.applied))
    return cells


def sweep_cell(cell: str, workflow: Callable[..., Any], delays: dict[tuple[str, int], int],
               point: str, occurrence: int, expected: Any, calls: int) -> int:
    """One crash at ``point`` (its ``occurrence``-th hit), then a resume: the crash-free
    result, and each keyed call applied once by the provider."""
    provider = Provider(delays)
    out = crash_then_resume(cell, workflow, provider, point, occurrence)
    assert out.state is RunState.SUCCEEDED, (point, occurrence, out.error)
    assert out.value == expected, (point, occurrence)
    assert set(provider.applied.values()) <= {1}, (point, occurrence, provider.applied)
    assert len(provider.applied) == calls, (point, occurrence)
    return 1


@pytest.mark.parametrize("branches,calls", [(2, 2), (2, 3), (3, 2), (3, 3)])
def test_crash_sweep_of_gather_workflows_under_varied_delays(db: str, branches: int,
                                                             calls: int) -> None:
    wf = gather_of(branches, calls)
    for delays in delay_patterns("ABC"[:branches], calls, range(branches * 10 + calls, branches * 10 + calls + 2)):
        assert sweep(db, wf, delays) >= 5 * branches * calls


@pytest.mark.parametrize("delays", [{}, {("A", 0): 4}, {("B", 0): 7, ("C", 1): 2},
                                    {("A", 1): 3, ("B", 0): 1, ("C", 0): 5}])
def test_crash_sweep_of_steps_decisions_and_calls_in_branches(db: str,
                                                              delays: dict[Any, int]) -> None:
    assert sweep(db, mixed, delays) > 30


@pytest.mark.parametrize("delays", [{}, {("Ax", 0): 4, ("B", 0): 3}, {("A", 0): 6, ("Cy", 1): 2}])
def test_crash_sweep_of_a_nested_gather(db: str, delays: dict[Any, int]) -> None:
    assert sweep(db, nested, delays) > 30


async def fan_branch(ctx: Any, name: str) -> list[Any]:
    a = await ctx.call_tool("work", {"name": name, "i": 0})
    fan = await ctx.parallel([("work", {"name": name, "i": 10 + j, "seed": a["v"]})
                              for j in range(3)])
    b = await ctx.call_tool("work", {"name": name, "i": 1, "seed": fan[1]["v"]})
    return [a["v"], [f["v"] for f in fan], b["v"]]


async def fans(ctx: Any, _: Any) -> Any:
    return await asyncio.gather(fan_branch(ctx, "A"), fan_branch(ctx, "B"),
                                repro_branch(ctx, "C"))


@pytest.mark.parametrize("delays", [{}, {("A", 11): 5, ("B", 0): 3},
                                    {("A", 10): 2, ("B", 12): 6, ("C", 0): 4}])
def test_crash_sweep_of_fan_outs_inside_gather_branches(db: str,
                                                        delays: dict[Any, int]) -> None:
    """A fan-out's results are journaled as they complete, between other branches' events;
    its task resumes after the last one, as it did."""
    assert sweep(db, fans, delays) > 50


async def changed_second_call(ctx: Any, _: Any) -> Any:
    async def b(name: str) -> list[Any]:
        a = await ctx.call_tool("work", {"name": name, "i": 0})
        i = 1 if name == "A" else 7  # B's second call changed since the first execution
        c = await ctx.call_tool("work", {"name": name, "i": i})
        return [a["i"], c["i"]]

    return await asyncio.gather(b("A"), b("B"))


async def branch_removed(ctx: Any, _: Any) -> Any:
    return await asyncio.gather(repro_branch(ctx, "A"))


def test_a_changed_call_raises_nondeterminism_at_its_position(db: str) -> None:
    """Recorded: A0 (0), B0 (1), B1 (2), A1 (3). B now asks for another second call: the
    sequencer finds no task for position 2, falls back, and the replay check names it."""
    out = crash_then_resume(db, repro, Provider({("A", 0): 5}), "before_complete",
                            resume_workflow=changed_second_call)
    assert isinstance(out.error, NonDeterminism), out
    assert out.error.step == 2, out.error
    assert "diverged from its journal at step 2" in str(out.error)


def test_a_removed_branch_raises_nondeterminism_instead_of_hanging(
        db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Recorded: A0 (0), B0 (1), B1 (2), A1 (3). B is gone: A's first result comes after B's
    claim, which nobody asks for; every task waits, so the run fails naming position 1."""
    monkeypatch.setattr("minirt.aio.sequencer.IDLE_SECONDS", 0.05)
    out = crash_then_resume(db, repro, Provider({("A", 0): 5}), "before_complete",
                            resume_workflow=branch_removed)
    assert isinstance(out.error, NonDeterminism), out
    assert out.error.step == 1, out.error
    assert "the code now asks for nothing" in str(out.error), out.error


def test_a_sequential_workflow_never_waits(db: str) -> None:
    async def seq(ctx: Any, _: Any) -> Any:
        out = []
        for i in range(5):
            out.append((await ctx.call_tool("work", {"name": "S", "i": i}))["v"])
            out.append(await ctx.step(f"s{i}", lambda i=i: i * 2))
        fan = await ctx.parallel([("work", {"name": "P", "i": j}) for j in range(3)])
        waits.append(ctx.sequencer.waits)
        return [out, [f["v"] for f in fan]]

    waits: list[int] = []

    provider = Provider({("P", 0): 4})
    out = crash_then_resume(db, seq, provider, "before_complete")
    assert out.state is RunState.SUCCEEDED, out.error
    assert set(provider.applied.values()) == {1}
    assert waits == [0, 0]  # the first execution and the replay
