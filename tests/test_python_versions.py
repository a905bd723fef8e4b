"""minirt on every Python it supports: the runtime's core tests, run under 3.12 and 3.13 too.

The suite itself runs on the interpreter `./course test` set up (3.11 here). For each other
supported version found on the machine (``python3.X`` on PATH or pyenv's, see
``tools/learner_matrix.find_python``), this builds a fresh venv, installs minirt from this
checkout (pydantic its only dependency) with pytest, hypothesis and psycopg, and runs a core subset of
this suite under it: run state machine, journal, runtime, canonical encoding and errors, the SQLite
store, retries and timers (on SQLite and on a throwaway PostgreSQL cluster). A version that is not installed is skipped, naming it; one that is
installed and fails, fails. The whole course on each version (the learner release, a lesson and a
drill) is ``python tools/learner_matrix.py``, a few minutes per version, run by hand.

Bounded by default (tests/sampling.py): one of the versions per run, rotating with the UTC date (or
MINIRT_HONESTY_SEED), about 30 s each; both with ``--full-sweeps``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from sampling import sample

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from learner_matrix import find_python  # noqa: E402

pytestmark = pytest.mark.slow

CORE = ["tests/test_run.py", "tests/test_journal.py", "tests/test_runtime.py",
        "tests/test_canonical_and_errors.py", "tests/test_store_sqlite.py", "tests/test_retry.py",
        "tests/test_timers.py"]


VERSIONS = ["3.12", "3.13"]
VERSION_SAMPLE = 1  # versions run per run in the bounded (default) form


@pytest.mark.parametrize("version", sample(VERSIONS, VERSION_SAMPLE, "python-versions"))
def test_the_core_suite_passes_on(version: str, tmp_path: Path) -> None:
    exe = find_python(version)
    if exe is None:
        pytest.skip(f"Python {version} is not installed here")
    venv = tmp_path / f"py{version}"
    started = time.monotonic()
    subprocess.run([exe, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=120)
    py = str(venv / "bin" / "python")
    pip = subprocess.run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          str(ROOT), "pytest>=8", "hypothesis>=6.100", "psycopg[binary]>=3.1"],
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    run = subprocess.run([py, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                          "-m", "not slow", *[str(ROOT / t) for t in CORE]],
                         cwd=tmp_path, capture_output=True, text=True, timeout=900,
                         env={"PATH": str(venv / "bin") + ":/usr/bin:/bin", "HOME": str(tmp_path),
                              "PYTHONDONTWRITEBYTECODE": "1"})
    tail = (run.stdout + run.stderr)[-3000:]
    assert run.returncode == 0, f"Python {version}: {tail}"
    assert " passed" in run.stdout, tail
    print(f"Python {version}: {run.stdout.strip().splitlines()[-1]} "
          f"({time.monotonic() - started:.0f} s with the install)")
