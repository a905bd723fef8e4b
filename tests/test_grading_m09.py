"""The hidden-test logic of drill 09 passes the reference answer and catches each wrong one."""

from __future__ import annotations

from typing import Any

import pytest

from minirt.budget import BudgetExceeded, Reservation, amounts_of, reserve, settle
from minirt_course.grading import m09


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


def test_learner_api_names_no_check_and_no_answer() -> None:
    assert all(hasattr(m09, n) for n in m09.LEARNER_API)
    assert not [n for n in m09.LEARNER_API if n.startswith(("check_", "_")) or "replay" in n]


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


def settle_outside_transaction(accounts: Any, run_id: str, rid: str, used: Any) -> Any:
    """Wrong: looks whether the reservation is open before the transaction that closes it."""
    used = amounts_of(used)
    res = accounts.reservation(run_id, rid)
    if not res.is_open:
        return res
    with accounts.transaction():
        chain = accounts.chain(run_id)
        for acct in chain:
            acct.unhold(res.amounts)
            acct.charge(used)
        res = res.closed(used)
        accounts.save(res, chain)
    return res


def test_a_settle_racing_its_replay_charges_twice() -> None:
    assert m09.check_concurrent_settle(reserve, settle) == []
    assert m09.check_replay_once(reserve, settle_outside_transaction) == []  # alone, fine
    failures = m09.check_concurrent_settle(reserve, settle_outside_transaction)
    assert failures[0].startswith("[replay-once] 4 threads settled one reservation")


def refusal_names_the_child(accounts: Any, run_id: str, rid: str, amounts: Any, *,
                            step: Any = None) -> Any:
    """Wrong: a refusal by the parent's limit says limited_by=<the child>."""
    try:
        return reserve(accounts, run_id, rid, amounts, step=step)
    except BudgetExceeded as exc:
        raise BudgetExceeded(run_id=run_id, dimension=exc.dimension, requested=exc.requested,
                             available=exc.available, limited_by=run_id) from None


def exact_limit_refused(accounts: Any, run_id: str, rid: str, amounts: Any, *,
                        step: Any = None) -> Any:
    """Wrong: refuses a reservation that takes the account exactly to its limit."""
    amounts = amounts_of(amounts)
    with accounts.transaction():
        for acct in accounts.chain(run_id):
            for dim, n in amounts.items():
                if n >= acct.available(dim) and accounts.reservation(run_id, rid) is None:
                    raise BudgetExceeded(run_id=run_id, dimension=dim, requested=n,
                                         available=max(acct.available(dim), 0),
                                         limited_by=acct.run_id)
        return reserve(accounts, run_id, rid, amounts, step=step)


def replay_with_new_amounts(accounts: Any, run_id: str, rid: str, amounts: Any, *,
                            step: Any = None) -> Any:
    """Wrong: a replayed reservation id is reserved again when the amounts differ."""
    found = accounts.reservation(run_id, rid)
    if found is not None and found.amounts == amounts_of(amounts):
        return found
    return reserve(accounts, run_id, rid + "'" if found else rid, amounts, step=step)


def overrun_capped(accounts: Any, run_id: str, rid: str, used: Any) -> Any:
    """Wrong: work that used more than it reserved is charged only what was reserved."""
    res = accounts.reservation(run_id, rid)
    if res is None:
        raise KeyError(rid)
    capped = {d: min(n, res.amounts.get(d, 0)) for d, n in amounts_of(used).items()}
    return settle(accounts, run_id, rid, capped)


def test_the_refusal_names_whose_limit_it_was() -> None:
    assert "limited_by" in m09.check_child(refusal_names_the_child, settle)[0]


def test_the_exact_limit_is_allowed() -> None:
    failures = m09.check_fail_closed(exact_limit_refused)
    assert "should be accepted" in failures[0]


def test_a_replay_with_other_amounts_reserves_nothing() -> None:
    assert m09.check_replay_once(replay_with_new_amounts, settle)[0].startswith("[replay-once]")


def test_an_overrun_is_charged_in_full() -> None:
    assert m09.check_settle(reserve, overrun_capped)[0].startswith("[settle-releases]")


def test_failures_show_the_calls_and_print_nothing(capsys: Any) -> None:
    failures = m09.check_settle(reserve, settle_keeps_remainder)
    assert "smallest failing input" in failures[0] and "settle(acc, 'r1', 'a'" in failures[0]
    assert capsys.readouterr() == ("", "")


def test_keeping_the_remainder_held_fails_settle() -> None:
    assert m09.check_settle(reserve, settle_keeps_remainder)[0].startswith("[settle-releases]")


def test_settling_on_every_replay_fails_replay_and_the_sweep() -> None:
    assert m09.check_replay_once(reserve, m09.settle_every_time)[0].startswith("[replay-once]")
    assert "duplicate effect" in m09.check_sweep(reserve, m09.settle_every_time)[0]


def test_a_child_not_charged_to_its_parent_fails_child_and_the_sweep() -> None:
    failures = m09.check_child(own_account_only_reserve, own_account_only_settle)
    assert failures[0].startswith("[child-charged] after reserve(acc, 'r1/child'")
    assert "account r1 is" in failures[0]
    assert "lost effect" in m09.check_sweep(own_account_only_reserve, own_account_only_settle)[0]


def test_refusing_only_when_empty_fails_fail_closed() -> None:
    assert "should be refused" in m09.check_fail_closed(refuses_only_when_empty)[0]


@pytest.mark.parametrize("check", [m09.check_settle, m09.check_replay_once, m09.check_child,
                                   m09.check_sweep])
def test_blank_answers_fail(check: Any) -> None:
    assert check(blank, blank)


def test_blank_reserve_fails_the_single_function_checks() -> None:
    assert m09.check_fail_closed(blank) and m09.check_concurrent(blank)


def test_the_prediction_is_checked_against_a_real_run() -> None:
    assert m09._replay_tokens() == 680
    assert m09.check_prediction(680) == []
    assert m09.check_prediction(800)[0].startswith("[predict]")
    assert "whole number" in m09.check_prediction("lots")[0]
