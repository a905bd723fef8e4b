"""Counts the retention window as still open at its exact end (`elapsed > retention_for`):
exactly 24 h after the send, a key the provider may just have pruned is resent blindly."""

ANSWERS = {
    "answer_reconcile": '''def reconcile(ctx, tool, call) -> Resolution:
    found = tool.lookup(call)
    if found.found:
        return Resolution("result", found.result, "found at the provider by key")
    elapsed = ctx.runtime.clock.now() - first_sent_at(ctx, call)
    if tool.retention_for is not None and elapsed > tool.retention_for:
        return Resolution("unknown", reason="past retention: the key may have been pruned")
    return Resolution("redispatch", reason="not found within retention: resend, same key")
''',
}
MUST_FAIL = ['test_no_blind_resend_past_retention']
