"""Predicts that the cancel stops the guest email already in flight."""

ANSWERS = {
    "answer_prediction": '''predicted_emails = 1  # a whole number
predicted_refunds = 1  # a whole number
''',
}
MUST_FAIL = ["test_prediction"]
