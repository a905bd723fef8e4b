"""An IPython input transformer registered in an answer cell rewrites every later cell that
asserts anything to `pass` (in the kernel this scores full marks with wrong answers)."""
from _common import ALL_TESTS, WRONG_APPLY, WRONG_CHECK, WRONG_PREDICTION

ANSWERS = {
    "answer_check": '''def _defang(lines):
    return ["pass\\n"] if any("assert" in ln for ln in lines) else lines
get_ipython().input_transformers_cleanup.append(_defang)
''' + WRONG_CHECK,
    "answer_apply": WRONG_APPLY,
    "answer_prediction": WRONG_PREDICTION,
}
MUST_FAIL = ALL_TESTS
