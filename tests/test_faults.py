"""Fault points, the two crash modes (minirt.faults), and the sweep machinery
(minirt.testing.sweep), on module 03's scenario."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from minirt.faults import FaultPlan, FaultPoint, Faults, SimulatedCrash, UnknownFaultPoint
from minirt.journal import Journal
from minirt.run import RunState
from minirt.store.sqlite import SQLiteStore
from minirt.testing.sweep import (
    ChildDidNotCrash,
    Outcome,
    ScenarioNotImportable,
    _run_in_child,
    boundaries,
    crash_once,
    load_scenario,
    sweep,
)
from minirt_course.scenarios.m03_journal import SCENARIO, RefundScenario, RefundWorld

REF = SCENARIO.ref


# -- FaultPlan ----------------------------------------------------------------------------------

def test_fault_plan_records_every_point_passed_with_its_occurrence():
    plan = FaultPlan()
    for point in ("before_intent", "after_intent", "before_intent"):
        plan.hit(point)
    assert plan.passed == [("before_intent", 1), ("after_intent", 1), ("before_intent", 2)]


def test_fault_plan_crashes_only_at_the_chosen_occurrence():
    plan = FaultPlan(crash_at="after_intent", occurrence=2)
    plan.hit("after_intent")
    with pytest.raises(SimulatedCrash) as crash:
        plan.hit("after_intent")
    assert (crash.value.point, crash.value.occurrence) == ("after_intent", 2)


def test_fault_plan_does_not_crash_again_after_the_occurrence():
    plan = FaultPlan(crash_at="after_intent", occurrence=1)
    with pytest.raises(SimulatedCrash):
        plan.hit("after_intent")
    plan.hit("after_intent")
    assert plan.counts["after_intent"] == 2


def test_crashed_is_a_fact_set_once_the_point_was_reached():
    plan = FaultPlan(crash_at="after_result")
    plan.hit("before_result")
    assert not plan.crashed
    with pytest.raises(SimulatedCrash):
        plan.hit("after_result")
    assert plan.crashed


def test_a_plan_for_an_unknown_point_is_refused_when_it_is_set_up():
    with pytest.raises(UnknownFaultPoint) as err:
        FaultPlan(crash_at="after_intnet")  # a typo would otherwise never fire
    assert "after_intnet" in str(err.value) and "after_intent" in str(err.value)


def test_hitting_an_unregistered_point_under_a_plan_is_refused():
    with pytest.raises(UnknownFaultPoint):
        FaultPlan().hit("nowhere")


def test_every_point_the_runtime_hits_is_a_registered_fault_point():
    import re
    from pathlib import Path

    import minirt

    hit = re.compile(r"faults\.hit\(\s*\"([a-z_]+)\"")
    found = {m for f in Path(minirt.__file__).parent.rglob("*.py")
             for m in hit.findall(f.read_text(encoding="utf-8"))}
    assert found and found <= set(FaultPoint), sorted(found - set(FaultPoint))


def test_default_faults_never_crash():
    assert Faults().hit("before_intent", step=1) is None


# -- SimulatedCrash cannot be swallowed ---------------------------------------------------------

def test_simulated_crash_is_a_base_exception_not_an_exception():
    assert issubclass(SimulatedCrash, BaseException)
    assert not issubclass(SimulatedCrash, Exception)


def test_except_exception_does_not_catch_a_simulated_crash():
    def application_code(plan: FaultPlan) -> str:
        try:
            plan.hit("after_intent")
        except Exception:  # noqa: BLE001 - the point: a broad handler must not swallow a crash
            return "swallowed"
        return "not reached"

    with pytest.raises(SimulatedCrash):
        application_code(FaultPlan(crash_at="after_intent"))


def test_simulated_crash_leaves_the_run_running_and_unfinished(tmp_path):
    SCENARIO.setup(tmp_path)
    rt = SCENARIO.make_runtime(tmp_path, faults=FaultPlan(crash_at="after_intent", occurrence=2),
                               clock_offset=0.0, worker_id="w1")
    run_id = SCENARIO.start(rt)
    with pytest.raises(SimulatedCrash):
        rt.run(run_id)
    run = rt.store.get_run(run_id).run
    rt.close()
    assert (run.state, run.incarnation) == (RunState.RUNNING, 1)


# -- kill mode really kills a child process -----------------------------------------------------

def test_kill_mode_child_is_sigkilled_at_the_point_with_the_effect_on_disk(tmp_path):
    SCENARIO.setup(tmp_path)
    run_id = _run_in_child(REF, tmp_path, "after_provider_commit", 2)  # the refund (W3)
    store = SQLiteStore(tmp_path / "runs.sqlite")
    unresolved = [p.step for p in Journal.load(store, run_id).unresolved()]
    state = store.get_run(run_id).run.state
    store.close()
    assert (unresolved, state) == ([4], RunState.RUNNING)
    assert [tool for tool, _ in RefundWorld(tmp_path).effects()] == ["refund"]


def test_kill_mode_reports_a_child_that_was_never_killed(tmp_path):
    SCENARIO.setup(tmp_path)
    with pytest.raises(ChildDidNotCrash) as err:
        _run_in_child(REF, tmp_path, "after_intent", 99)
    assert err.value.returncode == 0 and err.value.returncode != -signal.SIGKILL


def test_crash_once_in_kill_mode_recovers_clean(tmp_path):
    verdict = crash_once(REF, "before_result", occurrence=2, mode="kill", workdir=tmp_path)
    assert verdict.outcome is Outcome.CLEAN
    assert RefundWorld(tmp_path).counts() == {"lookup_order": 1, "refund": 2, "notify": 1}


@pytest.mark.parametrize("point,occurrence", [("after_intent", 2), ("after_provider_commit", 2),
                                              ("after_result", 2), ("after_step_record", 2)])
def test_simulate_and_kill_modes_agree(tmp_path, point, occurrence):
    seen = []
    for mode in ("simulate", "kill"):
        wd = tmp_path / mode
        verdict = crash_once(REF, point, occurrence=occurrence, mode=mode, workdir=wd)
        seen.append((verdict.outcome, RefundWorld(wd).counts()))
    assert seen[0] == seen[1]


def test_kill_mode_needs_an_importable_scenario(tmp_path):
    class Anonymous(RefundScenario):
        ref = ""

    with pytest.raises(ScenarioNotImportable):
        crash_once(Anonymous(), "after_claim", mode="kill", workdir=tmp_path)


# -- scenarios, boundaries, sweep ---------------------------------------------------------------

def test_load_scenario_by_reference():
    assert isinstance(load_scenario(REF), RefundScenario)


def test_load_scenario_names_a_bad_reference():
    with pytest.raises(ScenarioNotImportable) as err:
        load_scenario("minirt_course.scenarios.m03_journal:Nope")
    assert err.value.name == "minirt_course.scenarios.m03_journal:Nope"


def test_boundaries_are_deterministic_and_cover_every_tool_window():
    first, second = boundaries(REF), boundaries(REF)
    assert first == second
    assert [n for p, n in first if p == "after_provider_commit"] == [1, 2, 3]


def test_sweep_gives_one_cell_per_boundary_and_mode():
    points = boundaries(REF)[:3]
    cells = sweep(REF, modes=("simulate",), points=points)
    assert [(c.point, c.occurrence, c.mode) for c in cells] == [(p, n, "simulate")
                                                               for p, n in points]


def test_sweep_cell_says_how_to_reproduce_it():
    (cell,) = sweep(REF, points=[("after_claim", 1)])
    assert cell.reproduce() == (f"minirt.faults.crash_once({REF!r}, 'after_claim', "
                                "occurrence=1, mode='simulate')")


def test_recovery_leaves_the_crashed_run_terminal(tmp_path: Path):
    crash_once(REF, "after_decision_record", occurrence=1, workdir=tmp_path)
    store = SQLiteStore(tmp_path / "runs.sqlite")
    state = store.get_run(SCENARIO.run_id).run.state
    store.close()
    assert state is RunState.SUCCEEDED


# -- the split: the core's fault points apart from the sweep ------------------------------------

def test_importing_the_core_loads_nothing_of_the_sweep():
    import subprocess
    import sys

    code = ("import sys, minirt, minirt.faults, minirt.runtime\n"
            "print(sorted(m for m in sys.modules if m.startswith('minirt.testing')))\n"
            "from minirt.faults import crash_once\n"
            "print('minirt.testing.sweep' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[:2] == ["[]", "True"]


def test_the_sweeps_names_are_the_same_objects_from_the_core():
    import minirt.faults as faults
    import minirt.testing.sweep as sweep_module

    public = {n for n, v in vars(sweep_module).items() if not n.startswith("_")
              and getattr(v, "__module__", None) == sweep_module.__name__}
    assert public | {"SCENARIO_PACKAGES"} == faults.MOVED
    for name in faults.MOVED:
        assert getattr(faults, name) is getattr(sweep_module, name), name
    with pytest.raises(AttributeError, match="no attribute 'crash_twice'"):
        faults.crash_twice  # noqa: B018


def test_a_name_only_the_sweep_defines_is_not_in_the_core_module():
    import minirt.faults as faults

    assert "crash_once" not in vars(faults) and "FaultPlan" in vars(faults)
