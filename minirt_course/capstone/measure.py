"""Measurements of a capstone agent: latency, durable overhead, recovery time, journal size, effects.

Every figure comes from running the agent for real on a fresh shop:

- ``step_us``: wall time of one crash-free run divided by its step positions, on a store on disk
  with ``synchronous=FULL`` (every commit fsynced): the durable agent. Median of ``runs``.
- ``baseline_step_us``: the same agent, same runtime, on a store in memory (``/dev/shm`` when
  there is one) with ``synchronous=OFF``: the journaling logic without durable commits. The
  difference, ``overhead_us_per_step``, is what durability costs per step (``overhead_ratio``).
- ``recovery_ms``: crash in the last W3 of the run (the provider committed, the response is lost),
  then the time a fresh worker takes to open the store, replay, reconcile by lookup and finish.
- ``journal_bytes_per_step``: bytes of journal payload (canonical JSON) per step position, and
  ``journal_events``, ``steps``: deterministic for a given agent (fake clock, fixed ids).
- ``effects``: what the providers' ledgers hold after one run (refunds, bookings, emails).

Not guaranteed: timings are of this machine, now (the course's 2 shared cores are noisy; medians
of a few runs, no warm-up beyond the first); the deterministic figures are the ones to quote
when a figure must be checked later.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from minirt.clock import FakeClock
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.world.ledger import Ledger

from .scenario import CapstoneScenario, reference, scratch_dir
from .shop import EPOCH, build_runtime, setup_world, start_ticket

#: Figures whose value does not depend on the machine (quote these in a note).
DETERMINISTIC = ("journal_bytes_per_step", "journal_events", "steps")


@dataclass(frozen=True)
class Measurements:
    step_us: float
    baseline_step_us: float
    overhead_us_per_step: float
    overhead_ratio: float
    recovery_ms: float
    journal_bytes_per_step: float
    journal_events: int
    steps: int
    effects: dict[str, int]
    runs: int

    def figures(self) -> dict[str, float]:
        """The named numbers a note may quote (effect counts excluded: they are tiny)."""
        d = asdict(self)
        d.pop("effects")
        d.pop("runs")
        return {k: float(v) for k, v in d.items()}

    def table(self) -> str:
        rows = [("step latency, durable (µs/step)", f"{self.step_us:.0f}"),
                ("step latency, no fsync (µs/step)", f"{self.baseline_step_us:.0f}"),
                ("durability overhead (µs/step)", f"{self.overhead_us_per_step:.0f}"),
                ("durability overhead (ratio)", f"{self.overhead_ratio:.2f}"),
                ("recovery after a W3 crash (ms)", f"{self.recovery_ms:.1f}"),
                ("journal bytes per step", f"{self.journal_bytes_per_step:.1f}"),
                ("journal events per run", f"{self.journal_events}"),
                ("step positions per run", f"{self.steps}"),
                ("effects in the ledgers", ", ".join(f"{k}={v}" for k, v in
                                                     sorted(self.effects.items())))]
        width = max(len(r[0]) for r in rows)
        return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def _one_run(sc: CapstoneScenario, workdir: Path, synchronous: str) -> tuple[float, Any]:
    setup_world(workdir)
    rt = build_runtime(workdir, options=sc.options(), synchronous=synchronous)
    try:
        run_id = start_ticket(rt, sc.ticket, run_id=sc.run_id)
        started = time.perf_counter()
        rt.run(run_id)
        seconds = time.perf_counter() - started
        events = rt.store.read(run_id)
    finally:
        rt.close()
    return seconds, events


def _effects(workdir: Path) -> dict[str, int]:
    out = {}
    for provider, kind in (("payments", "refund"), ("booking", "booking"), ("email", "email")):
        ledger = Ledger(workdir / f"{provider}.sqlite")
        try:
            out[kind + "s"] = len(ledger.effects(kind))
        finally:
            ledger.close()
    return out


def refund_commits(sc: CapstoneScenario) -> int:
    """How many times a crash-free run of ``sc`` passes W3 (``after_provider_commit``)."""
    with scratch_dir() as tmp:
        setup_world(tmp)
        plan = FaultPlan()
        rt = build_runtime(tmp, faults=plan, options=sc.options())
        try:
            rt.run(start_ticket(rt, sc.ticket, run_id=sc.run_id))
        finally:
            rt.close()
    return plan.counts["after_provider_commit"]


def recovery_seconds(sc: CapstoneScenario, workdir: Path, occurrence: int) -> float:
    """Crash at the ``occurrence``-th W3, then time a fresh worker's recovery to the end."""
    setup_world(workdir)
    crashing = build_runtime(workdir, faults=FaultPlan("after_provider_commit", occurrence),
                             options=sc.options())
    try:
        run_id = start_ticket(crashing, sc.ticket, run_id=sc.run_id)
        crashing.run(run_id)
    except SimulatedCrash:
        pass
    finally:
        crashing.close()
    started = time.perf_counter()
    rt = build_runtime(workdir, clock=FakeClock(EPOCH + 3600), worker_id="w-recovery",
                       options=sc.options())
    try:
        rt.resume(run_id)
    finally:
        rt.close()
    return time.perf_counter() - started


def measure(sc: CapstoneScenario = reference, *, runs: int = 5) -> Measurements:
    """Run ``sc``'s agent ``runs`` times durably and ``runs`` times without fsync, crash and
    recover it ``runs`` times; return the medians and the journal's size (see the module doc)."""
    durable, fast, recovery = [], [], []
    events: Any = []
    w3 = max(1, refund_commits(sc))
    effects: dict[str, int] = {}
    for i in range(runs):
        with tempfile.TemporaryDirectory(prefix="capstone-disk-") as tmp:
            seconds, events = _one_run(sc, Path(tmp), "FULL")
            durable.append(seconds)
            if i == 0:
                effects = _effects(Path(tmp))
        with scratch_dir() as tmp:
            fast.append(_one_run(sc, Path(tmp), "OFF")[0])
        with tempfile.TemporaryDirectory(prefix="capstone-rec-") as tmp:
            recovery.append(recovery_seconds(sc, Path(tmp), w3))
    steps = 1 + max((e.step for e in events if e.step is not None), default=-1)
    payload = sum(len(e.payload_json.encode()) for e in events)
    step_us = statistics.median(durable) / max(steps, 1) * 1e6
    base_us = statistics.median(fast) / max(steps, 1) * 1e6
    return Measurements(step_us=round(step_us, 1), baseline_step_us=round(base_us, 1),
                        overhead_us_per_step=round(step_us - base_us, 1),
                        overhead_ratio=round(step_us / base_us, 2) if base_us else 0.0,
                        recovery_ms=round(statistics.median(recovery) * 1e3, 2),
                        journal_bytes_per_step=round(payload / max(steps, 1), 1),
                        journal_events=len(events), steps=steps, effects=effects, runs=runs)
