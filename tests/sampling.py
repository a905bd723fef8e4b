"""Bounded sweeps: a reproducible, rotating sample of a long list of test cases.

Invariant: with ``--full-sweeps`` (``MINIRT_FULL_SWEEPS=1``, set by ``tests/conftest.py`` before
collection) every case runs; otherwise :func:`sample` keeps ``k`` cases per group, chosen by a
seed that is ``MINIRT_HONESTY_SEED`` if set, else today's UTC date, so every case gets its turn
over a few days of CI and a failing run can be reproduced exactly. It guarantees nothing about
which cases run on a given day beyond that; tests that must always run are not sampled.

:func:`one_of_each` bounds a crash sweep's SIGKILL half: every kind of fault point is killed in
every run, at one of its occurrences (rotating), instead of at every occurrence.
"""

from __future__ import annotations

import datetime
import os
import random
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
FULL_SWEEPS_ENV = "MINIRT_FULL_SWEEPS"


def full() -> bool:
    """True when every case should run (``--full-sweeps``)."""
    return os.environ.get(FULL_SWEEPS_ENV, "") == "1"


def seed() -> str:
    """The rotation seed: MINIRT_HONESTY_SEED, else today's UTC date."""
    return os.environ.get("MINIRT_HONESTY_SEED") or datetime.datetime.now(datetime.UTC).date(
    ).isoformat()


def sample(items: Sequence[T], k: int, group: str, name: Callable[[T], str] = str,
           *, everything: bool | None = None, rotation: str | None = None) -> list[T]:
    """All of ``items`` in full mode (or when there are at most ``k``); otherwise ``k`` of
    them, chosen reproducibly from (seed, group), in their original order."""
    if (full() if everything is None else everything) or len(items) <= k:
        return list(items)
    names = sorted(name(i) for i in items)
    chosen = set(random.Random(f"{rotation or seed()}/{group}").sample(names, k))
    return [i for i in items if name(i) in chosen]


def one_of_each(points: Sequence[tuple[str, int]], group: str, *,
                everything: bool | None = None) -> list[tuple[str, int]]:
    """All of ``points`` ((fault point, occurrence) pairs) in full mode; otherwise one occurrence
    of each point name, chosen reproducibly from (seed, group, name), in their original order."""
    if full() if everything is None else everything:
        return list(points)
    by_name: dict[str, list[tuple[str, int]]] = {}
    for p in points:
        by_name.setdefault(p[0], []).append(p)
    chosen = {c for name, occ in by_name.items()
              for c in sample(occ, 1, f"{group}/{name}", lambda p: f"{p[0]}#{p[1]}",
                              everything=False)}
    return [p for p in points if p in chosen]
