"""Drops deadlines by truthiness: a parent whose deadline is at time 0.0 imposes nothing."""

ANSWERS = {"answer_deadline": '''def effective_deadline(parent_at, now, *, deadline_at=None, after=None):
    """The child's deadline: its own (absolute, or now + after), capped by the parent's."""
    own = deadline_at if after is None else now + after
    found = [d for d in (own, parent_at) if d]
    return min(found) if found else None
    ### END SOLUTION'''}
MUST_FAIL = ['test_child_within_parent']
