"""A right design whose failure mode claims a double charge the run never shows."""

ANSWERS = {"answer_design_outline": '''def designOutline() -> dict:
    return {
        "checkpoint": "Journal the intent (tool, arguments, effect key) before dispatch, and the result after the call returns.",
        "idempotency": "An idempotency key derived from run id + step + payload digest, sent unchanged on every attempt.",
        "resumeProtocol": "Replay the journal from the top; for an intent without a result, look the charge up by its key at the provider: found -> record the receipt; not found within retention -> resend with the same key; past retention -> escalate to an operator.",
        "failureMode": "A crash in W3 charges the customer twice.",
    }
'''}
MUST_FAIL = ["test_failure_mode_consistent"]
