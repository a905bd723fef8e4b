"""The answer functions end the process or raise exits when the grader calls them: sys.exit in
check, KeyboardInterrupt or os._exit(0) in apply."""
from _common import ALL_TESTS

ANSWERS = {
    "answer_check": "import sys\ndef check(run, event):\n    sys.exit(0)\n",
    "answer_apply": "import os\ndef apply(run, event):\n    if event.kind == 'claim':\n"
                    "        os._exit(0)\n    raise KeyboardInterrupt\n",
}
MUST_FAIL = [t for t in ALL_TESTS if t != "test_prediction"]
