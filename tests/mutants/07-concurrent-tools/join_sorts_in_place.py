"""Sorts the arrivals in place and returns from them: the caller's list of arrivals is reordered."""

ANSWERS = {"answer_join": '''def join(arrivals: list[tuple[int, object]]) -> list[object]:
    """The results, in step order."""
    arrivals.sort(key=lambda pair: pair[0])
    return [result for _, result in arrivals]
    ### END SOLUTION'''}
MUST_FAIL = ['test_join_order']
