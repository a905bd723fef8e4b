"""Settling a reservation that was never made charges the use anyway (instead of an error)."""

ANSWERS = {"answer_settle": '''def settle(accounts, run_id, reservation_id, used):
    used = amounts_of(used)
    with accounts.transaction():
        res = accounts.reservation(run_id, reservation_id)
        if res is None:
            res = Reservation(run_id, reservation_id, {}, accounts.clock.now(), None)
        if not res.is_open:
            return res
        chain = accounts.chain(run_id)
        for acct in chain:
            acct.unhold(res.amounts)
            acct.charge(used)
        res = res.closed(used)
        accounts.save(res, chain)
    return res
'''}
MUST_FAIL = ["test_settle_releases_the_rest"]
