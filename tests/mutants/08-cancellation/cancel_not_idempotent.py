"""Writes a fresh 'requested' record on every press of the cancel button: after a crash the cleanup starts over."""

ANSWERS = {
    "answer_request": '''def request_record(run, existing, reason, at):
    """The cancel record to write, or None (finished run, or a cancel was requested before)."""
    if run.is_terminal:
        return None
    return {"stage": "requested", "reason": reason, "requested_at": at}
''',
}
MUST_FAIL = ["test_cancel_idempotent", "test_crash_sweep"]
