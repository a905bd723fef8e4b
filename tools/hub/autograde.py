"""Autograde what `nbgrader collect` brought in from the exchange, with the tamper-proof score.

Invariant: every collected submission of the drill is graded by
`minirt.course.nbgrade.autograde_many` (one nbgrader run per learner, so one submission that
kills its kernel cannot stop the others), so each graded cell's score is min(in-kernel,
out-of-kernel), stored in the gradebook as nbgrader's manual score; formgrader, `nbgrader
generate_feedback` and `nbgrader export` then report the score that counts. Plain `nbgrader
autograde` would keep only the in-kernel score, which a submission can forge.

Before grading, each collected folder build/submitted/<learner>/<slug>/ is moved to
build/collected/<learner>/<slug>/ (autograde_many re-creates the submitted copy from it), so
what the learner handed in is kept as collected.

What it does not do: apply a late penalty. autograde_many re-creates the submitted folder
without nbgrader's timestamp.txt, so LateSubmissionPlugin sees no submission time during the
autograde; the collected timestamp.txt and submission_secret.txt are copied back afterwards
(so `nbgrader generate_feedback` and `release_feedback` work), but no penalty was computed. Run it from the
course folder:

    python tools/hub/autograde.py 01        (or: python /path/to/tools/hub/autograde.py 01)
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from minirt.course import nbgrade


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
        for name, nb in subs.items():
            # nbgrader's exchange files (timestamp.txt, submission_secret.txt): generate_feedback
            # copies them from the autograded folder, and release_feedback needs both
            extras = [p for p in nb.parent.iterdir() if p.is_file() and p.name != nb.name]
            for folder in (lay.submitted, lay.autograded):
                dest = folder / name / module.slug
                if dest.is_dir():
                    for extra in extras:
                        shutil.copy2(extra, dest / extra.name)
    except nbgrade.CourseError as exc:
        print(f"hub: error: {type(exc).__name__}: {exc}")
        return 2
    bad = 0
    for name, rep in reports.items():
        failing = ", ".join(c.grade_id for c in rep.failing) or "none"
        print(f"hub: {name}: {rep.score:g}/{rep.max_score:g} (failing: {failing})", flush=True)
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
