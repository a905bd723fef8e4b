"""Pictures drawn from runtime data (the layer between the course and the runtime).

Layering: the runtime core never imports this package, and it imports nothing of the course
(``minirt_course``, which draws with it; the course's route map lives there,
:mod:`minirt_course.course.route_map`); ``tests/test_seams.py`` checks both directions.

Each module of the course owns one file here (``minirt/viz/<noun>.py``) that turns plain runtime
data (the transition table, journal rows, a sweep's cells) into a :class:`graphviz.Digraph` or a
widget. :func:`render` shows a diagram in Jupyter, and when the ``dot`` binary is missing it shows
the DOT text with a one-line install hint instead of a traceback.

Every picture fits and reads as a learner sees it: :func:`fit_svg` gives an SVG a ``viewBox``, caps
its width (:data:`MAX_WIDTH_PX`, 800 px) and adds ``max-width: 100%`` so it is scaled down to the output
area instead of being cut off on the right,
and (for the hand-drawn ones) a white background under dark text, so JupyterLab's dark theme
does not put black text on a dark page. Outcomes use one colour-blind-safe palette (Okabe and
Ito) and each also has a glyph and a fill pattern (:data:`OUTCOMES`), so "duplicate" and "lost"
are told apart without colour.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from typing import Any

INSTALL_HINT = ("Graphviz's `dot` program is not installed, so here is the diagram's DOT text. "
                "Install it with `sudo apt-get install graphviz` (Debian/Ubuntu), "
                "`brew install graphviz` (macOS) or `conda install -c conda-forge graphviz`, "
                "or run ./course open, which installs it where it can.")


@dataclass(frozen=True)
class OutcomeStyle:
    """How one oracle outcome is drawn: a colour, a text colour on it, a glyph and a pattern."""

    colour: str
    text: str  # Invariant: readable on ``colour`` (contrast checked by the viz tests)
    glyph: str
    pattern: str  # an SVG pattern id of :func:`outcome_patterns`, or "" for a plain fill


#: The oracle's outcomes (minirt.faults.Outcome values), Okabe-Ito colours plus glyph and pattern.
OUTCOMES: dict[str, OutcomeStyle] = {
    "clean": OutcomeStyle("#009E73", "#ffffff", "✓", ""),
    "duplicate effect": OutcomeStyle("#D55E00", "#ffffff", "2×", "pat-stripes"),
    "lost effect": OutcomeStyle("#0072B2", "#ffffff", "0×", "pat-dots"),
    "stuck": OutcomeStyle("#E69F00", "#000000", "⏸", "pat-bars"),
    "wrong result": OutcomeStyle("#CC79A7", "#000000", "≠", "pat-cross"),
}


def outcome_patterns() -> str:
    """SVG ``<defs>`` with the patterns that :data:`OUTCOMES` names (drawn over the colour)."""
    ink = 'fill="#000000" fill-opacity="0.35"'
    return ('<defs>'
            '<pattern id="pat-stripes" width="6" height="6" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><rect width="2" height="6" {ink}/></pattern>'
            '<pattern id="pat-dots" width="6" height="6" patternUnits="userSpaceOnUse">'
            f'<circle cx="3" cy="3" r="1.3" {ink}/></pattern>'
            '<pattern id="pat-bars" width="6" height="6" patternUnits="userSpaceOnUse">'
            f'<rect width="6" height="2" {ink}/></pattern>'
            '<pattern id="pat-cross" width="6" height="6" patternUnits="userSpaceOnUse">'
            f'<rect width="6" height="1.5" {ink}/><rect width="1.5" height="6" {ink}/></pattern>'
            '</defs>')


_SVG_TAG = re.compile(r"<svg\b[^>]*>")
_NUMBER = r'="([0-9.]+)(pt|px)?"'
#: The widest a picture is drawn, in CSS px. JupyterLab 4 shows an image/svg+xml output as an
#: ``<img>`` at the SVG's own width, with no ``max-width`` (only inline ``<svg>`` gets one), so a
#: wider picture runs past the output area and is cut off. In a 1280 px wide window with the file
#: browser open an output has 848 px (measured in JupyterLab 4, headless Chromium); 800 px leaves
#: a margin. Wider pictures are scaled down to it.
MAX_WIDTH_PX = 800.0
_PX_PER = {"pt": 4 / 3, "px": 1.0, "": 1.0}


def fit_svg(text: str, *, background: str | None = "white",
            max_width_px: float = MAX_WIDTH_PX) -> str:
    """``text`` with a viewBox, at most ``max_width_px`` wide, ``max-width:100%`` for inline use,
    and (optionally) a background rectangle.

    Scales down, never up; aspect ratio kept. Idempotent.
    """
    m = _SVG_TAG.search(text)
    if m is None:
        return text
    tag = m.group(0)
    if "max-width:100%" in tag:
        return text  # already fitted
    new = tag
    w = re.search(r"\swidth" + _NUMBER, tag)
    h = re.search(r"\sheight" + _NUMBER, tag)
    if "viewBox" not in tag and w and h:
        new = new.replace("<svg", f'<svg viewBox="0 0 {w.group(1)} {h.group(1)}"', 1)
    if w and h:
        px = float(w.group(1)) * _PX_PER[w.group(2) or ""]
        if px > max_width_px:
            scale = max_width_px / px
            unit_w, unit_h = w.group(2) or "", h.group(2) or ""
            new = new.replace(w.group(0), f' width="{float(w.group(1)) * scale:.0f}{unit_w}"', 1)
            new = new.replace(h.group(0), f' height="{float(h.group(1)) * scale:.0f}{unit_h}"', 1)
    style = "max-width:100%;height:auto"
    if ' style="' in new:
        new = new.replace(' style="', f' style="{style};', 1)
    else:
        new = new.replace("<svg", f'<svg style="{style}"', 1)
    fill = f'<rect width="100%" height="100%" fill="{background}"/>' if background else ""
    return text[:m.start()] + new + fill + text[m.end():]


def dot_available() -> bool:
    return shutil.which("dot") is not None


class Diagram:
    """A graphviz diagram that renders as SVG when ``dot`` exists and as DOT text otherwise.

    ``source`` is the DOT text (deterministic: tests assert on it).
    """

    def __init__(self, graph: Any) -> None:
        self.graph = graph

    @property
    def source(self) -> str:
        return str(self.graph.source)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        if dot_available():
            try:
                bundle = dict(self.graph._repr_mimebundle_(include=include, exclude=exclude))
            except Exception:  # a broken dot install: fall back rather than fail the cell
                bundle = {}
            if bundle:
                svg = bundle.get("image/svg+xml")
                if isinstance(svg, str):  # graphviz draws its own white background
                    bundle["image/svg+xml"] = fit_svg(svg, background=None)
                return bundle
        text = f"{INSTALL_HINT}\n\n{self.source}"
        return {"text/plain": text,
                "text/markdown": f"{INSTALL_HINT}\n\n```dot\n{self.source}\n```"}

    def svg(self, *, max_width_px: float = MAX_WIDTH_PX) -> str:
        """The rendered SVG as displayed (needs ``dot``): at most ``max_width_px`` wide."""
        return fit_svg(self.graph.pipe(format="svg").decode("utf-8"), background=None,
                       max_width_px=max_width_px)

    def __repr__(self) -> str:
        return f"Diagram({len(self.source)} bytes of DOT)"


def render(graph: Any) -> Diagram:
    """Wrap a :class:`graphviz.Digraph` so it displays with the fallback."""
    return Diagram(graph)
