"""Async minirt: ``async def`` workflows and tools on asyncio, with the same journal, fencing
and replay rules as the synchronous runtime (it is the same pipeline, awaited).

- :mod:`minirt.aio.runtime` — :class:`AsyncRuntime`: ``rt.run`` (its own loop) or
  ``await rt.arun`` (the caller's loop)
- :mod:`minirt.aio.context` — :class:`AsyncContext`: ``await ctx.call_tool / decide / step /
  parallel``, asyncio cancellation as the run's cancellation path
- :mod:`minirt.aio.mcp` — :class:`AsyncMCPSession`, :func:`amcp_tools`: MCP tools awaited on
  the workflow's loop
- :mod:`minirt.aio.sequencer` — :class:`~minirt.aio.sequencer.ReplaySequencer`: while an
  execution replays, its concurrent tasks (``asyncio.gather``, a ``TaskGroup``) claim positions
  and take results in the journal's recorded order

An agent over ``openai.AsyncOpenAI`` and an MCP tool::

    model = AsyncOpenAIChatModel(openai.AsyncOpenAI(), "gpt-4.1-mini", tools=tools)

    async def agent(ctx, ask):
        messages = [{"role": "user", "content": ask}]
        while (d := await ctx.decide({"messages": messages}))["tool_calls"]:  # journaled
            outcomes = await ctx.run_tool_calls(d)                         # intents first
            messages += [d["message"], *model.tool_messages(outcomes)]
        return d["text"]

Invariant: nothing here journals by itself: every position goes through :mod:`minirt.steps`
and :mod:`minirt.dispatch`, as in a synchronous run. Guarantees and limits: see each module.
"""

from __future__ import annotations

from .context import AsyncContext, Resend, ResendPolicy, ainvoke
from .mcp import AsyncMCPSession, AsyncMCPTool, amcp_tools, amcp_tools_blocking
from .runtime import AsyncPolicyUnsupported, AsyncRuntime, LoopAlreadyRunning

__all__ = ["AsyncContext", "AsyncMCPSession", "AsyncMCPTool", "AsyncPolicyUnsupported",
           "AsyncRuntime", "LoopAlreadyRunning", "Resend", "ResendPolicy", "ainvoke",
           "amcp_tools", "amcp_tools_blocking"]
