"""Looks whether the reservation is still open before the transaction that closes it: a settle racing its replay charges twice."""

ANSWERS = {"answer_settle": '''def settle(accounts, run_id, reservation_id, used):
    used = amounts_of(used)
    res = accounts.reservation(run_id, reservation_id)
    if res is None:
        raise KeyError(reservation_id)
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
'''}
MUST_FAIL = ["test_replay_counts_once"]
