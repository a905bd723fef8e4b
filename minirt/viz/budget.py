"""Module 09's picture: a run's budget burn-down, one panel per dimension, drawn from its ledger.

:func:`series` replays the ``budget`` events of a run and its children (:func:`minirt.budget
.history`, in the order the ledger changed) into the root account's ``held`` and ``used`` after
each change, plus the holds that :func:`minirt.budget.close` released when a run ended (kv).
:func:`burn_down` draws them as an SVG: one bar per change, used (dark) with the holds stacked on
top (light), under the limit (a red line); each panel's y axis is marked 0 and its top value,
the x axis runs from the start to the last change. Hover a bar for the change it shows. Plain SVG, no
plotting library; the text is deterministic, so tests assert on it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from ..budget import DIMENSIONS, K_CLOSED, Accounts, history, tree
from ..store.base import Store
from . import fit_svg

USED, HELD, LIMIT = "#1f618d", "#aed6f1", "#c0392b"


@dataclass(frozen=True)
class Point:
    """The root account, for one dimension, after one change."""

    index: int
    label: str  # e.g. "run-m09/quote reserve decision:0"
    held: float
    used: float


def series(store: Store, run_id: str) -> tuple[dict[str, list[Point]], dict[str, float]]:
    """(dimension -> points, dimension -> limit) for the root account ``run_id``."""
    events = [e for e in history(store, run_id) if e["op"] != "open"]
    accounts = Accounts(store)
    for rid in tree(accounts, run_id):
        closed = json.loads(store.kv_get(rid, K_CLOSED) or '{"released": []}')
        for res_id in closed["released"]:
            res = accounts.reservation(rid, res_id)
            if res is not None:
                events.append({"op": "release (run ended)", "reservation": res_id,
                               "run_id": rid, "amounts": res.amounts, "used": {}})
    held = {d: 0.0 for d in DIMENSIONS}
    used = {d: 0.0 for d in DIMENSIONS}
    points: dict[str, list[Point]] = {d: [Point(0, "start", 0.0, 0.0)] for d in DIMENSIONS}
    for i, e in enumerate(events, start=1):
        for dim, n in e.get("amounts", {}).items():
            held[dim] += n if e["op"] == "reserve" else -n
        if e["op"] != "reserve":
            for dim, n in e.get("used", {}).items():
                used[dim] += n
        label = f"{e['run_id']} {e['op']} {e.get('reservation', '')}"
        for dim in DIMENSIONS:
            points[dim].append(Point(i, label, max(held[dim], 0.0), used[dim]))
    root = accounts.account(run_id)
    limits = dict(root.limits) if root is not None else {}
    return points, limits


class SVG:
    """An SVG picture that displays itself in Jupyter (``_repr_svg_``); ``text`` is the SVG."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_svg_(self) -> str:
        return fit_svg(self.text)  # scales to the output area; white under the dark text

    def __repr__(self) -> str:
        return f"SVG({len(self.text)} characters)"


def burn_down(store: Store, run_id: str, *, dimensions: Sequence[str] | None = None,
              title: str | None = None) -> SVG:
    """The burn-down of ``run_id``'s budget (see the module docstring). By default, every
    dimension that has a limit or was used."""
    points, limits = series(store, run_id)
    dims = list(dimensions) if dimensions is not None else [
        d for d in DIMENSIONS if d in limits or any(p.used or p.held for p in points[d])]
    width, left, panel, gap = 640, 150, 70, 18
    plot_w = width - left - 20
    height = 40 + len(dims) * (panel + gap) + 38
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="11">',
           f'<text x="10" y="18" font-size="13">{escape(title or f"budget of {run_id}")}</text>',
           f'<rect x="{left}" y="24" width="10" height="10" fill="{USED}"/>'
           f'<text x="{left + 14}" y="33">used</text>'
           f'<rect x="{left + 60}" y="24" width="10" height="10" fill="{HELD}"/>'
           f'<text x="{left + 74}" y="33">held</text>'
           f'<line x1="{left + 120}" y1="29" x2="{left + 140}" y2="29" stroke="{LIMIT}" '
           f'stroke-width="2"/><text x="{left + 144}" y="33">limit</text>']
    for row, dim in enumerate(dims):
        out += _panel(dim, points[dim], limits.get(dim), left, 44 + row * (panel + gap),
                      plot_w, panel)
    axis_y = 44 + len(dims) * (panel + gap) + 6
    out.append(f'<text x="{left}" y="{axis_y}" fill="#333">x: the ledger\'s changes in order '
               f'(a bar after each reserve, settle, release)</text>'
               f'<text x="{left}" y="{axis_y + 14}" fill="#333">y: the amount of that dimension'
               f'</text>')
    out.append("</svg>")
    return SVG("\n".join(out))


def _panel(dim: str, pts: list[Point], limit: float | None, x0: int, y0: int, w: int,
           h: int) -> list[str]:
    top = max([limit or 0.0] + [p.used + p.held for p in pts]) or 1.0
    bar_w = w / max(len(pts), 1)
    final = pts[-1]
    spent = f"{final.used:g}" + (f" / {limit:g}" if limit is not None else " (no limit)")
    out = [f'<text x="10" y="{y0 + h / 2:.1f}">{escape(dim)}</text>',
           f'<text x="10" y="{y0 + h / 2 + 14:.1f}" fill="#555">{escape(spent)}</text>',
           f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="#f8f9f9" stroke="#d5d8dc"/>',
           f'<text x="{x0 - 4}" y="{y0 + 9}" text-anchor="end" font-size="9" fill="#555">'
           f'{top:g}</text>',
           f'<text x="{x0 - 4}" y="{y0 + h}" text-anchor="end" font-size="9" fill="#555">0</text>',
           f'<text x="{x0}" y="{y0 + h + 11}" font-size="9" fill="#555">start</text>',
           f'<text x="{x0 + w}" y="{y0 + h + 11}" text-anchor="end" font-size="9" fill="#555">'
           f'change #{len(pts) - 1}</text>']
    for p in pts:
        x = x0 + p.index * bar_w
        used_h, held_h = h * p.used / top, h * p.held / top
        tip = escape(f"#{p.index} {p.label}: used {p.used:g}, held {p.held:g}")
        out.append(f'<g><title>{tip}</title>'
                   f'<rect x="{x:.1f}" y="{y0 + h - used_h:.1f}" width="{bar_w * 0.8:.1f}" '
                   f'height="{used_h:.1f}" fill="{USED}"/>'
                   f'<rect x="{x:.1f}" y="{y0 + h - used_h - held_h:.1f}" '
                   f'width="{bar_w * 0.8:.1f}" height="{held_h:.1f}" fill="{HELD}"/></g>')
    if limit is not None:
        y = y0 + h - h * limit / top
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + w}" y2="{y:.1f}" stroke="{LIMIT}" '
                   f'stroke-width="2"/>')
    return out


def table(store: Store, run_id: str) -> list[dict[str, Any]]:
    """The root account after every change, as rows (for a quick look without a picture)."""
    points, limits = series(store, run_id)
    rows = []
    for i, p in enumerate(points[DIMENSIONS[0]]):
        row: dict[str, Any] = {"#": p.index, "change": p.label}
        for dim in DIMENSIONS:
            q = points[dim][i]
            if dim in limits or q.used or q.held:
                row[dim] = f"{q.used:g}+{q.held:g}"
        rows.append(row)
    return rows
