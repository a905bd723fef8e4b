"""Module 05's crash sweep: every boundary of the order saga, both crash modes, judged by ledgers.

Three variants (booking provider down, the agent aborts after the email, an operator aborts every
crashed run) cover crashes between an effect and its receipt, around the lookups of unknown
effects, and inside every compensation. The last test shows the oracle can fail: Vercel's rule
read literally (compensate only steps whose receipt arrived) leaves a charge unrefunded when the
abort comes while the charge's receipt is lost.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sampling import one_of_each, seed

from minirt.effects import Action, EffectStatus, PlannedAction
from minirt.faults import Outcome, boundaries, sweep
from minirt_course.scenarios.m05_saga import VARIANTS, operator_aborts

COMPENSATION_POINTS = {"before_compensation", "after_compensation_intent",
                       "after_compensation_commit", "before_compensation_result",
                       "after_compensation_result"}


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["simulate", "kill"])
@pytest.mark.parametrize("scenario", VARIANTS, ids=lambda s: s.name)
def test_every_crash_point_of_the_saga_recovers_clean(scenario: Any, mode: str,
                                                     full_sweeps: bool) -> None:
    """Simulate: every point. Kill, bounded by default: each kind of point once, at one of its
    occurrences (rotating with the UTC date or MINIRT_HONESTY_SEED); all with --full-sweeps."""
    every = boundaries(scenario.ref)
    chosen = every if mode == "simulate" else one_of_each(every, f"m05-kill/{scenario.name}",
                                                          everything=full_sweeps)
    cells = sweep(scenario.ref, modes=(mode,), points=chosen)
    bad = [f"{c.point}#{c.occurrence}: {c.verdict.outcome.value} ({c.verdict.detail})"
           for c in cells if not c.verdict.ok]
    assert not bad, (bad, f"seed {seed()!r}")
    points = {c.point for c in cells}
    assert points == {p for p, _ in every}
    assert {"after_provider_commit", "inside_commit"} <= points  # effect/receipt, local commit
    if scenario.name != operator_aborts.name:
        assert COMPENSATION_POINTS <= points  # crashes during compensation are swept too


def after_success_only(effects: Any, lookup: Any) -> list[PlannedAction]:
    """Vercel's rule read literally: only a step whose receipt arrived has a compensation."""
    plan = []
    for fx in sorted(effects, key=lambda f: f.step, reverse=True):
        happened = fx.status is EffectStatus.RECEIPTED
        action = (Action.COMPENSATE if happened and fx.compensation else
                  Action.NOT_COMPENSABLE if happened else Action.SKIP)
        plan.append(PlannedAction(action, fx))
    return plan


def test_registering_after_success_leaves_a_charge_unrefunded_at_w3() -> None:
    wrong = replace(operator_aborts, planner=after_success_only)
    cells = sweep(wrong, points=[("after_intent", 1), ("after_provider_commit", 1),
                                 ("after_result", 1)])
    outcomes = {c.point: c.verdict.outcome for c in cells}
    assert outcomes == {"after_intent": Outcome.CLEAN, "after_provider_commit": Outcome.LOST,
                        "after_result": Outcome.CLEAN}
