"""Resend at once with the same key and trust the provider to deduplicate: no lookup first."""

ANSWERS = {"answer_reconcile": '''def reconcile(ctx, tool, call) -> Resolution:
    return Resolution("redispatch", reason="the key is idempotent, just send it again")
'''}
MUST_FAIL = ["test_lookup_before_resend", "test_no_blind_resend_past_retention"]
