"""Leaves out what cannot be compensated: the sent email silently disappears from the plan
instead of being reported as not compensable."""

ANSWERS = {
    "answer_plan": '''def plan(effects, lookup):
    """What to do about each forward effect, last step first."""
    out = []
    for effect in sorted(effects, key=lambda e: e.step, reverse=True):
        if effect.compensation is None:
            continue  # nothing to undo
        if effect.status is EffectStatus.UNKNOWN:
            try:
                found = lookup(effect)
            except OutcomeUnknown:
                out.append(PlannedAction(Action.UNRESOLVED, effect))
                continue
            if not found.found:
                out.append(PlannedAction(Action.SKIP, effect))
                continue
            effect = replace(effect, status=EffectStatus.RECEIPTED, receipt=found.result)
        if effect.status is EffectStatus.RECEIPTED:
            out.append(PlannedAction(Action.COMPENSATE, effect))
        else:
            out.append(PlannedAction(Action.SKIP, effect))
    return out
''',
}
MUST_FAIL = ["test_not_compensable", "test_crash_drill"]
