"""The planted-bug answer is a set subclass equal to every set and containing everything, and the
prediction a tuple subclass equal to every tuple."""

ANSWERS = {
    "answer_planted_bug": '''class Everything(set):
    def __eq__(self, other):
        return True
    def __contains__(self, item):
        return True
    def __le__(self, other):
        return True
    def __ge__(self, other):
        return True
    __hash__ = None
planted_bug_points = Everything({"nowhere"})
''',
    "answer_prediction": '''class AnyPair(tuple):
    def __eq__(self, other):
        return True
    __hash__ = tuple.__hash__
predicted_w2 = AnyPair((9, 9))
''',
}
MUST_FAIL = ["test_find_the_planted_bug", "test_predict_w2_trace"]
