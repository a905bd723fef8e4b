"""Helpers for the drills' hidden tests and for instructors (course tooling).

Each module owns ``minirt_course/grading/mNN.py``. Graders import from here, never from the learner's
folder, and rebuild every value a learner returns before comparing it.

The package imports nothing itself: ``DesignGrade`` and ``grade_design_outline`` (module 05b, the
design exercise, graded by running the design: see minirt_course.grading.design) load on first
use (PEP 562), so a drill's ``from minirt_course.grading import m01`` does not pay for the design
grader's imports (about 0.5 s of CPU in every kernel and out-of-kernel grader).
"""

from __future__ import annotations

from typing import Any

__all__ = ["DesignGrade", "grade_design_outline"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import design

        return getattr(design, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
