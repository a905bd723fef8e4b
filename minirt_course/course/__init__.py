"""Course tooling: the module catalog, `show()` for lessons, and drill grading.

Nothing here is imported by the runtime core (see DESIGN.md section 7). Importing this package
is light: nbgrader and IPython are imported only by the functions that need them.
"""

from minirt_course.course.catalog import (
    MODULES,
    Module,
    course_root,
    drill_path,
    get,
    landed,
    lesson_path,
    module_ids,
    solution_path,
)
from minirt_course.course.show import show

__all__ = [
    "MODULES",
    "Module",
    "course_root",
    "drill_path",
    "get",
    "landed",
    "lesson_path",
    "module_ids",
    "show",
    "solution_path",
]
