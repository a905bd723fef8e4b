"""A refusal by the parent's limit names the child (the caller) in limited_by."""

ANSWERS = {"answer_reserve": '''def reserve(accounts, run_id, reservation_id, amounts, *, step=None):
    amounts = amounts_of(amounts)
    with accounts.transaction():
        found = accounts.reservation(run_id, reservation_id)
        if found is not None:
            return found
        chain = accounts.chain(run_id)
        for acct in chain:
            for dim, n in amounts.items():
                if n > acct.available(dim):
                    raise BudgetExceeded(run_id=run_id, dimension=dim, requested=n,
                                         available=max(acct.available(dim), 0),
                                         limited_by=run_id)
        for acct in chain:
            acct.hold(amounts)
        res = Reservation(run_id, reservation_id, amounts, accounts.clock.now(), step)
        accounts.save(res, chain)
    return res
'''}
MUST_FAIL = ["test_child_charged_to_parent"]
