"""Resuming after a crash: wait out a dead worker's lease, then claim the run.

A worker that dies (SIGKILL, power loss) leaves its run RUNNING (or UNCERTAIN, CANCELLING) with
a lease that lapses ``lease_for`` seconds after its last journal write. Until then a claim raises
:class:`~minirt.run.LeaseHeld`, because nobody can tell a dead worker from a slow one. So
``rt.resume(run_id)`` right after a crash fails, on purpose; :func:`resume_waiting`
(``rt.resume(run_id, wait=True)``) sleeps until the lease lapses and claims then.

Invariant: it never claims a run before its lease has lapsed by the claimer's clock (the claim
is the same fenced ``claim`` transition as ever; this module only retries it), and it never
breaks a lease. Guarantees: a run whose holder is dead is claimed within one lease plus a
poll; a live holder that keeps renewing its lease is never taken over (the wait ends with
:class:`LeaseWaitTimedOut` at ``timeout``, naming the holder). Not guaranteed: that the holder
is really dead when its lease lapses (a paused worker's later writes are fenced out, its
in-flight tool call is not: see module 04).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from .clock import SystemClock
from .errors import MinirtError
from .run import LeaseHeld

if TYPE_CHECKING:
    from .runtime import RunOutcome, Runtime


class LeaseWaitTimedOut(MinirtError):
    """``resume(wait=True, timeout=...)`` gave up: the holder kept its lease (it is alive)."""

    fields = ("run_id", "holder", "waited_for")
    template = ("run {run_id}: still leased to {holder} after waiting {waited_for:.1f} s; that "
                "worker is alive and renewing its lease (stop it, or cancel the run)")


class CannotWait(MinirtError):
    """The runtime's clock cannot be waited on (a FakeClock without ``sleep``)."""

    fields = ("run_id", "clock")
    template = ("run {run_id}: cannot wait for a lease on a {clock} (give it a sleep(seconds) "
                "method, or advance it yourself and resume)")


def sleeper(rt: Runtime) -> Callable[[float], None] | None:
    """How to wait on ``rt``'s clock: its own ``sleep``, ``time.sleep`` for the system clock."""
    own = getattr(rt.clock, "sleep", None)
    if callable(own):
        return own
    return time.sleep if isinstance(rt.clock, SystemClock) else None


def resume_waiting(rt: Runtime, run_id: str, *, timeout: float | None = None,
                   poll_for: float = 0.05) -> RunOutcome:
    """``rt.run(run_id)``, retried until the lease that holds it lapses (or ``timeout``)."""
    started = rt.clock.now()
    while True:
        try:
            return rt.run(run_id)
        except LeaseHeld as held:
            sleep = sleeper(rt)
            if sleep is None:
                raise CannotWait(run_id=run_id, clock=type(rt.clock).__name__) from held
            now = rt.clock.now()
            if timeout is not None and now - started >= timeout:
                raise LeaseWaitTimedOut(run_id=run_id, holder=held.holder,
                                        waited_for=now - started) from held
            left = float(held.lease_expires_at) - now + poll_for
            if timeout is not None:
                left = min(left, started + timeout - now)
            sleep(max(left, poll_for))
