"""Escalates every unfinished call to an operator instead of asking the provider: runs stay stuck."""

ANSWERS = {"answer_design_outline": '''def designOutline() -> dict:
    return {
        "checkpoint": "Journal the intent (tool, arguments, effect key) before dispatch, and the result after the call returns.",
        "idempotency": "An idempotency key derived from run id + step + payload digest, sent unchanged on every attempt.",
        "resumeProtocol": "On restart, park any call without a result as uncertain for an operator; never resend.",
        "failureMode": "Past the provider's 24 h key retention a lookup proves nothing, so a crash in W2-W4 recovered that late leaves the run uncertain for an operator. Each call costs two journal writes.",
    }
'''}
MUST_FAIL = ["test_no_lost_or_stuck_run"]
