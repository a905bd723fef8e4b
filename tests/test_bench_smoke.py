"""Smoke test of benchmarks/peers.py: the resume it times is a resume, and it counts syncs.

Invariant checked: for every system, the resuming process of ``measure_resume`` reaches the first
unrecorded step without re-executing the recorded ones (minirt, DBOS and LangGraph's StateGraph
redo none; LangGraph's functional API may redo the few tasks whose results its background writer
had not saved when the process was killed, never all of them, which is what a fresh run would do).
minirt's resume goes through its lease: the short lease is waited for, not bypassed.

Not checked: any timing (the benchmark is a measurement, not a timed test), nor the table's text.
Tiny sizes; peers that are not installed are skipped with the reason.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
N = 30

pytestmark = pytest.mark.slow


def _peers() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_peers", ROOT / "benchmarks" / "peers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


PEERS = _peers()


def _need(system: str) -> None:
    if not PEERS.available(system):
        pytest.skip(f"{system} not installed (pip install -e '.[bench]')")


@pytest.mark.parametrize("system", ["minirt_tool", "minirt_decision", "dbos_wal", "langgraph_sync"])
def test_resume_redoes_no_recorded_step(system: str, tmp_path: Path) -> None:
    _need(system)
    out = PEERS.measure_resume(system, N, tmp_path)
    assert "error" not in out, out
    assert out["redone"] == 0, f"{system}: the resume re-executed {out['redone']} recorded steps"
    if system.startswith("minirt"):
        assert out["lease_waited_ms"] > 0, "minirt's resume right after a crash must meet the lease"


def test_langgraph_functional_resume_is_not_a_fresh_run(tmp_path: Path) -> None:
    _need("langgraph_func")
    out = PEERS.measure_resume("langgraph_func", N, tmp_path)
    assert "error" not in out, out
    assert out["redone"] < N, "invoke(None, cfg) re-executed every task: that is a fresh run"


def test_run_reports_the_settings_each_system_really_had(tmp_path: Path) -> None:
    _need("dbos")
    shipped = PEERS.measure("dbos", N, tmp_path)
    wal = PEERS.measure("dbos_wal", N, tmp_path)
    assert "error" not in shipped and "error" not in wal, (shipped, wal)
    assert shipped["settings"].startswith("delete/"), shipped["settings"]
    assert set(wal["settings"].split(";")) == {"wal/FULL"}, wal["settings"]


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace not installed")
def test_syncs_per_step_counts_one_commit_per_decision_and_two_per_tool_step(tmp_path: Path
                                                                             ) -> None:
    decision = PEERS.count_syncs("minirt_decision", tmp_path, sizes=(20, 120))
    tool = PEERS.count_syncs("minirt_tool", tmp_path, sizes=(20, 120))
    assert 0.95 <= decision["syncs_per_step"] <= 1.1, decision
    assert 1.95 <= tool["syncs_per_step"] <= 2.2, tool
