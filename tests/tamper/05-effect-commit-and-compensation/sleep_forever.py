"""plan sleeps forever (a stranger hoping the grader gives up and counts the cell as passed, or
hangs the batch)."""

LIMITS = {"CALL_LIMIT": 2.0, "CELL_LIMIT": 6.0}
ANSWERS = {
    "answer_plan": '''import time
def plan(effects, lookup):
    time.sleep(10 ** 6)
''',
}
MUST_FAIL = ["test_only_receipts", "test_unknown_first", "test_not_compensable", "test_crash_drill"]
MUST_SAY = {"test_only_receipts": "LearnerTimeout"}
