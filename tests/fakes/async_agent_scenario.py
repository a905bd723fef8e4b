"""A crash-sweep scenario (minirt.testing.sweep.Scenario) for an ASYNC agent: ``async def``
workflow, ``openai.AsyncOpenAI`` pointed at the fake model server on 127.0.0.1, and two tool
calls the model asks for in one turn, run at once over an ``asyncio.TaskGroup``
(``ctx.run_tool_calls(d, parallel=True)``):

- ``refund``: an MCP tool of a real MCP server over stdio (tests/fakes/mcp_server.py, its own
  ledger), awaited on the workflow's loop (minirt.aio.mcp), keyed by ``idempotency_key``;
- ``book``: a provider of minirt.world (BookingProvider, its own SQLite ledger, dedup by
  client reference, with a lookup), a synchronous tool run in a worker thread.

The kill mode rebuilds it in a child process by name (``fakes.async_agent_scenario:AsyncAgent``,
``tests/`` on PYTHONPATH), SIGKILLed at the fault point; the parent recovers and judges by the
two ledgers (exactly one refund effect, exactly one booking) and the model server's request
count (a journaled decision is never asked again).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from minirt import EffectClass, SQLiteStore
from minirt.aio import AsyncMCPSession, AsyncMCPTool, AsyncRuntime
from minirt.faults import Faults, Verdict
from minirt.mcp_tools import tools_from_listing
from minirt.models.openai_adapter import AsyncOpenAIChatModel
from minirt.world import BookingProvider, book_tool

from .agent_sweep import SERVER, ModelServedScenario, OffsetClock, judge, mcp_ledger

RUN = "async-agent-1"
TURN = {"tool_calls": [("refund", {"order_id": "o1", "amount_cents": 3000}),
                       ("book", {"item": "courier pickup o1", "customer": "c-7"})]}
DONE = {"text": "Refunded 30.00 and booked the pickup."}


class AgentRuntime(AsyncRuntime):
    """A runtime that owns its provider (a killed worker loses it with the process)."""

    booking: BookingProvider

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.booking.close()


def listing(workdir: Path, session: AsyncMCPSession) -> list[Any]:
    """The server's tool list: asked once per workdir (a server start), then read back, so a
    worker that is rebuilt after a crash does not start a server just to list its tools."""
    from mcp.types import Tool

    cached = workdir / "mcp_tools.json"
    if not cached.exists():
        tools = session.list_tools_blocking()
        cached.write_text(json.dumps([t.model_dump(mode="json", by_alias=True) for t in tools]))
    return [Tool.model_validate(t) for t in json.loads(cached.read_text())]


def agent(model: AsyncOpenAIChatModel) -> Any:
    async def run(ctx: Any, task: Any) -> Any:
        messages: list[Any] = [{"role": "user", "content": task["ask"]}]
        for _ in range(3):
            d = await ctx.decide({"system": "support agent", "messages": messages}, name="turn")
            if not d["tool_calls"]:
                return {"text": d["text"]}
            outcomes = await ctx.run_tool_calls(d, parallel=True)
            messages += [d["message"], *model.tool_messages(outcomes)]
        return {"text": "gave up"}
    return run


class AsyncAgent(ModelServedScenario):
    name = "async-sdk-mcp-world-agent"
    ref = "fakes.async_agent_scenario:AsyncAgent"
    turn, done = TURN, DONE  # both calls until their results are in the conversation

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> AsyncRuntime:
        import openai
        from mcp import StdioServerParameters

        client = openai.AsyncOpenAI(base_url=(workdir / "model_url.txt").read_text(),
                                    api_key="dummy-key", max_retries=0)
        session = AsyncMCPSession(StdioServerParameters(
            command=sys.executable, args=[str(SERVER), str(workdir / "ledger.sqlite")]))
        mcp = tools_from_listing(session, listing(workdir, session), {"refund": EffectClass.KEYED},
                                 key_params={"refund": "idempotency_key"}, only_declared=True,
                                 cls=AsyncMCPTool)
        booking = BookingProvider(workdir / "booking.sqlite")
        tools = [*mcp, book_tool(booking)]
        model = AsyncOpenAIChatModel(client, "fake-gpt", tools=tools)
        rt = AgentRuntime(SQLiteStore(workdir / "runs.sqlite"), tools=tools,
                          workflows={"agent": agent(model)}, model=model, resources=[session],
                          clock=OffsetClock(clock_offset), faults=faults, worker_id=worker_id)
        rt.booking = booking
        return rt

    def start(self, rt: Any) -> str:
        return rt.start("agent", {"ask": "refund order o1 and book a pickup"}, run_id=RUN)

    def oracle(self, workdir: Path, rt: Any, run_id: str) -> Verdict:
        asked = self.stop_server(workdir)
        refunds, executions = mcp_ledger(workdir)
        bookings = len(rt.booking.effects())
        return judge(workdir, rt, run_id, effects=[refunds, bookings], asked=asked, done=DONE,
                     facts={"refunds": refunds, "refund_executions": executions,
                            "bookings": bookings, "model_requests": asked})
