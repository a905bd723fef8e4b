"""Notebook chores for course authors.

    python tools/nbtool.py strip                 nbstripout --keep-id on lessons/, solutions/, drills/
    python tools/nbtool.py verify                exit 1 listing notebooks with outputs or counts
    python tools/nbtool.py drills [ID ...]       regenerate drills/ from solutions/ (nbgrader)
    python tools/nbtool.py new-py2nb SRC.py OUT.ipynb   jupytext percent script -> notebook
    python tools/nbtool.py nb2py SRC.ipynb OUT.py       notebook -> jupytext percent script
    python tools/nbtool.py readme-map [--check]  rewrite (or check) the README course map

Authors can write a drill as text: nbgrader metadata goes in the cell header, e.g.

    # %% nbgrader={"grade": true, "grade_id": "test_x", "locked": true, "points": 1, "schema_version": 3, "solution": false}

`new-py2nb` gives cells the deterministic ids c00, c01, ... so regenerated drills do not churn.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIRS = ("lessons", "solutions", "drills")
PERCENT_FMT = {
    "extension": ".py",
    "format_name": "percent",
    # keep the kernelspec, drop jupytext's own bookkeeping (its version would churn the file)
    "notebook_metadata_filter": "kernelspec,-jupytext",
}
DEFAULT_KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def notebooks(root: Path = ROOT, dirs: Iterable[str] = NOTEBOOK_DIRS) -> list[Path]:
    """Every .ipynb under the given folders of `root` (checkpoints excluded), sorted."""
    found: list[Path] = []
    for d in dirs:
        base = root / d
        if base.is_dir():
            found += [p for p in base.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts]
    return sorted(found)


def dirty_cells(nb: Any) -> list[str]:
    """Descriptions of the cells of `nb` that carry outputs or execution counts."""
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if cell.get("outputs"):
            out.append(f"cell {i} has {len(cell.outputs)} output(s)")
        if cell.get("execution_count") is not None:
            out.append(f"cell {i} has execution_count {cell.execution_count}")
    return out


def verify(root: Path = ROOT) -> dict[Path, list[str]]:
    """Notebook -> problems, for every notebook that is not stripped."""
    import nbformat

    bad = {}
    for path in notebooks(root):
        problems = dirty_cells(nbformat.read(str(path), as_version=4))
        if problems:
            bad[path] = problems
    return bad


def strip(root: Path = ROOT) -> list[Path]:
    """Run nbstripout --keep-id over every notebook in place; return the notebooks."""
    paths = notebooks(root)
    if paths:
        subprocess.run(
            [sys.executable, "-m", "nbstripout", "--keep-id", *map(str, paths)],
            check=True,
            cwd=root,
        )
    return paths


def regenerate_drills(ids: Sequence[str] = (), root: Path = ROOT) -> list[Path]:
    """Regenerate drills/<slug>/ from solutions/<slug>/ with nbgrader generate_assignment --force.

    Uses a throwaway gradebook, so the real build/gradebook.db is left alone.
    """
    from minirt_course.course import catalog
    from minirt_course.course.nbgrade import generate_release

    modules = [catalog.get(i) for i in ids] if ids else catalog.drilled_modules(root)
    written = []
    with tempfile.TemporaryDirectory(prefix="nbtool-gradebook-") as tmp:
        db_url = "sqlite:///" + os.path.join(tmp, "gradebook.db")
        for m in modules:
            written.append(generate_release(m.id, root, db_url=db_url))
    return written


def _jupytext() -> Any:
    try:
        import jupytext
    except ImportError:
        raise SystemExit(
            "nbtool: error: jupytext is not installed in this environment: pip install jupytext"
        ) from None
    return jupytext


def py_to_notebook(text: str) -> Any:
    """A jupytext percent-format script as a notebook with cell ids c00, c01, ..."""
    import nbformat

    jupytext = _jupytext()

    nb = jupytext.reads(text, fmt="py:percent")
    nb.metadata.pop("jupytext", None)
    nb.metadata.setdefault("kernelspec", dict(DEFAULT_KERNELSPEC))
    nb.nbformat, nb.nbformat_minor = 4, 5
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"c{i:02d}"
        if cell.cell_type == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    nbformat.validate(nb)
    return nb


def notebook_to_py(nb: Any) -> str:
    """A notebook as jupytext percent-format text (nbgrader metadata kept in cell headers)."""
    return _jupytext().writes(nb, fmt=dict(PERCENT_FMT))


def new_py2nb(src: Path, out: Path) -> Path:
    import nbformat

    nb = py_to_notebook(src.read_text(encoding="utf-8"))
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(out))
    return out


def nb2py(src: Path, out: Path) -> Path:
    import nbformat

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(notebook_to_py(nbformat.read(str(src), as_version=4)), encoding="utf-8")
    return out


def readme_with_map(readme: str, course_map: str) -> str:
    """`readme` with the block between the course-map markers replaced by `course_map`."""
    from minirt_course.course.catalog import COURSE_MAP_BEGIN, COURSE_MAP_END

    try:
        head, rest = readme.split(COURSE_MAP_BEGIN, 1)
        _, tail = rest.split(COURSE_MAP_END, 1)
    except ValueError:
        raise SystemExit(
            f"README.md has no {COURSE_MAP_BEGIN} ... {COURSE_MAP_END} block to rewrite"
        ) from None
    return f"{head}{COURSE_MAP_BEGIN}\n{course_map}\n{COURSE_MAP_END}{tail}"


def readme_map(root: Path = ROOT, check: bool = False) -> bool:
    """Rewrite README.md's course map; with check=True only report. True when it was current."""
    from minirt_course.course.catalog import course_map

    readme = root / "README.md"
    old = readme.read_text(encoding="utf-8")
    new = readme_with_map(old, course_map(root))
    if new == old:
        return True
    if not check:
        readme.write_text(new, encoding="utf-8")
    return False


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nbtool", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("strip", help="nbstripout --keep-id on every notebook, in place")
    sub.add_parser("verify", help="exit 1 listing notebooks with outputs or execution counts")
    d = sub.add_parser("drills", help="regenerate drills/ from solutions/")
    d.add_argument("ids", nargs="*", help="module ids (default: every module with a drill source)")
    p = sub.add_parser("new-py2nb", help="percent-format script -> notebook with ids c00, c01, ...")
    p.add_argument("src", type=Path)
    p.add_argument("out", type=Path)
    n = sub.add_parser("nb2py", help="notebook -> percent-format script")
    n.add_argument("src", type=Path)
    n.add_argument("out", type=Path)
    r = sub.add_parser("readme-map", help="rewrite the course map in README.md from the catalog")
    r.add_argument("--check", action="store_true", help="only check; exit 1 when out of date")
    args = parser.parse_args(argv)
    from minirt_course.course.nbgrade import CourseError

    try:
        return _run(args)
    except CourseError as exc:
        print(f"nbtool: error: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.cmd == "strip":
        paths = strip()
        print(f"stripped {len(paths)} notebook(s) (nbstripout --keep-id)")
    elif args.cmd == "verify":
        bad = verify()
        for path, problems in bad.items():
            print(f"{path.relative_to(ROOT)}: {'; '.join(problems)}")
        if bad:
            print(f"{len(bad)} notebook(s) not stripped: run `python tools/nbtool.py strip`")
            return 1
        print(f"ok: {len(notebooks())} notebook(s) have no outputs or execution counts")
    elif args.cmd == "drills":
        written = regenerate_drills(args.ids)
        for path in written:
            print(f"generated {path.relative_to(ROOT)}")
        if not written:
            print("no drill sources in solutions/ yet")
    elif args.cmd == "new-py2nb":
        print(f"wrote {new_py2nb(args.src, args.out)}")
    elif args.cmd == "nb2py":
        print(f"wrote {nb2py(args.src, args.out)}")
    elif args.cmd == "readme-map":
        current = readme_map(check=args.check)
        if args.check:
            print(
                "README course map is current"
                if current
                else "README course map is out of date: run `python tools/nbtool.py readme-map`"
            )
            return 0 if current else 1
        print(
            "README course map was already current" if current else "rewrote the README course map"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
