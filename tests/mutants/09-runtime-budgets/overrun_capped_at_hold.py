"""Work that used more than it reserved is charged only what was reserved (the overrun vanishes)."""

ANSWERS = {"answer_settle": '''def settle(accounts, run_id, reservation_id, used):
    used = amounts_of(used)
    with accounts.transaction():
        res = accounts.reservation(run_id, reservation_id)
        if res is None:
            raise KeyError(reservation_id)
        if not res.is_open:
            return res
        used = {d: min(n, res.amounts.get(d, 0)) for d, n in used.items()}
        chain = accounts.chain(run_id)
        for acct in chain:
            acct.unhold(res.amounts)
            acct.charge(used)
        res = res.closed(used)
        accounts.save(res, chain)
    return res
'''}
MUST_FAIL = ["test_settle_releases_the_rest"]
