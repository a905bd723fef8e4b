"""What `minirt-course reset [ID]` removes, listed before anything is removed.

Grading leaves two kinds of things behind: the progress and evidence under .minirt/ (removed by
:func:`minirt_course.course.nbgrade.reset`) and nbgrader's folders under build/ (submitted/,
autograded/, feedback/, the generated release in build/release/, logs/, and the gradebook).
:func:`plan` lists the build/ part for one module or for all; :func:`remove` deletes exactly that
list.

Invariant: only paths under the course's build/ folder that grading makes are ever listed; the
learner's drills/ and lessons/ are never touched. For one module the gradebook file stays (it
holds every module) but that module's assignment and its graded attempts are removed from it
(nbgrader's ``Gradebook.remove_assignment``), so a drill whose cells changed can be registered
again; the plan says so.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from minirt_course.course import catalog, nbgrade

__all__ = ["ResetPlan", "plan", "remove"]


@dataclass
class ResetPlan:
    module: str | None
    paths: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    state: list[str] = field(default_factory=list)  # progress/evidence that nbgrade.reset forgets
    assignments: list[str] = field(default_factory=list)  # removed from the gradebook (one module)


def plan(module_id: str | None = None, course_root: str | None = None) -> ResetPlan:
    """Everything a reset of `module_id` (None: all modules) would remove."""
    lay = nbgrade.layout(course_root)
    build = lay.build.resolve()
    out = ResetPlan(module_id)
    modules = [catalog.get(module_id)] if module_id is not None else list(catalog.MODULES)
    slugs = {m.slug for m in modules}
    for base in (lay.submitted, lay.autograded, lay.feedback):
        if base.is_dir():
            out.paths += sorted(p for p in base.glob("*/*") if p.name in slugs)
    release = build / "release"
    for slug in sorted(slugs):
        out.paths += [p for p in (release / slug, release / f".{slug}.stamp") if p.exists()]
    logs = build / "logs"
    if logs.is_dir():
        out.paths += sorted(p for p in logs.glob("*.log")
                            if any(p.stem.endswith(s) for s in slugs))
    if module_id is None:
        db = Path(lay.db_url[len("sqlite:///"):]) if lay.db_url.startswith("sqlite:///") else None
        if db is not None and db.is_file():
            out.paths.append(db)
    else:
        known = _gradebook_assignments(lay.db_url)
        out.assignments = sorted(slug for slug in slugs if slug in known)
        out.state += [f"the gradebook's record of {slug} (its graded attempts)"
                      for slug in out.assignments]
    progress = nbgrade.load_progress(lay.root)
    for m in modules:
        if m.id in progress or nbgrade.read_evidence(m.id, lay.root):
            out.state.append(f"progress and evidence of module {m.id}")
    out.paths = [p for p in out.paths if build in p.resolve().parents]
    return out


def _gradebook_assignments(db_url: str) -> set[str]:
    """The assignments the gradebook knows (empty when there is no gradebook yet)."""
    if db_url.startswith("sqlite:///") and not Path(db_url[len("sqlite:///"):]).is_file():
        return set()
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gb:
        return {a.name for a in gb.assignments}


def remove(p: ResetPlan, course_root: str | None = None) -> list[str]:
    """Delete what `p` lists and forget the progress; return what was removed."""
    lay = nbgrade.layout(course_root)
    removed = nbgrade.reset(p.module, lay.root)
    if p.assignments:
        from nbgrader.api import Gradebook

        with Gradebook(lay.db_url) as gb:
            for slug in p.assignments:
                gb.remove_assignment(slug)
                removed.append(f"gradebook: {slug}")
    for path in p.paths:
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        else:
            continue
        removed.append(path.relative_to(lay.root).as_posix() + ("/" if path.suffix == "" else ""))
    for base in (lay.submitted, lay.autograded, lay.feedback):  # learners left with no drill
        if base.is_dir():
            for learner in base.iterdir():
                if learner.is_dir() and not any(learner.iterdir()):
                    learner.rmdir()
    return removed
