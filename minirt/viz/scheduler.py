"""Pictures of a fan-out: the dependency graph with its waves, and a Gantt chart of what ran when.

- :func:`plan_diagram`: one box per call (name, tool, step), grouped in one column per wave;
  data dependencies as solid arrows, resource conflicts as dashed red arrows labelled with the
  resource (from the earlier step to the later one, the order the plan keeps).
- :func:`timeline`: plain data from a journal, one :class:`Bar` per fan-out step: its wave (from
  the ``wave`` events), its start (the time its intent was committed: the wave's group commit,
  read from the ``wave`` marker that opens it, as every intent of the commit may read the clock),
  its end (the time its outcome was journaled) and the incarnations that wrote them. A race's
  loser (:mod:`minirt.race`) is read by its record's named outcome: a cancelled one ends at the
  ``cancelled_at`` its record holds (when the race cancelled it, before the winner's result was
  journaled), not at the record's own time (written after the race waited for every loser).
- :func:`gantt`: the bars as an SVG chart (no plotting library needed), one row per step in step
  order, coloured by wave; a bar finished by a later incarnation (recovered after a crash) is
  hatched, an open one (no outcome yet) is drawn to the right edge, dashed; a cancelled one ends
  in a red tick; any outcome but a result is written after the bar.

Guarantees: every box, arrow and bar comes from the planner's input and output or from journal
rows; the DOT and SVG texts are deterministic (tests assert on them). Not guaranteed: a pretty
layout.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import graphviz

from ..journal import OUTCOME_KINDS
from ..scheduler import Node, conflicts
from ..store.base import Event
from . import Diagram, fit_svg, render

WAVE_COLOURS = ("#bfdbfe", "#bbf7d0", "#fde68a", "#fbcfe8", "#ddd6fe", "#fed7aa")
CONFLICT_COLOUR = "#dc2626"


def plan_diagram(nodes: Sequence[Node], waves: Sequence[Sequence[str]], *,
                 tools: dict[str, str] | None = None) -> Diagram:
    """The fan-out's graph with ``waves`` as columns (``tools``: name -> tool, for labels)."""
    by_name = {n.name: n for n in nodes}
    g = graphviz.Digraph("fanout_plan", graph_attr={
        "rankdir": "LR", "fontname": "Helvetica", "fontsize": "11", "labelloc": "b",
        "newrank": "true", "label": "solid: data dependency  ·  dashed red: resource conflict "
                                    "(kept in step order)  ·  column: wave"})
    g.attr("node", shape="box", style="rounded,filled", fontname="Helvetica", fontsize="10")
    g.attr("edge", fontname="Helvetica", fontsize="9")
    for k, wave in enumerate(waves):
        with g.subgraph(name=f"cluster_wave{k}") as c:
            c.attr(label=f"wave {k}", style="dashed", color="#94a3b8")
            for name in wave:
                n = by_name[name]
                tool = (tools or {}).get(name, "")
                label = f"{name}\n{tool}\nstep {n.step}" if tool else f"{name}\nstep {n.step}"
                c.node(name, label, fillcolor=WAVE_COLOURS[k % len(WAVE_COLOURS)])
    for n in sorted(nodes, key=lambda n: n.step):
        for dep in sorted(n.after):
            g.edge(dep, n.name)
    for a in sorted(nodes, key=lambda n: n.step):
        for b in sorted(nodes, key=lambda n: n.step):
            if a.step < b.step and conflicts(a, b):
                shared = sorted((a.writes & (b.reads | b.writes)) | (b.writes & a.reads))
                g.edge(a.name, b.name, label=", ".join(shared), style="dashed",
                       color=CONFLICT_COLOUR, fontcolor=CONFLICT_COLOUR)
    for before, after in zip(waves, waves[1:], strict=False):  # keep the waves in columns
        if before and after:
            g.edge(before[0], after[0], style="invis")
    return render(g)


@dataclass(frozen=True)
class Bar:
    step: int
    tool: str
    wave: int
    start_at: float  # when the wave's intents were committed
    end_at: float | None  # when the outcome was journaled (a race's cancelled loser: when the
    # race cancelled it); None: no outcome yet
    outcome: str  # tool_result | tool_error | cancelled | unknown (a race's loser) | open
    started_by: int  # the incarnation that committed the intent
    ended_by: int | None  # the incarnation that journaled the outcome

    @property
    def recovered(self) -> bool:
        """A fact: the outcome was journaled by a later incarnation than the intent."""
        return self.ended_by is not None and self.ended_by != self.started_by


def timeline(events: Sequence[Event]) -> list[Bar]:
    """One bar per step that belongs to a recorded wave, in step order."""
    wave_of: dict[int, int] = {}
    committed_at: dict[int, float] = {}  # step -> the time of the group commit that sent it
    for e in events:
        if e.kind == "wave":
            for s in e.payload["steps"]:
                wave_of.setdefault(int(s), int(e.payload["wave"]))
                committed_at.setdefault(int(s), e.at)
    intents = {e.step: e for e in events if e.kind == "intent" and e.step in wave_of}
    outcomes: dict[int, Event] = {}
    for e in events:
        if e.kind in OUTCOME_KINDS and e.step in intents and e.step not in outcomes:
            outcomes[e.step] = e
    bars = []
    for step in sorted(intents):
        i, o = intents[step], outcomes.get(step)
        outcome, end = ("open", None) if o is None else _outcome_of(o)
        start = min(committed_at[step], i.at)  # one commit: the wave's marker opens it
        bars.append(Bar(step, i.payload["tool"], wave_of[step], start, end, outcome,
                        i.incarnation, None if o is None else o.incarnation))
    return bars


def _outcome_of(o: Event) -> tuple[str, float]:
    """(outcome, end) of a journaled outcome; a race's loser by the outcome its record names."""
    named = o.payload.get("outcome") if o.kind == "tool_error" else None
    if named == "cancelled":
        at = o.payload.get("cancelled_at")
        return "cancelled", o.at if at is None else float(at)
    if named == "unknown":
        return "unknown", o.at
    return o.kind, o.at


def _label(b: Bar) -> str:
    """The text after a bar: its outcome, unless it is a plain result or still open."""
    if b.outcome in ("tool_result", "open"):
        return ""
    return "error" if b.outcome == "tool_error" else b.outcome


class Gantt:
    """An SVG Gantt chart (``_repr_svg_`` in Jupyter; ``svg`` is the deterministic text)."""

    def __init__(self, svg: str, bars: Sequence[Bar]) -> None:
        self.svg = svg
        self.bars = list(bars)

    def _repr_svg_(self) -> str:
        return fit_svg(self.svg)  # scales to the output area; white under the dark text

    def __repr__(self) -> str:
        return f"Gantt({len(self.bars)} bars)"


BREAK_PX = 28  # the width a collapsed gap (a crash and its recovery) takes on the time axis


def _time_axis(points: list[float], left: float, right: float, gap_over: float
               ) -> tuple[Any, list[tuple[float, float, float]]]:
    """A piecewise-linear time -> x map that collapses every gap longer than ``gap_over``
    seconds to BREAK_PX pixels; returns (map, [(x of the break, seconds skipped, at)])."""
    pts = sorted(set(points)) or [0.0]
    spans = list(zip(pts, pts[1:], strict=False))
    gaps = [(a, b) for a, b in spans if b - a > gap_over]
    shown = sum(b - a for a, b in spans if b - a <= gap_over) or 1e-9
    scale = max(right - left - BREAK_PX * len(gaps), 1.0) / shown

    def x(t: float) -> float:
        pos = left
        for a, b in spans:
            if t <= a:
                break
            if (a, b) in gaps:
                pos += BREAK_PX if t >= b else BREAK_PX * (t - a) / (b - a)
            else:
                pos += (min(t, b) - a) * scale
        return round(pos, 1)

    return x, [(x(a) + BREAK_PX / 2, b - a, a) for a, b in gaps]


def gantt(bars: Sequence[Bar], *, title: str = "what ran when", width: int = 640,
          gap_over: float = 10.0) -> Gantt:
    """Draw ``bars`` (from :func:`timeline`); time runs left to right from the first commit.

    A gap longer than ``gap_over`` seconds with nothing running in the first execution (a crash
    and its recovery an hour later) is collapsed to a zig-zag and labelled with its length."""
    row, left, top = 26, 170, 44  # the wave labels sit below the title line
    t0 = min((b.start_at for b in bars), default=0.0)
    ends = [b.end_at for b in bars if b.end_at is not None]
    labels = [_label(b) for b in bars]
    room = max((6 * len(t) + 8 for t in labels if t), default=0)  # the labels after the bars
    x, breaks = _time_axis([b.start_at for b in bars] + ends, left, width - 20 - room, gap_over)
    t1 = max(ends + [b.start_at for b in bars] + [t0])
    height = top + row * len(bars) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="Helvetica" font-size="11">',
           '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
           'patternTransform="rotate(45)"><rect width="3" height="6" fill="#475569" '
           'fill-opacity="0.35"/></pattern></defs>',
           f'<text x="8" y="16" font-weight="bold">{html.escape(title)}</text>']
    for k in sorted({b.wave for b in bars}):
        start = min(b.start_at for b in bars if b.wave == k)
        out.append(f'<line x1="{x(start)}" y1="{top - 8}" x2="{x(start)}" '
                   f'y2="{height - 24}" stroke="#94a3b8" stroke-dasharray="3,3"/>')
        out.append(f'<text x="{x(start) + 2}" y="{top - 10}" fill="#475569">wave {k}</text>')
    for r, b in enumerate(bars):
        y = top + r * row
        colour = WAVE_COLOURS[b.wave % len(WAVE_COLOURS)]
        end = b.end_at if b.end_at is not None else t1
        w = max(x(end) - x(b.start_at), 2.0)
        out.append(f'<text x="8" y="{y + 15}">step {b.step} {html.escape(b.tool)}</text>')
        dash = ' stroke-dasharray="4,2"' if b.end_at is None else ""
        out.append(f'<rect x="{x(b.start_at)}" y="{y + 3}" width="{round(w, 1)}" height="{row - 8}" '
                   f'fill="{colour}" stroke="#334155"{dash}/>')
        if b.recovered:
            out.append(f'<rect x="{x(b.start_at)}" y="{y + 3}" width="{round(w, 1)}" '
                       f'height="{row - 8}" fill="url(#hatch)"/>')
        if b.outcome == "cancelled":  # a red tick where the race cancelled it
            out.append(f'<line x1="{x(end)}" y1="{y + 1}" x2="{x(end)}" y2="{y + row - 3}" '
                       f'stroke="{CONFLICT_COLOUR}" stroke-width="3"/>')
        if labels[r]:
            ink = "#15803d" if b.outcome in ("won", "finished") else CONFLICT_COLOUR
            out.append(f'<text x="{x(end) + 4}" y="{y + 15}" fill="{ink}">'
                       f'{html.escape(labels[r])}</text>')
    for bx, skipped, _ in breaks:
        zig = " ".join(f"{bx + (4 if i % 2 else -4)},{top - 4 + i * 8}"
                       for i in range((height - 24 - top + 4) // 8 + 1))
        out.append(f'<polyline points="{zig}" fill="none" stroke="#ffffff" stroke-width="6"/>')
        out.append(f'<polyline points="{zig}" fill="none" stroke="#64748b"/>')
        out.append(f'<text x="{bx}" y="{height - 24}" text-anchor="middle" fill="#64748b">'
                   f'+{round(skipped)} s</text>')
    out.append(f'<text x="{left}" y="{height - 8}" fill="#475569">t = 0 at the first commit; '
               f'{round(t1 - t0, 3)} s in all · hatched: finished by a later incarnation'
               f'{" · red tick: cancelled" if "cancelled" in labels else ""}</text>')
    out.append("</svg>")
    return Gantt("\n".join(out), bars)
