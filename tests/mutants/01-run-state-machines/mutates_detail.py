"""Merges the event's detail into `run.detail` in place: the "old" run object changes too, so
anyone still holding it (a retry, a comparison, a log) sees a state that was never committed."""

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
        changes.update(worker_id=None, lease_expires_at=None)
    run.detail.update(event.detail)
    return replace(run, **changes)
''',
}
MUST_FAIL = ["test_revision"]
