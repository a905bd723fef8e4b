"""Reports the wrong holder in LeaseHeld (the worker that asked, not the one that holds the
lease): the refusal is raised, but the operator is told the wrong worker owns the run."""

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
    if (event.kind == "claim" and run.lease_expires_at is not None
            and event.at < run.lease_expires_at):
        raise LeaseHeld(run_id=run.run_id, holder=event.worker_id,
                        lease_expires_at=run.lease_expires_at)
    return target
''',
}
MUST_FAIL = ['test_takeover']
