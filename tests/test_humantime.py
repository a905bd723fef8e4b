"""Times for people (minirt.humantime), the LeaseHeld message, and `minirt runs/show` output."""

from __future__ import annotations

import json
import pickle

import pytest

from minirt import FakeClock, Runtime, SQLiteStore
from minirt.cli import main
from minirt.errors import from_record
from minirt.humantime import duration, local, relative, when
from minirt.run import LeaseHeld


@pytest.mark.parametrize("seconds, text", [(0.25, "250 ms"), (2.5, "2.5 s"), (3.0, "3 s"),
                                           (27.4, "27 s"), (60, "1 min"), (150, "2 min 30 s"),
                                           (7300, "2 h 1 min"), (200000, "2 d 7 h")])
def test_durations_read_in_the_unit_that_matters(seconds, text):
    assert duration(seconds) == text


@pytest.fixture
def utc(monkeypatch):
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_local_times_carry_the_zone_and_a_date_when_not_today(utc):
    now = 1_796_123_004.0  # 2026-12-01 11:03:24 UTC
    assert local(now + 27, now=now) == "11:03:51 UTC"
    assert local(now - 86400, now=now) == "2026-11-30 11:03:24 UTC"
    assert relative(now + 27, now=now) == "in 27 s" and relative(now - 180, now=now) == "3 min ago"
    assert when(None) == "" and when(now + 27, now=now) == "11:03:51 UTC (in 27 s)"


def _held_run(tmp_path, clock):
    store = SQLiteStore(tmp_path / "runs.sqlite")
    rt = Runtime(store, workflows={"wf": lambda ctx, x: x}, clock=clock, worker_id="w-dead")
    rt.start("wf", 1, run_id="r1")
    from minirt.run import RunEvent

    store.transition("r1", RunEvent("claim", at=clock.now(), worker_id="w-dead", lease_for=30))
    return rt, store


def test_lease_held_says_whose_lease_when_it_ends_in_words_and_what_to_do(tmp_path, utc):
    import time

    clock = FakeClock(1_796_123_004.0)
    rt, store = _held_run(tmp_path, clock)
    clock.advance(3)
    other = Runtime(store, workflows=rt.workflows, clock=clock, worker_id="w-new")
    with pytest.raises(LeaseHeld) as info:
        other.resume("r1")
    text = str(info.value)
    assert "leased to w-dead for 27 s more, until 11:03:54 UTC" in text
    assert "wait=True" in text and "minirt resume --wait" in text and "lease_for" in text
    err = info.value
    assert err.lease_expires_at == pytest.approx(1_796_123_034.0) and err.holder == "w-dead"
    # the fields stay: pickling and the journal's record round trip rebuild the same error
    for again in (pickle.loads(pickle.dumps(err)), from_record(err.to_record())):
        assert type(again) is LeaseHeld and str(again) == text
    # a learner's LeaseHeld (drill 01) is built without `at`: still a readable message
    bare = LeaseHeld(run_id="r", holder="w", lease_expires_at=time.time() + 10)
    assert "leased to w for" in str(bare) and "more, until" in str(bare)
    store.close()


def test_runs_and_show_print_local_times_and_json_keeps_the_epoch(tmp_path, capsys):
    clock = FakeClock(1_796_123_004.0)
    rt, store = _held_run(tmp_path, clock)
    store.close()
    url = str(tmp_path / "runs.sqlite")
    assert main(["runs", "--store", url]) == 0
    out = capsys.readouterr().out
    assert "1796123034" not in out and "(" in out and "ago)" in out  # the lease, in words
    assert main(["runs", "--store", url, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0]["lease_expires_at"] == pytest.approx(1_796_123_034.0)
    assert main(["show", "--store", url, "r1"]) == 0
    out = capsys.readouterr().out
    assert "hash chain verified" in out and "1796123004" not in out
    assert main(["show", "--store", url, "r1", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["events"][0]["at"] == pytest.approx(1_796_123_004.0)
    assert shown["state"] == "running" and shown["worker_id"] == "w-dead"
