"""Helpers for the drills' hidden tests and for instructors (course tooling).

Each module owns ``minirt_course/grading/mNN.py``. Graders import from here, never from the learner's
folder, and rebuild every value a learner returns before comparing it.
"""

# Module 05b: the design exercise, graded by running the design (see minirt_course.grading.design).
from .design import DesignGrade, grade_design_outline  # noqa: E402

__all__ = ["DesignGrade", "grade_design_outline"]
