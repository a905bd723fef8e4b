"""Tampering submissions gain nothing: the score that counts is computed out of their reach.

Each ``tests/tamper/<slug>/<name>.py`` defines ``ANSWERS`` (grade_id -> answer cell source, the
other answer cells keep the reference solution) and ``MUST_FAIL`` (graded cells that must score
0). The fast tests run the out-of-kernel grader (``minirt_course.course.oracle``) alone; the slow ones
go through nbgrader too and check the final score (min of both), that a tampering technique
really wins in the kernel (so the defence is what stops it), and that a kernel-killing
submission in a batch of three leaves the other two graded.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import types
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from sampling import sample

from minirt_course.course import catalog, nbgrade, oracle

ROOT = Path(__file__).resolve().parents[1]
TAMPER = ROOT / "tests" / "tamper"


def _gid(cell: nbformat.NotebookNode) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _module(path: Path) -> types.ModuleType:
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(f"tamper_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(path.parent))
    return mod


def load(path: Path) -> tuple[dict[str, str], list[str], str]:
    mod = _module(path)
    assert mod.__doc__, f"{path}: say which tampering technique this is"
    return dict(mod.ANSWERS), list(mod.MUST_FAIL), mod.__doc__.strip().splitlines()[0]


def submission(slug: str, overrides: dict[str, str], dest: Path) -> Path:
    source = nbformat.read(str(ROOT / "solutions" / slug / "drill.ipynb"), as_version=4)
    sols = {_gid(c): nbgrade._strip_markers(c.source) for c in source.cells
            if c.get("metadata", {}).get("nbgrader", {}).get("solution")}
    nb = nbformat.read(str(ROOT / "drills" / slug / "drill.ipynb"), as_version=4)
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    for cell in nb.cells:
        gid = _gid(cell)
        if gid in overrides:
            cell.source = overrides[gid]
        elif gid in sols:
            cell.source = sols[gid]
    nbformat.write(nb, str(dest))
    return dest


CASES = sorted(p for p in TAMPER.glob("*/*.py") if not p.name.startswith("_"))
#: Tamper files graded per drill by default (a rotating sample, see tests/sampling.py); every
#: one with --full-sweeps. Drill 01's, the reference set the slow tests below build on, always.
PER_DRILL = 1
ALWAYS = "01-run-state-machines"


def _run_today() -> list[Path]:
    out: list[Path] = []
    for slug in sorted({c.parent.name for c in CASES}):
        group = [c for c in CASES if c.parent.name == slug]
        out += group if slug == ALWAYS else sample(group, PER_DRILL, slug, lambda q: q.stem)
    return out


RUN = _run_today()


def test_every_tamper_file_loads_and_names_graded_cells() -> None:
    """Every file, sampled today or not: a docstring, ANSWERS naming answer cells, MUST_FAIL."""
    for path in CASES:
        answers, must_fail, what = load(path)
        source = nbformat.read(str(ROOT / "solutions" / path.parent.name / "drill.ipynb"),
                               as_version=4)
        ids = {_gid(c) for c in source.cells}
        assert answers and must_fail and what, path
        assert set(answers) <= ids and set(must_fail) <= ids, (path, set(answers) | set(must_fail)
                                                              - ids)


@pytest.mark.parametrize("path", RUN, ids=[f"{p.parent.name}/{p.stem}" for p in RUN])
def test_tampering_gains_nothing_out_of_kernel(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Optional in a tamper file: ``LIMITS`` (oracle limits to lower, so a hang ends fast),
    ``MUST_NOT_EXIST`` (files the submission tries to write outside its process's folder) and
    ``MUST_SAY`` (grade id -> text the failure message must contain: the named reason)."""
    answers, must_fail, what = load(path)
    mod = _module(path)
    for name, value in getattr(mod, "LIMITS", {}).items():
        assert hasattr(oracle, name), name
        monkeypatch.setattr(oracle, name, value)
    forbidden = [Path(p) for p in getattr(mod, "MUST_NOT_EXIST", [])]
    for p in forbidden:
        p.unlink(missing_ok=True)
    slug = path.parent.name
    nb = submission(slug, answers, tmp_path / "drill.ipynb")
    result = oracle.run_oracle(catalog.get(slug).id, nb, ROOT)
    assert result.cells, f"{path.name}: no graded cell was reported"
    passed = [c.grade_id for c in result.cells if c.passed and c.grade_id in must_fail]
    assert not passed, f"{path.name} ({what}): scored out of kernel in {passed}"
    for c in result.cells:
        assert c.passed or c.message, f"{c.grade_id} failed without a reason"
    written = [str(p) for p in forbidden if p.exists()]
    for p in forbidden:
        p.unlink(missing_ok=True)
    assert not written, f"{path.name} ({what}): the submission wrote {written}"
    for gid, text in getattr(mod, "MUST_SAY", {}).items():
        msg = result.cell(gid).message or ""
        assert text in msg, f"{path.name}: {gid} should say {text!r}, says {msg!r}"


def test_reference_and_blank_out_of_kernel(tmp_path: Path) -> None:
    slug = "01-run-state-machines"
    ref = oracle.run_oracle("01", submission(slug, {}, tmp_path / "ref.ipynb"), ROOT)
    assert ref.cells and all(c.passed for c in ref.cells), [c for c in ref.cells if not c.passed]
    blank = oracle.run_oracle("01", ROOT / "drills" / slug / "drill.ipynb", ROOT)
    assert not any(c.passed for c in blank.cells)


def test_a_dead_process_is_named_with_its_exit_code(tmp_path: Path) -> None:
    nb = submission("01-run-state-machines", {"answer_apply": "import os\nos._exit(3)\n"},
                    tmp_path / "drill.ipynb")
    result = oracle.run_oracle("01", nb, ROOT)
    msg = result.cell("test_takeover").message or ""
    assert "exited with code 3" in msg and "answer_apply" in msg, msg
    assert result.cell("test_table").passed  # check() came before and still counts


def test_root_cause_names_the_learners_cell(tmp_path: Path) -> None:
    nb = submission("01-run-state-machines",
                    {"answer_check": "def check(run, event):\n    return (\n"},
                    tmp_path / "drill.ipynb")
    result = oracle.run_oracle("01", nb, ROOT, cell="test_table")
    msg = result.cell("test_table").message or ""
    assert msg.startswith("depends on answer_check, which did not run: SyntaxError"), msg
    assert "answer_check, line" in msg and "ipython-input" not in msg, msg


@pytest.mark.slow
def test_batch_of_three_with_a_kernel_killer(tmp_path: Path, course_copy: Callable) -> None:
    slug = "01-run-state-machines"
    root = course_copy(tmp_path / "course", [slug])
    subs = {"ref": submission(slug, {}, tmp_path / "ref.ipynb"),
            "killer": submission(slug, {"answer_check": "import os\nos._exit(0)\n"},
                                 tmp_path / "killer.ipynb"),
            "blank": root / "drills" / slug / "drill.ipynb"}
    reports = nbgrade.autograde_many("01", subs, root, one_per_run=True)
    assert reports["ref"].full_marks, [(c.grade_id, c.message) for c in reports["ref"].failing]
    assert reports["blank"].score == 0
    killer = reports["killer"]
    assert killer.cell("test_table").score == 0
    assert "exited with code 0" in (killer.cell("test_table").message or "")


@pytest.mark.slow
def test_tampering_wins_in_kernel_and_loses_in_the_final_score(
    tmp_path: Path, course_copy: Callable
) -> None:
    slug = "01-run-state-machines"
    root = course_copy(tmp_path / "course", [slug])
    cases = {p.stem: load(p) for p in CASES if p.parent.name == slug and "exit" not in p.stem}
    subs = {name.replace("_", "-"): submission(slug, answers, tmp_path / f"{name}.ipynb")
            for name, (answers, _, _) in cases.items()}
    reports = nbgrade.autograde_many("01", subs, root)
    problems = []
    for name, (_, must_fail, what) in cases.items():
        rep = reports[name.replace("_", "-")]
        for gid in must_fail:
            if rep.cell(gid).score != 0:
                problems.append(f"{name} ({what}): {gid} scored {rep.cell(gid).score:g}")
    assert not problems, "\n".join(problems)
    won = reports["input-transformer"]
    auto = [c for c in won.cells if not c.manual]  # manual cells wait for a person
    assert sum(c.in_kernel or 0 for c in auto) == won.auto_max_score, (
        "the input transformer no longer wins in the kernel: this test no longer shows the "
        "out-of-kernel score is what stops it"
    )
    assert all(c.out_of_kernel == 0 for c in auto)


def test_manual_points_count_neither_way_in_the_autograded_total() -> None:
    """05b's rationale (2 manual points, 0 until an instructor grades it) must not make a mutant
    that keeps every autograded point look below full marks."""
    cells = [nbgrade.CellResult("test_a", 1.0, 1.0, None, 1.0, 1.0),
             nbgrade.CellResult("test_b", 1.0, 1.0, None, 1.0, 1.0),
             nbgrade.CellResult("answer_rationale", 0.0, 2.0, "needs manual grading", None, None,
                                manual=True)]
    rep = nbgrade.GradeReport("05b", "05b-design-outline", "x", cells, 2.0, 4.0, None,
                              Path("a"), Path("b"))
    assert rep.score < rep.max_score  # the naive comparison calls this mutant caught
    assert rep.auto_score == rep.auto_max_score == 2.0 and rep.full_marks
