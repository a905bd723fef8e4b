"""Issue 21/19 follow-ups: the async fan-out (``await ctx.parallel``) follows the rules of the
synchronous wave (:mod:`minirt.scheduler`): every child's ``at_intent_commit`` checks run inside
the fan-out's one transaction (the approval gate's revocations and cumulative limits), a refused
child is journaled as ``tool_rejected``; an answered error follows the tool's RetryPolicy with
its durable wait AFTER every sibling is recorded (the fan-out waits for its slowest retry), and a
reservation is given back when the provider answered no. Real async runs on SQLite (and
PostgreSQL where the store matters), counting what the providers received."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fakes import waves
from fakes.waves import T0, Shop

from minirt import FakeClock
from minirt.aio import AsyncRuntime
from minirt.approval_commit import spent
from minirt.run import RunState
from minirt.store import open_store
from minirt.tools import EffectClass, FunctionTool, ToolCall

pytest_plugins = ["pg_fixture"]
RUN = "async-refund-7"


# -- the approval gate's commit-time checks run for every child of an async fan-out --------------

def new_shop(url: str | Path, **kw: Any) -> Shop:
    return Shop(url, runtime=AsyncRuntime, run_id=RUN, **kw)


def shown(r: Any) -> Any:
    if isinstance(r, Exception):
        return {"refused": type(r).__name__, "spent": getattr(r, "attrs", {}).get("spent")}
    return r


async def four_refunds(ctx: Any, inp: Any) -> Any:
    calls = [("refund", {"order_id": i, "amount_cents": 2000}) for i in range(4)]
    return [shown(r) for r in await ctx.parallel(calls, return_errors=True)]


def test_a_cumulative_limit_holds_inside_one_async_fan_out(store_url: str) -> None:
    waves.check_a_cumulative_limit_holds_inside_one_wave(new_shop(store_url, max_total=5000),
                                                         four_refunds)


def test_a_revocation_before_the_async_fan_out_commits_stops_every_child(store_url: str) -> None:
    waves.check_a_revocation_before_the_wave_commits_stops_every_child(new_shop(store_url),
                                                                       four_refunds)


def test_a_crash_inside_the_async_fan_out_commit_rolls_its_reservations_back(
        store_url: str) -> None:
    waves.check_a_crash_inside_the_wave_commit_rolls_its_reservations_back(
        new_shop(store_url, max_total=5000), four_refunds)


# -- a reservation is given back when the provider answered no ----------------------------------

async def two_waves(ctx: Any, inp: Any) -> Any:
    out = []
    for wave in range(2):
        calls = [("refund", {"order_id": 2 * wave + j, "amount_cents": 2000}) for j in range(2)]
        out += [shown(r) for r in await ctx.parallel(calls, return_errors=True)]
    return out


def test_an_answered_error_in_an_async_fan_out_gives_its_reservation_back(store_url: str) -> None:
    shop = new_shop(store_url, max_total=5000, failures=2)
    rt = shop.start(two_waves)
    out = rt.run(RUN).result()
    # the first fan-out's 4,000 was refused by the provider: given back, so the second fan-out
    # fits under 5,000. Before: nothing was ever reserved (spent() was empty)
    assert [r.get("refused") for r in out] == ["ToolError", "ToolError", None, None], out
    assert len(shop.sent) == 4
    (cap_key,) = [k for k in spent(rt.store, RUN) if k.startswith("capability:")]
    assert spent(rt.store, RUN) == {cap_key: 4000, "run": 4000}
    assert rt.run(RUN).state is RunState.SUCCEEDED  # a replay gives nothing back twice
    assert spent(rt.store, RUN) == {cap_key: 4000, "run": 4000} and len(shop.sent) == 4
    rt.close()


# -- per-child retries: durable waits after every sibling is recorded ---------------------------

async def fan(ctx: Any, inp: Any) -> Any:
    return await ctx.parallel([("a", {"n": 1}), ("b", {"n": 2})])


def test_async_fan_out_children_are_retried_durably_and_it_waits_for_the_slowest(
        store_url: str) -> None:
    waves.check_children_are_retried_durably_and_the_wave_waits_for_the_slowest(
        AsyncRuntime, store_url, fan, asynchronous=True)


def test_an_async_child_whose_retries_run_out_fails_the_fan_out_with_its_last_error(
        tmp_path: Path) -> None:
    waves.check_a_child_whose_retries_run_out_fails_the_wave_with_its_last_error(
        AsyncRuntime, str(tmp_path / "r.sqlite"), fan, asynchronous=True)


def test_a_lost_answer_of_an_async_child_is_reconciled_and_an_answered_one_is_not(
        tmp_path: Path) -> None:
    sent: list[tuple[str, str]] = []

    def keyed(name: str, exc: type[Exception]) -> FunctionTool:
        async def fn(n: int, call: ToolCall) -> dict[str, int]:
            sent.append((name, call.effect_key))
            if sum(1 for t, _ in sent if t == name) == 1:
                raise exc(f"{name}: first request")
            return {name: n}

        return FunctionTool(fn, name=name, effect=EffectClass.KEYED)

    async def wf(ctx: Any, inp: Any) -> Any:
        out = await ctx.parallel([("a", {"n": 1}), ("b", {"n": 2})], return_errors=True)
        return [getattr(r, "type_name", r) for r in out]

    rt = AsyncRuntime(open_store(str(tmp_path / "r.sqlite")),
                      tools=[keyed("a", TimeoutError), keyed("b", ValueError)],
                      workflows={"wf": wf}, clock=FakeClock(T0))
    a, b = rt.run_workflow("wf", {}, run_id="r1").result()
    assert a == {"a": 1}  # the lost answer: reconciled, resent with the same key
    assert b == "ValueError"  # an answer: recorded once, never resent
    assert [t for t, _ in sent] == ["a", "b", "a"] and len({k for t, k in sent if t == "a"}) == 1
    events = rt.store.read("r1")
    assert [e.step for e in events if e.kind == "reconciled"] == [0]
    assert [e.step for e in events if e.kind == "tool_error"] == [1]
    rt.close()


async def mixed_refunds(ctx: Any, inp: Any) -> Any:
    amounts = [2000, 60_000, 2000, 2000]  # the second is above the capability's per-call limit
    calls = [("refund", {"order_id": i, "amount_cents": a}) for i, a in enumerate(amounts)]
    return [shown(r) for r in await ctx.parallel(calls, return_errors=True)]


def test_a_refusal_at_prepare_and_one_at_commit_share_the_fan_outs_one_write(
        tmp_path: Path) -> None:
    shop = new_shop(tmp_path / "r.sqlite", max_total=5000)
    rt = shop.start(mixed_refunds)
    out = rt.run(RUN).result()
    assert [r.get("refused") for r in out] == [None, "CapabilityExceeded", None,
                                               "CumulativeLimitExceeded"], out
    assert [a for _, a in shop.sent] == [2000, 2000]
    events = [e for e in rt.store.read(RUN) if e.kind in ("intent", "tool_rejected")]
    assert [(e.step, e.kind) for e in events] == [(0, "intent"), (1, "tool_rejected"),
                                                  (2, "intent"), (3, "tool_rejected")]
    assert len({e.seq for e in events}) == 4 and events[-1].seq - events[0].seq == 3
    assert rt.run(RUN).state is RunState.SUCCEEDED and len(shop.sent) == 2
    rt.close()


def test_an_unresolvable_child_lets_its_siblings_finish_and_be_recorded(tmp_path: Path) -> None:
    sent: list[str] = []

    async def transfer(n: int) -> dict[str, int]:  # irreversible, no lookup: not resendable
        sent.append("transfer")
        raise TimeoutError("the bank did not answer")

    async def email(n: int) -> dict[str, int]:  # slower: still in flight when transfer is lost
        for _ in range(5):
            await asyncio.sleep(0)
        sent.append("email")
        return {"emailed": n}

    async def wf(ctx: Any, inp: Any) -> Any:
        return await ctx.parallel([("transfer", {"n": 1}), ("email", {"n": 2})])

    rt = AsyncRuntime(open_store(str(tmp_path / "r.sqlite")),
                      tools=[FunctionTool(transfer, effect=EffectClass.IRREVERSIBLE),
                             FunctionTool(email, effect=EffectClass.KEYED)],
                      workflows={"wf": wf}, clock=FakeClock(T0))
    out = rt.run_workflow("wf", {}, run_id="r1")
    assert out.state is RunState.UNCERTAIN, out
    # before: the lost answer was reconciled in its own task at once; UnresolvedIntent cancelled
    # the group, and the email (sent or not) was left an intent without an outcome
    assert sent == ["transfer", "email"]
    results = [e for e in rt.store.read("r1") if e.kind == "tool_result"]
    assert [(e.step, e.payload["value"]) for e in results] == [(1, {"emailed": 2})]
    rt.close()
