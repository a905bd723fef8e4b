"""Named fault points, two crash modes, and the crash sweep.

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

:func:`sweep` runs a :class:`Scenario` once without faults to list every (point, occurrence) it
passes, then once per point with a crash there, recovers with a fresh runtime, and asks the
scenario's oracle for a :class:`Verdict`.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .errors import MinirtError

if TYPE_CHECKING:
    from .runtime import Runtime

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

    def hit(self, point: str, **ids: Any) -> None:
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


# -- the sweep ----------------------------------------------------------------------------------

class Outcome(StrEnum):
    CLEAN = "clean"  # terminal, every effect exactly once, the same result as without a crash
    DUPLICATE = "duplicate effect"  # some effect happened more than once
    LOST = "lost effect"  # some effect that should have happened did not
    STUCK = "stuck"  # the run did not reach a terminal state after recovery
    WRONG = "wrong result"  # terminal and effects fine, but the result differs


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.CLEAN


class Scenario(Protocol):
    """A reproducible agent run with its own world and an oracle. Must be importable by name
    (``module:attribute``) for the kill mode, which rebuilds it in a child process."""

    name: str

    def setup(self, workdir: Path) -> None:
        """Create a fresh world (provider ledgers...) under ``workdir``."""

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> Runtime:
        """A runtime on the store under ``workdir`` (reopened each time)."""

    def start(self, rt: Runtime) -> str:
        """Start (or get) the scenario's run and return its id. Idempotent."""

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        """Judge the world after recovery: exactly-once effects, terminal run, right result."""


@dataclass(frozen=True)
class SweepCell:
    scenario: str
    point: str
    occurrence: int
    mode: str
    verdict: Verdict
    seed: int = 0
    ref: str = ""  # the scenario's importable 'module:attribute', when it has one

    def reproduce(self) -> str:
        """The one call that reproduces this cell."""
        return (f"minirt.faults.crash_once({self.ref or self.scenario!r}, {self.point!r}, "
                f"occurrence={self.occurrence}, mode={self.mode!r})")


class ScenarioNotImportable(MinirtError):
    fields = ("name", "reason")
    template = "scenario {name!r} cannot be imported ({reason}); use 'module:attribute'"


def load_scenario(ref: str | Scenario) -> Scenario:
    if not isinstance(ref, str):
        return ref
    mod_name, _, attr = ref.partition(":")
    try:
        obj = getattr(importlib.import_module(mod_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ScenarioNotImportable(name=ref, reason=str(exc)) from None
    return obj() if isinstance(obj, type) else obj


def _scenario_ref(sc: Scenario, ref: str | Scenario) -> str:
    if isinstance(ref, str):
        return ref
    name = getattr(sc, "ref", None)
    if not name:
        raise ScenarioNotImportable(name=sc.name, reason="kill mode needs a 'module:attr' ref")
    return name


def boundaries(scenario: str | Scenario, workdir: Path | None = None) -> list[tuple[str, int]]:
    """Every (point, occurrence) the scenario passes in a crash-free run."""
    sc = load_scenario(scenario)
    with tempfile.TemporaryDirectory() as tmp:
        wd = Path(workdir or tmp)
        sc.setup(wd)
        plan = FaultPlan()
        rt = sc.make_runtime(wd, faults=plan, clock_offset=0.0, worker_id="w-probe")
        try:
            rt.run(sc.start(rt))
        finally:
            rt.close()
        return list(plan.passed)


def recover(sc: Scenario, workdir: Path, run_id: str, *, max_rounds: int = 5) -> Runtime:
    """Resume ``run_id`` with fresh runtimes (new worker, clock past any lease) until terminal."""
    rt: Runtime | None = None
    for round_ in range(1, max_rounds + 1):
        if rt is not None:
            rt.close()
        rt = sc.make_runtime(workdir, faults=Faults(), clock_offset=3600.0 * round_,
                             worker_id=f"w-recover-{round_}")
        run = rt.store.get_run(run_id).run
        if run.is_terminal:
            return rt
        try:
            rt.resume(run_id)
        except MinirtError:
            pass  # a recorded failure or an unresolved effect: the oracle judges
    assert rt is not None
    return rt


def crash_once(scenario: str | Scenario, point: str, *, occurrence: int = 1,
               mode: str = "simulate", workdir: Path | None = None) -> Verdict:
    """Run the scenario, crash at ``point`` (its ``occurrence``-th hit), recover, judge."""
    sc = load_scenario(scenario)
    with tempfile.TemporaryDirectory() as tmp:
        wd = Path(workdir) if workdir else Path(tmp)
        wd.mkdir(parents=True, exist_ok=True)
        sc.setup(wd)
        if CrashMode(mode) is CrashMode.KILL:
            run_id = _run_in_child(_scenario_ref(sc, scenario), wd, point, occurrence)
        else:
            plan = FaultPlan(crash_at=point, occurrence=occurrence)
            rt = sc.make_runtime(wd, faults=plan, clock_offset=0.0, worker_id="w-crashing")
            run_id = sc.start(rt)
            try:
                rt.run(run_id)
            except SimulatedCrash:
                pass
            except MinirtError:
                pass
            finally:
                rt.close()  # the crashed runtime is dropped; nothing of it is reused
        rt = recover(sc, wd, run_id)
        try:
            return sc.oracle(wd, rt, run_id)
        finally:
            rt.close()


def sweep(scenario: str | Scenario, *, modes: Sequence[str] = ("simulate",),
          points: Iterable[tuple[str, int]] | None = None, progress: bool = False
          ) -> list[SweepCell]:
    """Crash the scenario at every boundary it passes, in every mode; return one cell each."""
    sc = load_scenario(scenario)
    cells_to_run = list(points) if points is not None else boundaries(sc)
    jobs = [(p, n, m) for (p, n) in cells_to_run for m in modes]
    iterator: Iterable[tuple[str, int, str]] = jobs
    if progress:
        from tqdm.auto import tqdm  # course tooling only; a widget in notebooks, never stderr

        iterator = tqdm(jobs, desc=f"sweep {sc.name}", file=sys.stdout)
    out = []
    for point, n, mode in iterator:
        verdict = crash_once(scenario, point, occurrence=n, mode=mode)
        ref = scenario if isinstance(scenario, str) else getattr(sc, "ref", "")
        out.append(SweepCell(sc.name, point, n, mode, verdict, ref=ref))
    return out


# -- kill mode: the child process ---------------------------------------------------------------

class ChildDidNotCrash(MinirtError):
    fields = ("scenario", "point", "returncode", "output")
    template = ("child for {scenario} was to be killed at {point} but exited with "
                "{returncode}: {output}")


def _run_in_child(ref: str, workdir: Path, point: str, occurrence: int) -> str:
    cmd = [sys.executable, "-m", "minirt.faults", ref, str(workdir), point, str(occurrence)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    run_id_file = workdir / "run_id.txt"
    if proc.returncode != -signal.SIGKILL or not run_id_file.exists():
        raise ChildDidNotCrash(scenario=ref, point=point, returncode=proc.returncode,
                               output=(proc.stdout + proc.stderr)[-2000:])
    return run_id_file.read_text().strip()


def _child_main(argv: Sequence[str]) -> None:
    ref, workdir, point, occurrence = argv
    sc = load_scenario(ref)
    wd = Path(workdir)
    plan = FaultPlan(crash_at=point, occurrence=int(occurrence), mode=CrashMode.KILL)
    rt = sc.make_runtime(wd, faults=plan, clock_offset=0.0, worker_id="w-killed")
    run_id = sc.start(rt)
    (wd / "run_id.txt").write_text(run_id)
    rt.run(run_id)
    # Reaching this line means the point was never hit: the parent reports it.


if __name__ == "__main__":
    _child_main(sys.argv[1:])
