"""The full crash sweep: every scenario of minirt_course.scenarios x every fault point x both crash modes.

Every scenario is CLEAN at every boundary, in both modes, except the designs that are wrong on
purpose (each lesson keeps its broken variant), whose failing cells are pinned here exactly. A new
scenario is expected to be clean everywhere; a new broken-on-purpose one belongs in the table.

The whole matrix (every scenario x every point x both modes, ~770 cells, ~3 minutes under load)
runs with ``--full-sweeps``. By default (tests/sampling.py) every cell runs in simulate mode, so
the table of non-clean cells is checked exactly, and in kill mode each scenario's
broken-on-purpose cells plus a rotating sample of KILL_PER_SCENARIO other points (chosen from the
UTC date or MINIRT_HONESTY_SEED; every point gets its turn over a few weeks of CI), about 80
cells. It still fails when a real SIGKILL ends otherwise than the simulated crash at a sampled
cell (a disagreement), or when a broken-on-purpose cell stops failing in either mode. The
module sweeps (tests/test_sweep_m03.py ... m09) also SIGKILL their own scenarios at one
occurrence of every kind of point (every occurrence with --full-sweeps), under other seeds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sampling import sample, seed

from minirt.faults import (
    Outcome,
    SweepMatrix,
    Verdict,
    discover_scenarios,
    scratch_root,
    sweep,
    sweep_all,
)
from minirt_course.scenarios import m10_trace as m10

D, L, S, W = (Outcome.DUPLICATE.value, Outcome.LOST.value, Outcome.STUCK.value,
              Outcome.WRONG.value)
PKG = "minirt_course.scenarios."
#: scenario ref -> {(point, occurrence): outcome} for the designs that are wrong on purpose.
BROKEN_ON_PURPOSE: dict[str, dict[tuple[str, int], str]] = {
    PKG + "m04_payment:pay_then_book_random_keys": {
        ("after_provider_commit", 1): D, ("before_result", 1): D},
    PKG + "m04_payment:pay_then_email_at_least_once": {
        ("after_provider_commit", 2): D, ("before_result", 2): D},
    PKG + "m04_payment:pay_then_email_at_most_once": {("after_intent", 2): L},
    PKG + "m09_budget:tight_retries": {
        ("after_intent", 1): S, ("after_intent", 2): S, ("after_budget_reserve", 4): S},
    PKG + "m10_trace:journals_before_commit": {("after_result", 1): L, ("after_result", 2): L},
    PKG + "m10_trace:unknown_as_failure": {
        (p, n): W for p in ("after_intent", "after_provider_commit", "before_result")
        for n in (1, 2)},
}
NEEDS_A_SERVER = {PKG + "m04_payment:pay_then_book_http"}
KILL_PER_SCENARIO = 3  # points SIGKILLed per scenario in the bounded form, besides the broken ones


def non_clean(matrix: SweepMatrix) -> dict[str, dict[tuple[str, int], set[str]]]:
    out: dict[str, dict[tuple[str, int], set[str]]] = {}
    for c in matrix.failing():
        out.setdefault(c.ref, {}).setdefault((c.point, c.occurrence), set()).add(
            c.verdict.outcome.value)
    return out


def test_discovery_finds_the_scenario_of_every_module_with_a_crash_drill() -> None:
    refs = discover_scenarios()
    modules = {r.split(":")[0].rsplit(".", 1)[1].split("_")[0] for r in refs}
    assert {"m01", "m03", "m04", "m05", "m06", "m09", "m10"} <= modules
    assert set(BROKEN_ON_PURPOSE) | NEEDS_A_SERVER <= set(refs)
    assert refs == sorted(set(refs))


def test_a_scenario_that_needs_a_server_is_skipped_with_the_reason() -> None:
    matrix = sweep_all(sorted(NEEDS_A_SERVER), modes=("simulate",))
    assert matrix.cells == [] and "HTTPWorldMissing" in matrix.skipped[min(NEEDS_A_SERVER)]


def test_the_matrix_of_one_broken_runtime() -> None:
    matrix = sweep_all([m10.journals_before_commit.ref], modes=("simulate",))
    assert len(matrix.cells) == 12 and matrix.errors() == []
    assert non_clean(matrix) == {m10.journals_before_commit.ref: {
        ("after_result", 1): {L}, ("after_result", 2): {L}}}
    assert matrix.grid()[(m10.journals_before_commit.ref, "after_result")] == {L: 2}
    assert matrix.counts() == {"clean": 10, L: 2}


def test_a_failing_cell_reruns_with_one_call(tmp_path: Path) -> None:
    matrix = sweep_all([m10.journals_before_commit.ref], modes=("simulate",))
    cell = matrix.failing()[0]
    assert cell.rerun(workdir=tmp_path) == cell.verdict
    assert (tmp_path / "runs.sqlite").exists()  # the world stays, to inspect
    assert cell.reproduce() == ("minirt.faults.crash_once('minirt_course.scenarios.m10_trace:"
                                "journals_before_commit', 'after_result', occurrence=1, "
                                "mode='simulate')")


class OracleRaises:
    """A scenario whose oracle has a bug: the sweep keeps the error in the cell."""

    name = "oracle-raises"
    ref = ""

    def __getattr__(self, attr: str) -> Any:
        return getattr(m10.reference, attr)

    def oracle(self, workdir: Path, rt: Any, run_id: str) -> Verdict:
        raise KeyError("charge")


def test_a_harness_error_is_kept_in_its_cell_not_raised() -> None:
    matrix = sweep_all([OracleRaises()], modes=("simulate",))
    assert matrix.cells and all("KeyError" in c.error for c in matrix.cells)
    assert {c.verdict.outcome for c in matrix.cells} == {Outcome.WRONG}


def test_sweep_worlds_live_in_memory_when_possible() -> None:
    root = scratch_root()
    assert root is None or Path(root).is_dir()


def kill_sample(simulated: SweepMatrix) -> dict[str, list[tuple[str, int]]]:
    """scenario ref -> the points to SIGKILL in the bounded form: its broken-on-purpose cells and
    KILL_PER_SCENARIO of its other points, rotating with the seed."""
    by_ref: dict[str, list[tuple[str, int]]] = {}
    for c in simulated.cells:
        by_ref.setdefault(c.ref, []).append((c.point, c.occurrence))
    out = {}
    for ref, points in by_ref.items():
        broken = [p for p in points if p in BROKEN_ON_PURPOSE.get(ref, {})]
        rest = [p for p in points if p not in broken]
        out[ref] = broken + sample(rest, KILL_PER_SCENARIO, f"sweep-all-kill/{ref}",
                                   lambda p: f"{p[0]}#{p[1]}", everything=False)
    return out


@pytest.mark.slow
def test_every_scenario_every_point_both_modes(full_sweeps: bool) -> None:
    if full_sweeps:
        matrix = sweep_all(modes=("simulate", "kill"))
        ran = "every cell (--full-sweeps)"
    else:
        simulated = sweep_all(modes=("simulate",))
        chosen = kill_sample(simulated)
        killed = [c for ref, points in chosen.items()
                  for c in sweep(ref, modes=("kill",), points=points)]
        matrix = SweepMatrix(simulated.cells + killed, simulated.skipped)
        ran = (f"every cell simulated, {len(killed)} killed (broken-on-purpose cells and "
               f"{KILL_PER_SCENARIO} per scenario), seed {seed()!r}; reproduce with "
               "MINIRT_HONESTY_SEED=<seed>, kill every cell with --full-sweeps")
        assert len(killed) == sum(map(len, chosen.values())) >= KILL_PER_SCENARIO * len(chosen)
    assert matrix.errors() == [], [(c.ref, c.point, c.mode, c.error) for c in matrix.errors()]
    assert matrix.disagreements() == [], ran
    assert set(matrix.skipped) == NEEDS_A_SERVER
    got = non_clean(matrix)
    want = {ref: {cell: {o} for cell, o in cells.items()}
            for ref, cells in BROKEN_ON_PURPOSE.items()}
    assert got == want, ran
    assert set(matrix.modes) == {"simulate", "kill"}
    assert len([c for c in matrix.cells if c.mode == "simulate"]) >= 300
    assert not full_sweeps or len(matrix.cells) >= 600
