"""is_quiescent raises KeyboardInterrupt, request_record returns a dict subclass equal to every
dict, and the predictions are int subclasses equal to every number."""

ANSWERS = {
    "answer_quiescent": '''def is_quiescent(children, effects):
    raise KeyboardInterrupt
''',
    "answer_request": '''class AnyRecord(dict):
    def __eq__(self, other):
        return True
    def __bool__(self):
        return True
def request_record(run, existing, reason, at):
    return AnyRecord(stage="requested")
''',
    "answer_prediction": '''class AnyNumber(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
predicted_emails = AnyNumber(9)
predicted_refunds = AnyNumber(9)
''',
}
MUST_FAIL = ["test_quiescence_effects", "test_quiescence_children", "test_cancel_idempotent",
             "test_prediction"]
