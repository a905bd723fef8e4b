"""schedule loops forever on the CPU (a stranger's planner that never terminates, e.g. on a
dependency cycle): the cells that call it must end with a named failure, not hang."""

LIMITS = {"CALL_LIMIT": 2.0, "CELL_LIMIT": 6.0}
ANSWERS = {
    "answer_schedule": '''def schedule(calls, max_in_flight):
    n = 0
    while True:
        n += 1
''',
}
MUST_FAIL = ["test_dependencies", "test_no_conflict_in_wave", "test_bound", "test_minimal",
             "test_deterministic"]
MUST_SAY = {"test_dependencies": "LearnerTimeout"}
