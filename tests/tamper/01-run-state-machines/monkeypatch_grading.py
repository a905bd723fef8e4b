"""The answer cell replaces minirt_course.grading.m01's checks and helpers with ones that always pass,
and redefines AssertionError so a failing assert is not an error."""
from _common import ALL_TESTS, WRONG_APPLY, WRONG_CHECK, WRONG_PREDICTION

ANSWERS = {
    "answer_check": '''import builtins
from minirt_course.grading import m01
for _name in dir(m01):
    if _name.startswith("check_"):
        setattr(m01, _name, lambda *a, **k: [])
m01.raised = lambda fn, *a, **k: "IllegalTransition"
m01.rebuild_run = lambda run: run
class AssertionError(Exception):
    pass
builtins.AssertionError = AssertionError
''' + WRONG_CHECK,
    "answer_apply": WRONG_APPLY,
    "answer_prediction": WRONG_PREDICTION,
}
MUST_FAIL = ALL_TESTS
