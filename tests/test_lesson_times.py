"""The time estimates are checked against the notebooks and against reality.

- Each lesson's header states "about NN min"; NN must equal the catalog's minutes for that
  module (the route map in lessons/00-start-here and the README read the catalog).
- Each lesson's measured run time, read from build/notebook-times.json (written by
  tests/test_notebooks.py when it executes the notebooks), must be under 60 s. When that file or
  the lesson's entry is missing, or the lesson changed after the file was written, the check is
  skipped with the reason: run `pytest -m slow tests/test_notebooks.py` first, then this file
  (tests/test_notebooks.py sorts after this file, so a single `pytest` run reads the times of
  the previous run).

Appendices (lessons/appendix-*) are not catalog modules: only their run time is checked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from minirt_course.course import catalog

ROOT = Path(__file__).resolve().parents[1]
TIMES = ROOT / "build" / "notebook-times.json"
BUDGET_S = 60.0
ABOUT = re.compile(r"\babout\s+(\d+)\s*min\b", re.I)


def _lessons() -> list[Path]:
    return sorted((ROOT / "lessons").glob("*.ipynb"))


def _ids(p: Path) -> str:
    return p.name


def stated_minutes(nb: nbformat.NotebookNode) -> int | None:
    """The NN of "about NN min" in the notebook's first markdown cell (its header)."""
    header = next((c.source for c in nb.cells if c.cell_type == "markdown"), "")
    found = ABOUT.search(header)
    return int(found.group(1)) if found else None


def _module_of(path: Path) -> catalog.Module | None:
    return next((m for m in catalog.MODULES if m.slug == path.stem), None)


@pytest.mark.parametrize("path", _lessons(), ids=_ids)
def test_header_minutes_match_the_catalog(path: Path) -> None:
    module = _module_of(path)
    if module is None:
        if path.name.startswith("appendix"):
            pytest.skip("appendices are not catalog modules")
        pytest.fail(f"{path.name} is in lessons/ but no catalog module has the slug {path.stem!r}")
    stated = stated_minutes(nbformat.read(str(path), as_version=4))
    assert stated is not None, f'{path.name}: the header cell does not say "about NN min"'
    assert stated == module.minutes, (
        f"{path.name}: the header says about {stated} min, the catalog says {module.minutes}"
    )


@pytest.mark.parametrize("path", _lessons(), ids=_ids)
def test_lesson_runs_in_under_a_minute(path: Path) -> None:
    if not TIMES.is_file():
        pytest.skip(f"{TIMES.relative_to(ROOT)} is missing: run tests/test_notebooks.py first")
    try:
        times = json.loads(TIMES.read_text(encoding="utf-8"))
    except ValueError as exc:
        pytest.fail(f"{TIMES.relative_to(ROOT)} is not valid JSON: {exc}")
    key = path.relative_to(ROOT).as_posix()
    if key not in times:
        pytest.skip(f"{key} has not been timed yet: run tests/test_notebooks.py first")
    if path.stat().st_mtime > TIMES.stat().st_mtime:
        pytest.skip(f"{key} changed after it was timed: run tests/test_notebooks.py again")
    seconds = float(times[key])
    assert seconds < BUDGET_S, f"{key} took {seconds:.1f} s; a lesson must run in under 60 s"


def test_stated_minutes_are_read_from_the_header_only() -> None:
    from nbformat.v4 import new_markdown_cell, new_notebook

    nb = new_notebook()
    nb.cells = [new_markdown_cell("# 03\n\n*About 28 min.* · x"), new_markdown_cell("about 5 min")]
    assert stated_minutes(nb) == 28
    nb.cells = [new_markdown_cell("# no estimate"), new_markdown_cell("about 5 min")]
    assert stated_minutes(nb) is None
