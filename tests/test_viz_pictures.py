"""The rules every picture follows: fits the output area, reads in both themes, not colour alone.

Checked on the SVG text each picture really displays (``_repr_svg_`` / the Diagram's bundle),
so a picture that bypasses :func:`minirt.viz.fit_svg` fails here.
"""

from __future__ import annotations

import re
import shutil

import graphviz
import pytest

from minirt.viz import OUTCOMES, fit_svg, outcome_patterns, render
from minirt.viz.budget import SVG
from minirt.viz.scheduler import Bar, gantt

ROOT_TAG = re.compile(r"<svg\b[^>]*>")


def _root(svg: str) -> str:
    m = ROOT_TAG.search(svg)
    assert m, "no <svg> tag"
    return m.group(0)


def _luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_fit_svg_adds_a_viewbox_max_width_and_a_background() -> None:
    out = fit_svg('<svg xmlns="http://www.w3.org/2000/svg" width="640" height="60"><text/></svg>')
    tag = _root(out)
    assert 'viewBox="0 0 640 60"' in tag and "max-width:100%" in tag
    assert 'width="640"' in tag  # narrower than the cap: never scaled up
    assert out.index('<rect width="100%" height="100%" fill="white"/>') > out.index(tag)
    assert fit_svg(out) == out  # idempotent


def test_fit_svg_scales_a_wide_picture_down_to_the_cap_keeping_its_aspect() -> None:
    tag = _root(fit_svg('<svg width="1760" height="100"><g/></svg>', max_width_px=880))
    assert 'width="880"' in tag and 'height="50"' in tag and 'viewBox="0 0 1760 100"' in tag
    pt = _root(fit_svg('<svg width="1320pt" height="66pt" viewBox="0 0 1320 66"><g/></svg>',
                       background=None, max_width_px=880))
    assert 'width="660pt"' in pt and 'height="33pt"' in pt  # 880 px = 660 pt


def test_fit_svg_keeps_an_existing_viewbox_and_style() -> None:
    src = '<svg width="200pt" height="50pt" viewBox="0 0 200 50" style="color:red"><g/></svg>'
    tag = _root(fit_svg(src, background=None))
    assert tag.count("viewBox") == 1 and 'style="max-width:100%;height:auto;color:red"' in tag
    assert "<rect" not in fit_svg(src, background=None)


def test_hand_drawn_pictures_display_fitted_on_white() -> None:
    bars = [Bar(0, "lookup", 0, 0.0, 1.0, "tool_result", 1, 1)]
    for shown in (SVG('<svg xmlns="http://www.w3.org/2000/svg" width="640" height="40"/>')
                  ._repr_svg_(), gantt(bars)._repr_svg_()):
        assert "max-width:100%" in _root(shown) and "viewBox" in _root(shown)
        assert 'fill="white"' in shown


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is not installed")
def test_graphviz_diagrams_display_fitted() -> None:
    g = graphviz.Digraph()
    g.edge("a", "b")
    bundle = render(g)._repr_mimebundle_()
    assert "max-width:100%" in _root(bundle["image/svg+xml"])


@pytest.mark.parametrize("name", list(OUTCOMES))
def test_each_outcome_text_is_readable_on_its_colour(name: str) -> None:
    style = OUTCOMES[name]
    assert contrast(style.colour, style.text) >= 3.0, f"{name}: text on colour too faint"


def test_outcomes_differ_by_glyph_and_the_bad_ones_by_pattern() -> None:
    glyphs = [s.glyph for s in OUTCOMES.values()]
    assert len(set(glyphs)) == len(glyphs)
    patterns = [s.pattern for n, s in OUTCOMES.items() if n != "clean"]
    assert all(patterns) and len(set(patterns)) == len(patterns)
    defs = outcome_patterns()
    assert all(f'id="{p}"' in defs for p in patterns)
    dup, lost = OUTCOMES["duplicate effect"], OUTCOMES["lost effect"]
    assert dup.colour != lost.colour and dup.pattern != lost.pattern


def test_the_browser_checks_report_a_cut_off_picture() -> None:
    import sys
    from pathlib import Path

    import nbformat.v4 as v4

    sys.path.insert(0, str(Path(__file__).parent / "browser"))
    from checks import problems_in

    nb = v4.new_notebook(cells=[v4.new_code_cell("a"), v4.new_code_cell("b"),
                                v4.new_code_cell("c")])

    def rec(**svg: object) -> dict:
        return {"prompt": "[1]:", "outputs": [], "svgs": [{"ok": True, "w": 900, **svg}]}

    cells = [rec(clip=120), rec(clip=0, shrunk=True, viewbox=False, shown_w=780),
             rec(clip=0, shrunk=True, viewbox=True, shown_w=780)]
    found = {p.cell: p.what for p in problems_in("x.ipynb", nb, cells, {})}
    assert "120px wider than the output area" in found[0]
    assert "without a viewBox" in found[1]
    assert 2 not in found
