"""Vercel's rule read literally: only a step whose receipt arrived has a compensation, so a charge
whose receipt was lost is never looked up and never refunded."""

ANSWERS = {
    "answer_plan": '''def plan(effects, lookup):
    """What to do about each forward effect, last step first."""
    out = []
    for effect in sorted(effects, key=lambda e: e.step, reverse=True):
        if effect.status is not EffectStatus.RECEIPTED:
            out.append(PlannedAction(Action.SKIP, effect))  # it did not succeed: nothing queued
        elif effect.compensation is None:
            out.append(PlannedAction(Action.NOT_COMPENSABLE, effect))
        else:
            out.append(PlannedAction(Action.COMPENSATE, effect))
    return out
''',
}
MUST_FAIL = ["test_unknown_first", "test_crash_drill"]
