"""Declares quiescence once no child runs, with an effect still in flight (never looked up)."""

ANSWERS = {
    "answer_quiescent": '''def is_quiescent(children, effects):
    """Nothing in flight: no child running, no effect still in flight."""
    return not any(c.running for c in children)
''',
}
MUST_FAIL = ["test_quiescence_effects", "test_crash_sweep"]
