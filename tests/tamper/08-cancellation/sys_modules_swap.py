"""The answer cell swaps minirt.cancel and minirt.run in sys.modules for fakes whose classes
accept anything, and effective_deadline ignores the parent's deadline."""

ANSWERS = {
    "answer_deadline": '''import sys
import types
for _name in ("minirt.cancel", "minirt.run"):
    _fake = types.ModuleType(_name)
    _fake.__getattr__ = lambda attr: type(attr, (), {"__eq__": lambda s, o: True})
    sys.modules[_name] = _fake
def effective_deadline(parent_at, now, *, deadline_at=None, after=None):
    return deadline_at if after is None else now + after
''',
}
MUST_FAIL = ["test_child_within_parent"]
