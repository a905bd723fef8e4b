"""Predicts that the replay charges every token twice (800), the child's included."""

ANSWERS = {"answer_prediction": '''predicted_tokens = 800
'''}
MUST_FAIL = ["test_predict_replayed_tokens"]
