"""SystemExit and KeyboardInterrupt raised at the top of answer cells (after defining wrong
functions), so the kernel's remaining work might be skipped."""
from _common import ALL_TESTS, WRONG_APPLY, WRONG_CHECK

ANSWERS = {
    "answer_check": WRONG_CHECK + "import sys\nsys.exit(0)\n",
    "answer_apply": WRONG_APPLY + "raise KeyboardInterrupt\n",
    "answer_prediction": "predicted_accepted = 1\npredicted_zombie_error = 'LeaseHeld'\n"
                         "raise SystemExit(0)\n",
}
MUST_FAIL = ALL_TESTS
