"""Handles "claim" on its own before `check`: only the lease is looked at, so a finished run can
be claimed and run again (terminal is not final) and an UNCERTAIN run is silently made RUNNING."""

ANSWERS = {
    "answer_apply": '''def apply(run: Run, event: RunEvent) -> Run:
    """The run after `event` (a new Run; `run` is left unchanged)."""
    if event.kind == "claim":
        if run.lease_expires_at is not None and event.at < run.lease_expires_at:
            raise LeaseHeld(run_id=run.run_id, holder=run.worker_id,
                            lease_expires_at=run.lease_expires_at)
        return replace(run, state=RunState.RUNNING, revision=run.revision + 1,
                       incarnation=run.incarnation + 1, worker_id=event.worker_id,
                       lease_expires_at=event.at + event.lease_for)
    changes = {"state": check(run, event), "revision": run.revision + 1}
    if event.kind == "heartbeat":
        changes["lease_expires_at"] = event.at + event.lease_for
    elif event.kind in {"release", "wait", "complete", "fail", "cancelled"}:
        changes.update(worker_id=None, lease_expires_at=None)
    if event.detail:
        changes["detail"] = {**run.detail, **event.detail}
    return replace(run, **changes)
''',
}
MUST_FAIL = ["test_terminal_is_final"]
