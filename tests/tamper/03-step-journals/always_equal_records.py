"""lookup returns objects whose __eq__ always says True (one a subclass of the Recorded the drill
imports, one a plain class), and the prediction is a dict subclass equal to everything."""

ANSWERS = {
    "answer_lookup": '''class Anything:
    value = None
    def __eq__(self, other):
        return True
    def __hash__(self):
        return 0
try:
    class FakeRecorded(Recorded):
        def __eq__(self, other):
            return True
        __hash__ = object.__hash__
except Exception:
    FakeRecorded = None
def lookup(rows, step, kind, name, args_digest):
    if FakeRecorded is not None:
        try:
            return FakeRecorded(None)
        except Exception:
            pass
    return Anything()
''',
    "answer_prediction": '''class Yes(dict):
    def __eq__(self, other):
        return True
    def __getitem__(self, key):
        return 2
prediction = Yes(refund_executions=7, refunds_applied=7)
''',
}
MUST_FAIL = ["test_recorded_result", "test_tool_not_rerun", "test_divergence",
             "test_unresolved_intent", "test_prediction"]
