"""Tool idempotency: one effect key per logical operation, bound to its payload.

An **attempt** is one transport try (a request on the wire). A **logical operation** is what the
agent meant ("charge order 42 for 30 EUR"). Retries make many attempts of one operation; the
provider must see the same key on every attempt and apply the effect once.

Invariant: :func:`effect_key` depends only on the run id, the step position, the tool and the
canonical digest of the arguments, never on the attempt, the worker or the time. So a retry after a
crash, by another worker, sends the same key; and the same key can never stand for two different
payloads.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .canonical import digest


def effect_key(run_id: str, step: int, tool: str, args: Any) -> str:
    """The effect key of a logical tool call: ``ek_`` + 32 hex characters.

    Derived from ``(run_id, step, tool, digest(args))``; the same inputs always give the same key.
    """
    material = "\x1f".join([run_id, str(int(step)), tool, digest(args)])
    return "ek_" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]
