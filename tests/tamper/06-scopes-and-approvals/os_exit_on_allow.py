"""check_dispatch kills its process with os._exit(0) whenever it should allow, hoping a dead
process counts as "did not raise"."""

ANSWERS = {
    "answer_check_dispatch": '''import os
def check_dispatch(receipt, request, current, *, key, now, revocations, used):
    if receipt.verify(key) and now < receipt.expires_at:
        os._exit(0)
    raise ApprovalForged(request_id=request.request_id, receipt_id=receipt.receipt_id,
                         reason="no")
''',
}
MUST_FAIL = ["test_forged", "test_mismatch", "test_artifact", "test_reused", "test_expired",
             "test_revoked", "test_crash_drill"]
