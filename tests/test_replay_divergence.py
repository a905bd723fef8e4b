"""Replay consumption and divergence (issue 19, item 6): a removed call is refused at the end of
the replay, a diverged run is parked (WAITING, ``detail["diverged"]``) instead of FAILED so a
rollback finishes it, and ``ctx.patched(name)`` marks an intended change (old history: False,
new: True, journaled as a ``patched`` marker)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from minirt import FakeClock, Runtime
from minirt.divergence import HistoryNotConsumed, PatchNameInvalid
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.journal import NonDeterminism
from minirt.run import RunState
from minirt.store import open_store
from minirt.tools import EffectClass, FunctionTool

pytest_plugins = ["pg_fixture"]


@pytest.fixture
def url(store_url: str) -> str:  # tests/conftest.py: SQLite, and PostgreSQL with -m postgres
    return store_url


class World:
    def __init__(self) -> None:
        self.sent: Counter[str] = Counter()

    def tools(self) -> list[FunctionTool]:
        def make(name: str) -> FunctionTool:
            def fn(order: str) -> Any:
                self.sent[name] += 1
                return {name: order}
            return FunctionTool(fn, name=name, effect=EffectClass.KEYED)
        return [make(n) for n in ("charge", "ship", "refund", "notify")]


def v1(ctx, inp):
    a = ctx.call_tool("charge", order=inp["order"])
    b = ctx.call_tool("ship", order=inp["order"])
    return [a, b]


def v2_removed(ctx, inp):
    return [ctx.call_tool("charge", order=inp["order"])]


def v2_changed(ctx, inp):
    a = ctx.call_tool("charge", order=inp["order"])
    return [a, ctx.call_tool("refund", order=inp["order"])]


def v2_patched(ctx, inp):
    a = ctx.call_tool("charge", order=inp["order"])
    if ctx.patched("notify-after-charge"):
        ctx.call_tool("notify", order=inp["order"])
    return [a, ctx.call_tool("ship", order=inp["order"])]


def runtime(url, world, wf, **kw):
    return Runtime(open_store(url), tools=world.tools(), workflows={"order": wf},
                   clock=kw.pop("clock", FakeClock(1e6)), **kw)


def crashed_before_complete(url, world, wf=v1, run_id="r1"):
    rt = runtime(url, world, wf, faults=FaultPlan(crash_at="before_complete"), lease_for=5)
    with pytest.raises(SimulatedCrash):
        rt.run_workflow("order", {"order": "o1"}, run_id=run_id)
    rt.close()


def later(url, world, wf):
    return runtime(url, world, wf, clock=FakeClock(1e6 + 60))  # past the dead worker's lease


def test_a_removed_call_is_refused_at_the_end_and_the_run_is_parked(url):
    world = World()
    crashed_before_complete(url, world)
    rt = later(url, world, v2_removed)
    out = rt.resume("r1")
    # before: SUCCEEDED with [charge] only, as if the shipment had never been made
    assert out.state is RunState.WAITING, out
    assert isinstance(out.error, HistoryNotConsumed) and isinstance(out.error, NonDeterminism)
    assert out.error.step == 1 and "tool 'ship'" in out.error.recorded
    assert out.error.requested == "the end of the workflow"
    diverged = rt.store.get_run("r1").run.detail["diverged"]
    assert diverged["step"] == 1 and "tool 'ship'" in diverged["recorded"]
    assert diverged["requested"] == "the end of the workflow"
    assert rt.work() == []  # no worker picks a parked run up (it does not jam the loop)
    assert isinstance(rt.outcome("r1").error, HistoryNotConsumed)
    rt.close()
    rt = later(url, world, v1)  # roll the deploy back and resume
    assert rt.resume("r1").result() == [{"charge": "o1"}, {"ship": "o1"}]
    assert world.sent == {"charge": 1, "ship": 1}
    rt.close()


def test_a_changed_call_parks_the_run_and_a_rollback_finishes_it(url):
    world = World()
    crashed_before_complete(url, world)
    rt = later(url, world, v2_changed)
    out = rt.resume("r1")
    assert out.state is RunState.WAITING and type(out.error) is NonDeterminism
    run = rt.store.get_run("r1").run
    assert run.worker_id is None and run.lease_expires_at is None
    d = run.detail["diverged"]
    assert d["step"] == 1 and "tool 'ship'" in d["recorded"] and "tool 'refund'" in d["requested"]
    assert rt.resume("r1").state is RunState.WAITING  # resuming the bad code: parked again
    rt.close()
    rt = later(url, world, v1)
    assert rt.resume("r1").result() == [{"charge": "o1"}, {"ship": "o1"}]
    assert rt.store.get_run("r1").run.detail.get("diverged") is None
    assert world.sent == {"charge": 1, "ship": 1}  # refund never sent, nothing sent twice
    wakes = [e.payload for e in rt.store.read("r1") if e.kind == "transition"
             and e.payload["event"] == "wake"]
    assert [w.get("reason") for w in wakes] == ["resume after divergence"] * 2
    rt.close()


def test_patched_is_false_for_an_old_history_and_consumes_nothing(url):
    world = World()
    crashed_before_complete(url, world, v1)
    rt = later(url, world, v2_patched)
    assert rt.resume("r1").result() == [{"charge": "o1"}, {"ship": "o1"}]
    assert world.sent == {"charge": 1, "ship": 1}  # notify is new code: not for this run
    assert [e for e in rt.store.read("r1") if e.kind == "patched"] == []
    rt.close()


def test_patched_is_true_for_a_new_run_journaled_and_replayed_as_a_marker(url):
    world = World()
    crashed_before_complete(url, world, v2_patched, run_id="r2")
    (marker,) = [e for e in open_store(url).read("r2") if e.kind == "patched"]
    assert marker.step == 1 and marker.payload == {"name": "notify-after-charge"}
    rt = later(url, world, v2_patched)
    assert rt.resume("r2").result() == [{"charge": "o1"}, {"ship": "o1"}]
    assert world.sent == {"charge": 1, "notify": 1, "ship": 1}  # the replay sent nothing again
    rt.close()
    # rolling the patch back under a run that recorded it is a divergence: parked, named
    world2 = World()
    crashed_before_complete(url, world2, v2_patched, run_id="r3")
    rt = later(url, world2, v1)
    out = rt.resume("r3")
    assert out.state is RunState.WAITING and isinstance(out.error, NonDeterminism)
    assert out.error.step == 1 and "patch marker 'notify-after-charge'" in out.error.recorded
    rt.close()


def test_patched_needs_a_name(tmp_path):
    world = World()
    rt = runtime(str(tmp_path / "r.sqlite"), world, lambda ctx, inp: ctx.patched(""))
    out = rt.run_workflow("order", {}, run_id="r1")
    assert out.state is RunState.FAILED and isinstance(out.error, PatchNameInvalid)


def test_a_replay_that_fails_before_its_recorded_end_is_parked_not_failed(tmp_path):
    world = World()
    url = str(tmp_path / "r.sqlite")
    crashed_before_complete(url, world)

    def v2_raises(ctx, inp):
        ctx.call_tool("charge", order=inp["order"])
        raise ValueError("new validation the old run never met")

    rt = later(url, world, v2_raises)
    out = rt.resume("r1")
    assert out.state is RunState.WAITING and isinstance(out.error, HistoryNotConsumed)
    assert "ValueError" in out.error.requested
    rt.close()


def test_an_uncertain_run_that_diverges_is_parked_and_stays_uncertain_after_rollback(tmp_path):
    sent: list[str] = []

    def wire(order: str) -> Any:
        sent.append(order)
        return {"wired": order}

    def tools():
        return [FunctionTool(wire, effect=EffectClass.IRREVERSIBLE)]  # no key, no lookup

    def w1(ctx, inp):
        return ctx.call_tool("wire", order="o1")

    def w2(ctx, inp):
        return ctx.call_tool("wire", order="o2")

    url = str(tmp_path / "r.sqlite")
    rt = Runtime(open_store(url), tools=tools(), workflows={"w": w1}, clock=FakeClock(1e6),
                 faults=FaultPlan(crash_at="after_intent"), lease_for=5)
    with pytest.raises(SimulatedCrash):
        rt.run_workflow("w", {}, run_id="r1")
    rt.close()
    rt = Runtime(open_store(url), tools=tools(), workflows={"w": w1}, clock=FakeClock(1e6 + 60),
                 lease_for=5)
    assert rt.resume("r1").state is RunState.UNCERTAIN and sent == []
    rt.close()
    rt = Runtime(open_store(url), tools=tools(), workflows={"w": w2}, clock=FakeClock(1e6 + 120),
                 lease_for=5)
    out = rt.resume("r1")
    assert out.state is RunState.WAITING and isinstance(out.error, NonDeterminism)
    assert rt.store.get_run("r1").run.detail["diverged"]["was_uncertain"] is True
    rt.close()
    rt = Runtime(open_store(url), tools=tools(), workflows={"w": w1}, clock=FakeClock(1e6 + 180),
                 lease_for=5)
    assert rt.resume("r1").state is RunState.UNCERTAIN  # the open intent is still unknown
    assert sent == []  # and was never sent blindly
    rt.close()
