"""The wave follow-up cases, shared by the sync wave (tests/test_retry_followups.py, ``parallel``)
and the async fan-out (tests/test_async_followups.py, ``await ctx.parallel``).

Both runtimes must follow the same rules for the children of a fan-out: the approval gate's
commit-time checks run inside the fan-out's one transaction, an answered error follows the
tool's RetryPolicy with its durable wait after every sibling is recorded, and a crash inside the
group commit rolls the reservations back. Each ``check_*`` function is one such case, run against
whichever runtime (and workflow) the test gives it; a test file keeps its own workflows and the
cases only one runtime has.

Guarantees: the checks assert on what the providers received and on the journal, never on
timing (a :class:`~minirt.clock.FakeClock` moves time). Not here: which store (the tests' ``url``
fixtures choose SQLite or PostgreSQL).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from minirt import FakeClock
from minirt.approval_commit import spent
from minirt.approvals import ApprovalGate, Secret
from minirt.errors import ToolError
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.retry import RetryPolicy
from minirt.run import RunState
from minirt.runtime import RuntimeHook
from minirt.store import open_store
from minirt.tools import EffectClass, FunctionTool, ToolCall

T0 = 1_000_000.0
KEY = "test-signing-key-0123456789abcdef"


class Shop:
    """A guarded refund tool (cumulative limit ``max_total`` per capability) on ``runtime``
    (``Runtime`` or ``AsyncRuntime``); the first ``failures`` refunds are refused by the
    provider (an answered ``ToolError``). ``sent`` lists ``(order_id, amount_cents)``."""

    def __init__(self, url: str | Path, *, runtime: type, run_id: str,
                 max_total: int | None = None, failures: int = 0) -> None:
        self.url, self.clock = str(url), FakeClock(T0)
        self.runtime_class, self.run_id = runtime, run_id
        self.sent: list[tuple[int, int]] = []
        self.gate = ApprovalGate(KEY, {"payments": "sk_live_x"})

        def refund(order_id: int, amount_cents: int, *, credential: Secret, call: Any) -> Any:
            self.sent.append((order_id, amount_cents))
            if len(self.sent) <= failures:
                raise ToolError(tool="refund", reason="the provider refused the refund")
            return {"refunded": amount_cents}

        self.tool = self.guard(refund, max_total)

    def guard(self, fn: Callable[..., Any], max_total: int | None) -> Any:
        """``fn`` as the gate's guarded ``refund`` tool."""
        return self.gate.guarded(fn, credential="payments", name="refund",
                                 resource=lambda a: f"order:{a['order_id']}",
                                 amount=lambda a: a["amount_cents"],
                                 needs_approval=lambda a: False, max_total=max_total)

    @property
    def amounts(self) -> list[int]:
        return [a for _, a in self.sent]

    def runtime(self, workflow: Any, hooks: tuple[RuntimeHook, ...] = (),
                faults: FaultPlan | None = None) -> Any:
        return self.runtime_class(open_store(self.url), tools=[self.tool],
                                  workflows={"wf": workflow}, clock=self.clock,
                                  hooks=[self.gate, *hooks],
                                  **({"faults": faults} if faults else {}))

    def other(self) -> Any:
        """Another process's runtime on the same store (no tools, no workflows)."""
        return self.runtime_class(open_store(self.url), clock=self.clock)

    def start(self, workflow: Any, **kw: Any) -> Any:
        rt = self.runtime(workflow, **kw)
        rt.start("wf", {}, run_id=self.run_id)
        self.gate.mint(rt, self.run_id, "refund", resource="order:*", max_amount=50_000)
        return rt


class RevokeAfterTheLastGateCheck(RuntimeHook):
    """Another process revokes the credential after every child of the fan-out passed the
    gate's check and before the fan-out's intents commit."""

    def __init__(self, shop: Shop, last_step: int) -> None:
        self.shop, self.last_step = shop, last_step

    def before_dispatch(self, ctx: Any, tool: Any, call: Any) -> None:
        if call.step == self.last_step:
            other = self.shop.other()
            self.shop.gate.revoke(other, call.run_id, "credential:payments")
            other.close()


class Provider:
    """Keyed providers (sync, or ``asynchronous`` tools that yield once): the first
    ``failures[name]`` requests to ``name`` are refused with ``exc``."""

    def __init__(self, failures: dict[str, int], exc: type[Exception] = ValueError, *,
                 asynchronous: bool = False) -> None:
        self.failures, self.exc, self.asynchronous = dict(failures), exc, asynchronous
        self.sent: list[tuple[str, str, int]] = []  # (tool, effect key, attempt)

    def tool(self, name: str, retry: RetryPolicy | None = None) -> FunctionTool:
        def answer(n: int, call: ToolCall) -> dict[str, int]:
            self.sent.append((name, call.effect_key, call.attempt))
            if self.count(name) <= self.failures.get(name, 0):
                raise self.exc(f"{name} declined")
            return {name: n}

        async def answer_async(n: int, call: ToolCall) -> dict[str, int]:
            await asyncio.sleep(0)
            return answer(n, call)

        fn = answer_async if self.asynchronous else answer
        return FunctionTool(fn, name=name, effect=EffectClass.KEYED, retry=retry)

    def count(self, name: str) -> int:
        return sum(1 for t, _, _ in self.sent if t == name)


# -- the cases --------------------------------------------------------------------------------

def check_a_cumulative_limit_holds_inside_one_wave(shop: Shop, four_refunds: Any) -> None:
    """Four refunds of 2,000 in one fan-out under a 5,000 limit: two sent, two refused."""
    run = shop.run_id
    rt = shop.start(four_refunds)
    out = rt.run(run).result()
    # before: the fan-out's intents skipped at_intent_commit: four refunds, 8,000 > 5,000
    assert shop.amounts == [2000, 2000], shop.sent
    assert out[:2] == [{"refunded": 2000}] * 2
    assert out[2:] == [{"refused": "CumulativeLimitExceeded", "spent": 4000}] * 2
    (cap_key,) = [k for k in spent(rt.store, run) if k.startswith("capability:")]
    assert spent(rt.store, run) == {cap_key: 4000, "run": 4000}
    events = rt.store.read(run)
    assert [e.kind for e in events].count("intent") == 2
    assert [e.payload["error"]["type"] for e in events if e.kind == "tool_rejected"] \
        == ["CumulativeLimitExceeded"] * 2
    assert rt.run(run).state is RunState.SUCCEEDED  # replay: nothing reserved or sent twice
    assert spent(rt.store, run)[cap_key] == 4000 and len(shop.sent) == 2
    rt.close()


def check_a_revocation_before_the_wave_commits_stops_every_child(shop: Shop,
                                                                 four_refunds: Any) -> None:
    rt = shop.start(four_refunds)
    rt.close()
    rt = shop.runtime(four_refunds, hooks=(RevokeAfterTheLastGateCheck(shop, last_step=3),))
    out = rt.run(shop.run_id).result()
    # before: the gate had said yes to all four, and all four refunds were sent
    assert shop.sent == [], shop.sent
    assert [r["refused"] for r in out] == ["ApprovalRevoked"] * 4
    events = rt.store.read(shop.run_id)
    assert [e.kind for e in events].count("intent") == 0
    assert [e.kind for e in events].count("tool_rejected") == 4
    rt.close()


def check_a_crash_inside_the_wave_commit_rolls_its_reservations_back(
        shop: Shop, four_refunds: Any) -> None:
    run = shop.run_id
    rt = shop.start(four_refunds)
    rt.close()
    rt = shop.runtime(four_refunds, faults=FaultPlan(crash_at="inside_commit"))
    with pytest.raises(SimulatedCrash):
        rt.run(run)
    rt.close()
    rt = shop.runtime(four_refunds)
    # the checks' reservations were written in the fan-out's transaction: gone with it
    assert spent(rt.store, run) == {} and shop.sent == []
    assert [e.kind for e in rt.store.read(run)].count("intent") == 0
    shop.clock.advance(3600)  # after the crashed worker's lease
    out = rt.run(run).result()
    assert shop.amounts == [2000, 2000] and [r.get("refused") for r in out[2:]] == [
        "CumulativeLimitExceeded"] * 2
    assert set(spent(rt.store, run).values()) == {4000}
    rt.close()


def check_children_are_retried_durably_and_the_wave_waits_for_the_slowest(
        runtime: Callable[..., Any], url: str, fan: Any, asynchronous: bool) -> None:
    """``a`` fails twice (retried every 10 s), ``b`` once (after 30 s): the run leaves the
    worker during the waits and ends when the slowest retry is done, one effect key a call."""
    clock = FakeClock(T0)
    provider = Provider({"a": 2, "b": 1}, asynchronous=asynchronous)
    fast = RetryPolicy(attempts=3, initial_interval=10, backoff=1, max_interval=10)
    slow = RetryPolicy(attempts=2, initial_interval=30, backoff=1, max_interval=30)

    def fresh() -> Any:
        return runtime(open_store(url), tools=[provider.tool("a", fast),
                                               provider.tool("b", slow)],
                       workflows={"fan": fan}, clock=clock)

    rt = fresh()
    # before: the wave recorded both errors at once (sync); a's wait parked the run inside the
    # TaskGroup, mid-fan-out (async)
    first = rt.run_workflow("fan", {}, run_id="r1")
    assert first.state is RunState.WAITING, first
    run = rt.store.get_run("r1").run
    assert run.worker_id is None and run.lease_expires_at is None  # left the worker
    assert (provider.count("a"), provider.count("b")) == (1, 1)
    kinds = [e.kind for e in rt.store.read("r1")]
    assert kinds.count("retry_scheduled") == 2 and "reconciled" not in kinds  # both recorded
    rt.close()  # the worker goes away during the waits; another process carries on
    rt = fresh()
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


def check_a_child_whose_retries_run_out_fails_the_wave_with_its_last_error(
        runtime: Callable[..., Any], url: str, fan: Any, asynchronous: bool) -> None:
    provider = Provider({"a": 9}, asynchronous=asynchronous)
    policy = RetryPolicy(attempts=2, initial_interval=0, max_interval=0)
    rt = runtime(open_store(url), tools=[provider.tool("a", policy), provider.tool("b")],
                 workflows={"fan": fan}, clock=FakeClock(T0))
    out = rt.run_workflow("fan", {}, run_id="r1")  # a zero wait: the retry is due at once
    assert out.state is RunState.FAILED and out.error.type_name == "ValueError", out
    assert provider.count("a") == 2 and provider.count("b") == 1
    kinds = [e.kind for e in rt.store.read("r1")]
    assert kinds.count("tool_error") == 1 and "reconciled" not in kinds
    rt.close()
