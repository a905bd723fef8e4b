"""Every lesson and every drill source runs top to bottom without errors and without stderr.

Each notebook runs in a fresh python3 kernel of this interpreter (jupyter_client maps the
`python3` kernel to sys.executable), serially, with a 120 s bound per cell. Lessons run in
lessons/; a drill source runs in a temporary copy of its folder, because any file it left in
solutions/<slug>/ would be shipped to learners. Wall times go to build/notebook-times.json; a
lesson slower than 60 s fails (the course promises under a minute on 2 cores).
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
CELL_TIMEOUT = 120
LESSON_BUDGET_S = 60.0
TIMES = ROOT / "build" / "notebook-times.json"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _notebooks() -> list[Path]:
    return sorted(ROOT.glob("lessons/*.ipynb")) + sorted(ROOT.glob("solutions/*/drill.ipynb"))


def _params() -> list:
    found = _notebooks()
    if not found:
        return [pytest.param(None, id="none", marks=pytest.mark.skip(reason="no notebooks yet"))]
    return [pytest.param(p, id=str(p.relative_to(ROOT))) for p in found]


def _first_line(text: str) -> str:
    for line in _ANSI.sub("", text).splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def problems_in(nb: nbformat.NotebookNode) -> list[str]:
    """'cell N: ...' for every error output and every stderr stream in an executed notebook."""
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error":
                out.append(f"cell {i}: {o.get('ename')}: {_first_line(str(o.get('evalue', '')))}")
            elif o.get("output_type") == "stream" and o.get("name") == "stderr":
                out.append(f"cell {i}: wrote to stderr: {_first_line(str(o.get('text', '')))}")
    return out


def _record_time(path: Path, seconds: float) -> None:
    TIMES.parent.mkdir(parents=True, exist_ok=True)
    try:
        times = json.loads(TIMES.read_text()) if TIMES.is_file() else {}
    except ValueError:
        times = {}
    times[str(path.relative_to(ROOT))] = round(seconds, 2)
    TIMES.write_text(json.dumps(dict(sorted(times.items())), indent=2) + "\n")


@pytest.mark.slow
@pytest.mark.parametrize("path", _params())
def test_notebook_runs_clean(path: Path, tmp_path: Path) -> None:
    from nbclient import NotebookClient

    nb = nbformat.read(str(path), as_version=4)
    is_lesson = path.parent == ROOT / "lessons"
    if is_lesson:
        cwd = path.parent
    else:
        cwd = tmp_path / path.parent.name
        shutil.copytree(path.parent, cwd)
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(cwd)}},
    )
    started = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - started
    _record_time(path, seconds)

    rel = path.relative_to(ROOT)
    problems = problems_in(nb)
    if is_lesson:
        from test_study_blocks import contrast_output_problems

        problems += contrast_output_problems(nb)
    assert not problems, f"{rel}:\n  " + "\n  ".join(problems)
    if is_lesson:
        assert seconds <= LESSON_BUDGET_S, (
            f"{rel} took {seconds:.1f} s; a lesson must run in under {LESSON_BUDGET_S:.0f} s"
        )
