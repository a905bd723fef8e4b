"""Merges the event's detail key by key into a copy, but merges nested dicts in place
(`merged[k].update(v)`): the run it was given changes under the caller's feet."""

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
    if event.detail:
        merged = dict(run.detail)
        for k, v in event.detail.items():
            if isinstance(merged.get(k), dict) and isinstance(v, dict):
                merged[k].update(v)
            else:
                merged[k] = v
        changes["detail"] = merged
    return replace(run, **changes)
''',
}
MUST_FAIL = ['test_revision']
