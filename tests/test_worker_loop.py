"""The worker loop: a claim made by Runtime.work() is journaled in the same transaction."""

from __future__ import annotations

import json

from minirt import FakeClock, Runtime, SQLiteStore


def agent(ctx, n):
    return ctx.step("double", lambda: n * 2)


def test_a_worker_loop_claim_is_journaled_like_a_direct_run(tmp_path):
    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), workflows={"agent": agent},
                 clock=FakeClock(), worker_id="w-loop")
    rt.start("agent", 21, run_id="r1")
    [outcome] = rt.work()
    assert outcome.result() == 42
    claims = [json.loads(e.payload_json) for e in rt.store.read("r1")
              if e.kind == "transition" and json.loads(e.payload_json)["event"] == "claim"]
    assert claims == [{"event": "claim", "worker_id": "w-loop"}]


def test_a_claim_with_nothing_runnable_writes_nothing(tmp_path):
    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), workflows={"agent": agent},
                 clock=FakeClock())
    assert rt.work() == []


def test_run_on_a_waiting_run_returns_waiting_without_claiming(tmp_path):
    def waits(ctx, _):
        return ctx.wait_for("go")

    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), workflows={"waits": waits},
                 clock=FakeClock())
    first = rt.run_workflow("waits", None, run_id="r1")
    revision = rt.store.get_run("r1").run.revision
    again = rt.run("r1")
    assert first.state.value == again.state.value == "waiting"
    assert rt.store.get_run("r1").run.revision == revision


def test_an_uncertain_run_is_running_again_as_soon_as_its_effect_is_settled(tmp_path):
    from minirt import FaultPlan, SimulatedCrash
    from minirt.tools import EffectClass, Lookup, tool

    sent: list[str] = []
    states: list[str] = []

    def look(call):
        return Lookup(found=call.effect_key in sent, result={"sent": True})

    @tool(EffectClass.IRREVERSIBLE, lookup=look)
    def email(to: str, call=None):
        sent.append(call.effect_key)
        return {"sent": True}

    def agent(ctx, _):
        ctx.call_tool("email", to="ada@example.org")
        states.append(ctx.runtime.store.get_run(ctx.run_id).run.state.value)
        return "done"

    path = tmp_path / "r.sqlite"
    clock = FakeClock()
    rt = Runtime(SQLiteStore(path), tools=[email], workflows={"agent": agent}, clock=clock,
                 faults=FaultPlan(crash_at="after_provider_commit"))
    rt.start("agent", None, run_id="r1")
    try:
        rt.run("r1")
    except SimulatedCrash:
        pass
    rt.close()
    clock.advance(3600)
    # A first recovery whose lookup cannot answer leaves the run UNCERTAIN ...
    blind = Runtime(SQLiteStore(path), tools=[email], workflows={"agent": agent}, clock=clock,
                    reconcile=lambda ctx, t, c: __import__("minirt.runtime", fromlist=["x"])
                    .Resolution("unknown", reason="provider down"))
    assert blind.run("r1").state.value == "uncertain"
    blind.close()
    clock.advance(3600)
    # ... the next one settles it by lookup and is RUNNING from there on, not only at the end.
    rt = Runtime(SQLiteStore(path), tools=[email], workflows={"agent": agent}, clock=clock)
    assert rt.run("r1").result() == "done"
    assert states == ["running"] and len(sent) == 1
