"""Drill 08's hidden tests: the reference passes every check, each plausible mistake fails its own."""

from __future__ import annotations

from typing import Any

import pytest

from minirt.cancel import effective_deadline, is_quiescent
from minirt_course.grading import m08


def reference_decide(run: Any, existing: Any, reason: str, at: float) -> Any:
    if run.is_terminal or existing is not None:
        return None
    return {"stage": "requested", "reason": reason, "requested_at": at}


def exceeds_parent(parent_at: Any, now: float, *, deadline_at: Any = None,
                   after: Any = None) -> Any:
    own = deadline_at if after is None else now + after
    return own if own is not None else parent_at


def relative_as_absolute(parent_at: Any, now: float, *, deadline_at: Any = None,
                         after: Any = None) -> Any:
    own = deadline_at if after is None else after
    found = [d for d in (own, parent_at) if d is not None]
    return min(found) if found else None


def ignores_effects(children: Any, effects: Any) -> bool:
    return not any(c.running for c in children)


def ignores_children(children: Any, effects: Any) -> bool:
    return not any(e.status == "in_flight" for e in effects)


def unknown_blocks(children: Any, effects: Any) -> bool:
    return not any(c.running for c in children) and all(
        e.status in ("done", "failed") for e in effects)


def always_writes(run: Any, existing: Any, reason: str, at: float) -> Any:
    return {"stage": "requested", "reason": reason, "requested_at": at}


def blank(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError()


def test_the_reference_passes_every_check() -> None:
    assert m08.check_within_parent(effective_deadline) == []
    assert m08.check_absolute_and_relative(effective_deadline) == []
    assert m08.check_quiescent_effects(is_quiescent) == []
    assert m08.check_quiescent_children(is_quiescent) == []
    assert m08.check_request(reference_decide) == []
    assert m08.check_prediction(2, 1) == []


def test_the_boundaries_are_the_drill_s() -> None:
    assert m08.probe() == m08.BOUNDARIES


@pytest.mark.slow
def test_the_reference_passes_the_crash_sweep() -> None:
    assert m08.check_crash_sweep(effective_deadline, is_quiescent, reference_decide) == []


def test_a_child_deadline_past_its_parent_s_fails_in_the_rule_and_inside_minirt() -> None:
    assert m08.check_within_parent(exceeds_parent)[0].startswith("[child-within-parent]")
    failures = m08.check_runtime_deadlines(exceeds_parent)
    assert failures and "handed the deadline" in failures[0]


def test_a_relative_timeout_read_as_a_time_fails() -> None:
    assert m08.check_absolute_and_relative(relative_as_absolute)[0].startswith(
        "[absolute-and-relative]")


@pytest.mark.parametrize("wrong,check", [
    (ignores_effects, m08.check_quiescent_effects),
    (unknown_blocks, m08.check_quiescent_effects),
    (ignores_children, m08.check_quiescent_children),
])
def test_a_wrong_quiescence_check_fails(wrong: Any, check: Any) -> None:
    assert check(wrong)[0].startswith("[quiescence-")


def test_declaring_quiescence_with_an_effect_in_flight_fails_the_crash_sweep() -> None:
    failures = m08.check_crash_sweep(effective_deadline, ignores_effects, reference_decide)
    assert failures and "not refunded" in failures[0]


def test_a_cancel_that_is_not_idempotent_fails_the_rule_and_the_crash_sweep() -> None:
    assert m08.check_request(always_writes)[0].startswith("[cancel-idempotent]")
    assert m08.check_crash_sweep(effective_deadline, is_quiescent, always_writes)


def test_a_blank_answer_fails_every_check_with_a_message() -> None:
    for check in (m08.check_within_parent, m08.check_absolute_and_relative,
                  m08.check_quiescent_effects, m08.check_quiescent_children,
                  m08.check_request):
        assert check(blank)[0].startswith("[")
    assert m08.check_crash_sweep(blank, blank, blank, points=[("after_result", 2)])
    assert m08.check_prediction(None, None)


def test_a_wrong_prediction_fails() -> None:
    assert m08.check_prediction(1, 1) and m08.check_prediction(2, 0)


def after_zero_ignored(parent_at: Any, now: float, *, deadline_at: Any = None,
                       after: Any = None) -> Any:
    own = now + after if after else deadline_at
    found = [d for d in (own, parent_at) if d is not None]
    return min(found) if found else None


def parent_zero_dropped(parent_at: Any, now: float, *, deadline_at: Any = None,
                        after: Any = None) -> Any:
    own = deadline_at if after is None else now + after
    found = [d for d in (own, parent_at) if d]
    return min(found) if found else None


def overwrites_reason(run: Any, existing: Any, reason: str, at: float) -> Any:
    if existing is not None:
        existing["reason"] = reason
        return None
    return reference_decide(run, existing, reason, at)


def extra_field(run: Any, existing: Any, reason: str, at: float) -> Any:
    rec = reference_decide(run, existing, reason, at)
    return rec if rec is None else {**rec, "requested_at": int(at)}


def pops_effects(children: Any, effects: Any) -> bool:
    while effects and effects[-1].status != "in_flight":
        effects.pop()
    return is_quiescent(children, effects)


def test_learner_api_names_no_check_and_no_answer() -> None:
    assert all(hasattr(m08, n) for n in m08.LEARNER_API)
    assert not [n for n in m08.LEARNER_API if n.startswith(("check_", "_", "reference"))
                or "observe" in n or "predict" in n]


def test_boundaries_after_zero_and_deadlines_at_zero() -> None:
    msg = m08.check_absolute_and_relative(after_zero_ignored)[0]
    assert msg.startswith("[absolute-and-relative]") and "after=0.0" in msg
    assert "parent_at=0.0" in m08.check_within_parent(parent_zero_dropped)[0]


def test_request_compares_every_field_and_leaves_the_record_alone() -> None:
    assert "changed in place" in m08.check_request(overwrites_reason)[0]
    assert "the record is" in m08.check_request(extra_field)[0]


def test_quiescence_leaves_its_inputs_alone() -> None:
    assert "changed the lists" in m08.check_quiescent_effects(pops_effects)[0]
