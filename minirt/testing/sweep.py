"""The crash sweep: crash a scenario at every fault point it passes, recover, judge.

A :class:`Scenario` is a reproducible run with its own world and an oracle. :func:`crash_once`
runs it, crashes it at one (point, occurrence) of :mod:`minirt.faults` in one of the two crash
modes, recovers it with fresh runtimes (:func:`recover`) and returns the oracle's
:class:`Verdict`. :func:`sweep` runs a scenario once without faults to list every (point,
occurrence) it passes (:func:`boundaries`), then crashes it once per point. :func:`sweep_all` does
that for every scenario in every registered package (:func:`discover_scenarios`; a package
registers itself with :func:`register_scenarios`, or is passed in) in both crash modes and
returns a :class:`SweepMatrix`; any cell reruns with :meth:`SweepCell.rerun`. Kill mode runs the
crashing half in a child process (``python -m minirt.testing.sweep``) that SIGKILLs itself.

Invariant: every cell starts from a fresh world and a fresh runtime; nothing of a crashed runtime
is reused. Guarantees: a cell's verdict is the oracle's on what the store and the world hold
after recovery; a cell where the harness itself failed keeps the error (never a silent pass).
Not guaranteed: that a scenario's oracle is right, or that kill mode lands where simulate mode
does (the sweep reports disagreements; it does not hide them).

Testing tooling: imports the core (:mod:`minirt.faults`, :mod:`minirt.errors`); the runtime
imports nothing of it. Names no course package: scenarios come from registered packages or
arguments.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import MinirtError
from ..faults import (
    POINTS,
    CrashMode,
    FaultPlan,
    Faults,
    SimulatedCrash,
    UnknownFaultPoint,
    check_point,
)

if TYPE_CHECKING:
    from ..runtime import Runtime


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

    error: str = ""  # set when the sweep itself failed here (not the oracle's verdict)

    def reproduce(self) -> str:
        """The one call that reproduces this cell."""
        return (f"minirt.faults.crash_once({self.ref or self.scenario!r}, {self.point!r}, "
                f"occurrence={self.occurrence}, mode={self.mode!r})")

    def rerun(self, scenario: str | Scenario | None = None, *,
              workdir: Path | None = None) -> Verdict:
        """Run this cell again (same crash, fresh world), return the oracle's verdict; give a
        ``workdir`` to keep the world for inspection, a ``scenario`` object if it has no ref."""
        return crash_once(scenario or self.ref or self.scenario, self.point,
                          occurrence=self.occurrence, mode=self.mode, workdir=workdir)


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


def crash_once(scenario: str | Scenario, point: str | None, *, occurrence: int = 1,
               mode: str = "simulate", workdir: Path | None = None) -> Verdict:
    """Run the scenario, crash at ``point`` (its ``occurrence``-th hit), recover, judge.
    ``point=None``: a crash-free run, judged the same way (simulate mode only). An unknown
    point is refused (:class:`UnknownFaultPoint`) before anything runs."""
    if point is not None:
        point = check_point(point).value
    elif CrashMode(mode) is CrashMode.KILL:
        raise UnknownFaultPoint(point="None (kill mode needs a point)", known=sorted(POINTS))
    sc = load_scenario(scenario)
    with tempfile.TemporaryDirectory() as tmp:
        wd = Path(workdir) if workdir else Path(tmp)
        wd.mkdir(parents=True, exist_ok=True)
        sc.setup(wd)
        if CrashMode(mode) is CrashMode.KILL:
            assert point is not None
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


# -- every scenario x every point x both modes -------------------------------------------------

def _is_scenario(obj: Any) -> bool:
    return isinstance(getattr(obj, "ref", None), str) and all(
        callable(getattr(obj, m, None)) for m in ("setup", "make_runtime", "start", "oracle"))


#: Packages whose modules hold scenarios; a course package registers itself on import
#: (:func:`register_scenarios`). The runtime names no course package.
SCENARIO_PACKAGES: list[str] = []


def register_scenarios(package: str) -> None:
    """Make :func:`discover_scenarios` (with no argument) look in ``package``. Idempotent."""
    if package not in SCENARIO_PACKAGES:
        SCENARIO_PACKAGES.append(package)


def discover_scenarios(package: str | ModuleType | None = None) -> list[str]:
    """The ``module:attribute`` ref of every scenario in the package's modules: module-level
    objects (or classes) with the :class:`Scenario` methods whose ``ref`` names themselves.
    ``package`` is a package or its name; None: every registered package
    (:data:`SCENARIO_PACKAGES`). Sorted; a module that needs a missing optional dependency is
    left out."""
    if package is None:
        return sorted({ref for name in SCENARIO_PACKAGES for ref in discover_scenarios(name)})
    if isinstance(package, ModuleType):
        package = package.__name__
    pkg = importlib.import_module(package)
    refs: set[str] = set()
    for info in pkgutil.iter_modules(pkg.__path__):
        name = f"{package}.{info.name}"
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for attr, obj in vars(module).items():
            if _is_scenario(obj) and obj.ref == f"{name}:{attr}":
                refs.add(obj.ref)
    return sorted(refs)


@dataclass
class SweepMatrix:
    """One cell per (scenario, fault point, occurrence, crash mode), plus what was skipped."""

    cells: list[SweepCell]
    skipped: dict[str, str] = field(default_factory=dict)  # scenario -> why it was not swept
    seconds: float = 0.0

    @property
    def scenarios(self) -> list[str]:
        return list(dict.fromkeys(c.ref or c.scenario for c in self.cells))

    @property
    def points(self) -> list[str]:
        return list(dict.fromkeys(c.point for c in self.cells))

    @property
    def modes(self) -> list[str]:
        return list(dict.fromkeys(c.mode for c in self.cells))

    def counts(self) -> Counter[str]:
        """How many cells ended in each outcome."""
        return Counter(c.verdict.outcome.value for c in self.cells)

    def failing(self) -> list[SweepCell]:
        return [c for c in self.cells if not c.verdict.ok]

    def errors(self) -> list[SweepCell]:
        """Cells where the sweep itself failed (a harness problem, not a verdict)."""
        return [c for c in self.cells if c.error]

    def grid(self) -> dict[tuple[str, str], Counter[str]]:
        """(scenario, point) -> outcome counts over occurrences and modes (the heat map)."""
        out: dict[tuple[str, str], Counter[str]] = {}
        for c in self.cells:
            out.setdefault((c.ref or c.scenario, c.point), Counter())[c.verdict.outcome.value] += 1
        return out

    def disagreements(self) -> list[tuple[str, str, int, dict[str, str]]]:
        """(scenario, point, occurrence, mode -> outcome) where the crash modes disagree."""
        by: dict[tuple[str, str, int], dict[str, str]] = {}
        for c in self.cells:
            by.setdefault((c.ref or c.scenario, c.point, c.occurrence), {})[c.mode] = \
                c.verdict.outcome.value
        return [(*k, v) for k, v in by.items() if len(set(v.values())) > 1]

    def summary(self) -> str:
        sizes = (f"{len(self.cells)} cells: {len(self.scenarios)} scenarios x their fault points "
                 f"x {len(self.modes)} mode(s) in {self.seconds:.0f} s")
        return sizes + " — " + ", ".join(f"{n} {o}" for o, n in self.counts().most_common())


def scratch_root() -> str | None:
    """Where sweep worlds live: a RAM-backed directory when there is one (``/dev/shm``), else
    the system's temporary directory (None). A crashed process, simulated or SIGKILLed, loses
    nothing it wrote there either: what a sweep tests is process death, not power loss."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


def sweep_all(scenarios: Iterable[str | Scenario] | None = None, *,
              modes: Sequence[str] = ("simulate", "kill"), progress: bool = False
              ) -> SweepMatrix:
    """Crash every scenario (default: :func:`discover_scenarios`) at every boundary it passes, in
    every mode, recover, judge. A scenario that cannot run alone (its setup needs a server) is
    listed in ``skipped``; a cell where the sweep itself failed keeps the error. Kill mode
    rebuilds a scenario from its ref in a child process: pass refs, not modified objects.
    Each cell gets a fresh world under :func:`scratch_root`."""
    started = time.perf_counter()
    jobs: list[tuple[str | Scenario, str, str, int, str]] = []
    skipped: dict[str, str] = {}
    for ref in (list(scenarios) if scenarios is not None else discover_scenarios()):
        sc = load_scenario(ref)
        name = ref if isinstance(ref, str) else (getattr(sc, "ref", "") or sc.name)
        try:
            points = boundaries(sc)
        except MinirtError as exc:
            skipped[name] = f"{type(exc).__name__}: {exc}"
            continue
        jobs += [(ref, name, p, n, m) for (p, n) in points for m in modes]
    iterator: Iterable[tuple[str | Scenario, str, str, int, str]] = jobs
    if progress:
        from tqdm.auto import tqdm  # course tooling only; a widget in notebooks, never stderr

        iterator = tqdm(jobs, desc="crash sweep", file=sys.stdout)
    cells = []
    for ref, name, point, n, mode in iterator:
        label = load_scenario(ref).name
        try:
            with tempfile.TemporaryDirectory(prefix="sweep-", dir=scratch_root()) as tmp:
                verdict = crash_once(ref, point, occurrence=n, mode=mode, workdir=Path(tmp))
            error = ""
        except Exception as exc:  # the harness, not the run under test: keep it visible
            error = f"{type(exc).__name__}: {exc}"[:500]
            verdict = Verdict(Outcome.WRONG, f"the sweep itself failed: {error}")
        cells.append(SweepCell(label, point, n, mode, verdict, ref=name if ":" in name else "",
                               error=error))
    return SweepMatrix(cells, skipped, time.perf_counter() - started)


# -- kill mode: the child process ---------------------------------------------------------------

class ChildDidNotCrash(MinirtError):
    fields = ("scenario", "point", "returncode", "output")
    template = ("child for {scenario} was to be killed at {point} but exited with "
                "{returncode}: {output}")


def _run_in_child(ref: str, workdir: Path, point: str, occurrence: int) -> str:
    cmd = [sys.executable, "-m", "minirt.testing.sweep", ref, str(workdir), point, str(occurrence)]
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
