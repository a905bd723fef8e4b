"""Resends every unfinished call and says outright that nobody asks the provider."""

ANSWERS = {"answer_design_outline": '''def designOutline() -> dict:
    return {
        "checkpoint": 'Journal the intent (tool, arguments, effect key) before dispatch, and the result after the call returns.',
        "idempotency": 'An idempotency key derived from run id + step + payload digest, sent unchanged on every attempt.',
        "resumeProtocol": 'On restart resend every call that has no result; nobody asks the provider anything, the key takes care of it.',
        "failureMode": 'Each call costs two journal writes.',
    }
'''}
MUST_FAIL = ['test_no_duplicate_charge', 'test_failure_mode_consistent', 'test_design_passes']
