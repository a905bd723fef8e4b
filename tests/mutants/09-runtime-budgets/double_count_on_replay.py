"""Never looks whether the reservation is already closed: every replay of a finished step charges it again."""

ANSWERS = {"answer_settle": '''def settle(accounts, run_id, reservation_id, used):
    used = amounts_of(used)
    with accounts.transaction():
        res = accounts.reservation(run_id, reservation_id)
        if res is None:
            raise KeyError(reservation_id)
        chain = accounts.chain(run_id)
        for acct in chain:
            if res.is_open:
                acct.unhold(res.amounts)
            acct.charge(used)
        res = res.closed(used)
        accounts.save(res, chain)
    return res
'''}
MUST_FAIL = ["test_replay_counts_once", "test_crash_between_reserve_and_settle"]
