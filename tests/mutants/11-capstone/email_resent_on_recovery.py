"""Chooses at-least-once for the email: after a crash in W3/W4 the recovery sends it again and
the customer gets two (and the prediction of one email is wrong)."""

ANSWERS = {
    'answer_policies': '''def refund_key(call):
    return call.effect_key  # run + step + tool + payload digest: the same on every attempt


def choose_delivery():
    return Delivery.AT_LEAST_ONCE


def needs_approval(args):
    return int(args["amount_cents"]) > APPROVAL_THRESHOLD_CENTS


def check_approval(receipt, request, current, *, key, now, revocations, used):
    check_receipt(receipt, request, current, key=key, now=now, revocations=revocations,
                  used=used)
''',
}
MUST_FAIL = ['test_crash_sweep', 'test_predict_then_run']
