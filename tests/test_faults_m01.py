"""Module 01's crash scenario under both crash modes (minirt_course/scenarios/m01_lease.py).

A worker dies at every boundary of the refund run; another worker takes over after the lease
lapses; the zombie's late completion arrives while the new worker holds the run. Simulated crashes
and real SIGKILLs of a child process must give the same verdict at every boundary, and that
verdict must be CLEAN. A negative control shows the oracle fails a store that does not fence.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from minirt import faults
from minirt.run import FENCED_EVENTS, Run, RunEvent
from minirt.run import apply as reference_apply
from minirt_course.grading import m01
from minirt_course.scenarios.m01_lease import (
    EXPECTED,
    ZOMBIE_LOG,
    RefundScenario,
    read_zombie_log,
)

REF = RefundScenario.ref
BOUNDARIES = faults.boundaries(REF)


def cell_id(point: tuple[str, int]) -> str:
    return f"{point[0]}#{point[1]}"


def test_the_scenario_passes_the_boundaries_the_drill_grades() -> None:
    assert tuple(BOUNDARIES) == m01.BOUNDARIES


def test_the_scenario_is_importable_for_the_kill_mode() -> None:
    assert isinstance(faults.load_scenario(REF), RefundScenario)


def test_a_crash_free_run_is_clean_with_one_incarnation_and_no_zombie(tmp_path: Path) -> None:
    verdict = faults.crash_once(REF, "after_claim", occurrence=99, workdir=tmp_path)  # never
    assert verdict.ok, verdict.detail
    assert "incarnations [1]" in verdict.detail
    assert read_zombie_log(tmp_path / ZOMBIE_LOG) == []


@pytest.mark.parametrize("point", BOUNDARIES, ids=cell_id)
def test_both_crash_modes_give_the_same_clean_verdict(point: tuple[str, int]) -> None:
    name, n = point
    verdicts = {mode: faults.crash_once(REF, name, occurrence=n, mode=mode)
                for mode in ("simulate", "kill")}
    cell = faults.SweepCell(RefundScenario.name, name, n, "both", verdicts["simulate"])
    assert verdicts["simulate"] == verdicts["kill"], f"{cell.reproduce()}: {verdicts}"
    assert verdicts["simulate"].ok, f"{cell.reproduce()}: {verdicts['simulate']}"


@pytest.mark.parametrize("mode", ["simulate", "kill"])
def test_the_zombie_arrives_while_the_new_worker_holds_the_run(mode: str, tmp_path: Path
                                                               ) -> None:
    verdict = faults.crash_once(REF, "before_complete", mode=mode, workdir=tmp_path)
    assert verdict.ok, verdict.detail
    [zombie] = read_zombie_log(tmp_path / ZOMBIE_LOG)
    assert zombie["revision_before"] == zombie["revision_after"]
    del zombie["revision_before"], zombie["revision_after"]
    assert zombie == {"incarnation": 1, "current": 2, "accepted": False,
                      "error": "StaleIncarnation", "state_before": "running",
                      "state_after": "running"}


def test_after_recovery_the_result_on_disk_is_the_crash_free_one(tmp_path: Path) -> None:
    faults.crash_once(REF, "after_step_record", occurrence=1, workdir=tmp_path)
    rt = RefundScenario().make_runtime(tmp_path, faults=faults.Faults(), clock_offset=9e4,
                                       worker_id="w-check")
    try:
        run = rt.store.get_run(RefundScenario.run_id).run
    finally:
        rt.close()
    assert (run.state.value, run.detail["result"], run.incarnation) == ("succeeded", EXPECTED, 2)


def unfenced_apply(run: Run, event: RunEvent) -> Run:
    """The reference apply with fencing removed: every event speaks for the current incarnation."""
    if event.kind in FENCED_EVENTS:
        event = replace(event, incarnation=run.incarnation)
    return reference_apply(run, event)


@pytest.mark.parametrize("point", BOUNDARIES, ids=cell_id)
def test_negative_control_the_oracle_catches_a_store_without_fencing(point: tuple[str, int]
                                                                     ) -> None:
    verdict = faults.crash_once(m01.LearnerScenario(unfenced_apply), point[0],
                                occurrence=point[1])
    assert verdict.outcome is faults.Outcome.DUPLICATE, verdict
    assert "zombie" in verdict.detail



def test_the_zombie_hook_sends_each_zombie_once_even_when_called_twice(tmp_path: Path) -> None:
    from minirt.journal import Journal
    from minirt.runtime import Context
    from minirt_course.scenarios.m01_lease import ZombieCompletion

    scenario = RefundScenario()
    rt = scenario.make_runtime(tmp_path, faults=faults.Faults(), clock_offset=0.0,
                               worker_id="B")
    try:
        run_id = scenario.start(rt)
        rt.store.transition(run_id, RunEvent("claim", at=0.0, worker_id="A", lease_for=30.0))
        b = rt.store.transition(run_id, RunEvent("claim", at=31.0, worker_id="B"))
        ctx = Context(rt, run_id, b.incarnation, Journal.load(rt.store, run_id), {})
        hook = ZombieCompletion(tmp_path / ZOMBIE_LOG)
        hook.at_checkpoint(ctx)
        hook.at_checkpoint(ctx)
        after = rt.store.get_run(run_id).run
    finally:
        rt.close()
    [record] = read_zombie_log(tmp_path / ZOMBIE_LOG)
    assert (record["incarnation"], record["error"]) == (1, "StaleIncarnation")
    assert (after.revision, after.incarnation) == (b.revision, 2)
