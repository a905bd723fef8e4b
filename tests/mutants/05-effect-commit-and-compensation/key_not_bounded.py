"""Builds the compensation key by plain concatenation, without hashing: stable and distinct, but
a forward key near the providers' 255-character limit gives a key too long to send."""

ANSWERS = {
    "answer_compensation_key": '''def compensation_key(forward_key, tool):
    """The idempotency key of the compensation of ``forward_key`` by ``tool``."""
    return f"{forward_key}:undo:{tool}"
''',
}
MUST_FAIL = ["test_key_stable"]
