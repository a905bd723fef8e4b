"""Joins results in the order they arrived (completion order), so replay after a crash diverges."""

ANSWERS = {
    "answer_join": '''def join(arrivals: list[tuple[int, object]]) -> list[object]:
    """The results, in step order."""
    return [result for _, result in arrivals]
''',
}
MUST_FAIL = ["test_join_order", "test_crash_sweep"]
