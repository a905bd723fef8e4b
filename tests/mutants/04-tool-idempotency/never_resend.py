"""Over-cautious: anything the lookup does not find is escalated, even a request never sent."""

ANSWERS = {"answer_reconcile": '''def reconcile(ctx, tool, call) -> Resolution:
    found = tool.lookup(call)
    if found.found:
        return Resolution("result", found.result, "found at the provider by key")
    return Resolution("unknown", reason="not found: ask an operator")
'''}
MUST_FAIL = ["test_lookup_before_resend", "test_w3_w4_one_charge"]
