"""The approval gate's checks inside the intent's transaction (issue 19, item 8): a revocation
that lands between the gate's check and the intent's commit stops the dispatch; cumulative limits
per capability and per run; the clock-skew policy (expiry against the store's clock, a bounded
skew). Real refund runs on SQLite (and PostgreSQL for the store's clock), counting sends."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from minirt.approval_commit import ClockSkewed, CumulativeLimitExceeded, spent, store_time
from minirt.approvals import (
    ApprovalExpired,
    ApprovalGate,
    ApprovalRevoked,
    GateConfigInvalid,
    Secret,
    call_approved,
    request_approval,
)
from minirt.clock import FakeClock
from minirt.run import RunState
from minirt.runtime import Runtime, RuntimeHook
from minirt.store import open_store
from minirt.store.sqlite import SQLiteStore

pytest_plugins = ["pg_fixture"]
KEY = "test-signing-key-0123456789abcdef"
RUN = "run-refund-42"
T0 = 1_700_000_000.0


class Shop:
    def __init__(self, path: Path, clock: FakeClock | None = None, **gate_kw: Any) -> None:
        self.path = path
        self.clock = clock or FakeClock(T0)
        self.sent: list[int] = []
        max_total = gate_kw.pop("max_total", None)
        self.gate = ApprovalGate(KEY, {"payments": "sk_live_x"}, **gate_kw)

        def refund(order_id: int, amount_cents: int, *, credential: Secret, call: Any) -> Any:
            self.sent.append(amount_cents)
            return {"refunded": amount_cents}

        self.tool = self.gate.guarded(refund, credential="payments",
                                      resource=lambda a: f"order:{a['order_id']}",
                                      amount=lambda a: a["amount_cents"],
                                      needs_approval=lambda a: a["amount_cents"] > 5000,
                                      max_total=max_total)

    def runtime(self, workflow: Any, hooks: tuple[RuntimeHook, ...] = (),
                clock: FakeClock | None = None) -> Runtime:
        return Runtime(SQLiteStore(self.path), tools=[self.tool], workflows={"wf": workflow},
                       clock=clock or self.clock, hooks=[self.gate, *hooks])

    def start(self, workflow: Any, **kw: Any) -> Runtime:
        rt = self.runtime(workflow, **kw)
        rt.start("wf", {}, run_id=RUN)
        self.gate.mint(rt, RUN, "refund", resource="order:*", max_amount=50_000)
        return rt


def ten_small_refunds(ctx: Any, inp: Any) -> Any:
    out = []
    for i in range(10):
        try:
            out.append(ctx.call_tool("refund", {"order_id": i, "amount_cents": 2000}))
        except CumulativeLimitExceeded as exc:
            out.append({"refused": exc.attrs["spent"]})
    return out


def test_cumulative_limit_per_capability(tmp_path: Path) -> None:
    shop = Shop(tmp_path / "r.sqlite", max_total=5000)
    rt = shop.start(ten_small_refunds)
    out = rt.run(RUN).result()
    # before: ten refunds of 2,000 under a 5,000 per-call limit refunded 20,000
    assert shop.sent == [2000, 2000] and sum(shop.sent) <= 5000
    assert out[2:] == [{"refused": 4000}] * 8
    (cap_key,) = [k for k in spent(rt.store, RUN) if k.startswith("capability:")]
    assert spent(rt.store, RUN) == {cap_key: 4000, "run": 4000}
    rejected = [e.payload["error"]["type"] for e in rt.store.read(RUN)
                if e.kind == "tool_rejected"]
    assert rejected == ["CumulativeLimitExceeded"] * 8
    rt.close()


def test_cumulative_limit_per_run_and_replay_reserves_nothing_twice(tmp_path: Path) -> None:
    shop = Shop(tmp_path / "r.sqlite", run_limit=7000)
    rt = shop.start(ten_small_refunds)
    assert rt.run(RUN).state is RunState.SUCCEEDED
    assert shop.sent == [2000] * 3 and spent(rt.store, RUN)["run"] == 6000
    rt.close()
    err = CumulativeLimitExceeded(scope="the run", spent=6000, amount=2000, limit=7000)
    assert str(err) == ("the run allows 7000 in total: 6000 is already reserved by dispatched "
                        "calls and this call asks for 2000")


class RevokeRightAfterTheGate(RuntimeHook):
    """Another process revokes ``what`` after the gate's check and before the intent commits."""

    def __init__(self, shop: Shop, what: str) -> None:
        self.shop, self.what = shop, what

    def before_dispatch(self, ctx: Any, tool: Any, call: Any) -> None:
        other = Runtime(SQLiteStore(self.shop.path), clock=self.shop.clock)
        self.shop.gate.revoke(other, call.run_id, self.what)
        other.close()


def approved_refund(ctx: Any, inp: Any) -> Any:
    args = {"order_id": 42, "amount_cents": 9000}
    receipt = request_approval(ctx, "refund", args)
    return call_approved(ctx, "refund", args, receipt)


@pytest.mark.parametrize("what", ["approver:alice", "credential:payments", "receipt"])
def test_a_revocation_between_the_check_and_the_commit_stops_the_dispatch(tmp_path: Path,
                                                                           what: str) -> None:
    shop = Shop(tmp_path / "r.sqlite")
    rt = shop.start(approved_refund)
    assert rt.run(RUN).state is RunState.WAITING
    req = shop.gate.requests(rt.store, RUN)[0].request_id
    receipt = shop.gate.approve(rt, RUN, req, approver="alice")
    rt.close()
    ident = f"receipt:{receipt.receipt_id}" if what == "receipt" else what
    rt = shop.runtime(approved_refund, hooks=(RevokeRightAfterTheGate(shop, ident),))
    out = rt.run(RUN)
    # before: the gate had already said yes, and the refund was sent
    assert out.state is RunState.FAILED and isinstance(out.error, ApprovalRevoked), out
    assert out.error.revoked == ident and shop.sent == []
    kinds = [e.kind for e in rt.store.read(RUN)]
    assert "tool_rejected" in kinds and kinds.count("intent") == 0
    assert not [k for k in rt.store.kv_items(RUN) if k.startswith("approval:used:")]
    rt.close()


def test_a_worker_clock_far_behind_the_store_is_refused_and_expiry_uses_the_store_clock(
        tmp_path: Path) -> None:
    real = FakeClock(T0)  # stands for the store's clock
    shop = Shop(tmp_path / "r.sqlite", clock=real, max_skew=30.0,
                store_clock=lambda store: real.now())
    rt = shop.start(approved_refund)
    assert rt.run(RUN).state is RunState.WAITING
    req = shop.gate.requests(rt.store, RUN)[0].request_id
    shop.gate.approve(rt, RUN, req, approver="alice", expires_for=60)
    rt.close()
    real.advance(2 * 3600)  # two hours later, on a worker whose clock is two hours behind
    behind = FakeClock(T0 + 30)
    rt = shop.runtime(approved_refund, clock=behind)
    out = rt.run(RUN)
    assert out.state is RunState.FAILED and isinstance(out.error, ClockSkewed), out
    assert shop.sent == []  # before: the 60-second receipt was dispatched two hours late
    rt.close()
    # within the bound, the expiry is judged by the store's clock: still expired
    shop2 = Shop(tmp_path / "r2.sqlite", clock=FakeClock(T0), max_skew=3 * 3600.0,
                 store_clock=lambda store: real.now())
    real2 = real
    rt = shop2.start(approved_refund)
    rt.run(RUN)
    req = shop2.gate.requests(rt.store, RUN)[0].request_id
    shop2.gate.approve(rt, RUN, req, approver="alice", expires_for=60)
    rt.close()
    rt = shop2.runtime(approved_refund, clock=FakeClock(T0 + 30))
    out = rt.run(RUN)
    assert isinstance(out.error, ApprovalExpired) and out.error.now == real2.now()
    assert shop2.sent == []
    rt.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request, tmp_path):
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return str(tmp_path / "runs.sqlite")


def test_the_store_clock_is_read_from_the_store(url: str) -> None:
    store = open_store(url)
    before = time.time()
    got = store_time(store)
    assert got is not None and before - 5 <= got <= time.time() + 5
    store.close()


def test_bad_gate_options_are_refused_by_name() -> None:
    for kw in ({"run_limit": -1}, {"run_limit": 2.5}, {"max_skew": float("inf")},
               {"max_skew": "10"}):
        with pytest.raises(GateConfigInvalid):
            ApprovalGate(KEY, {}, **kw)
