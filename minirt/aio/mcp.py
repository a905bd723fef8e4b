"""MCP tools awaited natively: the ``mcp`` SDK's async ``Client`` on the workflow's own loop.

:class:`AsyncMCPSession` holds one connection (a stdio subprocess or a streamable-HTTP URL) per
event loop: ``async with AsyncMCPSession(server) as mcp`` opens it on the current loop and
closes it at the end; used without ``async with`` it connects on first use, and an
:class:`~minirt.aio.AsyncRuntime` given it in ``resources=[...]`` closes it when an execution's
own loop ends (``rt.run`` in a script or a crash sweep's child). A task of the session owns the
``Client`` context (the SDK's rule: enter and exit in one task); calls from any task of that loop
are concurrent requests on the one connection.

:func:`amcp_tools` lists the server's tools as :class:`AsyncMCPTool` s: the synchronous
:class:`~minirt.mcp_tools.MCPTool` (same schema, same gate, same declared effect class, same key
argument, same result rules) whose ``ainvoke`` awaits ``tools/call``.

Invariant: as in :mod:`minirt.mcp_tools`, a tool exists only with an effect class the operator
declared. Guarantees: a transport failure or a timeout after the request may have left is
:class:`~minirt.tools.OutcomeUnknown` (reconciled); ``isError`` is a
:class:`~minirt.errors.ToolError`; ``CancelledError`` propagates (the caller maps it to the
run's cancellation). Not guaranteed: a synchronous ``invoke`` from the loop that owns the
connection (refused by name: it would wait for itself); resources, prompts, sampling.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import MinirtError
from ..mcp_tools import MCPTool, MCPUnavailable, result_value, tools_from_listing, transport
from ..tools import EffectClass, Lookup, ToolCall


class SyncCallOnLoop(MinirtError):
    fields = ("tool",)
    template = ("MCP tool {tool!r} is async: await it (ctx.call_tool in an async workflow), "
                "a synchronous call from its own loop would wait for itself")


class AsyncMCPSession:
    """One MCP connection per event loop (see the module docstring)."""

    def __init__(self, server: Any, *, timeout_s: float = 30.0) -> None:
        self.server = server
        self.timeout_s = float(timeout_s)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None
        self._stop: asyncio.Event | None = None
        self._owner: asyncio.Task[None] | None = None

    async def client(self) -> Any:
        """The connected ``mcp.Client`` of the running loop (connecting if needed)."""
        loop = asyncio.get_running_loop()
        if self._loop is loop and self._client is not None:
            return self._client
        self._loop, self._client = loop, None  # a connection of an ended loop is gone with it
        ready: asyncio.Future[Any] = loop.create_future()
        self._stop = asyncio.Event()
        self._owner = loop.create_task(self._hold(ready, self._stop), name="minirt-mcp")
        try:
            self._client = await asyncio.wait_for(asyncio.shield(ready), self.timeout_s)
        except Exception as exc:
            raise MCPUnavailable(server=repr(self.server)[:120],
                                 reason=f"{type(exc).__name__}: {exc}"[:300]) from None
        return self._client

    async def _hold(self, ready: asyncio.Future[Any], stop: asyncio.Event) -> None:
        from mcp import Client

        try:
            async with Client(transport(self.server),
                              read_timeout_seconds=self.timeout_s) as client:
                ready.set_result(client)
                await stop.wait()
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)

    async def list_tools(self) -> list[Any]:
        return list((await (await self.client()).list_tools()).tools)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        return await (await self.client()).call_tool(name, arguments)

    async def aclose_here(self) -> None:
        """Close the connection if it belongs to the running loop (else nothing to do)."""
        if self._loop is asyncio.get_running_loop() and self._owner is not None:
            await self.aclose()

    async def aclose(self) -> None:
        owner, stop = self._owner, self._stop
        self._client = self._owner = self._stop = self._loop = None
        if owner is not None and stop is not None:
            stop.set()
            await owner

    def list_tools_blocking(self) -> list[Any]:
        """List the tools from synchronous code (no loop running): connect, list, close."""
        async def once() -> list[Any]:
            try:
                return await self.list_tools()
            finally:
                await self.aclose()

        return asyncio.run(once())

    async def __aenter__(self) -> AsyncMCPSession:
        await self.client()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


class AsyncMCPTool(MCPTool):
    """An MCP server tool whose call is awaited (:meth:`ainvoke`)."""

    session: AsyncMCPSession  # type: ignore[assignment]

    async def ainvoke(self, call: ToolCall) -> Any:
        try:
            result = await self.session.call_tool(self.name, self.arguments(call))
        except MinirtError:
            raise
        except Exception as exc:
            raise self.unknown(call, exc) from None
        return result_value(self.name, result)

    def invoke(self, call: ToolCall) -> Any:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._once(call))
        raise SyncCallOnLoop(tool=self.name)

    async def _once(self, call: ToolCall) -> Any:
        try:
            return await self.ainvoke(call)
        finally:
            await self.session.aclose_here()


async def amcp_tools(session: AsyncMCPSession, effects: Mapping[str, EffectClass | str], *,
                     key_params: Mapping[str, str] | None = None,
                     lookups: Mapping[str, Callable[[ToolCall], Lookup]] | None = None,
                     only_declared: bool = False) -> list[AsyncMCPTool]:
    """The server's tools as :class:`AsyncMCPTool` s (the rules of
    :func:`minirt.mcp_tools.mcp_tools`)."""
    return tools_from_listing(session, await session.list_tools(), effects,  # type: ignore
                              key_params=key_params, lookups=lookups,
                              only_declared=only_declared, cls=AsyncMCPTool)


def amcp_tools_blocking(session: AsyncMCPSession, effects: Mapping[str, EffectClass | str],
                        **kw: Any) -> list[AsyncMCPTool]:
    """:func:`amcp_tools` from synchronous code (building a runtime before any loop runs)."""
    return tools_from_listing(session, session.list_tools_blocking(), effects,  # type: ignore
                              cls=AsyncMCPTool, **kw)


__all__ = ["AsyncMCPSession", "AsyncMCPTool", "SyncCallOnLoop", "amcp_tools",
           "amcp_tools_blocking"]
