"""Running one hidden property over generated inputs, quietly, with a shrunk counterexample.

Used by the hidden checks of drills 06-11 (``minirt_course.grading.m06`` ... ``m11``). A property is a
function of one generated example that returns None when it holds or a message (what was
expected, in words) when it does not. :func:`falsify` runs it under hypothesis, derandomised
(the same examples on every machine and every run), with no example database, no deadline and a
bounded number of examples, and returns ``[]`` or one message:
``"[<property>] <message> — smallest failing input: <example>"``.

Guarantees: nothing is printed (hypothesis runs with ``Verbosity.quiet``; its report, health
checks and warnings never reach stderr); a learner's exception inside the property is the
property's business (it should turn it into a message); an exception that escapes the property
is reported as a failure, never raised. Does not guarantee that a failure found is the globally
smallest one: it is hypothesis' shrunk example within the bounded run.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import example as hyp_example
from hypothesis import strategies as st

T = TypeVar("T")


class _Falsified(Exception):
    """The property returned a message for this example (internal)."""

    def __init__(self, message: str, example: Any) -> None:
        super().__init__(message)
        self.message = message
        self.example = example


def _short(value: Any, limit: int = 300) -> str:
    try:
        text = value if type(value) is str else repr(value)
    except Exception:  # noqa: BLE001 - a learner's object with a broken repr
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def falsify(prop: str, strategy: st.SearchStrategy[T], check: Callable[[T], str | None], *,
            max_examples: int = 60, show: Callable[[T], Any] = lambda x: x,
            examples: Sequence[T] = ()) -> list[str]:
    """Search ``strategy`` for an example where ``check`` returns a message; return ``[]`` or
    ``["[prop] message — smallest failing input: <show(example)>"]``. ``examples`` are tried
    first, every time (the boundaries a property must always probe)."""
    found: list[_Falsified] = []

    @settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
              verbosity=Verbosity.quiet, print_blob=False, report_multiple_bugs=False,
              phases=(Phase.explicit, Phase.generate, Phase.shrink),
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(example: T) -> None:
        try:
            message = check(example)
        except Exception as exc:  # noqa: BLE001 - a broken check is still reported, quietly
            message = f"the check itself failed on this input ({type(exc).__name__}: {exc})"
        if message:
            raise _Falsified(message, example)

    for ex in reversed(list(examples)):
        run = hyp_example(ex)(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            run()
        except _Falsified as failure:
            found.append(failure)
    if not found:
        return []
    f = found[-1]
    return [f"[{prop}] {f.message} — smallest failing input: {_short(show(f.example))}"]


def same_fields(got: Any, want: Any, fields: tuple[str, ...]) -> str | None:
    """None if ``got`` has every one of ``fields`` equal to ``want``'s (compared as plain data:
    ``type`` and value, so ``3000 != 3000.0`` and a lying ``__eq__`` on ``got`` is never asked),
    else the first field that differs, as words."""
    for name in fields:
        a, b = getattr(got, name, _MISSING), getattr(want, name, _MISSING)
        if a is _MISSING:
            return f"has no field {name!r}"
        if not plain_equal(a, b):
            return f"{name} is {_short(a, 80)}, expected {_short(b, 80)}"
    return None


_MISSING = object()


def plain_equal(a: Any, b: Any) -> bool:
    """Equality of plain data, asked of the expected value's exact types: dicts, lists, tuples,
    sets, str, int, float, bool, None (a subclass of one of these on either side is rebuilt to
    the base type first, so it cannot decide equality by its own ``__eq__``)."""
    return _plain(a) == _plain(b)


def _plain(x: Any) -> Any:
    if x is None:
        return ("none",)
    if isinstance(x, bool):
        return ("bool", bool(x))
    if isinstance(x, int):
        return ("int", int.__int__(x))
    if isinstance(x, float):
        return ("float", float.__float__(x))
    if isinstance(x, str):
        return ("str", str.__str__(x))
    if isinstance(x, bytes):
        return ("bytes", bytes(x))
    if isinstance(x, dict):
        return ("dict", tuple(sorted(((_plain(k), _plain(v)) for k, v in dict.items(x)),
                                     key=repr)))
    if isinstance(x, list | tuple):
        return ("seq", tuple(_plain(v) for v in x))
    if isinstance(x, set | frozenset):
        return ("set", tuple(sorted((_plain(v) for v in x), key=repr)))
    return ("other", type(x).__name__, repr(x))
