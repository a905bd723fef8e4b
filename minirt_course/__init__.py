"""The course built on minirt: grading, the course CLI and catalog, scenarios, the capstone.

Invariant: imports run one way, ``minirt_course`` -> ``minirt.viz`` (pictures) -> the ``minirt``
runtime -> ``minirt.store``; nothing under ``minirt/`` imports this package (checked by
``tests/test_seams.py``). Guarantees: an engineer who uses only ``minirt`` needs none of it; the
``minirt-course`` command (``minirt_course.course.cli:main``) and the lessons and drills do.
Not guaranteed: a stable API; these modules serve the course's notebooks and graders.

    minirt_course/course/      the course CLI, catalog, local grader, oracle, sandbox, lesson helpers
    minirt_course/grading/     the hidden tests' helpers (one ``mNN.py`` per drill)
    minirt_course/scenarios/   every module's crash scenario (``minirt.faults`` sweeps them)
    minirt_course/capstone/    module 11's shop, agent and measurements
"""
