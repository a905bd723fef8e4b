"""The crash sweep over an agent written with the openai SDK and an MCP tool (sync): every fault
point of its decisions and tool calls, simulated and SIGKILLed, refunds exactly once."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("openai")
pytest.importorskip("mcp")

from minirt.faults import boundaries, crash_once, sweep  # noqa: E402

TESTS = Path(__file__).parent
REF = "fakes.agent_scenario:SdkMcpAgent"


@pytest.fixture(autouse=True)
def importable_in_children(monkeypatch: pytest.MonkeyPatch) -> None:
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", str(TESTS) + (os.pathsep + path if path else ""))


def test_crash_free_run_is_clean() -> None:
    assert crash_once(REF, None).ok


@pytest.mark.slow
def test_sweep_every_point_both_modes() -> None:
    points = boundaries(REF)
    assert {"before_decision_record", "after_intent", "before_result"} <= {p for p, _ in points}
    cells = sweep(REF, modes=("simulate", "kill"))
    bad = [f"{c.point}#{c.occurrence}/{c.mode}: {c.verdict.outcome} {c.verdict.detail}"
           for c in cells if not c.verdict.ok]
    print(f"\nsweep: {len(cells)} cells, {Counter(c.verdict.outcome.value for c in cells)}")
    assert bad == []
