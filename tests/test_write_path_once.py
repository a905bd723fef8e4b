"""The write path does each piece of work once per call (issue 24), and still refuses bad input.

A FunctionTool binds a set of argument names to its signature once (then remembers it); the
intent of a FunctionTool call reuses the canonical text of the arguments the runtime already
encoded for the replay check instead of encoding the prepared copy again. Neither may change
what is refused or what is journaled.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from minirt import dispatch
from minirt.clock import FakeClock
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, ToolArgumentsInvalid


def fetch(i: int, note: str = "") -> dict[str, Any]:
    return {"i": i, "note": note}


def test_a_function_tool_binds_one_set_of_names_once(monkeypatch: pytest.MonkeyPatch) -> None:
    tool = FunctionTool(fetch, name="fetch")
    binds: list[dict[str, Any]] = []
    real = inspect.Signature.bind

    def counting(self: inspect.Signature, *a: Any, **kw: Any) -> Any:
        binds.append(kw)
        return real(self, *a, **kw)

    monkeypatch.setattr(inspect.Signature, "bind", counting)
    for i in range(5):
        assert tool.prepare({"i": i}, frozenset()) == {"i": i}
    assert tool.prepare({"i": 1, "note": "x"}, frozenset()) == {"i": 1, "note": "x"}
    assert tool.prepare({"note": "y", "i": 2}, frozenset()) == {"note": "y", "i": 2}
    assert len(binds) == 2  # {i} once, {i, note} once (order of the names does not matter)


def test_remembered_names_still_refuse_what_does_not_bind() -> None:
    tool = FunctionTool(fetch, name="fetch")
    tool.prepare({"i": 1}, frozenset())
    with pytest.raises(ToolArgumentsInvalid, match="unknown argument"):
        tool.prepare({"i": 1, "x": 2}, frozenset())
    with pytest.raises(ToolArgumentsInvalid, match="missing"):
        tool.prepare({"note": "n"}, frozenset())
    with pytest.raises(ToolArgumentsInvalid, match="unknown argument"):
        tool.prepare({"i": 1, "x": 2}, frozenset())  # a refusal is never remembered


class Sneaky(str):
    """Equal to (and hashing as) a name the tool accepts, but spelled otherwise by str()."""

    __hash__ = str.__hash__

    def __str__(self) -> str:
        return "bogus"


def test_a_str_subclass_name_is_checked_every_time() -> None:
    tool = FunctionTool(fetch, name="fetch")
    tool.prepare({"i": 1}, frozenset())
    with pytest.raises(ToolArgumentsInvalid):
        tool.prepare({Sneaky("i"): 1}, frozenset())


def test_a_function_tool_intent_does_not_encode_the_arguments_again(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[Any] = []
    real = dispatch.canonical_json

    def counting(value: Any, **kw: Any) -> str:
        encoded.append(value)
        return real(value, **kw)

    monkeypatch.setattr(dispatch, "canonical_json", counting)

    def wf(ctx: Any, n: int) -> int:
        for i in range(n):
            ctx.call_tool("fetch", i=i, note="Jose\u0301")
        return n

    rt = Runtime(SQLiteStore(tmp_path / "s.sqlite"),
                 tools=[FunctionTool(fetch, name="fetch", effect=EffectClass.KEYED)],
                 workflows={"wf": wf}, clock=FakeClock(1_000.0), worker_id="w")
    try:
        assert rt.run_workflow("wf", 3, run_id="r").result() == 3
        intents = [e for e in rt.store.iter_events("r") if e.kind == "intent"]
    finally:
        rt.close()
    assert encoded == []
    assert [e.payload["args"] for e in intents] == [{"i": i, "note": "Jos\u00e9"}
                                                    for i in range(3)]
