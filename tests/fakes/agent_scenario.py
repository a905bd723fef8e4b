"""A crash-sweep scenario (minirt.testing.sweep.Scenario): an agent written with the official
``openai`` SDK (pointed at the fake model server on 127.0.0.1) whose tool is an MCP tool of a
real MCP server over stdio (tests/fakes/mcp_server.py, with its own ledger).

The kill mode rebuilds it in a child process by name (``fakes.agent_scenario:SdkMcpAgent``, with
``tests/`` on PYTHONPATH), which is SIGKILLed at the fault point; the parent recovers and judges.
The fake model server runs in the parent (started by ``setup``, stopped by ``oracle``) and counts
requests, so the oracle also checks that a journaled decision was never asked again.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from minirt import EffectClass, Runtime, SQLiteStore
from minirt.faults import Faults, Verdict
from minirt.mcp_tools import MCPSession, mcp_tools
from minirt.models import run_tool_calls
from minirt.models.openai_adapter import OpenAIChatModel

from .agent_sweep import SERVER, ModelServedScenario, OffsetClock, judge, mcp_ledger

RUN = "sdk-mcp-1"
REFUND = {"tool_calls": [("refund", {"order_id": "o1", "amount_cents": 3000})]}
DONE = {"text": "Refunded 30.00."}


class AgentRuntime(Runtime):
    """A runtime that owns its MCP connection (a killed worker loses both)."""

    mcp: MCPSession

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.mcp.close()


def agent(model: OpenAIChatModel):
    def run(ctx: Any, task: Any) -> Any:
        messages: list[Any] = [{"role": "user", "content": task["ask"]}]
        for _ in range(3):
            d = ctx.decide({"system": "support agent", "messages": messages}, name="turn")
            if not d["tool_calls"]:
                return {"text": d["text"]}
            outcomes = run_tool_calls(ctx, d)
            messages += [d["message"], *model.tool_messages(outcomes)]
        return {"text": "gave up"}
    return run


class SdkMcpAgent(ModelServedScenario):
    name = "sdk-mcp-agent"
    ref = "fakes.agent_scenario:SdkMcpAgent"
    turn, done = REFUND, DONE  # refund until a tool result is in the conversation, then answer

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> Runtime:
        import openai
        from mcp import StdioServerParameters

        client = openai.OpenAI(base_url=(workdir / "model_url.txt").read_text(),
                               api_key="dummy-key", max_retries=0)
        session = MCPSession(StdioServerParameters(
            command=sys.executable, args=[str(SERVER), str(workdir / "ledger.sqlite")]))
        tools = mcp_tools(session, {"refund": EffectClass.KEYED,
                                    "send_note": EffectClass.IRREVERSIBLE},
                          key_params={"refund": "idempotency_key"})
        model = OpenAIChatModel(client, "fake-gpt", tools=[t for t in tools
                                                           if t.name == "refund"])
        rt = AgentRuntime(SQLiteStore(workdir / "runs.sqlite"), tools=tools,
                          workflows={"agent": agent(model)}, model=model,
                          clock=OffsetClock(clock_offset), faults=faults, worker_id=worker_id)
        rt.mcp = session
        return rt

    def start(self, rt: Runtime) -> str:
        return rt.start("agent", {"ask": "refund order o1"}, run_id=RUN)

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        asked = self.stop_server(workdir)
        effects, executions = mcp_ledger(workdir)
        return judge(workdir, rt, run_id, effects=[effects], asked=asked, done=DONE,
                     facts={"effects": effects, "executions": executions,
                            "model_requests": asked})
