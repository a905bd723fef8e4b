"""Where a person should judge, nbgrader asks one: the capstone's note and 05b's rationale.

Both are manually graded answer cells (nbgrader: ``solution`` and ``grade``) with the rubric in
the learner's copy; the capstone's automatic cell still checks that the figures the note quotes
are the agent's own measurements (``m11.check_note``: no points for a spray of numbers).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _cell(path: Path, grade_id: str) -> nbformat.NotebookNode:
    nb = nbformat.read(str(path), as_version=4)
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


@pytest.mark.parametrize("folder", ["solutions", "drills"])
def test_capstone_note_is_marked_by_a_person_with_a_rubric(folder: str) -> None:
    cell = _cell(ROOT / folder / "11-capstone" / "drill.ipynb", "answer_note")
    meta = cell.metadata["nbgrader"]
    assert (meta["grade"], meta["solution"], meta["points"]) == (True, True, 3)
    assert cell.source.startswith("# Marked by a person (3 points)")
    for criterion in ("Decisions:", "Trade-offs:", "Remaining risks:", "0  for"):
        assert criterion in cell.source
    auto = _cell(ROOT / folder / "11-capstone" / "drill.ipynb", "test_architecture_note")
    assert "m11.check_note(" in auto.source and auto.metadata["nbgrader"]["grade"]


def test_design_rationale_is_marked_by_a_person() -> None:
    cell = _cell(ROOT / "drills" / "05b-design-outline" / "drill.ipynb", "answer_rationale")
    meta = cell.metadata["nbgrader"]
    assert cell.cell_type == "markdown" and meta["grade"] and meta["solution"]


def test_the_automatic_cell_wants_the_agents_own_figures() -> None:
    """Structure and own figures here; the spray rule (most quoted numbers must be measured) is
    m11.check_note's, tested with a real agent in test_grading_m11 and by the mutant
    tests/mutants/11-capstone/note_spray_of_numbers.py."""
    from minirt_course.capstone.note import check_note

    figures = {"bytes_per_step": 730.0, "events_per_run": 43.0}
    note = ("## Decisions\nEvery refund carries its effect key and is looked up after a loss.\n"
            "## Trade-offs\nThe journal takes about 730 bytes per step and 43 events per run.\n"
            "## Remaining risks\nThe sweep runs in simulation only, not against real providers.\n")
    assert check_note(note, figures).problems() == []
    moved = note.replace("730", "9999").replace("43", "7777")
    assert any("[note-figures]" in p for p in check_note(moved, figures).problems())


@pytest.mark.parametrize("folder", ["solutions", "drills"])
def test_drill01_explanation_is_marked_by_a_person_with_a_rubric(folder: str) -> None:
    """Drill 01's "explain it without jargon" answer: 2 points by hand, the rubric in the prompt
    cell just above it (the learner's copy keeps it; the answer cell itself is replaced)."""
    path = ROOT / folder / "01-run-state-machines" / "drill.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    at = next(i for i, c in enumerate(nb.cells)
              if c.metadata.get("nbgrader", {}).get("grade_id") == "answer_explain")
    cell, prompt = nb.cells[at], nb.cells[at - 1]
    meta = cell.metadata["nbgrader"]
    assert cell.cell_type == "markdown"
    assert (meta["grade"], meta["solution"], meta["points"]) == (True, True, 2)
    assert "Rubric (2 points, graded by hand)" in prompt.source and "0 for" in prompt.source
    if folder == "drills":
        assert cell.source.strip() == "YOUR ANSWER HERE"
