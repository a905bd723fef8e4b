"""A crash-sweep scenario (minirt.faults.Scenario) for an ASYNC agent: ``async def`` workflow,
``openai.AsyncOpenAI`` pointed at the fake model server on 127.0.0.1, and two tool calls the
model asks for in one turn, run at once over an ``asyncio.TaskGroup`` (``ctx.run_tool_calls(d,
parallel=True)``):

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
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any

from minirt import EffectClass, SQLiteStore
from minirt.aio import AsyncMCPSession, AsyncMCPTool, AsyncRuntime
from minirt.faults import Faults, Outcome, Verdict
from minirt.mcp_tools import tools_from_listing
from minirt.models.openai_adapter import AsyncOpenAIChatModel
from minirt.world import BookingProvider, book_tool

from .model_server import FakeModelServer

SERVER = Path(__file__).parent / "mcp_server.py"
RUN = "async-agent-1"
TURN = {"tool_calls": [("refund", {"order_id": "o1", "amount_cents": 3000}),
                       ("book", {"item": "courier pickup o1", "customer": "c-7"})]}
DONE = {"text": "Refunded 30.00 and booked the pickup."}
_SERVERS: dict[str, FakeModelServer] = {}  # workdir -> its model server (parent process only)


def policy(n: int, body: dict[str, Any]) -> dict[str, Any]:
    """Ask for both calls until their results are in the conversation, then answer."""
    return DONE if body["messages"][-1].get("role") == "tool" else TURN


class OffsetClock:
    def __init__(self, offset: float) -> None:
        self.offset = offset

    def now(self) -> float:
        return time.time() + self.offset


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


class AsyncAgent:
    name = "async-sdk-mcp-world-agent"
    ref = "fakes.async_agent_scenario:AsyncAgent"

    def setup(self, workdir: Path) -> None:
        server = FakeModelServer(policy)
        threading.Thread(target=server.httpd.serve_forever, daemon=True).start()
        _SERVERS[str(workdir)] = server
        (workdir / "model_url.txt").write_text(server.base_url)

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
        server = _SERVERS.pop(str(workdir), None)
        asked = server.count if server is not None else -1
        if server is not None:
            server.httpd.shutdown()
            server.httpd.server_close()
        refunds = executions = 0
        ledger = workdir / "ledger.sqlite"
        if ledger.exists():
            db = sqlite3.connect(ledger)
            refunds = db.execute("SELECT COUNT(*) FROM effects").fetchone()[0]
            executions = db.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
            db.close()
        bookings = len(rt.booking.effects())
        facts = json.dumps({"refunds": refunds, "refund_executions": executions,
                            "bookings": bookings, "model_requests": asked})
        (workdir / "oracle.json").write_text(facts)
        if refunds > 1 or bookings > 1:
            return Verdict(Outcome.DUPLICATE, facts)
        if refunds == 0 or bookings == 0:
            return Verdict(Outcome.LOST, facts)
        run = rt.store.get_run(run_id).run
        if not run.is_terminal:
            return Verdict(Outcome.STUCK, facts)
        out = rt.outcome(run_id)
        if out.state.value != "succeeded" or out.result() != {"text": DONE["text"]}:
            return Verdict(Outcome.WRONG, f"{out.state.value} {out.error} {facts}")
        if not 2 <= asked <= 3:  # 3 only when an answer was lost before it was journaled
            return Verdict(Outcome.WRONG, f"model asked {asked} times: {facts}")
        return Verdict(Outcome.CLEAN, facts)
