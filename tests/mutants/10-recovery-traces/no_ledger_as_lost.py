"""Reads a missing ledger (executions None) as zero executions: an effect it cannot join is called lost."""

ANSWERS = {"answer_judge": '''def judge(state, report):
    if report.orphans or any((r.executions or 0) > 1 for r in report.rows):
        return "duplicate effect"
    if state not in ("succeeded", "failed", "cancelled"):
        return "stuck"
    if any(not r.executions and r.receipts for r in report.rows):
        return "lost effect"
    if state != "succeeded":
        return "wrong result"
    return "clean"
    ### END SOLUTION'''}
MUST_FAIL = ['test_oracle_reads_the_ledger']
