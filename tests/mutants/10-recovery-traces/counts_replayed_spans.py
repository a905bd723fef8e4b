"""Counts every attempt span, replayed ones too: a recovery's reads look like new sends."""

ANSWERS = {"answer_attempts": '''def attempts_per_effect(spans):
    seen = {}
    for s in spans:
        if "minirt.attempt" in s.attributes:
            seen.setdefault(s.attributes["minirt.effect_key"], set()).add(s.span_id)
    return {key: len(ids) for key, ids in seen.items()}
'''}
MUST_FAIL = ["test_attempts_ignore_replays"]
