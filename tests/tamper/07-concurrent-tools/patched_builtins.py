"""The answer cell rebinds builtins.sorted, list and AssertionError in its process and the join
returns arrivals in arrival order; the prediction reads the grading module's helpers."""

ANSWERS = {
    "answer_join": '''import builtins
_orig_sorted = builtins.sorted
builtins.sorted = lambda it, *a, **k: list(it)
class AssertionError(Exception):
    pass
builtins.AssertionError = AssertionError
def join(arrivals):
    return [r for _, r in arrivals]
''',
    "answer_prediction": '''predicted_runs = {"lookup_order": 1, "lookup_customer": 1, "check_stock": 1}
try:
    from minirt_course.grading import m07 as _m
    predicted_runs = dict(_m.learner_scenario())
except Exception:
    pass
''',
}
MUST_FAIL = ["test_join_order", "test_prediction"]
