"""Times for people: absolute epoch seconds shown in the local zone, durations in words.

minirt stores every time as epoch seconds (a float from the runtime's clock). People read
``14:03:12`` and ``in 27 s`` better than ``1796123031.8``, so every operator-facing text (the
``LeaseHeld`` message, ``minirt runs``, ``minirt show``) goes through this module, while
``--json`` output keeps the epoch.

Invariant: the functions are pure given ``now`` and the process's local time zone (``TZ``); they
never read a clock themselves unless ``now`` is left out of :func:`relative`.
Guarantees: an absolute time is always shown with its zone abbreviation (``14:03:12 CET``), a
date when it is not today, and a duration rounded to the unit that matters (ms, s, min, h, d).
Not guaranteed: that the local zone is the one of the worker that wrote the time (leases use the
workers' clocks; see the README's PostgreSQL section).
"""

from __future__ import annotations

import time
from datetime import datetime


def duration(seconds: float) -> str:
    """``0.25`` -> ``"250 ms"``, ``27.4`` -> ``"27 s"``, ``150`` -> ``"2 min 30 s"``,
    ``7300`` -> ``"2 h 1 min"``, ``200000`` -> ``"2 d 7 h"``. Always non-negative text."""
    s = abs(float(seconds))
    if s < 1:
        return f"{s * 1000:.0f} ms"
    if s < 60:
        return f"{s:.0f} s" if s >= 10 else f"{s:.1f} s".replace(".0 s", " s")
    if s < 3600:
        m, r = divmod(round(s), 60)
        return f"{m} min {r} s" if r else f"{m} min"
    if s < 86400:
        h, r = divmod(round(s) // 60, 60)
        return f"{h} h {r} min" if r else f"{h} h"
    d, r = divmod(round(s) // 3600, 24)
    return f"{d} d {r} h" if r else f"{d} d"


def local(at: float, *, now: float | None = None) -> str:
    """``at`` (epoch seconds) in the local zone: ``14:03:12 CET`` today, else with the date
    (``2026-12-01 14:03:12 CET``). ``now`` decides what "today" is (default: the system clock)."""
    when = datetime.fromtimestamp(float(at)).astimezone()
    today = datetime.fromtimestamp(time.time() if now is None else float(now)).astimezone()
    text = when.strftime("%H:%M:%S") if when.date() == today.date() else \
        when.strftime("%Y-%m-%d %H:%M:%S")
    return f"{text} {when.tzname() or ''}".rstrip()


def relative(at: float, *, now: float | None = None) -> str:
    """``"in 27 s"`` or ``"3 min ago"``, from ``now`` (default: the system clock)."""
    delta = float(at) - (time.time() if now is None else float(now))
    return f"in {duration(delta)}" if delta >= 0 else f"{duration(delta)} ago"


def when(at: float | None, *, now: float | None = None) -> str:
    """Both at once, as every table shows it: ``"14:03:12 CET (in 27 s)"``; ``""`` for None."""
    if at is None:
        return ""
    return f"{local(at, now=now)} ({relative(at, now=now)})"
