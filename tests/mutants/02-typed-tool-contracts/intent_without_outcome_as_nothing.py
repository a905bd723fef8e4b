"""Reads an intent with no outcome as 'nothing happened': after a crash in W3 the refund did
happen, so recovery would do it again."""

ANSWERS = {
    'answer_effect_status': '''def effect_status(kind, error):
    if kind is None:
        return "none"
    if kind == "tool_rejected":
        return "none"  # a gate refused it before anything was sent
    if kind == "tool_result":
        return "happened"
    error_type = (error or {}).get("type")
    if error_type == "OutputInvalid":
        return "happened"  # the tool ran; only its output was wrong
    if error_type == "PartialEffect":
        return "partial"
    return "none"  # the tool ran and said no
''',
}
MUST_FAIL = ['test_effect_status']
