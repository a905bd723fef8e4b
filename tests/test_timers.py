"""Durable time (minirt.timers): ctx.sleep / sleep_until / wait_for(timeout=) journaled, the run
leaving the worker, and the due-timer query bringing it back, across restarts (FakeClock)."""

from __future__ import annotations

import pytest

from minirt import FakeClock, Runtime
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.run import RunState
from minirt.store import open_store
from minirt.timers import TimerInvalid, WaitTimedOut, due_at, fire_due

pytest_plugins = ["pg_fixture"]
T0 = 1_000_000.0


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request, tmp_path):
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return str(tmp_path / "runs.sqlite")


def napper(ctx, inp):
    before = ctx.now()
    ctx.sleep(inp["seconds"])
    return {"slept_from": before, "woke_at": ctx.now()}


def approval_or_deadline(ctx, inp):
    try:
        return {"got": ctx.wait_for("approval", timeout=inp["timeout"])}
    except WaitTimedOut as exc:
        return {"timed_out_at": exc.fired_at}


WORKFLOWS = {"napper": napper, "approval_or_deadline": approval_or_deadline,
             "until": lambda ctx, inp: ctx.sleep_until(inp["at"]) or "done"}


def runtime(url, clock, **kw):
    return Runtime(open_store(url), workflows=WORKFLOWS, clock=clock, **kw)


def test_a_sleep_leaves_the_worker_and_the_due_timer_query_brings_it_back(url):
    clock = FakeClock(T0)
    rt = runtime(url, clock)
    rt.start("napper", {"seconds": 60}, run_id="n1")
    assert rt.run("n1").state is RunState.WAITING
    run = rt.store.get_run("n1").run
    assert run.worker_id is None and run.lease_expires_at is None  # nothing holds it
    assert due_at(rt, "n1") == T0 + 60
    clock.advance(30)
    assert rt.work() == [] and rt.store.get_run("n1").run.state is RunState.WAITING
    clock.advance(31)
    (out,) = rt.work()
    assert out.result() == {"slept_from": T0, "woke_at": T0 + 61}
    waits = [e.payload for e in rt.store.read("n1") if e.kind in ("wait", "wait_result")]
    assert waits[0] == {"name": "timer:1", "until": T0 + 60}
    assert waits[1]["payload"]["fired_at"] == T0 + 61
    rt.close()


def test_a_timer_survives_a_restart_and_its_due_time_is_never_recomputed(url):
    clock = FakeClock(T0)
    rt = runtime(url, clock)
    rt.start("napper", {"seconds": 60}, run_id="n2")
    rt.run("n2")
    rt.close()  # the process ends; the timer lives in the store
    later = FakeClock(T0 + 45)
    rt2 = runtime(url, later, worker_id="w-restarted")
    assert rt2.work() == [] and due_at(rt2, "n2") == T0 + 60  # not 45 + 60
    later.advance(15)
    assert fire_due(rt2) == ["n2"] and fire_due(rt2) == []  # idempotent
    assert rt2.work()[0].result()["woke_at"] == T0 + 60
    rt2.close()


def test_a_crash_after_the_sleep_replays_it_without_sleeping_again(url):
    clock = FakeClock(T0)
    rt = runtime(url, clock, faults=FaultPlan("before_complete"))
    rt.start("napper", {"seconds": 5}, run_id="n3")
    rt.run("n3")
    clock.advance(5)
    with pytest.raises(SimulatedCrash):
        rt.work()
    rt.close()
    clock.advance(31)  # the crashed worker's lease lapses; no further sleep is needed
    rt2 = runtime(url, clock)
    out = rt2.resume("n3")
    assert out.result() == {"slept_from": T0, "woke_at": T0 + 5}
    assert [e.kind for e in rt2.store.read("n3")].count("wait_result") == 1
    rt2.close()


def test_wait_for_with_a_timeout_the_signal_or_the_deadline_first_one_wins(url):
    clock = FakeClock(T0)
    rt = runtime(url, clock)
    rt.start("approval_or_deadline", {"timeout": 3600}, run_id="in-time")
    rt.start("approval_or_deadline", {"timeout": 3600}, run_id="too-late")
    rt.run("in-time")
    rt.run("too-late")
    clock.advance(600)
    rt.signal("in-time", "approval", {"by": "alice"})
    assert {o.run_id: o.result() for o in rt.work()} == {"in-time": {"got": {"by": "alice"}}}
    clock.advance(3000)
    (out,) = rt.work()
    assert out.run_id == "too-late" and out.result() == {"timed_out_at": T0 + 3600}
    rt.signal("too-late", "approval", {"by": "bob"})  # late: the deadline already decided
    assert rt.outcome("too-late").result() == {"timed_out_at": T0 + 3600}
    rt.close()


def test_a_due_time_already_past_does_not_leave_the_worker_and_bad_times_are_named(url):
    clock = FakeClock(T0)
    rt = runtime(url, clock)
    assert rt.run_workflow("until", {"at": T0 - 1}, run_id="u1").result() == "done"
    assert rt.run_workflow("napper", {"seconds": -1}, run_id="bad").state is RunState.FAILED
    with pytest.raises(Exception) as info:
        rt.outcome("bad").result()
    assert "sleep(seconds) must be a finite number" in str(info.value)
    with pytest.raises(TimerInvalid):
        from minirt.timers import _seconds

        _seconds("x", float("nan"))
    rt.close()


@pytest.mark.slow
def test_with_real_time_a_timer_never_fires_early_and_a_worker_brings_the_run_back(tmp_path):
    import threading

    url = str(tmp_path / "runs.sqlite")
    rt = Runtime(open_store(url), workflows=WORKFLOWS)  # the system clock
    rt.start("napper", {"seconds": 0.5}, run_id="real")
    assert rt.run("real").state is RunState.WAITING
    done = threading.Event()

    def worker():  # like `minirt worker`: claim, or poll when idle
        w = Runtime(open_store(url), workflows=WORKFLOWS, worker_id="w-real")
        while not done.is_set():
            if w.work(max_runs=1):
                done.set()
            done.wait(0.02)
        w.close()

    t = threading.Thread(target=worker, daemon=True)
    t.start()
    assert done.wait(30), "the due-timer query never brought the run back"
    t.join(5)
    out = rt.outcome("real").result()
    until = next(e.payload["until"] for e in rt.store.read("real") if e.kind == "wait")
    assert out["woke_at"] >= until and until - out["slept_from"] >= 0.5
    rt.close()
