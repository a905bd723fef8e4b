"""Runtime budgets: reservations before dispatch, settle/release, hierarchy, atomicity, replay."""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

import pytest

from minirt.budget import (
    K_CLOSED,
    Accounts,
    BadAmount,
    BudgetExceeded,
    BudgetHook,
    NoBudget,
    ReservationUnknown,
    RetryRefused,
    audit,
    close,
    history,
    release,
    reserve,
    run_child,
    settle,
    start_child,
    usage_of,
)
from minirt.clock import FakeClock
from minirt.errors import from_record
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.run import RunState, StaleIncarnation
from minirt.runtime import Runtime, ScriptedModel
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, OutcomeUnknown, tool


def ledger(tmp_path: Path, limits: dict[str, float] | None = None, run_id: str = "r1"
           ) -> Accounts:
    store = SQLiteStore(tmp_path / "runs.sqlite")
    store.create_run(run_id, "wf", "null", 0.0)
    acc = Accounts(store, clock=FakeClock())
    acc.open(run_id, limits if limits is not None else {"tokens": 1000, "tool_attempts": 3})
    return acc


def budget_events(acc: Accounts, run_id: str = "r1") -> list[dict[str, Any]]:
    return [e.payload for e in acc.store.read(run_id) if e.kind == "budget"]


# -- reserve ------------------------------------------------------------------------------------

def test_a_reservation_holds_its_amounts(tmp_path: Path) -> None:
    acc = ledger(tmp_path)
    reserve(acc, "r1", "decision:0", {"tokens": 300})
    account = acc.account("r1")
    assert account is not None
    assert account.held == {"tokens": 300} and account.available("tokens") == 700


def test_a_reservation_past_the_limit_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    acc = ledger(tmp_path)
    reserve(acc, "r1", "a", {"tokens": 800})
    before, events = acc.store.kv_items("r1"), len(acc.store.read("r1"))
    with pytest.raises(BudgetExceeded) as err:
        reserve(acc, "r1", "b", {"tokens": 300})
    e = err.value
    assert (e.run_id, e.dimension, e.requested, e.available, e.limited_by) == \
        ("r1", "tokens", 300, 200, "r1")
    assert "300 tokens refused, 200 available" in str(e)
    assert acc.store.kv_items("r1") == before and len(acc.store.read("r1")) == events


def test_reserving_the_same_id_twice_holds_once(tmp_path: Path) -> None:
    acc = ledger(tmp_path)
    first = reserve(acc, "r1", "tool:1:1", {"tool_attempts": 1})
    again = reserve(acc, "r1", "tool:1:1", {"tool_attempts": 1})
    assert again == first
    assert acc.account("r1").held == {"tool_attempts": 1}
    assert [p["op"] for p in budget_events(acc)] == ["open", "reserve"]


def test_an_unlimited_dimension_is_never_refused(tmp_path: Path) -> None:
    acc = ledger(tmp_path, {"tokens": 10})
    reserve(acc, "r1", "a", {"compute_seconds": 1e9})
    assert acc.account("r1").available("compute_seconds") == math.inf


@pytest.mark.parametrize("amounts", [{"tokens": -1}, {"tokens": math.nan}, {"tokens": True},
                                     {"dollars": 5}, {"tokens": "5"}])
def test_bad_amounts_are_refused_before_anything_is_written(tmp_path: Path, amounts) -> None:
    acc = ledger(tmp_path)
    with pytest.raises(BadAmount):
        reserve(acc, "r1", "x", amounts)
    assert acc.reservations("r1") == []


def test_a_run_without_an_account_cannot_reserve(tmp_path: Path) -> None:
    acc = ledger(tmp_path)
    acc.store.create_run("r2", "wf", "null", 0.0)
    with pytest.raises(NoBudget):
        reserve(acc, "r2", "x", {"tokens": 1})


def test_opening_an_account_twice_keeps_the_first_limits(tmp_path: Path) -> None:
    acc = ledger(tmp_path, {"tokens": 100})
    assert acc.open("r1", {"tokens": 999}).limits == {"tokens": 100}


# -- settle and release --------------------------------------------------------------------------

def test_settle_charges_the_use_and_releases_the_rest(tmp_path: Path) -> None:
    acc = ledger(tmp_path)
    reserve(acc, "r1", "decision:0", {"tokens": 300})
    res = settle(acc, "r1", "decision:0", {"tokens": 120})
    account = acc.account("r1")
    assert res.state == "settled" and res.used == {"tokens": 120}
    assert account.held == {} and account.used == {"tokens": 120}
    assert account.available("tokens") == 880


def test_settling_twice_counts_once(tmp_path: Path) -> None:
    acc = ledger(tmp_path)
    reserve(acc, "r1", "decision:0", {"tokens": 300})
    settle(acc, "r1", "decision:0", {"tokens": 120})
    settle(acc, "r1", "decision:0", {"tokens": 120})
    assert acc.account("r1").used == {"tokens": 120}
    assert [p["op"] for p in budget_events(acc)] == ["open", "reserve", "settle"]


def test_release_gives_everything_back(tmp_path: Path) -> None:
    acc = ledger(tmp_path)
    reserve(acc, "r1", "tool:1:2", {"tool_attempts": 1})
    assert release(acc, "r1", "tool:1:2").state == "released"
    assert acc.account("r1").held == {} and acc.account("r1").used == {}


def test_settling_an_unknown_reservation_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ReservationUnknown):
        settle(ledger(tmp_path), "r1", "nope", {"tokens": 1})


def test_an_overrun_is_recorded_and_refuses_what_follows(tmp_path: Path) -> None:
    acc = ledger(tmp_path, {"tokens": 500})
    reserve(acc, "r1", "d0", {"tokens": 300})
    settle(acc, "r1", "d0", {"tokens": 600})  # the model ignored its bound: truth is recorded
    assert acc.account("r1").used == {"tokens": 600}
    with pytest.raises(BudgetExceeded) as err:
        reserve(acc, "r1", "d1", {"tokens": 1})
    assert err.value.available == 0
    assert ("over-limit", "r1 tokens: held 0 + used 600 > limit 500") in audit(acc, "r1")


def test_close_releases_leftover_holds_once_and_records_it(tmp_path: Path) -> None:
    acc = ledger(tmp_path)
    reserve(acc, "r1", "tool:3:1", {"tool_attempts": 1})
    assert close(acc, "r1") == ["tool:3:1"]
    assert close(acc, "r1") == []
    assert acc.account("r1").held == {} and acc.store.kv_get("r1", K_CLOSED) is not None
    assert audit(acc, "r1") == []


# -- durability, atomicity, fencing ---------------------------------------------------------------

def test_a_reservation_survives_reopening_the_store(tmp_path: Path) -> None:
    acc = ledger(tmp_path)
    reserve(acc, "r1", "decision:0", {"tokens": 300})
    acc.store.close()
    again = Accounts(SQLiteStore(tmp_path / "runs.sqlite"))
    assert again.reservation("r1", "decision:0").is_open
    assert again.account("r1").held == {"tokens": 300}
    assert budget_events(again)[-1]["op"] == "reserve"


def test_a_crash_inside_the_reservation_writes_nothing(tmp_path: Path, monkeypatch) -> None:
    acc = ledger(tmp_path)
    acc.store.create_run("r1/child", "wf", "null", 0.0)
    acc.open("r1/child", parent="r1")
    before = (acc.store.kv_items("r1"), acc.store.kv_items("r1/child"))

    def dies(*a: Any, **k: Any) -> None:
        raise SimulatedCrash("inside_reserve", 1)

    monkeypatch.setattr(acc.store, "append", dies)  # after the parent's kv, before the child's
    with pytest.raises(SimulatedCrash):
        reserve(acc, "r1/child", "d0", {"tokens": 100})
    monkeypatch.undo()
    assert (acc.store.kv_items("r1"), acc.store.kv_items("r1/child")) == before


def test_a_stale_incarnation_cannot_spend(tmp_path: Path) -> None:
    acc = ledger(tmp_path)
    zombie = Accounts(acc.store, incarnation=7)
    with pytest.raises(StaleIncarnation):
        reserve(zombie, "r1", "d0", {"tokens": 100})
    assert acc.account("r1").held == {}


def test_threads_racing_never_overshoot_the_limit(tmp_path: Path) -> None:
    acc = ledger(tmp_path, {"tool_attempts": 10})
    start, won, refused = threading.Barrier(32), [], []

    def worker(i: int) -> None:
        start.wait()
        try:
            reserve(acc, "r1", f"tool:{i}:1", {"tool_attempts": 1})
            won.append(i)
        except BudgetExceeded:
            refused.append(i)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (len(won), len(refused)) == (10, 22)
    assert acc.account("r1").held == {"tool_attempts": 10}
    assert audit(acc, "r1", finished=False) == []


# -- hierarchy -----------------------------------------------------------------------------------

def family(tmp_path: Path) -> Accounts:
    acc = ledger(tmp_path, {"tokens": 1000})
    acc.store.create_run("r1/a", "wf", "null", 0.0)
    acc.open("r1/a", {"tokens": 800}, parent="r1")
    return acc


def test_a_childs_reservation_is_charged_to_its_parent(tmp_path: Path) -> None:
    acc = family(tmp_path)
    reserve(acc, "r1/a", "d0", {"tokens": 300})
    settle(acc, "r1/a", "d0", {"tokens": 250})
    assert acc.account("r1").used == {"tokens": 250}
    assert acc.account("r1").available("tokens") == 750
    assert audit(acc, "r1") == []


def test_a_child_is_refused_by_its_parents_limit(tmp_path: Path) -> None:
    acc = family(tmp_path)
    reserve(acc, "r1", "parent", {"tokens": 700})
    with pytest.raises(BudgetExceeded) as err:
        reserve(acc, "r1/a", "d0", {"tokens": 400})  # within the child's 800, not the parent's
    assert (err.value.limited_by, err.value.available) == ("r1", 300)


def test_history_orders_the_changes_of_a_run_and_its_children(tmp_path: Path) -> None:
    acc = family(tmp_path)
    reserve(acc, "r1", "p0", {"tokens": 100})
    reserve(acc, "r1/a", "c0", {"tokens": 100})
    settle(acc, "r1", "p0", {"tokens": 50})
    ops = [(h["run_id"], h["op"], h.get("reservation")) for h in history(acc.store, "r1")
           if h["op"] != "open"]
    assert ops == [("r1", "reserve", "p0"), ("r1/a", "reserve", "c0"), ("r1", "settle", "p0")]


# -- the runtime hook ----------------------------------------------------------------------------

PLAN = {"amount": 30, "usage": {"input_tokens": 100, "output_tokens": 20}}


def make(tmp_path: Path, limits: dict[str, float], *, faults: Any = None, tools: Any = (),
         workflow: Any = None, clock: FakeClock | None = None, tokens: float = 300) -> Runtime:
    def agent(ctx, inp):
        plan = ctx.decide({"task": inp})
        return {"receipt": ctx.call_tool("pay", amount=plan["amount"])}

    return Runtime(SQLiteStore(tmp_path / "runs.sqlite"), tools=tools or [pay_tool()],
                   workflows={"agent": workflow or agent, "child": child_agent},
                   model=ScriptedModel(lambda p, i: dict(PLAN)), clock=clock or FakeClock(),
                   faults=faults, hooks=[BudgetHook(limits, tokens_per_decision=tokens)])


def pay_tool(fail_first: int = 0) -> Any:
    calls: list[int] = []

    @tool(EffectClass.KEYED, name="pay")
    def pay(amount: int, call: Any = None) -> dict[str, Any]:
        calls.append(call.attempt)
        if len(calls) <= fail_first:
            raise OutcomeUnknown(tool="pay", effect_key=call.effect_key, reason="timeout")
        return {"paid": amount}

    pay.calls = calls  # type: ignore[attr-defined]
    return pay


def child_agent(ctx: Any, inp: Any) -> Any:
    return ctx.decide({"child": inp})


def test_a_run_reserves_and_settles_its_decision_and_its_tool_call(tmp_path: Path) -> None:
    rt = make(tmp_path, {"tokens": 1000, "tool_attempts": 2})
    assert rt.run_workflow("agent", "x", run_id="r1").state is RunState.SUCCEEDED
    acc = Accounts(rt.store)
    assert acc.account("r1").used == {"tokens": 120, "tool_attempts": 1}
    assert {r.reservation_id: r.state for r in acc.reservations("r1")} == \
        {"decision:0": "settled", "tool:1:1": "settled"}
    assert audit(acc, "r1") == []


def test_a_tool_call_past_the_budget_is_refused_before_its_intent(tmp_path: Path) -> None:
    rt = make(tmp_path, {"tool_attempts": 0})
    out = rt.run_workflow("agent", "x", run_id="r1")
    assert out.state is RunState.FAILED and isinstance(out.error, BudgetExceeded)
    kinds = [e.kind for e in rt.store.read("r1")]
    assert "tool_rejected" in kinds and "intent" not in kinds
    assert not rt.tools["pay"].calls  # never dispatched


def test_a_decision_past_the_budget_never_asks_the_model(tmp_path: Path) -> None:
    rt = make(tmp_path, {"tokens": 100})  # a decision reserves 300
    out = rt.run_workflow("agent", "x", run_id="r1")
    assert out.state is RunState.FAILED and isinstance(out.error, BudgetExceeded)
    assert rt.model.calls == 0 and not [e for e in rt.store.read("r1") if e.kind == "decision"]


def test_a_resend_past_the_retry_budget_leaves_the_outcome_unknown(tmp_path: Path) -> None:
    pay = pay_tool(fail_first=5)
    rt = make(tmp_path, {"retries": 2}, tools=[pay])
    out = rt.run_workflow("agent", "x", run_id="r1")
    assert out.state is RunState.UNCERTAIN and isinstance(out.error, RetryRefused)
    assert pay.calls == [1, 2, 3]  # the first attempt and two resends, then refused
    assert Accounts(rt.store).account("r1").held == {"retries": 2, "tool_attempts": 3,
                                                      "compute_seconds": 90.0}


def test_the_resends_the_run_made_are_settled_as_retries(tmp_path: Path) -> None:
    rt = make(tmp_path, {"retries": 2}, tools=[pay_tool(fail_first=1)])
    assert rt.run_workflow("agent", "x", run_id="r1").state is RunState.SUCCEEDED
    used = Accounts(rt.store).account("r1").used
    assert (used["tool_attempts"], used["retries"]) == (2, 1)


@pytest.mark.parametrize("point", ["after_budget_reserve", "after_intent", "before_result",
                                   "after_result", "before_budget_settle"])
def test_a_crash_between_reserve_and_settle_is_settled_once_on_recovery(tmp_path: Path,
                                                                        point: str) -> None:
    clock = FakeClock()
    occurrence = 2 if point in ("after_budget_reserve", "before_budget_settle") else 1
    rt = make(tmp_path, {"tokens": 1000, "tool_attempts": 3},
              faults=FaultPlan(crash_at=point, occurrence=occurrence), clock=clock)
    rid = rt.start("agent", "x", run_id="r1")
    with pytest.raises(SimulatedCrash):
        rt.run(rid)
    rt.close()
    clock.advance(3600)
    rt = make(tmp_path, {"tokens": 1000, "tool_attempts": 3}, clock=clock)
    assert rt.resume(rid).state is RunState.SUCCEEDED
    acc = Accounts(rt.store)
    sent = [e.kind for e in rt.store.read("r1") if e.kind in ("intent", "attempt")]
    assert acc.account("r1").used["tool_attempts"] == len(sent) and acc.account("r1").held == {}
    assert acc.account("r1").used["tokens"] == 120 and audit(acc, "r1") == []


def test_a_replay_of_a_finished_run_changes_nothing(tmp_path: Path) -> None:
    clock = FakeClock()
    rt = make(tmp_path, {"tokens": 1000}, faults=FaultPlan(crash_at="before_complete"),
              clock=clock)
    rid = rt.start("agent", "x", run_id="r1")
    with pytest.raises(SimulatedCrash):
        rt.run(rid)
    rt.close()
    clock.advance(3600)
    before = Accounts(SQLiteStore(tmp_path / "runs.sqlite")).account("r1")
    rt = make(tmp_path, {"tokens": 1000}, clock=clock)
    rt.resume(rid)  # replays the decision and the tool call, settles nothing again
    assert Accounts(rt.store).account("r1").used == before.used


def test_a_child_run_draws_from_its_parents_budget(tmp_path: Path) -> None:
    def parent(ctx, inp):
        child = start_child(ctx, "child", {"q": 1}, name="c", limits={"tokens": 500})
        return run_child(ctx, child)

    rt = make(tmp_path, {"tokens": 1000, "child_runs": 1}, workflow=parent)
    assert rt.run_workflow("agent", None, run_id="r1").state is RunState.SUCCEEDED
    acc = Accounts(rt.store)
    assert acc.account("r1/c").used == {"tokens": 120}
    assert acc.account("r1").used == {"tokens": 120, "child_runs": 1}
    assert audit(acc, "r1") == []


def test_a_second_child_past_the_child_budget_is_refused(tmp_path: Path) -> None:
    def parent(ctx, inp):
        for name in ("a", "b"):
            run_child(ctx, start_child(ctx, "child", name, name=name))

    rt = make(tmp_path, {"child_runs": 1}, workflow=parent)
    out = rt.run_workflow("agent", None, run_id="r1")
    assert isinstance(out.error, BudgetExceeded) and out.error.dimension == "child_runs"
    assert [r.run.run_id for r in rt.store.list_runs()] == ["r1", "r1/a"]


def test_budget_errors_survive_the_journal_round_trip() -> None:
    exc = BudgetExceeded(run_id="r1", dimension="tokens", requested=5, available=1,
                         limited_by="r0")
    again = from_record(exc.to_record())
    assert type(again) is BudgetExceeded and str(again) == str(exc)


@pytest.mark.parametrize("output, tokens", [
    ({"usage": {"total_tokens": 42}}, 42), ({"usage": {"input_tokens": 4, "output_tokens": 2}}, 6),
    ({"answer": 1}, 300), ("plain text", 300)])
def test_usage_is_read_from_the_output_or_charged_in_full(output: Any, tokens: float) -> None:
    assert usage_of(output, 300) == tokens


# -- the picture (course tooling, drawn from the ledger) ------------------------------------------

def test_the_burn_down_is_drawn_from_the_ledgers_journal(tmp_path: Path) -> None:
    from minirt.viz.budget import burn_down, series
    from minirt_course.scenarios import m09_budget as m09

    assert crash_once_ok(m09, tmp_path)
    store = SQLiteStore(tmp_path / "runs.sqlite")
    points, limits = series(store, "run-m09")
    assert points["tokens"][-1].used == 400 and points["tokens"][-1].held == 0
    assert max(p.held for p in points["tokens"]) == 300  # one decision's bound at a time
    svg = burn_down(store, "run-m09").text
    assert svg.startswith("<svg") and svg.count("<title>") == 5 * len(points["tokens"])
    assert "400 / 1000" in svg and "1 / 4" in svg  # tokens and retries, used / limit


def crash_once_ok(m09: Any, workdir: Path) -> bool:
    from minirt.faults import crash_once

    return crash_once(m09.reference, "before_budget_settle", occurrence=3, workdir=workdir).ok
