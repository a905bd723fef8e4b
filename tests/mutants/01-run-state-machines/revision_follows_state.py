"""Bumps the revision only when the state changes ("the revision versions the state"): a
heartbeat leaves it alone, so two writers that read the same revision can both write."""

ANSWERS = {
    "answer_apply": '''def apply(run: Run, event: RunEvent) -> Run:
    """The run after `event` (a new Run; `run` is left unchanged)."""
    state = check(run, event)
    changes = {"state": state,
               "revision": run.revision + 1 if state is not run.state else run.revision}
    if event.kind == "claim":
        changes.update(incarnation=run.incarnation + 1, worker_id=event.worker_id,
                       lease_expires_at=event.at + event.lease_for)
    elif event.kind == "heartbeat":
        changes["lease_expires_at"] = event.at + event.lease_for
    elif event.kind in {"release", "wait", "complete", "fail", "cancelled"}:
        changes.update(worker_id=None, lease_expires_at=None)
    if event.detail:
        changes["detail"] = {**run.detail, **event.detail}
    return replace(run, **changes)
''',
}
MUST_FAIL = ["test_revision", "test_compare_and_set"]
