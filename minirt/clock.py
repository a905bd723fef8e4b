"""Clocks. Every time minirt reads is injected, so tests and drills are deterministic.

``*_at`` names are absolute times (seconds) read from a clock; ``*_for`` / ``*_after`` are
durations relative to now.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...


class SystemClock:
    """Wall-clock time (``time.time()``)."""

    def now(self) -> float:
        return time.time()


class FakeClock:
    """A clock that moves only when told to. Safe to share between runtimes in one test."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self._now = float(start)

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` (never backwards) and return the new time."""
        if seconds < 0:
            raise ValueError("a FakeClock never goes backwards")
        self._now += seconds
        return self._now

    def set(self, at: float) -> None:
        if at < self._now:
            raise ValueError("a FakeClock never goes backwards")
        self._now = float(at)
