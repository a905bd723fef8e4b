"""Module 03's crash sweep: crash the refund agent at every boundary, in both modes; all clean.

The oracle is only worth something if it can say no, so the second half runs the same scenario
on deliberately broken runtimes (a Context that forgets the journal, one that takes an intent for
a result, one that re-draws a recorded random value) and checks the oracle names the damage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sampling import one_of_each, seed

from minirt.dispatch import DispatchPolicy
from minirt.faults import Faults, Outcome, boundaries, crash_once, sweep
from minirt.journal import Position
from minirt.runtime import Context, Runtime
from minirt.tools import Tool
from minirt_course.scenarios.m03_journal import SCENARIO, RefundScenario, RefundWorld

REF = SCENARIO.ref


def _dirty(cells) -> list[str]:
    return [f"{c.reproduce()}: {c.verdict.outcome.value} {c.verdict.detail}"
            for c in cells if not c.verdict.ok]


def test_every_boundary_is_swept():
    assert len(boundaries(REF)) == 25


def test_simulated_crash_at_every_boundary_is_clean():
    cells = sweep(REF, modes=("simulate",))
    assert len(cells) == 25 and _dirty(cells) == []


@pytest.mark.slow
def test_killed_process_at_every_boundary_is_clean(full_sweeps):
    """Bounded by default: each of the 11 kinds of point killed once, at one of its occurrences
    (rotating with the UTC date or MINIRT_HONESTY_SEED); every one of the 25 with --full-sweeps.
    It fails when a real SIGKILL at a killed point loses, duplicates or redoes a refund."""
    points = one_of_each(boundaries(REF), "m03-kill", everything=full_sweeps)
    cells = sweep(REF, modes=("kill",), points=points)
    assert len(cells) == len(points) >= 11 and _dirty(cells) == [], f"seed {seed()!r}"


def test_resent_refund_executes_twice_but_applies_once(tmp_path):
    verdict = crash_once(REF, "after_provider_commit", occurrence=2, workdir=tmp_path)
    world = RefundWorld(tmp_path)
    assert verdict.ok
    assert world.counts()["refund"] == 2
    assert [tool for tool, _ in world.effects()] == ["refund", "notify"]


def test_crash_free_run_executes_each_tool_once(tmp_path):
    SCENARIO.setup(tmp_path)
    rt = SCENARIO.make_runtime(tmp_path, faults=Faults(), clock_offset=0.0, worker_id="w")
    rt.run(SCENARIO.start(rt))
    verdict = SCENARIO.oracle(tmp_path, rt, SCENARIO.run_id)
    rt.close()
    assert verdict.ok
    assert RefundWorld(tmp_path).counts() == {"lookup_order": 1, "refund": 1, "notify": 1}


# -- the oracle says no to broken runtimes ------------------------------------------------------

class ForgetfulContext(Context):
    """Ignores the journal: every position runs again (the naive restart-from-the-top loop)."""

    def claim_position(self) -> tuple[int, Position | None]:
        p, _ = super().claim_position()
        return p, None


class IntentIsDone(DispatchPolicy):
    """Takes a recorded intent for a finished call and moves on with no result."""

    def reconcile(self, ctx: Context, tool: Tool, call: Any, why: str) -> Any:
        if why == "recorded intent without an outcome":
            return None
        return super().reconcile(ctx, tool, call, why)


class BrokenScenario(RefundScenario):
    context: type[Context] = Context
    policy: DispatchPolicy = DispatchPolicy()

    def make_runtime(self, workdir: Path, *, faults: Any, clock_offset: float,
                     worker_id: str) -> Runtime:
        rt = super().make_runtime(workdir, faults=faults, clock_offset=clock_offset,
                                  worker_id=worker_id)
        rt.context_class = self.context
        rt.policy = self.policy
        return rt


def _broken(context: type[Context] = Context,
            policy: DispatchPolicy | None = None) -> BrokenScenario:
    sc = BrokenScenario()
    sc.context = context
    sc.policy = policy or DispatchPolicy()
    return sc


def test_oracle_flags_a_runtime_that_reruns_recorded_tools(tmp_path):
    verdict = crash_once(_broken(ForgetfulContext), "after_result", occurrence=1,
                         workdir=tmp_path)
    assert verdict.outcome is Outcome.DUPLICATE


def test_oracle_flags_a_runtime_that_redraws_a_recorded_random_value(tmp_path):
    """Crash after the refund: re-drawing the reference makes a second refund key."""
    verdict = crash_once(_broken(ForgetfulContext), "after_result", occurrence=2,
                         workdir=tmp_path)
    assert verdict.outcome is Outcome.DUPLICATE


def test_oracle_flags_a_runtime_that_takes_an_intent_for_a_result(tmp_path):
    verdict = crash_once(_broken(policy=IntentIsDone()), "after_intent", occurrence=2,
                         workdir=tmp_path)
    assert verdict.outcome is Outcome.LOST


def test_oracle_flags_a_run_that_never_finishes(tmp_path):
    class Stuck(RefundScenario):
        def make_runtime(self, workdir, *, faults, clock_offset, worker_id):
            rt = super().make_runtime(workdir, faults=faults, clock_offset=clock_offset,
                                      worker_id=worker_id)
            rt.resume = lambda run_id: None  # recovery never gets to run it
            return rt

    verdict = crash_once(Stuck(), "after_claim", workdir=tmp_path)
    assert verdict.outcome is Outcome.STUCK
