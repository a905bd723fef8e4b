"""str and int subclasses whose __eq__/__str__/__hash__ lie: equal to everything, printing as
whatever they are compared with."""
from _common import WRONG_PREDICTION

ANSWERS = {
    "answer_prediction": '''class Liar(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __hash__(self):
        return hash("RunIsTerminal")
    def __str__(self):
        return "RunIsTerminal"
class LyingInt(int):
    def __eq__(self, other):
        return True
    def __hash__(self):
        return 2
    def __str__(self):
        return "2"
predicted_accepted = LyingInt(7)
predicted_zombie_error = Liar("nothing")
''',
}
MUST_FAIL = ["test_prediction"]
UNUSED = WRONG_PREDICTION
