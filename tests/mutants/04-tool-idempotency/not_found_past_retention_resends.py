"""Look up first, but take "not found" as "never happened" even after the retention window."""

ANSWERS = {"answer_reconcile": '''def reconcile(ctx, tool, call) -> Resolution:
    found = tool.lookup(call)
    if found.found:
        return Resolution("result", found.result, "found at the provider by key")
    return Resolution("redispatch", reason="not found: resend, same key")
'''}
MUST_FAIL = ["test_no_blind_resend_past_retention"]
