"""A grading that nbgrader refuses (the drill changed since it was graded here) leaves the previous
attempt exactly as it was: its submitted notebook, its autograded copy, its feedback and its
out-of-kernel result, byte for byte; the refused attempt appears nowhere under build/.

Before, the new notebook was copied into build/submitted (and the old feedback deleted) before
`generate_assignment` ran, so that the out-of-kernel grader could start early.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from minirt_course.course import nbgrade

pytestmark = pytest.mark.slow
SLUG = "01-run-state-machines"


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_refused_grading_keeps_the_previous_attempt_and_its_feedback(tmp_path: Path,
                                                                      course_copy) -> None:
    root = course_copy(tmp_path / "course", [SLUG])
    drill = root / "drills" / SLUG / "drill.ipynb"
    first = nbgrade.autograde_many("01", {"ada": drill}, root)["ada"]
    assert first.feedback_path is not None and first.feedback_path.is_file()
    build = root / "build"
    kept = {part: _tree(build / part / "ada" / SLUG)
            for part in ("submitted", "autograded", "feedback")}
    oracle_result = (build / "oracle" / SLUG / "ada.json").read_bytes()
    assert all(kept.values())

    src = root / "solutions" / SLUG / "drill.ipynb"  # a course update adds a graded cell
    nb = json.loads(src.read_text(encoding="utf-8"))
    nb["cells"].append({"cell_type": "markdown", "id": "added-by-update", "source": ["YOUR ANSWER"],
                        "metadata": {"nbgrader": {
                            "grade": True, "solution": True, "locked": False, "task": False,
                            "grade_id": "answer_added", "points": 1, "schema_version": 3}}})
    src.write_text(json.dumps(nb), encoding="utf-8")
    attempt = json.loads(drill.read_text(encoding="utf-8"))
    attempt["cells"].append(nb["cells"][-1])
    attempt["cells"][-1]["source"] = ["a new attempt, refused"]
    new = tmp_path / "attempt.ipynb"
    new.write_text(json.dumps(attempt), encoding="utf-8")

    with pytest.raises(nbgrade.DrillChangedSinceGraded):
        nbgrade.autograde_many("01", {"ada": new}, root)
    for part, files in kept.items():
        assert _tree(build / part / "ada" / SLUG) == files, part
    assert (build / "oracle" / SLUG / "ada.json").read_bytes() == oracle_result
    leftovers = [p for p in (build / "oracle" / SLUG).iterdir() if p.name.startswith(".")]
    assert leftovers == []
    assert not any(b"a new attempt, refused" in p.read_bytes()
                   for p in build.rglob("*.ipynb"))
