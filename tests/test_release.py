"""The learner release (tools/release.py): built by one command, greppable, and it runs.

The release is built once per session into a temporary folder, wheel included. The greps are
independent of the builder's own check: they read the solutions and hidden tests from solutions/
here and look for them in every file of the release and of the wheel.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import pytest
from test_notebooks import CellTimes, explain_if_slow

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import release  # noqa: E402

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release") / "out"
    release.build(out, wheel=True, progress=False)
    return out


def _hidden_regions() -> list[tuple[str, str]]:
    """(drill slug, source) of every hidden-test region in solutions/."""
    out = []
    for path in sorted((ROOT / "solutions").glob("*/drill.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            src = "".join(cell["source"])
            for block in re.findall(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", src, re.S):
                out.append((path.parent.name, block))
    return out


def _texts(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text(errors="replace")
            for p in folder.rglob("*") if p.is_file() and p.suffix in {".py", ".ipynb", ".md"}}


def test_release_holds_no_instructor_folder_or_marker(built: Path) -> None:
    texts = _texts(built)
    assert not [r for r in texts if r.split("/")[0] in {"solutions", "tests", "tools"}]
    assert not (built / "minirt_course" / "course" / "oracle.py").exists()
    assert not (built / "minirt_course" / "course" / "sandbox.py").exists()
    notebooks = {r: t for r, t in texts.items() if r.endswith(".ipynb")}
    assert len(notebooks) == len(list((ROOT / "lessons").glob("*.ipynb"))) + len(
        list((ROOT / "drills").glob("*/drill.ipynb")))
    for rel, text in {**notebooks, **{r: t for r, t in texts.items() if "/grading/" in r}}.items():
        for marker in MARKERS:
            assert marker not in text, f"{rel} holds {marker!r}"
    assert release.check(built) == []


def test_no_hidden_test_line_and_no_hidden_only_helper_in_the_release(built: Path) -> None:
    regions = _hidden_regions()
    assert len(regions) >= 12  # every drill has hidden tests; an empty list would test nothing
    public = release.public_lines()
    secret = {ln.strip() for _, b in regions for ln in b.splitlines()
              if len(ln.strip()) >= 25 and not ln.strip().startswith("#")} - public
    assert len(secret) > 50
    files = {r: {ln.strip() for ln in t.splitlines()} for r, t in _texts(built).items()}
    leaks = {r: sorted(secret & lines)[:2] for r, lines in files.items() if secret & lines}
    assert leaks == {}
    # helpers the hidden tests call and no learner notebook uses are not in the release
    visible = "\n".join("\n".join(release._code_cells(p)) for p in
                        [*sorted((ROOT / "drills").glob("*/drill.ipynb")),
                         *sorted((ROOT / "lessons").glob("*.ipynb"))])
    hidden_only = {(f"m{m}", name) for _, b in regions
                   for m, name in re.findall(r"\bm(\d\d)\.(\w+)", b)
                   if f"m{m}.{name}" not in visible}
    assert len(hidden_only) >= 10
    shipped, needed = [], []
    for module, name in sorted(hidden_only):
        text = (built / "minirt_course" / "grading" / f"{module}.py").read_text()
        if re.search(rf"^(def|class) {name}\b|^{name}\s*[:=]", text, re.M):
            # shipped only if another shipped definition of that module uses it
            others = [ln for ln in text.splitlines()
                      if re.search(rf"\b{name}\b", ln) and not re.match(rf"(def|class) {name}\b", ln)]
            (needed if others else shipped).append(f"{module}.{name}")
    assert shipped == [], f"hidden-only helpers shipped: {shipped}"
    assert len(needed) < len(hidden_only) / 4


def test_wheel_carries_the_notebooks_and_not_the_full_grading(built: Path) -> None:
    wheels = sorted((built / "dist").glob("minirt_course-*.whl"))
    assert len(wheels) == 1
    names = zipfile.ZipFile(wheels[0]).namelist()
    lessons = [n for n in names if n.startswith("minirt_course/course/material/lessons/")]
    drills = [n for n in names if re.match(r"minirt_course/course/material/drills/[^/]+/drill\.ipynb$", n)]
    assert len(lessons) == len(list((ROOT / "lessons").glob("*.ipynb")))
    assert len(drills) == len(list((ROOT / "drills").glob("*/drill.ipynb")))
    assert "minirt_course/course/material/nbgrader_config.py" in names
    assert not [n for n in names if n.startswith(("solutions/", "tests/"))]
    m01 = zipfile.ZipFile(wheels[0]).read("minirt_course/grading/m01.py").decode()
    assert len(m01) < len((ROOT / "minirt_course/grading/m01.py").read_text()) / 3


def _env(built: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(built)  # the release's minirt, before the editable checkout's
    env.pop("MINIRT_COURSE_ROOT", None)
    return env


def _start(built: Path, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "minirt_course.course.cli", "start", str(folder),
                           "--no-open"], env=_env(built), capture_output=True, text=True,
                          timeout=120, check=False, cwd=folder.parent)  # not the checkout


def test_start_copies_lessons_and_drills_and_keeps_the_learners_work(
        built: Path, tmp_path: Path) -> None:
    folder = tmp_path / "course"
    first = _start(built, folder)
    assert first.returncode == 0, first.stderr
    assert (folder / "lessons" / "00-start-here.ipynb").is_file()
    assert (folder / "drills" / "01-run-state-machines" / "drill.ipynb").is_file()
    assert (folder / "nbgrader_config.py").is_file() and not (folder / "solutions").exists()
    drill = folder / "drills" / "01-run-state-machines" / "drill.ipynb"
    drill.write_text(drill.read_text().replace("Drill 01", "Drill 01 (my copy)"))
    again = _start(built, folder)
    assert again.returncode == 0 and "kept" in again.stdout
    assert "(my copy)" in drill.read_text()


def test_start_in_a_clone_is_a_named_error(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "minirt_course.course.cli", "start", str(tmp_path / "x"),
                           "--no-open"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and "no course material" in proc.stderr


def _solved(slug: str, release_nb: Path, dest: Path) -> Path:
    """The release drill with every answer cell replaced by the solution's (markers removed)."""
    source = nbformat.read(str(ROOT / "solutions" / slug / "drill.ipynb"), as_version=4)
    answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in source.cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    nb = nbformat.read(str(release_nb), as_version=4)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell.source = "\n".join(ln for ln in answers[gid].splitlines()
                                    if "### BEGIN SOLUTION" not in ln
                                    and "### END SOLUTION" not in ln)
    nbformat.write(nb, str(dest))
    return dest


@pytest.mark.slow
def test_a_lesson_and_a_drills_visible_tests_run_from_the_release(
        built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from minirt_course.course.kernel_client import notebook_client

    folder = tmp_path / "course"
    assert _start(built, folder).returncode == 0
    for key, value in _env(built).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MINIRT_COURSE_ROOT", raising=False)

    lesson = nbformat.read(str(folder / "lessons" / "01-run-state-machines.ipynb"), as_version=4)
    probe = nbformat.v4.new_code_cell(
        f"import minirt, minirt_course.grading\nassert minirt.__file__.startswith({str(built)!r}), "
        "minirt.__file__")
    lesson.cells.insert(0, probe)
    client = notebook_client(lesson, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(folder / "lessons")}})
    times = CellTimes()  # a lesson over 30 s explains itself (kernel start, each cell's time)
    times.attach(client)
    client.execute()
    explain_if_slow(Path("release/lessons/01-run-state-machines.ipynb"),
                    time.perf_counter() - times.started, times)
    errors = [o for c in lesson.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error" or o.get("name") == "stderr"]
    assert errors == []

    from minirt_course.course import visible

    slug = "01-run-state-machines"
    drill = folder / "drills" / slug / "drill.ipynb"
    blank = visible.run_visible(drill)
    assert len(blank.cells) >= 3 and blank.passed < len(blank.cells)
    solved = visible.run_visible(_solved(slug, drill, drill.parent / "solved.ipynb"))
    assert [c for c in solved.cells if not c.passed] == []


def test_release_lessons_start_with_the_colab_cell(built: Path) -> None:
    lessons = sorted((built / "minirt_course" / "course" / "material" / "lessons").glob("*.ipynb"))
    assert len(lessons) == len(list((ROOT / "lessons").glob("*.ipynb")))
    for path in lessons:
        cells = json.loads(path.read_text())["cells"]
        assert cells[0]["id"] == release.COLAB_CELL_ID
        assert "".join(cells[0]["source"]) == release.colab_cell_source(release.wheel_name())
        assert sum(c.get("id") == release.COLAB_CELL_ID for c in cells) == 1
        assert cells[0]["outputs"] == []


def _run_colab_cell(monkeypatch: pytest.MonkeyPatch, on_colab: bool) -> tuple[list, dict]:
    import types

    from IPython.core.interactiveshell import InteractiveShell

    if on_colab:
        google = types.ModuleType("google")
        colab = types.ModuleType("google.colab")
        google.colab = colab  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "google", google)
        monkeypatch.setitem(sys.modules, "google.colab", colab)
    else:
        monkeypatch.setitem(sys.modules, "google.colab", None)  # import raises ImportError
    shell = InteractiveShell.instance()
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(shell, "run_line_magic", lambda name, line, *a, **k: calls.append(
        (name, shell.var_expand(line, 1))))
    shell.user_ns.pop("WHEEL", None)
    result = shell.run_cell(release.colab_cell_source("https://example.org/c.whl"))
    assert result.success, result.error_in_exec
    return calls, shell.user_ns


def test_colab_cell_installs_only_on_colab(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MINIRT_COURSE_WHEEL", raising=False)
    calls, ns = _run_colab_cell(monkeypatch, on_colab=False)
    assert calls == [] and "WHEEL" not in ns
    calls, ns = _run_colab_cell(monkeypatch, on_colab=True)
    assert calls == [("pip", "install -q https://example.org/c.whl")]
