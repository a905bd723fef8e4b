"""Counts executions per intent key only: a charge under a key no intent owns goes unseen."""

ANSWERS = {"answer_judge": '''def judge(state, report):
    if any((r.executions or 0) > 1 for r in report.rows):
        return "duplicate effect"
    if state not in ("succeeded", "failed", "cancelled"):
        return "stuck"
    if any(r.executions == 0 and r.receipts for r in report.rows):
        return "lost effect"
    if state != "succeeded":
        return "wrong result"
    return "clean"
'''}
MUST_FAIL = ["test_oracle_reads_the_ledger"]
