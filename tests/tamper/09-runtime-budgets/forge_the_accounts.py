"""reserve tries to rewrite the accounts it was given (an unlimited available(), a no-op
transaction) and otherwise returns a Reservation subclass without holding anything."""

ANSWERS = {
    "answer_reserve": '''import contextlib
class Granted(Reservation):
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__
def reserve(accounts, run_id, reservation_id, amounts, *, step=None):
    for name, value in (("available", lambda dim: 10 ** 12),
                        ("transaction", contextlib.nullcontext)):
        try:
            setattr(accounts, name, value)
        except Exception:
            pass
    return Granted(run_id, reservation_id, amounts_of(amounts), 0.0, step)
''',
}
MUST_FAIL = ["test_fail_closed", "test_no_overshoot_under_threads"]
