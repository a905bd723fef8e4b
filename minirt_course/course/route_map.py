"""The course's route map, drawn from the catalog and the learner's local progress file.

- :func:`module_status`: what the learner's progress says about one module: ``start`` (module
  00, which has no drill), ``planned`` (neither its lesson nor its drill exists yet), ``not started`` (no graded
  attempt), ``attempted`` (graded, never full marks) or ``full marks`` (at least one attempt
  scored every point).
- :func:`route_map`: one node per module of :data:`minirt_course.course.catalog.MODULES`, in course order,
  labelled with its id, title, promise and minutes, filled with the colour of its status; planned
  modules are grey and dashed. ``progress`` is the mapping that
  :func:`minirt_course.course.nbgrade.load_progress` returns, the same one ``minirt-course progress``
  prints; without it the map reads that file itself (``.minirt/progress.json`` of the course root).
- :func:`status_counts`: how many modules (and minutes) are in each status.

Guarantees: the map can never list a module the catalog does not have, or miss one, because it is
drawn from the catalog; the DOT text is deterministic (tests assert on it); a missing or damaged
progress file reads as "nothing graded yet", never as an error. Not guaranteed: a pretty layout
(graphviz's job). Nothing here writes anything: progress stays in the learner's checkout.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import graphviz

from minirt.errors import MinirtError
from minirt.viz import Diagram, render

from ..course import catalog
from ..course.catalog import Module

START = "start"
PLANNED = "planned"
NOT_STARTED = "not started"
ATTEMPTED = "attempted"
FULL_MARKS = "full marks"
STATUSES = (START, NOT_STARTED, ATTEMPTED, FULL_MARKS, PLANNED)

# status -> (fill, border, font colour, style)
STATUS_STYLE: dict[str, tuple[str, str, str, str]] = {
    START: ("#dbeafe", "#2563eb", "#111827", "filled,bold"),
    NOT_STARTED: ("#ffffff", "#111827", "#111827", "filled"),
    ATTEMPTED: ("#fde68a", "#b45309", "#111827", "filled"),
    FULL_MARKS: ("#bbf7d0", "#15803d", "#111827", "filled"),
    PLANNED: ("#f3f4f6", "#9ca3af", "#9ca3af", "filled,dashed"),
}


def _number(value: Any, default: float = 0.0) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def _score(entry: Mapping[str, Any]) -> tuple[float, float, float]:
    """(last score, best score, max) of a progress entry; damaged values read as 0."""
    last = _number(entry.get("score"))
    best = max(last, _number(entry.get("best"), last))
    return last, best, _number(entry.get("max"))


def module_status(
    module: Module, progress: Mapping[str, Any], root: str | os.PathLike[str] | None = None
) -> str:
    """The status of `module` for this progress (see the module docstring for the five values).

    A module is planned when neither its lesson nor its drill exists under `root` (default: the
    course root).
    """
    if not module.has_drill:
        return START
    if not (catalog.landed(module.id, root) or catalog.solution_path(module.id, root).is_file()):
        return PLANNED
    entry = progress.get(module.id)
    if not isinstance(entry, Mapping):
        return NOT_STARTED
    _, best, maximum = _score(entry)
    if maximum > 0 and best >= maximum:
        return FULL_MARKS
    return ATTEMPTED


def _load(root: str | os.PathLike[str] | None) -> dict[str, Any]:
    from ..course import nbgrade

    return nbgrade.load_progress(root)


def statuses(
    progress: Mapping[str, Any] | None = None, root: str | os.PathLike[str] | None = None
) -> dict[str, str]:
    """module id -> status, for every module of the catalog, in course order."""
    base = Path(root).resolve() if root is not None else catalog.course_root()
    prog = _load(base) if progress is None else progress
    return {m.id: module_status(m, prog, base) for m in catalog.MODULES}


def status_counts(
    progress: Mapping[str, Any] | None = None, root: str | os.PathLike[str] | None = None
) -> dict[str, tuple[int, int]]:
    """status -> (number of modules, their minutes), every status listed, in STATUSES order."""
    by_id = statuses(progress, root)
    counts = {s: (0, 0) for s in STATUSES}
    for m in catalog.MODULES:
        n, minutes = counts[by_id[m.id]]
        counts[by_id[m.id]] = (n + 1, minutes + m.minutes)
    return counts


def _wrap(text: str, width: int = 34) -> str:
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    if line:
        lines.append(line)
    return "\\n".join(lines)


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _label(module: Module, status: str, entry: Any) -> str:
    head = f"{module.id} · {_esc(module.title)}"
    lines = [_wrap(head), _wrap(_esc(module.promise))]
    tail = f"about {module.minutes} min"
    if status in (ATTEMPTED, FULL_MARKS) and isinstance(entry, Mapping):
        last, best, maximum = _score(entry)
        tail += f" · last {last:g}/{maximum:g}"
        if best > last:
            tail += f" (best {best:g})"
    elif status == PLANNED:
        tail += " · planned"
    lines.append(tail)
    return "\\n".join(lines)


def route_map(
    progress: Mapping[str, Any] | None = None,
    *,
    root: str | os.PathLike[str] | None = None,
    per_row: int = 4,
) -> Diagram:
    """The route through the course, each module coloured by the learner's progress.

    `progress` is module id -> {score, max, best, ...} as :func:`minirt_course.course.nbgrade.
    load_progress` returns it; ``None`` reads the progress file of the course root (`root`,
    default: found from the current folder). `per_row` modules go on each row of the picture.
    Read-only: nothing is written anywhere. Raises BadRowWidth when `per_row` is below 1.
    """
    if isinstance(per_row, bool) or not isinstance(per_row, int) or per_row < 1:
        raise BadRowWidth(per_row=repr(per_row))
    base = Path(root).resolve() if root is not None else catalog.course_root()
    prog = _load(base) if progress is None else progress
    g = graphviz.Digraph(
        "course_route",
        graph_attr={
            "rankdir": "TB",
            "fontname": "Helvetica",
            "fontsize": "11",
            "labelloc": "b",
            "nodesep": "0.25",
            "ranksep": "0.3",
            "label": "white: not started  ·  amber: attempted  ·  green: full marks  ·  "
            "grey, dashed: planned (not written yet)",
        },
    )
    g.attr("node", shape="box", style="rounded,filled", fontname="Helvetica", fontsize="10")
    g.attr("edge", color="#6b7280", arrowsize="0.7")
    previous: Module | None = None
    rows = [catalog.MODULES[i : i + per_row] for i in range(0, len(catalog.MODULES), per_row)]
    for n, row in enumerate(rows):
        with g.subgraph(name=f"row{n}") as r:
            r.attr(rank="same")
            for m in row:
                _module_node(r, m, prog, base)
    for n, row in enumerate(rows):
        for m in row:
            if previous is not None:
                # the edge that turns into the next row must not push that row to the right
                turn = m is row[0]
                g.edge(f"m{previous.id}", f"m{m.id}", constraint="false" if turn else "true")
            previous = m
        if n + 1 < len(rows):  # keep the rows stacked, left-aligned
            g.edge(f"m{row[0].id}", f"m{rows[n + 1][0].id}", style="invis", weight="10")
    return render(g)


class BadRowWidth(MinirtError):
    """`route_map(per_row=...)` is not a whole number of at least 1 (not a progress problem:
    a damaged progress file never raises)."""

    fields = ("per_row",)
    template = "per_row must be a whole number of modules, at least 1; got {per_row}"


def _module_node(g: Any, m: Module, prog: Mapping[str, Any], base: Path) -> None:
    status = module_status(m, prog, base)
    fill, border, font, style = STATUS_STYLE[status]
    g.node(
        f"m{m.id}",
        _label(m, status, prog.get(m.id)),
        fillcolor=fill,
        color=border,
        fontcolor=font,
        style=f"rounded,{style}",
        penwidth="2" if status in (START, FULL_MARKS) else "1",
        tooltip=f"{m.id}: {status}",
    )
