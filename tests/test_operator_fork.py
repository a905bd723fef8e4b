"""``retry`` and ``fork`` (minirt.operator, ``minirt retry|fork``): journaled with who and why,
on SQLite and PostgreSQL (``-m postgres``); a retried run does not redo the steps that had
succeeded, a fork replays the copy and runs the rest as new work."""

from __future__ import annotations

import json

import pytest

from minirt import EffectClass, Runtime, ScriptedModel, tool
from minirt.cli import main
from minirt.errors import ToolError
from minirt.operator import CannotFork, Operator, last_consistent, operator_events
from minirt.run import RunState
from minirt.store import open_store

pytest_plugins = ["pg_fixture"]


class Provider:
    """Counts every call; ``fail_next`` makes the next ship call a definite error."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.fail_next = False

    def runtime(self, store) -> Runtime:
        @tool(EffectClass.KEYED)
        def reserve(item: str):
            self.calls.append(("reserve", {"item": item}))
            return {"reserved": item}

        @tool(EffectClass.KEYED)
        def ship(item: str):
            self.calls.append(("ship", {"item": item}))
            if self.fail_next:
                self.fail_next = False
                raise ToolError(tool="ship", reason="the carrier refused the parcel")
            return {"shipped": item}

        def order(ctx, inp):
            a = ctx.call_tool("reserve", item=inp["item"])
            b = ctx.call_tool("ship", item=inp["item"])
            return {**a, **b}

        def wait_go(ctx, inp):
            return ctx.wait_for("go")

        return Runtime(store, tools=[reserve, ship], model=ScriptedModel([]),
                       workflows={"order": order, "wait_go": wait_go})


def test_retry_of_a_failed_run_redoes_only_the_failed_step(store_url, capsys):
    world = Provider()
    rt = world.runtime(open_store(store_url))
    world.fail_next = True
    rt.start("order", {"item": "book"}, run_id="o1")
    assert rt.run("o1").state is RunState.FAILED
    assert [c[0] for c in world.calls] == ["reserve", "ship"]
    assert last_consistent(rt.store, "o1") == 1  # step 0 (reserve) is consistent, 1 failed

    op = Operator.for_runtime(rt)
    done = op.retry("o1", by="ana", reason="the carrier is back")
    assert (done.run_id, done.position, done.resumed) == ("o1.retry1", 1, False)
    out = rt.resume(done.run_id)
    assert out.state is RunState.SUCCEEDED
    assert out.value == {"reserved": "book", "shipped": "book"}
    assert [c[0] for c in world.calls] == ["reserve", "ship", "ship"]  # reserve not redone
    (ev,) = operator_events(rt.store, "o1.retry1")
    assert (ev["action"], ev["by"], ev["reason"], ev["from_run"]) == (
        "retry", "ana", "the carrier is back", "o1")
    assert rt.store.get_run("o1").run.state is RunState.FAILED  # the old run stays as it was
    code = main(["retry", "--store", store_url, "o1", "--by", "bob", "--reason", "once more",
                 "--json"])
    again = json.loads(capsys.readouterr().out)
    assert code == 0 and (again["run_id"], again["position"], again["state"]) == (
        "o1.retry2", 1, "pending")  # no --app, no --run: a worker picks it up
    assert operator_events(rt.store, "o1.retry2")[0]["by"] == "bob"
    with pytest.raises(CannotFork, match="succeeded"):
        op.retry("o1.retry1", by="ana", reason="x")
    rt.close()


def test_fork_copies_up_to_a_position_and_refuses_an_open_cut(store_url, capsys):
    world = Provider()
    rt = world.runtime(open_store(store_url))
    rt.start("order", {"item": "pen"}, run_id="f1")
    assert rt.run("f1").state is RunState.SUCCEEDED
    op = Operator.for_runtime(rt)
    with pytest.raises(CannotFork, match="past the journal"):
        op.fork("f1", 9, by="ana", reason="x")
    with pytest.raises(CannotFork, match="position must be"):
        op.fork("f1", -1, by="ana", reason="x")
    code = main(["fork", "--store", store_url, "f1", "1", "--by", "bob", "--reason",
                 "try another carrier", "--new-run-id", "f1-b", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["run_id"] == "f1-b" and out["position"] == 1
    assert rt.store.get_run("f1-b").run.state is RunState.PENDING
    kinds = [e.kind for e in rt.store.read("f1-b")]
    assert "transition" not in kinds and kinds.count("intent") == 1  # reserve only
    assert rt.resume("f1-b").state is RunState.SUCCEEDED
    assert [c[0] for c in world.calls] == ["reserve", "ship", "ship"]
    assert [(e["action"], e["by"]) for e in operator_events(rt.store, "f1-b")] == [
        ("fork", "bob")]
    rt.start("wait_go", {}, run_id="w1")
    assert rt.run("w1").state is RunState.WAITING
    with pytest.raises(CannotFork, match="open"):
        op.fork("w1", 1, by="ana", reason="x")
    with pytest.raises(CannotFork, match="waiting run"):
        op.retry("w1", by="ana", reason="x")
    assert operator_events(rt.store, "w1") == []  # refused: nothing written
    op.fork("w1", 0, by="ana", reason="start over", new_run_id="w1-b")
    assert [(e["action"], e["to_run"]) for e in operator_events(rt.store, "w1")] == [
        ("fork", "w1-b")]
    rt.close()


def test_a_fork_never_copies_an_approval_and_a_retry_asks_again(tmp_path):
    """A copied request names the old run and a copied decision carries a receipt the old run
    may spend too: the fork cuts before them, and the new run asks its reviewer again."""
    from minirt.approvals import ApprovalGate
    from minirt_course.scenarios.m06_approval import ORDER_ID, M06Approval
    from minirt_course.scenarios.m06_approval import Ledger as RefundLedger

    M06Approval("waiting").setup(tmp_path)
    rt = Runtime(open_store(str(tmp_path / "runs.sqlite")),
                 **M06Approval("waiting").runtime_kwargs(tmp_path))
    gate = next(h for h in rt.hooks if isinstance(h, ApprovalGate))
    rt.start("refund_agent", {"order_id": ORDER_ID}, run_id="a1")
    gate.mint(rt, "a1", "refund", resource=f"order:{ORDER_ID}", max_amount=50_000)
    assert rt.run("a1").state is RunState.WAITING
    op = Operator.for_runtime(rt)
    (req,) = gate.requests(rt.store, "a1")
    op.approve("a1", req.request_id, by="alice", reason="ok")
    assert rt.resume("a1").state is RunState.SUCCEEDED
    for cut in (2, 3, 4):  # 0 is the model's plan, 1 the approval request, 2 its decision
        with pytest.raises(CannotFork, match="position 1 holds an approval request"):
            op.fork("a1", cut, by="ana", reason="again")
    made = op.fork("a1", 1, by="ana", reason="again")  # keeps the plan, asks again
    gate.mint(rt, made.run_id, "refund", resource=f"order:{ORDER_ID}", max_amount=50_000)
    assert rt.resume(made.run_id).state is RunState.WAITING  # a new request, its own run id
    (fresh,) = gate.requests(rt.store, made.run_id)
    assert fresh.effect["run_id"] == made.run_id and fresh.request_id != req.request_id
    op.approve(made.run_id, fresh.request_id, by="bob", reason="second refund is right")
    assert rt.resume(made.run_id).state is RunState.SUCCEEDED
    assert len(RefundLedger(tmp_path).refunds()) == 2  # two runs, two approved refunds

    rt.start("refund_agent", {"order_id": ORDER_ID}, run_id="d1")
    gate.mint(rt, "d1", "refund", resource=f"order:{ORDER_ID}", max_amount=50_000)
    rt.run("d1")
    (asked,) = gate.requests(rt.store, "d1")
    op.deny("d1", asked.request_id, by="alice", reason="no photo yet")
    assert rt.resume("d1").state is RunState.FAILED
    again = op.retry("d1", by="alice", reason="the photo came")
    assert again.position == 1  # not the denial: the reviewer is asked again
    gate.mint(rt, again.run_id, "refund", resource=f"order:{ORDER_ID}", max_amount=50_000)
    assert rt.resume(again.run_id).state is RunState.WAITING
    assert len(RefundLedger(tmp_path).refunds()) == 2
    rt.close()
