"""Module 04: effect keys, payload binding, reconcile by lookup, retention, the email decision."""

from __future__ import annotations

from pathlib import Path

import pytest

from minirt.canonical import digest
from minirt.clock import FakeClock
from minirt.errors import from_record
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.idempotency import (
    MAYBE_SENT,
    Delivery,
    EffectKeyConflict,
    EffectKeyMayBePruned,
    KeyRegistry,
    ReconcileByLookup,
    effect_key,
    logical_operations,
    reconcile_by_lookup,
)
from minirt.journal import UnresolvedIntent
from minirt.run import RunState
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, Lookup, OutcomeUnknown
from minirt.world import EmailProvider, PaymentProvider, charge_tool, email_tool

T0 = 1_700_000_000.0
DAY = 86_400.0
CHARGE = {"amount_cents": 4200, "currency": "eur", "customer": "cus_a"}


def charge_agent(ctx, inp):
    return ctx.call_tool("charge", **(inp or CHARGE))


def email_agent(ctx, _):
    return ctx.call_tool("send_email", to="ada@example.com", subject="Receipt", body="42 EUR")


class World:
    """A payment provider, an email provider and runtimes on one store, sharing a fake clock."""

    def __init__(self, tmp: Path, *, delivery: Delivery | None = None) -> None:
        self.tmp, self.clock, self.delivery = tmp, FakeClock(T0), delivery
        self.pay = PaymentProvider(tmp / "payments.sqlite", self.clock)
        self.mail = EmailProvider(tmp / "email.sqlite", self.clock)
        self.runtimes: list[Runtime] = []

    def runtime(self, faults=None, **kw) -> Runtime:
        rt = Runtime(SQLiteStore(self.tmp / "runs.sqlite"),
                     tools=[charge_tool(self.pay), email_tool(self.mail, delivery=self.delivery)],
                     workflows={"charge": charge_agent, "email": email_agent}, clock=self.clock,
                     faults=faults, reconcile=kw.pop("reconcile", reconcile_by_lookup), **kw)
        self.runtimes.append(rt)
        return rt

    def crash(self, workflow: str, point: str, run_id: str = "r1", inp=None) -> None:
        rt = self.runtime(FaultPlan(crash_at=point))
        with pytest.raises(SimulatedCrash):
            rt.run_workflow(workflow, inp, run_id=run_id)
        rt.close()
        self.clock.advance(60.0)  # past the crashed worker's lease

    def close(self) -> None:
        for rt in self.runtimes:
            try:
                rt.close()
            except Exception:
                pass
        self.pay.close()
        self.mail.close()


@pytest.fixture
def world(tmp_path: Path):
    w = World(tmp_path)
    yield w
    w.close()


# -- effect keys --------------------------------------------------------------------------------

def test_effect_key_is_the_same_for_the_same_call() -> None:
    assert effect_key("r1", 3, "charge", CHARGE) == effect_key("r1", 3, "charge", dict(CHARGE))


def test_effect_key_changes_with_the_payload_step_run_and_tool() -> None:
    base = effect_key("r1", 3, "charge", CHARGE)
    others = {effect_key("r1", 3, "charge", {**CHARGE, "amount_cents": 4201}),
              effect_key("r1", 4, "charge", CHARGE), effect_key("r2", 3, "charge", CHARGE),
              effect_key("r1", 3, "refund", CHARGE)}
    assert base not in others and len(others) == 4


def test_effect_key_ignores_key_order_but_not_int_vs_float() -> None:
    flipped = dict(reversed(list(CHARGE.items())))
    assert effect_key("r1", 1, "charge", flipped) == effect_key("r1", 1, "charge", CHARGE)
    assert effect_key("r1", 1, "t", {"a": 1}) != effect_key("r1", 1, "t", {"a": 1.0})


def test_runtime_uses_effect_key_by_default(world) -> None:
    rt = world.runtime()
    rt.run_workflow("charge", None, run_id="r1")
    assert world.pay.count(effect_key("r1", 0, "charge", CHARGE), "charge") == 1


# -- payload binding ----------------------------------------------------------------------------

def order_key(run_id: str, step: int, tool: str, args) -> str:
    return f"order-{args['customer']}-{tool}"  # a business key without the payload digest


def test_key_registry_binding_is_idempotent() -> None:
    reg = KeyRegistry()
    assert reg("r1", 0, "charge", CHARGE) == reg("r1", 0, "charge", CHARGE)
    assert reg("r2", 5, "charge", CHARGE) == effect_key("r2", 5, "charge", CHARGE)


def test_key_registry_refuses_a_second_payload_under_one_key() -> None:
    reg = KeyRegistry(order_key)
    reg("r1", 0, "charge", CHARGE)
    with pytest.raises(EffectKeyConflict) as err:
        reg("r2", 0, "charge", {**CHARGE, "amount_cents": 9900})
    e = err.value
    assert (e.effect_key, e.bound_run_id, e.run_id) == ("order-cus_a-charge", "r1", "r2")
    assert e.bound_digest == digest(CHARGE) != e.payload_digest


def test_key_registry_remembers_across_reopen(tmp_path: Path) -> None:
    KeyRegistry(order_key, tmp_path / "keys.sqlite")("r1", 0, "charge", CHARGE)
    with pytest.raises(EffectKeyConflict):
        KeyRegistry(order_key, tmp_path / "keys.sqlite")("r2", 0, "charge",
                                                          {**CHARGE, "amount_cents": 1})


def test_conflict_is_refused_before_the_network_and_journaled(world) -> None:
    rt = world.runtime(key_for=KeyRegistry(order_key))
    assert rt.run_workflow("charge", CHARGE, run_id="r1").state is RunState.SUCCEEDED
    sent_before = len(world.pay.requests)
    out = rt.run_workflow("charge", {**CHARGE, "amount_cents": 9900}, run_id="r2")
    assert out.state is RunState.FAILED and type(out.error) is EffectKeyConflict
    assert len(world.pay.requests) == sent_before and len(world.pay.effects("charge")) == 1
    kinds = [e.kind for e in rt.store.read("r2")]
    assert "tool_rejected" in kinds and "intent" not in kinds


def test_same_business_key_and_payload_in_another_run_is_deduplicated(world) -> None:
    rt = world.runtime(key_for=KeyRegistry(order_key))
    a = rt.run_workflow("charge", CHARGE, run_id="r1").value
    b = rt.run_workflow("charge", CHARGE, run_id="r2").value
    assert a == b and len(world.pay.effects("charge")) == 1


def test_conflict_error_round_trips_through_its_record() -> None:
    err = EffectKeyConflict(effect_key="k", tool="charge", run_id="r2", step=0,
                            payload_digest="sha256:b", bound_digest="sha256:a",
                            bound_run_id="r1", bound_step=0)
    again = from_record(err.to_record())
    assert type(again) is EffectKeyConflict and str(again) == str(err)


# -- reconcile by lookup ------------------------------------------------------------------------

def test_a_lost_response_is_settled_by_lookup_without_a_resend(world) -> None:
    world.pay.inject("drop_response_after_commit")
    rt = world.runtime()
    out = rt.run_workflow("charge", None, run_id="r1")
    assert out.state is RunState.SUCCEEDED and len(world.pay.effects("charge")) == 1
    op = logical_operations(rt.store.read("r1"))[0]
    assert len(op.attempts) == 1 and op.resolutions[0]["resolution"] == "result"
    assert [r["op"] for r in world.pay.requests] == ["charge", "lookup"]


def test_not_found_within_retention_is_resent_with_the_same_key(world) -> None:
    world.pay.inject("error_5xx")
    rt = world.runtime()
    assert rt.run_workflow("charge", None, run_id="r1").state is RunState.SUCCEEDED
    assert [r["op"] for r in world.pay.requests] == ["charge", "lookup", "charge"]
    keys = rt.tools["charge"].sent_keys
    assert len(keys) == 2 and keys[0] == keys[1] and world.pay.count(keys[0]) == 1


def test_attempts_are_numbered_apart_from_the_key(world) -> None:
    world.pay.inject("error_5xx", times=2)
    rt = world.runtime()
    rt.run_workflow("charge", None, run_id="r1")
    op = logical_operations(rt.store.read("r1"))[0]
    assert [a.number for a in op.attempts] == [1, 2, 3]
    assert op.effect_key == effect_key("r1", 0, "charge", CHARGE) and op.outcome == "tool_result"


def test_recovery_after_a_crash_in_w3_finds_the_charge(world) -> None:
    world.crash("charge", "after_provider_commit")
    world.clock.advance(3600)
    out = world.runtime().resume("r1")
    assert out.state is RunState.SUCCEEDED and len(world.pay.effects("charge")) == 1
    assert out.value["charge_id"] == world.pay.effects("charge")[0]["effect_id"]


def test_recovery_past_retention_escalates_instead_of_resending(world) -> None:
    world.crash("charge", "after_provider_commit")
    world.clock.advance(DAY + 3600)
    rt = world.runtime()
    out = rt.resume("r1")
    assert out.state is RunState.UNCERTAIN and type(out.error) is EffectKeyMayBePruned
    assert isinstance(out.error, UnresolvedIntent) and out.error.retention_for == DAY
    assert len(world.pay.effects("charge")) == 1
    assert rt.store.get_run("r1").run.detail["error"]["type"] == "EffectKeyMayBePruned"


def test_escalation_is_stable_when_resumed_again(world) -> None:
    world.crash("charge", "after_provider_commit")
    world.clock.advance(DAY + 3600)
    first = world.runtime().resume("r1")
    world.clock.advance(60.0)
    second = world.runtime().resume("r1")
    assert first.state is second.state is RunState.UNCERTAIN
    assert len(world.pay.effects("charge")) == 1


def test_a_w2_crash_past_retention_also_escalates(world) -> None:
    # Nothing was sent, but the runtime cannot tell W2 from W3: it must not guess.
    world.crash("charge", "after_intent")
    world.clock.advance(DAY + 1)
    assert world.runtime().resume("r1").state is RunState.UNCERTAIN
    assert world.pay.effects("charge") == []


def test_a_failed_lookup_leaves_the_outcome_unknown(world) -> None:
    world.crash("charge", "after_provider_commit")
    world.pay.inject("error_5xx", op="lookup")
    out = world.runtime().resume("r1")
    assert out.state is RunState.UNCERTAIN and "lookup failed" in out.error.reason
    assert len(world.pay.effects("charge")) == 1


def test_keyed_tool_without_lookup_is_resent_only_within_retention(tmp_path: Path) -> None:
    sent: list[str] = []

    def pay(amount: int, call=None) -> dict:
        sent.append(call.effect_key)
        return {"ok": amount}

    t = FunctionTool(pay, effect=EffectClass.KEYED)
    t.retention_for = 3600.0
    clock = FakeClock(T0)

    def agent(ctx, _):
        return ctx.call_tool("pay", amount=5)

    def runtime(faults=None) -> Runtime:
        return Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=[t], workflows={"a": agent},
                       clock=clock, faults=faults, reconcile=reconcile_by_lookup)

    for run_id, later in (("r1", 60.0), ("r2", 7200.0)):
        rt = runtime(FaultPlan(crash_at="after_provider_commit"))
        with pytest.raises(SimulatedCrash):
            rt.run_workflow("a", None, run_id=run_id)
        clock.advance(later)
        state = runtime().resume(run_id).state
        assert state is (RunState.SUCCEEDED if later < 3600 else RunState.UNCERTAIN)
    assert len(sent) == 3  # r1: sent + resent within retention; r2: sent once, never resent


def test_the_policy_gives_the_same_answer_twice(world) -> None:
    world.crash("charge", "after_provider_commit")
    rt = world.runtime()
    from minirt.journal import Journal
    from minirt.runtime import Context
    from minirt.tools import ToolCall

    ctx = Context(rt, "r1", 1, Journal.load(rt.store, "r1"), None)
    intent = [e for e in rt.store.read("r1") if e.kind == "intent"][0].payload
    call = ToolCall("r1", 0, "charge", intent["args"], intent["effect_key"])
    tool = rt.tools["charge"]
    assert reconcile_by_lookup(ctx, tool, call) == reconcile_by_lookup(ctx, tool, call)
    assert reconcile_by_lookup(ctx, tool, call).kind == "result"


def test_without_asking_the_lookup_a_keyed_call_is_resent_only_within_retention_less_the_margin(
        world) -> None:
    by_retention = ReconcileByLookup(ask_lookup=False)
    world.crash("charge", "after_provider_commit")  # the charge is committed, the reply lost
    world.clock.advance(3600)
    out = world.runtime(reconcile=by_retention).resume("r1")
    assert out.state is RunState.SUCCEEDED and len(world.pay.effects("charge")) == 1
    assert "lookup" not in [r["op"] for r in world.pay.requests]  # resent, deduplicated by key
    world.crash("charge", "after_provider_commit", run_id="r2")
    world.clock.advance(DAY - 90)  # first sent DAY - 30 s ago: inside the 60 s margin
    late = world.runtime(reconcile=by_retention).resume("r2")
    assert late.state is RunState.UNCERTAIN and type(late.error) is EffectKeyMayBePruned
    assert "not asked" in late.error.reason and len(world.pay.effects("charge")) == 2
    assert "lookup" not in [r["op"] for r in world.pay.requests]


# -- the email decision -------------------------------------------------------------------------

@pytest.mark.parametrize("delivery, emails, recorded", [
    (Delivery.AT_MOST_ONCE, 1, MAYBE_SENT),
    (Delivery.AT_LEAST_ONCE, 2, "sent"),
])
def test_a_lost_email_response_follows_the_tool_delivery_decision(tmp_path, delivery, emails,
                                                                  recorded) -> None:
    w = World(tmp_path, delivery=delivery)
    w.mail.inject("drop_response_after_commit")
    out = w.runtime().run_workflow("email", None, run_id="r1")
    value = out.value
    assert out.state is RunState.SUCCEEDED and len(w.mail.effects("email")) == emails
    assert value.get("delivery", value.get("status")) == recorded
    w.close()


def test_an_email_without_a_delivery_decision_escalates(world) -> None:
    world.mail.inject("drop_response_after_commit")
    out = world.runtime().run_workflow("email", None, run_id="r1")
    assert out.state is RunState.UNCERTAIN and "delivery decision" in out.error.reason
    assert len(world.mail.effects("email")) == 1


def test_at_most_once_never_resends_after_a_crash_in_w2(tmp_path) -> None:
    w = World(tmp_path, delivery=Delivery.AT_MOST_ONCE)
    w.crash("email", "after_intent")
    out = w.runtime().resume("r1")
    assert out.value["delivery"] == MAYBE_SENT and w.mail.effects("email") == []
    w.close()


def test_lookup_is_asked_before_any_resend(tmp_path: Path) -> None:
    log: list[str] = []

    def pay(amount: int, call=None) -> dict:
        log.append(f"invoke {call.attempt}")
        if call.attempt == 1:
            raise OutcomeUnknown(tool="pay", effect_key=call.effect_key, reason="lost")
        return {"ok": amount}

    def lookup(call) -> Lookup:
        log.append("lookup")
        return Lookup(False)

    t = FunctionTool(pay, effect=EffectClass.KEYED, lookup=lookup)
    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=[t],
                 workflows={"a": lambda ctx, _: ctx.call_tool("pay", amount=5)},
                 clock=FakeClock(T0), reconcile=reconcile_by_lookup)
    assert rt.run_workflow("a", None, run_id="r1").value == {"ok": 5}
    assert log == ["invoke 1", "lookup", "invoke 2"]
