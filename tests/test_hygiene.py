"""Repository hygiene: stripped notebooks, unique grade ids, nothing but notebooks in solutions/,
ruff, a current README course map, and the nbgrader settings grading honesty relies on."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import nbformat
import pytest

from minirt_course.course import catalog

ROOT = Path(__file__).resolve().parents[1]


def _nbtool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("nbtool", ROOT / "tools" / "nbtool.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


nbtool = _nbtool()
SLUGS = {m.slug for m in catalog.MODULES}
DRILL_SLUGS = {m.slug for m in catalog.MODULES if m.has_drill}


def test_notebooks_have_no_outputs_or_execution_counts() -> None:
    bad = nbtool.verify(ROOT)
    assert not bad, "run `python tools/nbtool.py strip`:\n" + "\n".join(
        f"{p.relative_to(ROOT)}: {'; '.join(problems)}" for p, problems in bad.items()
    )


def _drill_notebooks() -> list[Path]:
    return sorted([*ROOT.glob("solutions/*/*.ipynb"), *ROOT.glob("drills/*/*.ipynb")])


@pytest.mark.parametrize(
    "path",
    _drill_notebooks() or [pytest.param(None, marks=pytest.mark.skip(reason="no drills yet"))],
    ids=lambda p: str(p.relative_to(ROOT)) if p else "none",
)
def test_grade_ids_are_unique(path: Path) -> None:
    nb = nbformat.read(str(path), as_version=4)
    ids = [
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    ]
    dupes = sorted(g for g, n in Counter(ids).items() if n > 1)
    assert not dupes, f"{path.relative_to(ROOT)}: duplicated grade_id(s) {dupes}"


def test_solutions_hold_only_drill_notebooks_of_known_modules() -> None:
    """nbgrader copies any other file in solutions/<slug>/ to every learner."""
    problems = []
    for path in sorted((ROOT / "solutions").rglob("*")):
        rel = path.relative_to(ROOT)
        if path.is_dir():
            if path.parent == ROOT / "solutions" and path.name not in DRILL_SLUGS:
                problems.append(f"{rel}/: not the slug of a module with a drill")
            elif path.parent != ROOT / "solutions":
                problems.append(f"{rel}/: no sub-folders in a drill source")
            continue
        if path.name == ".gitkeep" and path.parent == ROOT / "solutions":
            continue
        if (
            path.suffix != ".ipynb"
            or path.name != "drill.ipynb"
            or path.parent.parent != ROOT / "solutions"
        ):
            problems.append(f"{rel}: only solutions/<slug>/drill.ipynb belongs here")
    assert not problems, "\n".join(problems)


def test_every_release_has_a_source_and_lessons_use_catalog_slugs() -> None:
    problems = []
    for path in sorted((ROOT / "drills").glob("*/")):
        if path.is_dir() and not (ROOT / "solutions" / path.name / "drill.ipynb").is_file():
            problems.append(f"drills/{path.name}/ has no solutions/{path.name}/drill.ipynb")
    for path in sorted((ROOT / "solutions").glob("*/drill.ipynb")):
        if not (ROOT / "drills" / path.parent.name / "drill.ipynb").is_file():
            problems.append(
                f"{path.relative_to(ROOT)} has no release: run `python tools/nbtool.py drills`"
            )
    for path in sorted((ROOT / "lessons").glob("*.ipynb")):
        if path.stem not in SLUGS and not path.stem.startswith("appendix-"):
            problems.append(
                f"lessons/{path.name}: neither <slug>.ipynb of a catalog module nor appendix-*.ipynb"
            )
    assert not problems, "\n".join(problems)


def test_ruff_is_clean() -> None:
    targets = [d for d in ("minirt", "minirt_course", "tests", "tools", "benchmarks", "lessons", "solutions")
               if (ROOT / d).exists()]
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", *targets],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_readme_course_map_is_current() -> None:
    assert nbtool.readme_map(ROOT, check=True), (
        "README.md course map is out of date: run `python tools/nbtool.py readme-map`"
    )


def test_feedback_clears_hidden_tests_then_keeps_nbgraders_defaults() -> None:
    from nbgrader.converters import GenerateFeedback
    from traitlets.config.loader import PyFileConfigLoader
    from traitlets.utils.importstring import import_item

    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    configured = list(cfg.GenerateFeedback.preprocessors)
    assert configured[0] == "nbgrader.preprocessors.ClearHiddenTests"
    resolved = [import_item(name) for name in configured[1:]]
    assert resolved == GenerateFeedback.class_traits()["preprocessors"].default(), (
        "after ClearHiddenTests, keep nbgrader's own default feedback preprocessors"
    )
    assert cfg.CourseDirectory.source_directory == "solutions"
    assert cfg.CourseDirectory.release_directory == "drills"
    assert cfg.Execute.timeout == 120 and cfg.ExecutePreprocessor.timeout == 120


def test_gitignore_keeps_local_state_out() -> None:
    lines = (ROOT / ".gitignore").read_text().split()
    assert ".minirt/" in lines and "build/" in lines


DRILL_AS_TEXT = """# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# %xmode Minimal
import math

# %% [markdown]
# Write `double(x)`.

# %% nbgrader={"grade": false, "grade_id": "answer_double", "locked": false, "schema_version": 3, "solution": true}
def double(x):
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_double", "locked": true, "points": 1, "schema_version": 3, "solution": false}
assert double(3) == 6, "[doubles] double(3) should be 6"
### BEGIN HIDDEN TESTS
assert double(-7) == -14, "[negative-numbers] double keeps the sign"
### END HIDDEN TESTS
"""


def test_py_notebook_round_trip_keeps_nbgrader_metadata_and_ids(tmp_path: Path) -> None:
    pytest.importorskip("jupytext", reason="jupytext not installed (tools/nbtool.py needs it)")
    src = tmp_path / "drill.py"
    src.write_text(DRILL_AS_TEXT)
    nb_path = nbtool.new_py2nb(src, tmp_path / "drill.ipynb")
    nb = nbformat.read(str(nb_path), as_version=4)
    nbformat.validate(nb)
    assert [c.id for c in nb.cells] == ["c00", "c01", "c02", "c03"]
    assert [c.cell_type for c in nb.cells] == ["code", "markdown", "code", "code"]
    assert nb.cells[0].source == "%xmode Minimal\nimport math"  # the magic is restored
    assert nb.cells[3].metadata["nbgrader"] == {
        "grade": True,
        "grade_id": "test_double",
        "locked": True,
        "points": 1,
        "schema_version": 3,
        "solution": False,
    }
    assert "jupytext" not in nb.metadata and nb.metadata["kernelspec"]["name"] == "python3"
    assert nbtool.dirty_cells(nb) == []
    # notebook -> text -> notebook is the identity, and so is text -> notebook -> text
    back = nbtool.nb2py(nb_path, tmp_path / "back.py")
    assert back.read_text() == DRILL_AS_TEXT
    again = nbtool.new_py2nb(back, tmp_path / "again.ipynb")
    assert again.read_bytes() == nb_path.read_bytes()
