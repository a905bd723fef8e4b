"""Helpers for the drills' hidden tests and for instructors (course tooling).

Each module owns ``minirt/grading/mNN.py``. Graders import from here, never from the learner's
folder, and rebuild every value a learner returns before comparing it.
"""
