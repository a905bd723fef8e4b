"""The codec between the checker process and the learner's process: values to JSON and back.

Invariant: only JSON crosses, and what a receiver rebuilds is built by the receiver's own code from
exact types. A ``str`` subclass crosses as a plain ``str``, an ``int`` subclass as an ``int``;
enums, dataclasses, pydantic models and named minirt errors are rebuilt *by class path* only when
the class is defined in the ``minirt`` runtime or in ``minirt_course`` outside its
``grading`` and ``course`` subpackages (:data:`PACKAGES`, :func:`ours`) or is one of a few stdlib
types. Anything else (a learner's class, a function, a context, a store,
a lock) crosses as a **handle**: the receiver gets a :class:`Remote` whose calls and public
attribute reads (never a name with a leading underscore) go back to the owner.

Guarantees: identity and aliasing inside one message are kept (memo refs); a callee's in-place
changes to a dict/list/set/dataclass argument can be copied back (:meth:`Decoder.refs`,
:func:`apply_copy_back`); nesting depth and message size are bounded; a malformed message raises
:class:`WireError`, never something else. Not guaranteed: that a handle's owner answers (that is
:mod:`minirt_course.course.channel`'s job), nor that a rebuilt minirt object is *valid* beyond what its
own constructor checks.

This module imports only the standard library: the learner's process loads it from a copy outside
the ``minirt`` package (``minirt_course.course`` is absent there).
"""

from __future__ import annotations

import base64
import builtins
import dataclasses
import datetime as _dt
import decimal
import enum
import importlib
import math
import sys
import uuid
from collections.abc import Callable
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_MESSAGE",
    "Decoder",
    "Encoder",
    "LearnerError",
    "LearnerTimeout",
    "Remote",
    "WireError",
    "apply_copy_back",
    "class_path",
]

DUNDERS = frozenset({"__enter__", "__exit__", "__iter__", "__next__", "__len__", "__getitem__",
                     "__contains__"})

MAX_DEPTH = 120
MAX_MESSAGE = 16 * 1024 * 1024  # bytes of one JSON line
_FORBIDDEN_PACKAGES = ("minirt_course.grading", "minirt_course.course")
#: The top-level packages whose classes may cross by value (both are copied into the learner's
#: process, the two forbidden subpackages left out).
PACKAGES = ("minirt", "minirt_course")
_STDLIB_TYPES: dict[str, type] = {
    "datetime:datetime": _dt.datetime,
    "datetime:date": _dt.date,
    "datetime:timedelta": _dt.timedelta,
    "decimal:Decimal": decimal.Decimal,
    "uuid:UUID": uuid.UUID,
}
_EXITS = (SystemExit, KeyboardInterrupt, GeneratorExit)


class WireError(Exception):
    """A value cannot be encoded, or a message cannot be decoded (malformed, too deep, refused)."""


class LearnerError(Exception):
    """An exception from the other process whose type cannot be rebuilt here (named, not raised
    as itself): a learner-defined class, ``SystemExit``, ``KeyboardInterrupt``, ..."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(f"{type_name}: {message}" if message else type_name)
        self.type_name = type_name
        self.message = message


class LearnerTimeout(Exception):
    """A call across the processes did not answer within its time limit."""


def class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def ours(module: str) -> bool:
    """True for ``minirt``, ``minirt_course`` and their submodules (:data:`PACKAGES`)."""
    return module.split(".", 1)[0] in PACKAGES


def _minirt_module(module: str) -> bool:
    if not ours(module):
        return False
    return not any(module == p or module.startswith(p + ".") for p in _FORBIDDEN_PACKAGES)


def _by_value_class(cls: type) -> bool:
    """True when instances of `cls` may cross by value (rebuilt by the receiver from the path)."""
    return _minirt_module(cls.__module__) and "<locals>" not in cls.__qualname__


def _api_error_class(cls: type) -> bool:
    """A named error of the grading code that its module lists in ``LEARNER_API`` (the learner
    raises it, e.g. ``m03.Divergence``): crosses by class path like minirt's own errors."""
    module = getattr(cls, "__module__", "")
    if not module.startswith("minirt_course.grading") or "<" in cls.__qualname__:
        return False
    mod = sys.modules.get(module)
    api = getattr(mod, "LEARNER_API", ())
    return isinstance(api, (tuple, list)) and cls.__qualname__ in api


def resolve_error_class(path: str) -> type:
    """Like :func:`resolve_class`, and also an error class a grading module lists in
    ``LEARNER_API`` (the grading module is imported; nothing else is)."""
    module, _, qual = path.partition(":")
    if module.startswith("minirt_course.grading") and "." not in qual and not qual.startswith("_"):
        try:
            cls = getattr(importlib.import_module(module), qual, None)
        except ImportError:
            cls = None
        if isinstance(cls, type) and issubclass(cls, Exception) and _api_error_class(cls):
            return cls
        raise WireError(f"refused error class {path!r}")
    return resolve_class(path)


def resolve_class(path: str) -> type:
    """The class named by `path` ("module:qualname"), only for minirt's own or allowed stdlib
    classes; raises WireError otherwise. Never imports a module outside minirt."""
    if path in _STDLIB_TYPES:
        return _STDLIB_TYPES[path]
    module, _, qual = path.partition(":")
    if not qual or not _minirt_module(module) or "<" in qual:
        raise WireError(f"refused class {path!r}: not a class of the minirt package")
    try:
        obj: Any = importlib.import_module(module)
        for part in qual.split("."):
            if part.startswith("__"):
                raise WireError(f"refused class path {path!r}")
            obj = getattr(obj, part)
    except WireError:
        raise
    except Exception as exc:
        raise WireError(f"unknown class {path!r} ({type(exc).__name__})") from None
    if not isinstance(obj, type) or obj.__module__ != module:
        raise WireError(f"refused class path {path!r}: not a class defined there")
    return obj


class Remote:
    """A handle to an object that lives in the other process.

    Calling it calls the object there; reading an attribute reads it there (a method comes
    back as another Remote) if the owner's policy allows the name: public names always, a
    ``_private`` name only where the owner says so (minirt's own library code run by the learner
    needs ``ctx._next``), dunder names never. No dunder (``__eq__``, ``__str__``, ``__hash__``, ...) is: a Remote compares, hashes and prints
    as itself, so a lying object gains nothing.
    """

    __slots__ = ("_peer", "_hid", "_kind", "_label", "__weakref__")

    def __init__(self, peer: Any, hid: int, kind: str, label: str) -> None:
        object.__setattr__(self, "_peer", peer)
        object.__setattr__(self, "_hid", hid)
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "_label", label)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._peer.call_remote(self._hid, args, kwargs, self._label)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._peer.get_remote(self._hid, name, self._label)

    # The container and context protocols are forwarded (a learner's context manager, iterator
    # or sequence must work through a handle); comparison, hashing, str and bool never are.
    def __enter__(self) -> Any:
        return self._peer.call_dunder(self._hid, "__enter__", (), self._label)

    def __exit__(self, et: Any, ev: Any, tb: Any) -> Any:
        # only the exception crosses (its type is rebuilt there, the traceback stays here)
        return self._peer.call_dunder(self._hid, "__exit__", (ev,), self._label)

    def __iter__(self) -> Any:
        return self._peer.call_dunder(self._hid, "__iter__", (), self._label)

    def __next__(self) -> Any:
        return self._peer.call_dunder(self._hid, "__next__", (), self._label)

    def __bool__(self) -> bool:  # never forwarded: a handle is always true
        return True

    def __len__(self) -> int:
        return int(self._peer.call_dunder(self._hid, "__len__", (), self._label))

    def __getitem__(self, key: Any) -> Any:
        return self._peer.call_dunder(self._hid, "__getitem__", (key,), self._label)

    def __contains__(self, item: Any) -> bool:
        return self._peer.call_dunder(self._hid, "__contains__", (item,), self._label) is True

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("__"):
            raise AttributeError(f"cannot set {name!r} on a remote {self._kind} {self._label}")
        self._peer.set_remote(self._hid, name, value, self._label)

    def __repr__(self) -> str:
        return f"<remote {self._kind} {self._label}>"

    __str__ = __repr__


# --------------------------------------------------------------------------- encoding


class Encoder:
    """Encode values for one message. `export(obj) -> (hid, kind, label)` makes a handle (the
    owner's policy may raise WireError to refuse); `remote_id(obj)` recognises the receiver's
    own handles coming back. `seed` maps ref id -> object for objects the receiver already has
    under those ids (the arguments of the call being answered: copy-back and aliasing)."""

    def __init__(
        self,
        export: Callable[[Any], tuple[int, str, str]],
        remote_id: Callable[[Any], int | None],
        *,
        seed: dict[int, Any] | None = None,
    ) -> None:
        self._export = export
        self._remote_id = remote_id
        self.objects: dict[int, Any] = dict(seed or {})  # ref id -> object (kept alive)
        self.memo: dict[int, int] = {id(o): i for i, o in self.objects.items()}
        self._next = max(self.objects, default=0)

    def _new_id(self, obj: Any) -> int:
        self._next += 1
        self.memo[id(obj)] = self._next
        self.objects[self._next] = obj
        return self._next

    def encode(self, v: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise WireError(f"value nested deeper than {MAX_DEPTH} levels")
        t = type(v)
        if v is None or t is bool:
            return v
        if isinstance(v, bool):
            return bool(v)
        if isinstance(v, enum.Enum) and _by_value_class(t):
            return {"t": "enum", "c": class_path(t), "v": self.encode(v.value, depth + 1)}
        if isinstance(v, int) and not isinstance(v, enum.Enum):
            return int.__int__(v) if t is not int else v
        if isinstance(v, float) and not isinstance(v, enum.Enum):
            f = float.__float__(v)
            if math.isfinite(f):
                return f
            return {"t": "f", "v": repr(f)}
        if isinstance(v, str) and not isinstance(v, enum.Enum):
            return str.__str__(v)
        if isinstance(v, (bytes, bytearray)) and t in (bytes, bytearray):
            return {"t": "b", "v": base64.b64encode(bytes(v)).decode("ascii")}
        rid = self._remote_id(v)
        if rid is not None:
            return {"t": "mine", "h": rid}
        if id(v) in self.memo:
            return {"t": "ref", "i": self.memo[id(v)]}
        if t is list:
            i = self._new_id(v)
            return {"t": "list", "i": i, "v": [self.encode(x, depth + 1) for x in list(v)]}
        if t is tuple:
            i = self._new_id(v)
            return {"t": "tuple", "i": i, "v": [self.encode(x, depth + 1) for x in v]}
        if t is dict:
            i = self._new_id(v)
            items = [[self.encode(k, depth + 1), self.encode(x, depth + 1)]
                     for k, x in list(v.items())]
            return {"t": "dict", "i": i, "v": items}
        if t in (set, frozenset):
            i = self._new_id(v)
            return {"t": t.__name__, "i": i, "v": [self.encode(x, depth + 1) for x in list(v)]}
        path = f"{t.__module__}:{t.__qualname__}"
        if path in _STDLIB_TYPES:
            return {"t": "std", "c": path, "v": str(v) if t is not _dt.timedelta
                    else v.total_seconds()}
        if isinstance(v, BaseException):
            return self.encode_exc(v, depth)
        if _by_value_class(t) and dataclasses.is_dataclass(v) and not isinstance(v, type):
            i = self._new_id(v)
            body = [[f.name, self.encode(getattr(v, f.name), depth + 1)]
                    for f in dataclasses.fields(v)]
            return {"t": "dc", "c": path, "i": i, "v": body}
        if _by_value_class(t) and _is_pydantic(v):
            i = self._new_id(v)
            body = [[name, self.encode(getattr(v, name), depth + 1)]
                    for name in type(v).model_fields]
            return {"t": "pyd", "c": path, "i": i, "v": body}
        if isinstance(v, type) and _by_value_class(v) and "<" not in v.__qualname__:
            return {"t": "cls", "c": class_path(v)}
        if isinstance(v, type) and v.__module__ == "builtins" \
                and getattr(builtins, v.__name__, None) is v:
            return {"t": "bcls", "n": v.__name__}
        if isinstance(v, type(sys)):
            raise WireError("a module cannot cross between the processes")
        hid, kind, label = self._export(v)
        return {"t": "h", "h": hid, "k": kind, "n": label}

    def body(self, v: Any, depth: int = 0) -> Any:
        """The content of a container already known to the receiver (for copy-back)."""
        t = type(v)
        if t is list:
            return [self.encode(x, depth + 1) for x in v]
        if t is dict:
            return [[self.encode(k, depth + 1), self.encode(x, depth + 1)] for k, x in v.items()]
        if t is set:
            return [self.encode(x, depth + 1) for x in v]
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return [[f.name, self.encode(getattr(v, f.name), depth + 1)]
                    for f in dataclasses.fields(v)]
        if _is_pydantic(v):
            return [[n, self.encode(getattr(v, n), depth + 1)] for n in type(v).model_fields]
        return None

    def encode_exc(self, e: BaseException, depth: int = 0) -> Any:
        t = type(e)
        if isinstance(e, _EXITS):
            return {"t": "lerr", "n": t.__name__, "m": safe_str(e)}
        if _by_value_class(t) or _api_error_class(t):
            attrs = getattr(e, "attrs", None)
            if isinstance(e, Exception) and hasattr(t, "fields") and isinstance(attrs, dict):
                return {"t": "merr", "c": class_path(t), "a": self._safe_enc(attrs, depth)}
            if not isinstance(e, Exception):  # minirt control flow (crash, suspend, cancel)
                state = {k: x for k, x in vars(e).items() if not k.startswith("__")}
                return {"t": "ctl", "c": class_path(t), "args": self._safe_enc(list(e.args), depth),
                        "a": self._safe_enc(state, depth)}
        if t.__module__ == "pydantic_core._pydantic_core" and t.__name__ == "ValidationError":
            # a learner's pydantic model refused its input: the checker's contract code catches
            # pydantic's ValidationError, so it crosses as one (type, loc, msg of each error)
            try:
                errs = [{"type": str(x.get("type", "value_error")), "loc": list(x.get("loc", ())),
                         "msg": str(x.get("msg", ""))[:300]}
                        for x in e.errors(include_url=False, include_context=False)[:20]]
                return {"t": "pverr", "title": str(e.title)[:100],
                        "errs": self._safe_enc(errs, depth)}
            except Exception:  # noqa: BLE001 - fall back to a plain learner error
                pass
        if t.__module__ == "builtins" and getattr(builtins, t.__name__, None) is t:
            return {"t": "bexc", "n": t.__name__, "args": self._safe_enc(list(e.args), depth)}
        return {"t": "lerr", "n": t.__name__, "m": safe_str(e)}

    def _safe_enc(self, v: Any, depth: int) -> Any:
        try:
            return self.encode(v, depth + 1)
        except WireError:
            return self.encode(safe_str(v), depth + 1)


def _is_pydantic(v: Any) -> bool:
    return hasattr(type(v), "model_fields") and hasattr(v, "model_dump") and not isinstance(v, type)


def safe_str(v: Any) -> str:
    """``str(v)`` that never raises and never runs a lying ``str`` subclass's method."""
    try:
        return str.__str__(str(v))[:500]
    except BaseException:  # a learner's __str__ may raise anything
        return f"<{type(v).__name__}>"


# --------------------------------------------------------------------------- decoding


class Decoder:
    """Decode one message. `local(hid)` returns this side's own exported object; `proxy(hid,
    kind, label)` the Remote for a handle the other side owns. `seed` maps ref ids to objects this
    side already has (the originals, for copy-back). After decoding, `refs` maps every ref id to
    the object built for it."""

    def __init__(
        self,
        local: Callable[[int], Any],
        proxy: Callable[[int, str, str], Any],
        *,
        seed: dict[int, Any] | None = None,
    ) -> None:
        self._local = local
        self._proxy = proxy
        self.refs: dict[int, Any] = dict(seed or {})

    def decode(self, m: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise WireError(f"message nested deeper than {MAX_DEPTH} levels")
        if m is None or type(m) in (bool, int, float, str):
            return m
        if type(m) is not dict:
            raise WireError(f"malformed value of type {type(m).__name__}")
        try:
            return self._decode_tagged(m, depth)
        except WireError:
            raise
        except RecursionError:
            raise WireError("message nested too deeply") from None
        except Exception as exc:
            raise WireError(f"malformed {m.get('t')!r} value: {type(exc).__name__}: {exc}") from None

    def _register(self, m: dict[str, Any], obj: Any) -> Any:
        i = m["i"]
        if type(i) is not int:
            raise WireError("malformed ref id")
        self.refs[i] = obj
        return obj

    def _decode_tagged(self, m: dict[str, Any], depth: int) -> Any:
        tag = m.get("t")
        d = depth + 1
        if tag == "f":
            return float(m["v"])
        if tag == "b":
            return base64.b64decode(m["v"])
        if tag == "ref":
            if m["i"] not in self.refs:
                raise WireError("reference to an unknown object")
            return self.refs[m["i"]]
        if tag == "list":
            out: list[Any] = self._register(m, [])
            out.extend(self.decode(x, d) for x in m["v"])
            return out
        if tag == "tuple":
            return self._register(m, tuple(self.decode(x, d) for x in m["v"]))
        if tag == "dict":
            dd: dict[Any, Any] = self._register(m, {})
            for k, x in m["v"]:
                dd[self.decode(k, d)] = self.decode(x, d)
            return dd
        if tag == "set":
            s: set[Any] = self._register(m, set())
            s.update(self.decode(x, d) for x in m["v"])
            return s
        if tag == "frozenset":
            return self._register(m, frozenset(self.decode(x, d) for x in m["v"]))
        if tag == "enum":
            cls = resolve_class(m["c"])
            if not issubclass(cls, enum.Enum):
                raise WireError(f"{m['c']} is not an enum")
            return cls(self.decode(m["v"], d))
        if tag == "std":
            cls = _STDLIB_TYPES.get(m["c"])
            if cls is None:
                raise WireError(f"refused stdlib type {m['c']!r}")
            if cls is _dt.timedelta:
                return _dt.timedelta(seconds=float(m["v"]))
            if cls in (_dt.datetime, _dt.date):
                return cls.fromisoformat(str(m["v"]))
            return cls(str(m["v"]))
        if tag == "dc":
            cls = resolve_class(m["c"])
            if not dataclasses.is_dataclass(cls):
                raise WireError(f"{m['c']} is not a dataclass")
            obj = object.__new__(cls)
            self._register(m, obj)
            values = {str(k): self.decode(x, d) for k, x in m["v"]}
            built = _build_dataclass(cls, values)
            _fill(obj, built)
            return obj
        if tag == "pyd":
            cls = resolve_class(m["c"])
            if not hasattr(cls, "model_validate"):
                raise WireError(f"{m['c']} is not a pydantic model")
            values = {str(k): self.decode(x, d) for k, x in m["v"]}
            return self._register(m, cls.model_validate(values))
        if tag == "cls":
            return resolve_class(m["c"])
        if tag == "bcls":
            cls = getattr(builtins, str(m["n"]), None)
            if not isinstance(cls, type):
                raise WireError(f"no builtin type {m['n']!r}")
            return cls
        if tag == "h":
            return self._proxy(int(m["h"]), str(m.get("k", "object")), str(m.get("n", "?")))
        if tag == "mine":
            return self._local(int(m["h"]))
        if tag in ("merr", "ctl", "bexc", "lerr", "pverr"):
            return self.decode_exc(m, depth)
        raise WireError(f"unknown tag {tag!r}")

    def decode_exc(self, m: Any, depth: int = 0) -> BaseException:
        """The exception encoded by :meth:`Encoder.encode_exc` (never raises)."""
        try:
            tag = m.get("t")
            if tag == "merr":
                cls = resolve_error_class(m["c"])
                attrs = self.decode(m["a"], depth + 1)
                if isinstance(attrs, dict) and issubclass(cls, Exception):
                    return cls(**{str(k): v for k, v in attrs.items()})
            if tag == "ctl":
                cls = resolve_class(m["c"])
                if issubclass(cls, BaseException) and not issubclass(cls, Exception):
                    e = cls.__new__(cls)
                    e.args = tuple(self.decode(m["args"], depth + 1))
                    for k, v in dict(self.decode(m["a"], depth + 1)).items():
                        setattr(e, str(k), v)
                    return e
            if tag == "pverr":
                from pydantic_core import PydanticCustomError, ValidationError

                errs = self.decode(m["errs"], depth + 1)
                details = [{"type": PydanticCustomError(str(x["type"])[:60],
                                                        str(x["msg"]).replace("{", "(")
                                                        .replace("}", ")")),
                            "loc": tuple(x["loc"] if isinstance(x["loc"], list) else ()),
                            "input": None} for x in errs if isinstance(x, dict)]
                return ValidationError.from_exception_data(str(m.get("title", "model"))[:100],
                                                           details)
            if tag == "bexc":
                cls = getattr(builtins, str(m["n"]), None)
                if (isinstance(cls, type) and issubclass(cls, BaseException)
                        and not issubclass(cls, _EXITS)):
                    args = self.decode(m["args"], depth + 1)
                    try:
                        return cls(*args)
                    except Exception:
                        return cls(*[str(a) for a in args][:1])
            return LearnerError(str(m.get("n", "error"))[:100], str(m.get("m", ""))[:500])
        except Exception as exc:
            return LearnerError("UndecodableError", f"{type(exc).__name__}: {exc}"[:200])


def _build_dataclass(cls: type, values: dict[str, Any]) -> Any:
    names = {f.name: f for f in dataclasses.fields(cls)}
    unknown = set(values) - set(names)
    if unknown:
        raise WireError(f"{cls.__qualname__} has no field(s) {sorted(unknown)}")
    init = {k: v for k, v in values.items() if names[k].init}
    built = cls(**init)
    for k, v in values.items():
        if not names[k].init:
            object.__setattr__(built, k, v)
    return built


def _fill(obj: Any, built: Any) -> None:
    """Make the (already registered) `obj` a copy of `built`, field by field."""
    state = getattr(built, "__dict__", None)
    if state is not None:
        object.__setattr__(obj, "__dict__", state)  # noqa: PLC2801
    for f in dataclasses.fields(built):
        object.__setattr__(obj, f.name, getattr(built, f.name))


def apply_copy_back(obj: Any, body: Any, dec: Decoder) -> None:
    """Make the caller's original `obj` show what the callee changed in place (`body` comes from
    :meth:`Encoder.body`). Immutable values are left alone."""
    t = type(obj)
    if t is list:
        obj[:] = [dec.decode(x) for x in body]
    elif t is dict:
        new = {dec.decode(k): dec.decode(x) for k, x in body}
        obj.clear()
        obj.update(new)
    elif t is set:
        new_s = {dec.decode(x) for x in body}
        obj.clear()
        obj.update(new_s)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        names = {f.name for f in dataclasses.fields(obj)}
        for k, x in body:
            if k in names:
                object.__setattr__(obj, k, dec.decode(x))
    elif _is_pydantic(obj):
        for k, x in body:
            if k in type(obj).model_fields:
                obj.__dict__[k] = dec.decode(x)
