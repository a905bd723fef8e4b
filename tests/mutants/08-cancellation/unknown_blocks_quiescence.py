"""Treats an effect recorded as unknown (no look-up possible) as still in flight: the cancel can never finish."""

ANSWERS = {
    "answer_quiescent": '''def is_quiescent(children, effects):
    """Nothing in flight: no child running, no effect still in flight."""
    return not any(c.running for c in children) and all(
        e.status in ("done", "failed", "not_found") for e in effects)
''',
}
MUST_FAIL = ["test_quiescence_effects"]
