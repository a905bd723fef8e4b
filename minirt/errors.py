"""The one base class for every error minirt raises on purpose.

Every error is a named type under :class:`MinirtError`. Each carries the identifiers involved as
attributes and builds its message from them, so a log line, a journal row and a test assertion all
say the same thing. :meth:`MinirtError.to_record` / :func:`from_record` give errors a round trip
through the journal: an error recorded by one worker is raised again, as the same type with the
same attributes, when another worker replays the run.
"""

from __future__ import annotations

from typing import Any, ClassVar

_REGISTRY: dict[str, type[MinirtError]] = {}  # short class name -> class (last defined wins)
_BY_MODULE: dict[tuple[str, str], type[MinirtError]] = {}  # (module, name) -> class, exact


class MinirtError(Exception):
    """Base of every minirt error. Not raised itself.

    Subclasses list the attribute names they carry in ``fields`` and set ``template``, a format
    string over those attributes. Keyword arguments only, so a record can rebuild any of them.
    """

    fields: ClassVar[tuple[str, ...]] = ()
    template: ClassVar[str] = "{detail}"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _REGISTRY[cls.__name__] = cls
        _BY_MODULE[(cls.__module__, cls.__name__)] = cls

    def __init__(self, **attrs: Any) -> None:
        missing = [f for f in self.fields if f not in attrs]
        if missing:
            raise TypeError(f"{type(self).__name__} needs {', '.join(missing)}")
        self.attrs = attrs
        for name, value in attrs.items():
            setattr(self, name, value)
        try:
            message = self.template.format(**attrs)
        except (KeyError, IndexError):
            message = f"{type(self).__name__}({attrs})"
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only construction: pickle (multiprocessing, DBOS, ...) rebuilds from the attrs.
        return (_rebuild, (type(self), self.attrs))

    def to_record(self) -> dict[str, Any]:
        """A JSON-ready record of this error: its type name, module and attributes. The module
        keeps two errors of the same name in different modules apart on replay."""
        cls = type(self)
        return {"type": cls.__name__, "module": cls.__module__, "attrs": _jsonable(self.attrs)}


def from_record(record: dict[str, Any]) -> MinirtError:
    """Rebuild an error from :meth:`MinirtError.to_record`. Unknown types become ``RecordedError``."""
    name = str(record.get("type", ""))
    cls = _BY_MODULE.get((str(record.get("module", "")), name)) or _REGISTRY.get(name)
    attrs = dict(record.get("attrs", {}))
    if cls is None:
        return RecordedError(type_name=str(record.get("type")), detail=str(attrs))
    try:
        return cls(**attrs)
    except TypeError:
        return RecordedError(type_name=cls.__name__, detail=str(attrs))


def _rebuild(cls: type[MinirtError], attrs: dict[str, Any]) -> MinirtError:
    return cls(**attrs)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "value") and isinstance(value.value, (str, int)):  # enums
        return value.value
    return str(value)


class RecordedError(MinirtError):
    """An error read back from a journal whose type this process does not know.

    Raised on replay instead of guessing; not the same as the original type, which is named in
    ``type_name``.
    """

    fields = ("type_name", "detail")
    template = "{type_name}: {detail}"


class ToolError(MinirtError):
    """A tool reported a failure of its own (the tool ran and said no).

    Recorded in the journal as the step's outcome and raised again on replay. Not a gate refusal
    (those are :class:`minirt.contracts.ContractError` subclasses) and not a crash.
    """

    fields = ("tool", "reason")
    template = "tool {tool!r} failed: {reason}"


def safe_str(exc: BaseException) -> str:
    """``str(exc)``, or a description of why it could not be had: an exception whose ``__str__``
    raises (or returns something that is not text) must still be recorded, never escape raw."""
    try:
        text = str(exc)
        if type(text) is not str:
            raise TypeError(f"__str__ returned {type(text).__name__}")
        text.encode("utf-8")  # a lone surrogate cannot go into a journal
        return text
    except Exception as inner:  # noqa: BLE001 - any failure here is what we describe
        return (f"<{type(exc).__name__} whose str() failed with "
                f"{type(inner).__name__}>")


def describe_exception(exc: BaseException) -> str:
    """``"Type: message"`` for any exception, safely (see :func:`safe_str`)."""
    return f"{type(exc).__name__}: {safe_str(exc)}"
