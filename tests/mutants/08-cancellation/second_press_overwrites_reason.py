"""A second press keeps the record but overwrites its reason in place: the first reason does not win."""

ANSWERS = {"answer_request": '''def request_record(run, existing, reason, at):
    """The cancel record to write, or None (finished run, or a cancel was requested before)."""
    if existing is not None:
        existing["reason"] = reason
        return None
    if run.is_terminal:
        return None
    return {"stage": "requested", "reason": reason, "requested_at": at}
    ### END SOLUTION'''}
MUST_FAIL = ['test_cancel_idempotent']
