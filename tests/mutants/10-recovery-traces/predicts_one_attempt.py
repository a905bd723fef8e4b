"""Predicts one attempt: the intent journaled before the crash is taken for no send at all."""

ANSWERS = {"answer_prediction": '''predicted_w2 = (1, 1)
'''}
MUST_FAIL = ["test_predict_w2_trace"]
