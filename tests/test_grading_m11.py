"""The capstone grader (minirt_course.grading.m11): the reference answers pass, each wrong answer fails."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from minirt.approvals import ApprovalMismatch, check_receipt
from minirt.idempotency import Delivery
from minirt_course.capstone.agent import support_agent
from minirt_course.grading import m11


def unbound(receipt: Any, request: Any, current: Any, *, key: Any, now: float,
            revocations: Any, used: Any) -> None:
    if not receipt.verify(key) or request.effect["tool"] != current["tool"]:
        raise ApprovalMismatch(request_id=request.request_id, field="tool", approved="-",
                               requested="-")


def answers(**changes: Any) -> m11.Answers:
    base = dict(support_agent=support_agent, refund_key=lambda call: call.effect_key,
                choose_delivery=lambda: Delivery.AT_MOST_ONCE,
                needs_approval=lambda args: args["amount_cents"] > 5000,
                check_approval=check_receipt)
    return m11.Answers(**{**base, **changes})


CASE = {"name": "lost refund response", "crash_at": "after_result", "occurrence": 5,
        "provider_faults": [{"provider": "payments", "fault": "drop_response_after_commit",
                             "op": "refund", "times": 1}]}


def test_reference_passes_every_property() -> None:
    a = answers()
    assert m11.check_happy(a) == []
    assert m11.check_happy(a, ticket=m11.TICKET_2) == []
    assert m11.check_approvals(a) == []
    assert m11.check_budget(a) == [] and m11.check_budget(a, hidden=True) == []
    assert m11.check_adversary(a, CASE) == []
    assert m11.check_prediction(a, 1) == []


def test_reference_passes_the_full_sweep() -> None:
    assert m11.check_sweep(answers()) == []


def test_random_key_per_attempt_fails_the_sweep() -> None:
    a = answers(refund_key=lambda call: f"rk_{uuid.uuid4().hex}")
    failures = m11.check_sweep(a, points=[m11.tool_point(a, "refund")])
    assert failures and failures[0].startswith("[crash-sweep]")


def test_at_least_once_email_duplicates_and_breaks_the_prediction() -> None:
    a = answers(choose_delivery=lambda: Delivery.AT_LEAST_ONCE)
    assert "duplicate" in m11.check_sweep(a, points=[m11.tool_point(a, "send_email")])[0]
    assert m11.check_prediction(a, 1)[0].startswith("[predict-then-run]")
    assert m11.check_prediction(a, 2) == []


def test_unbound_approval_lets_a_receipt_move_another_refund() -> None:
    failures = m11.check_approvals(answers(check_approval=unbound))
    assert any("receipt-for-another-order" in f for f in failures)


def test_no_approval_policy_fails_the_approval_property() -> None:
    failures = m11.check_approvals(answers(needs_approval=lambda args: False))
    assert any("without any approval" in f for f in failures)


def test_check_that_refuses_everything_fails_the_genuine_case() -> None:
    def refuse(*args: Any, **kw: Any) -> None:
        raise ApprovalMismatch(request_id="-", field="-", approved="-", requested="-")

    failures = m11.check_approvals(answers(check_approval=refuse))
    assert any("genuine" in f for f in failures)


def test_adversary_that_never_fires_fails() -> None:
    case = {"name": "nothing", "provider_faults": [{"provider": "booking", "fault": "error_5xx",
                                                    "op": "refund"}]}
    assert "never fired" in m11.check_adversary(answers(), case)[0]


def test_adversary_of_the_wrong_shape_is_named() -> None:
    assert m11.check_adversary(answers(), {"provider_faults": [{"provider": "bank"}]})[0] \
        .startswith("[my-adversary]")


def test_adversary_may_be_given_as_a_function() -> None:
    assert m11.check_adversary(answers(), lambda: CASE) == []


def test_broken_delivery_choice_is_named() -> None:
    assert m11.check_happy(answers(choose_delivery=lambda: "twice"))[0] \
        .startswith("[delivery-choice]")


def test_blank_answers_fail_every_property() -> None:
    def blank(*args: Any, **kw: Any) -> Any:
        raise NotImplementedError()

    a = m11.Answers(blank, blank, blank, blank, blank)
    for failures in (m11.check_happy(a), m11.check_sweep(a), m11.check_approvals(a),
                     m11.check_budget(a), m11.check_adversary(a, blank),
                     m11.check_prediction(a, 1)):
        assert failures


@pytest.mark.parametrize("quoted, ok", [(True, True), (False, False)])
def test_note_is_checked_against_recomputed_figures(quoted: bool, ok: bool) -> None:
    a = answers()
    figures = m11.figures_of(a, runs=1)
    bytes_per_step = f"{figures['journal_bytes_per_step']:.0f}" if quoted else "many"
    events = f"{figures['journal_events']:.0f}" if quoted else "some"
    text = (f"## Decisions\nKeys bound to payloads, email at most once, approvals bound.\n"
            f"## Trade-offs\nThe journal costs {bytes_per_step} bytes per step and {events} "
            f"events per run.\n## Remaining risks\nKeys pruned early by a provider are a risk.\n")
    assert (m11.check_note(a, text) == []) is ok


def test_learner_api_names_no_check_and_no_answer() -> None:
    assert all(hasattr(m11, n) for n in m11.LEARNER_API)
    assert not [n for n in m11.LEARNER_API if n.startswith(("check_", "_", "run_", "figures"))
                or "emails" in n or "predict" in n]


def test_try_once_observes_without_judging() -> None:
    seen = m11.try_once(answers())
    assert seen["state"] == "succeeded" and (seen["refunds"], seen["bookings"],
                                             seen["emails"]) == (2, 1, 1)


def test_a_plan_naming_one_order_twice_must_be_refused() -> None:
    assert m11.check_bad_plans(answers()) == []

    def trusting(ctx: Any, ticket: Any) -> Any:  # the reference agent minus the plan check
        from minirt_course.capstone import agent

        orders = agent.lookup_orders(ctx, ticket["orders"])
        plan = ctx.decide({"task": "plan", "ticket": ticket, "orders": orders}, name="plan")
        for oid in plan["refund"]:
            o = next(x for x in orders if x["order_id"] == oid)
            ctx.call_tool("refund", {"order_id": oid, "charge_id": o["charge_id"],
                                     "amount_cents": o["amount_cents"]})
        return {"refunded": []}

    assert "names one order twice" in m11.check_bad_plans(answers(support_agent=trusting))[0]


def test_an_adversary_that_cannot_hurt_is_refused() -> None:
    harmless = {"name": "down once", "provider_faults": [
        {"provider": "payments", "fault": "error_5xx", "op": "refund", "times": 1}]}
    assert "cannot hurt" in m11.check_adversary(answers(), harmless)[0]


def test_policies_from_the_other_side() -> None:
    inclusive = answers(needs_approval=lambda args: args["amount_cents"] >= 5000)
    assert "5000 cents" in m11.check_policies(inclusive)[0]

    def no_revocations(receipt: Any, request: Any, current: Any, **kw: Any) -> None:
        check_receipt(receipt, request, current, **{**kw, "revocations": {}})
    assert "[revocation-at-dispatch]" in m11.check_policies(
        answers(check_approval=no_revocations))[0]
    per_attempt = answers(refund_key=lambda call: f"{call.effect_key}:{call.attempt}")
    assert "between attempts" in m11.check_policies(per_attempt)[0]
    assert "same key" in m11.check_policies(answers(refund_key=lambda call: call.tool))[0]


def test_the_note_s_claims_must_match_the_run() -> None:
    a = answers()
    figures = m11.figures_of(a, runs=1)
    good = (f"## Decisions\nKeys bound to payloads, email at most once, approvals bound.\n"
            f"## Trade-offs\nThe journal costs {figures['journal_bytes_per_step']:.0f} bytes per "
            f"step and {figures['journal_events']:.0f} events per run.\n## Remaining risks\n"
            "A lost response (drop_response_after_commit) is looked up by key.\n")
    assert m11.check_note(a, good, case=CASE) == []
    assert "[note-failure]" in m11.check_note(a, good.replace("drop_response_after_commit",
                                                              "a glitch"), case=CASE)[0]
    assert "[note-claims]" in m11.check_note(a, good.replace("at most", "at least"))[0]
    spray = good + " ".join(str(n) for n in range(11, 400, 7))
    assert "spray" in m11.check_note(a, spray)[0]


def test_a_stopped_saga_and_a_small_refund_while_the_reviewer_is_away() -> None:
    a = answers()
    assert m11.check_saga_stops(a) == [] and m11.check_when_things_go_wrong(a) == []
    waits_for_all = answers(needs_approval=lambda args: True)
    assert "below the threshold" in m11.check_approvals(waits_for_all)[0]
