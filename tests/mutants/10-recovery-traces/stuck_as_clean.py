"""Never asks whether the run ended: a run left UNCERTAIN with tidy ledgers passes as clean."""

ANSWERS = {"answer_judge": '''def judge(state, report):
    if report.orphans or any((r.executions or 0) > 1 for r in report.rows):
        return "duplicate effect"
    if any(r.executions == 0 and r.receipts for r in report.rows):
        return "lost effect"
    if state == "failed":
        return "wrong result"
    return "clean"
'''}
MUST_FAIL = ["test_oracle_stuck_is_not_clean"]
