"""The crash sweep over an ASYNC agent (tests/fakes/async_agent_scenario.py): openai.AsyncOpenAI
against the fake model server, an MCP tool awaited over stdio and a minirt.world provider, both
called at once over a TaskGroup. Killed (SIGKILL) or crashed at every fault point: exactly one
refund and one booking in the providers' own ledgers, and no journaled decision asked again.

Bounded (marked slow, about a minute under load): a crash-free run and the two W3 cells in kill
mode. The full sweep (every point, both modes: 32 cells) is benchmarks/async_agent_sweep.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("openai")
pytest.importorskip("mcp")

from minirt.faults import boundaries, crash_once  # noqa: E402

TESTS = Path(__file__).parent
REF = "fakes.async_agent_scenario:AsyncAgent"
TOOL_POINTS = {"before_intent", "after_intent", "after_provider_commit", "before_result",
               "after_result"}


@pytest.fixture(autouse=True)
def importable_in_children(monkeypatch: pytest.MonkeyPatch) -> None:
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", str(TESTS) + (os.pathsep + path if path else ""))


@pytest.mark.slow
def test_the_crash_free_run_passes_every_fault_point_of_both_calls() -> None:
    points = boundaries(REF)
    assert {p for p, _ in points} >= TOOL_POINTS | {"before_decision_record"}
    assert sum(1 for p, _ in points if p in TOOL_POINTS) == 10  # 5 windows x 2 calls


@pytest.mark.slow
def test_crash_free_run_is_clean() -> None:
    verdict = crash_once(REF, None)
    assert verdict.ok, verdict.detail
    assert json.loads(verdict.detail) == {"refunds": 1, "refund_executions": 1, "bookings": 1,
                                          "model_requests": 2}


@pytest.mark.slow
@pytest.mark.parametrize("occurrence", [1, 2])  # the first and the second call to answer
def test_sigkill_after_the_provider_committed_is_reconciled_not_repeated(occurrence: int
                                                                         ) -> None:
    """W3, the window a retry duplicates: the effect happened, its answer died with the
    process. Bounded: two cells of the full sweep, in kill mode."""
    verdict = crash_once(REF, "after_provider_commit", occurrence=occurrence, mode="kill")
    assert verdict.ok, f"{verdict.outcome}: {verdict.detail}"
