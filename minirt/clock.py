"""Clocks. Every time minirt reads is injected, so tests and drills are deterministic.

``*_at`` names are absolute times (seconds) read from a clock; ``*_for`` / ``*_after`` are
durations relative to now.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol

from .errors import MinirtError


class ClockBackwards(MinirtError, ValueError):
    """A :class:`FakeClock` was asked to move backwards (a negative tick or advance, or a set
    to an earlier time). Also a ``ValueError``, as it was before it had a name."""

    fields = ("what", "value", "now")
    template = "a FakeClock never goes backwards: {what} {value!r} (the clock reads {now!r})"


class Clock(Protocol):
    def now(self) -> float: ...


class SystemClock:
    """Wall-clock time (``time.time()``)."""

    def now(self) -> float:
        return time.time()


class FakeClock:
    """A clock that moves only when told to. Safe to share between runtimes in one test.

    ``tick`` (seconds, default 0): how far the clock moves after each reading, so that events
    written one after another get distinct times, as on a real clock (a fake clock standing still
    draws a race's winner and its cancelled losers ending at the same instant)."""

    def __init__(self, start: float = 1_000_000.0, *, tick: float = 0.0) -> None:
        if tick < 0:
            raise ClockBackwards(what="tick", value=tick, now=float(start))
        self._now = float(start)
        self.tick = float(tick)
        self._lock = threading.Lock() if tick else None  # a still clock stays copyable

    def now(self) -> float:
        if self._lock is None:
            return self._now
        with self._lock:
            now, self._now = self._now, self._now + self.tick
            return now

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` (never backwards) and return the new time."""
        if seconds < 0:
            raise ClockBackwards(what="advance by", value=seconds, now=self._now)
        self._now += seconds
        return self._now

    def set(self, at: float) -> None:
        if at < self._now:
            raise ClockBackwards(what="set to", value=at, now=self._now)
        self._now = float(at)
