"""Every lesson and every drill source runs top to bottom without errors and without stderr.

Each notebook runs in a fresh python3 kernel of this interpreter (jupyter_client maps the
`python3` kernel to sys.executable), serially, with a 120 s bound per cell. Lessons run in
lessons/; a drill source runs in a temporary copy of its folder, because any file it left in
solutions/<slug>/ would be shipped to learners. Wall times go to build/notebook-times.json; a
lesson slower than 60 s fails (the course promises under a minute on 2 cores).

A notebook slower than SLOW_EXPLAIN_S explains itself: the kernel's start time and each cell's
time (from nbclient's public hooks, so nothing of the run changes) are printed (shown with the
test's output when it fails), written to build/notebook-slow/<name>.txt and named in a
SlowNotebook warning (in the run's warnings summary even when the test passes). This is a log,
never a bound: no time limit here changes because of it.
"""

from __future__ import annotations

import json
import re
import shutil
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
CELL_TIMEOUT = 120
LESSON_BUDGET_S = 60.0
TIMES = ROOT / "build" / "notebook-times.json"
SLOW_EXPLAIN_S = 30.0
SLOW_LOGS = ROOT / "build" / "notebook-slow"
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


class SlowNotebook(UserWarning):
    """A notebook took more than SLOW_EXPLAIN_S; the message holds its timing breakdown."""


@dataclass
class CellTimes:
    """Wall times of one notebook's execution, taken from nbclient's hooks (public traits).

    ``kernel_s``: from the start of execute() until the kernel answered (on_notebook_start, which
    nbclient calls once the client's wait_for_ready returned); ``cells``: (index, seconds, first
    source line) from on_cell_start to on_cell_executed of each code cell; ``shutdown_s``: from
    the last cell until on_notebook_complete (kernel shut down)."""

    started: float = field(default_factory=time.perf_counter)
    kernel_s: float | None = None
    cells: list[tuple[int, float, str]] = field(default_factory=list)
    shutdown_s: float | None = None
    _cell_started: float | None = None
    _last: float | None = None

    def attach(self, client: Any) -> None:
        client.on_notebook_start = self._kernel_ready
        client.on_cell_start = self._cell_start
        client.on_cell_executed = self._cell_done
        client.on_notebook_complete = self._complete

    def _kernel_ready(self, **_: Any) -> None:
        self._last = time.perf_counter()
        self.kernel_s = self._last - self.started

    def _cell_start(self, cell: Any, cell_index: int, **_: Any) -> None:
        self._cell_started = time.perf_counter()

    def _cell_done(self, cell: Any, cell_index: int, **_: Any) -> None:
        self._last = time.perf_counter()
        if self._cell_started is not None:
            first = next((ln.strip() for ln in cell.source.splitlines() if ln.strip()), "")
            self.cells.append((cell_index, self._last - self._cell_started, first[:80]))

    def _complete(self, **_: Any) -> None:
        if self._last is not None:
            self.shutdown_s = time.perf_counter() - self._last

    def report(self, rel: Path, seconds: float) -> str:
        def fmt(x: float | None) -> str:
            return "?" if x is None else f"{x:.2f} s"

        in_cells = sum(s for _, s, _ in self.cells)
        lines = [f"{rel}: {seconds:.1f} s in all; kernel start {fmt(self.kernel_s)}, "
                 f"{len(self.cells)} code cells {in_cells:.1f} s, shutdown {fmt(self.shutdown_s)}, "
                 f"other {seconds - in_cells - (self.kernel_s or 0) - (self.shutdown_s or 0):.1f} s"]
        lines += [f"  cell {i:3d}: {s:7.2f} s  {src}" for i, s, src in self.cells]
        return "\n".join(lines)

    def slowest(self, n: int = 5) -> str:
        top = sorted(self.cells, key=lambda c: -c[1])[:n]
        return ", ".join(f"cell {i} {s:.1f} s ({src[:40]})" for i, s, src in top)


def explain_if_slow(rel: Path, seconds: float, times: CellTimes) -> None:
    """Print, save and warn the breakdown of a notebook slower than SLOW_EXPLAIN_S."""
    if seconds <= SLOW_EXPLAIN_S:
        return
    text = times.report(rel, seconds)
    print(text)
    SLOW_LOGS.mkdir(parents=True, exist_ok=True)
    log = SLOW_LOGS / (str(rel).replace("/", "__").removesuffix(".ipynb") + ".txt")
    log.write_text(text + "\n", encoding="utf-8")
    warnings.warn(SlowNotebook(
        f"{rel} took {seconds:.1f} s (over {SLOW_EXPLAIN_S:.0f} s): kernel start "
        f"{times.kernel_s if times.kernel_s is None else round(times.kernel_s, 2)} s; slowest "
        f"{times.slowest()}; every cell: {log}"), stacklevel=2)


@pytest.mark.slow
@pytest.mark.parametrize("path", _params())
def test_notebook_runs_clean(path: Path, tmp_path: Path) -> None:
    from minirt_course.course.kernel_client import notebook_client

    nb = nbformat.read(str(path), as_version=4)
    is_lesson = path.parent == ROOT / "lessons"
    if is_lesson:
        cwd = path.parent
    else:
        cwd = tmp_path / path.parent.name
        shutil.copytree(path.parent, cwd)
    client = notebook_client(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(cwd)}},
    )
    times = CellTimes()
    times.attach(client)
    started = times.started = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - started
    _record_time(path, seconds)

    rel = path.relative_to(ROOT)
    explain_if_slow(rel, seconds, times)
    problems = problems_in(nb)
    if is_lesson:
        from test_study_blocks import contrast_output_problems

        problems += contrast_output_problems(nb)
    assert not problems, f"{rel}:\n  " + "\n  ".join(problems)
    if is_lesson:
        assert seconds <= LESSON_BUDGET_S, (
            f"{rel} took {seconds:.1f} s; a lesson must run in under {LESSON_BUDGET_S:.0f} s"
        )


def test_a_slow_notebook_explains_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The slow path's log, on a two-cell notebook with the threshold at 0 s: kernel start and
    every code cell named, in the warning and in the saved file."""
    from minirt_course.course.kernel_client import notebook_client

    monkeypatch.setattr(__import__(__name__), "SLOW_LOGS", tmp_path / "slow")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                         nbformat.v4.new_markdown_cell("text"),
                                         nbformat.v4.new_code_cell("y = x + 1\ny")])
    client = notebook_client(nb, timeout=CELL_TIMEOUT, kernel_name="python3")
    times = CellTimes()
    times.attach(client)
    client.execute()
    seconds = time.perf_counter() - times.started
    monkeypatch.setattr(__import__(__name__), "SLOW_EXPLAIN_S", 0.0)
    with pytest.warns(SlowNotebook, match=r"kernel start \d") as caught:
        explain_if_slow(Path("lessons/tiny.ipynb"), seconds, times)
    assert "cell 0 " in str(caught[0].message) and "cell 2 " in str(caught[0].message)
    saved = (tmp_path / "slow" / "lessons__tiny.txt").read_text()
    assert [ln.split(":")[0].strip() for ln in saved.splitlines()[1:]] == ["cell   0", "cell   2"]
    assert times.kernel_s is not None and times.kernel_s > 0 and times.shutdown_s is not None
