"""The policies cell patches minirt.approvals (check_receipt, call_approved) and the names the
drill imported to accept anything, and check_approval allows every receipt."""

ANSWERS = {
    "answer_policies": '''import minirt.approvals
minirt.approvals.check_receipt = lambda *a, **k: None
check_receipt = minirt.approvals.check_receipt
def refund_key(call):
    return call.effect_key
def choose_delivery():
    return Delivery.AT_MOST_ONCE
def needs_approval(args):
    return int(args["amount_cents"]) > APPROVAL_THRESHOLD_CENTS
def check_approval(receipt, request, current, *, key, now, revocations, used):
    return None
''',
}
MUST_FAIL = ["test_approval_enforced"]
