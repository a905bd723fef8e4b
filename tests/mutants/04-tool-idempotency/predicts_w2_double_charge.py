"""Predicts that a crash in W2 (intent journaled, nothing sent) also charges twice."""

ANSWERS = {"answer_prediction": '''predicted_double_charge = {"W2", "W3", "W4"}
'''}
MUST_FAIL = ["test_predict_double_charge"]
