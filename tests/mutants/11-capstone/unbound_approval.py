"""Approves the tool, not the effect: the receipt's signature and tool name are checked, not the
effect digest, the expiry or whether it was spent, so a receipt for one refund moves another."""

ANSWERS = {
    'answer_policies': '''def refund_key(call):
    return call.effect_key  # run + step + tool + payload digest: the same on every attempt


def choose_delivery():
    return Delivery.AT_MOST_ONCE


def needs_approval(args):
    return int(args["amount_cents"]) > APPROVAL_THRESHOLD_CENTS


def check_approval(receipt, request, current, *, key, now, revocations, used):
    if not receipt.verify(key) or request.effect["tool"] != current["tool"]:
        raise ApprovalMismatch(request_id=request.request_id, field="tool",
                               approved=request.effect["tool"], requested=current["tool"])
''',
}
MUST_FAIL = ['test_approval_enforced']
