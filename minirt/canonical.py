"""Canonical JSON and digests: one byte string per value, so one digest per meaning.

Invariant: two values get the same digest if and only if they are equal as JSON data after
normalisation: object keys sorted, strings in Unicode NFC, no insignificant whitespace, integers
as integers, floats in their shortest round-trip form. ``1`` and ``1.0`` are *different* values
(an amount of 1 and an amount of 1.0 are not silently merged), NaN and infinities are refused, and
so are types JSON cannot carry (sets, bytes, arbitrary objects), instead of being stringified.

Used by the journal (event digests, the hash chain), idempotency (effect keys bound to the
payload) and approvals (the digest of the exact reviewed effect).
"""

from __future__ import annotations

import hashlib
import json
import math
import unicodedata
from enum import Enum
from typing import Any

from .errors import MinirtError


class NotCanonical(MinirtError):
    """A value cannot be put in canonical form (NaN, infinity, a set, bytes, an unknown object).

    Raised before anything is written or sent; not a journal corruption.
    """

    fields = ("path", "reason")
    template = "value at {path} is not canonical JSON: {reason}"


def normalise(value: Any, path: str = "$") -> Any:
    """Return plain JSON data (dict/list/str/int/float/bool/None) with strings in NFC form."""
    if hasattr(value, "model_dump") and callable(value.model_dump):  # pydantic models
        return normalise(value.model_dump(mode="json"), path)
    if isinstance(value, Enum):
        return normalise(value.value, path)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotCanonical(path=path, reason=f"{value!r} has no JSON form")
        return float(value)
    if isinstance(value, str):
        return unicodedata.normalize("NFC", str(value))
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise NotCanonical(path=path, reason=f"object key {k!r} is not a string")
            nk = unicodedata.normalize("NFC", str(k))
            if nk in out:
                raise NotCanonical(path=path, reason=f"two keys normalise to {nk!r}")
            out[nk] = normalise(v, f"{path}.{nk}")
        return out
    if isinstance(value, (list, tuple)):
        return [normalise(v, f"{path}[{i}]") for i, v in enumerate(value)]
    raise NotCanonical(path=path, reason=f"type {type(value).__name__} is not JSON data")


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value`` (see the module docstring)."""
    return json.dumps(
        normalise(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
        allow_nan=False,
    )


def canonical_bytes(value: Any) -> bytes:
    return canonical_json(value).encode("utf-8")


def digest(value: Any) -> str:
    """``sha256:`` + hex digest of the canonical JSON of ``value``."""
    return "sha256:" + hashlib.sha256(canonical_bytes(value)).hexdigest()


def digest_bytes(data: bytes) -> str:
    """``sha256:`` + hex digest of raw bytes (artifacts)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()
