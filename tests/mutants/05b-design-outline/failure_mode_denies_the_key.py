"""A right design whose failure mode says every retry gets a new key: a contradiction across fields."""

ANSWERS = {"answer_design_outline": '''def designOutline() -> dict:
    return {
        "checkpoint": 'Journal the intent (tool, arguments, effect key) before dispatch, and the result after the call returns.',
        "idempotency": 'An idempotency key derived from run id + step + payload digest, sent unchanged on every attempt.',
        "resumeProtocol": 'Replay the journal from the top; for an intent without a result, look the charge up by its key at the provider: found -> record the receipt; not found within retention -> resend with the same key; past retention -> escalate to an operator.',
        "failureMode": 'Because every retry gets a new random key, a lost response charges the customer twice.',
    }
'''}
MUST_FAIL = ['test_failure_mode_consistent', 'test_design_passes']
