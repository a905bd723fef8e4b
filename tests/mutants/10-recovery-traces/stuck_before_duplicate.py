"""Judges the run's state first: a run still going that already charged twice is only 'stuck'."""

ANSWERS = {"answer_judge": '''def judge(state, report):
    if state not in ("succeeded", "failed", "cancelled"):
        return "stuck"
    if report.orphans or any((r.executions or 0) > 1 for r in report.rows):
        return "duplicate effect"
    if any(r.executions == 0 and r.receipts for r in report.rows):
        return "lost effect"
    if state != "succeeded":
        return "wrong result"
    return "clean"
    ### END SOLUTION'''}
MUST_FAIL = ['test_oracle_stuck_is_not_clean']
