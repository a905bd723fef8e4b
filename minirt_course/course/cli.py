"""`minirt-course`: grade a drill, list progress, show the evidence log, reset.

    minirt-course grade 01 [--notebook PATH] [--learner NAME] [--verbose] [--cell GRADE_ID]
    minirt-course batch 01                 (instructors: every submission in build/submitted/)
    minirt-course progress [--learner NAME | --all]
    minirt-course evidence 01
    minirt-course reset [01] [--yes]
    minirt-course start [DIR] [--no-open]  (the installed course: copy lessons and drills, open)

Everything stays on this machine: progress in .minirt/progress.json, evidence in
.minirt/evidence/<id>.jsonl (both ignored by git). `progress` shows one learner's attempts (read
from the evidence log, which names the learner of every attempt), never a mix. In an installed
course (no solutions/ folder) `grade` runs the drill's visible tests only and says so. Errors the
learner can fix are printed as one line and exit with code 2.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence

from minirt_course.course import catalog, nbgrade
from minirt_course.course.nbgrade import CourseError, GradeReport

__all__ = ["main"]


def _fmt(x: float) -> str:
    return f"{x:g}"


def _when(iso: str | None) -> str:
    if not iso:
        return ""
    return iso.replace("T", " ").replace("+00:00", " UTC")


def print_report(report: GradeReport, module: catalog.Module) -> None:
    print(f"Module {module.id} · {module.title} — learner {report.learner}")
    width = max([len("cell"), *(len(c.grade_id) for c in report.cells)]) + 2
    print(f"  {'cell'.ljust(width)}score")
    for c in report.cells:
        mark = "ok  " if c.passed else "FAIL"
        line = f"  {c.grade_id.ljust(width)}{_fmt(c.score)}/{_fmt(c.max_score)}  {mark}"
        if c.manual:
            line = (f"  {c.grade_id.ljust(width)}-/{_fmt(c.max_score)}  "
                    f"needs manual grading ({_fmt(c.max_score)} points)")
        elif c.message and not c.passed:
            line += f"  {c.message}"
        print(line.rstrip())
    print(f"  {'total'.ljust(width)}{_fmt(report.score)}/{_fmt(report.max_score)}")
    for where, msg in report.other_errors:
        print(f"  note: {where} raised {msg}")
    if report.feedback_path is not None:
        print(f"Feedback: {report.feedback_path}")
    if report.failing:
        print(f"Re-check one cell: ./course grade {module.id} --cell {report.failing[0].grade_id}")


def _cmd_cell(args: argparse.Namespace, module: catalog.Module) -> int:
    """Re-check one graded cell out of the learner's reach (not recorded as an attempt)."""
    from pathlib import Path

    from minirt_course.course import oracle

    lay = nbgrade.layout()
    notebook = Path(args.notebook) if args.notebook else lay.release / module.slug / "drill.ipynb"
    nbgrade.check_submission(module.id, notebook, lay.root)
    ids = nbgrade.graded_cell_ids(notebook)
    if args.cell not in ids or not args.cell.startswith("test_"):
        raise nbgrade.CourseError(f"{args.cell!r} is not a graded cell of drill {module.id}")
    result = oracle.run_oracle(module.id, notebook, lay.root, cell=args.cell)
    for c in result.cells:
        mark = "ok" if c.passed else "FAIL"
        line = f"  {c.grade_id}  {_fmt(c.points if c.passed else 0)}/{_fmt(c.points)}  {mark}"
        print(line + (f"  {c.message}" if c.message and not c.passed else ""))
    for note in result.notes:
        print(f"  note: {note}")
    print(f"(out-of-kernel check only, {result.seconds:.1f} s; not recorded as an attempt)")
    return 0


def _installed_course(module: catalog.Module) -> bool:
    """True in a learner's installed course: the drill is there, its source is not."""
    lay = nbgrade.layout()
    return (not (lay.source / module.slug / nbgrade.NOTEBOOK_NAME).is_file()
            and (lay.release / module.slug / nbgrade.NOTEBOOK_NAME).is_file())


def _cmd_visible(args: argparse.Namespace, module: catalog.Module) -> int:
    from pathlib import Path

    from minirt_course.course import visible

    lay = nbgrade.layout()
    notebook = Path(args.notebook) if args.notebook else lay.release / module.slug / "drill.ipynb"
    print(f"Module {module.id} · {module.title}: running the visible tests of {notebook.name} "
          "(the hidden tests are with your instructor)…", flush=True)
    try:
        report = visible.run_visible(notebook)
    except FileNotFoundError as exc:
        raise nbgrade.CourseError(str(exc)) from None
    width = max([len("cell"), *(len(c.grade_id) for c in report.cells)]) + 2
    for c in report.cells:
        line = f"  {c.grade_id.ljust(width)}{'ok  ' if c.passed else 'FAIL'}"
        print((line + (f"  {c.message}" if c.message else "")).rstrip())
    print(f"  {report.passed}/{len(report.cells)} visible test cells pass; submit the drill to "
          "your instructor for the score (hidden tests run there).")
    return 0


def _grading_process() -> None:
    """This process grades: skip the imports none of its checks use (:func:`nbrun.skip_unused_imports`,
    jsonschema's IRI grammars, about 1 s of CPU before a grading can start: the notebook check
    imports nbformat, and nbformat and nbgrader validate without a FormatChecker)."""
    from minirt_course.course import nbrun

    nbrun.skip_unused_imports()


def _cmd_grade(args: argparse.Namespace, argv: Sequence[str]) -> int:
    _grading_process()
    module = catalog_module(args.module)
    if module.has_drill and _installed_course(module):
        return _cmd_visible(args, module)
    module = nbgrade.drill_module(args.module)
    if args.cell:
        return _cmd_cell(args, module)
    if not args.quiet:
        print(f"Grading module {module.id} ({module.slug}) with nbgrader…", flush=True)
    report = nbgrade.grade(
        module.id,
        args.notebook,
        args.learner,
        verbose=args.verbose,
        command="minirt-course " + shlex.join(argv),
    )
    print_report(report, module)
    entries = nbgrade.read_evidence(module.id)
    if entries:
        print(
            f"Evidence: .minirt/evidence/{module.id}.jsonl (attempt {entries[-1].get('attempt', len(entries))})"
        )
    return 0


def _cmd_batch(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """Autograde every submission of a drill in build/submitted/, one learner per nbgrader run,
    each with the out-of-kernel score (instructors)."""
    import shutil
    import tempfile
    from pathlib import Path

    _grading_process()
    module = nbgrade.drill_module(args.module)
    lay = nbgrade.layout()
    found = sorted(lay.submitted.glob(f"*/{module.slug}/drill.ipynb"))
    if not found:
        print(f"No submissions in {lay.submitted}/*/{module.slug}/drill.ipynb")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        subs = {}
        for path in found:  # grading replaces the submitted folder: keep a copy to grade from
            copy = Path(tmp) / f"{path.parent.parent.name}.ipynb"
            shutil.copyfile(path, copy)
            subs[path.parent.parent.name] = copy
        print(f"Grading {len(subs)} submission(s) of module {module.id}, one nbgrader run each…",
              flush=True)
        reports = nbgrade.autograde_many(module.id, subs, lay.root, one_per_run=True,
                                         verbose=args.verbose)
    for name, report in reports.items():
        print(f"  {name}: {_fmt(report.score)}/{_fmt(report.max_score)}")
        for c in report.failing:
            print(f"      {c.grade_id}: {c.message}")
    print("Scores are in the gradebook (nbgrader export --to build/grades.csv).")
    return 0


def catalog_module(module_id: str) -> catalog.Module:
    """The catalog's module, or a CourseError naming the known ids."""
    try:
        return catalog.get(module_id)
    except catalog.UnknownModule as exc:
        raise nbgrade.UnknownModuleError(str(exc)) from None


def learner_progress(learner: str, course_root: str | None = None) -> dict[str, dict]:
    """module id -> {score, max, time, attempts, best} of `learner`'s attempts only.

    The attempts and the best score come from each module's evidence log, which names the learner
    of every attempt. The last score comes from the progress file when its last attempt is this
    learner's (the file keeps only the latest attempt of anyone, so alone it would mix learners),
    else from this learner's last evidence entry."""
    recorded = nbgrade.load_progress(course_root)
    out: dict[str, dict] = {}
    for m in catalog.MODULES:
        if not m.has_drill:
            continue
        mine = [e for e in nbgrade.read_evidence(m.id, course_root) if e.get("learner") == learner]
        last = recorded.get(m.id)
        if not (last and last.get("learner") == learner):
            last = mine[-1] if mine else None
        if last is None:
            continue
        best = max([float(last.get("score", 0)), *(float(e.get("score", 0)) for e in mine)])
        out[m.id] = {"score": last.get("score", 0), "max": last.get("max", 0),
                     "time": last.get("time"), "attempts": max(len(mine), 1), "best": best}
    return out


def learners(course_root: str | None = None) -> list[str]:
    """Every learner with at least one recorded attempt."""
    names = set()
    for m in catalog.MODULES:
        if m.has_drill:
            names |= {str(e.get("learner")) for e in nbgrade.read_evidence(m.id, course_root)
                      if e.get("learner")}
    return sorted(names)


def _cmd_progress(args: argparse.Namespace, argv: Sequence[str]) -> int:
    root = nbgrade.layout().root
    if args.all:
        names = learners(str(root))
        if not names:
            print("No graded attempts yet.")
        for i, name in enumerate(names):
            if i:
                print()
            _print_progress(root, name)
        return 0
    _print_progress(root, args.learner or nbgrade.default_learner())
    return 0


def _print_progress(root: object, learner: str) -> None:
    progress = learner_progress(learner, str(root))
    print(f"Course progress of {learner} (local: .minirt/evidence/; nothing is sent anywhere)")
    rows = []
    for m in catalog.MODULES:
        p = progress.get(m.id)
        lesson = "landed" if catalog.landed(m.id, root) else "planned"
        if not m.has_drill:
            last = "no drill"
        elif p:
            last = f"{_fmt(float(p['score']))}/{_fmt(float(p['max']))}"
            if int(p.get("attempts", 1)) > 1:
                last += (
                    f" (best {_fmt(float(p.get('best', p['score'])))}, {p['attempts']} attempts)"
                )
        else:
            last = "not graded"
        rows.append((m.id, m.title, lesson, last, _when(p.get("time")) if p else ""))
    widths = [
        max(len(r[i]) for r in rows + [("id", "module", "lesson", "last score", "when")])
        for i in range(5)
    ]
    header = ("id", "module", "lesson", "last score", "when")
    for r in [header, *rows]:
        print("  " + "  ".join(col.ljust(w) for col, w in zip(r, widths, strict=True)).rstrip())


def _cmd_evidence(args: argparse.Namespace, argv: Sequence[str]) -> int:
    module = catalog_module(args.module)
    entries = nbgrade.read_evidence(module.id)
    if not entries:
        print(f"No evidence for module {module.id} yet: run `minirt-course grade {module.id}`.")
        return 0
    print(f"Evidence for module {module.id} · {module.title} (.minirt/evidence/{module.id}.jsonl)")
    for e in entries:
        print(
            f"- attempt {e.get('attempt', '?')}  {_when(e.get('time'))}  {e.get('learner')}  "
            f"{_fmt(float(e.get('score', 0)))}/{_fmt(float(e.get('max', 0)))}"
        )
        print(f"    command: {e.get('command')}")
        print(f"    input:   {e.get('input')} (copy: {e.get('snapshot')})")
        failing = e.get("failing") or []
        if failing:
            for f in failing:
                print(f"    failed:  {f.get('grade_id')}: {f.get('message')}")
        else:
            print("    failed:  nothing (full marks)")
    return 0


def _cmd_reset(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from minirt_course.course import reset

    if args.module is not None:
        catalog_module(args.module)
    todo = reset.plan(args.module)
    root = nbgrade.layout().root
    if not todo.paths and not todo.state:
        print("Nothing to reset.")
        return 0
    what = f"module {args.module}" if args.module else "every module"
    print(f"Reset {what}: this removes")
    for item in todo.state:
        print(f"  {item} (.minirt/)")
    for path in todo.paths:
        print(f"  {path.relative_to(root).as_posix()}{'/' if path.is_dir() else ''}")
    for note in todo.notes:
        print(f"  (note: {note})")
    if not args.yes:
        try:
            answer = input("Remove these? [y/N] ")
        except (EOFError, OSError):  # no terminal to ask: the answer is no
            answer = ""
        if answer.strip().lower() not in {"y", "yes"}:
            print("Nothing removed.")
            return 1
    for item in reset.remove(todo):
        print(f"removed {item}")
    return 0


def _cmd_start(args: argparse.Namespace, argv: Sequence[str]) -> int:
    import os
    from pathlib import Path

    from minirt_course.course import start

    try:
        done = start.copy_material(args.folder)
    except (start.NoMaterial, NotADirectoryError) as exc:
        raise nbgrade.CourseError(str(exc)) from None
    print(f"Course folder: {done.folder}")
    print(f"  copied {len(done.copied)} file(s)"
          + (f", kept {len(done.kept)} already there (never overwritten)" if done.kept else ""))
    if args.no_open:
        return 0
    cmd = [sys.executable, "-m", "jupyterlab", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.root_dir={done.folder}",
           f"--LabApp.default_url=/lab/tree/{start.START_NOTEBOOK}"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        cmd.append("--allow-root")
    print("Starting JupyterLab (stop it with Ctrl-C); it prints the URL to open below.", flush=True)
    os.chdir(done.folder)
    os.environ[catalog.ROOT_ENV] = str(Path(done.folder))
    os.execv(sys.executable, cmd)
    return 0  # pragma: no cover


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="minirt-course",
        description="Grade the course's drills locally with nbgrader and keep track of progress.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    ids = ", ".join(catalog.module_ids())

    g = sub.add_parser("grade", help="grade a drill and print the score per test")
    g.add_argument("module", help=f"module id ({ids})")
    g.add_argument("--notebook", help="notebook to grade (default: drills/<slug>/drill.ipynb)")
    g.add_argument("--learner", help="learner name (default: $USER, else 'learner')")
    g.add_argument("--verbose", "-v", action="store_true", help="show nbgrader's own log")
    g.add_argument("--quiet", "-q", action="store_true", help="print only the result table")
    g.add_argument("--cell", help="re-check only this graded cell, out of the kernel's reach")
    g.set_defaults(func=_cmd_grade)

    b = sub.add_parser("batch", help="instructors: grade every submission in build/submitted/")
    b.add_argument("module", help=f"module id ({ids})")
    b.add_argument("--verbose", "-v", action="store_true", help="show nbgrader's own log")
    b.set_defaults(func=_cmd_batch)

    p = sub.add_parser("progress", help="one learner's modules: lesson landed or not, last score")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--learner", help="learner name (default: $USER, else 'learner')")
    who.add_argument("--all", action="store_true", help="every learner, one table each")
    p.set_defaults(func=_cmd_progress)

    e = sub.add_parser("evidence", help="the evidence log of one module's grade attempts")
    e.add_argument("module", help=f"module id ({ids})")
    e.set_defaults(func=_cmd_evidence)

    r = sub.add_parser("reset", help="forget progress, evidence and build/ grading files "
                       "(of one module, or all); asks first")
    r.add_argument("module", nargs="?", help="module id (default: every module)")
    r.add_argument("--yes", "-y", action="store_true", help="do not ask")
    r.set_defaults(func=_cmd_reset)

    s = sub.add_parser("start", help="installed course: copy lessons and drills into a folder "
                       "and open JupyterLab there")
    s.add_argument("folder", nargs="?", default="durable-agents",
                   help="where (default: ./durable-agents); existing files are kept")
    s.add_argument("--no-open", action="store_true", help="only copy, do not start JupyterLab")
    s.set_defaults(func=_cmd_start)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args, argv))
    except CourseError as exc:
        print(f"minirt-course: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
