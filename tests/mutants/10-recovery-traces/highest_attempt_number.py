"""Counts attempts as the highest attempt number seen: a lost span of attempt 1 still counts 2."""

ANSWERS = {"answer_attempts": '''def attempts_per_effect(spans):
    top = {}
    for s in spans:
        if "minirt.attempt" in s.attributes and not s.replayed:
            key = s.attributes["minirt.effect_key"]
            top[key] = max(top.get(key, 0), int(s.attributes["minirt.attempt"]))
    return top
    ### END SOLUTION'''}
MUST_FAIL = ['test_attempts_ignore_replays']
