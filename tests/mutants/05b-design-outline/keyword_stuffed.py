"""Every mechanism's words in every field: reads as no design at all, and contradicts itself."""

ANSWERS = {"answer_design_outline": '''def designOutline() -> dict:
    return {
        "checkpoint": 'intent before dispatch, write-ahead log, result after, periodic snapshot, checkpoint after each step',
        "idempotency": 'idempotency key derived from run + step, a UUID stored once, a client reference, a random key per attempt',
        "resumeProtocol": 'replay, reconcile by lookup, blind retry, saga compensation, escalate to an operator',
        "failureMode": 'duplicate charge, lost effect, stuck run, latency, W1-W5',
    }
'''}
MUST_FAIL = ['test_level1_concrete', 'test_design_passes']
