"""Predicts only W3 and W4, forgetting that the snapshot had not kept the charge's result (W5)."""

ANSWERS = {"answer_prediction": '''predicted_double_charge = {"W3", "W4"}
'''}
MUST_FAIL = ["test_predict_double_charge"]
