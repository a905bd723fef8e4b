"""Issue 19 follow-ups: fan-out wave children follow the same rules as sequential calls (answered
errors vs unknown outcomes classified by one function, the RetryPolicy with a durable wait, the
approval gate's at_intent_commit inside the wave's transaction); a cumulative reservation is
given back when the provider answered no; ``ToolContract(retry=...)``. Real runs on SQLite (and
PostgreSQL where the store matters), counting what the providers received."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes import waves
from fakes.waves import T0, Provider, Shop
from pydantic import BaseModel

from minirt import FakeClock, Runtime
from minirt.approval_commit import spent
from minirt.approvals import Secret
from minirt.contracts import Limits, ToolContract
from minirt.errors import RecordedError, ToolError
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.retry import RetryPolicy
from minirt.run import RunState
from minirt.scheduler import Call, Failed, parallel
from minirt.store import open_store
from minirt.tools import EffectClass, ToolDeclarationInvalid

pytest_plugins = ["pg_fixture"]
RUN = "run-refund-7"


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


def test_wave_children_are_retried_durably_and_the_wave_waits_for_the_slowest(
        store_url: str) -> None:
    waves.check_children_are_retried_durably_and_the_wave_waits_for_the_slowest(
        Runtime, store_url, fan, asynchronous=False)


def test_a_wave_child_whose_retries_run_out_fails_the_fanout_with_its_last_error(
        tmp_path: Path) -> None:
    waves.check_a_child_whose_retries_run_out_fails_the_wave_with_its_last_error(
        Runtime, str(tmp_path / "r.sqlite"), fan, asynchronous=False)


# -- 1. the approval gate's commit-time checks run for every child of a wave ---------------------

def new_shop(url: str | Path, **kw: Any) -> Shop:
    return Shop(url, runtime=Runtime, run_id=RUN, **kw)


def four_refunds(ctx: Any, inp: Any) -> Any:
    calls = [Call("refund", {"order_id": i, "amount_cents": 2000}) for i in range(4)]
    out = parallel(ctx, calls, max_in_flight=4, on_error="isolate")
    return [{"refused": type(r.error).__name__, "spent": r.error.attrs.get("spent")}
            if isinstance(r, Failed) else r for r in out]


def test_a_cumulative_limit_holds_inside_one_wave(store_url: str) -> None:
    # the store matters: the second child's check reads the first one's reservation inside the
    # same (uncommitted) transaction
    waves.check_a_cumulative_limit_holds_inside_one_wave(new_shop(store_url, max_total=5000),
                                                         four_refunds)


def test_a_revocation_before_the_wave_commits_stops_every_child(store_url: str) -> None:
    waves.check_a_revocation_before_the_wave_commits_stops_every_child(new_shop(store_url),
                                                                       four_refunds)


# -- 2. a cumulative reservation is given back when the provider answered no ---------------------

def five_refunds(ctx: Any, inp: Any) -> Any:
    out = []
    for i in range(5):
        try:
            out.append(ctx.call_tool("refund", {"order_id": i, "amount_cents": 2000}))
        except Exception as exc:  # noqa: BLE001 - the test records what each call raised
            out.append({"refused": type(exc).__name__})
    return out


def test_an_answered_error_gives_its_reservation_back(store_url: str) -> None:
    shop = new_shop(store_url, max_total=5000, failures=5)  # every refund refused
    rt = shop.start(five_refunds)
    out = rt.run(RUN).result()
    # before: the refused refunds' 2,000 stayed reserved; the third call was refused by the
    # limit although nothing had been refunded
    assert [r["refused"] for r in out] == ["ToolError"] * 5, out
    assert shop.amounts == [2000] * 5
    assert spent(rt.store, RUN) == {k: 0 for k in spent(rt.store, RUN)} != {}
    assert not [k for k in rt.store.kv_items(RUN) if k.startswith("approval:reserved:")]
    assert rt.run(RUN).state is RunState.SUCCEEDED  # a replay gives nothing back twice
    assert all(v == 0 for v in spent(rt.store, RUN).values())
    rt.close()


def test_an_unknown_outcome_keeps_its_reservation(tmp_path: Path) -> None:
    shop = new_shop(tmp_path / "r.sqlite", max_total=5000)

    def lost(order_id: int, amount_cents: int, *, credential: Secret, call: Any) -> Any:
        shop.sent.append((order_id, amount_cents))
        raise TimeoutError("the provider did not answer")

    shop.tool = shop.guard(lost, max_total=5000)
    rt = shop.start(lambda ctx, inp: ctx.call_tool(
        "refund", {"order_id": 1, "amount_cents": 2000}))
    out = rt.run(RUN)
    assert out.state is RunState.UNCERTAIN, out
    assert shop.sent and set(spent(rt.store, RUN).values()) == {2000}  # the money may have
    # moved: still reserved
    rt.close()


def test_a_crash_inside_the_wave_commit_rolls_its_reservations_back(store_url: str) -> None:
    waves.check_a_crash_inside_the_wave_commit_rolls_its_reservations_back(
        new_shop(store_url, max_total=5000), four_refunds)


def test_a_crash_after_the_error_is_recorded_gives_nothing_back_twice(store_url: str) -> None:
    shop = new_shop(store_url, max_total=5000, failures=5)  # every refund refused
    rt = shop.start(five_refunds)
    rt.close()
    rt = shop.runtime(five_refunds, faults=FaultPlan(crash_at="after_result", occurrence=2))
    with pytest.raises(SimulatedCrash):
        rt.run(RUN)
    rt.close()
    rt = shop.runtime(five_refunds)
    assert shop.amounts == [2000, 2000]
    assert set(spent(rt.store, RUN).values()) == {0}  # both released with their errors
    shop.clock.advance(3600)
    out = rt.run(RUN).result()
    assert [r["refused"] for r in out] == ["ToolError"] * 5 and shop.amounts == [2000] * 5
    assert set(spent(rt.store, RUN).values()) == {0}
    rt.close()
