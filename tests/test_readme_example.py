"""The README's minirt example runs as printed, survives its own crash story, and never refunds
twice: it is killed (SIGKILL) inside the refund and resumed the way the README says (run the
script again), and the provider's table is counted."""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
EXPECTED = "succeeded {'refunded': 3000}"

#: Run the example with minirt's fault points armed: SIGKILL at the first hit of POINT.
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
    text = README.read_text()
    section = text[text.index("## minirt in your own project"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def run(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *argv], cwd=tmp_path, capture_output=True, text=True,
                          timeout=90)


def journal_kinds(tmp_path: Path) -> list[str]:
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    try:
        return [k for (k,) in db.execute("SELECT kind FROM events ORDER BY seq")]
    finally:
        db.close()


def refunds(tmp_path: Path) -> list[tuple[str, str, int]]:
    db = sqlite3.connect(tmp_path / "bank.sqlite")
    try:
        return db.execute("SELECT key, order_id, cents FROM refunds").fetchall()
    finally:
        db.close()


def test_the_readme_example_runs_and_resumes_from_its_journal(tmp_path):
    (tmp_path / "ex.py").write_text(example())
    runs = [run(tmp_path, "ex.py") for _ in range(2)]
    for r in runs:
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert r.stdout.strip() == EXPECTED
    kinds = journal_kinds(tmp_path)
    assert kinds.count("intent") == 1 and kinds.count("decision") == 1
    assert len(refunds(tmp_path)) == 1


@pytest.mark.parametrize("point, resolution", [
    ("after_intent", "redispatch"),  # W2: killed before the refund reached the provider
    ("after_provider_commit", "result"),  # W3: the provider refunded, the result was not recorded
])
def test_killed_inside_the_refund_then_run_again_refunds_exactly_once(tmp_path, point,
                                                                      resolution):
    (tmp_path / "ex.py").write_text(example())
    (tmp_path / "killer.py").write_text(KILLER)
    killed = run(tmp_path, "killer.py", point)
    assert killed.returncode == -signal.SIGKILL, (killed.stdout, killed.stderr)
    kinds = journal_kinds(tmp_path)
    assert "intent" in kinds and "tool_result" not in kinds  # inside the refund, as promised
    assert len(refunds(tmp_path)) == (1 if point == "after_provider_commit" else 0)

    # The README: right after a crash, resume without wait raises LeaseHeld, saying what to do.
    plain = example().replace("rt.resume(run_id, wait=True)", "rt.resume(run_id)")
    (tmp_path / "plain.py").write_text(plain)
    early = run(tmp_path, "plain.py")
    assert early.returncode == 1 and "LeaseHeld" in early.stderr
    assert "wait=True" in early.stderr and "lease_for" in early.stderr

    started = time.monotonic()
    again = run(tmp_path, "ex.py")  # "run the script again"
    waited = time.monotonic() - started
    assert again.returncode == 0 and again.stderr == "", again.stderr
    assert again.stdout.strip() == EXPECTED
    assert waited < 10 + 30, waited  # lease_for=10 from the crash, plus the interpreter start

    rows = refunds(tmp_path)
    assert len(rows) == 1 and rows[0][1:] == ("ord_42", 3000)
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    notes = [p for (p,) in db.execute("SELECT payload_json FROM events WHERE kind='reconciled'")]
    keys = [p for (p,) in db.execute("SELECT payload_json FROM events WHERE kind='intent'")]
    db.close()
    assert len(notes) == 1 and f'"resolution":"{resolution}"' in notes[0]
    assert len(keys) == 1 and rows[0][0] in keys[0]  # the provider's row is the intent's key
