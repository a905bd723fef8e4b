"""Compensates every step that registered a compensation, whatever its status: cancels a booking
that was refused, refunds a charge that was never sent."""

ANSWERS = {
    "answer_plan": '''def plan(effects, lookup):
    """What to do about each forward effect, last step first."""
    out = []
    for effect in sorted(effects, key=lambda e: e.step, reverse=True):
        if effect.status is EffectStatus.UNKNOWN:
            try:
                found = lookup(effect)
            except OutcomeUnknown:
                found = None
            if found is not None and found.found:
                effect = replace(effect, status=EffectStatus.RECEIPTED, receipt=found.result)
        if effect.compensation is not None:
            out.append(PlannedAction(Action.COMPENSATE, effect))
        else:
            out.append(PlannedAction(Action.NOT_COMPENSABLE, effect))
    return out
''',
}
MUST_FAIL = ["test_only_receipts", "test_crash_drill"]
