"""The seed's vague answer: says what, names no mechanism (nothing can be run)."""

ANSWERS = {"answer_design_outline": '''def designOutline() -> dict:
    return {
        "checkpoint": "Save the state.",
        "idempotency": "Make it idempotent.",
        "resumeProtocol": "Retry on failure.",
        "failureMode": "Handle errors.",
    }
'''}
MUST_FAIL = ["test_level1_concrete", "test_no_duplicate_charge", "test_no_lost_or_stuck_run", "test_failure_mode_consistent"]
