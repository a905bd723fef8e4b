"""The crash sweep over an agent written with the openai SDK and an MCP tool (sync): every fault
point of its decisions and tool calls, simulated and SIGKILLed, refunds exactly once.

Bounded by default (tests/sampling.py): every point (11) in simulate mode, and in kill mode W3
(``after_provider_commit``: the refund committed, its answer died with the process, the window
a retry duplicates) plus a rotating sample of KILL_SAMPLE other points, chosen from the UTC date
(or MINIRT_HONESTY_SEED), so every point is SIGKILLed within a few days of CI. It still fails on
a duplicate or lost refund at any point in simulate mode, and at the killed points when a real
SIGKILL (the MCP connection and its server orphaned mid-call) ends otherwise than a simulated
crash there. Every cell is ~3 s on a quiet machine (3 MCP server starts; a killed child also
imports openai and mcp), over 10 s under load. ``--full-sweeps`` kills at every point (22 cells).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from sampling import sample, seed

pytest.importorskip("openai")
pytest.importorskip("mcp")

from minirt.faults import boundaries, crash_once, sweep  # noqa: E402

TESTS = Path(__file__).parent
REF = "fakes.agent_scenario:SdkMcpAgent"
KILL_ALWAYS = [("after_provider_commit", 1)]  # W3
KILL_SAMPLE = 2  # other points SIGKILLed per run in the bounded form


@pytest.fixture(autouse=True)
def importable_in_children(monkeypatch: pytest.MonkeyPatch) -> None:
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", str(TESTS) + (os.pathsep + path if path else ""))


def test_crash_free_run_is_clean() -> None:
    assert crash_once(REF, None).ok


@pytest.mark.slow
def test_sweep_every_point_both_modes(full_sweeps: bool) -> None:
    points = boundaries(REF)
    assert {"before_decision_record", "after_intent", "before_result"} <= {p for p, _ in points}
    assert set(KILL_ALWAYS) <= set(points)
    rest = [p for p in points if p not in KILL_ALWAYS]
    killed = KILL_ALWAYS + sample(rest, KILL_SAMPLE, "agent-sweep-kill",
                                  lambda p: f"{p[0]}#{p[1]}", everything=full_sweeps)
    cells = sweep(REF, modes=("simulate",)) + sweep(REF, modes=("kill",), points=killed)
    bad = [f"{c.point}#{c.occurrence}/{c.mode}: {c.verdict.outcome} {c.verdict.detail}"
           for c in cells if not c.verdict.ok]
    ran = (f"(killed at {len(killed)}/{len(points)} points, seed {seed()!r}; reproduce with "
           "MINIRT_HONESTY_SEED=<seed>, kill at every point with --full-sweeps)")
    print(f"\nsweep: {len(cells)} cells, {Counter(c.verdict.outcome.value for c in cells)} {ran}")
    assert len(cells) == len(points) + len(killed)
    assert bad == [], ran
