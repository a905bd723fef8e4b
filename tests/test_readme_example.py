"""The README's minirt example runs as printed, and running it twice is a replay, not a re-run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def example() -> str:
    text = README.read_text()
    section = text[text.index("## minirt in your own project"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_runs_and_resumes_from_its_journal(tmp_path):
    (tmp_path / "ex.py").write_text(example())
    runs = [subprocess.run([sys.executable, "ex.py"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=60) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert r.stdout.strip() == "succeeded {'refunded': 3000}"
    import sqlite3

    db = sqlite3.connect(tmp_path / "runs.sqlite")
    kinds = [k for (k,) in db.execute("SELECT kind FROM events ORDER BY seq")]
    assert kinds.count("intent") == 1 and kinds.count("decision") == 1
