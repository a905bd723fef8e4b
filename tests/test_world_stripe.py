"""The Stripe-faithful payment provider: idempotency keys, no lookup, judged by its own ledger.

Every claim is checked against the provider's SQLite ledger (the authoritative charge count),
in-process, over real HTTP on 127.0.0.1, and with the runtime reconciling a lost answer.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from minirt.clock import FakeClock
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.idempotency import reconcile_by_lookup
from minirt.run import RunState
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.world import (
    IdempotencyKeyReused,
    InvalidRequest,
    PaymentProvider,
    ResponseLost,
    StripePayments,
    charge_tool,
    refund_tool,
)
from minirt.world.http import PaymentClient, StripeClient, serve, spawn_world

T0 = 1_700_000_000.0
DAY = 86_400.0
CHARGE = {"amount_cents": 4200, "currency": "eur", "customer": "cus_a"}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0)


@pytest.fixture
def stripe(tmp_path: Path, clock: FakeClock):
    p = StripePayments(tmp_path / "stripe.sqlite", clock)
    yield p
    p.close()


def test_the_faithful_provider_has_no_lookup_and_the_teaching_one_has(stripe, tmp_path) -> None:
    assert not hasattr(stripe, "lookup") and not hasattr(StripeClient, "lookup")
    with PaymentProvider(tmp_path / "teaching.sqlite") as teaching:
        assert callable(teaching.lookup) and isinstance(teaching, StripePayments)


def test_same_key_resend_within_retention_returns_the_saved_receipt_and_charges_once(
        stripe, clock) -> None:
    first = stripe.charge("k1", **CHARGE)
    clock.advance(DAY - 1)
    assert stripe.charge("k1", **CHARGE) == first
    assert stripe.count("k1", "charge") == 1


def test_same_key_resend_after_retention_charges_again(stripe, clock) -> None:
    first = stripe.charge("k1", **CHARGE)
    clock.advance(DAY)
    second = stripe.charge("k1", **CHARGE)
    assert second["charge_id"] != first["charge_id"]
    assert stripe.count("k1", "charge") == 2


def test_same_key_other_parameters_is_refused_within_retention(stripe) -> None:
    stripe.charge("k1", **CHARGE)
    with pytest.raises(IdempotencyKeyReused):
        stripe.charge("k1", **{**CHARGE, "amount_cents": 1})
    assert stripe.count("k1", "charge") == 1


def test_a_lost_answer_is_settled_by_a_same_key_resend(stripe) -> None:
    stripe.inject("drop_response_after_commit")
    with pytest.raises(ResponseLost):
        stripe.charge("k1", **CHARGE)
    receipt = stripe.charge("k1", **CHARGE)  # the reconciliation Stripe documents
    assert stripe.effects("charge")[0]["effect_id"] == receipt["charge_id"]
    assert stripe.count("k1", "charge") == 1


def test_tools_over_the_faithful_provider_declare_no_lookup(stripe) -> None:
    for tool in (charge_tool(stripe), refund_tool(stripe)):
        assert not tool.has_lookup and tool.retention_for == DAY


# -- over real HTTP ---------------------------------------------------------------------------

def test_http_has_no_lookup_endpoint_and_a_resend_is_deduplicated(stripe) -> None:
    with serve(stripe) as handle:
        client = StripeClient(handle.url, timeout=2.0)
        client.inject("drop_response_after_commit")
        with pytest.raises(ResponseLost):
            client.charge("k1", **CHARGE)
        receipt = client.charge("k1", **CHARGE)
        with pytest.raises(InvalidRequest, match="no such endpoint"):
            PaymentClient(handle.url, timeout=2.0).lookup("k1")
        assert client.count("k1", "charge") == 1 == stripe.count("k1", "charge")
        assert [e["effect_id"] for e in client.effects("charge")] == [receipt["charge_id"]]
        assert client.retention_for == DAY


def test_world_process_serves_the_faithful_provider_and_keeps_keys_across_sigkill(
        tmp_path: Path) -> None:
    ledger = tmp_path / "stripe.sqlite"
    world = spawn_world(tmp_path / "urls.json", payments=ledger, payments_lookup=False)
    receipt = StripeClient(world.urls["payments"]).charge("k1", **CHARGE)
    os.kill(world.pid, signal.SIGKILL)
    world.proc.wait(timeout=10)
    with spawn_world(tmp_path / "urls.json", payments=ledger, payments_lookup=False) as again:
        client = StripeClient(again.urls["payments"])
        assert client.charge("k1", **CHARGE) == receipt
        with pytest.raises(InvalidRequest):
            PaymentClient(again.urls["payments"]).lookup("k1")
        assert client.count("k1", "charge") == 1


# -- the runtime reconciling against it ---------------------------------------------------------

def charge_agent(ctx, _):
    return ctx.call_tool("charge", **CHARGE)


@pytest.mark.parametrize("later, state, charges", [
    (60.0, RunState.SUCCEEDED, 1),        # inside retention: the same-key resend is deduplicated
    (DAY + 60.0, RunState.UNCERTAIN, 1),  # past it: a resend would charge again, so none is sent
])
def test_a_crash_after_the_provider_committed_is_reconciled_by_resend_only_within_retention(
        tmp_path: Path, stripe, clock, later, state, charges) -> None:
    def runtime(faults=None) -> Runtime:
        return Runtime(SQLiteStore(tmp_path / "runs.sqlite"), tools=[charge_tool(stripe)],
                       workflows={"charge": charge_agent}, clock=clock, faults=faults,
                       reconcile=reconcile_by_lookup)

    rt = runtime(FaultPlan(crash_at="after_provider_commit"))
    with pytest.raises(SimulatedCrash):
        rt.run_workflow("charge", None, run_id="r1")
    rt.close()
    clock.advance(later)
    rt = runtime()
    out = rt.resume("r1")
    assert out.state is state
    assert len(stripe.effects("charge")) == charges
    rt.close()
