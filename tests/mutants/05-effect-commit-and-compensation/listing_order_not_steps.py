"""Undoes in reverse *listing* order (`reversed(effects)`) instead of by step: when the effects
arrive out of step order, a later step is compensated after an earlier one."""

ANSWERS = {
    "answer_plan": '''def plan(effects, lookup):
    """What to do about each forward effect, last step first."""
    out = []
    for effect in reversed(effects):
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
