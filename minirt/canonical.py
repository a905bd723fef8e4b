"""Canonical JSON and digests: one byte string per value, so one digest per meaning.

Invariant: two values get the same digest if and only if they are equal as JSON data after
normalisation: object keys sorted, strings in Unicode NFC, no insignificant whitespace, integers
as integers, floats in their shortest round-trip form. ``1`` and ``1.0`` are *different* values
(an amount of 1 and an amount of 1.0 are not silently merged), NaN and infinities are refused, and
so are types JSON cannot carry (sets, bytes, arbitrary objects), instead of being stringified.

Hostile input gets :class:`NotCanonical` naming the path, never a raw ``ValueError``,
``UnicodeEncodeError`` or ``RecursionError`` from deeper down: a string holding a lone surrogate
(it has no UTF-8 form, so no digest), an integer of more than :data:`MAX_INT_DIGITS` digits
(Python cannot even print it by default), and data nested deeper than :data:`MAX_DEPTH`.

Used by the journal (event digests, the hash chain), idempotency (effect keys bound to the
payload) and approvals (the digest of the exact reviewed effect).
"""

from __future__ import annotations

import hashlib
import json
import math
import reprlib
import unicodedata
from collections.abc import Callable
from enum import Enum
from typing import Any

from .errors import MinirtError

#: Containers nested deeper than this are refused by :func:`normalise` (far below Python's
#: recursion limit): the runtime normalises every value it records with this bound.
MAX_DEPTH = 100
#: :func:`canonical_json` and :func:`digest` allow this many more levels, for the payloads that
#: wrap a recorded value (``{"result": value}``...): a value accepted once stays accepted there.
WRAP_DEPTH = 16
#: Integers with more decimal digits than this are refused (Python's own default str() limit).
MAX_INT_DIGITS = 4300
_INT_BOUND = 10**MAX_INT_DIGITS


class NotCanonical(MinirtError):
    """A value cannot be put in canonical form (NaN, infinity, a set, bytes, an unknown object).

    Raised before anything is written or sent; not a journal corruption.
    """

    fields = ("path", "reason")
    template = "value at {path} is not canonical JSON: {reason}"


def normalise(value: Any, path: str = "$", _depth: int = 0, _limit: int = MAX_DEPTH) -> Any:
    """Return plain JSON data (dict/list/str/int/float/bool/None) with strings in NFC form.

    Subclasses of str, int, float, dict and list come back as the plain base type, so an object
    with an overridden ``__eq__`` or ``__str__`` cannot survive normalisation.
    """
    t = type(value)
    # Exact built-in types first: this function runs on every payload the journal writes.
    if t is str:
        return value if value.isascii() else _nfc(value, path)
    if t is bool or value is None:
        return value
    if t is int:
        if -_INT_BOUND < value < _INT_BOUND:
            return value
        raise NotCanonical(path=path, reason=f"an integer of more than {MAX_INT_DIGITS} digits")
    if t is float:
        if not math.isfinite(value):
            raise NotCanonical(path=path, reason=f"{value!r} has no JSON form")
        return value
    if _depth >= _limit and (t is dict or t is list or t is tuple):
        raise NotCanonical(path=path, reason=f"nested deeper than {_limit} levels")
    if t is dict:
        return _normalise_dict(value, path, _depth + 1, _limit)
    if t is list or t is tuple:
        return _normalise_list(value, path, _depth + 1, _limit)
    return _normalise_other(value, path, _depth, _limit)


_finite = math.isfinite


def _normalise_list(value: list[Any] | tuple[Any, ...], path: str, depth: int, limit: int
                    ) -> list[Any]:
    out: list[Any] = []
    append = out.append
    for i, v in enumerate(value):
        t = type(v)
        if ((t is str and v.isascii()) or t is bool or v is None
                or (t is int and -_INT_BOUND < v < _INT_BOUND) or (t is float and _finite(v))):
            append(v)
        else:
            append(normalise(v, f"{path}[{i}]", depth, limit))
    return out


def _nfc(text: str, path: str) -> str:
    """NFC form of a non-ASCII string; a lone surrogate (no UTF-8 form) is refused."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise NotCanonical(path=path, reason=f"a lone surrogate {text[exc.start]!r} at "
                                             f"index {exc.start} has no UTF-8 form") from None
    return unicodedata.normalize("NFC", text)


def _normalise_dict(value: dict[Any, Any], path: str, depth: int, limit: int
                    ) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in value.items():
        if type(k) is str and k.isascii():
            nk = k
        else:
            if not isinstance(k, str):
                raise NotCanonical(path=path, reason=f"object key {k!r} is not a string")
            nk = str.__str__(k)
            if not nk.isascii():
                nk = _nfc(nk, f"{path}.{ascii(nk)}")
        if nk in out:
            raise NotCanonical(path=path, reason=f"two keys normalise to {nk!r}")
        t = type(v)
        if ((t is str and v.isascii()) or t is bool or v is None
                or (t is int and -_INT_BOUND < v < _INT_BOUND) or (t is float and _finite(v))):
            out[nk] = v
        else:
            out[nk] = normalise(v, f"{path}.{nk}", depth, limit)
    return out


def _normalise_other(value: Any, path: str, depth: int, limit: int) -> Any:
    if isinstance(value, Enum):
        return normalise(value.value, path, depth, limit)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return normalise(int.__index__(value), path, depth, limit)
    if isinstance(value, float):
        return normalise(float.__float__(value), path, depth, limit)
    if isinstance(value, str):
        return normalise(str.__str__(value), path, depth, limit)
    if isinstance(value, dict):
        return normalise(dict(value), path, depth, limit)
    if isinstance(value, (list, tuple)):
        return normalise(list(value), path, depth, limit)
    dump = getattr(type(value), "model_dump", None)  # pydantic models
    if callable(dump):
        return normalise(value.model_dump(mode="json"), path, depth, limit)
    raise NotCanonical(path=path, reason=f"type {type(value).__name__} is not JSON data")


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                            allow_nan=False)


def _one_encoder() -> Callable[[Any], str]:
    """``_ENCODER.encode`` without building a new C encoder on every call (what
    ``JSONEncoder.encode`` does): one C encoder made once, with the same options. It has no
    circular-reference markers, which is safe here only because it encodes nothing but the output
    of :func:`normalise` (fresh containers, a tree at most ``MAX_DEPTH + WRAP_DEPTH`` deep) or
    payloads a caller built from such parts (``normalised=True``). Without the C accelerator,
    the plain ``encode``."""
    make = getattr(json.encoder, "c_make_encoder", None)
    string = getattr(json.encoder, "c_encode_basestring", None)
    if make is None or string is None:
        return _ENCODER.encode
    encoder = make(None, _ENCODER.default, string, None, ":", ",", True, False, False)
    join = "".join

    def encode(value: Any) -> str:
        if type(value) is str:
            return string(value)
        return join(encoder(value, 0))

    return encode


_encode = _one_encoder()


def canonical_json(value: Any, *, normalised: bool = False) -> str:
    """The canonical JSON text of ``value`` (see the module docstring).

    ``normalised=True`` promises that ``value`` already came out of :func:`normalise` (the
    runtime's hot path builds payloads from normalised parts) and skips the second pass.
    """
    return _encode(value if normalised else normalise(value, _limit=MAX_DEPTH + WRAP_DEPTH))


#: The string encoder ``_encode`` uses (``ensure_ascii=False``): the same escapes, byte for byte.
_string = getattr(json.encoder, "c_encode_basestring", None) or json.encoder.py_encode_basestring
_int_repr, _float_repr = int.__repr__, float.__repr__


def flat_json(value: Any) -> str | None:
    """:func:`canonical_json` of a *flat* dict, built without the normalise pass and the
    encoder call, or None when ``value`` is not one (the caller then uses
    :func:`canonical_json`, which decides). Flat: a plain ``dict`` whose keys are plain ASCII
    ``str`` and whose values are plain ASCII ``str``, ``int`` (within :data:`MAX_INT_DIGITS`
    digits), ``bool``, ``None`` or finite ``float``: the usual keyword arguments of a tool call.

    For such a dict :func:`normalise` returns an equal dict (nothing to convert: no subclass,
    no NFC change) and the encoder writes each value with these same functions (the string
    escapes of ``_encode``, ``int.__repr__``, ``float.__repr__``), the items sorted by key
    (keys are unique, so sorting the ``(key, text)`` pairs orders them by key alone): the text
    is the same, character for character (tests/test_canonical_flat.py compares them)."""
    if type(value) is not dict:
        return None
    parts: list[tuple[str, str]] = []
    append = parts.append
    for k, v in value.items():
        if type(k) is not str or not k.isascii():
            return None
        t = type(v)
        if t is int:
            if not -_INT_BOUND < v < _INT_BOUND:
                return None
            append((k, _int_repr(v)))
        elif t is str:
            if not v.isascii():
                return None
            append((k, _string(v)))
        elif v is None:
            append((k, "null"))
        elif t is bool:
            append((k, "true" if v else "false"))
        elif t is float:
            if not _finite(v):
                return None
            append((k, _float_repr(v)))
        else:
            return None
    if len(parts) == 1:
        k, text = parts[0]
        return f"{{{_string(k)}:{text}}}"
    parts.sort()
    return "{" + ",".join([f"{_string(k)}:{text}" for k, text in parts]) + "}"


def canonical_bytes(value: Any) -> bytes:
    return canonical_json(value).encode("utf-8")


def digest(value: Any, *, normalised: bool = False) -> str:
    """``sha256:`` + hex digest of the canonical JSON of ``value``."""
    text = canonical_json(value, normalised=normalised)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def digest_text(text: str) -> str:
    """``sha256:`` + hex digest of a canonical JSON text already encoded (what :func:`digest`
    gives for the value the text encodes)."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def encode_normalised(value: Any) -> str:
    """The canonical JSON text of a value that came out of :func:`normalise` (no second pass:
    ``canonical_json(value, normalised=True)``)."""
    return _encode(value)


def digest_bytes(data: bytes) -> str:
    """``sha256:`` + hex digest of raw bytes (artifacts)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


class _BoundedRepr(reprlib.Repr):
    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = MAX_DEPTH
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = self.maxfrozenset = 10**6
        self.maxstring = self.maxother = self.maxlong = 10**6

    def repr_int(self, x: int, level: int) -> str:
        return hex(x)  # no digit limit for a power-of-two base


def bounded_repr(value: Any) -> str:
    """A ``repr`` that cannot fail on data: nesting cut at :data:`MAX_DEPTH`, huge integers in
    hex. For naming values that have no canonical form (their digest stays stable)."""
    try:
        return repr(value)
    except (RecursionError, ValueError):
        return _BoundedRepr().repr(value)
