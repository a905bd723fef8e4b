"""Only writers conflict: a reader and a writer of one resource share a wave (a read-after-write race)."""

ANSWERS = {
    "answer_conflict": '''def conflict(a: Node, b: Node) -> bool:
    """Whether a and b touch a resource that one of them writes."""
    return bool(a.writes & b.writes)
''',
}
MUST_FAIL = ["test_conflict_rule", "test_no_conflict_in_wave", "test_crash_sweep"]
