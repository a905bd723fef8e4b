"""nbgrader configuration for the Durable Agents course.

Maps nbgrader's steps onto this repository's folders:

    solutions/<slug>/drill.ipynb            source (instructor master: solutions + hidden tests)
    drills/<slug>/drill.ipynb               release (generated, committed, never hand-edited)
    build/submitted/<learner>/<slug>/       what a learner handed in
    build/autograded/<learner>/<slug>/      executed copies with hidden tests restored
    build/feedback/<learner>/<slug>/        feedback HTML (hidden tests cleared)
    build/gradebook.db                      the gradebook (SQLite)

Every path is anchored at this file's folder, so the same file works in a temporary copy of the
course (the grading self-tests do that). nbgrader itself only reads this file from the current
working directory: run nbgrader from the repository root, with the virtualenv activated so that
`alembic` is on PATH, and make sure build/ exists (`mkdir -p build`); `minirt-course` and
`tools/nbtool.py` do all of that for you.
"""

import os

c = get_config()  # noqa: F821  (injected by traitlets when it loads this file)

_ROOT = os.path.dirname(os.path.abspath(__file__))
_BUILD = os.path.join(_ROOT, "build")

c.CourseDirectory.root = _ROOT
c.CourseDirectory.course_id = "durable-agents"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "drills"
c.CourseDirectory.submitted_directory = os.path.join("build", "submitted")
c.CourseDirectory.autograded_directory = os.path.join("build", "autograded")
c.CourseDirectory.feedback_directory = os.path.join("build", "feedback")
c.CourseDirectory.solution_directory = os.path.join("build", "solution")
# SQLite needs the folder to exist; nbgrader then reports a misleading "run nbgrader db upgrade".
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(_BUILD, "gradebook.db")
# Only notebooks belong in solutions/<slug>/ (nbgrader copies any other file to learners); keep
# editor and cache litter out of releases and submissions all the same.
c.CourseDirectory.ignore = [
    ".ipynb_checkpoints",
    "*.pyc",
    "__pycache__",
    "feedback",
    ".DS_Store",
    "*.sqlite",
    "*.sqlite-wal",
    "*.sqlite-shm",
]

# Non-interactive generation: create the assignment row in the gradebook when missing.
c.GenerateAssignment.create_assignment = True
# Autograde creates a learner on first submission instead of refusing.
c.Autograde.create_student = True

# Per-cell execution bound (the infinite-loop guard), for autograde and validate alike.
c.Execute.timeout = 120
c.ExecutePreprocessor.timeout = 120
# A kernel client that cannot wait a whole cell timeout for a reply already there (nbclient #312,
# a lost wake-up after an ipywidgets Output widget's comm message): minirt_course/course/kernel_client.py.
c.ExecutePreprocessor.kernel_manager_class = "minirt_course.course.kernel_client.SlicedKernelManager"

# Feedback must never show hidden test source (nbgrader #917): clear the hidden regions first,
# then nbgrader 0.9.6's own default list (GetGrades, CSSHTMLHeaderPreprocessor). The locked setup
# cell of every drill runs `%xmode Minimal`, so tracebacks show only "AssertionError: <message>".
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
