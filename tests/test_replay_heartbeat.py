"""Heartbeats during replay (issue 19, item 9): a replay that takes longer than ``lease_for``
renews the lease as it goes, so a second worker cannot take the run over mid-replay."""

from __future__ import annotations

import pytest

from minirt import FakeClock, Runtime
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.run import LeaseHeld, RunEvent, RunState
from minirt.runtime import RuntimeHook
from minirt.store import open_store

pytest_plugins = ["pg_fixture"]
STEPS = 240
LEASE = 10.0


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request, tmp_path):
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return str(tmp_path / "runs.sqlite")


def long_run(ctx, inp):
    return sum(ctx.step(f"s{i}", lambda i=i: i) for i in range(STEPS))


class SlowReplay(RuntimeHook):
    """Each replayed position takes half a second (by the fake clock); every 20 positions a
    second worker tries to take the run over."""

    def __init__(self, clock: FakeClock, url: str) -> None:
        self.clock = clock
        self.url = url
        self.takeovers: list[str] = []

    def on_position(self, ctx, step, kind, name, replayed):
        if not replayed:
            return
        self.clock.advance(0.5)
        if step % 20 == 19:
            other = open_store(self.url)
            try:
                now = self.clock.now()
                other.transition(ctx.run_id, RunEvent("claim", at=now, worker_id="w-thief",
                                                      lease_for=LEASE))
                self.takeovers.append(f"taken over at step {step}")
            except LeaseHeld:
                pass
            finally:
                other.close()


def test_a_replay_longer_than_the_lease_keeps_it(url):
    clock = FakeClock(1e6)
    rt = Runtime(open_store(url), workflows={"long": long_run}, clock=clock, lease_for=LEASE,
                 faults=FaultPlan(crash_at="before_complete"))
    with pytest.raises(SimulatedCrash):
        rt.run_workflow("long", {}, run_id="r1")
    rt.close()
    clock.advance(LEASE + 1)  # the dead worker's lease lapsed
    hook = SlowReplay(clock, url)
    rt = Runtime(open_store(url), workflows={"long": long_run}, clock=clock, lease_for=LEASE,
                 hooks=[hook], worker_id="w-resumer")
    out = rt.resume("r1")
    # the replay took STEPS * 0.5 = 120 s of a 10 s lease; before: taken over at step 19
    assert hook.takeovers == []
    assert out.state is RunState.SUCCEEDED and out.result() == sum(range(STEPS))
    assert rt.store.get_run("r1").run.incarnation == 2  # nobody else ever claimed it
    rt.close()


def test_a_worker_whose_run_was_taken_over_goes_on_with_the_others(tmp_path):
    """Found by benchmarks/sigkill_trials.py: a slow resumer whose lease lapsed and whose run
    another worker took over crashed out of work() with StaleIncarnation."""
    url = str(tmp_path / "r.sqlite")
    clock = FakeClock(1e6)
    sent: list[str] = []

    def slow(ctx, inp):
        ctx.step("a", lambda: 1)
        if ctx.run_id == "r1" and not sent:
            sent.append("taken over")
            clock.advance(LEASE + 1)  # this worker stalls past its lease; another takes over
            thief = Runtime(open_store(url), workflows={"w": slow}, clock=clock, lease_for=LEASE)
            assert thief.run("r1").state is RunState.SUCCEEDED
            thief.close()
        return ctx.step("b", lambda: 2)

    rt = Runtime(open_store(url), workflows={"w": slow}, clock=clock, lease_for=LEASE)
    rt.start("w", {}, run_id="r1")
    rt.start("w", {}, run_id="r2")
    outs = rt.work()  # before: StaleIncarnation escaped and the loop died with r2 not run
    assert [o.run_id for o in outs] == ["r2"] and sent == ["taken over"]
    assert {rt.store.get_run(r).run.state for r in ("r1", "r2")} == {RunState.SUCCEEDED}
    rt.close()
