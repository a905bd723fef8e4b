"""The hidden-test logic of drill 09 passes the reference answer and catches each wrong one."""

from __future__ import annotations

from typing import Any

import pytest

from minirt.budget import BudgetExceeded, Reservation, amounts_of, reserve, settle
from minirt.grading import m09


def check_then_reserve(accounts: Any, run_id: str, rid: str, amounts: Any, *,
                       step: Any = None) -> Any:
    """Wrong: the check reads the accounts before the transaction that holds."""
    amounts = amounts_of(amounts)
    found = accounts.reservation(run_id, rid)
    if found is not None:
        return found
    for acct in accounts.chain(run_id):
        for dim, n in amounts.items():
            if n > acct.available(dim):
                raise BudgetExceeded(run_id=run_id, dimension=dim, requested=n,
                                     available=acct.available(dim), limited_by=acct.run_id)
    with accounts.transaction():
        chain = accounts.chain(run_id)
        for acct in chain:
            acct.hold(amounts)
        res = Reservation(run_id, rid, amounts, accounts.clock.now(), step)
        accounts.save(res, chain)
    return res


def settle_keeps_remainder(accounts: Any, run_id: str, rid: str, used: Any) -> Any:
    """Wrong: only the used part leaves the hold; the rest stays held forever."""
    used = amounts_of(used)
    with accounts.transaction():
        res = accounts.reservation(run_id, rid)
        if not res.is_open:
            return res
        chain = accounts.chain(run_id)
        for acct in chain:
            acct.unhold(used)
            acct.charge(used)
        res = res.closed(used)
        accounts.save(res, chain)
    return res


def own_account_only_reserve(accounts: Any, run_id: str, rid: str, amounts: Any, *,
                             step: Any = None) -> Any:
    amounts = amounts_of(amounts)
    with accounts.transaction():
        found = accounts.reservation(run_id, rid)
        if found is not None:
            return found
        acct = accounts.chain(run_id)[0]
        for dim, n in amounts.items():
            if n > acct.available(dim):
                raise BudgetExceeded(run_id=run_id, dimension=dim, requested=n,
                                     available=acct.available(dim), limited_by=acct.run_id)
        acct.hold(amounts)
        res = Reservation(run_id, rid, amounts, accounts.clock.now(), step)
        accounts.save(res, [acct])
    return res


def own_account_only_settle(accounts: Any, run_id: str, rid: str, used: Any) -> Any:
    used = amounts_of(used)
    with accounts.transaction():
        res = accounts.reservation(run_id, rid)
        if not res.is_open:
            return res
        acct = accounts.chain(run_id)[0]
        acct.unhold(res.amounts)
        acct.charge(used)
        res = res.closed(used)
        accounts.save(res, [acct])
    return res


def refuses_only_when_empty(accounts: Any, run_id: str, rid: str, amounts: Any, *,
                            step: Any = None) -> Any:
    """Wrong: refuses only when nothing is left, so one big request overshoots."""
    amounts = amounts_of(amounts)
    with accounts.transaction():
        found = accounts.reservation(run_id, rid)
        if found is not None:
            return found
        chain = accounts.chain(run_id)
        for acct in chain:
            for dim in amounts:
                if acct.available(dim) <= 0:
                    raise BudgetExceeded(run_id=run_id, dimension=dim, requested=amounts[dim],
                                         available=0, limited_by=acct.run_id)
        for acct in chain:
            acct.hold(amounts)
        res = Reservation(run_id, rid, amounts, accounts.clock.now(), step)
        accounts.save(res, chain)
    return res


def blank(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError()


def test_the_reference_answer_passes_every_check() -> None:
    assert m09.check_fail_closed(reserve) == []
    assert m09.check_concurrent(reserve) == []
    assert m09.check_settle(reserve, settle) == []
    assert m09.check_replay_once(reserve, settle) == []
    assert m09.check_child(reserve, settle) == []
    assert m09.check_sweep(reserve, settle) == []


def test_checking_outside_the_transaction_overshoots_under_threads() -> None:
    assert m09.check_fail_closed(check_then_reserve) == []  # alone, it looks right
    assert m09.check_concurrent(check_then_reserve)[0].startswith("[no-overshoot] 12 threads")


def test_keeping_the_remainder_held_fails_settle() -> None:
    assert m09.check_settle(reserve, settle_keeps_remainder)[0].startswith("[settle-releases]")


def test_settling_on_every_replay_fails_replay_and_the_sweep() -> None:
    assert m09.check_replay_once(reserve, m09.settle_every_time)[0].startswith("[replay-once]")
    assert "duplicate effect" in m09.check_sweep(reserve, m09.settle_every_time)[0]


def test_a_child_not_charged_to_its_parent_fails_child_and_the_sweep() -> None:
    failures = m09.check_child(own_account_only_reserve, own_account_only_settle)
    assert failures[0].startswith("[child-charged] the child used 250 tokens")
    assert "lost effect" in m09.check_sweep(own_account_only_reserve, own_account_only_settle)[0]


def test_refusing_only_when_empty_fails_fail_closed() -> None:
    assert "9 tool attempts were reserved" in m09.check_fail_closed(refuses_only_when_empty)[0]


@pytest.mark.parametrize("check", [m09.check_settle, m09.check_replay_once, m09.check_child,
                                   m09.check_sweep])
def test_blank_answers_fail(check: Any) -> None:
    assert check(blank, blank)


def test_blank_reserve_fails_the_single_function_checks() -> None:
    assert m09.check_fail_closed(blank) and m09.check_concurrent(blank)


def test_the_prediction_is_checked_against_a_real_run() -> None:
    assert m09.replay_tokens() == 680
    assert m09.check_prediction(680) == []
    assert m09.check_prediction(800)[0].startswith("[predict]")
    assert "whole number" in m09.check_prediction("lots")[0]
