"""Grading drills with real nbgrader, without JupyterHub or an exchange.

The learner works in the release copy `drills/<slug>/drill.ipynb`. `grade("01")`:

1. checks the module id, the notebook (exists, is a notebook, has exactly the graded cells of the
   release: nbgrader's own message for a deleted or copied graded cell is a misleading "old
   metadata format"), and the learner name;
2. takes one private copy of the notebook (build/oracle/<slug>/.<learner>.staged.ipynb): the
   out-of-kernel grader starts on it at once, and it is what nbgrader grades too;
   registers the drill in the gradebook (`nbgrader generate_assignment` into build/release, so the
   learner's drills/ copy is never overwritten), only when the source or config changed; a
   missing gradebook is first created as nbgrader would (:mod:`minirt_course.course.gradebook`,
   without nbgrader's `alembic heads` subprocess);
3. only then (a refused registration, e.g. DrillChangedSinceGraded, leaves the previous attempt,
   its feedback and out-of-kernel result untouched) copies that staged copy to
   build/submitted/<learner>/<slug>/drill.ipynb, removing the previous attempt's feedback;
4. runs `nbgrader autograde` and `nbgrader generate_feedback` for that learner only, from the
   course root with the virtualenv's bin/ on PATH (nbgrader calls `alembic`), capturing nbgrader's
   log to build/logs/ instead of the terminal; each command is a process of its own, forked from
   one warm template that imported nbgrader once (:mod:`minirt_course.course.nbrun`; a plain
   `python -m nbgrader` where fork is unavailable, the template died, or
   MINIRT_NBGRADER_WARM=0);
5. reads the scores from the gradebook (nbgrader.api.Gradebook, imported in a thread while
   autograde runs: :func:`_prefetch_gradebook_api`) and the first line of each failing
   cell's error from the autograded notebook ("AssertionError: [stale-completion] ...");
6. grades the same notebook out of the learner's reach (:mod:`minirt_course.course.oracle`, started
   on the staged copy, before generate_assignment, and run alongside nbgrader): the answer
   cells run in a process of their own, the drill's tests in another, only JSON crosses. The score of each cell is min(in-kernel,
   out-of-kernel), written into the gradebook as nbgrader's manual score (so the feedback and
   `nbgrader export` report it); a cell whose two scores differ says so and why;
7. checks that the feedback HTML contains no line of the hidden tests, and records the attempt in
   the local progress file and the module's evidence log (.minirt/, never sent anywhere).

`autograde_many` does steps 1-6 for several learners with ONE autograde run (the grading
self-tests use it), or one run per learner (`one_per_run`, what `minirt-course batch` uses, so a
submission that kills its kernel cannot abort the others'; a failed batch run is retried that way
too). Everything takes an explicit `course_root`, so tests grade in
a temporary copy of the course with their own gradebook.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from minirt_course.course import catalog, gradebook, nbrun
from minirt_course.course.catalog import Module

__all__ = [
    "CellResult",
    "CourseError",
    "FeedbackLeak",
    "GradeReport",
    "GradedCellsChanged",
    "InvalidLearner",
    "NbgraderFailed",
    "DrillChangedSinceGraded",
    "NoDrill",
    "NotANotebook",
    "NotebookMissing",
    "UnknownModuleError",
    "autograde_many",
    "check_submission",
    "feedback_leaks",
    "generate_release",
    "grade",
    "hidden_test_lines",
    "layout",
    "load_progress",
    "read_evidence",
    "register",
    "reset",
]

NOTEBOOK_NAME = "drill.ipynb"
NOTEBOOK_ID = "drill"
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"
BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
MIN_LEAK_LINE = 12
_LEARNER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


# --------------------------------------------------------------------------- errors


class CourseError(Exception):
    """A problem the learner can fix; the CLI prints it as one line and exits with code 2."""

    kind = "course-error"


class UnknownModuleError(CourseError):
    kind = "unknown-module"


class NoDrill(CourseError):
    kind = "no-drill"


class NotebookMissing(CourseError):
    kind = "missing-notebook"


class NotANotebook(CourseError):
    kind = "not-a-notebook"


class GradedCellsChanged(CourseError):
    kind = "graded-cells-changed"


class InvalidLearner(CourseError):
    kind = "invalid-learner"


class NbgraderFailed(CourseError):
    kind = "nbgrader-failed"


class DrillChangedSinceGraded(NbgraderFailed):
    """The drill's source gained or lost cells since attempts were graded in this gradebook;
    nbgrader refuses to regenerate it while those submissions exist."""

    kind = "drill-changed"


class FeedbackLeak(CourseError):
    kind = "feedback-leak"


class CourseRootMissing(CourseError):
    kind = "no-course-root"


# --------------------------------------------------------------------------- results


@dataclass
class CellResult:
    """One graded cell of one submission."""

    grade_id: str
    score: float
    max_score: float
    message: str | None = None
    in_kernel: float | None = None  # nbgrader's score, computed in the learner's kernel
    out_of_kernel: float | None = None  # the oracle's score (minirt_course.course.oracle); None: not run
    manual: bool = False  # graded by an instructor (nbgrader: no autograde score)

    @property
    def passed(self) -> bool:
        return self.manual or self.score >= self.max_score


@dataclass
class GradeReport:
    """The outcome of grading one learner's drill."""

    module_id: str
    slug: str
    learner: str
    cells: list[CellResult]
    score: float
    max_score: float
    feedback_path: Path | None
    autograded_path: Path
    submitted_path: Path
    other_errors: list[tuple[str, str]] = field(default_factory=list)
    leaked_lines: list[str] = field(default_factory=list)
    seconds: float = 0.0
    log_path: Path | None = None

    @property
    def total(self) -> float:
        """The total score (same as `score`)."""
        return self.score

    @property
    def failing(self) -> list[CellResult]:
        return [c for c in self.cells if not c.passed]

    @property
    def auto_score(self) -> float:
        """Points scored on the autograded cells only (a manually graded cell scores 0 until an
        instructor grades it, so it must not count either way in an automatic verdict)."""
        return float(sum(c.score for c in self.cells if not c.manual))

    @property
    def auto_max_score(self) -> float:
        """Points available on the autograded cells only."""
        return float(sum(c.max_score for c in self.cells if not c.manual))

    @property
    def full_marks(self) -> bool:
        """Full marks on every autograded cell (manually graded ones wait for an instructor)."""
        auto = [c for c in self.cells if not c.manual]
        return bool(auto) and all(c.score >= c.max_score for c in auto)

    def cell(self, grade_id: str) -> CellResult:
        for c in self.cells:
            if c.grade_id == grade_id:
                return c
        raise KeyError(grade_id)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for key in ("feedback_path", "autograded_path", "submitted_path", "log_path"):
            d[key] = str(d[key]) if d[key] is not None else None
        return d


# --------------------------------------------------------------------------- course layout


@dataclass(frozen=True)
class Layout:
    """Where nbgrader's steps live for one course root (read from its nbgrader_config.py)."""

    root: Path
    source: Path
    release: Path
    submitted: Path
    autograded: Path
    feedback: Path
    db_url: str
    course_id: str = "durable-agents"

    @property
    def build(self) -> Path:
        return self.root / "build"

    @property
    def state(self) -> Path:
        return self.root / ".minirt"


def _root(course_root: str | os.PathLike[str] | None) -> Path:
    if course_root is not None:
        root = Path(course_root).resolve()
        if not (root / catalog.ROOT_MARKER).is_file():
            raise CourseRootMissing(
                f"{root} is not a course folder: it has no {catalog.ROOT_MARKER}"
            )
        return root
    try:
        return catalog.course_root()
    except catalog.CourseRootNotFound as exc:
        raise CourseRootMissing(str(exc)) from None


def layout(course_root: str | os.PathLike[str] | None = None) -> Layout:
    """The folders nbgrader uses under `course_root`, as its nbgrader_config.py sets them."""
    from traitlets.config.loader import PyFileConfigLoader

    root = _root(course_root)
    cfg = PyFileConfigLoader(catalog.ROOT_MARKER, path=str(root)).load_config()
    cd = cfg.CourseDirectory

    def folder(key: str, default: str) -> Path:
        value = cd[key] if key in cd else default
        return (root / value).resolve()

    db_url = cd["db_url"] if "db_url" in cd else f"sqlite:///{root / 'gradebook.db'}"
    return Layout(
        root=root,
        source=folder("source_directory", "source"),
        release=folder("release_directory", "release"),
        submitted=folder("submitted_directory", "submitted"),
        autograded=folder("autograded_directory", "autograded"),
        feedback=folder("feedback_directory", "feedback"),
        db_url=db_url,
        course_id=cd["course_id"] if "course_id" in cd else "default_course",
    )


def _ensure_build(lay: Layout) -> None:
    """build/ (and the SQLite file's folder) must exist before any nbgrader call."""
    lay.build.mkdir(parents=True, exist_ok=True)
    if lay.db_url.startswith("sqlite:///"):
        Path(lay.db_url[len("sqlite:///") :]).parent.mkdir(parents=True, exist_ok=True)


def _module(module_id: str) -> Module:
    try:
        return catalog.get(module_id)
    except catalog.UnknownModule as exc:
        raise UnknownModuleError(str(exc)) from None


def drill_module(module_id: str, course_root: str | os.PathLike[str] | None = None) -> Module:
    """The catalog module of a drill that exists under `course_root`; raises a CourseError."""
    return _drill_module(module_id, layout(course_root))


def _drill_module(module_id: str, lay: Layout) -> Module:
    module = _module(module_id)
    if not module.has_drill:
        raise NoDrill(f"module {module.id} ({module.title}) has no graded drill")
    if not (lay.source / module.slug / NOTEBOOK_NAME).is_file():
        raise NoDrill(
            f"module {module.id} ({module.title}) has no drill yet: "
            f"{(lay.source / module.slug / NOTEBOOK_NAME).relative_to(lay.root)} does not exist"
        )
    return module


# --------------------------------------------------------------------------- notebooks


def _read_notebook(path: Path, what: str = "notebook") -> Any:
    import nbformat

    if not path.exists():
        raise NotebookMissing(f"{what} not found: {path}")
    if not path.is_file():
        raise NotANotebook(f"{path} is not a file")
    try:
        nb = nbformat.read(str(path), as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # nbformat raises several unrelated types for bad input
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise NotANotebook(f"{path} is not a valid Jupyter notebook ({first[:160]})") from None
    return nb


def graded_cell_ids(path: Path) -> list[str]:
    """The grade_ids of the graded cells of the notebook at ``path`` (named errors for a
    missing or malformed notebook)."""
    return [gid for gid, _ in _grade_ids(_read_notebook(path))]


def _grade_ids(nb: Any) -> list[tuple[str, str]]:
    out = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader")
        if isinstance(meta, dict) and meta.get("grade_id"):
            out.append((str(meta["grade_id"]), cell.cell_type))
    return out


def check_submission(
    module_id: str,
    notebook: str | os.PathLike[str],
    course_root: str | os.PathLike[str] | None = None,
) -> Any:
    """Check a learner's notebook before nbgrader sees it; return it as a NotebookNode.

    Raises NotebookMissing, NotANotebook or GradedCellsChanged (deleted, duplicated, foreign or
    retyped graded cells, compared by grade_id with the drill's source).
    """
    lay = layout(course_root)
    module = _drill_module(module_id, lay)
    path = Path(notebook)
    nb = _read_notebook(path)
    expected = dict(
        _grade_ids(_read_notebook(lay.source / module.slug / NOTEBOOK_NAME, "drill source"))
    )
    got = _grade_ids(nb)
    counts = Counter(gid for gid, _ in got)
    problems = []
    dupes = sorted(g for g, n in counts.items() if n > 1)
    if dupes:
        problems.append(
            "duplicated graded cell(s) " + ", ".join(f"{g} (x{counts[g]})" for g in dupes)
        )
    missing = [g for g in expected if g not in counts]
    if missing:
        problems.append("deleted graded cell(s) " + ", ".join(missing))
    foreign = sorted(g for g in counts if g not in expected)
    if foreign:
        problems.append(f"graded cell(s) not in drill {module.id}: " + ", ".join(foreign))
    retyped = sorted({g for g, t in got if g in expected and expected[g] != t})
    if retyped:
        problems.append("graded cell(s) changed type: " + ", ".join(retyped))
    if problems:
        raise GradedCellsChanged(
            f"{path}: "
            + "; ".join(problems)
            + f". Graded cells must stay exactly as released: take a "
            f"fresh copy of drills/{module.slug}/{NOTEBOOK_NAME} (git checkout) and paste your answers in"
        )
    return nb


def _check_learner(learner: str) -> str:
    if not _LEARNER_RE.match(learner):
        raise InvalidLearner(
            f"invalid learner name {learner!r}: use letters, digits, '.', '_' or '-' (at most 64)"
        )
    return learner


def default_learner() -> str:
    """$USER (or $USERNAME), else "learner", made safe for a folder name."""
    raw = os.environ.get("USER") or os.environ.get("USERNAME") or "learner"
    safe = re.sub(r"[^A-Za-z0-9_.-]", "-", raw).strip("-.") or "learner"
    return safe[:64]


def _strip_markers(source: str) -> str:
    keep = [ln for ln in source.splitlines() if ln.strip() not in (BEGIN_SOLUTION, END_SOLUTION)]
    return "\n".join(keep)


def hidden_test_lines(source_nb: Any) -> list[str]:
    """Lines of the hidden-test regions that appear nowhere else in the source notebook.

    Stripped of whitespace; lines shorter than 12 characters are ignored (a bare `)` or `else:`
    proves nothing). A hidden line that also appears outside the hidden regions is not secret.
    """
    hidden: list[str] = []
    visible: set[str] = set()
    for cell in source_nb.cells:
        inside = False
        for raw in cell.source.splitlines():
            line = raw.strip()
            if BEGIN_HIDDEN in line:
                inside = True
                continue
            if END_HIDDEN in line:
                inside = False
                continue
            (hidden.append if inside else visible.add)(line)
    seen: set[str] = set()
    out = []
    for line in hidden:
        if len(line) >= MIN_LEAK_LINE and line not in visible and line not in seen:
            seen.add(line)
            out.append(line)
    return out


def html_text(page: str) -> str:
    """The visible text of an HTML page (tags removed, entities decoded)."""
    page = re.sub(r"(?is)<(script|style)\b.*?</\1>", "", page)
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def feedback_leaks(feedback_html: str | os.PathLike[str], hidden_lines: Iterable[str]) -> list[str]:
    """The hidden-test lines that can be read in a feedback HTML file."""
    text = html_text(Path(feedback_html).read_text(encoding="utf-8"))
    return [line for line in hidden_lines if line in text]


# --------------------------------------------------------------------------- running nbgrader


def nbgrader_env() -> dict[str, str]:
    """The environment for nbgrader: this interpreter's bin/ first on PATH (for `alembic`)."""
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.setdefault("PYTHONIOENCODING", "utf-8")
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    return env


#: Set to "0" to run every nbgrader command as its own `python -m nbgrader` (no warm template).
WARM_ENV = "MINIRT_NBGRADER_WARM"


def _warm_runner(lay: Layout) -> nbrun.Runner | None:
    """A warm nbgrader template (:mod:`minirt_course.course.nbrun`) for this grading, or None
    where forking is unavailable or switched off."""
    if os.environ.get(WARM_ENV, "1") == "0" or not nbrun.available():
        return None
    _ensure_build(lay)
    try:
        return nbrun.Runner(lay.root, nbgrader_env())
    except (OSError, nbrun.RunnerDied):
        return None


def _run_nbgrader(
    lay: Layout, args: list[str], log_name: str, *, verbose: bool = False,
    runner: nbrun.Runner | None = None,
) -> subprocess.CompletedProcess[str]:
    _ensure_build(lay)
    logs = lay.build / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"{log_name}.log"
    cmd = [sys.executable, "-m", "nbgrader", *args]
    proc: subprocess.CompletedProcess[str] | None = None
    if runner is not None:
        try:
            rc = runner.run(args, log_path)
            out = log_path.read_text(encoding="utf-8", errors="replace")
            proc = subprocess.CompletedProcess(cmd, rc, out, None)
        except (OSError, nbrun.RunnerDied):
            proc = None  # the template is gone: run this command the plain way
    if proc is None:
        proc = subprocess.run(
            cmd,
            cwd=lay.root,
            env=nbgrader_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
        )
    log_path.write_text("$ nbgrader " + " ".join(args) + "\n" + proc.stdout, encoding="utf-8")
    if verbose:
        print(f"$ nbgrader {' '.join(args)}")
        print(proc.stdout.rstrip())
    if proc.returncode != 0:
        lines = [ln.strip() for ln in proc.stdout.splitlines() if ln.strip()]
        errors = [ln for ln in lines if "| ERROR]" in ln or "| CRITICAL]" in ln]
        last = (errors or lines or ["no output"])[-1]
        raise NbgraderFailed(
            f"nbgrader {args[0]} failed (exit {proc.returncode}): {last[:300]} "
            f"(full log: {_rel(lay, log_path)})"
        )
    return proc


def _digest(*paths: Path) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(str(p).encode())
        h.update(p.read_bytes() if p.is_file() else b"<missing>")
    return h.hexdigest()


def generate_release(
    module_id: str,
    course_root: str | os.PathLike[str] | None = None,
    *,
    release_dir: str | os.PathLike[str] | None = None,
    db_url: str | None = None,
    verbose: bool = False,
    runner: nbrun.Runner | None = None,
) -> Path:
    """Run `nbgrader generate_assignment --force` for one drill; return the release notebook.

    `release_dir` (default: the config's release folder, i.e. drills/) and `db_url` (default: the
    config's gradebook) can be redirected so a check can regenerate without touching either.
    """
    lay = layout(course_root)
    module = _drill_module(module_id, lay)
    args = ["generate_assignment", module.slug, "--force"]
    out_root = lay.release
    if release_dir is not None:
        out_root = Path(release_dir).resolve()
        args.append(f"--CourseDirectory.release_directory={out_root}")
    if db_url is not None:
        args.append(f"--CourseDirectory.db_url={db_url}")
    try:
        _run_nbgrader(lay, args, f"generate-{module.slug}", verbose=verbose, runner=runner)
    except NbgraderFailed as exc:
        log = lay.build / "logs" / f"generate-{module.slug}.log"
        if log.is_file() and "Cannot add or remove cells" in log.read_text(encoding="utf-8"):
            raise DrillChangedSinceGraded(
                f"drill {module.id} ({module.slug}) changed since it was last graded here: cells "
                "were added or removed, and nbgrader will not regenerate a drill that has graded "
                f"attempts in the gradebook. Run `./course reset {module.id}` (it lists what it "
                "removes, its graded attempts included, and asks first), then grade again; your "
                "notebook in drills/ is kept"
            ) from exc
        raise
    out = out_root / module.slug / NOTEBOOK_NAME
    if not out.is_file():
        raise NbgraderFailed(f"nbgrader generate_assignment wrote no {out}")
    return out


def register(
    module_id: str, course_root: str | os.PathLike[str] | None = None, *, verbose: bool = False,
    runner: nbrun.Runner | None = None,
) -> Path:
    """Make sure the gradebook knows the drill as its source is now; return the fresh release.

    Runs `nbgrader generate_assignment` into build/release/ (never into drills/, where the learner
    works) only when the source notebook, nbgrader_config.py or the gradebook changed since the
    last time. The returned notebook is a fresh generation of the release.
    """
    lay = layout(course_root)
    module = _drill_module(module_id, lay)
    release_root = lay.build / "release"
    release = release_root / module.slug / NOTEBOOK_NAME
    stamp = lay.build / "release" / f".{module.slug}.stamp"
    src = lay.source / module.slug / NOTEBOOK_NAME
    db_file = Path(lay.db_url[len("sqlite:///") :]) if lay.db_url.startswith("sqlite:///") else None
    want = _digest(src, lay.root / catalog.ROOT_MARKER) + lay.db_url
    fresh = (
        release.is_file()
        and stamp.is_file()
        and stamp.read_text() == want
        and (db_file is None or db_file.is_file())
    )
    if not fresh:
        # a new gradebook without nbgrader's `alembic heads` run; in a fork of the warm template
        # when there is one (it has imported nbgrader.api; this process imports it later, while
        # autograde runs), else here
        done = False
        if runner is not None:
            try:
                done = runner.ensure_gradebook(lay.db_url)
            except (OSError, nbrun.RunnerDied):
                done = False
        if not done:
            gradebook.ensure(lay.db_url)
        generate_release(module.id, lay.root, release_dir=release_root, verbose=verbose,
                         runner=runner)
        stamp.write_text(want)
    return release


def _stage(module: Module, lay: Layout, learner: str, notebook: Path) -> Path:
    """A private copy of the learner's notebook, taken once: the out-of-kernel grader reads it
    and, once the drill is registered, it becomes the submission (so both graders see the same
    bytes even if the learner saves again meanwhile). Nothing of the previous attempt is touched."""
    folder = lay.build / "oracle" / module.slug
    folder.mkdir(parents=True, exist_ok=True)
    dest = folder / f".{learner}.staged.ipynb"
    shutil.copyfile(notebook, dest)
    return dest


def _submit(module: Module, lay: Layout, learner: str, notebook: Path) -> Path:
    """Replace the learner's previous submission (and its feedback) with `notebook`; called only
    once the drill is registered, so a refused grading leaves the previous attempt as it was."""
    folder = lay.submitted / learner / module.slug
    if folder.exists():
        shutil.rmtree(folder)
    stale_feedback = lay.feedback / learner / module.slug
    if stale_feedback.exists():  # never report an older attempt's feedback as this one's
        shutil.rmtree(stale_feedback)
    folder.mkdir(parents=True)
    dest = folder / NOTEBOOK_NAME
    shutil.copyfile(notebook, dest)
    return dest


def _selection(lay: Layout, module: Module, learners: list[str]) -> list[str]:
    """nbgrader arguments selecting exactly `learners` among the submissions of this drill."""
    if len(learners) == 1:
        return [f"--CourseDirectory.student_id={learners[0]}"]
    others = sorted(
        p.parent.name
        for p in lay.submitted.glob(f"*/{module.slug}")
        if p.is_dir() and p.parent.name not in learners
    )
    args = ["--CourseDirectory.student_id=*"]
    if others:
        args.append("--CourseDirectory.student_id_exclude=" + ",".join(others))
    return args


def _first_line(text: str) -> str:
    for line in _ANSI_RE.sub("", text).splitlines():
        if line.strip():
            return line.strip()
    return ""


def _cell_message(cell: Any) -> str | None:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            ename = out.get("ename", "Error")
            evalue = _first_line(str(out.get("evalue", "")))
            if evalue:
                return f"{ename}: {evalue}"
            if ename == "NotImplementedError":
                return "NotImplementedError (an answer cell is not filled in yet)"
            return ename
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream" and out.get("name") == "stderr":
            return "wrote to stderr (scored 0): " + _first_line(str(out.get("text", "")))
    return None


def _read_report(
    module: Module, lay: Layout, learner: str, source_nb: Any, hidden: list[str], seconds: float,
    verdict: Any = None,
) -> GradeReport:
    import nbformat
    from nbgrader.api import Gradebook, MissingEntry

    autograded = lay.autograded / learner / module.slug / NOTEBOOK_NAME
    feedback = lay.feedback / learner / module.slug / f"{NOTEBOOK_ID}.html"
    submitted = lay.submitted / learner / module.slug / NOTEBOOK_NAME
    if not autograded.is_file():
        raise NbgraderFailed(
            f"nbgrader autograde produced no notebook for {learner} ({autograded})"
        )
    with Gradebook(lay.db_url, lay.course_id) as gb:
        try:
            sub = gb.find_submission_notebook(NOTEBOOK_ID, module.slug, learner)
        except MissingEntry:
            raise NbgraderFailed(
                f"the gradebook has no grades for {learner} in {module.slug}"
            ) from None
        grades = {g.name: (g.auto_score if g.auto_score is not None else g.score, g.max_score,
                           g.auto_score) for g in sub.grades}
    run_nb = nbformat.read(str(autograded), as_version=4)
    by_id = {}
    other_errors: list[tuple[str, str]] = []
    for i, cell in enumerate(run_nb.cells):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        gid = meta.get("grade_id")
        if gid:
            by_id[gid] = cell
        if cell.cell_type == "code" and not meta.get("grade"):
            msg = _cell_message(cell)
            if msg:
                other_errors.append((gid or f"cell {i}", msg))
    cells = []
    for gid, _ in _grade_ids(source_nb):
        if gid not in grades:
            continue
        score, max_score, auto = grades[gid]
        msg = None
        inside, outside = float(score), None
        if auto is None:
            msg = "needs manual grading"
        else:
            final, outside, why = _final(gid, float(score), float(max_score), verdict)
            if score < max_score:
                msg = _cell_message(by_id.get(gid, {})) or f"scored {score:g} of {max_score:g}"
            elif final < float(score):
                msg = f"in-kernel {score:g}, out-of-kernel {outside:g}: {why}"
            score = final
        cells.append(CellResult(gid, float(score), float(max_score), msg, inside, outside,
                                manual=auto is None))
    leaks = feedback_leaks(feedback, hidden) if feedback.is_file() else []
    return GradeReport(
        module_id=module.id,
        slug=module.slug,
        learner=learner,
        cells=cells,
        score=float(sum(c.score for c in cells)),
        max_score=float(sum(c.max_score for c in cells)),
        feedback_path=feedback if feedback.is_file() else None,
        autograded_path=autograded,
        submitted_path=submitted,
        other_errors=other_errors,
        leaked_lines=leaks,
        seconds=seconds,
        log_path=lay.build / "logs" / f"autograde-{module.slug}.log",
    )


def autograde_many(
    module_id: str,
    submissions: Mapping[str, str | os.PathLike[str]],
    course_root: str | os.PathLike[str] | None = None,
    *,
    feedback: bool = True,
    verbose: bool = False,
    oracle: bool = True,
    one_per_run: bool = False,
) -> dict[str, GradeReport]:
    """Submit several learners' notebooks and grade them with ONE `nbgrader autograde` run
    (`one_per_run`: one run per learner, so a submission that kills its kernel cannot stop the
    others'; without it, a failed batch run is retried one learner at a time).

    With `oracle` (the default) every submission is also graded out of the learner's reach
    (:mod:`minirt_course.course.oracle`, started alongside nbgrader) and each cell's score is
    min(in-kernel, out-of-kernel), written into the gradebook as nbgrader's manual score so the
    feedback and `nbgrader export` report it. `submissions` maps learner name -> notebook path.
    Every notebook is checked first (a bad one raises, naming the learner). Returns learner ->
    GradeReport. Feedback leaks are reported in `GradeReport.leaked_lines`, not raised.
    """
    if not submissions:
        raise CourseError("autograde_many: no submissions given")
    lay = layout(course_root)
    module = _drill_module(module_id, lay)
    learners = [_check_learner(name) for name in submissions]
    started = time.monotonic()
    # The warm nbgrader template imports while the notebooks are checked (it reads nothing of
    # them and runs no command before they pass; a refused one kills it), then while the
    # submissions are copied and the out-of-kernel grader starts; the oracle reads only the
    # submitted copy and the source, never the gradebook, so it runs alongside
    # generate_assignment too.
    runner = _warm_runner(lay)
    try:
        for name, path in submissions.items():
            try:
                check_submission(module.id, path, lay.root)
            except CourseError as exc:
                if len(submissions) == 1:
                    raise
                raise type(exc)(f"learner {name}: {exc}") from None
    except BaseException:
        if runner is not None:
            runner.kill()
        raise
    oracles: _OracleRuns | None = None
    staged: dict[str, Path] = {}
    try:
        staged = {name: _stage(module, lay, name, Path(path))
                  for name, path in submissions.items()}
        oracles = _OracleRuns(module, lay, staged) if oracle else None
        register(module.id, lay.root, verbose=verbose, runner=runner)
        # Only now that the drill is registered does this attempt replace the previous one.
        for name, path in staged.items():
            _submit(module, lay, name, path)
        prefetch = _prefetch_gradebook_api()
        failed = _autograde(module, lay, learners, one_per_run, verbose, runner)
        prefetch.join()
        verdicts = oracles.collect() if oracles is not None else {}
        graded = [n for n in learners if n not in failed]
        for name in graded:
            if oracles is not None:
                _write_final_scores(module, lay, name, verdicts.get(name))
        if feedback and graded:
            for group in ([[n] for n in graded] if one_per_run or failed else [graded]):
                _run_nbgrader(
                    lay,
                    ["generate_feedback", module.slug, "--force",
                     *_selection(lay, module, group)],
                    f"feedback-{module.slug}",
                    verbose=verbose,
                    runner=runner,
                )
    finally:
        if oracles is not None:
            oracles.stop()
        if runner is not None:
            runner.close()
        for path in staged.values():
            path.unlink(missing_ok=True)
    source_nb = _read_notebook(lay.source / module.slug / NOTEBOOK_NAME, "drill source")
    hidden = hidden_test_lines(source_nb)
    seconds = time.monotonic() - started
    out = {}
    for name in learners:
        if name in failed:
            out[name] = _failed_report(module, lay, name, source_nb, failed[name], seconds,
                                       verdicts.get(name))
        else:
            out[name] = _read_report(module, lay, name, source_nb, hidden, seconds,
                                     verdicts.get(name) if oracles is not None else None)
    return out


def _prefetch_gradebook_api() -> threading.Thread:
    """Import nbgrader.api (about 0.8-1 s of CPU in a fresh process) in a thread while
    `nbgrader autograde` runs, for the gradebook reads and writes that follow it.

    Only the moment changes: it is the module this process imports right after autograde anyway
    (:func:`_write_final_scores`), and the caller joins the thread before that. While autograde
    runs, this process only waits for it (no other import that could contend for an import
    lock), starts no process but through exec (subprocess; the warm template forks in its own
    process), and runs no learner code. An import error is left to the caller's own import to
    raise."""

    def run() -> None:
        with contextlib.suppress(Exception):
            import nbgrader.api  # noqa: F401

    thread = threading.Thread(target=run, name="import-nbgrader-api", daemon=True)
    thread.start()
    return thread


def _autograde(module: Module, lay: Layout, learners: list[str], one_per_run: bool,
               verbose: bool, runner: nbrun.Runner | None) -> dict[str, str]:
    """Run `nbgrader autograde` for `learners` (one batch, or one run each); learner -> why it
    could not be graded, for those nbgrader failed on."""
    failed: dict[str, str] = {}
    groups = [[n] for n in learners] if one_per_run else [learners]
    for group in groups:
        try:
            _run_nbgrader(
                lay,
                ["autograde", module.slug, "--force", *_selection(lay, module, group)],
                f"autograde-{module.slug}",
                verbose=verbose,
                runner=runner,
            )
        except NbgraderFailed as exc:
            if len(group) == 1:
                failed[group[0]] = str(exc)
                continue
            for name in group:  # one submission may have killed the batch: grade each alone
                try:
                    _run_nbgrader(lay, ["autograde", module.slug, "--force",
                                        f"--CourseDirectory.student_id={name}"],
                                  f"autograde-{module.slug}", verbose=verbose, runner=runner)
                except NbgraderFailed as one:
                    failed[name] = str(one)
    return failed


# --------------------------------------------------------------------------- out-of-kernel score


class _OracleRuns:
    """One `python -m minirt_course.course.oracle` per submission, started before nbgrader so both run
    at once (two at a time: the course machine has two cores)."""

    PARALLEL = 2

    def __init__(self, module: Module, lay: Layout, submitted: Mapping[str, Path]) -> None:
        self.module, self.lay = module, lay
        self.todo = list(submitted.items())
        self.running: dict[str, tuple[subprocess.Popen[bytes], Path, Path]] = {}
        self.done: dict[str, Any] = {}
        self.out_dir = lay.build / "oracle" / module.slug
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._fill()

    def _fill(self) -> None:
        while self.todo and len(self.running) < self.PARALLEL:
            name, path = self.todo.pop(0)
            out = self.out_dir / f".{name}.json.part"  # <name>.json once collected
            out.unlink(missing_ok=True)
            log = self.lay.build / "logs" / f"oracle-{self.module.slug}-{name}.log"
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("wb") as fh:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "minirt_course.course.oracle", self.module.id, str(path),
                     "--root", str(self.lay.root), "--out", str(out)],
                    cwd=self.lay.root, env=nbgrader_env(), stdin=subprocess.DEVNULL,
                    stdout=fh, stderr=subprocess.STDOUT,
                )
            self.running[name] = (proc, out, log)

    def stop(self) -> None:
        """Kill whatever is still running (collect() was not reached: an error came first)."""
        self.todo.clear()
        for proc, out, _ in self.running.values():
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            out.unlink(missing_ok=True)
        self.running.clear()

    def collect(self) -> dict[str, Any]:
        from minirt_course.course.oracle import OracleResult

        while self.running:
            for name, (proc, out, log) in list(self.running.items()):
                try:
                    proc.wait(timeout=ORACLE_TIMEOUT)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                del self.running[name]
                final = self.out_dir / f"{name}.json"
                final.unlink(missing_ok=True)
                try:
                    self.done[name] = OracleResult.from_dict(json.loads(out.read_text("utf-8")))
                    os.replace(out, final)
                except (OSError, ValueError, KeyError, TypeError):
                    self.done[name] = (f"the out-of-kernel grader gave no result (exit "
                                       f"{proc.returncode}; log: {_rel(self.lay, log)})")
                self._fill()
        return self.done


ORACLE_TIMEOUT = 600.0


def _final(gid: str, in_kernel: float, max_score: float, verdict: Any
           ) -> tuple[float, float | None, str | None]:
    """(final score, out-of-kernel score, why they differ) for one graded cell."""
    from minirt_course.course.oracle import OracleResult

    if isinstance(verdict, str):  # the oracle did not run: nothing out of reach counts
        return 0.0, 0.0, verdict
    if not isinstance(verdict, OracleResult):
        return in_kernel, None, None
    try:
        cell = verdict.cell(gid)
    except KeyError:
        return 0.0, 0.0, "the out-of-kernel grader did not reach this cell"
    out = max_score if cell.passed else 0.0
    return min(in_kernel, out), out, cell.message


def _write_final_scores(module: Module, lay: Layout, learner: str, verdict: Any) -> None:
    """Write min(in-kernel, out-of-kernel) into the gradebook as nbgrader's manual override, so
    `nbgrader export` and the feedback report the score that counts."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(lay.db_url, lay.course_id) as gb:
        try:
            sub = gb.find_submission_notebook(NOTEBOOK_ID, module.slug, learner)
        except MissingEntry:
            return
        for g in sub.grades:
            if g.auto_score is None:
                continue  # manually graded cells stay with the instructor
            final, out, why = _final(g.name, float(g.auto_score), float(g.max_score), verdict)
            # The override: nbgrader reports manual_score when set. Set only when the score that
            # counts is lower than what the learner's kernel reported.
            g.manual_score = final if final < float(g.auto_score) else None
            if final < float(g.auto_score):
                with contextlib.suppress(Exception):
                    comment = gb.find_comment(g.name, NOTEBOOK_ID, module.slug, learner)
                    comment.manual_comment = (f"out-of-kernel check: {why}" if why else
                                              "out-of-kernel check failed")
        gb.db.commit()


def _failed_report(module: Module, lay: Layout, learner: str, source_nb: Any, reason: str,
                   seconds: float, verdict: Any = None) -> GradeReport:
    """nbgrader could not grade this submission (its kernel died): 0 everywhere, with the
    out-of-kernel grader's one-line reason where it has one."""
    cells = []
    for c in source_nb.cells:
        meta = c.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution") and meta.get("grade_id"):
            gid, pts = str(meta["grade_id"]), float(meta.get("points", 0))
            _, outside, why = _final(gid, 0.0, pts, verdict)
            msg = why or "nbgrader could not run this notebook (its kernel died)"
            cells.append(CellResult(gid, 0.0, pts, msg, 0.0, outside))
    return GradeReport(
        module_id=module.id, slug=module.slug, learner=learner, cells=cells, score=0.0,
        max_score=float(sum(c.max_score for c in cells)), feedback_path=None,
        autograded_path=lay.autograded / learner / module.slug / NOTEBOOK_NAME,
        submitted_path=lay.submitted / learner / module.slug / NOTEBOOK_NAME,
        other_errors=[("nbgrader", _first_line(reason))], seconds=seconds,
    )


# --------------------------------------------------------------------------- progress and evidence


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


def _progress_file(lay: Layout) -> Path:
    return lay.state / "progress.json"


def _evidence_file(lay: Layout, module: Module) -> Path:
    return lay.state / "evidence" / f"{module.id}.jsonl"


def load_progress(course_root: str | os.PathLike[str] | None = None) -> dict[str, dict[str, Any]]:
    """module id -> {score, max, time, learner, attempts, best, feedback} of the last attempt."""
    path = _progress_file(layout(course_root))
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    modules = data.get("modules", {}) if isinstance(data, dict) else {}
    return modules if isinstance(modules, dict) else {}


def _write_json_atomic(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _rel(lay: Layout, path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return path.resolve().relative_to(lay.root).as_posix()
    except ValueError:
        return str(path)


def _record(
    report: GradeReport, lay: Layout, module: Module, command: str, notebook: Path
) -> dict[str, Any]:
    when = _now()
    progress = load_progress(lay.root)
    previous = progress.get(module.id, {})
    attempts = int(previous.get("attempts", 0)) + 1
    progress[module.id] = {
        "score": report.score,
        "max": report.max_score,
        "time": when,
        "learner": report.learner,
        "attempts": attempts,
        "best": max(report.score, float(previous.get("best", 0.0))),
        "feedback": _rel(lay, report.feedback_path),
    }
    _write_json_atomic(_progress_file(lay), {"version": 1, "modules": progress})

    evidence = _evidence_file(lay, module)
    snapshots = evidence.parent / module.id
    snapshots.mkdir(parents=True, exist_ok=True)
    snapshot = snapshots / f"attempt-{attempts:03d}.ipynb"
    # The bytes that were graded (the learner may have saved the notebook again meanwhile).
    graded = report.submitted_path if report.submitted_path.is_file() else notebook
    shutil.copyfile(graded, snapshot)
    entry = {
        "command": command,
        "time": when,
        "learner": report.learner,
        "input": _rel(lay, notebook.resolve()),
        "input_sha256": hashlib.sha256(graded.read_bytes()).hexdigest(),
        "snapshot": _rel(lay, snapshot),
        "score": report.score,
        "max": report.max_score,
        "failing": [{"grade_id": c.grade_id, "message": c.message} for c in report.failing],
        "feedback": _rel(lay, report.feedback_path),
        "attempt": attempts,
    }
    with evidence.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, sort_keys=True) + "\n")
    return entry


def read_evidence(
    module_id: str, course_root: str | os.PathLike[str] | None = None
) -> list[dict[str, Any]]:
    """Every recorded grade attempt of a module, oldest first."""
    lay = layout(course_root)
    path = _evidence_file(lay, _module(module_id))
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(ValueError):
            out.append(json.loads(line))
    return out


def reset(
    module_id: str | None = None, course_root: str | os.PathLike[str] | None = None
) -> list[str]:
    """Forget recorded progress and evidence (of one module, or all); return what was removed."""
    lay = layout(course_root)
    removed: list[str] = []
    modules = [_module(module_id)] if module_id is not None else list(catalog.MODULES)
    progress = load_progress(lay.root)
    for module in modules:
        if module.id in progress:
            del progress[module.id]
            removed.append(f"progress of module {module.id}")
        evidence = _evidence_file(lay, module)
        if evidence.is_file():
            evidence.unlink()
            removed.append(_rel(lay, evidence) or str(evidence))
        snapshots = evidence.parent / module.id
        if snapshots.is_dir():
            shutil.rmtree(snapshots)
            removed.append((_rel(lay, snapshots) or str(snapshots)) + "/")
    if removed:
        _write_json_atomic(_progress_file(lay), {"version": 1, "modules": progress})
    return removed


# --------------------------------------------------------------------------- grade one learner


def grade(
    module_id: str,
    notebook: str | os.PathLike[str] | None = None,
    learner: str | None = None,
    *,
    course_root: str | os.PathLike[str] | None = None,
    verbose: bool = False,
    record: bool = True,
    command: str | None = None,
) -> GradeReport:
    """Grade one learner's drill with nbgrader; record the attempt; return the report.

    `notebook` defaults to drills/<slug>/drill.ipynb, `learner` to $USER or "learner". Raises a
    CourseError subclass (one-line message) for anything the learner can fix, and FeedbackLeak
    (after deleting the feedback file) if the feedback would show hidden test source.
    """
    lay = layout(course_root)
    module = _drill_module(module_id, lay)
    name = _check_learner(learner or default_learner())
    path = Path(notebook) if notebook is not None else lay.release / module.slug / NOTEBOOK_NAME
    if not path.is_absolute():
        path = Path.cwd() / path
    report = autograde_many(module.id, {name: path}, lay.root, verbose=verbose)[name]
    if report.leaked_lines:
        if report.feedback_path is not None:
            report.feedback_path.unlink(missing_ok=True)
        raise FeedbackLeak(
            f"the feedback for {module.slug} would show hidden test source "
            f"({report.leaked_lines[0]!r}); it was deleted. Check GenerateFeedback.preprocessors "
            "in nbgrader_config.py and %xmode Minimal in the drill's setup cell"
        )
    if record:
        _record(report, lay, module, command or f"minirt-course grade {module.id}", path)
    return report
