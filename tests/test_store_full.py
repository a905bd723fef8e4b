"""A full disk is a named StoreFull, loses nothing recorded, and the run resumes once space
returns (issue 19, item 5, store side).

Two ways to fill the store, both for real: SQLite's own size limit (``PRAGMA max_page_count``,
always run) and a real filesystem of 2 MB (a tmpfs mounted for the test, run where
the test may mount, i.e. as root; skipped with the reason elsewhere) filled by a filler file
until the kernel says ENOSPC. Each run makes paid effects through a keyed tool whose provider
keeps its own ledger, so "nothing lost, nothing doubled" is judged by the provider, not by minirt.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from minirt.clock import FakeClock
from minirt.run import RunState
from minirt.runtime import Runtime
from minirt.store.base import StoreFull
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, ToolCall

STEPS = 40
PAD = "p" * 1500  # each result ~1.5 KB: the store fills within a few dozen steps


class Provider:
    """A payment provider that deduplicates by effect key and keeps its own ledger."""

    def __init__(self) -> None:
        self.ledger: dict[str, int] = {}  # effect key -> amount charged
        self.requests: Counter[str] = Counter()

    def charge(self, call: ToolCall, amount: int, n: int) -> Any:
        self.requests[call.effect_key] += 1
        self.ledger.setdefault(call.effect_key, amount)
        return {"n": n, "charged": self.ledger[call.effect_key], "pad": PAD}


def workflow(ctx, inp):
    return [ctx.call_tool("charge", {"amount": 100 + i, "n": i})["n"] for i in range(inp["n"])]


def make_runtime(path: Path, provider: Provider, clock: FakeClock) -> Runtime:
    return Runtime(SQLiteStore(path), clock=clock, lease_for=30.0,
                   tools=[FunctionTool(provider.charge, name="charge", effect=EffectClass.KEYED)],
                   workflows={"pay": workflow})


def fill_and_recover(path: Path, fill, unfill) -> None:
    """Run until the store is full, check what is recorded, free space, resume, check again."""
    provider, clock = Provider(), FakeClock(1000.0)
    rt = make_runtime(path, provider, clock)
    rt.start("pay", {"n": STEPS}, run_id="r1")
    fill(rt.store)
    with pytest.raises(StoreFull) as err:
        rt.run("r1")
    assert str(path) in str(err.value) and "free space" in str(err.value)
    rt.close()

    # What was recorded before the failure reads back, chain verified, from a fresh connection.
    check = SQLiteStore(path)
    before = check.read("r1")
    assert check.get_run("r1").run.state is RunState.RUNNING  # not FAILED: it was a crash
    check.close()
    results_before = [e for e in before if e.kind == "tool_result"]
    assert 0 < len(results_before) < STEPS, len(results_before)

    unfill()
    clock.advance(31.0)  # the stuck incarnation's lease lapses, as after any crash
    rt2 = make_runtime(path, provider, clock)
    out = rt2.resume("r1")
    assert out.state is RunState.SUCCEEDED, out
    assert out.result() == list(range(STEPS))
    after = rt2.store.read("r1")
    rt2.close()
    assert after[:len(before)] == before  # nothing recorded was lost or rewritten
    # The provider's own ledger: one charge per position, each with its own amount.
    assert sorted(provider.ledger.values()) == [100 + i for i in range(STEPS)]
    assert len(provider.ledger) == STEPS


def test_size_limit_gives_store_full_and_the_run_resumes_when_raised(tmp_path):
    path = tmp_path / "runs.sqlite"

    def fill(store):
        with store.transaction() as db:
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            db.execute(f"PRAGMA max_page_count={pages + 12}")

    def unfill():
        pass  # each new connection starts without the limit

    fill_and_recover(path, fill, unfill)


def test_a_full_write_leaves_the_store_usable_and_raw_sqlite_errors_never_escape(tmp_path):
    store = SQLiteStore(tmp_path / "runs.sqlite")
    store.create_run("small", "wf", "{}", 1.0)
    with store.transaction() as db:
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count={pages + 1}")
    with pytest.raises(StoreFull):
        store.create_run("big", "wf", '"' + "x" * 100_000 + '"', 1.0)
    with pytest.raises(StoreFull):
        store.put_artifact(b"y" * 100_000)
    assert [r.run.run_id for r in store.list_runs()] == ["small"]  # nothing half-written
    store.create_run("next", "wf", "{}", 2.0)  # a write that fits still works
    assert [r.run.run_id for r in store.list_runs()] == ["small", "next"]
    assert issubclass(StoreFull, Exception) and not issubclass(StoreFull, sqlite3.Error)
    store.close()


@pytest.fixture
def tiny_fs(tmp_path):
    """A real 2 MB tmpfs, mounted for this test only."""
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_a_real_full_filesystem_gives_store_full_and_the_run_resumes_when_space_returns(tiny_fs):
    path = tiny_fs / "runs.sqlite"
    filler = tiny_fs / f"filler-{uuid.uuid4().hex}"

    def fill(store):
        # Leave ~160 KB: the run gets going, then the kernel refuses a write (ENOSPC).
        with open(filler, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * 4096)
            except OSError:
                pass
        with open(filler, "r+b") as f:
            f.truncate(max(0, filler.stat().st_size - 160 * 1024))

    def unfill():
        filler.unlink()

    fill_and_recover(path, fill, unfill)
