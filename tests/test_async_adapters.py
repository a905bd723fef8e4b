"""The async model adapters (openai.AsyncOpenAI, anthropic.AsyncAnthropic) and async MCP tools
(stdio and streamable HTTP) in async workflows: decisions journaled once and never re-asked,
tool calls from the model run through the pipeline (in order or at once), crashes reconciled."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")
pytest.importorskip("mcp")

from fakes.model_server import serving  # noqa: E402

from minirt import EffectClass, FakeClock, FaultPlan, SimulatedCrash, SQLiteStore  # noqa: E402
from minirt.aio import AsyncMCPSession, AsyncRuntime, amcp_tools  # noqa: E402
from minirt.models import ModelUnavailable  # noqa: E402
from minirt.models.anthropic_adapter import AsyncAnthropicModel  # noqa: E402
from minirt.models.openai_adapter import AsyncOpenAIChatModel  # noqa: E402
from minirt.schema import tool  # noqa: E402

SERVER = Path(__file__).parent / "fakes" / "mcp_server.py"
RUN = "async-sdk"


def refund_tool(effects: dict[str, Any]) -> Any:
    @tool(EffectClass.KEYED, name="refund")
    async def refund(order_id: str, amount_cents: int, call=None) -> dict[str, Any]:
        "Refund an order, in cents."
        return effects.setdefault(call.effect_key, {"refund_id": f"re_{len(effects) + 1}",
                                                    "amount_cents": amount_cents})
    return refund


def adapter(provider: str, base_url: str, tools: list[Any]) -> Any:
    import anthropic
    import openai

    if provider == "openai":
        client = openai.AsyncOpenAI(base_url=base_url, api_key="dummy-key", max_retries=0)
        return AsyncOpenAIChatModel(client, "fake-gpt", tools=tools)
    client = anthropic.AsyncAnthropic(base_url=base_url.removesuffix("/v1"), api_key="dummy-key",
                                      max_retries=0)
    return AsyncAnthropicModel(client, "fake-claude", tools=tools)


def answer(model: Any, d: dict[str, Any], outcomes: list[Any]) -> list[Any]:
    if isinstance(model, AsyncAnthropicModel):
        return [{"role": "assistant", "content": d["message"]["content"]},
                model.tool_results_message(outcomes)]
    return [d["message"], *model.tool_messages(outcomes)]


def agent_for(model: Any, parallel: bool = False) -> Any:
    async def agent(ctx: Any, ask: Any) -> Any:
        messages: list[Any] = [{"role": "user", "content": ask}]
        for _ in range(3):
            d = await ctx.decide({"messages": messages}, name="turn")
            if not d["tool_calls"]:
                return d["text"]
            outcomes = await ctx.run_tool_calls(d, parallel=parallel)
            messages += answer(model, d, outcomes)
        return "gave up"
    return agent


SCRIPT = [{"tool_calls": [("refund", {"order_id": "o1", "amount_cents": 3000})]},
          {"text": "Refunded."}]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_async_sdk_decisions_are_journaled_and_never_asked_again(tmp_path: Path,
                                                                 provider: str) -> None:
    effects: dict[str, Any] = {}
    refund = refund_tool(effects)
    clock = FakeClock(1000.0)
    with serving(SCRIPT) as server:
        def runtime(faults: Any = None) -> AsyncRuntime:
            model = adapter(provider, server.base_url, [refund])
            return AsyncRuntime(SQLiteStore(tmp_path / "runs.sqlite"), tools=[refund],
                                workflows={"agent": agent_for(model)}, model=model,
                                clock=clock, faults=faults)

        rt = runtime(FaultPlan(crash_at="after_decision_record", occurrence=2))
        run_id = rt.start("agent", "refund o1", run_id=RUN)
        with pytest.raises(SimulatedCrash):  # after the 2nd decision was journaled
            rt.run(run_id)
        rt.close()
        assert server.count == 2
        clock.advance(3600)
        rt = runtime()
        out = rt.run(run_id)
        rt.close()
        assert out.result() == "Refunded."
        assert server.count == 2  # both decisions replayed from the journal
    assert len(effects) == 1


def test_an_unreachable_async_model_is_named(tmp_path: Path) -> None:
    import openai

    model = AsyncOpenAIChatModel(openai.AsyncOpenAI(base_url="http://127.0.0.1:9/v1",
                                                    api_key="k", max_retries=0, timeout=5),
                                 "fake")

    async def agent(ctx: Any, ask: Any) -> Any:
        return await ctx.decide({"messages": [{"role": "user", "content": ask}]})

    rt = AsyncRuntime(SQLiteStore(tmp_path / "runs.sqlite"), workflows={"agent": agent},
                      model=model)
    out = rt.run(rt.start("agent", "hi", run_id=RUN))
    rt.close()
    assert out.state.value == "failed" and isinstance(out.error, ModelUnavailable)
    with pytest.raises(ModelUnavailable, match="awaited"):
        model.complete({"messages": []}, index=0)


def test_parallel_tool_calls_report_a_refusal_and_run_the_rest(tmp_path: Path) -> None:
    effects: dict[str, Any] = {}
    refund = refund_tool(effects)
    script = [{"tool_calls": [("refund", {"order_id": "o1", "amount_cents": 3000}),
                              ("refund", {"order_id": "o2", "amount_cents": "3000"}),  # refused
                              ("nosuch", {}),
                              ("refund", {"order_id": "o3", "amount_cents": 500})]},
              {"text": "Done."}]
    with serving(script) as server:
        model = adapter("openai", server.base_url, [refund])
        rt = AsyncRuntime(SQLiteStore(tmp_path / "runs.sqlite"), tools=[refund],
                          workflows={"agent": agent_for(model, parallel=True)}, model=model)
        out = rt.run(rt.start("agent", "refund three", run_id=RUN))
        kinds = [e.kind for e in rt.store.read(RUN)]
        rt.close()
        tool_msgs = [m for m in server.requests[1][1]["messages"] if m["role"] == "tool"]
    assert out.result() == "Done." and len(effects) == 2
    assert kinds.count("intent") == 2 and kinds.count("tool_rejected") == 1
    assert [m["tool_call_id"] for m in tool_msgs] == ["call_0_0", "call_0_1", "call_0_2",
                                                      "call_0_3"]  # the model's order
    assert "SchemaViolation" in tool_msgs[1]["content"]
    assert "UnknownTool" in tool_msgs[2]["content"]


# -- MCP tools awaited: stdio and streamable HTTP ---------------------------------------------------

def counts(ledger: Path) -> tuple[int, int]:
    if not ledger.exists():
        return 0, 0
    db = sqlite3.connect(ledger)
    try:
        return (db.execute("SELECT COUNT(*) FROM executions WHERE tool='refund'").fetchone()[0],
                db.execute("SELECT COUNT(*) FROM effects").fetchone()[0])
    finally:
        db.close()


async def mcp_agent(ctx: Any, task: Any) -> Any:
    receipt = await ctx.call_tool("refund", order_id="o1", amount_cents=3000)
    return {"refund_id": receipt["refund_id"]}


def mcp_life(tmp_path: Path, server: Any, clock: FakeClock, faults: Any = None) -> Any:
    """One worker's life on its own loop (arun): its own MCP connection, lost with it."""
    async def main() -> Any:
        async with AsyncMCPSession(server) as session:
            tools = await amcp_tools(session, {"refund": EffectClass.KEYED},
                                     key_params={"refund": "idempotency_key"},
                                     only_declared=True)
            rt = AsyncRuntime(SQLiteStore(tmp_path / "runs.sqlite"), tools=tools,
                              workflows={"agent": mcp_agent}, clock=clock, faults=faults)
            try:
                return await rt.arun(rt.start("agent", {}, run_id=RUN))
            finally:
                rt.close()
                clock.advance(3600)
    return asyncio.run(main())


@pytest.mark.parametrize("point,executions", [("after_intent", 1),
                                              ("after_provider_commit", 2),
                                              ("after_result", 1)])
def test_async_mcp_over_stdio_a_crash_refunds_once(tmp_path: Path, point: str,
                                                   executions: int) -> None:
    from mcp import StdioServerParameters

    ledger = tmp_path / "ledger.sqlite"
    server = StdioServerParameters(command=sys.executable, args=[str(SERVER), str(ledger)])
    clock = FakeClock(1000.0)
    with pytest.raises(SimulatedCrash):
        mcp_life(tmp_path, server, clock, FaultPlan(crash_at=point))
    out = mcp_life(tmp_path, server, clock)
    assert out.state.value == "succeeded", out.error
    assert out.result() == {"refund_id": "re_1"}
    assert counts(ledger) == (executions, 1)


def test_async_mcp_over_streamable_http_a_crash_refunds_once(tmp_path: Path) -> None:
    import socket
    import subprocess
    import time

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ledger = tmp_path / "ledger.sqlite"
    proc = subprocess.Popen([sys.executable, str(SERVER), str(ledger), "--http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(400):  # readiness: until the port accepts (bounded), not a fixed sleep
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                assert proc.poll() is None, "the MCP HTTP server exited"
                time.sleep(0.05)
        url, clock = f"http://127.0.0.1:{port}/mcp", FakeClock(1000.0)
        with pytest.raises(SimulatedCrash):
            mcp_life(tmp_path, url, clock, FaultPlan(crash_at="after_provider_commit"))
        out = mcp_life(tmp_path, url, clock)
        assert out.state.value == "succeeded", out.error
        assert counts(ledger) == (2, 1)
    finally:
        proc.terminate()
        proc.wait(10)
