"""The answer cell replaces the design grader's helpers it was given (learner_grade, for_review,
the design module's checks) with ones that report a passing design, and returns a vague outline."""

ANSWERS = {
    "answer_design_outline": '''from minirt_course.grading import design as _d
_passing = lambda *a, **k: {"passed": True, "score": 1.0, "problems": []}
for _name in list(vars(_d)):
    if not _name.startswith("_"):
        setattr(_d, _name, _passing)
learner_grade = _passing
for_review = _passing
def designOutline() -> dict:
    return {"checkpoint": "we save things", "idempotency": "retries are safe",
            "resumeProtocol": "start again", "failureMode": "none"}
''',
}
MUST_FAIL = ["test_level1_concrete", "test_no_duplicate_charge", "test_no_lost_or_stuck_run",
             "test_failure_mode_consistent", "test_design_passes"]
