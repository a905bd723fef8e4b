"""The answer imports minirt_course.grading.m01 (and minirt_course.course) to read the observed answer from a
grading helper and the hidden checks' source, instead of predicting."""
ANSWERS = {
    "answer_prediction": '''predicted_accepted, predicted_zombie_error = None, None
try:
    from minirt_course.grading import m01 as _m
    _seen = _m.zombie_story()
    predicted_accepted = _seen["accepted_incarnation"]
    predicted_zombie_error = _seen["zombie_error"]
except Exception:
    pass
try:
    import inspect
    import minirt_course.grading.m01 as _m2
    _src = inspect.getsource(_m2.check_prediction)
except Exception:
    pass
try:
    import minirt_course.course.nbgrade  # noqa: F401
    predicted_accepted = 2
except Exception:
    pass
''',
}
MUST_FAIL = ["test_prediction"]
