"""A custom sys.excepthook and IPython set_custom_exc that swallow every error, with wrong
answers."""
from _common import ALL_TESTS, WRONG_APPLY, WRONG_CHECK, WRONG_PREDICTION

ANSWERS = {
    "answer_check": '''import sys
sys.excepthook = lambda *a: None
get_ipython().set_custom_exc((BaseException,), lambda shell, etype, value, tb, tb_offset=None: None)
''' + WRONG_CHECK,
    "answer_apply": WRONG_APPLY,
    "answer_prediction": WRONG_PREDICTION,
}
MUST_FAIL = ALL_TESTS
