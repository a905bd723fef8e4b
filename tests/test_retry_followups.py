"""Issue 19 follow-ups: fan-out wave children follow the same rules as sequential calls (answered
errors vs unknown outcomes classified by one function, the RetryPolicy with a durable wait, the
approval gate's at_intent_commit inside the wave's transaction); a cumulative reservation is
given back when the provider answered no; ``ToolContract(retry=...)``. Real runs on SQLite (and
PostgreSQL where the store matters), counting what the providers received."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from minirt import FakeClock, Runtime
from minirt.approval_commit import spent
from minirt.approvals import ApprovalGate, Secret
from minirt.contracts import Limits, ToolContract
from minirt.errors import RecordedError, ToolError
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.retry import RetryPolicy
from minirt.run import RunState
from minirt.runtime import RuntimeHook
from minirt.scheduler import Call, Failed, parallel
from minirt.store import open_store
from minirt.tools import EffectClass, FunctionTool, ToolCall, ToolDeclarationInvalid

pytest_plugins = ["pg_fixture"]
T0 = 1_000_000.0


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: Any, tmp_path: Path) -> str:
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return str(tmp_path / "runs.sqlite")


# -- 3. ToolContract(retry=...) ------------------------------------------------------------------

class Charge(BaseModel):
    amount: int


def test_a_tool_contract_passes_its_retry_policy_to_the_tool(tmp_path: Path) -> None:
    sent: list[int] = []

    def handler(args: Charge, inv: Any) -> dict[str, int]:
        sent.append(inv.call.attempt)
        if len(sent) < 3:
            raise ToolError(tool="charge", reason=f"declined ({len(sent)})")
        return {"charged": args.amount}

    policy = RetryPolicy(attempts=3, initial_interval=5, backoff=1, max_interval=5)
    contract = ToolContract("charge", input_model=Charge, handler=handler,
                            effect=EffectClass.KEYED, retry=policy)
    assert contract.retry is policy
    clock = FakeClock(T0)
    rt = Runtime(open_store(str(tmp_path / "r.sqlite")), tools=[contract],
                 workflows={"pay": lambda ctx, inp: ctx.call_tool("charge", {"amount": 4})},
                 clock=clock)
    # before: ToolContract took no retry= (TypeError), and its answered error was recorded at once
    assert rt.run_workflow("pay", {}, run_id="r1").state is RunState.WAITING
    clock.advance(5)
    assert [o.state for o in rt.work()] == [RunState.WAITING]
    clock.advance(5)
    (done,) = rt.work()
    assert done.result() == {"charged": 4} and sent == [1, 2, 3]
    rt.close()


def test_a_tool_contract_refuses_a_bad_retry_policy_by_name() -> None:
    with pytest.raises(ToolDeclarationInvalid, match="retry"):
        ToolContract("charge", input_model=Charge, handler=lambda a, inv: {}, retry=3)
    # more attempts than the contract's transport limit would end in reconciliation, not in
    # the last error: refused when the contract is built
    with pytest.raises(ToolDeclarationInvalid, match="max_attempts=3"):
        ToolContract("charge", input_model=Charge, handler=lambda a, inv: {},
                     retry=RetryPolicy(attempts=5))
    ok = ToolContract("charge", input_model=Charge, handler=lambda a, inv: {},
                      limits=Limits(max_attempts=5), retry=RetryPolicy(attempts=5))
    assert ok.retry.attempts == 5


# -- 1. a fan-out wave's children follow the rules of a sequential call --------------------------

class Provider:
    """Keyed providers: ``failures[name]`` requests to ``name`` are refused with ``exc``."""

    def __init__(self, failures: dict[str, int], exc: type[Exception] = ValueError) -> None:
        self.failures, self.exc = dict(failures), exc
        self.sent: list[tuple[str, str, int]] = []  # (tool, effect key, attempt)

    def tool(self, name: str, retry: RetryPolicy | None = None) -> FunctionTool:
        def fn(n: int, call: ToolCall) -> dict[str, int]:
            self.sent.append((name, call.effect_key, call.attempt))
            if sum(1 for t, _, _ in self.sent if t == name) <= self.failures.get(name, 0):
                raise self.exc(f"{name} declined")
            return {name: n}

        return FunctionTool(fn, name=name, effect=EffectClass.KEYED, retry=retry)

    def count(self, name: str) -> int:
        return sum(1 for t, _, _ in self.sent if t == name)


def fan(ctx: Any, inp: Any) -> Any:
    return parallel(ctx, [Call("a", {"n": 1}), Call("b", {"n": 2})], max_in_flight=2)


def test_an_answered_error_of_a_wave_child_is_an_answer_not_an_unknown_outcome(
        tmp_path: Path) -> None:
    provider = Provider({"a": 99})
    rt = Runtime(open_store(str(tmp_path / "r.sqlite")),
                 tools=[provider.tool("a"), provider.tool("b")], workflows={"fan": fan},
                 clock=FakeClock(T0))
    out = rt.run_workflow("fan", {}, run_id="r1")
    # before: the ValueError of keyed "a" was taken as unknown, re-sent, and the run UNCERTAIN
    assert out.state is RunState.FAILED, out
    assert isinstance(out.error, RecordedError) and out.error.type_name == "ValueError"
    assert provider.count("a") == 1 and provider.count("b") == 1
    kinds = [e.kind for e in rt.store.read("r1")]
    assert kinds.count("tool_error") == 1 and "reconciled" not in kinds
    rt.close()


def test_a_lost_answer_of_a_wave_child_is_still_reconciled(tmp_path: Path) -> None:
    provider = Provider({"a": 1}, exc=TimeoutError)
    rt = Runtime(open_store(str(tmp_path / "r.sqlite")),
                 tools=[provider.tool("a"), provider.tool("b")], workflows={"fan": fan},
                 clock=FakeClock(T0))
    out = rt.run_workflow("fan", {}, run_id="r1")
    assert out.result() == [{"a": 1}, {"b": 2}]
    assert provider.count("a") == 2  # resent with the same key by the reconcile path
    assert len({k for t, k, _ in provider.sent if t == "a"}) == 1
    assert "reconciled" in [e.kind for e in rt.store.read("r1")]
    rt.close()


def test_wave_children_are_retried_durably_and_the_wave_waits_for_the_slowest(url: str) -> None:
    clock = FakeClock(T0)
    provider = Provider({"a": 2, "b": 1})
    fast = RetryPolicy(attempts=3, initial_interval=10, backoff=1, max_interval=10)
    slow = RetryPolicy(attempts=2, initial_interval=30, backoff=1, max_interval=30)
    rt = Runtime(open_store(url), tools=[provider.tool("a", fast), provider.tool("b", slow)],
                 workflows={"fan": fan}, clock=clock)
    # before: retries=False in the wave: both errors recorded at once, the run FAILED
    first = rt.run_workflow("fan", {}, run_id="r1")
    assert first.state is RunState.WAITING, first
    run = rt.store.get_run("r1").run
    assert run.worker_id is None and run.lease_expires_at is None  # left the worker
    assert (provider.count("a"), provider.count("b")) == (1, 1)
    rt.close()  # the worker goes away during the waits; another process carries on
    rt = Runtime(open_store(url), tools=[provider.tool("a", fast), provider.tool("b", slow)],
                 workflows={"fan": fan}, clock=clock)
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


def test_a_wave_child_whose_retries_run_out_fails_the_fanout_with_its_last_error(
        tmp_path: Path) -> None:
    clock = FakeClock(T0)
    provider = Provider({"a": 9})
    policy = RetryPolicy(attempts=2, initial_interval=0, max_interval=0)
    rt = Runtime(open_store(str(tmp_path / "r.sqlite")),
                 tools=[provider.tool("a", policy), provider.tool("b")], workflows={"fan": fan},
                 clock=clock)
    out = rt.run_workflow("fan", {}, run_id="r1")  # a zero wait: the retry is due at once
    assert out.state is RunState.FAILED and out.error.type_name == "ValueError", out
    assert provider.count("a") == 2 and provider.count("b") == 1
    rt.close()


# -- 1. the approval gate's commit-time checks run for every child of a wave ---------------------

KEY = "test-signing-key-0123456789abcdef"
RUN = "run-refund-7"


class Shop:
    """A guarded refund tool (cumulative limit ``max_total`` per capability), counting sends."""

    def __init__(self, url: str | Path, *, max_total: int | None = None,
                 fail: bool = False) -> None:
        self.url, self.clock = str(url), FakeClock(T0)
        self.sent: list[int] = []
        self.gate = ApprovalGate(KEY, {"payments": "sk_live_x"})

        def refund(order_id: int, amount_cents: int, *, credential: Secret, call: Any) -> Any:
            self.sent.append(amount_cents)
            if fail:
                raise ToolError(tool="refund", reason="the provider refused the refund")
            return {"refunded": amount_cents}

        self.tool = self.gate.guarded(refund, credential="payments",
                                      resource=lambda a: f"order:{a['order_id']}",
                                      amount=lambda a: a["amount_cents"],
                                      needs_approval=lambda a: False, max_total=max_total)

    def runtime(self, workflow: Any, hooks: tuple[RuntimeHook, ...] = (),
                faults: FaultPlan | None = None) -> Runtime:
        return Runtime(open_store(self.url), tools=[self.tool], workflows={"wf": workflow},
                       clock=self.clock, hooks=[self.gate, *hooks],
                       **({"faults": faults} if faults else {}))

    def start(self, workflow: Any, **kw: Any) -> Runtime:
        rt = self.runtime(workflow, **kw)
        rt.start("wf", {}, run_id=RUN)
        self.gate.mint(rt, RUN, "refund", resource="order:*", max_amount=50_000)
        return rt


def four_refunds(ctx: Any, inp: Any) -> Any:
    calls = [Call("refund", {"order_id": i, "amount_cents": 2000}) for i in range(4)]
    out = parallel(ctx, calls, max_in_flight=4, on_error="isolate")
    return [{"refused": type(r.error).__name__, "spent": r.error.attrs.get("spent")}
            if isinstance(r, Failed) else r for r in out]


def test_a_cumulative_limit_holds_inside_one_wave(url: str) -> None:
    # the store matters: the second child's check reads the first one's reservation inside the
    # same (uncommitted) transaction
    shop = Shop(url, max_total=5000)
    rt = shop.start(four_refunds)
    out = rt.run(RUN).result()
    # before: the wave's intents skipped at_intent_commit: four refunds, 8,000 under 5,000
    assert shop.sent == [2000, 2000], shop.sent
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
    """Another process revokes the credential after every child of the wave passed the gate's
    check and before the wave's group commit."""

    def __init__(self, shop: Shop, last_step: int) -> None:
        self.shop, self.last_step = shop, last_step

    def before_dispatch(self, ctx: Any, tool: Any, call: Any) -> None:
        if call.step == self.last_step:
            other = Runtime(open_store(self.shop.url), clock=self.shop.clock)
            self.shop.gate.revoke(other, call.run_id, "credential:payments")
            other.close()


def test_a_revocation_before_the_wave_commits_stops_every_child(url: str) -> None:
    shop = Shop(url)
    rt = shop.start(four_refunds)
    rt.close()
    rt = shop.runtime(four_refunds, hooks=(RevokeAfterTheLastGateCheck(shop, last_step=3),))
    out = rt.run(RUN).result()
    # before: the gate had said yes to all four, and all four refunds were sent
    assert shop.sent == [], shop.sent
    assert [r["refused"] for r in out] == ["ApprovalRevoked"] * 4
    assert [e.kind for e in rt.store.read(RUN)].count("intent") == 0
    rt.close()


# -- 2. a cumulative reservation is given back when the provider answered no ---------------------

def five_refunds(ctx: Any, inp: Any) -> Any:
    out = []
    for i in range(5):
        try:
            out.append(ctx.call_tool("refund", {"order_id": i, "amount_cents": 2000}))
        except Exception as exc:  # noqa: BLE001 - the test records what each call raised
            out.append({"refused": type(exc).__name__})
    return out


def test_an_answered_error_gives_its_reservation_back(url: str) -> None:
    shop = Shop(url, max_total=5000, fail=True)
    rt = shop.start(five_refunds)
    out = rt.run(RUN).result()
    # before: the refused refunds' 2,000 stayed reserved; the third call was refused by the
    # limit although nothing had been refunded
    assert [r["refused"] for r in out] == ["ToolError"] * 5, out
    assert shop.sent == [2000] * 5
    assert spent(rt.store, RUN) == {k: 0 for k in spent(rt.store, RUN)} != {}
    assert not [k for k in rt.store.kv_items(RUN) if k.startswith("approval:reserved:")]
    assert rt.run(RUN).state is RunState.SUCCEEDED  # a replay gives nothing back twice
    assert all(v == 0 for v in spent(rt.store, RUN).values())
    rt.close()


def test_an_unknown_outcome_keeps_its_reservation(tmp_path: Path) -> None:
    shop = Shop(tmp_path / "r.sqlite", max_total=5000)

    def lost(order_id: int, amount_cents: int, *, credential: Secret, call: Any) -> Any:
        shop.sent.append(amount_cents)
        raise TimeoutError("the provider did not answer")

    shop.tool = shop.gate.guarded(lost, credential="payments", name="refund",
                                  resource=lambda a: f"order:{a['order_id']}",
                                  amount=lambda a: a["amount_cents"],
                                  needs_approval=lambda a: False, max_total=5000)
    rt = shop.start(lambda ctx, inp: ctx.call_tool(
        "refund", {"order_id": 1, "amount_cents": 2000}))
    out = rt.run(RUN)
    assert out.state is RunState.UNCERTAIN, out
    assert shop.sent and set(spent(rt.store, RUN).values()) == {2000}  # the money may have
    # moved: still reserved
    rt.close()


def test_a_crash_inside_the_wave_commit_rolls_its_reservations_back(url: str) -> None:
    shop = Shop(url, max_total=5000)
    rt = shop.start(four_refunds)
    rt.close()
    rt = shop.runtime(four_refunds, faults=FaultPlan(crash_at="inside_commit"))
    with pytest.raises(SimulatedCrash):
        rt.run(RUN)
    rt.close()
    rt = shop.runtime(four_refunds)
    # the checks' reservations were written in the wave's transaction: gone with it
    assert spent(rt.store, RUN) == {} and shop.sent == []
    assert [e.kind for e in rt.store.read(RUN)].count("intent") == 0
    shop.clock.advance(3600)  # after the crashed worker's lease
    out = rt.run(RUN).result()
    assert shop.sent == [2000, 2000] and [r.get("refused") for r in out[2:]] == [
        "CumulativeLimitExceeded"] * 2
    assert set(spent(rt.store, RUN).values()) == {4000}
    rt.close()


def test_a_crash_after_the_error_is_recorded_gives_nothing_back_twice(url: str) -> None:
    shop = Shop(url, max_total=5000, fail=True)
    rt = shop.start(five_refunds)
    rt.close()
    rt = shop.runtime(five_refunds, faults=FaultPlan(crash_at="after_result", occurrence=2))
    with pytest.raises(SimulatedCrash):
        rt.run(RUN)
    rt.close()
    rt = shop.runtime(five_refunds)
    assert shop.sent == [2000, 2000]
    assert set(spent(rt.store, RUN).values()) == {0}  # both released with their errors
    shop.clock.advance(3600)
    out = rt.run(RUN).result()
    assert [r["refused"] for r in out] == ["ToolError"] * 5 and shop.sent == [2000] * 5
    assert set(spent(rt.store, RUN).values()) == {0}
    rt.close()
