"""A takeover hands the run to the new worker but keeps the old incarnation number: the fencing
token never advances, so the zombie's messages carry a token that still looks current."""

ANSWERS = {
    "answer_apply": '''def apply(run: Run, event: RunEvent) -> Run:
    """The run after `event` (a new Run; `run` is left unchanged)."""
    changes = {"state": check(run, event), "revision": run.revision + 1}
    if event.kind == "claim":
        changes.update(incarnation=max(run.incarnation, 1), worker_id=event.worker_id,
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
MUST_FAIL = ["test_takeover", "test_crash_sweep"]
