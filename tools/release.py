"""Build the learner release of the course: `python tools/release.py OUT [--no-wheel]`.

OUT becomes a small source tree and, in OUT/dist/, a wheel built from it:

    OUT/pyproject.toml          distribution `minirt-course` (the runtime + the learner's tooling)
    OUT/minirt/                 the runtime
    OUT/minirt_course/          the course tooling, without what only the instructor's grading uses
    OUT/minirt_course/course/material/ lessons/*.ipynb and drills/<slug>/drill.ipynb (package data)
    OUT/dist/*.whl              `pip install` it, then `minirt-course start [DIR]`

Each lesson of the release gets a first cell that installs the course on Colab (it acts only when
`google.colab` imports; `--wheel-url` says where the wheel is published). The repository's own
lessons do not carry it: their first two cells (title, contents) are pinned by
minirt_course.course.navigation and its tests.

Invariant: nothing in OUT comes from solutions/, tests/ or tools/; the drills are nbgrader's
release versions (drills/, hidden tests already stripped by `nbgrader generate_assignment`);
minirt_course/grading/ is replaced by a pruned copy that holds only the top-level definitions the
learner's notebooks reach (what the visible test cells and lessons call, and what those need,
found by following names through the modules' syntax trees). Modules that exist only to grade
out of the learner's reach (the oracle, the sandbox and their channel) are left out.

Guarantees: `check(OUT)` fails when a solution cell's source line, a `### BEGIN SOLUTION` /
`BEGIN HIDDEN TESTS` marker or a hidden-test line appears in any file of OUT; the build fails
when a pruned module does not compile. Does not guarantee that every lesson runs in the release:
tests/test_release.py runs one lesson and one drill's visible tests from it.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GRADING = "minirt_course.grading"
#: course modules the learner's side never imports: they grade out of the kernel's reach.
INSTRUCTOR_ONLY = (
    "minirt_course/course/oracle.py",
    "minirt_course/course/sandbox.py",
    "minirt_course/course/channel.py",
    "minirt_course/course/learner_main.py",
    "minirt_course/course/wire.py",
)
#: The release's own nbgrader config: drills are the release, there is no source folder.
RELEASE_NBGRADER_CONFIG = '''"""nbgrader configuration of a learner's copy of the course (minirt-course start).

The drills here are nbgrader's release versions; the source with the solutions and hidden tests is
with the instructor. `nbgrader validate drills/<slug>/drill.ipynb` runs a drill's visible tests.
"""

import os

c = get_config()  # noqa: F821
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "durable-agents"
c.CourseDirectory.release_directory = "drills"
c.Execute.timeout = 120
c.ExecutePreprocessor.timeout = 120
# minirt_course/course/kernel_client.py: no cell waits its whole timeout for a reply already there.
c.ExecutePreprocessor.kernel_manager_class = "minirt_course.course.kernel_client.SlicedKernelManager"
'''


COLAB_CELL_ID = "colab-setup"


def colab_cell_source(wheel: str) -> str:
    """The release lessons' first cell: on Colab it installs the course, elsewhere it does
    nothing (it acts only when `google.colab` imports)."""
    return (
        "# On Colab only (elsewhere this cell does nothing): install the course.\n"
        "try:\n"
        "    import google.colab  # noqa: F401\n"
        "except ImportError:\n"
        "    pass\n"
        "else:\n"
        "    import os\n"
        f'    WHEEL = os.environ.get("MINIRT_COURSE_WHEEL", {wheel!r})\n'
        "    %pip install -q {WHEEL}"
    )


def with_colab_cell(nb: dict, wheel: str) -> dict:
    """`nb` with the Colab cell first (replacing an older one); idempotent."""
    cell = {"cell_type": "code", "execution_count": None, "id": COLAB_CELL_ID,
            "metadata": {"tags": ["colab"]}, "outputs": [],
            "source": colab_cell_source(wheel).splitlines(keepends=True)}
    out = dict(nb)
    out["cells"] = [cell, *[c for c in nb["cells"] if c.get("id") != COLAB_CELL_ID]]
    return out


class ReleaseError(Exception):
    """The release could not be built, or a check of it failed."""


# --------------------------------------------------------------------------- what notebooks use


def _code_cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        src = "".join(cell.get("source", []))
        # IPython syntax is not Python: drop magics and shell lines before parsing.
        src = "\n".join(ln[: len(ln) - len(ln.lstrip())] + "pass"
                        if ln.lstrip().startswith(("%", "!")) else ln for ln in src.splitlines())
        out.append(src)
    return out


def grading_roots(notebooks: Iterable[Path]) -> dict[str, set[str]]:
    """module (`minirt_course.grading` or `minirt_course.grading.m01`) -> top-level names the notebooks use."""
    roots: dict[str, set[str]] = {}
    submodules = {p.stem for p in (ROOT / "minirt_course" / "grading").glob("*.py")} - {"__init__"}

    def add(module: str, name: str) -> None:
        if module == GRADING and name in submodules:
            roots.setdefault(f"{GRADING}.{name}", set())
        else:
            roots.setdefault(module, set()).add(name)

    for path in notebooks:
        alias: dict[str, str] = {}  # local name -> grading module it stands for (per notebook)
        trees = []
        for src in _code_cells(path):
            try:
                trees.append(ast.parse(src))
            except SyntaxError as exc:
                raise ReleaseError(f"{path}: a code cell does not parse ({exc})") from None
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(GRADING):
                    for a in node.names:
                        add(node.module, a.name)
                        if node.module == GRADING and a.name in submodules:
                            alias[a.asname or a.name] = f"{GRADING}.{a.name}"
                elif isinstance(node, ast.Import):
                    for a in node.names:
                        if a.name.startswith(GRADING + "."):
                            roots.setdefault(a.name, set())
                            if a.asname:
                                alias[a.asname] = a.name
        for tree in trees:
            for node in ast.walk(tree):
                if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                        and node.value.id in alias):
                    roots.setdefault(alias[node.value.id], set()).add(node.attr)
                elif isinstance(node, ast.Attribute):  # minirt_course.grading.m03.X written out
                    dotted = ast.unparse(node.value)
                    if dotted.startswith(GRADING + "."):
                        roots.setdefault(dotted, set()).add(node.attr)
    return roots


# --------------------------------------------------------------------------- pruning a module


def _bound(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    return set()


def _used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


@dataclass
class Pruned:
    module: str
    source: str
    kept: list[str]
    dropped: list[str]
    needs: dict[str, set[str]] = field(default_factory=dict)  # sibling grading module -> names


def prune(module: str, path: Path, wanted: set[str]) -> Pruned:
    """Keep the imports, definitions and assignments of `path` that `wanted` reaches."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = list(tree.body)
    doc = None
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        doc = body.pop(0)
    defs = [n for n in body if _bound(n) and not isinstance(n, ast.Import | ast.ImportFrom)]
    defined = {name for n in defs for name in _bound(n)}
    need = set(wanted)
    if "__all__" in need:
        need.discard("__all__")
    missing = need - defined - {b for n in body if isinstance(n, ast.Import | ast.ImportFrom)
                                for b in _bound(n)}
    if missing:
        raise ReleaseError(f"{module} has no top-level {sorted(missing)} (a notebook uses it)")
    # other top-level statements (if/try/expressions) always stay, with what they use
    for n in body:
        if not _bound(n) and not isinstance(n, ast.Expr | ast.Import | ast.ImportFrom):
            need |= _used(n)
    changed = True
    while changed:
        changed = False
        for n in defs:
            if _bound(n) & need and not _used(n) <= need | _bound(n):
                need |= _used(n)
                changed = True
    kept_nodes: list[ast.stmt] = []
    kept, dropped = [], []
    needs: dict[str, set[str]] = {}
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for n in body:
        if isinstance(n, ast.ImportFrom | ast.Import):
            names = [a for a in n.names if (a.asname or a.name).split(".")[0] in need
                     or a.name == "annotations"]
            if not names:
                continue
            n.names = names
            if isinstance(n, ast.ImportFrom) and n.level:
                base = package.split(".")
                base = base[: len(base) - (n.level - 1)]
                target = ".".join(base + ([n.module] if n.module else []))
                if target.startswith(GRADING):
                    for a in names:
                        if n.module is None:
                            needs.setdefault(f"{target}.{a.name}", set())
                        else:
                            needs.setdefault(target, set()).add(a.name)
            kept_nodes.append(n)
        elif _bound(n):
            names = _bound(n)
            if names == {"__all__"}:
                continue
            if names & need:
                kept_nodes.append(n)
                kept += sorted(names)
            else:
                dropped += sorted(names)
        elif isinstance(n, ast.Expr):
            continue
        else:
            kept_nodes.append(n)
    header = (
        f"Learner release: a pruned copy of {module}. It keeps only what the learner's "
        "notebooks use (and what that needs); the hidden tests' helpers stay with the instructor."
    )
    if doc is not None:
        header += "\n\n" + str(doc.value.value).strip()
    tree.body = [ast.Expr(ast.Constant(header)), *kept_nodes]
    source = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    compile(source, str(path), "exec")
    return Pruned(module, source, kept, dropped, needs)


def prune_grading(roots: dict[str, set[str]]) -> dict[str, Pruned]:
    """Prune every grading module the roots reach, following relative imports between them."""
    want: dict[str, set[str]] = {m: set(n) for m, n in roots.items()}
    want.setdefault(GRADING, set())
    done: dict[str, Pruned] = {}
    pruned_for: dict[str, frozenset[str]] = {}
    while True:
        todo = [m for m in sorted(want) if pruned_for.get(m) != frozenset(want[m])]
        if not todo:
            return done
        for m in todo:
            rel = m.split(".")[2:]
            path = ROOT / "minirt_course" / "grading" / ("/".join(rel) + ".py" if rel else "__init__.py")
            if not path.is_file():
                raise ReleaseError(f"no module {m} ({path})")
            pruned_for[m] = frozenset(want[m])
            p = prune(m, path, want[m])
            done[m] = p
            for dep, names in p.needs.items():
                want.setdefault(dep, set()).update(names)


# --------------------------------------------------------------------------- building


def _lesson_files() -> list[Path]:
    return sorted((ROOT / "lessons").glob("*.ipynb"))


def _drill_files() -> list[Path]:
    return sorted((ROOT / "drills").glob("*/drill.ipynb"))


def _pyproject() -> str:
    import tomllib

    src = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    learner = src["optional-dependencies"]["learner"]
    deps = [*src["dependencies"], *learner]
    dep_lines = "".join(f'  "{d}",\n' for d in deps)
    return (
        "[build-system]\n"
        'requires = ["setuptools>=64"]\n'
        'build-backend = "setuptools.build_meta"\n\n'
        "[project]\n"
        'name = "minirt-course"\n'
        f'version = "{src["version"]}"\n'
        'description = "Durable execution for tool-using agents: the course (lessons, drills) '
        'and minirt"\n'
        'readme = "README.md"\n'
        f'requires-python = "{src["requires-python"]}"\n'
        f"dependencies = [\n{dep_lines}]\n\n"
        "[project.scripts]\n"
        'minirt-course = "minirt_course.course.cli:main"\n'
        'minirt = "minirt.cli:main"\n\n'
        "[tool.setuptools.packages.find]\n"
        'include = ["minirt*"]\n\n'
        "[tool.setuptools.package-data]\n"
        '"minirt_course.course" = ["material/*", "material/**/*"]\n'
    )


README = """# Durable execution for tool-using agents (learner release)

    pip install minirt_course-*.whl
    minirt-course start ~/durable-agents     # copies lessons and drills there, opens JupyterLab

In a notebook: `%load_ext minirt_course.course.magic`, then `%grade` (the visible tests of the open
drill) and `%progress`. Hidden tests and solutions are with your instructor.
"""


def wheel_name() -> str:
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"]
    return f"minirt_course-{version}-py3-none-any.whl"


def build(out: Path, *, wheel: bool = True, progress: bool = True,
          wheel_url: str | None = None) -> dict[str, object]:
    """Write the release into `out` (which must not exist or be empty); return a summary.

    `wheel_url` is where the release's wheel will be published: the lessons' Colab cell installs
    from it (default: the wheel's file name, for a learner who uploads it to Colab)."""
    def say(msg: str) -> None:
        if progress:
            print(f"release: {msg}", flush=True)

    out = out.resolve()
    if out.exists() and any(out.iterdir()):
        raise ReleaseError(f"{out} exists and is not empty")
    if ROOT in out.parents or out == ROOT:
        if not (out.parent == ROOT / "build" or ROOT / "build" in out.parents):
            raise ReleaseError(f"{out} is inside the repository: use a folder under build/ or outside")
    out.mkdir(parents=True, exist_ok=True)
    notebooks = _lesson_files() + _drill_files()
    say(f"{len(_lesson_files())} lessons, {len(_drill_files())} drills (nbgrader release versions)")
    roots = grading_roots(notebooks)
    pruned = prune_grading(roots)
    say("minirt_course.grading pruned to what the notebooks use: " + ", ".join(
        f"{m.rsplit('.', 1)[-1]} {len(p.kept)} kept/{len(p.kept) + len(p.dropped)}"
        for m, p in sorted(pruned.items())))

    skip = {ROOT / s for s in INSTRUCTOR_ONLY}
    copied = 0
    for src in sorted([*(ROOT / "minirt").rglob("*"), *(ROOT / "minirt_course").rglob("*")]):
        rel = src.relative_to(ROOT)
        if (src.is_dir() or "__pycache__" in rel.parts or src.suffix == ".pyc"
                or rel.parts[:2] == ("minirt_course", "grading") or src in skip):
            continue
        dest = out / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        copied += 1
    grading = out / "minirt_course" / "grading"
    grading.mkdir(parents=True)
    for m, p in pruned.items():
        rel = m.split(".")[2:]
        (grading / ("/".join(rel) + ".py" if rel else "__init__.py")).write_text(
            p.source, encoding="utf-8")
    material = out / "minirt_course" / "course" / "material"
    for nb in _lesson_files():
        dest = material / "lessons" / nb.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        lesson = with_colab_cell(json.loads(nb.read_text(encoding="utf-8")),
                                 wheel_url or wheel_name())
        dest.write_text(json.dumps(lesson, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for nb in _drill_files():
        dest = material / "drills" / nb.parent.name / nb.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(nb, dest)
    (material / "nbgrader_config.py").write_text(RELEASE_NBGRADER_CONFIG, encoding="utf-8")
    (out / "pyproject.toml").write_text(_pyproject(), encoding="utf-8")
    (out / "README.md").write_text(README, encoding="utf-8")
    say(f"copied {copied} runtime files; left out minirt_course/grading (pruned copy instead) and "
        + ", ".join(Path(s).name for s in INSTRUCTOR_ONLY))
    problems = check(out)
    if problems:
        raise ReleaseError("the release leaks instructor material:\n  " + "\n  ".join(problems[:20]))
    say("checked: no solution line, no hidden test line, no BEGIN SOLUTION/HIDDEN marker")
    summary: dict[str, object] = {"out": str(out), "pruned": {
        m: {"kept": p.kept, "dropped": len(p.dropped)} for m, p in pruned.items()}}
    if wheel:
        say("building the wheel (pip wheel --no-deps)")
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps",
             "--disable-pip-version-check", "-q", "-w", str(out / "dist"), str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
        if proc.returncode != 0:
            raise ReleaseError("pip wheel failed:\n" + proc.stdout[-2000:])
        shutil.rmtree(out / "build", ignore_errors=True)
        for egg in out.glob("*.egg-info"):
            shutil.rmtree(egg)
        wheels = sorted((out / "dist").glob("*.whl"))
        summary["wheel"] = str(wheels[0])
        say(f"wheel: {wheels[0].relative_to(out)} ({wheels[0].stat().st_size // 1024} KiB)")
    return summary


# --------------------------------------------------------------------------- checking


_MARKERS = re.compile(r"BEGIN SOLUTION|END SOLUTION|BEGIN HIDDEN TESTS|END HIDDEN TESTS")


def instructor_lines() -> list[str]:
    """Distinctive source lines of the solutions' answer regions and hidden tests."""
    lines: set[str] = set()
    for nb_path in sorted((ROOT / "solutions").glob("*/drill.ipynb")):
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        for cell in nb.get("cells", []):
            src = "".join(cell.get("source", []))
            for block in re.findall(
                r"### BEGIN (?:SOLUTION|HIDDEN TESTS)\n(.*?)### END (?:SOLUTION|HIDDEN TESTS)",
                src, re.S):
                for ln in block.splitlines():
                    s = ln.strip()
                    if len(s) >= 30 and not s.startswith("#"):
                        lines.add(s)
    return sorted(lines - public_lines())


def public_lines() -> set[str]:
    """Lines the learner has anyway: every cell of the lessons and drills, and the runtime's own
    source (minirt outside grading: the lessons show it with `show(...)`; many answers are that
    code, by the course's design)."""
    public: set[str] = set()
    for nb_path in _drill_files() + _lesson_files():
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        for cell in nb.get("cells", []):
            public |= {ln.strip() for ln in "".join(cell.get("source", [])).splitlines()}
    skip = {ROOT / s for s in INSTRUCTOR_ONLY}
    for py in [*(ROOT / "minirt").rglob("*.py"), *(ROOT / "minirt_course").rglob("*.py")]:
        rel = py.relative_to(ROOT)
        if rel.parts[:2] != ("minirt_course", "grading") and py not in skip:
            public |= {ln.strip() for ln in py.read_text(encoding="utf-8").splitlines()}
    return public


def check(out: Path) -> list[str]:
    """Every leak of instructor material in `out`: markers, solution or hidden-test lines."""
    problems = []
    secret = set(instructor_lines())
    for path in sorted(out.rglob("*")):
        if not path.is_file() or path.suffix not in {".py", ".ipynb", ".md", ".toml", ".txt"}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        rel = path.relative_to(out)
        if path.suffix == ".ipynb":
            text = "\n".join(
                "".join(c.get("source", [])) for c in json.loads(text).get("cells", []))
        m = _MARKERS.search(text)
        if m and (path.suffix == ".ipynb" or rel.parts[:2] == ("minirt_course", "grading")):
            problems.append(f"{rel}: nbgrader marker {m.group(0)!r}")
        have = {ln.strip() for ln in text.splitlines()}
        hits = sorted(secret & have)
        if hits:
            problems.append(f"{rel}: {len(hits)} solution/hidden-test line(s), e.g. {hits[0]!r}")
        if rel.parts[:1] in {("solutions",), ("tests",)}:
            problems.append(f"{rel}: instructor folder")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tools/release.py", description=__doc__.splitlines()[0])
    ap.add_argument("out", help="folder to write the release into (new or empty)")
    ap.add_argument("--no-wheel", action="store_true", help="skip building the wheel")
    ap.add_argument("--wheel-url", help="where the wheel will be published (the lessons' Colab "
                    "cell installs it from there; default: its file name, uploaded to Colab)")
    args = ap.parse_args(argv)
    try:
        build(Path(args.out), wheel=not args.no_wheel, wheel_url=args.wheel_url)
    except ReleaseError as exc:
        print(f"release: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
