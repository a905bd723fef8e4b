"""Reads `after` (seconds from now) as if it were an absolute time."""

ANSWERS = {
    "answer_deadline": '''def effective_deadline(parent_at, now, *, deadline_at=None, after=None):
    """The child's deadline: its own (absolute, or now + after), capped by the parent's."""
    own = deadline_at if after is None else after
    found = [d for d in (own, parent_at) if d is not None]
    return min(found) if found else None
''',
}
MUST_FAIL = ["test_absolute_and_relative"]
