"""An approval or a deadline (minirt.approval_deadline): a request nobody answers follows its
declared policy (deny, escalate, proceed without the effect), after a restart (FakeClock)."""

from __future__ import annotations

import pytest

from minirt import FakeClock, Runtime, SQLiteStore
from minirt.approval_deadline import request_approval_until
from minirt.approvals import ApprovalRejected, call_approved
from minirt.operator import Operator
from minirt.run import RunState
from minirt_course.scenarios.m06_approval import NOTE, ORDER_ID, M06Approval
from minirt_course.scenarios.m06_approval import Ledger as RefundLedger

T0 = 1_000_000.0


def refund_with_deadline(ctx, inp):
    args = {"order_id": ORDER_ID, "amount_cents": 3000}
    receipt = request_approval_until(ctx, "refund", args, timeout=3600,
                                     on_expiry=inp["policy"], artifact=NOTE)
    if receipt is None:
        return {"refunded": False}
    call_approved(ctx, "refund", args, receipt)
    return {"refunded": True}


def make(tmp_path, clock):
    scn = M06Approval("waiting")
    gate, tool = scn.gate(tmp_path)
    rt = Runtime(SQLiteStore(tmp_path / "runs.sqlite"), tools=[tool], hooks=[gate], clock=clock,
                 workflows={"refund": refund_with_deadline})
    return rt, gate


def waiting(tmp_path, policy):
    M06Approval("waiting").setup(tmp_path)
    rt, gate = make(tmp_path, FakeClock(T0))
    rt.start("refund", {"policy": policy}, run_id="r1")
    gate.mint(rt, "r1", "refund", resource=f"order:{ORDER_ID}", max_amount=50_000)
    assert rt.run("r1").state is RunState.WAITING
    rt.close()  # the process ends while the request is unanswered


def after_restart(tmp_path, seconds):
    rt, gate = make(tmp_path, FakeClock(T0 + seconds))
    return rt, gate, rt.work()


def test_unanswered_with_deny_is_refused_after_a_restart_and_nothing_is_sent(tmp_path):
    waiting(tmp_path, "deny")
    rt, gate, outs = after_restart(tmp_path, 1800)
    assert outs == [] and rt.store.get_run("r1").run.state is RunState.WAITING  # not yet due
    rt.close()
    rt, gate, (out,) = after_restart(tmp_path, 3601)
    assert out.state is RunState.FAILED and "deadline" in str(out.error)
    kinds = [e.kind for e in rt.store.read("r1")]
    assert "tool_rejected" in kinds and "intent" not in kinds
    assert RefundLedger(tmp_path).refunds() == []
    rt.close()


def test_unanswered_with_proceed_without_goes_on_without_the_effect(tmp_path):
    waiting(tmp_path, "proceed_without")
    rt, gate, (out,) = after_restart(tmp_path, 7200)
    assert out.result() == {"refunded": False} and RefundLedger(tmp_path).refunds() == []
    rt.close()


def test_unanswered_with_escalate_waits_for_a_new_request_that_an_operator_approves(tmp_path):
    waiting(tmp_path, "escalate")
    rt, gate, (out,) = after_restart(tmp_path, 3601)
    assert out.state is RunState.WAITING  # again: for the escalated request, no deadline
    first, second = gate.requests(rt.store, "r1")
    assert first.request_id != second.request_id
    assert first.effect["request_step"] < second.effect["request_step"]
    op = Operator.for_runtime(rt)
    with pytest.raises(ApprovalRejected):  # the deadline decided the first request already
        op.approve("r1", first.request_id, by="alice", reason="late")
    op.approve("r1", second.request_id, by="head-of-support", reason="escalated, checked")
    (out,) = rt.work()
    assert out.result() == {"refunded": True} and len(RefundLedger(tmp_path).refunds()) == 1
    rt.close()


def test_a_decision_in_time_wins_over_the_deadline(tmp_path):
    waiting(tmp_path, "deny")
    rt, gate = make(tmp_path, FakeClock(T0 + 60))
    (req,) = gate.requests(rt.store, "r1")
    gate.approve(rt, "r1", req.request_id, approver="alice")
    (out,) = rt.work()
    assert out.result() == {"refunded": True} and len(RefundLedger(tmp_path).refunds()) == 1
    rt.close()
