"""Judges by the journal's receipts instead of the providers' ledgers: an effect is 'done' when recorded."""

ANSWERS = {"answer_judge": '''def judge(state, report):
    if any(r.receipts > 1 for r in report.rows):
        return "duplicate effect"
    if state not in ("succeeded", "failed", "cancelled"):
        return "stuck"
    if any(r.receipts == 0 for r in report.rows):
        return "lost effect"
    if state != "succeeded":
        return "wrong result"
    return "clean"
'''}
MUST_FAIL = ["test_oracle_reads_the_ledger", "test_oracle_under_the_sweep"]
