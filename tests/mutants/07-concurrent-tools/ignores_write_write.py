"""Ignores write-write conflicts: two writers of one resource may share a wave."""

ANSWERS = {
    "answer_conflict": '''def conflict(a: Node, b: Node) -> bool:
    """Whether a and b touch a resource that one of them writes."""
    return bool(a.writes & b.reads or b.writes & a.reads)
''',
}
MUST_FAIL = ["test_conflict_rule", "test_no_conflict_in_wave"]
