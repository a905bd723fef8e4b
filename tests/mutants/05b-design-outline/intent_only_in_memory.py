"""Mentions an intent but keeps it in memory: nothing is journaled, the model is asked again."""

ANSWERS = {"answer_design_outline": '''def designOutline() -> dict:
    return {
        "checkpoint": 'We create an intent before each call and keep it in memory; nothing is written to disk.',
        "idempotency": 'An idempotency key derived from run id + step + payload digest, sent unchanged on every attempt.',
        "resumeProtocol": 'Replay the journal from the top; for an intent without a result, look the charge up by its key at the provider: found -> record the receipt; not found within retention -> resend with the same key; past retention -> escalate to an operator.',
        "failureMode": "Past the provider's 24 h key retention a lookup proves nothing, so a crash in W2-W4 recovered that late leaves the run uncertain for an operator. Each call costs two journal writes.",
    }
'''}
MUST_FAIL = ['test_no_duplicate_charge', 'test_design_passes']
