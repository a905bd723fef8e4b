"""os._exit(0) at the top of an answer cell: the kernel (and, in one nbgrader run, the batch)
dies."""
from _common import ALL_TESTS

ANSWERS = {"answer_check": "import os\nos._exit(0)\n"}
MUST_FAIL = [t for t in ALL_TESTS if t != "test_prediction"]
