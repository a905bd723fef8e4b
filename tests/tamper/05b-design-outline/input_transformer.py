"""An IPython input transformer registered in the answer cell rewrites every later cell that
asserts or grades anything to `pass`, and the outline itself is vague (in the kernel the
defanged graded cells would score full marks)."""

ANSWERS = {
    "answer_design_outline": '''def _defang(lines):
    text = "".join(lines)
    return ["pass\\n"] if ("assert" in text or "check_" in text or "grade" in text) else lines
try:
    get_ipython().input_transformers_cleanup.append(_defang)
except NameError:
    pass
def designOutline() -> dict:
    return {"checkpoint": "we save things", "idempotency": "retries are safe",
            "resumeProtocol": "start again", "failureMode": "none"}
''',
    "answer_prediction": "predicted_double_charge = set()\n",
}
MUST_FAIL = ["test_level1_concrete", "test_no_duplicate_charge", "test_no_lost_or_stuck_run",
             "test_failure_mode_consistent", "test_design_passes", "test_predict_double_charge"]
