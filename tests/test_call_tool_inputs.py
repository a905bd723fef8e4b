"""Whatever a model puts in a tool call reaches the tool's gate and gets a named, journaled error.

ctx.call_tool must not fail on arguments that are not canonical JSON (NaN, a lone surrogate, a
set) or not a mapping at all before the contract's gate has named the problem.
"""

from __future__ import annotations

import math

import pytest
from pydantic import BaseModel

from minirt import FakeClock, RunState, Runtime, SQLiteStore
from minirt.contracts import SchemaViolation, ToolContract


class Transfer(BaseModel):
    amount_cents: int
    to_account: str


def make_runtime(path, calls):
    def handler(args, inv):
        calls.append(args)
        return {"ok": True}

    contract = ToolContract("transfer", input_model=Transfer, handler=handler)

    def agent(ctx, bad):
        return ctx.call_tool("transfer", bad)

    return Runtime(SQLiteStore(path), tools=[contract], workflows={"agent": agent},
                   clock=FakeClock())


@pytest.mark.parametrize("bad", [
    {"amount_cents": math.nan, "to_account": "acc_1"},
    {"amount_cents": 10, "to_account": "\ud800"},
    {"amount_cents": {1, 2}, "to_account": "acc_1"},
    ["amount_cents", 10],
    "transfer 10 to acc_1",
], ids=["nan", "lone-surrogate", "set", "list", "string"])
def test_malformed_arguments_are_rejected_by_the_gate_and_journaled(tmp_path, bad):
    calls: list = []
    rt = make_runtime(tmp_path / "r.sqlite", calls)
    run_id = "r1"
    rt.store.create_run(run_id, "agent", "null", 0.0)  # input outside canonical JSON

    def agent(ctx, _):
        return ctx.call_tool("transfer", bad)

    rt.workflows["agent"] = agent
    out = rt.run(run_id)
    assert out.state is RunState.FAILED and isinstance(out.error, SchemaViolation)
    kinds = [e.kind for e in rt.store.read(run_id)]
    assert "tool_rejected" in kinds and "intent" not in kinds and calls == []


def test_a_rejection_replays_as_the_same_error_without_calling_the_gate(tmp_path):
    calls: list = []
    rt = make_runtime(tmp_path / "r.sqlite", calls)
    bad = {"amount_cents": math.nan, "to_account": "acc_1"}
    rt.store.create_run("r1", "agent", "null", 0.0)
    prepared = []
    contract = rt.tools["transfer"]
    original = contract.prepare
    contract.prepare = lambda a, s=frozenset(): prepared.append(1) or original(a, s)

    def agent(ctx, _):
        try:
            ctx.call_tool("transfer", bad)
        except SchemaViolation as exc:
            return {"refused": exc.field}
        return {"refused": None}

    rt.workflows["agent"] = agent
    first = rt.run("r1").result()
    assert prepared == [1]
    # Replay the same run from its journal with a fresh context.
    from minirt.journal import Journal
    from minirt.runtime import Context

    ctx = Context(rt, "r1", rt.store.get_run("r1").run.incarnation, Journal.load(rt.store, "r1"),
                  None)
    with pytest.raises(SchemaViolation) as err:
        ctx.call_tool("transfer", bad)
    assert err.value.field == first["refused"] and prepared == [1] and calls == []
