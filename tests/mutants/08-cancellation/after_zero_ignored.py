"""Tests `if after:` instead of `after is not None`: a scope that asks for after=0 (stop now) gets no deadline of its own."""

ANSWERS = {"answer_deadline": '''def effective_deadline(parent_at, now, *, deadline_at=None, after=None):
    """The child's deadline: its own (absolute, or now + after), capped by the parent's."""
    own = now + after if after else deadline_at
    found = [d for d in (own, parent_at) if d is not None]
    return min(found) if found else None
    ### END SOLUTION'''}
MUST_FAIL = ['test_absolute_and_relative']
