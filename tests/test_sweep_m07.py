"""Module 07's crash sweep: every boundary of the fan-out, both crash modes, judged by the shop.

The last tests show the oracle can fail: a join in completion order gives another result after a
crash (and even without one), and a sibling that ran again after it finished is caught by the
shop's execution count.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sampling import one_of_each, seed

from minirt.faults import Faults, Outcome, boundaries, crash_once, recover, sweep
from minirt_course.scenarios.m07_fanout import ShopProvider, fanout, reference_result

WAVE_POINTS = {"before_intent", "inside_commit", "after_intent", "after_provider_commit",
               "before_result", "after_result"}


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["simulate", "kill"])
def test_every_crash_point_of_the_fan_out_recovers_clean(mode: str, full_sweeps: bool) -> None:
    """Simulate: every point. Kill, bounded by default: each kind of point once, at one of its
    occurrences (rotating with the UTC date or MINIRT_HONESTY_SEED); all with --full-sweeps."""
    every = boundaries(fanout.ref)
    chosen = every if mode == "simulate" else one_of_each(every, "m07-kill",
                                                          everything=full_sweeps)
    cells = sweep(fanout.ref, modes=(mode,), points=chosen)
    bad = [f"{c.point}#{c.occurrence}: {c.verdict.outcome.value} ({c.verdict.detail})"
           for c in cells if not c.verdict.ok]
    assert not bad, (bad, f"seed {seed()!r}")
    assert WAVE_POINTS <= {c.point for c in cells}
    assert len([p for p in every if p[0] == "after_result"]) == 6  # inside every wave
    assert len(cells) == len(chosen)


def test_the_sweep_crashes_between_siblings_of_one_wave() -> None:
    points = boundaries(fanout)
    first_wave = points[points.index(("inside_commit", 1)):points.index(("inside_commit", 2))]
    assert first_wave.count(("after_result", 1)) == 1
    assert [p for p, _ in first_wave].count("after_result") == 3


def arrival_order(arrivals: Any) -> list[Any]:
    """The naive join: results in the order they arrived."""
    return [value for _, value in arrivals]


def test_a_join_in_completion_order_is_caught() -> None:
    naive = replace(fanout, planner=fanout.planner, join=arrival_order)
    assert crash_once(naive, "before_complete").outcome is Outcome.WRONG  # differs already
    assert crash_once(naive, "after_result", occurrence=1).outcome is Outcome.WRONG


def test_a_finished_sibling_that_runs_again_is_caught() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        wd = Path(tmp)
        fanout.setup(wd)
        rt = fanout.make_runtime(wd, faults=Faults(), clock_offset=0.0, worker_id="w-1")
        rt.run(fanout.start(rt))
        key = next(e.payload["effect_key"] for e in rt.store.read(fanout.run_id)
                   if e.kind == "tool_result" and e.step == 1)
        rt.close()
        with ShopProvider(wd / "shop.sqlite") as shop:
            shop.read("lookup_customer", key, customer="cus_42")  # a second execution
        rt = recover(fanout, wd, fanout.run_id)
        verdict = fanout.oracle(wd, rt, fanout.run_id)
        rt.close()
    assert verdict.outcome is Outcome.DUPLICATE and "step 1" in verdict.detail


def test_the_reference_result_joins_in_step_order() -> None:
    results = reference_result()["results"]
    assert results[0]["order_id"] == "A-42"  # the order look-up (step 0) first, finished last
    assert results[5]["address"] == "7 New Street, Bern"  # the invoice saw the update
