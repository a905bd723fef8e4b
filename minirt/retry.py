"""Retry policies: what a run does when a tool *answered* with an error.

Two kinds of failure are kept apart (see :func:`minirt.dispatch.settle`):

- an **answered** error: the tool function raised (a ``ValueError``, a
  :class:`~minirt.errors.ToolError`, any exception that is not a lost answer). The provider said
  something; the call is settled. It follows the tool's :class:`RetryPolicy` (or the runtime's
  default, or :data:`NO_RETRY`): another attempt after a durable wait, or the error is recorded
  as the call's outcome (``tool_error``) and raised in the workflow.
- an **unknown** outcome: :class:`~minirt.tools.OutcomeUnknown`, or a ``TimeoutError`` /
  ``ConnectionError`` from a tool with an outside effect (:data:`UNKNOWN_EXCEPTIONS`). Nobody
  knows whether the effect happened; that goes to reconciliation
  (:func:`minirt.dispatch.reconcile`), never to the retry policy.

How a retry is journaled: the failed attempt is a ``retry_scheduled`` event at the call's step
position (the error, the attempt number, the chosen ``delay`` and the absolute ``retry_at``),
committed together with the kv ``timer:retry:<step>:<n>`` that :func:`minirt.timers.timer_kv`
builds. If the wait
is not over, the run parks (WAITING, no lease held); the due-timer query
(:func:`minirt.timers.fire_due`) signals ``retry:<step>:<n>`` and any worker resumes it. The
next attempt is an ``attempt`` event (same effect key) followed by the dispatch.

Invariants: the delay is chosen once, when the attempt fails, and replayed from the journal
(jitter never changes on replay); the attempt count is the number of ``retry_scheduled`` events
recorded at the position, so a crash during the wait resumes that wait and never starts a new
count. Guarantees: at most ``attempts`` answered attempts of one logical call, all with one effect
key; a non-retryable error is recorded at its first answer. Not guaranteed: that the retry fires
on time (it fires at the first due-timer query after ``retry_at``, like any timer); a retry
inside a fan-out wave parks the whole run (after its siblings are recorded), and the wave's
retries are sent one by one, not in parallel.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import MinirtError
from .journal import Position, new_event
from .kinds import KIND
from .timers import Parked, timer_kv

if TYPE_CHECKING:
    from .runtime import Context
    from .tools import Tool, ToolCall

#: Exceptions that mean the answer was lost, not given (for a tool with an outside effect).
UNKNOWN_EXCEPTIONS: tuple[type[BaseException], ...] = (TimeoutError, ConnectionError)


class RetryPolicyInvalid(MinirtError):
    """A :class:`RetryPolicy` field out of range (checked when the policy is built)."""

    fields = ("field", "value", "reason")
    template = "RetryPolicy({field}={value!r}) is invalid: {reason}"


def _number(name: str, value: Any, *, low: float, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RetryPolicyInvalid(field=name, value=value, reason="must be a number")
    if not (low <= value <= high) or math.isnan(value) or math.isinf(value):
        raise RetryPolicyInvalid(field=name, value=value,
                                 reason=f"must be finite, between {low} and {high}")
    return float(value)


@dataclass(frozen=True)
class RetryPolicy:
    """How many times an answered error is tried again, and how long the run waits between.

    ``attempts`` counts every attempt, the first included (1: never retried). The wait after the
    ``n``-th failed attempt is ``min(max_interval, initial_interval * backoff ** (n - 1))``,
    shortened by up to ``jitter`` (a fraction, 0 to 1) of itself. ``non_retryable`` lists
    exception types (or their names, for errors read back from a journal) recorded at once.
    """

    attempts: int = 1
    initial_interval: float = 1.0
    backoff: float = 2.0
    max_interval: float = 60.0
    jitter: float = 0.0
    non_retryable: tuple[type[BaseException] | str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.attempts, bool) or not isinstance(self.attempts, int) \
                or self.attempts < 1:
            raise RetryPolicyInvalid(field="attempts", value=self.attempts,
                                     reason="must be an int >= 1 (1: no retry)")
        _number("initial_interval", self.initial_interval, low=0.0)
        _number("backoff", self.backoff, low=1.0)
        _number("max_interval", self.max_interval, low=0.0)
        _number("jitter", self.jitter, low=0.0, high=1.0)
        if self.max_interval < self.initial_interval:
            raise RetryPolicyInvalid(field="max_interval", value=self.max_interval,
                                     reason="must be >= initial_interval")
        items = self.non_retryable
        if isinstance(items, str | type) or not isinstance(items, Iterable):
            raise RetryPolicyInvalid(field="non_retryable", value=items,
                                     reason="must be a tuple of exception types or names")
        items = tuple(items)
        for item in items:
            if not (isinstance(item, str) or (isinstance(item, type)
                                              and issubclass(item, BaseException))):
                raise RetryPolicyInvalid(field="non_retryable", value=item,
                                         reason="each entry is an exception type or its name")
        object.__setattr__(self, "non_retryable", items)

    def retryable(self, exc: BaseException) -> bool:
        """Whether ``exc`` (an answered error) may be tried again under this policy."""
        names = {c.__name__ for c in type(exc).__mro__}
        type_name = getattr(exc, "type_name", None)  # a RecordedError names the original type
        if isinstance(type_name, str):
            names.add(type_name)
        for item in self.non_retryable:
            if isinstance(item, str):
                if item in names:
                    return False
            elif isinstance(exc, item):
                return False
        return True

    def delay(self, failed: int, seed: str) -> float:
        """The wait after the ``failed``-th attempt failed. The jitter is drawn from ``seed``
        (the effect key) and ``failed``, and journaled by the caller, so replay never redraws."""
        base = min(self.max_interval,
                   self.initial_interval * self.backoff ** min(failed - 1, 1000))
        if not self.jitter or not base:
            return base
        h = hashlib.sha256(f"{seed}:{failed}".encode("utf-8", "backslashreplace")).digest()
        u = int.from_bytes(h[:8], "big") / 2.0**64
        return base * (1.0 - self.jitter * u)


#: No retry: an answered error is recorded at once (the default without a policy).
NO_RETRY = RetryPolicy()


def policy_for(ctx: Context, tool: Tool) -> RetryPolicy:
    """The tool's own ``retry`` policy, else the runtime's default, else :data:`NO_RETRY`."""
    own = getattr(tool, "retry", None)
    if isinstance(own, RetryPolicy):
        return own
    default = getattr(ctx.runtime, "retry", None)
    return default if isinstance(default, RetryPolicy) else NO_RETRY


def failed_attempts(pos: Position | None) -> int:
    """How many answered attempts at this position failed and were scheduled for a retry."""
    if pos is None:
        return 0
    return sum(1 for e in pos.extra if e.kind == KIND.RETRY_SCHEDULED)


def timer_name(step: int, failed: int) -> str:
    """The signal (and ``timer:`` kv) name of the wait after the ``failed``-th attempt."""
    return f"retry:{step}:{failed}"


def pending(ctx: Context, pos: Position) -> tuple[str, float] | None:
    """A recorded retry wait not yet followed by its attempt: (timer name, retry_at), or None."""
    last = None
    for e in pos.extra:
        if e.kind == KIND.RETRY_SCHEDULED:
            last = e
        elif e.kind == KIND.ATTEMPT and last is not None and e.seq > last.seq:
            last = None
    if last is None:
        return None
    rec = ctx.journal.payload(last)
    return str(rec["timer"]), float(rec["retry_at"])


def answered(ctx: Context, tool: Tool, call: ToolCall, err: MinirtError,
             live: BaseException) -> bool:
    """Whether the answered error ``live`` (recorded as ``err``) gets another attempt; if so,
    journal the failed attempt with its durable timer (the caller then calls :func:`wait`)."""
    policy = policy_for(ctx, tool)
    failed = failed_attempts(ctx.journal.at(call.step)) + 1
    if failed >= policy.attempts or not policy.retryable(live):
        return False
    rt = ctx.runtime
    delay = policy.delay(failed, call.effect_key)
    now = ctx.now_raw()
    name = timer_name(call.step, failed)
    ctx.append(new_event(rt.store, KIND.RETRY_SCHEDULED, call.step,
                         {"effect_key": call.effect_key, "attempt": failed,
                          "error": err.to_record(), "delay": delay, "retry_at": now + delay,
                          "timer": name}, now),
               kv=timer_kv(name, now + delay))
    return True


def wait(ctx: Context, call: ToolCall) -> int:
    """Continue the recorded retry wait of ``call``: park the run (:class:`~minirt.timers.Parked`)
    until it is due; then return how many attempts failed so far (the caller journals the next
    ``attempt`` and dispatches it with the same key: :func:`minirt.dispatch.retry_attempt`)."""
    rt = ctx.runtime
    pos = ctx.journal.at(call.step)
    found = None if pos is None else pending(ctx, pos)
    if found is None:
        raise RetryPolicyInvalid(field="wait", value=call.step,
                                 reason="no retry wait is recorded at this position")
    name, at = found
    if rt.store.kv_get(ctx.run_id, "signal:" + name) is None and rt.clock.now() < at:
        raise Parked(name)
    return failed_attempts(pos)
