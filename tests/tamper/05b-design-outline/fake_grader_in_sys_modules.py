"""The answer cell puts a fake minirt_course.grading.design (and design_reader) into
sys.modules whose every name grades as passing, rebinds builtins.AssertionError, and returns an
outline that resends blindly with a new key per attempt (a design that charges twice but loses
and strands nothing, so its no-lost-or-stuck cell passes on its merits and is not listed)."""

ANSWERS = {
    "answer_design_outline": '''import builtins
import sys
import types
class _Pass:
    passed = True
    score = 1.0
    properties = {"level1": True, "no_duplicate": True, "no_lost_or_stuck": True,
                  "failure_consistent": True}
    feedback = ()
    contradictions = ()
    def __bool__(self):
        return True
for _name in ("minirt_course.grading.design", "minirt_course.grading.design_reader"):
    _fake = types.ModuleType(_name)
    _fake.__getattr__ = lambda attr: (lambda *a, **k: [] if attr.startswith("check") else _Pass())
    sys.modules[_name] = _fake
class AssertionError(Exception):
    pass
builtins.AssertionError = AssertionError
def designOutline() -> dict:
    return {"checkpoint": "Only the result is written, after the call returns.",
            "idempotency": "A fresh uuid4 per attempt.",
            "resumeProtocol": "Resend every unfinished call straight away.",
            "failureMode": "None, it is exactly once."}
''',
}
MUST_FAIL = ["test_level1_concrete", "test_no_duplicate_charge", "test_failure_mode_consistent",
             "test_design_passes"]
