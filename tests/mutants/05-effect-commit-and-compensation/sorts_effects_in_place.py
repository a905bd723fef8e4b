"""Sorts the caller's list in place (`effects.sort(...)`) before planning: the plan is right,
but the saga's own list of forward effects is now reordered under it."""

ANSWERS = {
    "answer_plan": '''def plan(effects, lookup):
    """What to do about each forward effect, last step first."""
    out = []
    effects.sort(key=lambda e: e.step, reverse=True)
    for effect in effects:
        if effect.status is EffectStatus.UNKNOWN:
            try:
                found = lookup(effect)
            except OutcomeUnknown:
                found = None
            if found is not None and found.found:
                effect = replace(effect, status=EffectStatus.RECEIPTED, receipt=found.result)
            elif found is not None:
                effect = replace(effect, status=EffectStatus.NEVER_HAPPENED)
        if effect.status in (EffectStatus.DECLINED, EffectStatus.NEVER_SENT,
                             EffectStatus.NEVER_HAPPENED):
            out.append(PlannedAction(Action.SKIP, effect))
        elif effect.compensation is None:
            out.append(PlannedAction(Action.NOT_COMPENSABLE, effect))
        elif effect.status is EffectStatus.UNKNOWN:
            out.append(PlannedAction(Action.UNRESOLVED, effect))
        else:
            out.append(PlannedAction(Action.COMPENSATE, effect))
    return out
''',
}
MUST_FAIL = ['test_only_receipts']
