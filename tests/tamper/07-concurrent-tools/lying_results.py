"""join returns a list subclass equal to every list; conflict returns an object whose truth value
flips on every use."""

ANSWERS = {
    "answer_conflict": '''class Flip:
    n = 0
    def __bool__(self):
        Flip.n += 1
        return Flip.n % 2 == 0
    def __eq__(self, other):
        return True
def conflict(a, b):
    return Flip()
''',
    "answer_join": '''class AnyOrder(list):
    def __eq__(self, other):
        return True
def join(arrivals):
    return AnyOrder(r for _, r in arrivals)
''',
}
MUST_FAIL = ["test_conflict_rule", "test_join_order"]
