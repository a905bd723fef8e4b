"""Settles by moving only the used part out of the hold: what was reserved but not used stays held."""

ANSWERS = {"answer_settle": '''def settle(accounts, run_id, reservation_id, used):
    used = amounts_of(used)
    with accounts.transaction():
        res = accounts.reservation(run_id, reservation_id)
        if res is None:
            raise KeyError(reservation_id)
        if not res.is_open:
            return res
        chain = accounts.chain(run_id)
        for acct in chain:
            acct.unhold(used)
            acct.charge(used)
        res = res.closed(used)
        accounts.save(res, chain)
    return res
'''}
MUST_FAIL = ["test_settle_releases_the_rest", "test_crash_between_reserve_and_settle"]
