"""Fences by worker id instead of incarnation: a worker that re-claimed the run (same id, new
incarnation) still gets its old thread's late completion accepted, and so does a message that
carries no fencing token at all."""

ANSWERS = {
    "answer_check": '''def check(run: Run, event: RunEvent) -> RunState:
    """The state `event` moves `run` to; raises RunIsTerminal, IllegalTransition,
    StaleIncarnation or LeaseHeld (checked in that order)."""
    if run.state in TERMINAL:
        raise RunIsTerminal(run_id=run.run_id, state=run.state.value, event=event.kind)
    target = TRANSITIONS.get((run.state, event.kind))
    if target is None:
        raise IllegalTransition(run_id=run.run_id, state=run.state.value, event=event.kind)
    if (event.kind in FENCED_EVENTS and event.worker_id is not None
            and event.worker_id != run.worker_id):
        raise StaleIncarnation(run_id=run.run_id, event=event.kind,
                               incarnation=event.incarnation, current=run.incarnation)
    if (event.kind == "claim" and run.lease_expires_at is not None
            and event.at < run.lease_expires_at):
        raise LeaseHeld(run_id=run.run_id, holder=run.worker_id,
                        lease_expires_at=run.lease_expires_at)
    return target
''',
}
MUST_FAIL = ["test_stale_completion"]
