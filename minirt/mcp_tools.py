"""MCP tools as minirt tools: list a server's tools, call them through minirt's pipeline.

:class:`MCPSession` is a synchronous handle on one connection of the official ``mcp`` SDK's
``Client`` (a stdio subprocess or a streamable-HTTP URL), kept open by one task on a background
event loop. :func:`mcp_tools` lists the server's tools and wraps each one the operator declared
an effect class for in an :class:`MCPTool`: its schema is the server's ``inputSchema`` (exported
unchanged by :mod:`minirt.schema`), its gate validates arguments against that schema with
``jsonschema``, and ``ctx.call_tool`` journals the intent before ``tools/call`` is sent.

Invariant: every MCP tool has an effect class the operator declared (``effects={name: ...}``):
an MCP server does not say whether a call is idempotent, so a tool without a declaration is
refused when the tools are built (:class:`EffectNotDeclared`), never guessed.

Guarantees: a refusal by the gate raises :class:`~minirt.contracts.SchemaViolation` naming the
field, before any intent; a tool result with ``isError`` raises :class:`~minirt.errors.ToolError`
(the tool ran and said no); a transport failure or timeout after the request may have left
raises :class:`~minirt.tools.OutcomeUnknown` (reconciled, never taken as a failure). Where the
server takes an idempotency key (``key_params={name: "argument"}``) the effect key is sent in
that argument on every attempt, and that argument is hidden from the schema a model sees.

Not guaranteed: that a server honours the key, or that the declared effect class is true (both
are the operator's word); streaming/progress, resources, prompts and sampling are not used.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import json
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from .contracts import SchemaViolation
from .errors import MinirtError, ToolError
from .tools import EffectClass, Lookup, OutcomeUnknown, ToolCall


class EffectNotDeclared(MinirtError):
    """An MCP tool was listed without an effect class from the operator."""

    fields = ("tool", "reason")
    template = "MCP tool {tool!r} has no declared effect class: {reason}"


class MCPUnavailable(MinirtError):
    """The MCP server could not be reached (before any call was sent)."""

    fields = ("server", "reason")
    template = "MCP server {server} unavailable: {reason}"


class MCPSession:
    """One open MCP connection, usable from synchronous code (see the module docstring)."""

    def __init__(self, server: Any, *, timeout_s: float = 30.0) -> None:
        self.server = server
        self.timeout_s = float(timeout_s)
        self._loop = asyncio.new_event_loop()
        self._queue: asyncio.Queue[Any] | None = None
        self._ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(target=self._run, name="minirt-mcp", daemon=True)
        self._thread.start()
        try:
            self._ready.result(timeout=self.timeout_s)
        except Exception as exc:
            self.close()
            raise MCPUnavailable(server=repr(server)[:120],
                                 reason=f"{type(exc).__name__}: {exc}"[:300]) from None

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._main())

    async def _main(self) -> None:
        from mcp import Client

        self._queue = asyncio.Queue()
        try:
            async with Client(transport(self.server),
                              read_timeout_seconds=self.timeout_s) as client:
                self._ready.set_result(None)
                while True:
                    item = await self._queue.get()
                    if item is None:
                        return
                    fn, fut = item
                    try:
                        fut.set_result(await fn(client))
                    except BaseException as exc:  # handed to the caller's thread
                        fut.set_exception(exc)
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(exc)

    def submit(self, fn: Callable[[Any], Awaitable[Any]]) -> Any:
        """Run ``await fn(client)`` on the connection's task; return its result."""
        fut: concurrent.futures.Future[Any] = concurrent.futures.Future()
        if self._queue is None or not self._thread.is_alive():
            raise MCPUnavailable(server=repr(self.server)[:120], reason="session is closed")
        self._loop.call_soon_threadsafe(self._queue.put_nowait, (fn, fut))
        return fut.result(timeout=self.timeout_s + 5)

    def list_tools(self) -> list[Any]:
        return list(self.submit(lambda c: c.list_tools()).tools)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        return self.submit(lambda c: c.call_tool(name, arguments))

    def close(self) -> None:
        if self._thread.is_alive() and self._queue is not None:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, None)
            self._thread.join(self.timeout_s)

    def __enter__(self) -> MCPSession:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def transport(server: Any) -> Any:
    """What ``mcp.Client`` is given for ``server``: a stdio server's subprocess gets this
    process's stderr only if it has a real file descriptor (a script's terminal), else none (a
    notebook kernel's stderr is not a file, and the SDK's default would fail there)."""
    from mcp import StdioServerParameters

    if not isinstance(server, StdioServerParameters):
        return server
    import subprocess
    import sys

    from mcp.client.stdio import stdio_client

    try:
        sys.stderr.fileno()
        errlog: Any = sys.stderr
    except (AttributeError, OSError, ValueError):
        errlog = subprocess.DEVNULL
    return stdio_client(server, errlog=errlog)


class MCPTool:
    """One MCP server tool as a minirt :class:`~minirt.tools.Tool`."""

    def __init__(self, session: MCPSession, name: str, input_schema: Mapping[str, Any], *,
                 effect: EffectClass | str, description: str = "",
                 key_param: str | None = None,
                 lookup: Callable[[ToolCall], Lookup] | None = None) -> None:
        import jsonschema

        self.session = session
        self.name = name
        self.effect = EffectClass(effect)
        self.description = description
        self.key_param = key_param
        self._lookup = lookup
        self.server_schema = copy.deepcopy(dict(input_schema))
        shown = copy.deepcopy(self.server_schema)  # what a model sees: no key argument
        if key_param is not None:
            shown.get("properties", {}).pop(key_param, None)
            if key_param in shown.get("required", []):
                shown["required"] = [r for r in shown["required"] if r != key_param]
        self.input_schema = shown
        self._validator = jsonschema.Draft202012Validator(shown)

    def prepare(self, args: Any, scopes: frozenset[str]) -> dict[str, Any]:
        if not isinstance(args, Mapping):
            raise SchemaViolation(tool=self.name, field="$",
                                  reason="arguments must be a JSON object")
        if self.key_param is not None and self.key_param in args:
            raise SchemaViolation(tool=self.name, field=self.key_param,
                                  reason="the idempotency key is minirt's, not the caller's")
        error = next(iter(sorted(self._validator.iter_errors(dict(args)),
                                 key=lambda e: list(e.absolute_path))), None)
        if error is not None:
            where = ".".join(str(p) for p in error.absolute_path) or "$"
            raise SchemaViolation(tool=self.name, field=where, reason=error.message[:200])
        return dict(args)

    def arguments(self, call: ToolCall) -> dict[str, Any]:
        """What is sent as ``tools/call`` arguments: the call's, plus the effect key in the
        server's key argument (on every attempt)."""
        args = dict(call.args)
        if self.key_param is not None:
            args[self.key_param] = call.effect_key
        return args

    def unknown(self, call: ToolCall, exc: BaseException) -> OutcomeUnknown:
        """A transport failure after the request may have left: nobody knows what happened."""
        return OutcomeUnknown(tool=self.name, effect_key=call.effect_key,
                              reason=f"{type(exc).__name__}: {exc}"[:300])

    def invoke(self, call: ToolCall) -> Any:
        try:
            result = self.session.call_tool(self.name, self.arguments(call))
        except MinirtError:
            raise
        except Exception as exc:
            raise self.unknown(call, exc) from None
        return result_value(self.name, result)

    @property
    def has_lookup(self) -> bool:
        return self._lookup is not None

    def lookup(self, call: ToolCall) -> Lookup:
        if self._lookup is None:
            raise NotImplementedError(f"{self.name} offers no lookup")
        return self._lookup(call)

    def __repr__(self) -> str:
        return f"MCPTool({self.name!r}, effect={self.effect.value!r})"


def result_value(tool: str, result: Any) -> Any:
    """The JSON value of an MCP ``CallToolResult``: its structured content, else its text as
    JSON (``{"text": ...}`` if it is not); ``isError`` raises :class:`~minirt.errors.ToolError`."""
    text = " ".join(getattr(b, "text", "") for b in result.content or ())
    if result.is_error:
        raise ToolError(tool=tool, reason=text[:300] or "the MCP tool reported an error")
    if result.structured_content is not None:
        return result.structured_content
    try:  # a server without an output schema sends its JSON result as text
        value = json.loads(text)
    except ValueError:
        return {"text": text}
    return value if isinstance(value, dict) else {"value": value}


def tools_from_listing(session: Any, listed: Iterable[Any],
                       effects: Mapping[str, EffectClass | str], *,
                       key_params: Mapping[str, str] | None = None,
                       lookups: Mapping[str, Callable[[ToolCall], Lookup]] | None = None,
                       only_declared: bool = False, cls: type[MCPTool] | None = None
                       ) -> list[MCPTool]:
    """The listed MCP tools as ``cls`` (default :class:`MCPTool`) over ``session``, each with
    its declared effect class (see :func:`mcp_tools`)."""
    cls = cls or MCPTool
    key_params, lookups = dict(key_params or {}), dict(lookups or {})
    out: list[MCPTool] = []
    for t in listed:
        if t.name not in effects:
            if only_declared:
                continue
            raise EffectNotDeclared(tool=t.name, reason="pass effects={name: EffectClass...}: "
                                                        "MCP does not say if a call repeats")
        out.append(cls(session, t.name, t.input_schema, effect=effects[t.name],
                       description=t.description or "", key_param=key_params.get(t.name),
                       lookup=lookups.get(t.name)))
    return out


def mcp_tools(session: MCPSession, effects: Mapping[str, EffectClass | str], *,
              key_params: Mapping[str, str] | None = None,
              lookups: Mapping[str, Callable[[ToolCall], Lookup]] | None = None,
              only_declared: bool = False) -> list[MCPTool]:
    """The server's tools as :class:`MCPTool` s. Every listed tool needs an entry in
    ``effects`` (else :class:`EffectNotDeclared`), unless ``only_declared`` skips the others."""
    return tools_from_listing(session, session.list_tools(), effects, key_params=key_params,
                              lookups=lookups, only_declared=only_declared)
