"""A bounded run of benchmarks/sigkill_trials.py (issue 19): 20 real SIGKILL trials, killing
worker processes at random moments during runs, resumes, retry backoffs and two resumers racing
on one SQLite file; by the provider's own ledger, 0 duplicate and 0 lost effects, every run
finished and every result equal to what the provider applied. The 300-trial version is
``python benchmarks/sigkill_trials.py --trials 300``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _trials():
    spec = importlib.util.spec_from_file_location("bench_sigkill",
                                                  ROOT / "benchmarks" / "sigkill_trials.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_sigkill"] = module
    spec.loader.exec_module(module)
    return module


def test_twenty_sigkill_trials_lose_nothing_and_duplicate_nothing(tmp_path):
    report = _trials().run_trials(20, seed=19, workdir=tmp_path, progress=False)
    assert report["killed_trials"] >= 10, report  # the kills really landed mid-work
    assert (report["duplicates"], report["losses"], report["mismatches"],
            report["unfinished"]) == (0, 0, 0, 0), report["findings"]
    assert report["by_kind"] == {"kill": 10, "race": 10}
