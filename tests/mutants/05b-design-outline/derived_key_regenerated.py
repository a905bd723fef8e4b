"""A key 'derived from run and step' that still gets a fresh random suffix on every retry."""

ANSWERS = {"answer_design_outline": '''def designOutline() -> dict:
    return {
        "checkpoint": 'Journal the intent (tool, arguments, effect key) before dispatch, and the result after the call returns.',
        "idempotency": 'The key is derived from run and step, plus a fresh random suffix generated on every retry.',
        "resumeProtocol": 'Replay the journal from the top; for an intent without a result, look the charge up by its key at the provider: found -> record the receipt; not found within retention -> resend with the same key; past retention -> escalate to an operator.',
        "failureMode": "Past the provider's 24 h key retention a lookup proves nothing, so a crash in W2-W4 recovered that late leaves the run uncertain for an operator. Each call costs two journal writes.",
    }
'''}
MUST_FAIL = ['test_no_duplicate_charge', 'test_design_passes']
