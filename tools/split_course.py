"""Move the course tooling out of the runtime package into ``minirt_course/`` (issue 18).

    python tools/split_course.py            move what is left, rewrite every reference, regenerate
                                            the drills whose solutions changed
    python tools/split_course.py --check    change nothing; exit 1 listing every old reference
    python tools/split_course.py --no-drills   as the first form, without regenerating drills/

Invariant: running it again changes nothing (every step skips what is already done), so it can be
re-run after other branches that still edit the old paths are merged. What moves (``MOVES``):

    minirt/course/       -> minirt_course/course/      (CLI, catalog, oracle, sandbox, ...)
    minirt/grading/      -> minirt_course/grading/     (hidden tests' helpers)
    minirt/scenarios/    -> minirt_course/scenarios/   (the crash scenarios of the modules)
    minirt/capstone/     -> minirt_course/capstone/    (module 11's shop and agent)
    minirt/viz/course.py -> minirt_course/course/route_map.py   (the course's route map)

What it rewrites, in every tracked text file (.py .ipynb .toml .cfg .ini .md .yml .yaml .txt .json
.sh and the shell scripts ``course``, ``.ci/run``, ``binder/postBuild``), ``drills/`` excepted
(regenerated from ``solutions/`` by nbgrader instead): dotted names (``minirt.grading.m01``, also
regex-escaped ``minirt\\.grading``), paths (``minirt/grading/``), path parts
(``"minirt" / "grading"``, ``("minirt", "grading")``), ``from minirt import capstone``; and, in the
moved modules only, relative imports that reach back into the runtime (``from ..errors import``
becomes ``from minirt.errors import``; ``from .journal`` in the moved route map becomes
``from minirt.viz.journal``). Notebooks are rewritten as text, so their format and cell ids stay.
A line holding ``split-course: keep`` is left alone (for text that must name an old path).

Not done here: changes that need judgement (which package a filtered copy holds, the layering
test, README prose); those are separate commits. It does not reinstall the package: run
``pip install -e .`` afterwards so the ``minirt-course`` entry point resolves.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NEW = "minirt_course"
MOVED = ("course", "grading", "scenarios", "capstone")
#: (old path, new path), folders or files, relative to the repository root.
MOVES = [(f"minirt/{name}", f"{NEW}/{name}") for name in MOVED] + [
    ("minirt/viz/course.py", f"{NEW}/course/route_map.py"),
]
TEXT_SUFFIXES = {".py", ".ipynb", ".toml", ".cfg", ".ini", ".md", ".yml", ".yaml", ".txt",
                 ".json", ".sh"}
SHELL_FILES = {"course", ".ci/run", "binder/postBuild"}
SKIP_FILES = {"tools/split_course.py"}
KEEP = "split-course: keep"
INIT = f'''"""The course built on minirt: grading, the course CLI and catalog, scenarios, the capstone.

Invariant: imports run one way, ``minirt_course`` -> ``minirt.viz`` (pictures) -> the ``minirt``
runtime -> ``minirt.store``; nothing under ``minirt/`` imports this package (checked by
``tests/test_seams.py``). Guarantees: an engineer who uses only ``minirt`` needs none of it; the
``minirt-course`` command (``minirt_course.course.cli:main``) and the lessons and drills do.
Not guaranteed: a stable API; these modules serve the course's notebooks and graders.

    {NEW}/course/      the course CLI, catalog, local grader, oracle, sandbox, lesson helpers
    {NEW}/grading/     the hidden tests' helpers (one ``mNN.py`` per drill)
    {NEW}/scenarios/   every module's crash scenario (``minirt.faults`` sweeps them)
    {NEW}/capstone/    module 11's shop, agent and measurements
"""
'''

_NAMES = "|".join(MOVED)
#: (pattern, replacement) applied in order to every rewritten file.
REWRITES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<![\w.])minirt(\\*\.)viz\1course\b"), NEW + r"\1course\1route_map"),
    (re.compile(r"(?<![\w.-])minirt/viz/course(?=\.py\b|/|\b)"), f"{NEW}/course/route_map"),
    (re.compile(r"(?<![\w.])minirt(\\*\.)(" + _NAMES + r")\b"), NEW + r"\1\2"),
    (re.compile(r"(?<![\w.-])minirt/(" + _NAMES + r")\b"), NEW + r"/\1"),
    (re.compile(r"""(["'])minirt\1(\s*[/,]\s*)(["'])(""" + _NAMES + r")\3"),
     r"\1" + NEW + r"\1\2\3\4\3"),
    (re.compile(r"\bfrom minirt import (" + _NAMES + r")\b(?!\s*,)"), f"from {NEW} import " + r"\1"),
    (re.compile(r"\bfrom minirt\.viz import course\b(?!\s*,)"),
     f"from {NEW}.course import route_map as course"),
]
#: What --check reports: any of the old names or paths.
OLD = re.compile(r"(?<![\w.])minirt(\\*\.)(viz\1course|" + _NAMES + r")\b"
                 r"|(?<![\w.-])minirt/(viz/course|" + _NAMES + r")\b"
                 r"""|(["'])minirt\4\s*[/,]\s*(["'])(""" + _NAMES + r")\5"
                 r"|\bfrom minirt import (" + _NAMES + r")\b")
_REL = re.compile(r"^(?P<indent>[ \t]*)from (?P<dots>\.+)(?P<mod>[\w.]*) import (?P<names>.*)$",
                  re.M)


def say(msg: str) -> None:
    print(f"split_course: {msg}", flush=True)


def git(*args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=check, capture_output=True,
                          text=True).stdout


def tracked(under: str = "") -> list[str]:
    return [p for p in git("ls-files", "-z", *([under] if under else [])).split("\0") if p]


# ------------------------------------------------------------------------------------------- move

def move(dry: bool) -> list[str]:
    """git mv every tracked file still at an old path; returns the new paths it moved (or would)."""
    moved: list[str] = []
    for old, new in MOVES:
        files = [old] if old.endswith(".py") else tracked(old + "/")
        for src in files:
            if not (ROOT / src).is_file():
                continue
            dest = new + src[len(old):]
            if (ROOT / dest).exists():
                raise SystemExit(f"split_course: both {src} and {dest} exist: merge them by hand "
                                 "(keep the new path), then run this again")
            moved.append(dest)
            if not dry:
                (ROOT / dest).parent.mkdir(parents=True, exist_ok=True)
                git("mv", src, dest)
        folder = ROOT / old
        if not dry and folder.is_dir() and not old.endswith(".py"):
            shutil.rmtree(folder / "__pycache__", ignore_errors=True)
            if not any(folder.rglob("*")):
                folder.rmdir()
    init = ROOT / NEW / "__init__.py"
    if not init.exists():
        moved.append(f"{NEW}/__init__.py")
        if not dry:
            init.parent.mkdir(parents=True, exist_ok=True)
            init.write_text(INIT, encoding="utf-8")
            git("add", str(init.relative_to(ROOT)))
    if moved:
        say(f"{'would move' if dry else 'moved'} {len(moved)} files into {NEW}/")
    return moved


# ---------------------------------------------------------------------------------------- rewrite

def candidates(include_drills: bool) -> list[str]:
    out = []
    for rel in tracked():
        if rel in SKIP_FILES or (rel.startswith("drills/") and not include_drills):
            continue
        if Path(rel).suffix in TEXT_SUFFIXES or rel in SHELL_FILES:
            if (ROOT / rel).is_file():
                out.append(rel)
    return out


def _lines_apply(text: str, fn: Callable[[str], str]) -> str:
    return "".join(line if KEEP in line else fn(line) for line in text.splitlines(keepends=True))


def rewrite_names(text: str) -> str:
    def one(line: str) -> str:
        for pat, rep in REWRITES:
            line = pat.sub(rep, line)
        return line
    return _lines_apply(text, one)


def _viz_modules() -> set[str]:
    return {p.stem for p in (ROOT / "minirt" / "viz").glob("*.py")} - {"__init__"}


def rewrite_relative(text: str, rel: str) -> str:
    """In a moved module: relative imports that leave minirt_course become absolute minirt ones.
    ``..X`` stays when X is one of minirt_course's subpackages; in the moved route map, ``.X``
    naming a module of minirt.viz becomes ``minirt.viz.X`` and ``from . import name`` (not a sibling
    module) becomes ``from minirt.viz import name``."""
    route_map = rel == f"{NEW}/course/route_map.py"
    viz = _viz_modules() if route_map else set()
    siblings = {p.stem for p in (ROOT / NEW / "course").glob("*.py")} if route_map else set()

    def fix(m: re.Match[str]) -> str:
        if KEEP in m.group(0):
            return m.group(0)
        dots, mod, names = m.group("dots"), m.group("mod"), m.group("names")
        head = mod.split(".")[0] if mod else ""
        if len(dots) == 2:
            if head in MOVED:
                return m.group(0)
            if not mod:
                listed = {n.strip().split(" as ")[0] for n in names.strip("()").split(",")}
                if listed <= set(MOVED):
                    return m.group(0)
                return f"{m.group('indent')}from minirt import {names}"
            return f"{m.group('indent')}from minirt.{mod} import {names}"
        if len(dots) == 1 and route_map and head in viz:
            return f"{m.group('indent')}from minirt.viz.{mod} import {names}"
        if len(dots) == 1 and route_map and not mod:  # names of minirt.viz's __init__
            listed = {n.strip().split(" as ")[0] for n in names.strip("()").split(",")}
            if not listed & siblings:
                return f"{m.group('indent')}from minirt.viz import {names}"
        return m.group(0)
    return _REL.sub(fix, text)


def rewrite(dry: bool, include_drills: bool = False) -> list[str]:
    changed = []
    for rel in candidates(include_drills):
        path = ROOT / rel
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite_names(text)
        if rel.startswith(NEW + "/") and rel.endswith(".py"):
            new = rewrite_relative(new, rel)
        if new != text:
            changed.append(rel)
            if not dry:
                path.write_text(new, encoding="utf-8")
    say(f"{'would rewrite' if dry else 'rewrote'} {len(changed)} files")
    py = [rel for rel in candidates(include_drills=False) if rel.endswith(".py")
          and (rel.startswith(NEW + "/") or NEW in (ROOT / rel).read_text(encoding="utf-8"))]
    if py and not dry and shutil.which("ruff"):  # the new names sort elsewhere among imports
        subprocess.run(["ruff", "check", "--select", "I", "--fix", "--quiet", *py], cwd=ROOT,
                       check=False, capture_output=True)
    return changed


# ------------------------------------------------------------------------------------------ check

def old_references(files: Iterable[str]) -> list[str]:
    found = []
    for rel in files:
        try:
            text = (ROOT / rel).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if KEEP not in line and OLD.search(line):
                found.append(f"{rel}:{n}: {line.strip()[:120]}")
        if rel.startswith(NEW + "/") and rel.endswith(".py") and rewrite_relative(text, rel) != text:
            found.append(f"{rel}: a relative import reaches back into the runtime")
    return found


def check() -> int:
    problems = [f"{dest}: not moved there yet" for dest in move(dry=True)
                if not dest.endswith("__init__.py")]
    problems += [f"{NEW}/__init__.py: missing"] if not (ROOT / NEW / "__init__.py").exists() else []
    problems += old_references(candidates(include_drills=True))
    for p in problems:
        print(p)
    if problems:
        say(f"{len(problems)} old references or paths left; run without --check to rewrite them")
        return 1
    say("no old reference left")
    return 0


# ----------------------------------------------------------------------------------------- drills

def regenerate(changed: list[str]) -> None:
    """Regenerate the drills whose solution changed or whose release still names an old path."""
    stale = {rel for rel in candidates(include_drills=True)
             if rel.startswith("drills/") and rel.endswith(".ipynb") and old_references([rel])}
    slugs = sorted({rel.split("/")[1] for rel in [*changed, *stale]
                    if rel.startswith(("solutions/", "drills/")) and rel.endswith(".ipynb")})
    if not slugs:
        say("no solution changed: drills/ left as it is")
        return
    ids = [s.split("-", 1)[0] for s in slugs]
    say(f"regenerating drills {' '.join(ids)} from solutions/ (nbgrader)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(  # before `pip install -e .` sees it
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    subprocess.run([sys.executable, "tools/nbtool.py", "drills", *ids], cwd=ROOT, check=True,
                   env=env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if any "
                        "old path or reference is left")
    parser.add_argument("--no-drills", action="store_true", help="do not regenerate drills/")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    move(dry=False)
    changed = rewrite(dry=False)
    if not args.no_drills:
        regenerate(changed)
    say("done; run `pip install -e .` so the minirt-course entry point resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
