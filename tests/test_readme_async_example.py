"""The README's async agent example (openai.AsyncOpenAI + an MCP tool) runs as printed against
the fake model server (reached through OPENAI_BASE_URL) and the tests' MCP payments server, and
refunds once when it is SIGKILLed after the server refunded and then run again."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")
pytest.importorskip("mcp")

from fakes.model_server import serving  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SERVER = Path(__file__).parent / "fakes" / "mcp_server.py"
ANSWER = "Refunded 30.00 on order o1."

KILLER = '''
import os, signal, sys
import minirt.faults as faults
POINT = sys.argv[1]
def hit(self, point, **ids):
    if point == POINT:
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGKILL)
faults.Faults.hit = hit
exec(compile(open("ex.py").read(), "ex.py", "exec"))
'''


def example() -> str:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### An async agent: the openai SDK and an MCP tool"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def policy(n: int, body: dict[str, Any]) -> dict[str, Any]:
    if body["messages"][-1].get("role") == "tool":
        return {"text": ANSWER}
    return {"tool_calls": [("refund", {"order_id": "o1", "amount_cents": 3000})]}


def run(tmp_path: Path, url: str, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "dummy-key",
           "OPENAI_MAX_RETRIES": "0"}
    return subprocess.run([sys.executable, *argv], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env=env)


def ledger(tmp_path: Path) -> tuple[int, int]:
    db = sqlite3.connect(tmp_path / "ledger.sqlite")
    try:
        return (db.execute("SELECT COUNT(*) FROM executions").fetchone()[0],
                db.execute("SELECT COUNT(*) FROM effects").fetchone()[0])
    finally:
        db.close()


def kinds(tmp_path: Path) -> list[str]:
    db = sqlite3.connect(tmp_path / "agent.sqlite")
    try:
        return [k for (k,) in db.execute("SELECT kind FROM events ORDER BY seq")]
    finally:
        db.close()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "ex.py").write_text(example())
    shutil.copy(SERVER, tmp_path / "payments_mcp.py")
    return tmp_path


def test_the_async_example_is_about_twenty_lines() -> None:
    lines = [ln for ln in example().splitlines() if ln.strip()]
    assert len(lines) <= 26, len(lines)


def test_the_async_example_runs_and_replays_from_its_journal(workdir: Path) -> None:
    with serving(policy) as model:
        first = run(workdir, model.base_url, "ex.py")
        assert first.returncode == 0 and first.stderr == "", first.stderr
        assert first.stdout.strip() == ANSWER
        assert model.count == 2
        again = run(workdir, model.base_url, "ex.py")  # finished: its journaled result
        assert again.returncode == 0 and again.stdout.strip() == ANSWER, again.stderr
        assert model.count == 2  # nothing asked again
    assert ledger(workdir) == (1, 1)
    k = kinds(workdir)
    assert k.count("decision") == 2 and k.count("intent") == 1
    assert k.index("intent") < k.index("tool_result")


@pytest.mark.slow  # a SIGKILL, then a 10 s lease to wait out
def test_killed_after_the_server_refunded_then_run_again_refunds_once(workdir: Path) -> None:
    (workdir / "killer.py").write_text(KILLER)
    with serving(policy) as model:
        killed = run(workdir, model.base_url, "killer.py", "after_provider_commit")
        assert killed.returncode == -signal.SIGKILL, (killed.stdout, killed.stderr)
        assert ledger(workdir) == (1, 1)  # the server refunded; the answer died with us
        k = kinds(workdir)
        assert "intent" in k and "tool_result" not in k
        again = run(workdir, model.base_url, "ex.py")  # waits out lease_for=10, resumes
        assert again.returncode == 0 and again.stderr == "", again.stderr
        assert again.stdout.strip() == ANSWER
        assert model.count == 2  # the journaled decision was not asked again
    executions, effects = ledger(workdir)
    assert effects == 1, f"{effects} refunds"
    assert executions == 2  # resent with the same key, deduplicated by the server
    assert kinds(workdir).count("intent") == 1
