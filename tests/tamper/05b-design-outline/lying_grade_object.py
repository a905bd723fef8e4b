"""designOutline returns a dict whose values are objects that pretend to be strings (isinstance
str via __class__, __eq__ true, __str__ a good design) and patch json.dumps to print a good
outline; the prediction is a frozenset subclass whose __contains__ and __eq__ always agree."""

ANSWERS = {
    "answer_design_outline": '''import json as _json
_good = ("Before the call we commit an intent row; the result after. Key derived from run id "
         "and step. Look it up by key; missing and under 24 h, resend with it; older, escalate.")
class Liar:
    __class__ = str
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__
    def __str__(self):
        return _good
    def __contains__(self, item):
        return True
    def lower(self):
        return _good.lower()
_json.dumps = lambda *a, **k: _good
def designOutline() -> dict:
    return {"checkpoint": Liar(), "idempotency": Liar(), "resumeProtocol": Liar(),
            "failureMode": Liar()}
''',
    "answer_prediction": '''class Agree(frozenset):
    def __eq__(self, other):
        return True
    def __contains__(self, item):
        return True
    __hash__ = frozenset.__hash__
predicted_double_charge = Agree()
''',
}
MUST_FAIL = ["test_level1_concrete", "test_no_duplicate_charge", "test_no_lost_or_stuck_run",
             "test_failure_mode_consistent", "test_design_passes", "test_predict_double_charge"]
