"""effect_status and the prediction return str subclasses that equal everything, hash like the
expected answer and print as it."""

ANSWERS = {
    "answer_effect_status": '''class Liar(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __hash__(self):
        return hash("happened")
    def __str__(self):
        return "happened"
def effect_status(kind, error):
    return Liar("nope")
''',
    "answer_prediction": '''class Liar(str):
    def __eq__(self, other):
        return True
    def __hash__(self):
        return hash("domain")
prediction = Liar("schema")
''',
}
MUST_FAIL = ["test_effect_status", "test_predict_gate"]
