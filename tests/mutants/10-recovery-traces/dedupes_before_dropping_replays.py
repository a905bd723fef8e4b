"""Keeps the first span of each id, then drops replays: when the replayed copy comes first, an attempt really sent is not counted."""

ANSWERS = {"answer_attempts": '''def attempts_per_effect(spans):
    first = {}
    for s in spans:
        first.setdefault(s.span_id, s)
    counts = {}
    for s in first.values():
        if "minirt.attempt" in s.attributes and not s.replayed:
            key = s.attributes["minirt.effect_key"]
            counts[key] = counts.get(key, 0) + 1
    return counts
    ### END SOLUTION'''}
MUST_FAIL = ['test_attempts_ignore_replays']
