"""Named fault points and the hook the runtime calls at them: the core of crash testing.

The runtime calls ``faults.hit(point)`` at every place where a crash would leave a distinct state
on disk. The points of a tool call are the crash windows of the course (DESIGN section 6):

====================== ==== ==================================================================
point                  win  state left behind
====================== ==== ==================================================================
``before_intent``      W1   nothing about the call is journaled
``after_intent``       W2   intent journaled, request not sent
``after_provider_commit`` W3 the provider applied the effect; the response never arrived
``before_result``      W4   response in hand, result not journaled
``after_result``       W5   result journaled, the worker's lease not yet released
====================== ==== ==================================================================

plus ``after_claim``, ``before_step_record`` / ``after_step_record``, ``before_decision_record`` /
``after_decision_record`` and ``before_complete`` for the rest of a run.

Two crash modes, which must agree on every outcome:

- ``simulate``: :class:`SimulatedCrash` (a ``BaseException``, so no ``except Exception`` in
  application code can swallow it) unwinds the stack; the runtime object is dropped and the store
  reopened. Fast and deterministic.
- ``kill``: the run executes in a child process that sends itself SIGKILL at the point. Nothing is
  flushed, no ``finally`` runs: this proves the simulation honest.

Invariant: every point the runtime hits is a :class:`FaultPoint`; a :class:`FaultPlan` refuses any
other name, when it is built and when it is hit. Guarantees: :class:`Faults` (the default) costs
one method call per point and does nothing; a plan crashes exactly at the ``occurrence``-th hit of
its point and records every point passed. Not here: the crash sweep (scenarios, ``crash_once``,
``sweep``, ``sweep_all``, the kill-mode child), which is testing tooling in
:mod:`minirt.testing.sweep`. Its names (:data:`MOVED`) are still importable from this module, on
first use: importing :mod:`minirt.faults` loads nothing of the sweep.

Imports :mod:`minirt.errors` only.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .errors import MinirtError


class FaultPoint(StrEnum):
    """Every named place where the runtime calls ``faults.hit``. A :class:`FaultPlan` refuses
    any other name (:class:`UnknownFaultPoint`), so a typo cannot silently never fire."""

    # a tool call: the crash windows W1..W5 (and the open transaction of a local commit)
    BEFORE_INTENT = "before_intent"
    INSIDE_COMMIT = "inside_commit"
    AFTER_INTENT = "after_intent"
    AFTER_PROVIDER_COMMIT = "after_provider_commit"
    BEFORE_RESULT = "before_result"
    AFTER_RESULT = "after_result"
    # the rest of a run
    AFTER_CLAIM = "after_claim"
    BEFORE_STEP_RECORD = "before_step_record"
    AFTER_STEP_RECORD = "after_step_record"
    BEFORE_DECISION_RECORD = "before_decision_record"
    AFTER_DECISION_RECORD = "after_decision_record"
    BEFORE_COMPLETE = "before_complete"
    # sagas and compensation (minirt.effects)
    AFTER_FORWARD_RECONCILED = "after_forward_reconciled"
    BEFORE_COMPENSATION = "before_compensation"
    AFTER_COMPENSATION_INTENT = "after_compensation_intent"
    AFTER_COMPENSATION_COMMIT = "after_compensation_commit"
    BEFORE_COMPENSATION_RESULT = "before_compensation_result"
    AFTER_COMPENSATION_RESULT = "after_compensation_result"
    AFTER_SAGA_COMPENSATED = "after_saga_compensated"
    # approvals
    APPROVAL_REQUESTED = "approval_requested"
    AFTER_APPROVAL_RECORDED = "after_approval_recorded"
    # cancellation
    AFTER_CANCEL_LOOKUP = "after_cancel_lookup"
    BEFORE_CANCEL_QUIESCED = "before_cancel_quiesced"
    AFTER_CANCEL_QUIESCED = "after_cancel_quiesced"
    BEFORE_CANCEL_CLEANED_UP = "before_cancel_cleaned_up"
    AFTER_CANCEL_CLEANED_UP = "after_cancel_cleaned_up"
    BEFORE_CANCELLED = "before_cancelled"
    # budgets
    AFTER_BUDGET_RESERVE = "after_budget_reserve"
    BEFORE_BUDGET_SETTLE = "before_budget_settle"


POINTS = frozenset(p.value for p in FaultPoint)

TOOL_POINTS = ("before_intent", "after_intent", "after_provider_commit", "before_result",
               "after_result")
WINDOWS = {"before_intent": "W1", "after_intent": "W2", "after_provider_commit": "W3",
           "before_result": "W4", "after_result": "W5"}


class SimulatedCrash(BaseException):  # noqa: N818 - it is a crash, not an error
    """The process 'dies' here (simulated crash mode). Derived from BaseException on purpose."""

    def __init__(self, point: str, occurrence: int) -> None:
        super().__init__(f"simulated crash at {point} (occurrence {occurrence})")
        self.point = point
        self.occurrence = occurrence


class UnknownFaultPoint(MinirtError):
    """A fault plan names a point the runtime never hits (a typo would never fire). Raised when
    the plan is set up, or when code hits an unregistered point under a plan. Not
    :class:`~minirt.testing.sweep.ScenarioNotImportable`."""

    fields = ("point", "known")
    template = "no fault point named {point!r} (known: {known})"


def check_point(point: str) -> FaultPoint:
    """``point`` as a :class:`FaultPoint`, or :class:`UnknownFaultPoint`."""
    try:
        return FaultPoint(point)
    except ValueError:
        raise UnknownFaultPoint(point=point, known=sorted(POINTS)) from None


class CrashMode(StrEnum):
    SIMULATE = "simulate"
    KILL = "kill"


class Faults:
    """No faults: every ``hit`` is a no-op. The runtime's default."""

    def hit(self, point: str, **ids: Any) -> None:
        return None


@dataclass
class FaultPlan(Faults):
    """Crash at the ``occurrence``-th time ``crash_at`` is hit; record every point passed.

    ``passed`` lists ``(point, occurrence)`` pairs in order, which is how a sweep learns the
    boundaries of a scenario.
    """

    crash_at: str | None = None
    occurrence: int = 1
    mode: CrashMode = CrashMode.SIMULATE
    passed: list[tuple[str, int]] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        if self.crash_at is not None:
            self.crash_at = check_point(self.crash_at).value
        self.mode = CrashMode(self.mode)

    def hit(self, point: str, **ids: Any) -> None:
        if point not in POINTS:
            check_point(point)
        self.counts[point] += 1
        n = self.counts[point]
        self.passed.append((point, n))
        if point == self.crash_at and n == self.occurrence:
            if self.mode is CrashMode.KILL:
                sys.stdout.flush()
                os.kill(os.getpid(), signal.SIGKILL)
            raise SimulatedCrash(point, n)

    @property
    def crashed(self) -> bool:
        return self.crash_at is not None and self.counts[self.crash_at] >= self.occurrence


# -- the sweep, moved to minirt.testing.sweep -----------------------------------------------------

#: The crash sweep's names, defined in :mod:`minirt.testing.sweep` and importable from here too
#: (``from minirt.faults import crash_once``; ``faults.sweep(...)``), loaded on first use.
MOVED = frozenset({
    "ChildDidNotCrash",
    "Outcome",
    "SCENARIO_PACKAGES",
    "Scenario",
    "ScenarioNotImportable",
    "SweepCell",
    "SweepMatrix",
    "Verdict",
    "boundaries",
    "crash_once",
    "discover_scenarios",
    "load_scenario",
    "recover",
    "register_scenarios",
    "scratch_root",
    "sweep",
    "sweep_all",
})
SWEEP_MODULE = "minirt.testing.sweep"


def __getattr__(name: str) -> Any:
    """A name of :data:`MOVED`, from :mod:`minirt.testing.sweep` (imported on first use, so the
    core never loads the sweep unless asked); any other name is an AttributeError."""
    if name in MOVED:
        return getattr(importlib.import_module(SWEEP_MODULE), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
