"""The course home: the route map, the question entry points, local progress and evidence.

Grading uses the tiny self-made drill of tests/test_course_cli.py (its fixtures and helpers are
imported, not copied), so these tests do not depend on any module's real drill.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from test_course_cli import course, run_cli, tiny_template, with_answer  # noqa: F401

from minirt_course.course import catalog, nbgrade
from minirt_course.course.route_map import (
    ATTEMPTED,
    FULL_MARKS,
    NOT_STARTED,
    PLANNED,
    START,
    BadRowWidth,
    route_map,
    status_counts,
    statuses,
)

ROOT = Path(__file__).resolve().parents[1]
HOME = ROOT / "lessons" / "00-start-here.ipynb"
FILL = {
    START: "#dbeafe",
    NOT_STARTED: "#ffffff",
    ATTEMPTED: "#fde68a",
    FULL_MARKS: "#bbf7d0",
    PLANNED: "#f3f4f6",
}
QUESTIONS = {
    "My agent charged a customer twice after a restart.": "04",
    "A cancelled run kept sending emails.": "08",
    "The approval was for a different amount.": "06",
    "Two workers both finished the same run.": "01",
    "After a deploy my replay blew up.": "03",
    "The refund ran but the booking is still there.": "05",
    "My agent ran up a huge bill in a loop.": "09",
    "I can't tell what happened during recovery.": "10",
}


def _fills(dot: str) -> dict[str, str]:
    """module id -> fillcolor, read from the DOT text of a route map."""
    return dict(re.findall(r'^\s*m(\w+) \[label=.*?fillcolor="(#[0-9a-f]{6})"', dot, re.M))


def _course_folder(tmp_path: Path, lessons: list[str], drills: list[str] = ()) -> Path:
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    for mid in lessons:
        path = catalog.lesson_path(mid, tmp_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    for mid in drills:
        path = catalog.solution_path(mid, tmp_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    return tmp_path


# --------------------------------------------------------------------------- the route map


def test_route_map_colours_every_module_by_its_progress(tmp_path: Path) -> None:
    root = _course_folder(tmp_path, ["00", "01", "02", "03", "04"], drills=["05b"])
    progress = {
        "01": {"score": 3.0, "max": 4.0, "best": 3.0, "attempts": 2},
        "02": {"score": 2.0, "max": 4.0, "best": 4.0, "attempts": 3},  # full marks once
        "04": {"score": 5.0, "max": 5.0, "best": 5.0, "attempts": 1},
        "07": {"score": 1.0, "max": 1.0, "best": 1.0},  # graded, but the lesson is gone
    }
    dot = route_map(progress, root=root).source
    want = {m.id: PLANNED for m in catalog.MODULES}
    want.update({"00": START, "01": ATTEMPTED, "02": FULL_MARKS, "03": NOT_STARTED})
    want.update({"04": FULL_MARKS, "05b": NOT_STARTED})  # a drill without a lesson is open
    assert _fills(dot) == {mid: FILL[status] for mid, status in want.items()}
    flat = dot.replace("\\n", " ")
    for m in catalog.MODULES:
        assert f"{m.id} · {m.title}" in flat and f"about {m.minutes} min" in flat
    assert "last 3/4" in dot and "last 2/4 (best 4)" in dot
    assert dot.count("->") == len(catalog.MODULES) - 1 + 3  # the route, plus 3 invisible ties


def test_route_map_is_deterministic_and_draws_the_course_order(tmp_path: Path) -> None:
    root = _course_folder(tmp_path, ["01"])
    first = route_map({}, root=root).source
    assert first == route_map({}, root=root).source
    ids = re.findall(r"^\s*m(\w+) \[label=", first, re.M)
    assert sorted(ids, key=catalog.module_ids().index) == catalog.module_ids()
    edges = re.findall(r"^\s*m(\w+) -> m(\w+)(.*)$", first, re.M)
    route = [(a, b) for a, b, attrs in edges if "invis" not in attrs]
    ordered = catalog.module_ids()
    assert route == list(zip(ordered, ordered[1:], strict=False))


def test_bad_row_width_is_a_named_error(tmp_path: Path) -> None:
    root = _course_folder(tmp_path, ["01"])
    with pytest.raises(BadRowWidth, match="at least 1; got 0") as caught:
        route_map({}, root=root, per_row=0)
    assert caught.value.per_row == "0"
    assert route_map({}, root=root, per_row=13).source.count("invis") == 0


def test_damaged_progress_file_reads_as_nothing_graded(tmp_path: Path) -> None:
    root = _course_folder(tmp_path, ["01"])
    (root / ".minirt").mkdir()
    (root / ".minirt" / "progress.json").write_text("{ not json")
    assert statuses(root=root)["01"] == NOT_STARTED
    (root / ".minirt" / "progress.json").write_text(
        json.dumps({"modules": {"01": {"score": "x", "max": None}}})
    )
    assert statuses(root=root)["01"] == ATTEMPTED  # a record exists; its numbers do not count
    assert _fills(route_map(root=root).source)["01"] == FILL[ATTEMPTED]


def test_status_counts_add_up_to_the_catalog(tmp_path: Path) -> None:
    root = _course_folder(tmp_path, ["00", "01", "02"])
    counts = status_counts({"01": {"score": 1, "max": 1}}, root)
    assert sum(n for n, _ in counts.values()) == len(catalog.MODULES)
    assert sum(minutes for _, minutes in counts.values()) == sum(m.minutes for m in catalog.MODULES)
    assert counts[FULL_MARKS] == (1, catalog.get("01").minutes)
    assert counts[NOT_STARTED] == (1, catalog.get("02").minutes)


# --------------------------------------------------------------------------- lesson 00


def _home_questions() -> list[tuple[str, str]]:
    nb = nbformat.read(str(HOME), as_version=4)
    section = next(c.source for c in nb.cells
                   if re.search(r"^##.*Begin with a question", c.source, re.M))
    return re.findall(r'^- "(.+?)" → \[.+?\]\((.+?)\.ipynb\)', section, re.M)


def test_question_entry_points_point_at_catalog_modules() -> None:
    pairs = _home_questions()
    slugs = {m.slug: m.id for m in catalog.MODULES}
    assert pairs, "lesson 00 has no question entry points"
    unknown = [(q, s) for q, s in pairs if s not in slugs]
    assert not unknown, f"questions that point at no catalog module: {unknown}"
    got = {q: slugs[s] for q, s in pairs}
    for question, module_id in QUESTIONS.items():
        assert got.get(question) == module_id, f"{question!r} should lead to {module_id}"


def test_home_header_states_the_catalog_minutes_and_the_local_promise() -> None:
    nb = nbformat.read(str(HOME), as_version=4)
    header = " ".join(nb.cells[0].source.split())
    assert f"about {catalog.get('00').minutes} min" in header
    assert "Progress is optional and stays in your checkout: nothing is sent anywhere." in header


def test_progress_stays_in_the_checkout_and_out_of_git(repo_root: Path) -> None:
    lay = nbgrade.layout(repo_root)
    assert lay.state == repo_root / ".minirt"
    assert ".minirt/" in (repo_root / ".gitignore").read_text().splitlines()


# --------------------------------------------------------------------------- with real grading


@pytest.mark.slow
def test_map_and_progress_command_read_the_same_file_and_evidence_keeps_both_attempts(
    course: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert statuses()["01"] == NOT_STARTED  # nothing graded yet, no progress file
    assert not (course / ".minirt" / "progress.json").exists()

    wrong = with_answer(course, "def double(x):\n    return abs(2 * x)", tmp_path / "w.ipynb")
    rc, _, err = run_cli(capsys, "grade", "01", "--notebook", str(wrong))
    assert (rc, err) == (0, "")
    assert statuses()["01"] == ATTEMPTED
    rc, out, _ = run_cli(capsys, "progress")
    assert "1/2" in next(line for line in out.splitlines() if line.startswith("  01 "))

    # The map reads the file the command wrote: change the file, both follow.
    path = course / ".minirt" / "progress.json"
    data = json.loads(path.read_text())
    data["modules"]["01"].update(score=2.0, best=2.0)
    path.write_text(json.dumps(data))
    assert statuses()["01"] == FULL_MARKS
    out = run_cli(capsys, "progress")[1]
    assert "2/2" in next(line for line in out.splitlines() if line.startswith("  01 "))

    right = with_answer(course, "def double(x):\n    return x + x", tmp_path / "r.ipynb")
    rc, _, _ = run_cli(capsys, "grade", "01", "--notebook", str(right))
    assert rc == 0 and statuses()["01"] == FULL_MARKS
    assert _fills(route_map().source)["01"] == FILL[FULL_MARKS]

    entries = nbgrade.read_evidence("01")
    assert [(e["attempt"], e["score"], e["max"]) for e in entries] == [(1, 1.0, 2.0), (2, 2.0, 2.0)]
    failed, passed = entries
    assert failed["command"] == f"minirt-course grade 01 --notebook {wrong}"
    assert [f["grade_id"] for f in failed["failing"]] == ["test_hidden"]
    assert "[negative-numbers]" in failed["failing"][0]["message"]
    assert passed["failing"] == [] and passed["input"].endswith("r.ipynb")
    assert all((course / e["snapshot"]).is_file() for e in entries)


@pytest.mark.slow
@pytest.mark.parametrize("with_progress", [False, True], ids=["no-progress-file", "progress-file"])
def test_home_lesson_runs_with_or_without_a_progress_file(
    tmp_path: Path, with_progress: bool
) -> None:
    from test_notebooks import problems_in

    from minirt_course.course.kernel_client import notebook_client

    root = tmp_path / "course"
    root.mkdir()
    for name in ("nbgrader_config.py", ".gitignore"):
        shutil.copy2(ROOT / name, root / name)
    (root / "lessons").mkdir()
    shutil.copy2(HOME, root / "lessons" / HOME.name)
    slug = catalog.get("01").slug
    for part in ("solutions", "drills"):
        shutil.copytree(ROOT / part / slug, root / part / slug)
    if with_progress:
        (root / ".minirt").mkdir()
        (root / ".minirt" / "progress.json").write_text(
            json.dumps({"version": 1, "modules": {"01": {"score": 8, "max": 8, "best": 8}}})
        )
    nb = nbformat.read(str(root / "lessons" / HOME.name), as_version=4)
    notebook_client(
        nb, timeout=120, kernel_name="python3", allow_errors=True,
        resources={"metadata": {"path": str(root / "lessons")}},
    ).execute()  # fmt: skip
    assert problems_in(nb) == []
    text = "".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
    )
    assert f"course folder: {root}" in text
    graded = "modules graded so far: ['01']" if with_progress else "modules graded so far: none"
    assert graded in text
    row = re.search(r"^ 01\s+27 min\s+(\w[\w ]*?)\s{2}", text, re.M)
    assert row is not None and row.group(1) == ("full marks" if with_progress else "not started")
    assert not (root / ".minirt" / "evidence").exists()  # the demo grades a scratch copy only
