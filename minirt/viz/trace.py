"""Module 10's pictures: a run's trace as a waterfall, and a crash sweep as a heat map.

- :func:`waterfall` draws the spans of a run (:func:`minirt.trace.journal_spans`, merged with
  the live spans a :class:`~minirt.trace.TraceHook` reported, which add the replays) on the
  journal's own time axis: the sequence number of its events, since a fake clock gives every
  event the same time. Incarnations are bands; an abandoned one (crashed, lease lost) is red;
  replayed positions are grey and dashed; each operation row can carry what the effect report
  says (executions in the provider's ledger, receipts in the journal).
- :func:`heatmap` draws a :class:`~minirt.faults.SweepMatrix`: one row per scenario, one column
  per fault point, each cell coloured by the worst outcome over its occurrences and crash modes
  (grey: the scenario never passes that point). Each outcome has its colour-blind-safe colour, a
  fill pattern and a glyph (:data:`minirt.viz.OUTCOMES`), so no cell is told apart by colour
  alone. Hover a cell for its counts.

Plain SVG from data; deterministic text, so tests assert on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from ..faults import SweepMatrix
from ..store.base import Store
from ..trace import EffectReport, SpanRecord, incarnation_span_id, journal_spans, merge
from . import OUTCOMES, OutcomeStyle, outcome_patterns
from .budget import SVG

COLOURS = {name: style.colour for name, style in OUTCOMES.items()}
SEVERITY = ("duplicate effect", "lost effect", "wrong result", "stuck", "clean")
FILL = {"run": "#aab7b8", "incarnation": "#5dade2", "tool": "#48c9b0", "attempt": "#f5b041",
        "decision": "#a569bd", "step": "#a569bd", "wait": "#a569bd", "tool_rejected": "#ec7063"}


def _kind(span: SpanRecord) -> str:
    return span.name.split(" ", 1)[0]


def _ordered(spans: list[SpanRecord]) -> list[tuple[int, SpanRecord]]:
    """Depth-first: run, then each incarnation with its positions (work and replays)."""
    children: dict[int | None, list[SpanRecord]] = {}
    for s in spans:
        children.setdefault(s.parent_id, []).append(s)

    def key(s: SpanRecord) -> tuple[float, float, int]:
        return (s.attributes.get("minirt.seq", 0), s.start_at, s.span_id)

    out: list[tuple[int, SpanRecord]] = []

    def walk(parent: int | None, depth: int) -> None:
        for s in sorted(children.get(parent, []), key=key):
            out.append((depth, s))
            walk(s.span_id, depth + 1)

    walk(None, 0)
    return out


def waterfall(store: Store, run_id: str, live: Iterable[SpanRecord] = (), *,
              report: EffectReport | None = None, title: str | None = None) -> SVG:
    """The run's trace (see the module docstring)."""
    spans = merge(journal_spans(store, run_id), live)
    last_seq = max([int(s.attributes.get("minirt.seq.end", 1)) for s in spans] + [1])
    claim = {s.span_id: int(s.attributes.get("minirt.seq", 1)) for s in spans
             if _kind(s) == "incarnation"}
    placed: list[tuple[int, SpanRecord, float, float]] = []
    replay_slot: dict[int, int] = {}
    for depth, s in _ordered(spans):
        if s.replayed:  # a read, not in the journal: right after the incarnation's claim
            parent = s.parent_id or incarnation_span_id(run_id, 0)
            slot = replay_slot[parent] = replay_slot.get(parent, 0) + 1
            start = claim.get(parent, 1) + 0.25 * slot
            placed.append((depth, s, start, start + 0.2))
        else:
            start = float(s.attributes.get("minirt.seq", 1))
            end = float(s.attributes.get("minirt.seq.end", start))
            placed.append((depth, s, start - 0.4, end + 0.4))
    effects = {r.span_id: r for r in (report.rows if report else ())}
    left, row_h, width = 230, 18, 980
    plot_w = width - left - (300 if report else 20)
    height = 50 + row_h * len(placed)

    def x(seq: float) -> float:
        return left + plot_w * (seq - 0.5) / (last_seq + 0.5)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="11">',
           f'<text x="10" y="18" font-size="13">{escape(title or f"trace of {run_id}")}</text>',
           f'<text x="{left}" y="36" fill="#555">journal sequence number 1 .. {last_seq} '
           f'(replays sit right after their incarnation\'s claim)</text>']
    for i, (depth, s, start, end) in enumerate(placed):
        y = 44 + i * row_h
        kind = _kind(s)
        fill = "#d5d8dc" if s.replayed else FILL.get(kind, "#85929e")
        stroke = ' stroke="#c0392b" stroke-width="2"' if s.status == "error" else ""
        dash = ' stroke="#7f8c8d" stroke-dasharray="3,2"' if s.replayed else ""
        tip = escape(f"{s.name} · span {s.hex_id} · " + ", ".join(
            f"{k.removeprefix('minirt.')}={v}" for k, v in sorted(s.attributes.items())))
        out.append(f'<g><title>{tip}</title>'
                   f'<text x="{10 + 12 * depth}" y="{y + 12}">{escape(s.name[:38])}</text>'
                   f'<rect x="{x(start):.1f}" y="{y + 2}" width="{max(x(end) - x(start), 3):.1f}"'
                   f' height="{row_h - 5}" rx="2" fill="{fill}"{stroke}{dash}/></g>')
        row = effects.get(s.hex_id)
        if row is not None:
            colour = "#1e8449" if row.verdict == "exactly once" else "#c0392b"
            out.append(f'<text x="{left + plot_w + 10}" y="{y + 12}" fill="{colour}">'
                       f'{escape(f"ledger {row.executions} · receipt {row.receipts} · {row.verdict}")}'
                       f'</text>')
    out.append("</svg>")
    return SVG("\n".join(out))


def _short(ref: str) -> str:
    return ref.removeprefix("minirt_course.scenarios.")


def _swatch(x: float, y: float, w: float, h: float, style: OutcomeStyle) -> str:
    """A rectangle in an outcome's colour with its pattern drawn over it."""
    colour, pattern = style.colour, style.pattern
    out = f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{colour}"/>'
    if pattern:
        out += f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="url(#{pattern})"/>'
    return out


def worst(outcomes: Iterable[str]) -> str:
    seen = set(outcomes)
    return next((o for o in SEVERITY if o in seen), "clean")


def heatmap(matrix: SweepMatrix, *, points: Sequence[str] | None = None,
            title: str | None = None) -> SVG:
    """The sweep as a heat map (see the module docstring)."""
    grid = matrix.grid()
    rows = matrix.scenarios
    cols = list(points) if points is not None else matrix.points
    cell, left, top = 26, 300, 150
    width = max(left + cell * len(cols) + 120, 10 + 130 * len(COLOURS) + 20)
    height = top + cell * len(rows) + 84
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="11">', outcome_patterns(),
           f'<text x="10" y="18" font-size="13">{escape(title or matrix.summary())}</text>']
    for j, point in enumerate(cols):
        cx = left + j * cell + cell / 2
        out.append(f'<text transform="translate({cx + 4:.1f},{top - 6}) rotate(-60)">'
                   f'{escape(point)}</text>')
    for i, ref in enumerate(rows):
        y = top + i * cell
        out.append(f'<text x="10" y="{y + cell / 2 + 4:.1f}">{escape(_short(ref))}</text>')
        for j, point in enumerate(cols):
            counts = grid.get((ref, point))
            xx = left + j * cell
            if not counts:
                out.append(f'<rect x="{xx}" y="{y}" width="{cell - 2}" height="{cell - 2}" '
                           f'fill="#f2f3f4"/>')
                continue
            tip = escape(f"{_short(ref)} at {point}: " + ", ".join(
                f"{n} {o}" for o, n in sorted(counts.items())))
            style = OUTCOMES[worst(counts)]
            text = style.glyph  # the counts are in the tooltip
            label = (f'<text x="{xx + cell / 2 - 1:.1f}" y="{y + cell / 2 + 4:.1f}" '
                     f'text-anchor="middle" font-size="10" fill="{style.text}">{text}</text>')
            out.append(f'<g><title>{tip}</title>' + _swatch(xx, y, cell - 2, cell - 2, style)
                       + f'{label}</g>')
    ly = top + cell * len(rows) + 24
    for k, (name, style) in enumerate(OUTCOMES.items()):
        out.append(_swatch(10 + 130 * k, ly - 2, 16, 16, style)
                   + f'<text x="{10 + 130 * k + 8}" y="{ly + 10}" text-anchor="middle" '
                   f'font-size="9" fill="{style.text}">{style.glyph}</text>'
                   f'<text x="{30 + 130 * k}" y="{ly + 10}">{escape(name)}</text>')
    out.append(f'<text x="10" y="{ly + 34}" fill="#555">each cell: the worst outcome over its '
               f'occurrences and crash modes (hover for the counts);</text>'
               f'<text x="10" y="{ly + 48}" fill="#555">grey: the scenario never passes that '
               f'point</text>')
    out.append("</svg>")
    return SVG("\n".join(out))
