"""The capstone's full crash sweep: every boundary of the reference agent, judged by the ledgers.

Simulated crashes at every point, and a sample of points with the child process SIGKILLed (the
two modes must agree). Slow-ish (a few seconds); run alone with ``pytest tests/test_sweep_capstone.py``.
"""

from __future__ import annotations

from collections import Counter

from minirt.faults import boundaries
from minirt_course.capstone import scenario


def test_every_boundary_of_the_reference_agent_recovers_clean() -> None:
    report = scenario.run_sweep(scenario.reference)
    assert len(report.cells) >= 50
    points = Counter(c.point for c in report.cells)
    for p in ("before_intent", "after_intent", "after_provider_commit", "before_result",
              "after_result", "approval_requested", "after_budget_reserve"):
        assert points[p] >= 1, p
    assert report.failures == [], [(c.point, c.occurrence, c.verdict) for c in report.failures]


def test_sweep_is_deterministic() -> None:
    with scenario.scratch_dir() as a, scenario.scratch_dir() as b:
        from pathlib import Path

        assert boundaries(scenario.reference, Path(a)) == boundaries(scenario.reference, Path(b))


def test_kill_mode_agrees_with_simulation_in_the_refund_and_email_windows() -> None:
    points = [(p, n) for p in ("after_intent", "after_provider_commit", "before_result")
              for n in (4, 5, 7)]  # the two refunds and the email (after three look-ups)
    killed = scenario.run_sweep(scenario.reference, points=points, mode="kill")
    simulated = scenario.run_sweep(scenario.reference, points=points)
    assert [c.verdict.outcome for c in killed.cells] == \
        [c.verdict.outcome for c in simulated.cells]
    assert killed.failures == []


def test_sweep_with_a_lost_refund_response_recovers_clean() -> None:
    sc = scenario.variant(name="capstone-lossy", provider_faults=(
        ("payments", "drop_response_after_commit", "refund", 1),
        ("email", "error_5xx", "send", 1)))
    report = scenario.run_sweep(sc)
    assert report.failures == [], [(c.point, c.occurrence, c.verdict) for c in report.failures]
