"""Reads every tool_error except PartialEffect as 'nothing happened', including OutputInvalid,
where the tool ran and only its output was wrong."""

ANSWERS = {
    'answer_effect_status': '''def effect_status(kind, error):
    if kind is None:
        return "unknown"  # an intent without an outcome: the crash hid the answer
    if kind == "tool_rejected":
        return "none"  # a gate refused it before anything was sent
    if kind == "tool_result":
        return "happened"
    error_type = (error or {}).get("type")
    if error_type == "PartialEffect":
        return "partial"
    return "none"  # the tool ran and said no
''',
}
MUST_FAIL = ['test_effect_status']
