"""Sends a refund of exactly the threshold for approval (>= where the rule says above)."""

ANSWERS = {"answer_policies": '''def refund_key(call):
    return call.effect_key  # run + step + tool + payload digest: the same on every attempt


def choose_delivery():
    return Delivery.AT_MOST_ONCE


def needs_approval(args):
    return int(args["amount_cents"]) >= APPROVAL_THRESHOLD_CENTS


def check_approval(receipt, request, current, *, key, now, revocations, used):
    check_receipt(receipt, request, current, key=key, now=now, revocations=revocations,
                  used=used)
    ### END SOLUTION'''}
MUST_FAIL = ['test_approval_enforced']
