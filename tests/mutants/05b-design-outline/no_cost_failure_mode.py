"""A right design whose failure mode names no cost at all."""

ANSWERS = {"answer_design_outline": '''def designOutline() -> dict:
    return {
        "checkpoint": 'Journal the intent (tool, arguments, effect key) before dispatch, and the result after the call returns.',
        "idempotency": 'An idempotency key derived from run id + step + payload digest, sent unchanged on every attempt.',
        "resumeProtocol": 'Replay the journal from the top; for an intent without a result, look the charge up by its key at the provider: found -> record the receipt; not found within retention -> resend with the same key; past retention -> escalate to an operator.',
        "failureMode": 'There is no failure mode: this design is perfectly safe.',
    }
'''}
MUST_FAIL = ['test_level1_concrete', 'test_failure_mode_consistent', 'test_design_passes']
