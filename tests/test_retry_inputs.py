"""Unknown or missing keyword arguments to a tool (issue 19, item 5): refused by the tool's gate
with a named ToolArgumentsInvalid before anything is journaled or sent, never re-sent."""

from __future__ import annotations

from typing import Any

import pytest

from minirt import FakeClock, Runtime
from minirt.store import open_store
from minirt.tools import EffectClass, FunctionTool, ToolArgumentsInvalid, ToolCall


def make(tmp_path, fn, effect=EffectClass.KEYED):
    return Runtime(open_store(str(tmp_path / "r.sqlite")), clock=FakeClock(1000.0),
                   tools=[FunctionTool(fn, name="charge", effect=effect)],
                   workflows={"pay": lambda ctx, inp: ctx.call_tool("charge", inp)})


@pytest.mark.parametrize("args, words", [
    ({"amount": 5, "bogus": 1}, "unknown argument(s) bogus (accepts: amount)"),
    ({}, "missing a required argument: 'amount'"),
    ({"amount": 5, "call": "forged"}, "unknown argument(s) call"),
])
def test_a_keyed_tool_refuses_bad_keywords_before_any_intent(tmp_path, args, words):
    sent: list[Any] = []

    def charge(amount: int, call: ToolCall) -> Any:
        sent.append(amount)
        return {"ok": amount}

    rt = make(tmp_path, charge)
    out = rt.run_workflow("pay", args, run_id="r1")
    assert isinstance(out.error, ToolArgumentsInvalid), out
    assert words in str(out.error)
    assert sent == []
    kinds = [e.kind for e in rt.store.read("r1")]
    assert "intent" not in kinds and "attempt" not in kinds and "tool_rejected" in kinds
    # replay raises the recorded refusal again, still without sending anything
    assert isinstance(rt.outcome("r1").error, ToolArgumentsInvalid) and sent == []


def test_a_tool_taking_any_keywords_is_not_checked(tmp_path):
    def charge(**kw: Any) -> Any:
        return sorted(kw)

    rt = make(tmp_path, charge, EffectClass.PURE)
    assert rt.run_workflow("pay", {"a": 1, "b": 2}, run_id="r1").result() == ["a", "b"]
