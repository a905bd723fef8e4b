"""Reproducible scenarios for crash drills and sweeps (see :class:`minirt.faults.Scenario`).

A scenario builds its own world under a work directory, runs on a SQLite store in that directory
(reopened after every crash) with a fake clock, and judges the result with an oracle. Scenarios
are importable as ``"minirt_course.scenarios.<module>:<name>"`` so the kill crash mode can rebuild them
in a child process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from minirt.clock import FakeClock
from minirt.faults import Faults, register_scenarios
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore

EPOCH = 1_700_000_000.0

register_scenarios(__name__)  # faults.discover_scenarios() finds this package's scenarios


class SQLiteScenario:
    """Base class: a store at ``workdir/runs.sqlite`` and a fake clock started at EPOCH+offset.

    Subclasses set ``name`` and ``ref`` and implement ``setup``, ``runtime_kwargs``, ``start`` and
    ``oracle``.
    """

    name = "scenario"
    ref = ""
    run_id = "run-1"

    def setup(self, workdir: Path) -> None:
        Path(workdir).mkdir(parents=True, exist_ok=True)

    def runtime_kwargs(self, workdir: Path) -> dict[str, Any]:
        raise NotImplementedError

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> Runtime:
        store = SQLiteStore(Path(workdir) / "runs.sqlite")
        return Runtime(store, clock=FakeClock(EPOCH + clock_offset), faults=faults,
                       worker_id=worker_id, **self.runtime_kwargs(Path(workdir)))
