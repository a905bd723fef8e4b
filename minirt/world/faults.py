"""Faults a provider injects into its own answers, on demand.

These are the *world's* failures, not the runtime's crash points (:mod:`minirt.faults`): the
agent's process stays alive, and what changes is what comes back over the wire.

============================== ============================================================
fault                          what the caller sees, and what happened at the provider
============================== ============================================================
``drop_response_after_commit`` no response (:class:`ResponseLost`); the effect **happened**
``timeout_before_commit``      no response (:class:`RequestTimedOut`); nothing happened
``error_5xx``                  :class:`ProviderUnavailable` (503); nothing happened
``slow``                       the normal answer, ``delay_for`` seconds late (the in-process
                               provider moves its fake clock; the HTTP server really sleeps,
                               so a client with a shorter timeout sees a timeout while the
                               effect still happens)
============================== ============================================================

Invariant: an injected fault fires at most ``times`` times, each on one matching call, and only
on the operation it names (``op=None`` matches every operation that changes the world, never a
lookup: a lookup fails only when asked for by name with ``op="lookup"``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from .errors import UnknownFault

FAULTS = ("drop_response_after_commit", "timeout_before_commit", "error_5xx", "slow")
LOOKUP_OPS = frozenset({"lookup", "get", "info"})


@dataclass
class Injection:
    """One armed fault."""

    fault: str
    times: int  # Invariant: > 0 while armed; the injection is dropped when it reaches 0
    op: str | None = None  # None: any operation with an effect
    delay_for: float = 0.0  # seconds: the delay of ``slow``, the hang before ``timeout_*``


class ProviderFaults:
    """The faults armed on one provider. Thread-safe (the HTTP server calls from many threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._armed: list[Injection] = []

    def inject(self, fault: str, *, times: int = 1, op: str | None = None,
               delay_for: float = 0.0) -> None:
        """Arm ``fault`` for the next ``times`` matching calls (see the module docstring)."""
        if fault not in FAULTS:
            raise UnknownFault(fault=fault, known=", ".join(FAULTS))
        if int(times) < 1:
            raise ValueError("times must be at least 1")
        with self._lock:
            self._armed.append(Injection(fault, int(times), op, float(delay_for)))

    def take(self, op: str) -> Injection | None:
        """The first armed injection matching ``op``, consumed once; None if none matches."""
        with self._lock:
            for inj in self._armed:
                if inj.op == op or (inj.op is None and op not in LOOKUP_OPS):
                    inj.times -= 1
                    if inj.times == 0:
                        self._armed.remove(inj)
                    return Injection(inj.fault, 1, op, inj.delay_for)
        return None

    def clear(self) -> None:
        """Disarm everything (idempotent)."""
        with self._lock:
            self._armed.clear()

    @property
    def armed(self) -> list[Injection]:
        with self._lock:
            return [Injection(i.fault, i.times, i.op, i.delay_for) for i in self._armed]
