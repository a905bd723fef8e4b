"""What a reconciliation policy answers for an intent without an outcome.

A :class:`Resolution` is one of four :class:`Kind` s, and nothing else (an unknown kind is refused
with :class:`ResolutionInvalid` when the resolution is built, so a typo cannot be taken for
"unknown" further down):

- ``result``: the effect happened; ``value`` is its result (found by lookup, or decided);
- ``redispatch``: safe to send again with the same effect key;
- ``unknown``: nobody can tell; the run goes UNCERTAIN;
- ``not_found``: the provider has no effect under the key, and the call must NOT be sent again
  (what a cancellation look-up records: :mod:`minirt.cancel` never resends).

This module imports nothing of minirt but :mod:`minirt.errors`, so the runtime, the idempotency
policies and the fault harness can all use it without importing each other. Guarantees: the
string values are the ones the journal has always stored (``reconciled.resolution``). Not
guaranteed: that a policy's answer is right; only that it is one of these.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .errors import MinirtError


class Kind(StrEnum):
    RESULT = "result"
    REDISPATCH = "redispatch"
    UNKNOWN = "unknown"
    NOT_FOUND = "not_found"


class ResolutionInvalid(MinirtError):
    """A Resolution was built with a kind that is not a :class:`Kind`. Not an
    :class:`~minirt.journal.UnresolvedIntent` (that is a valid "unknown" answer)."""

    fields = ("kind", "known")
    template = "resolution kind {kind!r} is not one of {known}"


@dataclass(frozen=True)
class Resolution:
    """A reconciliation policy's answer for an intent without an outcome."""

    kind: Kind  # a str is accepted and converted (Resolution("result", value))
    value: Any = None  # the effect's result, for Kind.RESULT
    reason: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.kind, Kind):
            try:
                object.__setattr__(self, "kind", Kind(self.kind))
            except ValueError:
                raise ResolutionInvalid(kind=self.kind, known=[k.value for k in Kind]) from None
