"""The learner's loop inside JupyterLab: `%load_ext minirt_course.course.magic`, then `%grade`, `%progress`.

    %grade              grade the drill this notebook is (drills/<slug>/drill.ipynb), as saved
    %grade 03           grade drill 03 (its default notebook)
    %grade 03 --cell test_replay     any `minirt-course grade` option
    %progress           this learner's progress (`%progress --all`: every learner)

Each line magic runs `minirt-course` in a child process with this kernel's interpreter, the same
path as `./course grade` (nbgrader, the out-of-kernel score, the evidence log), and prints what
it prints. A magic rather than a JupyterLab extension: it needs no frontend build or npm, works
wherever an IPython kernel runs (JupyterLab, classic notebook, Colab, VS Code), and cannot drift
from the command line, since it is the command line.

Guarantees: the grade is of the notebook file as saved on disk (the magic prints when it was
last saved, so an unsaved edit shows); nothing is written to stderr (the child's stderr is
shown on stdout); the kernel's own state is never graded. Does not guarantee which notebook is
"open" beyond what the kernel is told: the Jupyter server's session path (JPY_SESSION_NAME or
IPython's ``__session__``), else the working directory when it is a drill's folder.
"""

from __future__ import annotations

import datetime as _dt
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from minirt_course.course import catalog

__all__ = ["load_ipython_extension", "open_drill", "run_course"]


def _session_path(user_ns: dict[str, Any] | None) -> Path | None:
    for value in (os.environ.get("JPY_SESSION_NAME"), (user_ns or {}).get("__session__")):
        if value and str(value).endswith(".ipynb"):
            path = Path(str(value))
            if not path.is_absolute():
                path = Path.cwd() / path.name if not path.exists() else path.resolve()
            return path
    return None


def open_drill(user_ns: dict[str, Any] | None = None) -> tuple[catalog.Module, Path]:
    """The drill this kernel's notebook is, and the notebook file; ValueError if none."""
    path = _session_path(user_ns)
    folder = path.parent if path is not None else Path.cwd()
    for module in catalog.MODULES:
        if module.has_drill and folder.name == module.slug:
            notebook = path if path is not None else folder / "drill.ipynb"
            return module, notebook
    raise ValueError("this notebook is not a drill (drills/<slug>/drill.ipynb): name the drill, "
                     "e.g. %grade 01")


def run_course(args: list[str], cwd: Path | None = None) -> int:
    """Run `minirt-course ARGS` with this interpreter; print its stdout and stderr on stdout."""
    proc = subprocess.Popen([sys.executable, "-m", "minirt_course.course.cli", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    for line in proc.stdout:  # line by line: nbgrader takes a while, the first line says so
        print(line, end="", flush=True)
    return proc.wait()


def _saved(path: Path) -> str:
    when = _dt.datetime.fromtimestamp(path.stat().st_mtime).strftime("%H:%M:%S")
    return f"{path.name} as saved at {when} (save with Ctrl-S first to grade your latest edits)"


def grade(line: str, user_ns: dict[str, Any] | None = None) -> int:
    """`%grade [ID] [minirt-course grade options]`."""
    words = shlex.split(line)
    if words and not words[0].startswith("-"):
        try:
            catalog.get(words[0])
        except catalog.UnknownModule as exc:
            print(f"%grade: {exc}")
            return 2
        return run_course(["grade", *words])
    try:
        module, notebook = open_drill(user_ns)
    except ValueError as exc:
        print(f"%grade: {exc}")
        return 2
    if not notebook.is_file():
        print(f"%grade: {notebook} is not saved yet")
        return 2
    print(f"%grade {module.id}: {_saved(notebook)}")
    return run_course(["grade", module.id, "--notebook", str(notebook), *words],
                      cwd=notebook.parent)


def progress(line: str) -> int:
    """`%progress [--learner NAME | --all]`."""
    return run_course(["progress", *shlex.split(line)])


def load_ipython_extension(ipython: Any) -> None:
    """Register %grade and %progress (IPython calls this on `%load_ext minirt_course.course.magic`)."""
    ipython.register_magic_function(lambda line: _quiet(grade(line, ipython.user_ns)),
                                    "line", "grade")
    ipython.register_magic_function(lambda line: _quiet(progress(line)), "line", "progress")


def _quiet(rc: int) -> None:
    """Magics return None so the cell shows no `Out[]` value; the exit code is in the text."""
    if rc not in (0,):
        print(f"(minirt-course exited with {rc})")
