"""rt.resume(run_id, wait=True): waits out a dead worker's lease, never breaks a live one."""

from __future__ import annotations

import pytest

from minirt import FakeClock, Runtime, SQLiteStore
from minirt.lease_wait import CannotWait, LeaseWaitTimedOut
from minirt.run import LeaseHeld, RunEvent


class SleepingClock(FakeClock):
    """A FakeClock a waiter can sleep on (the sleep moves it); counts the sleeps."""

    def __init__(self, start: float) -> None:
        super().__init__(start)
        self.slept: list[float] = []
        self.on_sleep = None

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(seconds)
        if self.on_sleep:
            self.on_sleep()


def held(tmp_path, clock):
    store = SQLiteStore(tmp_path / "runs.sqlite")
    rt = Runtime(store, workflows={"wf": lambda ctx, x: x + 1}, clock=clock, worker_id="w-new")
    rt.start("wf", 1, run_id="r1")
    store.transition("r1", RunEvent("claim", at=clock.now(), worker_id="w-dead", lease_for=30))
    return rt


def test_resume_waits_for_a_dead_workers_lease_then_runs(tmp_path):
    clock = SleepingClock(1000.0)
    rt = held(tmp_path, clock)
    with pytest.raises(LeaseHeld):
        rt.resume("r1")
    out = rt.resume("r1", wait=True)
    assert out.result() == 2 and sum(clock.slept) == pytest.approx(30.05)
    assert rt.store.get_run("r1").run.incarnation == 2


def test_a_live_holder_is_never_taken_over_the_wait_times_out(tmp_path):
    clock = SleepingClock(1000.0)
    rt = held(tmp_path, clock)
    # the holder is alive: it renews its lease (a heartbeat) whenever the waiter sleeps
    clock.on_sleep = lambda: rt.store.append("r1", 1, [], lease_until=clock.now() + 30)
    with pytest.raises(LeaseWaitTimedOut, match="still leased to w-dead"):
        rt.resume("r1", wait=True, timeout=100)
    run = rt.store.get_run("r1").run
    assert run.incarnation == 1 and run.worker_id == "w-dead"


def test_a_clock_that_cannot_sleep_is_named(tmp_path):
    rt = held(tmp_path, FakeClock(1000.0))
    with pytest.raises(CannotWait, match="FakeClock"):
        rt.resume("r1", wait=True)
