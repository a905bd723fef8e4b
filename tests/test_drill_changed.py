"""A drill whose cells change after it was graded (a course update): a named error that says what
to do, and `reset NN` makes the next grade work, keeping the learner's notebook.

nbgrader refuses to regenerate an assignment that gained or lost cells while the gradebook holds
graded submissions of it; before, the learner saw only nbgrader's "Please see the above
traceback".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from minirt_course.course import nbgrade, reset

pytestmark = pytest.mark.slow
SLUG = "01-run-state-machines"


def test_a_changed_drill_is_named_and_reset_lets_it_grade_again(tmp_path: Path,
                                                                course_copy) -> None:
    root = course_copy(tmp_path / "course", [SLUG])
    drill = root / "drills" / SLUG / "drill.ipynb"
    first = nbgrade.autograde_many("01", {"ada": drill}, root, oracle=False)["ada"]
    assert first.score == 0  # the blank release, graded once
    src = root / "solutions" / SLUG / "drill.ipynb"
    nb = json.loads(src.read_text(encoding="utf-8"))
    nb["cells"].append({"cell_type": "markdown", "id": "added-by-update", "source": ["YOUR ANSWER"],
                        "metadata": {"nbgrader": {
                            "grade": True, "solution": True, "locked": False, "task": False,
                            "grade_id": "answer_added", "points": 1, "schema_version": 3}}})
    src.write_text(json.dumps(nb), encoding="utf-8")
    released = json.loads(drill.read_text(encoding="utf-8"))  # the update's new release
    released["cells"].append(nb["cells"][-1])
    drill.write_text(json.dumps(released), encoding="utf-8")
    with pytest.raises(nbgrade.DrillChangedSinceGraded, match=r"reset 01"):
        nbgrade.autograde_many("01", {"ada": drill}, root, oracle=False)
    todo = reset.plan("01", str(root))
    assert todo.assignments == [SLUG]
    assert any("gradebook's record" in s for s in todo.state)
    removed = reset.remove(todo, str(root))
    assert f"gradebook: {SLUG}" in removed and drill.is_file()
    again = nbgrade.autograde_many("01", {"ada": drill}, root, oracle=False)["ada"]
    assert again.score == 0 and again.max_score == first.max_score + 1  # the added cell
