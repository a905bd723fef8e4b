"""Matches revocations by substring: revoking approver alice-2 (or the bare name) also revokes alice."""

ANSWERS = {"answer_check_dispatch": '''def check_dispatch(receipt, request, current, *, key, now, revocations, used):
    """Allow (return None) or refuse (raise) the dispatch of a call carrying ``receipt``."""
    rid = request.request_id
    if not receipt.verify(key):
        raise ApprovalForged(request_id=rid, receipt_id=receipt.receipt_id,
                             reason="signature does not verify")
    for ident, at in revocations.items():
        if receipt.approver in ident or receipt.receipt_id in ident:
            raise ApprovalRevoked(request_id=rid, revoked=ident, revoked_at=at)
    if now >= receipt.expires_at:
        raise ApprovalExpired(request_id=rid, receipt_id=receipt.receipt_id,
                              expires_at=receipt.expires_at, now=now)
    if receipt.receipt_id in used:
        raise ApprovalReused(request_id=rid, receipt_id=receipt.receipt_id,
                             used_at_step=used[receipt.receipt_id])
    if receipt.request_id != rid or digest(current) != receipt.effect_digest:
        path, approved, requested = first_difference(request.effect, current) or ("request", rid,
                                                                                  "?")
        if path.startswith("artifact"):
            raise ArtifactChanged(request_id=rid, artifact=request.effect["artifact"]["name"],
                                  approved=request.effect["artifact"]["digest"],
                                  current=current["artifact"]["digest"])
        raise ApprovalMismatch(request_id=rid, field=path, approved=str(approved),
                               requested=str(requested))
    ### END SOLUTION'''}
MUST_FAIL = ['test_revoked']
