"""Predicts that authorization is checked before the domain rules."""

ANSWERS = {
    'answer_prediction': '''prediction = "authorization"
''',
}
MUST_FAIL = ['test_predict_gate']
