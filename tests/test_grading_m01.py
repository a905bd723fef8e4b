"""Drill 01's hidden-test logic (minirt_course/grading/m01.py), checked in-process and fast.

The drill's cells are executed here in plain Python (no kernel, no nbgrader): the locked setup
cell, then the answer cells (the source's solutions, the release's blanks, or a mutant's
answers), then every graded cell with its hidden tests. The solution must pass every graded cell,
the blank none, and each mutant must fail its MUST_FAIL cells. The real-nbgrader version of the
same check is tests/test_drills_honesty.py (slow).
"""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path
from typing import Any

import nbformat
import pytest

from minirt.run import Run, RunEvent, RunState, check_transition
from minirt.run import apply as reference_apply
from minirt_course.grading import m01

ROOT = Path(__file__).resolve().parents[1]
SLUG = "01-run-state-machines"
SOURCE = ROOT / "solutions" / SLUG / "drill.ipynb"
RELEASE = ROOT / "drills" / SLUG / "drill.ipynb"
MUTANTS = sorted((ROOT / "tests" / "mutants" / SLUG).glob("*.py"))


def cells(path: Path) -> list[tuple[str | None, dict[str, Any], str]]:
    nb = nbformat.read(str(path), as_version=4)
    return [(c.metadata.get("nbgrader", {}).get("grade_id"), c.metadata.get("nbgrader", {}),
             c.source) for c in nb.cells if c.cell_type == "code"]


def run_drill(answers: dict[str, str]) -> dict[str, str | None]:
    """Execute the source drill with ``answers`` in place of its answer cells; return
    grade_id -> None (passed) or the first line of the error, for every graded cell."""
    ns: dict[str, Any] = {}
    results: dict[str, str | None] = {}
    for gid, meta, source in cells(SOURCE):
        if gid is not None and gid in answers:
            source = answers[gid]
        code = "\n".join(ln for ln in source.splitlines() if not ln.startswith("%"))
        try:
            exec(compile(code, f"<{gid or 'cell'}>", "exec"), ns)
        except Exception as exc:
            if meta.get("grade"):
                results[gid] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            continue
        if meta.get("grade"):
            results[gid] = None
    return results


def load_mutant(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"m01_mutant_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GRADED = [gid for gid, meta, _ in cells(SOURCE) if meta.get("grade")]


def test_the_drill_has_one_point_per_graded_cell_and_ids_named_by_convention() -> None:
    for gid, meta, source in cells(SOURCE):
        if meta.get("grade"):
            assert gid.startswith("test_") and meta["points"] == 1 and meta["locked"]
            assert source.rstrip().splitlines()[-1].startswith(("assert", "### END HIDDEN")), gid
        if meta.get("solution"):
            assert gid.startswith("answer_") and "### BEGIN SOLUTION" in source


def test_the_solution_passes_every_graded_cell() -> None:
    results = run_drill({})
    assert set(results) == set(GRADED)
    assert {k: v for k, v in results.items() if v} == {}


def test_the_blank_release_fails_every_graded_cell() -> None:
    blanks = {gid: src for gid, meta, src in cells(RELEASE) if meta.get("solution")}
    assert blanks and all("NotImplementedError" in src for src in blanks.values())
    results = run_drill(blanks)
    assert [gid for gid, err in results.items() if err is None] == []


def test_there_are_at_least_three_mutants() -> None:
    assert len(MUTANTS) >= 3


@pytest.mark.parametrize("path", MUTANTS, ids=lambda p: p.stem)
def test_each_mutant_fails_its_must_fail_cells(path: Path) -> None:
    mutant = load_mutant(path)
    assert mutant.__doc__ and set(mutant.MUST_FAIL) <= set(GRADED)
    results = run_drill(mutant.ANSWERS)
    assert [c for c in mutant.MUST_FAIL if results[c] is None] == [], results


@pytest.mark.parametrize("path", MUTANTS, ids=lambda p: p.stem)
def test_each_mutant_failure_message_names_a_property(path: Path) -> None:
    mutant = load_mutant(path)
    results = run_drill(mutant.ANSWERS)
    for cell in mutant.MUST_FAIL:
        assert results[cell].startswith("AssertionError: ["), results[cell]


def test_the_graded_checks_write_nothing_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    run_drill({})
    assert capsys.readouterr().err == ""


# -- the check functions on their own ------------------------------------------------------------

def test_every_check_passes_the_reference_implementation() -> None:
    assert m01.check_table(check_transition) == []
    assert m01.check_stale(check_transition) == []
    assert m01.check_terminal(check_transition, reference_apply) == []
    assert m01.check_takeover(reference_apply) == []
    assert m01.check_revision(reference_apply) == []
    assert m01.check_compare_and_set(reference_apply) == []
    assert m01.check_crash_sweep(reference_apply) == []


def broken(exc: Exception) -> Any:
    def fn(run: Run, event: RunEvent) -> Any:
        raise exc
    return fn


@pytest.mark.parametrize("bad", [broken(NotImplementedError()), broken(TypeError("x")),
                                 lambda r, e: None, lambda r, e: "running", lambda r, e: r],
                         ids=["not-implemented", "type-error", "none", "str", "same-run"])
def test_every_check_turns_a_broken_answer_into_messages_not_exceptions(bad: Any) -> None:
    for check in (m01.check_table, m01.check_stale, m01.check_takeover, m01.check_revision,
                  m01.check_compare_and_set, m01.check_crash_sweep):
        failures = check(bad)
        assert failures and all(f.startswith("[") for f in failures), check.__name__
    assert m01.check_terminal(bad, bad)


def test_a_look_alike_state_that_equals_everything_is_not_accepted() -> None:
    class Sly(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    assert m01.check_table(lambda r, e: Sly("running"))


def test_a_run_with_a_look_alike_state_is_not_rebuilt() -> None:
    class Sly(str):
        value = "running"

    with pytest.raises(m01.LearnerAnswerInvalid):
        m01.rebuild_run(replace(Run("r"), state=Sly("running")))


def test_the_crash_sweep_names_the_crash_point_of_a_failure() -> None:
    def unfenced(run: Run, event: RunEvent) -> Run:
        if event.incarnation is not None:
            event = replace(event, incarnation=run.incarnation)
        return reference_apply(run, event)

    failures = m01.check_crash_sweep(unfenced)
    assert len(failures) == len(m01.BOUNDARIES)
    assert all(f.startswith("[crash-sweep] crash at ") and "zombie" in f for f in failures)


def test_the_zombie_story_shows_b_accepted_and_a_refused_as_terminal() -> None:
    assert m01.zombie_story() == {"accepted_incarnation": 2, "zombie_error": "RunIsTerminal",
                                  "result": "refund by B"}


def test_the_zombie_story_before_b_completes_would_be_stale_not_terminal() -> None:
    # the same store, A's completion arriving while B still runs: the fence, not terminal, refuses
    from minirt.run import StaleIncarnation

    b = Run("r", RunState.RUNNING, 2, 2, "B", 75.0)
    with pytest.raises(StaleIncarnation):
        reference_apply(b, RunEvent("complete", at=46.0, incarnation=1))


@pytest.mark.parametrize(("accepted", "error", "ok"), [
    (2, "RunIsTerminal", True), ("2", "RunIsTerminal", True), (1, "RunIsTerminal", False),
    (2, "StaleIncarnation", False), (None, None, False), ("two", "RunIsTerminal", False),
    (2, "Whatever", False)])
def test_the_prediction_is_checked_against_the_run(accepted: Any, error: Any, ok: bool) -> None:
    failures = m01.check_prediction(accepted, error)
    assert (failures == []) is ok
    assert all(f.startswith("[prediction]") for f in failures)


def test_learner_api_lists_only_helpers_that_exist_and_no_check_or_answer() -> None:
    assert m01.LEARNER_API and all(hasattr(m01, name) for name in m01.LEARNER_API)
    assert not [n for n in m01.LEARNER_API if n.startswith(("check_", "reference", "_"))]
    assert "zombie_story" not in m01.LEARNER_API  # it returns the prediction's answer


def test_nothing_shows_the_prediction_before_its_graded_cell() -> None:
    order = [(gid, src) for gid, _, src in cells(SOURCE)]
    graded_at = [gid for gid, _ in order].index("test_prediction")
    before = "\n".join(src for gid, src in order[:graded_at] if gid != "test_prediction")
    assert "zombie_story" not in before and "store.transition(\"refund-A-42\"" not in before


def test_the_differential_properties_catch_a_boundary_and_a_newer_token() -> None:
    def lease_inclusive(run: Run, event: RunEvent) -> Any:
        if event.kind == "claim" and run.lease_expires_at == event.at:
            event = replace(event, at=event.at - 0.25)
        return reference_apply(run, event)

    failures = m01.check_takeover_properties(lease_inclusive)
    assert failures and failures[0].startswith("[takeover]") and "smallest failing input" in \
        failures[0]

    def newer_accepted(run: Run, event: RunEvent) -> Any:
        if event.incarnation is not None and event.incarnation > run.incarnation:
            event = replace(event, incarnation=run.incarnation)
        return check_transition(run, event)

    assert m01.check_stale_properties(newer_accepted)[0].startswith("[stale-completion]")
