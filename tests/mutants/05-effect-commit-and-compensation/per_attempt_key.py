"""A compensation key made fresh on every call (per attempt): after a crash between the refund
and its receipt, the retry carries a new key and the provider cannot tell it is the same refund."""

ANSWERS = {
    "answer_compensation_key": '''def compensation_key(forward_key, tool):
    """The idempotency key of the compensation of ``forward_key`` by ``tool``."""
    import time
    return f"ck_{forward_key[3:]}_{tool}_{time.time_ns()}"
''',
}
MUST_FAIL = ["test_key_stable", "test_crash_drill"]
