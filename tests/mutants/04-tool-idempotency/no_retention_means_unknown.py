"""Treats a provider that never prunes keys (`retention_for is None`) as past retention: a
clean "not found" is escalated instead of resent, and the run stops for nothing."""

ANSWERS = {
    "answer_reconcile": '''def reconcile(ctx, tool, call) -> Resolution:
    found = tool.lookup(call)
    if found.found:
        return Resolution("result", found.result, "found at the provider by key")
    elapsed = ctx.runtime.clock.now() - first_sent_at(ctx, call)
    if tool.retention_for is None or elapsed >= tool.retention_for:
        return Resolution("unknown", reason="past retention: the key may have been pruned")
    return Resolution("redispatch", reason="not found within retention: resend, same key")
''',
}
MUST_FAIL = ['test_lookup_before_resend']
