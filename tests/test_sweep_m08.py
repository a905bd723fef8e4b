"""Module 08's crash sweep: a booking agent cancelled while its charge is in flight, crashed at
every boundary (before and after the request, during quiescence, during cleanup), both modes.

The last tests show the oracle can fail: a quiescence check that ignores an effect still in
flight lets the cleanup miss a charge that happened, and a cancel request that is not idempotent
(it rewrites the record when the operator presses cancel again) makes the cleanup run again.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from sampling import one_of_each, seed

from minirt.cancel import CANCEL_KEY
from minirt.canonical import canonical_json
from minirt.faults import Outcome, boundaries, crash_once, sweep
from minirt.run import RunEvent
from minirt.store.base import NewEvent
from minirt_course.scenarios.m08_cancel import cancel_drill

CANCEL_POINTS = {"before_cancel_quiesced", "after_cancel_quiesced", "before_cancel_cleaned_up",
                 "after_cancel_cleaned_up", "before_cancelled"}


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["simulate", "kill"])
def test_every_crash_point_of_a_cancel_ends_cancelled_and_clean(mode: str,
                                                               full_sweeps: bool) -> None:
    """Simulate: every point. Kill, bounded by default: each kind of point once, at one of its
    occurrences (rotating with the UTC date or MINIRT_HONESTY_SEED); all with --full-sweeps."""
    every = boundaries(cancel_drill.ref)
    chosen = every if mode == "simulate" else one_of_each(every, "m08-kill",
                                                          everything=full_sweeps)
    cells = sweep(cancel_drill.ref, modes=(mode,), points=chosen)
    bad = [f"{c.point}#{c.occurrence}: {c.verdict.outcome.value} ({c.verdict.detail})"
           for c in cells if not c.verdict.ok]
    assert not bad, (bad, f"seed {seed()!r}")
    assert CANCEL_POINTS <= {c.point for c in cells} and len(cells) == len(chosen)


def test_the_sweep_crashes_after_the_request_and_inside_the_cleanup() -> None:
    points = boundaries(cancel_drill)
    quiesced = points.index(("after_cancel_quiesced", 1))
    cleaned = points.index(("before_cancel_cleaned_up", 1))
    cleanup_calls = [p for p in points[quiesced:cleaned] if p[0] == "after_provider_commit"]
    assert len(cleanup_calls) == 3  # refund, cancel the booking, the "order cancelled" email


def ignores_effects(children: Any, effects: Any) -> bool:
    return not any(c.running for c in children)


def rewrites_the_record(store: Any, run_id: str, reason: str, at: float) -> bool:
    with store.transaction():
        rec = {"stage": "requested", "reason": reason, "requested_at": at}
        store.transition(run_id, RunEvent("cancel_request", at=at),
                         events=[NewEvent("cancel_requested", None, canonical_json(rec), at)],
                         kv={CANCEL_KEY: canonical_json(rec)})
    return True


def test_quiescence_with_an_effect_in_flight_loses_the_refund() -> None:
    wrong = replace(cancel_drill, quiescent=ignores_effects)
    assert crash_once(wrong, "after_provider_commit", occurrence=2).outcome is Outcome.LOST
    assert crash_once(cancel_drill, "after_provider_commit", occurrence=2).ok


def test_a_cancel_that_is_not_idempotent_makes_the_cleanup_run_again() -> None:
    wrong = replace(cancel_drill, request=rewrites_the_record)
    verdict = crash_once(wrong, "after_result", occurrence=3)  # after the cleanup's refund
    assert not verdict.ok
    assert crash_once(cancel_drill, "after_result", occurrence=3).ok


def test_the_recorded_report_lists_every_effect_settled() -> None:
    import tempfile
    from pathlib import Path

    from minirt.faults import recover

    with tempfile.TemporaryDirectory() as tmp:
        verdict = crash_once(cancel_drill, "after_provider_commit", occurrence=2,
                             workdir=Path(tmp))
        rt = recover(cancel_drill, Path(tmp), cancel_drill.run_id)
        rec = json.loads(rt.store.kv_get(cancel_drill.run_id, CANCEL_KEY))
        rt.close()
    assert verdict.ok
    assert [e["status"] for e in rec["effects"]] == ["done"] * 5  # book, charge + 3 cleanup
