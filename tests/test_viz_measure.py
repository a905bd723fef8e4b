"""The capstone's strip chart (minirt.viz.measure): drawn from the samples, every one of them."""

from __future__ import annotations

import re

import pytest

from minirt.viz import MAX_WIDTH_PX
from minirt.viz.measure import NoSamples, nice_ticks, strip_chart

SAMPLES = {"durable step": [16_800.0, 15_900.0, 17_200.0], "no fsync": [1_660.0, 1_700.0]}


def test_every_sample_is_drawn_and_each_series_has_its_median() -> None:
    chart = strip_chart(SAMPLES, unit="µs per step", title="t")
    assert len(re.findall(r"<circle ", chart.svg)) == 3  # first series: circles
    assert len(re.findall(r'<rect x="', chart.svg)) == 2  # second: squares (shape, not colour)
    assert chart.medians == {"durable step": 16_800.0, "no fsync": 1_680.0}
    assert "median 16,800" in chart.svg and "median 1,680" in chart.svg
    assert "µs per step" in chart.svg


def test_the_axis_covers_the_largest_sample_with_round_ticks() -> None:
    assert nice_ticks(17_200.0) == [0.0, 5_000.0, 10_000.0, 15_000.0, 20_000.0]
    assert nice_ticks(0.9) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert nice_ticks(0.0) == [0.0, 1.0]
    assert ">20,000<" in strip_chart(SAMPLES, unit="µs").svg


def test_the_picture_fits_and_has_a_white_background_under_dark_text() -> None:
    svg = strip_chart(SAMPLES, unit="µs").svg
    width = float(re.search(r'<svg[^>]* width="([0-9.]+)', svg).group(1))
    assert width <= MAX_WIDTH_PX and "max-width:100%" in svg
    assert '<rect width="100%" height="100%" fill="white"/>' in svg and 'fill="#111111"' in svg


@pytest.mark.parametrize("bad", [{}, {"a": []}, {"a": [1.0, float("nan")]}, {"a": [-1.0]},
                                 {"a": ["3"]}])
def test_bad_samples_get_a_named_error(bad) -> None:
    with pytest.raises(NoSamples):
        strip_chart(bad, unit="µs")
