"""A fresh random idempotency key on every attempt (and every lookup): after a lost response the
lookup finds nothing, the resend is a new refund request, and the run fails on a charge the
provider already refunded."""

ANSWERS = {
    'answer_policies': '''def refund_key(call):
    import uuid
    return f"rk_{uuid.uuid4().hex}"  # unique per request, so never a duplicate?


def choose_delivery():
    return Delivery.AT_MOST_ONCE


def needs_approval(args):
    return int(args["amount_cents"]) > APPROVAL_THRESHOLD_CENTS


def check_approval(receipt, request, current, *, key, now, revocations, used):
    check_receipt(receipt, request, current, key=key, now=now, revocations=revocations,
                  used=used)
''',
}
MUST_FAIL = ['test_crash_sweep']
