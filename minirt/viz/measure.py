"""A strip chart of measured samples: every sample a marker, each series' median a bar.

Module 11 (the capstone) measures a durable step against the same step without fsync, several
times. :func:`strip_chart` draws those samples as they came out, on an axis scaled from the data
(ticks at round values, the unit on the axis), so the learner sees the spread as well as the
median, and no number on the picture is typed by hand.

Invariant: every sample given is drawn (one marker each) and every series gets its median line
and label; the axis starts at 0 and ends at or above the largest sample. Guaranteed: the SVG is
fitted (:func:`minirt.viz.fit_svg`: a viewBox, at most 800 px wide) with a white background
under dark text, so it stays legible in JupyterLab's dark theme; series are told apart by marker
shape as well as by colour (Okabe-Ito). Not guaranteed: that the samples are independent or
enough to say anything statistical; it is a picture, not a test.
"""

from __future__ import annotations

import html
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import MinirtError
from . import fit_svg

__all__ = ["NoSamples", "StripChart", "nice_ticks", "strip_chart"]

#: (colour, marker) per series, in order: Okabe-Ito blue circle, vermillion square, green diamond.
SERIES_STYLE = (("#0072B2", "circle"), ("#D55E00", "square"), ("#009E73", "diamond"))
INK = "#111111"  # text and axis: on the white background, contrast about 19:1


class NoSamples(MinirtError):
    """:func:`strip_chart` was given no series, an empty one, or a sample that is not a finite
    number >= 0. Nothing is drawn."""

    fields = ("series", "reason")
    template = "strip chart: series {series!r}: {reason}"


def nice_ticks(top: float, count: int = 5) -> list[float]:
    """Round tick values from 0 to at least ``top`` (1, 2 or 5 times a power of ten apart)."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 10) for i in range(n + 1)]


def _marker(shape: str, x: float, y: float, colour: str) -> str:
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{colour}" fill-opacity="0.8"/>'
    if shape == "square":
        return (f'<rect x="{x - 4.5:.1f}" y="{y - 4.5:.1f}" width="9" height="9" fill="{colour}"'
                ' fill-opacity="0.8"/>')
    return (f'<polygon points="{x:.1f},{y - 6:.1f} {x + 6:.1f},{y:.1f} {x:.1f},{y + 6:.1f} '
            f'{x - 6:.1f},{y:.1f}" fill="{colour}" fill-opacity="0.8"/>')


def _label(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


@dataclass(frozen=True)
class StripChart:
    """The drawn chart: its SVG, and the medians it marks (series -> median)."""

    svg: str
    medians: dict[str, float]

    def _repr_svg_(self) -> str:
        return self.svg


def strip_chart(samples: Mapping[str, Sequence[float]], *, unit: str, title: str = ""
                ) -> StripChart:
    """Draw ``samples`` (series name -> measured values, in ``unit``) as a strip chart."""
    if not samples:
        raise NoSamples(series="", reason="no series given")
    for name, values in samples.items():
        if not values:
            raise NoSamples(series=name, reason="no samples")
        bad = [v for v in values if not (isinstance(v, int | float) and math.isfinite(v) and v >= 0)]
        if bad:
            raise NoSamples(series=name, reason=f"{bad[0]!r} is not a finite number >= 0")
    left, width, row, top_pad = 150.0, 560.0, 46.0, 34.0 if title else 12.0
    ticks = nice_ticks(max(max(v) for v in samples.values()))
    scale = width / ticks[-1]
    height = top_pad + row * len(samples) + 46
    axis_y = top_pad + row * len(samples) + 6
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 30:.0f}" '
           f'height="{height:.0f}" font-family="sans-serif" font-size="13" fill="{INK}">']
    if title:
        out.append(f'<text x="{left:.0f}" y="20" font-weight="bold">{html.escape(title)}</text>')
    medians: dict[str, float] = {}
    for i, (name, values) in enumerate(samples.items()):
        colour, shape = SERIES_STYLE[i % len(SERIES_STYLE)]
        y = top_pad + row * i + row / 2
        med = statistics.median(values)
        medians[name] = med
        out.append(f'<text x="{left - 10:.0f}" y="{y + 4:.1f}" text-anchor="end">'
                   f'{html.escape(name)}</text>')
        out.append(f'<line x1="{left:.0f}" x2="{left + width:.0f}" y1="{y:.1f}" y2="{y:.1f}" '
                   'stroke="#dddddd"/>')
        out += [_marker(shape, left + v * scale, y, colour) for v in values]
        mx = left + med * scale
        out.append(f'<line x1="{mx:.1f}" x2="{mx:.1f}" y1="{y - 14:.1f}" y2="{y + 14:.1f}" '
                   f'stroke="{INK}" stroke-width="2"/>')
        anchor = "end" if mx > left + width * 0.8 else "start"
        dx = -6 if anchor == "end" else 6
        out.append(f'<text x="{mx + dx:.1f}" y="{y - 10:.1f}" text-anchor="{anchor}" '
                   f'font-size="12">median {_label(med)}</text>')
    out.append(f'<line x1="{left:.0f}" x2="{left + width:.0f}" y1="{axis_y:.1f}" '
               f'y2="{axis_y:.1f}" stroke="{INK}"/>')
    for t in ticks:
        x = left + t * scale
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{axis_y:.1f}" y2="{axis_y + 5:.1f}" '
                   f'stroke="{INK}"/>')
        out.append(f'<text x="{x:.1f}" y="{axis_y + 19:.1f}" text-anchor="middle" '
                   f'font-size="12">{_label(t)}</text>')
    out.append(f'<text x="{left + width / 2:.0f}" y="{axis_y + 37:.1f}" text-anchor="middle">'
               f'{html.escape(unit)}</text>')
    out.append("</svg>")
    return StripChart(fit_svg("".join(out), background="white"), medians)
