"""Run a drill's visible tests where the hidden ones are not (a learner's installed course).

In the learner release there is no solutions/ folder, so nbgrader cannot autograde: the hidden
tests are with the instructor. :func:`run_visible` executes the drill notebook as saved (nbclient,
a fresh kernel, its own folder as the working directory) and reports each graded test cell of the
release as passed (ran without an error) or failed (the first line of its error).

Guarantees: the notebook file is not modified; nothing is recorded. Does not guarantee a score:
a cell whose visible asserts pass may still fail the instructor's hidden tests, and the report
says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["VisibleCell", "VisibleReport", "run_visible"]


@dataclass(frozen=True)
class VisibleCell:
    grade_id: str
    points: float
    passed: bool
    message: str = ""


@dataclass(frozen=True)
class VisibleReport:
    notebook: Path
    cells: tuple[VisibleCell, ...]

    @property
    def passed(self) -> int:
        return sum(c.passed for c in self.cells)


def _error_line(cell: dict) -> str:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            value = str(out.get("evalue", "")).strip().splitlines()
            return f"{out.get('ename', 'Error')}: {value[0]}" if value else out.get("ename", "")
    return ""


def run_visible(notebook: str | os.PathLike[str], *, timeout: int = 120) -> VisibleReport:
    """Execute `notebook` in a fresh kernel; the verdict of each graded test cell."""
    import nbformat

    from .kernel_client import notebook_client

    path = Path(notebook).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no notebook at {path}")
    nb = nbformat.read(str(path), as_version=4)
    client = notebook_client(nb, timeout=timeout, allow_errors=True, kernel_name="python3",
                             resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    cells = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        message = _error_line(cell)
        cells.append(VisibleCell(str(meta.get("grade_id", "?")), float(meta.get("points", 0)),
                                 not message, message))
    return VisibleReport(path, tuple(cells))
