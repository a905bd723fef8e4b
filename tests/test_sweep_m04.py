"""Module 04's crash sweep: every window W1..W5 of each tool call, both crash modes.

The oracle reads the providers' ledgers (EffectLedger): with effect keys bound to the payload
and reconcile-by-lookup there is exactly one charge wherever the run crashes; with a random key
per attempt the ledger shows two charges exactly when the crash leaves an unknown outcome after
the provider committed (W3, W4).
"""

from __future__ import annotations

import pytest

from minirt.faults import WINDOWS, Outcome, sweep
from minirt_course.scenarios import m04_payment as m04

KILL = pytest.param("kill", marks=pytest.mark.slow)


def outcomes(scenario, mode: str) -> dict[str, Outcome]:
    cells = sweep(scenario, points=m04.POINTS, modes=(mode,))
    assert len(cells) == len(m04.POINTS) == 10
    return {m04.window(c.point, c.occurrence): c.verdict.outcome for c in cells}


@pytest.mark.parametrize("mode", ["simulate", KILL])
def test_keyed_design_charges_exactly_once_in_every_window(mode: str) -> None:
    got = outcomes(m04.pay_then_book, mode)
    assert set(got.values()) == {Outcome.CLEAN}, got


@pytest.mark.parametrize("mode", ["simulate", KILL])
def test_per_attempt_random_keys_charge_twice_in_w3_and_w4(mode: str) -> None:
    got = outcomes(m04.pay_then_book_random_keys, mode)
    bad = {w for w, o in got.items() if o is not Outcome.CLEAN}
    assert bad == {"W3 charge", "W4 charge"}, got
    assert got["W3 charge"] is got["W4 charge"] is Outcome.DUPLICATE


def test_at_most_once_email_never_duplicates_and_loses_only_in_w2() -> None:
    got = outcomes(m04.pay_then_email_at_most_once, "simulate")
    assert {w for w, o in got.items() if o is not Outcome.CLEAN} == {"W2 follow-up"}
    assert got["W2 follow-up"] is Outcome.LOST


def test_at_least_once_email_never_loses_and_duplicates_in_w3_w4() -> None:
    got = outcomes(m04.pay_then_email_at_least_once, "simulate")
    bad = {w for w, o in got.items() if o is not Outcome.CLEAN}
    assert bad == {"W3 follow-up", "W4 follow-up"}
    assert {got[w] for w in bad} == {Outcome.DUPLICATE}


@pytest.mark.slow
def test_http_provider_in_its_own_process_agent_killed_in_w3_one_charge() -> None:
    verdict = m04.http_crash("after_provider_commit", mode="kill")
    assert verdict.outcome is Outcome.CLEAN, verdict.detail
    assert verdict.detail.startswith("1 charge")


@pytest.mark.slow
@pytest.mark.parametrize("point", [p for p in WINDOWS if WINDOWS[p] != "W3"])
def test_http_provider_other_windows_one_charge(point: str) -> None:
    assert m04.http_crash(point, mode="kill").outcome is Outcome.CLEAN


def test_resuming_past_retention_leaves_one_charge_and_an_uncertain_run() -> None:
    verdict, outcome = m04.crash_then_resume_after(m04.pay_then_book, "after_provider_commit",
                                                   25 * 3600.0)
    assert verdict.outcome is Outcome.STUCK and "EffectKeyMayBePruned" in verdict.detail
    assert outcome.state.value == "uncertain"


def test_the_http_variant_refuses_to_run_without_its_world(tmp_path) -> None:
    with pytest.raises(m04.HTTPWorldMissing):
        m04.pay_then_book_http.setup(tmp_path)
