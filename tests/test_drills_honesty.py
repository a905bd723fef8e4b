"""Every drill grades honestly, checked with real nbgrader in a temporary copy of the course.

For each solutions/<slug>/drill.ipynb:
(a) the committed drills/<slug>/drill.ipynb equals a fresh `nbgrader generate_assignment`;
(b) one batched autograde (nbgrader, plus the out-of-kernel grader for each submission: the
    score of a cell is the lower of the two, see minirt_course.course.oracle) of: "ref" (the release with every answer cell filled back in from the
    source by grade_id), "blank" (the release as committed) and one learner per wrong answer in
    tests/mutants/<slug>/*.py (the release with the mutant's ANSWERS, every other answer cell
    filled from the source). Every mutant file is loaded and checked; by default only a rotating
    sample of SAMPLE of them per drill is graded (chosen from the UTC date, or from
    MINIRT_HONESTY_SEED), which keeps CI bounded; `--full-sweeps` grades every mutant. ref scores full marks; blank scores 0 on every autograded cell; each
    mutant scores 0 on each MUST_FAIL cell and below full marks in total;
(c) a drill with fewer than 3 mutants fails;
(d) no feedback HTML (blank, mutants, ref) contains a line of the hidden tests' source.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from sampling import sample, seed

from minirt_course.course import catalog, nbgrade

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "tests" / "mutants"
MIN_MUTANTS = 3
SAMPLE = 2  # mutants graded per drill in the bounded (default) form; every one with --full-sweeps


def _slugs() -> list[str]:
    return sorted(p.parent.name for p in ROOT.glob("solutions/*/drill.ipynb"))


SLUGS = _slugs()
if not SLUGS:
    pytest.skip("no drills yet", allow_module_level=True)

pytestmark = [pytest.mark.slow, pytest.mark.parametrize("slug", SLUGS)]


@dataclass
class Mutant:
    name: str
    path: Path
    doc: str
    answers: dict[str, str]
    must_fail: list[str]


def load_mutant(path: Path) -> Mutant:
    spec = importlib.util.spec_from_file_location(f"mutant_{path.parent.name}_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    answers = getattr(module, "ANSWERS", None)
    must_fail = getattr(module, "MUST_FAIL", None)
    rel = path.relative_to(ROOT)
    assert isinstance(answers, dict) and answers, f"{rel}: ANSWERS must be a non-empty dict"
    assert isinstance(must_fail, list | tuple) and must_fail, (
        f"{rel}: MUST_FAIL must be a non-empty list"
    )
    doc = (module.__doc__ or "").strip()
    assert doc, f"{rel}: the module docstring must say which plausible mistake this is"
    return Mutant(path.stem, path, doc, dict(answers), list(must_fail))


def mutant_files(slug: str) -> list[Path]:
    return sorted(p for p in (MUTANTS / slug).glob("*.py") if not p.name.startswith("_"))


def _gid(cell: nbformat.NotebookNode) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def answer_sources(source_nb: nbformat.NotebookNode) -> dict[str, str]:
    """grade_id -> solution source (markers removed) of every answer cell of the source."""
    return {
        _gid(c): nbgrade._strip_markers(c.source)
        for c in source_nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("solution") and _gid(c)
    }


def filled(
    release: nbformat.NotebookNode, solutions: dict[str, str], overrides: dict[str, str]
) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    for cell in nb.cells:
        gid = _gid(cell)
        if gid in overrides:
            cell.source = overrides[gid]
        elif gid in solutions:
            cell.source = solutions[gid]
    return nb


@dataclass
class Graded:
    slug: str
    committed: Path
    fresh: Path
    source_nb: nbformat.NotebookNode
    mutants: list[Mutant]  # every mutant file, loaded and checked
    sampled: list[Mutant]  # the ones graded in this run
    seed: str
    reports: dict[str, nbgrade.GradeReport]
    hidden: list[str]


_CACHE: dict[str, Graded] = {}


@pytest.fixture(scope="session")
def graded(
    tmp_path_factory: pytest.TempPathFactory, course_copy: Callable, full_sweeps: bool
) -> Callable:
    """graded(slug): generate + one batched autograde for the drill, computed once per session."""

    def run(slug: str) -> Graded:
        if slug in _CACHE:
            return _CACHE[slug]
        module = catalog.get(slug)
        root = course_copy(tmp_path_factory.mktemp(f"honesty-{slug}"), [slug])
        fresh = nbgrade.register(module.id, root)  # a fresh generate_assignment (build/release)
        committed = root / "drills" / slug / "drill.ipynb"
        source_nb = nbformat.read(str(root / "solutions" / slug / "drill.ipynb"), as_version=4)
        solutions = answer_sources(source_nb)
        mutants = [load_mutant(p) for p in mutant_files(slug)]
        rotation = seed()
        sampled = sample(mutants, SAMPLE, slug, lambda m: m.name, everything=full_sweeps,
                         rotation=rotation)
        release = nbformat.read(str(committed if committed.is_file() else fresh), as_version=4)
        subs_dir = root / "candidates"
        subs_dir.mkdir()
        subs: dict[str, Path] = {}

        def write(name: str, nb: nbformat.NotebookNode) -> None:
            path = subs_dir / f"{name}.ipynb"
            nbformat.write(nb, str(path))
            subs[name] = path

        write("ref", filled(release, solutions, {}))
        write("blank", release)
        for m in mutants:
            unknown = sorted(set(m.answers) - set(solutions))
            assert not unknown, f"{m.path.relative_to(ROOT)}: {unknown} are not answer cells"
        for m in sampled:
            write(
                "mutant-" + re.sub(r"[^A-Za-z0-9_.-]", "-", m.name),
                filled(release, solutions, m.answers),
            )
        reports = nbgrade.autograde_many(module.id, subs, root)
        _CACHE[slug] = Graded(
            slug,
            committed,
            fresh,
            source_nb,
            mutants,
            sampled,
            rotation,
            reports,
            nbgrade.hidden_test_lines(source_nb),
        )
        return _CACHE[slug]

    return run


def test_committed_release_equals_a_fresh_generation(slug: str, graded: Callable) -> None:
    g = graded(slug)
    assert g.committed.is_file(), (
        f"drills/{slug}/drill.ipynb is missing: run `python tools/nbtool.py drills`"
    )
    committed = json.loads(g.committed.read_text(encoding="utf-8"))
    fresh = json.loads(g.fresh.read_text(encoding="utf-8"))
    assert committed == fresh, (
        f"drills/{slug}/drill.ipynb differs from a fresh generate_assignment of "
        f"solutions/{slug}/drill.ipynb: run `python tools/nbtool.py drills {slug}`"
    )


def test_reference_answers_score_full_marks(slug: str, graded: Callable) -> None:
    report = graded(slug).reports["ref"]
    assert report.max_score > 0, f"{slug}: the drill has no graded cells"
    failing = [(c.grade_id, c.message) for c in report.failing]
    assert report.full_marks, (
        f"{slug}: reference scored {report.score}/{report.max_score}: {failing}"
    )
    assert not report.other_errors, (
        f"{slug}: reference raised in ungraded cells: {report.other_errors}"
    )
    unchecked = [c.grade_id for c in report.cells if not c.manual and c.out_of_kernel is None]
    assert not unchecked, f"{slug}: no out-of-kernel score for {unchecked}"


def test_blank_release_scores_zero_on_every_autograded_cell(slug: str, graded: Callable) -> None:
    report = graded(slug).reports["blank"]
    scoring = [(c.grade_id, c.score) for c in report.cells if c.score > 0]
    assert not scoring, f"{slug}: the blank drill earns points in {scoring}"


def test_at_least_three_mutants(slug: str, graded: Callable) -> None:
    found = [m.name for m in graded(slug).mutants]
    assert len(found) >= MIN_MUTANTS, (
        f"tests/mutants/{slug}/ has {len(found)} wrong answer(s) {found}; at least {MIN_MUTANTS} "
        "are needed (see CONTRIBUTING.md)"
    )


def test_every_mutant_loses_its_points(slug: str, graded: Callable) -> None:
    g = graded(slug)
    graded_ids = {c.grade_id for c in g.reports["ref"].cells}
    problems = [
        f"{m.path.relative_to(ROOT)}: MUST_FAIL names {gid!r}, which is not a graded cell"
        for m in g.mutants
        for gid in m.must_fail
        if gid not in graded_ids
    ]
    for m in g.sampled:
        rel = m.path.relative_to(ROOT)
        report = g.reports["mutant-" + re.sub(r"[^A-Za-z0-9_.-]", "-", m.name)]
        for gid in m.must_fail:
            if gid in graded_ids and report.cell(gid).score != 0:
                problems.append(
                    f"{rel} ({m.doc.splitlines()[0]}): {gid} scored {report.cell(gid).score:g}"
                )
        if not report.auto_score < report.auto_max_score:  # manual points are not autograded
            problems.append(f"{rel}: scored full autograded marks "
                            f"({report.auto_score:g}/{report.auto_max_score:g})")
    ran = (
        f"(graded {len(g.sampled)}/{len(g.mutants)} mutants, seed {g.seed!r}; reproduce with "
        "MINIRT_HONESTY_SEED=<seed>, grade all with --full-sweeps)"
    )
    assert not problems, "\n".join(problems) + "\n" + ran


def test_feedback_never_shows_hidden_test_source(slug: str, graded: Callable) -> None:
    g = graded(slug)
    problems = []
    for learner, report in g.reports.items():
        assert report.feedback_path is not None, f"{slug}: no feedback for {learner}"
        leaks = nbgrade.feedback_leaks(report.feedback_path, g.hidden)
        problems += [f"{learner}: {line}" for line in leaks]
    assert not problems, f"{slug}: feedback shows hidden test source:\n" + "\n".join(problems)
