"""Drops only the lease when the worker lets go (release, wait, complete...): `worker_id` still
names the old holder, so the run looks held by a worker that no longer holds it."""

ANSWERS = {
    "answer_apply": '''def apply(run: Run, event: RunEvent) -> Run:
    """The run after `event` (a new Run; `run` is left unchanged)."""
    changes = {"state": check(run, event), "revision": run.revision + 1}
    if event.kind == "claim":
        changes.update(incarnation=run.incarnation + 1, worker_id=event.worker_id,
                       lease_expires_at=event.at + event.lease_for)
    elif event.kind == "heartbeat":
        changes["lease_expires_at"] = event.at + event.lease_for
    elif event.kind in {"release", "wait", "complete", "fail", "cancelled"}:
        changes["lease_expires_at"] = None
    if event.detail:
        changes["detail"] = {**run.detail, **event.detail}
    return replace(run, **changes)
''',
}
MUST_FAIL = ['test_revision']
