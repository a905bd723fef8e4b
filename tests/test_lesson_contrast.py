"""Pictures stay legible in JupyterLab's dark theme: text contrast against what it is drawn on.

The checker (tests/browser/contrast.py) is pure, so it runs here on pictures the course draws,
without a browser; the browser suite (tests/browser/themes.py, from test_lab.py) runs it on
the rendered outputs of the lessons it opens (every lesson with ``--full-sweeps``, a rotating
sample otherwise) in the dark theme.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "browser"))

from contrast import DARK_PAGE, LIGHT_PAGE, contrast, parse_colour, text_problems  # noqa: E402

from minirt.viz import dot_available  # noqa: E402
from minirt.viz.measure import strip_chart  # noqa: E402

BARE = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40">'
        '<text x="10" y="20">black on nothing</text></svg>')


def test_black_text_on_no_background_fails_in_the_dark_theme_only() -> None:
    assert text_problems(BARE, LIGHT_PAGE) == []
    (problem,) = text_problems(BARE, DARK_PAGE)
    assert "black on nothing" in problem and "on #111111" in problem


def test_text_on_a_painted_shape_is_judged_against_that_shape() -> None:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60">'
           '<rect x="0" y="0" width="100" height="30" fill="#D55E00"/>'
           '<text x="10" y="20" fill="#ffffff">on orange</text>'
           '<text x="10" y="50" fill="#555">grey on the page</text>'
           '<g fill="#000000"><text x="150" y="20">inherits black</text></g></svg>')
    problems = text_problems(svg, DARK_PAGE)
    assert len(problems) == 2 and "grey on the page" in problems[0]
    assert "inherits black" in problems[1]
    assert "on orange" not in " ".join(problems)


def test_a_rotated_label_is_placed_by_its_transform() -> None:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60">'
           '<rect x="100" y="0" width="100" height="60" fill="white"/>'
           '<text transform="translate(150,30) rotate(-60)">on white</text></svg>')
    assert text_problems(svg, DARK_PAGE) == []


def test_colour_parsing_and_ratio() -> None:
    assert parse_colour("#fff") == "#ffffff" and parse_colour("none") is None
    assert parse_colour("rgba(0,0,0,0)") is None and parse_colour("url(#p)") is True
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)


def test_the_capstone_strip_chart_is_legible_on_the_dark_page() -> None:
    chart = strip_chart({"a": [1.0, 2.0], "b": [3.0]}, unit="ms", title="t")
    assert text_problems(chart.svg, DARK_PAGE) == []


@pytest.mark.skipif(not dot_available(), reason="graphviz's dot is not installed")
def test_a_graphviz_diagram_is_legible_on_the_dark_page() -> None:
    from minirt.run import RunState
    from minirt.viz.run import state_diagram

    svg = state_diagram([RunState.PENDING, RunState.RUNNING]).svg()
    assert "<text" in svg and text_problems(svg, DARK_PAGE) == []


def test_palettes_drawn_as_text_or_under_white_text_are_legible() -> None:
    """The saga picture writes labels in its status colours on white; the approval timeline
    writes white on its colours (both found too faint by the dark-theme check of lessons 05, 06)."""
    from minirt.viz import approvals, effects

    faint = [f"saga {name} {c}" for name, c in effects.COLOURS.items()
             if contrast(c, LIGHT_PAGE) < 3.0]
    faint += [f"approval {name} {c}" for name, c in approvals.COLOURS.items()
              if contrast("#ffffff", c) < 3.0]
    assert faint == []
