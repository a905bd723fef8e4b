"""Run ids: which names the runtime accepts for a run, checked before anything is journaled.

A run id is the caller's idempotency key for a whole run: starting the same id twice is
get-or-create. So an id that is empty, blank or padded with whitespace, that holds a control
character or a lone surrogate (no UTF-8 form: no store can even look it up), or that is longer
than :data:`MAX_RUN_ID_LENGTH` is refused with :class:`InvalidRunId`; it is never replaced by a
generated one (a retried submission whose id went missing would otherwise run, and charge, twice).

Guarantees: :func:`check_run_id` is pure and raises only :class:`InvalidRunId`. Does not: decide
whether the id is *unique* (the store does, see :class:`minirt.run.DuplicateRun`), or normalise
it (``"café"`` in NFC and NFD are two different ids; the check refuses neither).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from .errors import MinirtError

#: The longest run id accepted, in characters.
MAX_RUN_ID_LENGTH = 200


class InvalidRunId(MinirtError):
    """A run id the runtime refuses (see the module docstring). Nothing was written."""

    fields = ("run_id", "reason")
    template = "invalid run id {run_id}: {reason}"


def check_run_id(run_id: Any) -> str:
    """Return ``run_id`` if it is acceptable, else raise :class:`InvalidRunId`.

    The error carries the id as ``ascii()`` text, so printing it never fails."""
    shown = ascii(run_id)[:80]
    if type(run_id) is not str:
        raise InvalidRunId(run_id=shown, reason=f"a run id is a str, not {type(run_id).__name__}")
    if not run_id.strip():
        raise InvalidRunId(run_id=shown, reason="empty or only whitespace")
    if run_id != run_id.strip():
        raise InvalidRunId(run_id=shown, reason="leading or trailing whitespace")
    if len(run_id) > MAX_RUN_ID_LENGTH:
        raise InvalidRunId(run_id=shown, reason=f"{len(run_id)} characters, at most "
                                                f"{MAX_RUN_ID_LENGTH}")
    if not run_id.isascii():
        for i, ch in enumerate(run_id):
            if unicodedata.category(ch) == "Cs":
                raise InvalidRunId(run_id=shown, reason=f"a lone surrogate at index {i}")
    for i, ch in enumerate(run_id):
        if unicodedata.category(ch) == "Cc":
            raise InvalidRunId(run_id=shown, reason=f"control character {ch!r} at index {i}")
    return run_id
