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

import pytest

from minirt import FakeClock
from minirt.aio import AsyncRuntime
from minirt.approval_commit import spent
from minirt.approvals import ApprovalGate, Secret
from minirt.errors import ToolError
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.retry import RetryPolicy
from minirt.run import RunState
from minirt.runtime import RuntimeHook
from minirt.store import open_store
from minirt.tools import EffectClass, FunctionTool, ToolCall

pytest_plugins = ["pg_fixture"]
T0 = 1_000_000.0
KEY = "test-signing-key-0123456789abcdef"
RUN = "async-refund-7"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: Any, tmp_path: Path) -> str:
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return str(tmp_path / "runs.sqlite")


# -- the approval gate's commit-time checks run for every child of an async fan-out --------------

class Shop:
    """A guarded refund tool (cumulative limit ``max_total``); the first ``failures`` refunds
    are refused by the provider (an answered ``ToolError``). Counts what was sent."""

    def __init__(self, url: str | Path, *, max_total: int | None = None,
                 failures: int = 0) -> None:
        self.url, self.clock = str(url), FakeClock(T0)
        self.sent: list[tuple[int, int]] = []  # (order_id, amount_cents)
        self.gate = ApprovalGate(KEY, {"payments": "sk_live_x"})

        def refund(order_id: int, amount_cents: int, *, credential: Secret, call: Any) -> Any:
            self.sent.append((order_id, amount_cents))
            if len(self.sent) <= failures:
                raise ToolError(tool="refund", reason="the provider refused the refund")
            return {"refunded": amount_cents}

        self.tool = self.gate.guarded(refund, credential="payments",
                                      resource=lambda a: f"order:{a['order_id']}",
                                      amount=lambda a: a["amount_cents"],
                                      needs_approval=lambda a: False, max_total=max_total)

    def runtime(self, workflow: Any, hooks: tuple[RuntimeHook, ...] = (),
                faults: FaultPlan | None = None) -> AsyncRuntime:
        return AsyncRuntime(open_store(self.url), tools=[self.tool], workflows={"wf": workflow},
                            clock=self.clock, hooks=[self.gate, *hooks],
                            **({"faults": faults} if faults else {}))

    def start(self, workflow: Any, **kw: Any) -> AsyncRuntime:
        rt = self.runtime(workflow, **kw)
        rt.start("wf", {}, run_id=RUN)
        self.gate.mint(rt, RUN, "refund", resource="order:*", max_amount=50_000)
        return rt


def shown(r: Any) -> Any:
    if isinstance(r, Exception):
        return {"refused": type(r).__name__, "spent": getattr(r, "attrs", {}).get("spent")}
    return r


async def four_refunds(ctx: Any, inp: Any) -> Any:
    calls = [("refund", {"order_id": i, "amount_cents": 2000}) for i in range(4)]
    return [shown(r) for r in await ctx.parallel(calls, return_errors=True)]


def test_a_cumulative_limit_holds_inside_one_async_fan_out(url: str) -> None:
    shop = Shop(url, max_total=5000)
    rt = shop.start(four_refunds)
    out = rt.run(RUN).result()
    # before: the async fan-out's intents skipped at_intent_commit: four refunds, 8,000 > 5,000
    assert [a for _, a in shop.sent] == [2000, 2000], shop.sent
    assert out[:2] == [{"refunded": 2000}] * 2
    assert out[2:] == [{"refused": "CumulativeLimitExceeded", "spent": 4000}] * 2
    (cap_key,) = [k for k in spent(rt.store, RUN) if k.startswith("capability:")]
    assert spent(rt.store, RUN) == {cap_key: 4000, "run": 4000}
    events = rt.store.read(RUN)
    assert [e.kind for e in events].count("intent") == 2
    assert [e.payload["error"]["type"] for e in events if e.kind == "tool_rejected"] \
        == ["CumulativeLimitExceeded"] * 2
    assert rt.run(RUN).state is RunState.SUCCEEDED  # replay: nothing reserved or sent twice
    assert spent(rt.store, RUN)[cap_key] == 4000 and len(shop.sent) == 2
    rt.close()


class RevokeAfterTheLastGateCheck(RuntimeHook):
    """Another process revokes the credential after every child of the fan-out passed the
    gate's check and before the fan-out's intents commit."""

    def __init__(self, shop: Shop, last_step: int) -> None:
        self.shop, self.last_step = shop, last_step

    def before_dispatch(self, ctx: Any, tool: Any, call: Any) -> None:
        if call.step == self.last_step:
            other = AsyncRuntime(open_store(self.shop.url), clock=self.shop.clock)
            self.shop.gate.revoke(other, call.run_id, "credential:payments")
            other.close()


def test_a_revocation_before_the_async_fan_out_commits_stops_every_child(url: str) -> None:
    shop = Shop(url)
    rt = shop.start(four_refunds)
    rt.close()
    rt = shop.runtime(four_refunds, hooks=(RevokeAfterTheLastGateCheck(shop, last_step=3),))
    out = rt.run(RUN).result()
    # before: the gate had said yes to all four at prepare, and all four refunds were sent
    assert shop.sent == [], shop.sent
    assert [r["refused"] for r in out] == ["ApprovalRevoked"] * 4
    events = rt.store.read(RUN)
    assert [e.kind for e in events].count("intent") == 0
    assert [e.kind for e in events].count("tool_rejected") == 4
    rt.close()


def test_a_crash_inside_the_async_fan_out_commit_rolls_its_reservations_back(url: str) -> None:
    shop = Shop(url, max_total=5000)
    rt = shop.start(four_refunds)
    rt.close()
    rt = shop.runtime(four_refunds, faults=FaultPlan(crash_at="inside_commit"))
    with pytest.raises(SimulatedCrash):
        rt.run(RUN)
    rt.close()
    rt = shop.runtime(four_refunds)
    assert spent(rt.store, RUN) == {} and shop.sent == []
    assert [e.kind for e in rt.store.read(RUN)].count("intent") == 0
    shop.clock.advance(3600)  # after the crashed worker's lease
    out = rt.run(RUN).result()
    assert len(shop.sent) == 2 and [r.get("refused") for r in out[2:]] == [
        "CumulativeLimitExceeded"] * 2
    assert set(spent(rt.store, RUN).values()) == {4000}
    rt.close()


# -- a reservation is given back when the provider answered no ----------------------------------

async def two_waves(ctx: Any, inp: Any) -> Any:
    out = []
    for wave in range(2):
        calls = [("refund", {"order_id": 2 * wave + j, "amount_cents": 2000}) for j in range(2)]
        out += [shown(r) for r in await ctx.parallel(calls, return_errors=True)]
    return out


def test_an_answered_error_in_an_async_fan_out_gives_its_reservation_back(url: str) -> None:
    shop = Shop(url, max_total=5000, failures=2)
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

class Provider:
    """Keyed async providers: the first ``failures[name]`` requests to ``name`` are refused."""

    def __init__(self, failures: dict[str, int]) -> None:
        self.failures = dict(failures)
        self.sent: list[tuple[str, str, int]] = []  # (tool, effect key, attempt)

    def tool(self, name: str, retry: RetryPolicy | None = None) -> FunctionTool:
        async def fn(n: int, call: ToolCall) -> dict[str, int]:
            await asyncio.sleep(0)
            self.sent.append((name, call.effect_key, call.attempt))
            if self.count(name) <= self.failures.get(name, 0):
                raise ValueError(f"{name} declined")
            return {name: n}

        return FunctionTool(fn, name=name, effect=EffectClass.KEYED, retry=retry)

    def count(self, name: str) -> int:
        return sum(1 for t, _, _ in self.sent if t == name)


async def fan(ctx: Any, inp: Any) -> Any:
    return await ctx.parallel([("a", {"n": 1}), ("b", {"n": 2})])


def test_async_fan_out_children_are_retried_durably_and_it_waits_for_the_slowest(
        url: str) -> None:
    clock = FakeClock(T0)
    provider = Provider({"a": 2, "b": 1})
    fast = RetryPolicy(attempts=3, initial_interval=10, backoff=1, max_interval=10)
    slow = RetryPolicy(attempts=2, initial_interval=30, backoff=1, max_interval=30)

    def runtime() -> AsyncRuntime:
        return AsyncRuntime(open_store(url), tools=[provider.tool("a", fast),
                                                    provider.tool("b", slow)],
                            workflows={"fan": fan}, clock=clock)

    rt = runtime()
    # before: a's retry wait parked the run inside the TaskGroup, mid-fan-out
    first = rt.run_workflow("fan", {}, run_id="r1")
    assert first.state is RunState.WAITING, first
    run = rt.store.get_run("r1").run
    assert run.worker_id is None and run.lease_expires_at is None  # left the worker
    assert (provider.count("a"), provider.count("b")) == (1, 1)
    kinds = [e.kind for e in rt.store.read("r1")]
    assert kinds.count("retry_scheduled") == 2 and "reconciled" not in kinds  # both recorded
    rt.close()  # the worker goes away during the waits; another process carries on
    rt = runtime()
    clock.advance(10)
    assert [o.state for o in rt.work()] == [RunState.WAITING]  # a retried; b not due
    assert (provider.count("a"), provider.count("b")) == (2, 1)
    clock.advance(10)
    assert [o.state for o in rt.work()] == [RunState.WAITING]  # a succeeded; b still not due
    assert (provider.count("a"), provider.count("b")) == (3, 1)
    clock.advance(10)
    (done,) = rt.work()
    assert done.result() == [{"a": 1}, {"b": 2}]
    assert (provider.count("a"), provider.count("b")) == (3, 2)
    for name in "ab":  # every attempt of one logical call: one effect key
        assert len({k for t, k, _ in provider.sent if t == name}) == 1
    events = rt.store.read("r1")
    assert [e.payload["attempt"] for e in events if e.kind == "retry_scheduled"] == [1, 1, 2]
    assert [e.kind for e in events].count("tool_result") == 2
    assert rt.run("r1").result() == [{"a": 1}, {"b": 2}] and len(provider.sent) == 5
    rt.close()


def test_an_async_child_whose_retries_run_out_fails_the_fan_out_with_its_last_error(
        tmp_path: Path) -> None:
    provider = Provider({"a": 9})
    policy = RetryPolicy(attempts=2, initial_interval=0, max_interval=0)
    rt = AsyncRuntime(open_store(str(tmp_path / "r.sqlite")),
                      tools=[provider.tool("a", policy), provider.tool("b")],
                      workflows={"fan": fan}, clock=FakeClock(T0))
    out = rt.run_workflow("fan", {}, run_id="r1")  # a zero wait: the retry is due at once
    assert out.state is RunState.FAILED and out.error.type_name == "ValueError", out
    assert provider.count("a") == 2 and provider.count("b") == 1
    kinds = [e.kind for e in rt.store.read("r1")]
    assert kinds.count("tool_error") == 1 and "reconciled" not in kinds
    rt.close()


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
    shop = Shop(tmp_path / "r.sqlite", max_total=5000)
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
