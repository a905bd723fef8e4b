"""Durable time: ``ctx.sleep``, ``ctx.sleep_until`` and ``ctx.wait_for(name, timeout=...)``.

A durable timer is a wait (module 03's ``wait`` position) that a clock can end. The position
journals its due time (``until``) and, in the same write, the run's kv ``timer:<name>``; then the
run leaves the worker (WAITING, no lease held, like any wait). :func:`fire_due`, the due-timer
query, finds WAITING runs whose timer is due by the runtime's clock and delivers the timer's
signal through :meth:`~minirt.runtime.Runtime.signal`, which wakes the run (PENDING) for any
worker; :meth:`Runtime.work` runs it (:func:`fire_due_throttled`) at most every
:data:`FIRE_EVERY` seconds between claims, and always before it finds nothing to claim. A sleep's signal is ``timer:<step>``; a
``wait_for(name, timeout=...)``'s is ``name`` itself, so the real signal and the deadline race
for the same first-wins slot: exactly one of them is the wait's outcome, decided durably.

Invariants: the due time is computed once, when the position is first reached, and replayed
from the journal (a resumed run never sleeps again from its restart time); a timer's outcome is
journaled (``wait_result`` with ``fired_at``) like any signal's, so a replay returns at once.
Guarantees: a timer survives restarts (it lives in the store); it never fires before ``until``
by the clock of whoever fires it; a timed-out wait raises :class:`WaitTimedOut` in the workflow,
on replay too. Not guaranteed: firing on time (it fires at the first ``fire_due`` after the due
time: a worker's poll, or a claim); the query scans WAITING runs (no due-time index yet), so it
costs one kv read per waiting run.
"""

from __future__ import annotations

import json
import weakref
from typing import TYPE_CHECKING, Any

from .canonical import canonical_json, normalise
from .errors import MinirtError
from .journal import new_event
from .kinds import EventKind
from .run import RunState

if TYPE_CHECKING:
    from .runtime import Context, Runtime

K_TIMER = "timer:"  # kv: timer:<signal name> -> due time (epoch seconds, JSON number)
TIMEOUT_MARK = "minirt_timeout"  # the payload key a fired wait_for deadline delivers


def timer_kv(name: str, due: float) -> dict[str, str]:
    """The kv that arms the durable timer ``name`` at ``due`` (epoch seconds), to commit with the
    event that starts the wait; this module owns the ``timer:`` keys and their format."""
    return {K_TIMER + name: canonical_json(due)}


class Parked(BaseException):  # noqa: N818 - control flow, like runtime.Suspend
    """Internal: the timer is not due and no signal came; the Context parks the run (it turns
    this into its ``Suspend``, so this module needs nothing of :mod:`minirt.runtime`)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class WaitTimedOut(MinirtError):
    """``ctx.wait_for(name, timeout=...)``: the deadline came before the signal."""

    fields = ("run_id", "name", "timeout_at", "fired_at")
    template = ("run {run_id}: no signal {name!r} before its deadline {timeout_at:.3f} "
                "(the timer fired at {fired_at:.3f})")


class TimerInvalid(MinirtError):
    """A sleep or timeout that is not a finite, non-negative number of seconds."""

    fields = ("what", "value")
    template = "{what} must be a finite number of seconds >= 0, not {value!r}"


def _seconds(what: str, value: Any) -> float:
    try:
        s = float(value)
    except (TypeError, ValueError):
        raise TimerInvalid(what=what, value=value) from None
    if not (s >= 0 and s != float("inf")):
        raise TimerInvalid(what=what, value=value)
    return s


def _wait(ctx: Context, name: str | None, *, until: Any, field: str) -> Any:
    """A wait position for signal ``name`` (None: ``timer:<step>``) that a timer ends at
    ``until()`` (called once, when the position is first reached)."""
    rt = ctx.runtime
    p, pos = ctx.claim_position()
    name = f"timer:{p}" if name is None else name
    if pos is not None:
        rec = ctx.journal.payload(pos.opening) if pos.opening else None
        if pos.opening is None or pos.opening.kind != EventKind.WAIT or rec.get("name") != name:
            raise ctx.diverged(p, pos.opening, f"wait for {name!r}")
        if pos.outcome is not None:
            ctx.positioned(p, "wait", name, True)
            return ctx.journal.payload(pos.outcome)["payload"]
        due = float(rec[field])
    else:
        due = float(until())
        ctx.append(new_event(rt.store, EventKind.WAIT, p, {"name": name, field: due},
                             ctx.now_raw()), kv=timer_kv(name, due))
    raw = rt.store.kv_get(ctx.run_id, "signal:" + name)
    if raw is None and rt.clock.now() >= due:  # due already: fire it here (first one wins)
        rt.signal(ctx.run_id, name, {TIMEOUT_MARK: True, "fired_at": rt.clock.now(),
                                     "due_at": due})
        raw = rt.store.kv_get(ctx.run_id, "signal:" + name)
    if raw is None:
        raise Parked(name)
    payload = normalise(json.loads(raw))
    ctx.append(new_event(rt.store, EventKind.WAIT_RESULT, p, {"name": name, "payload": payload},
                         ctx.now_raw()))
    ctx.positioned(p, "wait", name, False)
    return payload


def sleep_until(ctx: Context, at: float) -> None:
    """Sleep durably until the absolute time ``at`` (the runtime's clock)."""
    at = _seconds("sleep_until(at)", at)
    _wait(ctx, None, until=lambda: at, field="until")


def sleep(ctx: Context, seconds: float) -> None:
    """Sleep durably for ``seconds`` from when the position is first reached."""
    s = _seconds("sleep(seconds)", seconds)
    _wait(ctx, None, until=lambda: ctx.now_raw() + s, field="until")


def wait_for(ctx: Context, name: str, timeout: float) -> Any:
    """The signal ``name``'s payload, or :class:`WaitTimedOut` once ``timeout`` seconds passed."""
    s = _seconds("wait_for(timeout)", timeout)
    payload = _wait(ctx, name, until=lambda: ctx.now_raw() + s, field="timeout_at")
    if isinstance(payload, dict) and payload.get(TIMEOUT_MARK) is True:
        raise WaitTimedOut(run_id=ctx.run_id, name=name, timeout_at=payload["due_at"],
                           fired_at=payload["fired_at"])
    return payload


def due_at(rt: Runtime, run_id: str) -> float | None:
    """When the WAITING run's current wait ends by timer, or None (no timer, or not waiting)."""
    rec = rt.store.get_run(run_id)
    name = rec.run.detail.get("waiting_for")
    if rec.run.state is not RunState.WAITING or not name:
        return None
    raw = rt.store.kv_get(run_id, K_TIMER + str(name))
    return None if raw is None else float(json.loads(raw))


#: How often (seconds of the runtime's clock) a busy :meth:`Runtime.work` loop runs the
#: due-timer query between claims; an idle loop runs it before giving up, whatever the time.
FIRE_EVERY = 0.1
_last_fired: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()


def fire_due_throttled(rt: Runtime, *, idle: bool = False) -> list[str]:
    """:func:`fire_due` at most once per :data:`FIRE_EVERY` of ``rt``'s clock, or now if
    ``idle`` (nothing else was claimable). What :meth:`Runtime.work` calls."""
    now = rt.clock.now()
    last = _last_fired.get(rt)
    if not idle and last is not None and now - last < FIRE_EVERY:
        return []
    _last_fired[rt] = now
    return fire_due(rt)


def fire_due(rt: Runtime) -> list[str]:
    """The due-timer query: wake every WAITING run whose timer is due by ``rt.clock``; return
    their ids. Idempotent (a fired timer's signal is first-wins; a woken run is not WAITING)."""
    now = rt.clock.now()
    fired = []
    for rec in rt.store.list_runs([RunState.WAITING.value]):
        name = rec.run.detail.get("waiting_for")
        if not name:
            continue
        raw = rt.store.kv_get(rec.run.run_id, K_TIMER + str(name))
        if raw is None or float(json.loads(raw)) > now:
            continue
        rt.signal(rec.run.run_id, str(name), {TIMEOUT_MARK: True, "fired_at": now,
                                              "due_at": float(json.loads(raw))})
        fired.append(rec.run.run_id)
    return fired
