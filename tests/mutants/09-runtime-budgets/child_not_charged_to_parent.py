"""Checks and charges only the run's own account: a child run spends outside its parent's budget."""

ANSWERS = {
    "answer_reserve": '''def reserve(accounts, run_id, reservation_id, amounts, *, step=None):
    amounts = amounts_of(amounts)
    with accounts.transaction():
        found = accounts.reservation(run_id, reservation_id)
        if found is not None:
            return found
        own = accounts.chain(run_id)[0]
        for dim, n in amounts.items():
            if n > own.available(dim):
                raise BudgetExceeded(run_id=run_id, dimension=dim, requested=n,
                                     available=max(own.available(dim), 0), limited_by=run_id)
        own.hold(amounts)
        res = Reservation(run_id, reservation_id, amounts, accounts.clock.now(), step)
        accounts.save(res, [own])
    return res
''',
    "answer_settle": '''def settle(accounts, run_id, reservation_id, used):
    used = amounts_of(used)
    with accounts.transaction():
        res = accounts.reservation(run_id, reservation_id)
        if res is None:
            raise KeyError(reservation_id)
        if not res.is_open:
            return res
        own = accounts.chain(run_id)[0]
        own.unhold(res.amounts)
        own.charge(used)
        res = res.closed(used)
        accounts.save(res, [own])
    return res
''',
}
MUST_FAIL = ["test_child_charged_to_parent", "test_crash_between_reserve_and_settle"]
