"""Blind retry with the same key: safe within retention, a second charge once the provider pruned the key."""

ANSWERS = {"answer_design_outline": '''def designOutline() -> dict:
    return {
        "checkpoint": "Journal the intent (tool, arguments, effect key) before dispatch, and the result after the call returns.",
        "idempotency": "An idempotency key derived from run id + step + payload digest, sent unchanged on every attempt.",
        "resumeProtocol": "Replay the journal and resend every unfinished call with the same key.",
        "failureMode": "Past the provider's 24 h key retention a lookup proves nothing, so a crash in W2-W4 recovered that late leaves the run uncertain for an operator. Each call costs two journal writes.",
    }
'''}
MUST_FAIL = ["test_no_duplicate_charge", "test_failure_mode_consistent"]
