"""Drill 05's hidden tests: the reference passes every check, each plausible mistake fails its own."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from minirt.effects import Action, EffectStatus, PlannedAction, compensation_key, plan_compensations
from minirt.faults import boundaries
from minirt_course.grading import m05
from minirt_course.scenarios.m05_saga import VARIANTS


def no_lookup(effects: Any, lookup: Any) -> list[PlannedAction]:
    """Treats an unknown outcome like a receipt (never asks the provider)."""
    plan = []
    for fx in sorted(effects, key=lambda f: f.step, reverse=True):
        happened = fx.status in (EffectStatus.RECEIPTED, EffectStatus.UNKNOWN)
        action = (Action.COMPENSATE if happened and fx.compensation else
                  Action.NOT_COMPENSABLE if happened else Action.SKIP)
        plan.append(PlannedAction(action, fx))
    return plan


def compensate_everything(effects: Any, lookup: Any) -> list[PlannedAction]:
    """Compensates every step that registered a compensation, whatever happened to it."""
    return [PlannedAction(Action.COMPENSATE if p.effect.compensation else p.action, p.effect)
            for p in plan_compensations(effects, lookup)]


def drops_email(effects: Any, lookup: Any) -> list[PlannedAction]:
    return [p for p in plan_compensations(effects, lookup)
            if p.action is not Action.NOT_COMPENSABLE]


def forward_order(effects: Any, lookup: Any) -> list[PlannedAction]:
    return list(reversed(plan_compensations(effects, lookup)))


def blank(*args: Any) -> Any:
    raise NotImplementedError()


def test_the_reference_passes_every_check() -> None:
    assert m05.check_key(compensation_key, hidden=True) == []
    assert m05.check_only_receipts(plan_compensations, hidden=True) == []
    assert m05.check_unknown_first(plan_compensations, hidden=True) == []
    assert m05.check_not_compensable(plan_compensations, hidden=True) == []


def test_the_reference_passes_the_crash_drill_and_it_covers_compensation() -> None:
    assert m05.check_crash_drill(plan_compensations, compensation_key) == []
    points = {p for v in VARIANTS for p, _ in boundaries(v)}
    assert {"after_provider_commit", "after_compensation_commit"} <= points


@pytest.mark.parametrize("check,wrong", [
    (m05.check_unknown_first, no_lookup),
    (m05.check_only_receipts, compensate_everything),
    (m05.check_not_compensable, drops_email),
    (m05.check_only_receipts, forward_order),
    (m05.check_only_receipts, blank),
    (m05.check_unknown_first, blank),
    (m05.check_not_compensable, blank),
])
def test_a_wrong_planner_fails_its_property(check: Any, wrong: Any) -> None:
    failures = check(wrong, hidden=True)
    assert failures and failures[0].startswith("[")


@pytest.mark.parametrize("wrong", [no_lookup, compensate_everything, drops_email])
def test_a_wrong_planner_fails_the_crash_drill(wrong: Any) -> None:
    assert m05.check_crash_drill(wrong, compensation_key)


def test_a_per_attempt_key_fails_the_key_check_and_the_crash_drill() -> None:
    counter = itertools.count()

    def per_attempt(forward_key: str, tool: str) -> str:
        return f"ck_{forward_key}_{next(counter)}"

    assert m05.check_key(per_attempt, hidden=True)[0].startswith("[key-stable]")
    assert m05.check_crash_drill(plan_compensations, per_attempt)


@pytest.mark.parametrize("key", [lambda k, t: k, lambda k, t: "ck_" + t, blank])
def test_keys_that_collide_or_reuse_the_forward_key_fail(key: Any) -> None:
    assert m05.check_key(key, hidden=True)


def test_failure_messages_name_the_property_without_the_answer() -> None:
    (msg,) = m05.check_unknown_first(no_lookup, hidden=True)
    assert msg.startswith("[unknown-reconciled-first]") and "should" not in msg


def test_the_prediction_is_checked_against_the_run() -> None:
    right = {"after_intent": "never charged", "after_provider_commit": "refunded"}
    assert m05.check_prediction(right) == []
    assert m05.check_prediction({**right, "after_intent": "refunded"})
    assert m05.check_prediction({"after_intent": "refunded"})
    assert m05.check_prediction(None)


def test_learner_api_lists_only_helpers_that_exist_and_not_the_answer() -> None:
    from minirt_course.grading import m05 as grading

    assert grading.LEARNER_API and all(hasattr(grading, n) for n in grading.LEARNER_API)
    assert not [n for n in grading.LEARNER_API if n.startswith(("check_", "_", "observe"))]


def test_the_plan_property_sees_an_in_place_sort_and_the_key_property_a_missing_separator(
) -> None:
    import hashlib

    from minirt.effects import plan_compensations
    from minirt_course.grading import m05 as grading

    def in_place(effects, lookup):
        effects.sort(key=lambda e: e.step, reverse=True)
        return plan_compensations(effects, lookup)

    failures = grading.check_plan_properties(in_place, "only-receipts", ("receipted",), True)
    assert failures and "in place" in failures[0] and "smallest failing input" in failures[0]

    def no_sep(f, t):
        return "ck_" + hashlib.sha256(("compensate" + f + t).encode()).hexdigest()[:32]

    assert grading.check_key_properties(no_sep)[0].startswith("[key-stable]")
