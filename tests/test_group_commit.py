"""Group commit: concurrent appends share a commit, each keeps its own outcome, and a returned
append is on disk (a child process appending from many threads is SIGKILLed at an arbitrary
moment; every append it reported as returned must be in the file, and every journal verifies)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from minirt.run import RunEvent, StaleIncarnation
from minirt.store import open_store
from minirt.store.base import NewEvent, StoreArgumentInvalid
from minirt.store.group_commit import GroupCommit
from minirt.store.sqlite import SQLiteStore

pytest_plugins = ["pg_fixture"]

T0 = 1_700_000_000.0
ROOT = Path(__file__).resolve().parent.parent


def _ev(step: int) -> NewEvent:
    return NewEvent("step", step, json.dumps({"n": step}), T0)


def _wait_for(cond, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.002)


class _Gate:
    """Wraps a commit_batch: the first batch blocks until released, so the next callers queue
    up behind it deterministically (no sleeps decide the outcome)."""

    def __init__(self, inner) -> None:
        self.inner, self.sizes = inner, []
        self.entered, self.release = threading.Event(), threading.Event()

    def __call__(self, batch) -> None:
        self.sizes.append(len(batch))
        if len(self.sizes) == 1:
            self.entered.set()
            self.release.wait(30)
        self.inner(batch)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path):
    url = (f"sqlite:///{tmp_path / 's.sqlite'}" if request.param == "sqlite"
           else request.getfixturevalue("pg_url"))
    s = open_store(url)
    yield s
    s.close()


def _gated(store) -> _Gate:
    gate = _Gate(store._group._commit_batch)
    store._group._commit_batch = gate
    return gate


@contextmanager
def _held(store):
    """Hold the store's connection lock (as a commit in progress would)."""
    with store._lock:
        yield


def test_a_lone_append_commits_at_once_without_the_leader(tmp_path):
    store = SQLiteStore(tmp_path / "s.sqlite")
    _claim(store, "r")
    before = store._group.stats()
    rows = store.append("r", 1, [_ev(0)])
    assert store._group.stats() == before and store.read("r")[-1] == rows[-1]


def _claim(store, run_id: str) -> None:
    store.create_run(run_id, "wf", "{}", T0)
    store.transition(run_id, RunEvent("claim", at=T0, worker_id="w", lease_for=600))


def test_appends_queued_behind_a_commit_go_in_the_next_one_together(store):
    for k in range(6):
        _claim(store, f"r{k}")
    gate = _gated(store)
    results: dict[int, object] = {}

    def go(k: int) -> None:
        results[k] = store.append(f"r{k}", 1, [_ev(k)])

    first = threading.Thread(target=go, args=(0,))
    with _held(store):  # the connection busy: the first caller queues and leads
        first.start()
        assert gate.entered.wait(20)
    others = [threading.Thread(target=go, args=(k,)) for k in range(1, 6)]
    for t in others:
        t.start()
    _wait_for(lambda: len(store._group._queue) == 5, "five queued appends")
    assert results == {}  # nobody is released before its commit
    gate.release.set()
    for t in [first, *others]:
        t.join(30)
    assert gate.sizes == [1, 5]
    for k in range(6):
        assert [e.step for e in store.read(f"r{k}") if e.kind == "step"] == [k]
        assert results[k][0].seq == store.read(f"r{k}")[-1].seq


def test_a_stale_append_in_a_batch_writes_nothing_and_the_others_commit(store):
    for k in range(4):
        _claim(store, f"r{k}")
    gate = _gated(store)
    errors: dict[int, BaseException] = {}

    def go(k: int, incarnation: int) -> None:
        try:
            store.append(f"r{k}", incarnation, [_ev(k)], kv={f"k{k}": "v"})
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion
            errors[k] = exc

    first = threading.Thread(target=go, args=(0, 1))
    with _held(store):
        first.start()
        assert gate.entered.wait(20)
    batch = [threading.Thread(target=go, args=(k, 7 if k == 2 else 1)) for k in (1, 2, 3)]
    for t in batch:
        t.start()
    _wait_for(lambda: len(store._group._queue) == 3, "three queued appends")
    gate.release.set()
    for t in [first, *batch]:
        t.join(30)
    assert gate.sizes == [1, 3]
    assert set(errors) == {2} and isinstance(errors[2], StaleIncarnation)
    assert all(e.kind != "step" for e in store.read("r2"))
    assert store.kv_get("r2", "k2") is None
    for k in (0, 1, 3):
        assert [e.step for e in store.read(f"r{k}") if e.kind == "step"] == [k]
        assert store.kv_get(f"r{k}", f"k{k}") == "v"
    store.append("r2", 1, [_ev(2)])  # the run's cached head survived the rollback correctly
    assert [e.step for e in store.read("r2") if e.kind == "step"] == [2]


def test_group_commit_arguments_are_checked():
    with pytest.raises(StoreArgumentInvalid):
        GroupCommit(lambda batch: None, max_batch=0)
    with pytest.raises(StoreArgumentInvalid):
        GroupCommit(lambda batch: None, window_s=float("nan"))


CHILD = r"""
import json, sys, threading
sys.path.insert(0, sys.argv[1])
from minirt.run import RunEvent
from minirt.store.base import NewEvent, StoreArgumentInvalid
from minirt.store.sqlite import SQLiteStore
store = SQLiteStore(sys.argv[2])
T0 = 1_700_000_000.0
N = 16
for k in range(N):
    store.create_run(f"r{k}", "wf", "{}", T0)
    store.transition(f"r{k}", RunEvent("claim", at=T0, worker_id="w", lease_for=600))
out = threading.Lock()
def go(k):
    for i in range(100000):
        rows = store.append(f"r{k}", 1, [NewEvent("step", i, json.dumps({"i": i}), T0)])
        with out:
            sys.stdout.write(f"{k} {rows[-1].seq} {store._group.batches} {store._group.requests}\n")
            sys.stdout.flush()
for k in range(N):
    threading.Thread(target=go, args=(k,), daemon=True).start()
threading.Event().wait()
"""


def test_every_returned_append_survives_sigkill_under_group_commit(tmp_path):
    path = tmp_path / "kill.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(ROOT), str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    returned: dict[str, int] = {}
    batches = requests = 0
    assert proc.stdout is not None
    try:
        for n, line in enumerate(proc.stdout):
            k, seq, batches, requests = map(int, line.split())
            returned[f"r{k}"] = max(returned.get(f"r{k}", 0), seq)
            if n >= 1500:
                break
        os.kill(proc.pid, signal.SIGKILL)  # while other threads' appends are in flight
    finally:
        proc.kill()
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    assert requests > batches  # commits really were shared
    store = SQLiteStore(path)
    for run_id, seq in returned.items():
        events = store.read(run_id)  # verifies the chain and the head
        assert events[-1].seq >= seq, (run_id, seq, events[-1].seq)
