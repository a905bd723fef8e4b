"""A child that asks for its own deadline gets it, even when it is later than its parent's."""

ANSWERS = {
    "answer_deadline": '''def effective_deadline(parent_at, now, *, deadline_at=None, after=None):
    """The child's deadline: its own (absolute, or now + after), capped by the parent's."""
    own = deadline_at if after is None else now + after
    return own if own is not None else parent_at
''',
}
MUST_FAIL = ["test_child_within_parent"]
