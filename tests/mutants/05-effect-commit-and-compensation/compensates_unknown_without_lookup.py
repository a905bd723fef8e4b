"""Treats an unknown outcome like a receipt: compensates it without asking the provider first
(refunds a charge that was never sent, or has no receipt to refund from)."""

ANSWERS = {
    "answer_plan": '''def plan(effects, lookup):
    """What to do about each forward effect, last step first."""
    out = []
    for effect in sorted(effects, key=lambda e: e.step, reverse=True):
        happened = effect.status in (EffectStatus.RECEIPTED, EffectStatus.UNKNOWN)
        if happened and effect.compensation is not None:
            out.append(PlannedAction(Action.COMPENSATE, effect))
        elif happened:
            out.append(PlannedAction(Action.NOT_COMPENSABLE, effect))
        else:
            out.append(PlannedAction(Action.SKIP, effect))
    return out
''',
}
MUST_FAIL = ["test_unknown_first", "test_crash_drill"]
