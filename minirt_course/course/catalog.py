"""The course catalog: every module of the course, in course order.

One entry per module. The README course map (`python tools/nbtool.py readme-map`), the
`minirt-course progress` listing and the grading tools all read this list, so a module exists in
exactly one place. Titles, promises and minutes of modules 01-10 come from the course outline;
00 (start here), 05b (the design exercise `designOutline()`) and 11 (capstone) are ours.

A module has *landed* when its lesson notebook exists in the course folder.

``APPENDICES`` lists the optional lessons after the course (no drill, no place on the route):
the README course map lists them under the modules, and :func:`get` finds them by id (``"A"``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "APPENDICES",
    "MODULES",
    "COURSE_MAP_BEGIN",
    "COURSE_MAP_END",
    "CourseRootNotFound",
    "Module",
    "UnknownModule",
    "course_map",
    "course_root",
    "drill_path",
    "drilled_modules",
    "get",
    "landed",
    "lesson_path",
    "module_ids",
    "solution_path",
]

ROOT_MARKER = "nbgrader_config.py"
ROOT_ENV = "MINIRT_COURSE_ROOT"


@dataclass(frozen=True)
class Module:
    """One module of the course."""

    id: str
    slug: str
    title: str
    promise: str
    minutes: int
    has_drill: bool
    summary: str = ""

    @property
    def heading(self) -> str:
        """`Run state machines: separate logical intent from a worker incarnation`."""
        return f"{self.title}: {self.promise}"


MODULES: tuple[Module, ...] = (
    Module(
        "00",
        "00-start-here",
        "Start here",
        "how the course works, how to run a lesson, and how a drill is graded",
        10,
        has_drill=False,
        summary="The learner's loop: lesson, crash drill, graded drill, evidence, progress.",
    ),
    Module(
        "01",
        "01-run-state-machines",
        "Run state machines",
        "separate logical intent from a worker incarnation",
        27,
        has_drill=True,
        summary=(
            "Model durable run transitions, revision checks, stale completions, and "
            "external-effect uncertainty under an explicitly proposed runtime protocol."
        ),
    ),
    Module(
        "02",
        "02-typed-tool-contracts",
        "Typed tool contracts",
        "validate inputs without assuming atomic execution",
        27,
        has_drill=True,
        summary=(
            "Separate schema validation, domain constraints, authorization, resource limits, "
            "output validation, and partial side-effect reporting."
        ),
    ),
    Module(
        "03",
        "03-step-journals",
        "Step journals",
        "replay recorded decisions without rerunning the outside world",
        28,
        has_drill=True,
        summary=(
            "Define immutable event records, artifact references, deterministic control replay, "
            "and recovery for unresolved tool intents."
        ),
    ),
    Module(
        "04",
        "04-tool-idempotency",
        "Tool idempotency",
        "preserve the effect identity across retries",
        28,
        has_drill=True,
        summary=(
            "Separate transport attempts from logical operations, define payload-bound "
            "deduplication, and account for provider retention and unknown outcomes."
        ),
    ),
    Module(
        "05",
        "05-effect-commit-and-compensation",
        "Effect commit and compensation",
        "recover without pretending the world rewinds",
        28,
        has_drill=True,
        summary=(
            "Separate local commit boundaries, external receipts, transactional outboxes, and "
            "conditional saga compensations."
        ),
    ),
    Module(
        "05b",
        "05b-design-outline",
        "Design exercise: designOutline()",
        "name the checkpoint, idempotency and resume protocol, with a failure mode or trade-off",
        25,
        has_drill=True,
        summary=(
            "Implement designOutline() returning checkpoint, idempotency and resumeProtocol, each "
            "naming a concrete mechanism or decision, and answer the review prompt: an agent "
            "crashes after calling a payment API but before recording the result."
        ),
    ),
    Module(
        "06",
        "06-scopes-and-approvals",
        "Scopes and approvals",
        "bind authority to the exact reviewed effect",
        28,
        has_drill=True,
        summary=(
            "Separate credentials, scoped capabilities, approval receipts, artifact identity, and "
            "revocation timing in a proposed execution gate."
        ),
    ),
    Module(
        "07",
        "07-concurrent-tools",
        "Concurrent tools",
        "schedule the dependency graph, not the visible list",
        28,
        has_drill=True,
        summary=(
            "Separate data dependencies, resource conflicts, deterministic joins, structured "
            "child ownership, and bounded parallel execution."
        ),
    ),
    Module(
        "08",
        "08-cancellation",
        "Cancellation",
        "distinguish the request from quiescence and cleanup",
        28,
        has_drill=True,
        summary=(
            "Define nested deadlines, cooperative cancellation, child ownership, external-effect "
            "reconciliation, and bounded cleanup responsibilities."
        ),
    ),
    Module(
        "09",
        "09-runtime-budgets",
        "Runtime budgets",
        "reserve bounded work before dispatching it",
        28,
        has_drill=True,
        summary=(
            "Separate usage estimates from enforceable reservations across tokens, tool attempts, "
            "compute time, retries, and concurrent children."
        ),
    ),
    Module(
        "10",
        "10-recovery-traces",
        "Recovery traces",
        "bind the observed run to artifacts and fault oracles",
        29,
        has_drill=True,
        summary=(
            "Connect causal tracing with durable identities, reviewed artifacts, authoritative "
            "effect counts, and crash-window tests."
        ),
    ),
    Module(
        "11",
        "11-capstone",
        "Capstone: a durable tool-using agent",
        "one working system, an injected failure, measurements and an architecture note",
        90,
        has_drill=True,
        summary=(
            "Build an agent on minirt: journaled decisions, payments and email through contracts, "
            "approvals, concurrent look-ups, cancellation, budgets and traces, checked by the "
            "full crash sweep with zero duplicate or lost effects."
        ),
    ),
)

APPENDICES: tuple[Module, ...] = (
    Module(
        "A",
        "appendix-a-postgres-workers",
        "Appendix A: minirt on PostgreSQL",
        "run many workers on many machines, and take over a run whose worker died",
        15,
        has_drill=False,
        summary=(
            "The same runs, journals and fencing in a real PostgreSQL server; worker processes "
            "claim runs with leases, one is SIGKILLed, another finishes its run."
        ),
    ),
)

_BY_ID = {m.id.lower(): m for m in (*MODULES, *APPENDICES)}


class UnknownModule(KeyError):
    """A module id that is not in the catalog."""

    def __init__(self, module_id: str) -> None:
        self.module_id = module_id
        super().__init__(module_id)

    def __str__(self) -> str:
        return f"unknown module {self.module_id!r}; valid ids: {', '.join(module_ids())}"


class CourseRootNotFound(RuntimeError):
    """No course folder (one holding nbgrader_config.py) could be found."""


def module_ids() -> list[str]:
    """All module ids in course order."""
    return [m.id for m in MODULES]


def get(module_id: str) -> Module:
    """The module with this id (`"1"` and `"5B"` are accepted for `"01"` and `"05b"`).

    Raises UnknownModule, whose message lists the valid ids.
    """
    key = str(module_id).strip().lower()
    if key.isdigit() and len(key) == 1:
        key = "0" + key
    if key[:-1].isdigit() and len(key) == 2 and key.endswith("b"):
        key = "0" + key
    try:
        return _BY_ID[key]
    except KeyError:
        by_slug = {m.slug: m for m in (*MODULES, *APPENDICES)}
        if key in by_slug:
            return by_slug[key]
        raise UnknownModule(str(module_id)) from None


def _is_root(path: Path) -> bool:
    return (path / ROOT_MARKER).is_file()


def course_root(start: str | os.PathLike[str] | None = None) -> Path:
    """The course folder: the one place that decides where lessons, drills and build/ live.

    In order: the environment variable MINIRT_COURSE_ROOT; the nearest folder holding
    nbgrader_config.py from `start` (default: the current directory) upwards; the folder this
    package was installed from in editable mode.
    """
    env = os.environ.get(ROOT_ENV)
    if env:
        root = Path(env).expanduser().resolve()
        if not _is_root(root):
            raise CourseRootNotFound(f"{ROOT_ENV}={env} has no {ROOT_MARKER}")
        return root
    here = Path(start if start is not None else Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if _is_root(candidate):
            return candidate
    package_checkout = Path(__file__).resolve().parents[2]
    if _is_root(package_checkout):
        return package_checkout
    raise CourseRootNotFound(
        f"no course folder found: no {ROOT_MARKER} in {here} or any folder above it; "
        f"run this from inside the course folder or set {ROOT_ENV}"
    )


def _root(root: str | os.PathLike[str] | None) -> Path:
    return Path(root).resolve() if root is not None else course_root()


def lesson_path(module_id: str, root: str | os.PathLike[str] | None = None) -> Path:
    """`lessons/<slug>.ipynb` of the module."""
    return _root(root) / "lessons" / f"{get(module_id).slug}.ipynb"


def solution_path(module_id: str, root: str | os.PathLike[str] | None = None) -> Path:
    """`solutions/<slug>/drill.ipynb`: the nbgrader source of the module's drill."""
    return _root(root) / "solutions" / get(module_id).slug / "drill.ipynb"


def drill_path(module_id: str, root: str | os.PathLike[str] | None = None) -> Path:
    """`drills/<slug>/drill.ipynb`: the release the learner works in."""
    return _root(root) / "drills" / get(module_id).slug / "drill.ipynb"


def landed(module_id: str, root: str | os.PathLike[str] | None = None) -> bool:
    """True when the module's lesson notebook exists."""
    return lesson_path(module_id, root).is_file()


def drilled_modules(root: str | os.PathLike[str] | None = None) -> list[Module]:
    """Modules whose drill source exists, in course order."""
    base = _root(root)
    return [m for m in MODULES if m.has_drill and solution_path(m.id, base).is_file()]


COURSE_MAP_BEGIN = "<!-- course-map -->"
COURSE_MAP_END = "<!-- /course-map -->"


def course_map(root: str | os.PathLike[str] | None = None) -> str:
    """The README's course map (a Markdown table), generated from MODULES and the files present.

    A module is ✅ landed when its lesson exists, ⏳ planned otherwise; lesson and drill cells link
    to the files that exist.
    """
    base = _root(root)
    lines = [
        "| # | Module | You will be able to | Min | Lesson | Drill | Status |",
        "|---|---|---|--:|---|---|---|",
    ]
    for m in MODULES:
        lesson = lesson_path(m.id, base)
        drill = drill_path(m.id, base)
        lesson_cell = f"[{lesson.name}](lessons/{lesson.name})" if lesson.is_file() else "—"
        if not m.has_drill:
            drill_cell = "no drill"
        elif drill.is_file():
            drill_cell = f"[drill](drills/{m.slug}/{drill.name})"
        else:
            drill_cell = "—"
        status = "✅ landed" if lesson.is_file() else "⏳ planned"
        lines.append(
            f"| {m.id} | {m.title} | {m.promise} | {m.minutes} | {lesson_cell} | {drill_cell} | {status} |"
        )
    for m in APPENDICES:
        lesson = lesson_path(m.id, base)
        lesson_cell = f"[{lesson.name}](lessons/{lesson.name})" if lesson.is_file() else "—"
        status = "✅ landed" if lesson.is_file() else "⏳ planned"
        lines.append(
            f"| {m.id} | {m.title} | {m.promise} | {m.minutes} | {lesson_cell} | optional, no drill"
            f" | {status} |"
        )
    total = sum(m.minutes for m in MODULES)
    lines.append("")
    lines.append(
        f"{len(MODULES)} modules, about {total // 60} h {total % 60:02d} min of lessons "
        f"(drills and the capstone take longer), and {len(APPENDICES)} optional appendix. Generated from `minirt_course/course/catalog.py` by "
        "`python tools/nbtool.py readme-map`."
    )
    return "\n".join(lines)
