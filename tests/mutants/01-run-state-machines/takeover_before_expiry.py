"""Skips the lease check: "the table allows running --claim--> running", so a second worker can
take a run over while the first one still holds a valid lease."""

ANSWERS = {
    "answer_check": '''def check(run: Run, event: RunEvent) -> RunState:
    """The state `event` moves `run` to; raises RunIsTerminal, IllegalTransition,
    StaleIncarnation or LeaseHeld (checked in that order)."""
    if run.state in TERMINAL:
        raise RunIsTerminal(run_id=run.run_id, state=run.state.value, event=event.kind)
    target = TRANSITIONS.get((run.state, event.kind))
    if target is None:
        raise IllegalTransition(run_id=run.run_id, state=run.state.value, event=event.kind)
    if event.kind in FENCED_EVENTS and event.incarnation != run.incarnation:
        raise StaleIncarnation(run_id=run.run_id, event=event.kind,
                               incarnation=event.incarnation, current=run.incarnation)
    return target
''',
}
MUST_FAIL = ["test_takeover"]
