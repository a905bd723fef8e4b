"""Is every text of a picture legible on what it is drawn on? (pure; no browser needed)

A picture's text sits either on a shape the picture paints under it (a node's fill, the white
background :func:`minirt.viz.fit_svg` adds, the white polygon graphviz draws first) or, where
the picture paints nothing, on the page: JupyterLab's output area, which is near black in the
dark theme. :func:`text_problems` finds, for every ``<text>`` element, the last filled shape
painted before it whose box holds the text's anchor point, and checks the WCAG contrast ratio
of the text's fill against that shape's fill (or the page's colour) is at least
:data:`MIN_CONTRAST` (3:1, WCAG's level for large text and graphics: diagram labels are short).

Approximations, stated: shapes are compared by their bounding box in the coordinates they are
written in (graphviz and the course's hand-drawn SVGs put all shapes and texts of a picture in
one coordinate system); opacity is ignored except 0 (``fill-opacity="0"`` paints nothing); a
fill given by a pattern (``url(#...)``) counts as the pattern's base shape below it, not as paint.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

MIN_CONTRAST = 3.0
#: JupyterLab 4's dark theme: --jp-layout-color0 (the output area's background).
DARK_PAGE = "#111111"
LIGHT_PAGE = "#ffffff"

_NAMED = {"white": "#ffffff", "black": "#000000", "none": None, "transparent": None,
          "red": "#ff0000", "green": "#008000", "blue": "#0000ff", "gray": "#808080",
          "grey": "#808080", "lightgrey": "#d3d3d3", "lightgray": "#d3d3d3", "yellow": "#ffff00",
          "orange": "#ffa500", "navy": "#000080", "darkgreen": "#006400"}
_SHAPES = {"rect", "polygon", "ellipse", "circle", "path"}


def parse_colour(value: str | None) -> str | None | bool:
    """``#rrggbb`` for a colour, None for no paint, True when unknown (a pattern, currentColor)."""
    if value is None:
        return True
    v = value.strip().lower()
    if v in _NAMED:
        return _NAMED[v]
    if re.fullmatch(r"#[0-9a-f]{3}", v):
        return "#" + "".join(ch * 2 for ch in v[1:])
    if re.fullmatch(r"#[0-9a-f]{6}", v):
        return v
    m = re.fullmatch(r"rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*([0-9.]+)\s*)?\)", v)
    if m:
        if m.group(4) is not None and float(m.group(4)) == 0:
            return None
        return "#" + "".join(f"{min(int(g), 255):02x}" for g in m.groups()[:3])
    return True


def luminance(hex_colour: str) -> float:
    """WCAG relative luminance of ``#rrggbb``."""
    def lin(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _style(el: ET.Element, name: str) -> str | None:
    m = re.search(rf"(?:^|;)\s*{name}\s*:\s*([^;]+)", el.get("style", ""))
    return m.group(1).strip() if m else el.get(name)


def _num(v: str | None) -> float:
    try:
        return float(re.sub(r"[a-z%]+$", "", (v or "0").strip()))
    except ValueError:
        return 0.0


def _bbox(el: ET.Element, tag: str, size: tuple[float, float]) -> tuple[float, ...] | None:
    if tag == "rect":
        w, h = el.get("width", "0"), el.get("height", "0")
        ww = size[0] if w.endswith("%") else _num(w)
        hh = size[1] if h.endswith("%") else _num(h)
        x, y = _num(el.get("x")), _num(el.get("y"))
        return (x, y, x + ww, y + hh)
    if tag in ("ellipse", "circle"):
        cx, cy = _num(el.get("cx")), _num(el.get("cy"))
        rx = _num(el.get("rx") or el.get("r"))
        ry = _num(el.get("ry") or el.get("r"))
        return (cx - rx, cy - ry, cx + rx, cy + ry)
    nums = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?",
                                         el.get("points", "") if tag == "polygon" else
                                         el.get("d", ""))]
    if len(nums) < 4:
        return None
    xs, ys = nums[0::2], nums[1::2]
    return (min(xs), min(ys), max(xs), max(ys))


@dataclass(frozen=True)
class TextOn:
    """One text of the picture and what it is drawn on."""

    text: str
    ink: str
    ground: str
    ratio: float


def texts_and_grounds(svg: str, page: str) -> list[TextOn]:
    """Every ``<text>`` of ``svg`` with its ink, its ground and their contrast."""
    root = ET.fromstring(svg)
    vb = [float(n) for n in (root.get("viewBox") or "").split()] or [0, 0, 0, 0]
    size = (vb[2] or _num(root.get("width")), vb[3] or _num(root.get("height")))
    painted: list[tuple[tuple[float, ...], str]] = []
    out: list[TextOn] = []

    def walk(el: ET.Element, fill: str | None) -> None:
        tag = _local(el.tag)
        if tag in ("defs", "pattern", "clipPath", "mask", "title"):
            return
        own = _style(el, "fill")
        fill = own if own is not None else fill
        if tag in _SHAPES:
            colour = parse_colour(fill if fill is not None else "black")
            opaque = _num(_style(el, "fill-opacity") or "1") != 0
            box = _bbox(el, tag, size)
            if isinstance(colour, str) and opaque and box is not None:
                painted.append((box, colour))
        if tag == "text":
            ink = parse_colour(fill if fill is not None else "black")
            label = "".join(el.itertext()).strip()
            x, y = _num(el.get("x")), _num(el.get("y"))
            moved = re.search(r"translate\(\s*(-?[\d.]+)[\s,]+(-?[\d.]+)", el.get("transform", ""))
            if moved:  # a rotated label is placed by its transform
                x, y = x + float(moved.group(1)), y + float(moved.group(2))
            under = [c for box, c in painted if box[0] <= x <= box[2] and box[1] <= y <= box[3]]
            ground = under[-1] if under else page
            if isinstance(ink, str) and label:
                out.append(TextOn(label, ink, ground, round(contrast(ink, ground), 2)))
            return
        for child in el:
            walk(child, fill)

    walk(root, None)
    return out


def text_problems(svg: str, page: str = DARK_PAGE) -> list[str]:
    """One line per text of ``svg`` whose contrast with its ground is under MIN_CONTRAST."""
    return [f"text {t.text[:30]!r} ({t.ink}) on {t.ground}: contrast {t.ratio}:1 "
            f"(needs {MIN_CONTRAST}:1)" for t in texts_and_grounds(svg, page)
            if t.ratio < MIN_CONTRAST]
