"""The runnable sections added to lessons 04, 05, 08 and 09 (issue 22), checked outside the
notebooks, fast: each property the lesson's prose claims, and what it claims is absent.

- 04 (:func:`minirt_course.scenarios.m04_payment.scripted_charge`): an answered error follows the retry
  policy with a durable wait; a timeout never does (reconciliation instead).
- 05 (:mod:`minirt_course.scenarios.m05_pivot`): a pivot placed too early leaves a confirmation sent for
  a refunded order; placed last, a failure after it is retried forward, never compensated, and a
  failure before it still compensates.
- 08 (:mod:`minirt_course.scenarios.m08_bounds`): a cleanup past its time or call bound is refused and
  reported, the run CANCELLED; a fan-out cancelled mid-wave finishes that wave and starts no other.
"""

from __future__ import annotations

import pytest

from minirt.cancel import cancel_record
from minirt.retry import RetryPolicy
from minirt.run import RunState
from minirt_course.scenarios import m04_payment as m04
from minirt_course.scenarios import m05_pivot as pivot
from minirt_course.scenarios import m08_bounds


class RateLimited(Exception):
    pass


def kinds(rt, run_id):
    return [e.kind for e in rt.store.read(run_id)]


def test_04_answered_errors_wait_durably_and_timeouts_are_reconciled(tmp_path):
    policy = RetryPolicy(attempts=4, initial_interval=10, backoff=3)
    rt, out, sent = m04.scripted_charge(tmp_path, "r", [RateLimited("429")] * 2, retry=policy)
    assert out.state is RunState.WAITING and len(sent) == 1
    rt.clock.advance(9)
    assert rt.work() == [] and len(sent) == 1  # not due: nothing sent
    rt.clock.advance(1)
    rt.work()
    rt.clock.advance(30)
    rt.work()
    assert rt.outcome("r").value == {"charged": 4200} and len(sent) == 3 and len(set(sent)) == 1
    assert kinds(rt, "r").count("retry_scheduled") == 2
    rt2, lost, sent2 = m04.scripted_charge(tmp_path, "t", [TimeoutError()] * 9, retry=policy)
    assert lost.state is RunState.UNCERTAIN and "retry_scheduled" not in kinds(rt2, "t")
    assert "reconciled" in kinds(rt2, "t") and len(sent2) == rt2.max_attempts
    rt.close()
    rt2.close()


def effects(wd, name):
    return [e["kind"] for e in pivot.ledgers(wd)[name].effects()]


def test_05_a_pivot_too_early_confirms_a_refunded_order(tmp_path):
    rt = pivot.make_runtime(tmp_path, booking_down=True)
    out = rt.run_workflow("pivot_too_early", pivot.ORDER, run_id="early")
    rt.close()
    assert out.value["outcomes"]["send_email"] == "not compensable"
    assert effects(tmp_path, "payments") == ["charge", "refund"]
    assert effects(tmp_path, "email") == ["email"] and effects(tmp_path, "booking") == []


def test_05_after_the_pivot_only_forward_before_it_compensation(tmp_path):
    rt = pivot.make_runtime(tmp_path / "fwd", ticket_failures=2)
    assert rt.run_workflow("pivot_last", pivot.ORDER, run_id="fwd").state is RunState.WAITING
    for wait in (30, 60):
        rt.clock.advance(wait)
        rt.work()
    assert rt.outcome("fwd").value["status"] == "confirmed"
    assert kinds(rt, "fwd").count("retry_scheduled") == 2
    assert "saga_compensated" not in kinds(rt, "fwd")
    rt.close()
    assert effects(tmp_path / "fwd", "payments") == ["charge"]
    rt = pivot.make_runtime(tmp_path / "down", booking_down=True)
    out = rt.run_workflow("pivot_last", pivot.ORDER, run_id="down")
    rt.close()
    assert out.value["status"] == "compensated" and "send_email" not in out.value["outcomes"]
    assert effects(tmp_path / "down", "email") == []


@pytest.mark.parametrize("bound", [{"cleanup_for": 600, "slow_refund_for": 900},
                                   {"max_cleanup_calls": 1}])
def test_08_a_cleanup_past_its_bound_is_refused_reported_and_the_run_cancelled(tmp_path, bound):
    rt = m08_bounds.make_runtime(tmp_path, **bound)
    out = rt.run_workflow("booking_agent", m08_bounds.ORDER, run_id="slow")
    items = cancel_record(rt.store, "slow")["cleanup"]
    rt.close()
    assert out.state is RunState.CANCELLED
    assert [(i["tool"], i["outcome"]) for i in items] == [
        ("refund", "done"), ("cancel_booking", "not attempted"), ("send_email", "not attempted")]
    assert m08_bounds.applied(tmp_path) == {"charge": 1, "refund": 1, "booking": 1,
                                            "cancellation": 0, "email": 0}


def test_08_a_cancelled_fan_out_finishes_its_wave_and_starts_no_other(tmp_path):
    rt = m08_bounds.make_runtime(tmp_path, cancel_during="send_email")
    out = rt.run_workflow("fan_out_agent", m08_bounds.ORDER, run_id="fan")
    rows = rt.store.read("fan")
    rec = cancel_record(rt.store, "fan")
    rt.close()
    assert out.state is RunState.CANCELLED
    to = {e.step: e.payload["args"].get("to") for e in rows if e.kind == "intent"}
    guests = {s for s, t in to.items() if t in m08_bounds.ORDER["guests"]}
    assert sorted(to[s] for s in guests) == ["ann@example.com", "cy@example.com"]
    requested = next(e.seq for e in rows if e.kind == "cancel_requested")
    results = [e for e in rows if e.kind == "tool_result" and e.step in guests]
    assert len(results) == 2 and all(e.seq > requested for e in results)
    assert all(e["status"] != "in_flight" for e in rec["effects"])
    assert m08_bounds.applied(tmp_path)["email"] == 3  # two guests and the cancellation notice


def test_08_bounds_refuses_an_unknown_cancel_target(tmp_path):
    with pytest.raises(ValueError, match="cancel_during"):
        m08_bounds.make_runtime(tmp_path, cancel_during="book")
