"""Lesson navigation: a contents list at the top, "next" and "drill" links at the end.

Both cells are generated, never written by hand: the contents from the lesson's own ``##``
headings (linked by the anchors JupyterLab gives headings), the links from the catalog's course
order (:data:`minirt_course.course.catalog.MODULES`, then :data:`~minirt_course.course.catalog.APPENDICES`).
``python -m minirt_course.course.navigation`` rewrites them in every lesson; ``--check`` only reports
lessons whose cells are stale (exit 1).

Invariant: a lesson holds at most one cell with id ``contents`` (right after the title cell) and
one with id ``next-steps`` (the last cell), and each equals what :func:`contents_source` and
:func:`next_steps_source` generate. Guaranteed: every link in them is relative and points to a
file of the course folder (the navigation test checks the targets exist). Not guaranteed: that a
heading's anchor survives a heading edit until the cells are regenerated (``--check`` catches it).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import catalog
from .catalog import Module

CONTENTS_ID = "contents"
NEXT_STEPS_ID = "next-steps"

_HEADING = re.compile(r"^##\s+(?P<text>.+?)\s*$", re.M)


def anchor(heading: str) -> str:
    """The anchor JupyterLab gives a Markdown heading: its rendered text, spaces as ``-``."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link renders as its text
    text = re.sub(r"[`*_]", "", text)  # code and emphasis marks are not part of the text
    return "#" + text.strip().replace(" ", "-")


def headings(cells: Sequence[dict[str, Any]]) -> list[str]:
    """The ``##`` headings of the lesson's Markdown cells, in order (generated cells skipped)."""
    found: list[str] = []
    for cell in cells:
        if cell.get("cell_type") != "markdown" or cell.get("id") in (CONTENTS_ID, NEXT_STEPS_ID):
            continue
        src = "".join(cell.get("source", []))
        src = re.sub(r"```.*?```", "", src, flags=re.S)  # no headings inside code fences
        found += [m["text"] for m in _HEADING.finditer(src)]
    return found


def contents_source(cells: Sequence[dict[str, Any]]) -> str:
    """The contents cell: one linked line per ``##`` heading."""
    lines = ["**Contents**", ""]
    lines += [f"- [{re.sub(r'`', '', h)}]({anchor(h)})" for h in headings(cells)]
    lines.append("- [Next steps](#Next-steps)")
    return "\n".join(lines)


def course_order() -> list[Module]:
    """The modules in course order, then the appendices."""
    return [*catalog.MODULES, *catalog.APPENDICES]


def module_of(lesson: Path) -> Module:
    """The catalog entry of a lesson file (by its slug)."""
    return catalog.get(lesson.stem)


def next_steps_source(module: Module) -> str:
    """The closing cell: the drill (if any), the next lesson, the course map."""
    order = course_order()
    i = [m.id for m in order].index(module.id)
    lines = ["## Next steps", ""]
    if module.has_drill:
        lines.append(f"- **Drill:** [drills/{module.slug}/drill.ipynb](../drills/{module.slug}/"
                     f"drill.ipynb), graded with `./course grade {module.id}` in a terminal.")
    else:
        lines.append("- **Drill:** this lesson has none.")
    if i + 1 < len(order):
        nxt = order[i + 1]
        lines.append(f"- **Next:** [{nxt.id} · {nxt.title}]({nxt.slug}.ipynb), "
                     f"about {nxt.minutes} min.")
    else:
        lines.append("- **Next:** that was the last lesson; back to the start for your progress.")
    lines.append("- **Course map:** [00 · Start here](00-start-here.ipynb) (the route and your "
                 "progress).")
    return "\n".join(lines)


def _cell(cell_id: str, source: str) -> dict[str, Any]:
    parts = source.split("\n")
    return {"cell_type": "markdown", "id": cell_id, "metadata": {},
            "source": [p + "\n" for p in parts[:-1]] + [parts[-1]]}


def with_navigation(nb: dict[str, Any], module: Module) -> dict[str, Any]:
    """``nb`` with its contents cell (after the title cell) and next-steps cell (last) regenerated.

    Idempotent: applying it twice gives the same notebook.
    """
    cells = [c for c in nb["cells"] if c.get("id") not in (CONTENTS_ID, NEXT_STEPS_ID)]
    out = dict(nb)
    out["cells"] = [cells[0], _cell(CONTENTS_ID, contents_source(cells)), *cells[1:],
                    _cell(NEXT_STEPS_ID, next_steps_source(module))]
    return out


def update(lesson: Path, *, check: bool = False) -> bool:
    """Regenerate the lesson's navigation cells; return True if they were (or would be) changed."""
    text = lesson.read_text(encoding="utf-8")
    nb = json.loads(text)
    new = with_navigation(nb, module_of(lesson))
    if new == nb:
        return False
    if not check:
        lesson.write_text(json.dumps(new, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minirt_course.course.navigation")
    parser.add_argument("--check", action="store_true", help="report stale lessons, change none")
    args = parser.parse_args(argv)
    root = catalog.course_root()
    stale = []
    for m in course_order():
        lesson = catalog.lesson_path(m.id, root)
        if lesson.is_file() and update(lesson, check=args.check):
            stale.append(lesson.name)
    verb = "stale" if args.check else "updated"
    print(f"navigation {verb}: {', '.join(stale) or 'none'}")
    return 1 if (args.check and stale) else 0


__all__ = ["CONTENTS_ID", "NEXT_STEPS_ID", "anchor", "contents_source", "course_order",
           "headings", "module_of", "next_steps_source", "update", "with_navigation"]

if __name__ == "__main__":
    sys.exit(main())
