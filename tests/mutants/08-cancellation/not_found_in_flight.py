"""Counts a look-up that found nothing (not_found) as still in flight: a run whose effect never happened never quiesces."""

ANSWERS = {"answer_quiescent": '''def is_quiescent(children, effects):
    """Nothing in flight: no child running, no effect still in flight."""
    return not any(c.running for c in children) and not any(
        e.status not in ("done", "failed", "unknown") for e in effects)
    ### END SOLUTION'''}
MUST_FAIL = ['test_quiescence_effects']
