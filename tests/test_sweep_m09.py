"""Module 09's crash sweep: every boundary of the quote-and-pay run under a budget, both modes.

Between every reserve and its settle there is a crash point (``after_budget_reserve``, the
decision and tool windows, ``before_budget_settle``); after recovery the ledger must balance and
charge exactly what the journals record. The second half shows the oracle can say no: a ledger
that settles again on replay, one that forgets the parent, and a retry budget too small to
recover.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sampling import one_of_each, seed

from minirt.budget import Accounts, amounts_of, reserve, settle
from minirt.faults import Outcome, boundaries, crash_once, sweep
from minirt_course.scenarios import m09_budget as m09


def dirty(cells: list[Any]) -> list[str]:
    return [f"{c.reproduce()}: {c.verdict.outcome.value} {c.verdict.detail}"
            for c in cells if not c.verdict.ok]


def test_every_reserve_has_a_crash_point_before_its_settle() -> None:
    points = [p for p, _ in boundaries(m09.reference)]
    assert points.count("after_budget_reserve") == points.count("before_budget_settle") == 5
    assert len(points) == 32


@pytest.mark.parametrize("mode", ["simulate", pytest.param("kill", marks=pytest.mark.slow)])
def test_every_crash_point_recovers_to_a_balanced_ledger(mode: str, full_sweeps: bool) -> None:
    """Simulate: all 32 points. Kill, bounded by default: each of the 13 kinds of point once, at
    one of its occurrences (rotating with the UTC date or MINIRT_HONESTY_SEED); all 32 with
    --full-sweeps."""
    every = boundaries(m09.reference)
    assert len(every) == 32
    chosen = every if mode == "simulate" else one_of_each(every, "m09-kill",
                                                          everything=full_sweeps)
    cells = sweep(m09.reference.ref, modes=(mode,), points=chosen)
    assert len(cells) == len(chosen) >= 13 and dirty(cells) == [], f"seed {seed()!r}"


def test_a_clean_verdict_names_the_spend() -> None:
    verdict = crash_once(m09.reference, "before_budget_settle", occurrence=3)
    assert verdict.ok
    assert "tokens 400/1000" in verdict.detail and "retries 1/4" in verdict.detail


def settle_every_time(accounts: Any, run_id: str, reservation_id: str, used: Any) -> Any:
    """Wrong: no check that the reservation is still open, so replay settles again."""
    with accounts.transaction():
        res = accounts.reservation(run_id, reservation_id)
        chain = accounts.chain(run_id)
        for acct in chain:
            if res.is_open:
                acct.unhold(res.amounts)
            acct.charge(amounts_of(used))
        res = res.closed(used)
        accounts.save(res, chain)
    return res


class OwnOnly(Accounts):
    """Wrong: a run's chain stops at its own account, so a parent never sees its children."""

    def chain(self, run_id: str) -> list[Any]:
        return super().chain(run_id)[:1]


def own_only(accounts: Any) -> OwnOnly:
    return OwnOnly(accounts.store, incarnation=accounts.incarnation, clock=accounts.clock)


def reserve_without_parent(accounts: Any, run_id: str, reservation_id: str, amounts: Any, *,
                           step: Any = None) -> Any:
    return reserve(own_only(accounts), run_id, reservation_id, amounts, step=step)


def settle_without_parent(accounts: Any, run_id: str, reservation_id: str, used: Any) -> Any:
    return settle(own_only(accounts), run_id, reservation_id, used)


def test_settling_again_on_replay_is_caught_as_a_double_count() -> None:
    broken = replace(m09.reference, settle=settle_every_time)
    verdict = crash_once(broken, "before_complete", occurrence=2)
    assert verdict.outcome is Outcome.DUPLICATE and "ledger" in verdict.detail


def test_a_child_not_charged_to_its_parent_is_caught_as_lost_usage() -> None:
    broken = replace(m09.reference, reserve=reserve_without_parent, settle=settle_without_parent)
    verdict = crash_once(broken, "after_claim")
    assert verdict.outcome is Outcome.LOST and "tokens" in verdict.detail


def test_a_retry_budget_of_one_cannot_pay_for_a_second_resend() -> None:
    cells = sweep(m09.tight_retries, points=[("after_intent", 1), ("after_intent", 2),
                                             ("after_result", 1)])
    got = {(c.point, c.occurrence): c.verdict.outcome for c in cells}
    assert got == {("after_intent", 1): Outcome.STUCK, ("after_intent", 2): Outcome.STUCK,
                   ("after_result", 1): Outcome.CLEAN}
