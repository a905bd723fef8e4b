"""The answer cell rebinds m03's helpers and names (journal_rows, same, UNRESOLVED, Divergence) and
the digest function so the tests' own calls succeed, with a lookup that ignores the journal."""

ANSWERS = {
    "answer_lookup": '''import minirt.canonical
from minirt_course.grading import m03 as _m
_m.journal_rows = lambda *a, **k: []
_m.same = lambda *a, **k: True
_m.positions = lambda *a, **k: []
UNRESOLVED = None
class Divergence(Exception):
    pass
minirt.canonical.digest = lambda value: "same"
digest = minirt.canonical.digest
def lookup(rows, step, kind, name, args_digest):
    return None
''',
}
MUST_FAIL = ["test_recorded_result", "test_tool_not_rerun", "test_divergence",
             "test_unresolved_intent"]
