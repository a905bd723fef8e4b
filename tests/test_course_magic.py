"""`%load_ext minirt_course.course.magic`: %grade and %progress inside a kernel, through the CLI's path."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_course_cli as cli_tests
from IPython.core.interactiveshell import InteractiveShell

from minirt_course.course import magic, nbgrade

SLUG, with_answer = cli_tests.SLUG, cli_tests.with_answer
tiny_template, course = cli_tests.tiny_template, cli_tests.course  # the CLI tests' fixtures


@pytest.fixture
def shell() -> InteractiveShell:
    sh = InteractiveShell.instance()
    sh.extension_manager.load_extension("minirt_course.course.magic")
    return sh


def test_grade_outside_a_drill_names_the_fix(
        course: Path, shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.chdir(course)
    shell.user_ns.pop("__session__", None)
    shell.run_line_magic("grade", "")
    out, err = capsys.readouterr()
    assert "this notebook is not a drill" in out and "%grade 01" in out and err == ""
    shell.run_line_magic("grade", "99")
    out, err = capsys.readouterr()
    assert "99" in out and err == ""


def test_open_drill_from_the_session_path(course: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = course / "drills" / SLUG / "drill.ipynb"
    monkeypatch.setenv("JPY_SESSION_NAME", str(nb))
    module, path = magic.open_drill({})
    assert (module.id, path) == ("01", nb)
    monkeypatch.setenv("JPY_SESSION_NAME", f"drills/{SLUG}/drill.ipynb")  # relative to the server
    monkeypatch.chdir(nb.parent)  # the kernel runs in the notebook's folder
    assert magic.open_drill({})[1] == nb


def test_progress_is_the_learners(course: Path, shell: InteractiveShell,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    shell.run_line_magic("progress", "")
    out, err = capsys.readouterr()
    assert "Course progress of tester" in out and "not graded" in out and err == ""


@pytest.mark.slow
def test_grade_grades_the_saved_drill_like_the_cli(
        course: Path, shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    drill = course / "drills" / SLUG / "drill.ipynb"
    with_answer(course, "def double(x):\n    return abs(2 * x)", drill)  # saved, half right
    monkeypatch.setenv("JPY_SESSION_NAME", str(drill))
    monkeypatch.chdir(drill.parent)
    shell.run_line_magic("grade", "")
    out, err = capsys.readouterr()
    assert err == ""
    assert "%grade 01: drill.ipynb as saved at" in out
    assert "test_hidden   0/1  FAIL  AssertionError: [negative-numbers]" in out
    assert "total         1/2" in out
    entries = nbgrade.read_evidence("01", course)
    assert [(e["score"], e["learner"]) for e in entries] == [(1.0, "tester")]
    shell.run_line_magic("progress", "")
    out, _ = capsys.readouterr()
    assert "1/2" in next(ln for ln in out.splitlines() if ln.startswith("  01 "))
