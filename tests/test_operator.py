"""Operator actions (minirt.operator, minirt.cli_operator): each one journaled with who and why;
``resolve`` finishes a run that a crash in W3 left UNCERTAIN, with one charge in the ledger."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from builders import app_module

from minirt import FakeClock
from minirt.cli import main
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.operator import (
    AlreadyResolved,
    NothingToResolve,
    Operator,
    OperatorInputInvalid,
    operator_events,
    unresolved,
)
from minirt.run import RunState
from minirt.store import open_store
from minirt.world.ledger import Ledger

#: The application, as an operator's ``--app`` names it: a charge WITHOUT key or lookup (the
#: provider cannot deduplicate and cannot be asked), so a lost answer leaves the run UNCERTAIN.
APP = '''
import os
from pathlib import Path

from minirt import EffectClass, Runtime, ScriptedModel, tool
from minirt.idempotency import reconcile_by_lookup
from minirt.world.payments import PaymentProvider

HERE = Path(__file__).parent


def app(store, **kw):
    # The worker that parks a run UNCERTAIN keeps its lease for lease_for; `resolve --run`
    # waits that out (the tests use a short lease to keep the wait short, not to pass).
    kw.setdefault("lease_for", float(os.environ.get("OPSAPP_LEASE_FOR", "30")))
    provider = PaymentProvider(HERE / "payments.sqlite")

    @tool(EffectClass.IRREVERSIBLE)
    def charge(amount_cents: int, customer: str):
        return provider.charge(None, amount_cents, "eur", customer)  # no idempotency key

    def pay(ctx, inp):
        plan = ctx.decide({"order": inp["order"]})
        receipt = ctx.call_tool("charge", amount_cents=plan["amount_cents"],
                                customer=inp["customer"])
        return {"charge_id": receipt["charge_id"], "amount": receipt["amount"]}

    def wait_then_done(ctx, inp):
        return {"got": ctx.wait_for("go")}

    return Runtime(store, tools=[charge], model=ScriptedModel([{"amount_cents": 4200}]),
                   workflows={"pay": pay, "wait_then_done": wait_then_done},
                   reconcile=reconcile_by_lookup, **kw)
'''

INPUT = {"order": "A-42", "customer": "cus_ada"}

pytest_plugins = ["pg_fixture"]


@pytest.fixture
def world(tmp_path, monkeypatch, store_url):
    monkeypatch.setenv("OPSAPP_LEASE_FOR", "1.5")
    with app_module(tmp_path, monkeypatch, "opsapp", APP) as module:
        yield tmp_path, module, f"{module.__name__}:app", store_url


def crash(world, point):
    """Start run r1 and crash it at ``point`` of the charge (an old clock: its lease lapsed)."""
    tmp_path, module, ref, db = world
    rt = module.app(open_store(db), clock=FakeClock(1_000_000.0), worker_id="w-crashed",
                    faults=FaultPlan(point))
    rt.start("pay", INPUT, run_id="r1")
    with pytest.raises(SimulatedCrash):
        rt.run("r1")
    rt.close()


def charges(tmp_path):
    ledger = Ledger(tmp_path / "payments.sqlite")
    try:
        return ledger.effects("charge")
    finally:
        ledger.close()


def cli(capsys, *argv):
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_a_w3_crash_is_resolved_from_the_cli_with_exactly_one_charge(world, capsys):
    tmp_path, module, ref, db = world
    crash(world, "after_provider_commit")  # W3: the provider charged, the result was lost
    assert len(charges(tmp_path)) == 1
    code, out, err = cli(capsys, "resume", "--store", db, "--app", ref, "r1", "--wait")
    assert code == 0 and err == "" and "state=uncertain" in out  # no key, no lookup: UNCERTAIN
    assert len(charges(tmp_path)) == 1  # and nothing was sent again
    code, out, _ = cli(capsys, "pending", "--store", db, "--json")
    (item,) = [json.loads(line) for line in out.splitlines()]
    (u,) = item["unresolved"]
    assert item["state"] == "uncertain" and (u["step"], u["tool"], u["attempt"]) == (1, "charge", 1)
    code, out, _ = cli(capsys, "pending", "--store", db)
    assert "uncertain step 1: charge" in out and u["effect_key"] in out

    # The operator finds the charge in the provider's dashboard and resolves with its record.
    (row,) = charges(tmp_path)
    record = {"charge_id": row["effect_id"], "amount": row["params"]["amount_cents"],
              "currency": "eur", "customer": "cus_ada", "status": row["status"]}
    code, out, err = cli(capsys, "resolve", "--store", db, "--app", ref, "r1", "--by", "ana",
                         "--reason", "found it in the payments dashboard",
                         "--happened", json.dumps(record), "--evidence", json.dumps(row),
                         "--run", "--json")
    assert code == 0 and err == "", err
    done = json.loads(out)
    assert done["state"] == "succeeded" and done["outcome"] == "happened"
    assert done["run"]["result"] == {"charge_id": row["effect_id"], "amount": 4200}
    assert len(charges(tmp_path)) == 1  # exactly one effect in the provider's ledger

    store = open_store(db)
    (ev,) = operator_events(store, "r1")
    assert ev["action"] == "resolve" and ev["by"] == "ana" and ev["step"] == 1
    assert ev["reason"] == "found it in the payments dashboard" and ev["evidence"] == row
    kinds = [e.kind for e in store.read("r1")]
    assert kinds.count("intent") == 1 and kinds.count("tool_result") == 1
    notes = [e.payload for e in store.read("r1") if e.kind == "reconciled"]
    assert notes[-1]["resolution"] == "result" and "operator ana" in notes[-1]["reason"]
    store.close()


def test_did_not_happen_after_a_lookup_sends_it_once_more_with_the_same_key(world, capsys):
    tmp_path, module, ref, db = world
    crash(world, "after_intent")  # W2: the intent is journaled, the provider saw nothing
    code, out, _ = cli(capsys, "resume", "--store", db, "--app", ref, "r1")
    assert "state=uncertain" in out and charges(tmp_path) == []
    code, out, err = cli(capsys, "resolve", "--store", db, "--app", ref, "r1", "--by", "ana",
                         "--reason", "no charge for cus_ada since the intent",
                         "--did-not-happen", "--evidence", '{"searched": "cus_ada"}', "--run")
    assert code == 0 and err == "" and "state=succeeded" in out
    assert len(charges(tmp_path)) == 1
    store = open_store(db)
    attempts = [e.payload for e in store.read("r1") if e.kind == "attempt"]
    assert [a["attempt"] for a in attempts] == [2]
    store.close()


def test_resolve_refuses_what_it_cannot_honestly_settle(world, capsys):
    tmp_path, module, ref, db = world
    crash(world, "after_provider_commit")
    store = open_store(db)
    op = Operator(store)
    with pytest.raises(NothingToResolve, match="running, not uncertain"):
        op.resolve("r1", outcome="did_not_happen", by="ana", reason="x")
    code, out, _ = cli(capsys, "resume", "--store", db, "--app", ref, "r1")
    assert "state=uncertain" in out
    with pytest.raises(OperatorInputInvalid, match="say why"):
        op.resolve("r1", outcome="did_not_happen", by="ana", reason=" ")
    with pytest.raises(OperatorInputInvalid, match="needs the effect's result"):
        op.resolve("r1", outcome="happened", by="ana", reason="seen")
    with pytest.raises(NothingToResolve, match="no unresolved intent with effect key ek_nope"):
        op.resolve("r1", outcome="did_not_happen", by="ana", reason="x", effect_key="ek_nope")
    assert operator_events(store, "r1") == []  # refused actions leave no event
    (u,) = unresolved(store, "r1")
    op.resolve("r1", outcome="happened", value={"charge_id": "ch_x", "amount": 4200}, by="ana",
               reason="seen", effect_key=u.effect_key)
    with pytest.raises(AlreadyResolved, match="already resolved by ana as happened"):
        op.resolve("r1", outcome="did_not_happen", by="bob", reason="second opinion")
    code, _, err = cli(capsys, "resolve", "--store", db, "r1", "--reason", "x")
    assert code == 2 and "exactly one of --happened" in err
    assert len(operator_events(store, "r1")) == 1
    store.close()


def test_signal_and_cancel_are_journaled_with_who_and_why(world, capsys):
    tmp_path, module, ref, db = world
    rt = module.app(open_store(db))
    rt.start("wait_then_done", {}, run_id="s1")
    assert rt.run("s1").state is RunState.WAITING
    code, out, err = cli(capsys, "signal", "--store", db, "s1", "go", '{"ok": true}', "--by",
                         "ana", "--reason", "the customer called back", "--app", ref, "--run")
    assert code == 0 and err == "" and "state=succeeded" in out
    assert rt.outcome("s1").result() == {"got": {"ok": True}}
    rt.start("wait_then_done", {}, run_id="c1")
    rt.run("c1")
    code, out, _ = cli(capsys, "cancel", "--store", db, "c1", "--by", "bob", "--reason", "dup")
    assert code == 0 and "cancel requested" in out and "state=cancelling" in out
    code, out, _ = cli(capsys, "cancel", "--store", db, "c1", "--by", "bob", "--reason", "again")
    assert "no change" in out
    store = open_store(db)
    assert [(e["action"], e["by"], e["reason"]) for e in operator_events(store, "s1")] == [
        ("signal", "ana", "the customer called back")]
    assert [(e["action"], e["changed"]) for e in operator_events(store, "c1")] == [
        ("cancel", True), ("cancel", False)]
    store.close()
    rt.close()


# -- approvals: the module 06 refund, reviewed from the CLI ----------------------------------

APPROVAL_APP = '''
from pathlib import Path

from minirt.runtime import Runtime
from minirt_course.scenarios.m06_approval import M06Approval

HERE = Path(__file__).parent


def app(store):
    return Runtime(store, **M06Approval("waiting").runtime_kwargs(HERE))
'''


@pytest.fixture
def approval_world(tmp_path, monkeypatch, store_url):
    from minirt_course.scenarios.m06_approval import M06Approval

    mod = f"approvalapp_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{mod}.py").write_text(textwrap.dedent(APPROVAL_APP))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__(mod)
    M06Approval("waiting").setup(tmp_path)
    yield tmp_path, module, f"{mod}:app", store_url
    sys.modules.pop(mod, None)


def waiting_refund(approval_world, run_id):
    from minirt.approvals import ApprovalGate
    from minirt_course.scenarios.m06_approval import ORDER_ID

    tmp_path, module, ref, db = approval_world
    rt = module.app(open_store(db))
    rt.start("refund_agent", {"order_id": ORDER_ID}, run_id=run_id)
    gate = next(h for h in rt.hooks if isinstance(h, ApprovalGate))
    gate.mint(rt, run_id, "refund", resource=f"order:{ORDER_ID}", max_amount=50_000)
    assert rt.run(run_id).state is RunState.WAITING
    (req,) = gate.requests(rt.store, run_id)
    return rt, req


def test_approve_from_the_cli_finishes_the_refund_once(approval_world, capsys):
    from minirt_course.scenarios.m06_approval import Ledger as RefundLedger

    tmp_path, module, ref, db = approval_world
    rt, req = waiting_refund(approval_world, "a1")
    code, out, _ = cli(capsys, "pending", "--store", db, "a1", "--json")
    (a,) = json.loads(out)["approvals"]
    assert (a["request_id"], a["effect_digest"], a["tool"]) == (req.request_id,
                                                                 req.effect_digest, "refund")
    assert a["args"] == {"order_id": 42, "amount_cents": 3000}
    code, out, err = cli(capsys, "approve", "--store", db, "--app", ref, "a1", req.request_id,
                         "--by", "alice", "--reason", "photo shows the damage",
                         "--effect-digest", req.effect_digest, "--run", "--json")
    assert code == 0 and err == "", err
    done = json.loads(out)
    assert done["state"] == "succeeded" and done["receipt"].startswith("rcp_")
    assert len(RefundLedger(tmp_path).refunds()) == 1
    (ev,) = operator_events(rt.store, "a1")
    assert (ev["action"], ev["by"], ev["effect_digest"]) == ("approve", "alice",
                                                             req.effect_digest)
    rt.close()


def test_deny_and_revoke_from_the_cli(approval_world, capsys):
    from minirt_course.scenarios.m06_approval import Ledger as RefundLedger

    tmp_path, module, ref, db = approval_world
    rt, req = waiting_refund(approval_world, "d1")
    code, out, err = cli(capsys, "deny", "--store", db, "--app", ref, "d1", req.request_id,
                         "--by", "alice", "--reason", "no photo", "--run")
    assert code == 0 and err == "" and "state=failed" in out
    assert RefundLedger(tmp_path).refunds() == []
    rt2, req2 = waiting_refund(approval_world, "v1")
    code, out, err = cli(capsys, "revoke", "--store", db, "--app", ref, "v1", "approver:alice",
                         "--by", "sec-team", "--reason", "alice's laptop was stolen")
    assert code == 0 and err == ""
    code, out, err = cli(capsys, "approve", "--store", db, "--app", ref, "v1",
                         req2.request_id, "--by", "alice", "--reason", "ok", "--run")
    assert code == 0 and "state=failed" in out  # the revoked approver's receipt is refused
    assert RefundLedger(tmp_path).refunds() == []
    assert [e["action"] for e in operator_events(rt.store, "v1")] == ["revoke", "approve"]
    with pytest.raises(SystemExit) as exited:  # argparse: --app is required for approvals
        main(["approve", "--store", db, "v1", req2.request_id, "--reason", "x"])
    assert exited.value.code == 2 and "--app" in capsys.readouterr().err
    rt.close()
    rt2.close()
