"""Every dispatch path hands the tool the deadline in force, the runtime's scopes and the
incarnation of the worker that sends it (one ToolCall factory: minirt.dispatch.new_call).

Paths: sequential ``call_tool``, ``Saga.step``, a saga's compensation, a fan-out wave, a resend
after a crash at ``after_intent``, a resend the reconcile policy allows after an unknown outcome,
and the cancellation look-up of an open intent.
"""

from __future__ import annotations

from typing import Any

import pytest

from minirt import FakeClock, FaultPlan, SimulatedCrash, SQLiteStore
from minirt.cancel import CancellableRuntime, cancel, fail_after
from minirt.effects import Saga
from minirt.scheduler import Call, parallel
from minirt.tools import EffectClass, Lookup, OutcomeUnknown, ToolCall, tool

SCOPES = frozenset({"payments:write"})


class Probe:
    """Tools that record what they were handed."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int, float | None, frozenset[str], int]] = []
        self.lost_once = False
        self.looked_up: list[ToolCall] = []

    def note(self, name: str, call: ToolCall) -> None:
        self.seen.append((name, call.attempt, call.deadline_at, call.scopes, call.incarnation))

    def tools(self) -> list[Any]:
        @tool(EffectClass.KEYED)
        def probe(call=None):
            self.note("probe", call)
            return {"ok": True}

        @tool(EffectClass.KEYED)
        def undo(call=None):
            self.note("undo", call)
            return {"undone": True}

        @tool(EffectClass.KEYED)
        def flaky(call=None):
            self.note("flaky", call)
            if not self.lost_once:
                self.lost_once = True
                raise OutcomeUnknown(tool="flaky", effect_key=call.effect_key, reason="timeout")
            return {"ok": True}

        def lookup(call: ToolCall) -> Lookup:
            self.looked_up.append(call)
            return Lookup(False)

        @tool(EffectClass.IRREVERSIBLE, lookup=lookup)
        def looked(call=None):
            self.note("looked", call)
            return {"ok": True}

        return [probe, undo, flaky, looked]


def runtime(tmp_path, probe: Probe, agent: Any, *, at: float = 1000.0, faults: Any = None,
            worker: str = "w1", cls: type[CancellableRuntime] = CancellableRuntime
            ) -> CancellableRuntime:
    """``cls`` (a CancellableRuntime, such as minirt.aio.AsyncRuntime) over ``probe``'s tools."""
    return cls(SQLiteStore(tmp_path / "r.sqlite"), tools=probe.tools(),
               workflows={"agent": agent}, clock=FakeClock(at), scopes=SCOPES,
               faults=faults, worker_id=worker)


def test_a_sequential_tool_call_sees_the_innermost_deadline(tmp_path):
    probe = Probe()

    def agent(ctx, _):
        ctx.call_tool("probe")
        with fail_after(ctx, 60, name="outer"):
            ctx.call_tool("probe")
            with fail_after(ctx, 10, name="inner"):
                ctx.call_tool("probe")
        return None

    rt = runtime(tmp_path, probe, agent)
    rt.run_workflow("agent", None, run_id="r1").result()
    assert [s[2] for s in probe.seen] == [None, 1060.0, 1010.0]
    assert all(s[3] == SCOPES and s[4] == 1 for s in probe.seen)


def test_a_saga_step_and_its_compensation_see_the_deadline(tmp_path):
    probe = Probe()

    def agent(ctx, _):
        with fail_after(ctx, 60):
            saga = Saga(ctx, "s")
            saga.step("probe", {}, compensate=("undo", lambda args, receipt: {}))
            report = saga.compensate("test")
        return report.outcomes()

    rt = runtime(tmp_path, probe, agent)
    assert rt.run_workflow("agent", None, run_id="r1").result() == {"probe": "compensated"}
    assert probe.seen == [("probe", 1, 1060.0, SCOPES, 1), ("undo", 1, 1060.0, SCOPES, 1)]


def test_a_fan_out_wave_sees_the_deadline(tmp_path):
    probe = Probe()

    def agent(ctx, _):
        with fail_after(ctx, 60):
            parallel(ctx, [Call("probe", name="a"), Call("probe", name="b")])
        return None

    rt = runtime(tmp_path, probe, agent)
    rt.run_workflow("agent", None, run_id="r1").result()
    assert sorted(probe.seen) == [("probe", 1, 1060.0, SCOPES, 1)] * 2


def test_a_resend_after_a_crash_at_after_intent_keeps_the_deadline(tmp_path):
    probe = Probe()

    def agent(ctx, _):
        with fail_after(ctx, 60):
            ctx.call_tool("probe")
        return None

    rt = runtime(tmp_path, probe, agent, faults=FaultPlan(crash_at="after_intent"))
    run_id = rt.start("agent", None, run_id="r1")
    with pytest.raises(SimulatedCrash):
        rt.run(run_id)
    rt.close()
    assert probe.seen == []
    rt2 = runtime(tmp_path, probe, agent, at=1040.0, worker="w2")  # past the first lease
    rt2.resume(run_id).result()
    assert probe.seen == [("probe", 2, 1060.0, SCOPES, 2)]


def test_a_resend_the_reconcile_policy_allows_keeps_the_deadline(tmp_path):
    probe = Probe()

    def agent(ctx, _):
        with fail_after(ctx, 60):
            ctx.call_tool("flaky")
        return None

    rt = runtime(tmp_path, probe, agent)
    rt.run_workflow("agent", None, run_id="r1").result()
    assert probe.seen == [("flaky", 1, 1060.0, SCOPES, 1), ("flaky", 2, 1060.0, SCOPES, 1)]


def test_the_cancellation_look_up_sees_the_deadline(tmp_path):
    probe = Probe()

    def agent(ctx, _):
        with fail_after(ctx, 60):
            ctx.call_tool("looked")  # Cancelled is raised here on resume, after the look-up
        return None

    rt = runtime(tmp_path, probe, agent, faults=FaultPlan(crash_at="after_intent"))
    run_id = rt.start("agent", None, run_id="r1")
    with pytest.raises(SimulatedCrash):
        rt.run(run_id)
    rt.close()
    rt2 = runtime(tmp_path, probe, agent, at=1040.0, worker="w2")
    assert cancel(rt2, run_id, "stop")
    assert rt2.resume(run_id).state.value == "cancelled"
    assert probe.seen == []  # never resent after a cancel, only looked up
    assert probe.looked_up, "the open intent was not looked up"
    call = probe.looked_up[0]
    assert (call.deadline_at, call.scopes, call.incarnation) == (1060.0, SCOPES, 2)
