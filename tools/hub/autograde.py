"""Autograde what `nbgrader collect` brought in from the exchange, with the tamper-proof score.

Invariant: every collected submission of the drill is graded by
`minirt_course.course.nbgrade.autograde_many` (one nbgrader run per learner, so one submission that
kills its kernel cannot stop the others), so each graded cell's score is min(in-kernel,
out-of-kernel), stored in the gradebook as nbgrader's manual score; formgrader, `nbgrader
generate_feedback` and `nbgrader export` then report the score that counts. Plain `nbgrader
autograde` would keep only the in-kernel score, which a submission can forge.

Before grading, each collected folder build/submitted/<learner>/<slug>/ is moved to
build/collected/<learner>/<slug>/ (autograde_many re-creates the submitted copy from it), so
what the learner handed in is kept as collected.

Late policy: autograde_many re-creates the submitted folder without nbgrader's exchange files
(timestamp.txt, submission_secret.txt), so nbgrader's own late-penalty step sees no submission
time. This script copies both back, records the collected time in the gradebook, and applies
nbgrader's LateSubmissionPlugin (`c.LateSubmissionPlugin.penalty_method`, read from the class's
and the course's nbgrader_config.py) to the score that counts, as nbgrader's AssignLatePenalties
would: a penalty between 0 and the notebook's score, stored as late_submission_penalty, which
`nbgrader generate_feedback` shows and `nbgrader export` subtracts.

What it does not do: grade a submission that was not collected, or recompute anything when the
due date changes later (run it again). Run it from the course folder:

    python tools/hub/autograde.py 01        (or: python /path/to/tools/hub/autograde.py 01)
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

from minirt_course.course import nbgrade


def course_config(course_root: Path) -> Any:
    """nbgrader's configuration as the CLI sees it from the course folder: the Jupyter config
    path (the class's nbgrader_config.py), then the course's own."""
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    cfg = Config()
    for folder in [*reversed(jupyter_config_path()), str(course_root)]:
        if (Path(folder) / "nbgrader_config.py").is_file():
            cfg.merge(PyFileConfigLoader("nbgrader_config.py", path=folder).load_config())
    return cfg


def apply_late_policy(course_root: Path, slug: str, learner: str, stamp: Path) -> float | None:
    """Record the collected submission time and set nbgrader's late penalty from it; return the
    penalty (None: on time, or the policy gives none)."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import LateSubmissionPlugin

    lay = nbgrade.layout(course_root)
    when = stamp.read_text(encoding="utf-8").strip()
    with Gradebook(lay.db_url, lay.course_id) as gb:
        gb.update_or_create_submission(slug, learner, timestamp=when)
        gb.db.commit()
        sub = gb.find_submission(slug, learner)
        gb.db.refresh(sub)
        notebook = gb.find_submission_notebook(nbgrade.NOTEBOOK_ID, slug, learner)
        notebook.late_submission_penalty = None
        penalty = None
        if sub.total_seconds_late > 0:
            plugin = LateSubmissionPlugin(config=course_config(course_root))
            penalty = plugin.late_submission_penalty(learner, notebook.score,
                                                     sub.total_seconds_late)
            if penalty is not None:
                penalty = min(max(float(penalty), 0.0), float(notebook.score))
                notebook.late_submission_penalty = penalty
        gb.db.commit()
    return penalty


def collected(course_root: Path, slug: str) -> dict[str, Path]:
    """learner -> collected notebook, moving fresh collections out of build/submitted/."""
    lay = nbgrade.layout(course_root)
    keep = lay.build / "collected"
    for folder in sorted(lay.submitted.glob(f"*/{slug}")):
        nb = folder / nbgrade.NOTEBOOK_NAME
        if not nb.is_file():
            continue
        dest = keep / folder.parent.name / slug
        if dest.exists():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(folder), str(dest))
    return {p.parent.name: p / nbgrade.NOTEBOOK_NAME
            for p in sorted(keep.glob(f"*/{slug}")) if (p / nbgrade.NOTEBOOK_NAME).is_file()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="autograde.py", description=__doc__.split("\n")[0])
    ap.add_argument("module", help="drill id, e.g. 01")
    ap.add_argument("--root", type=Path, default=Path.cwd(), help="course folder (default: .)")
    args = ap.parse_args(argv)
    try:
        module = nbgrade.drill_module(args.module, args.root)
        subs = collected(args.root.resolve(), module.slug)
        if not subs:
            print(f"hub: no collected submission of {module.slug} (run nbgrader collect first)")
            return 1
        print(f"hub: grading {len(subs)} submission(s) of {module.slug}: {', '.join(subs)}",
              flush=True)
        reports = nbgrade.autograde_many(module.id, subs, args.root, one_per_run=True)
        lay = nbgrade.layout(args.root)
        penalties: dict[str, float | None] = {}
        for name, nb in subs.items():
            # nbgrader's exchange files (timestamp.txt, submission_secret.txt): generate_feedback
            # copies them from the autograded folder, and release_feedback needs both
            extras = [p for p in nb.parent.iterdir() if p.is_file() and p.name != nb.name]
            for folder in (lay.submitted, lay.autograded):
                dest = folder / name / module.slug
                if dest.is_dir():
                    for extra in extras:
                        shutil.copy2(extra, dest / extra.name)
            stamp = nb.parent / "timestamp.txt"
            if stamp.is_file() and name in reports and reports[name].autograded_path.is_file():
                penalties[name] = apply_late_policy(args.root.resolve(), module.slug, name, stamp)
    except nbgrade.CourseError as exc:
        print(f"hub: error: {type(exc).__name__}: {exc}")
        return 2
    bad = 0
    for name, rep in reports.items():
        failing = ", ".join(c.grade_id for c in rep.failing) or "none"
        late = penalties.get(name)
        late_txt = f", late penalty {late:g}" if late else ""
        print(f"hub: {name}: {rep.score:g}/{rep.max_score:g} (failing: {failing}){late_txt}",
              flush=True)
        for cell in rep.failing:
            print(f"hub:   {cell.grade_id}: {cell.message}")
        for where, msg in rep.other_errors:
            print(f"hub:   {where}: {msg}")
        if rep.leaked_lines:
            bad = 1
            print(f"hub: {name}: feedback shows {len(rep.leaked_lines)} hidden-test line(s)")
    return bad


if __name__ == "__main__":
    sys.exit(main())
