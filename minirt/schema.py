"""Tool schemas: one input model per tool, exported as the JSON Schema a model sees.

A tool's **input model** is a pydantic model: a :class:`~minirt.contracts.ToolContract` declares
it; a :class:`TypedTool` (``@minirt.tool``) builds it from the function's type hints
(:func:`input_model_from`). :func:`json_schema` exports it, and :func:`openai_tool`,
:func:`openai_responses_tool`, :func:`anthropic_tool` and :func:`mcp_tool` wrap that schema in
the shapes the SDKs take (checked against the installed SDKs' own types:
``openai.types.chat.ChatCompletionFunctionToolParam``,
``openai.types.responses.FunctionToolParam``, ``anthropic.types.ToolParam`` and
``mcp.types.Tool``).

Invariant: the schema a model sees and the gate a call meets are the same rules. The gate is the
contract's schema gate (:meth:`ToolContract.check_schema`: strict JSON, no extra fields, 64-bit
integers, depth <= 32); the exported schema says the same: every object of the model gets
``additionalProperties: false`` and every unbounded integer gets the 64-bit bounds the gate
enforces. ``tests/test_schema.py`` checks it both ways with hypothesis and ``jsonschema``.

Strict, not lax, on purpose: a tool declared ``amount_cents: int`` refuses ``"3000"``. A model's
tool call is JSON the runtime journals and hashes into the effect key; coercing ``"3000"`` to
``3000`` would make two different payloads one effect, and hide the model's mistake from the
trace. The refusal is a named :class:`~minirt.contracts.SchemaViolation` before anything is
journaled as an intent, so the model can be asked again safely.

Not guaranteed (JSON Schema cannot say it; each is a documented difference, tested as such):

- JSON Schema calls ``10.0`` an integer, the gate does not (strict: a float is not an ``int``);
- a custom pydantic validator, a domain constraint or a scope is not in the schema: the gate may
  refuse what the schema allows (never the reverse);
- the gate NFC-normalises strings first, so ``maxLength`` counts code points after NFC (U+0B5C
  is two code points in NFC: a string the schema allows may be one too long for the gate);
- the gate refuses lone surrogates and nesting deeper than 32.

A plain :class:`~minirt.tools.FunctionTool` (the lower layer's untyped primitive: ``tools`` may
import nothing but ``errors``) has no input model, and exporting its schema raises
:class:`SchemaUnavailable` rather than show a model rules the gate does not enforce;
:func:`typed` turns it into a :class:`TypedTool`. A function with ``*args`` or ``**kwargs`` has no
input model (its arguments cannot be listed) and keeps the untyped behaviour.
"""

from __future__ import annotations

import copy
import inspect
import typing
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from .contracts import MAX_INT, ToolContract
from .errors import MinirtError
from .tools import EffectClass, FunctionTool, Lookup, ToolCall

#: Parameters a FunctionTool fills in itself; never part of the arguments a model sends.
INJECTED = frozenset({"call"})


class SchemaUnavailable(MinirtError):
    """The tool has no input model to export (an untyped tool, or ``**kwargs``)."""

    fields = ("tool", "reason")
    template = "tool {tool!r} has no input schema: {reason}"


# -- the input model of a function ----------------------------------------------------------------

def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """Resolved annotations of ``fn``; one that cannot be resolved (a local class under
    ``from __future__ import annotations``) counts as ``Any`` rather than failing the tool."""
    try:
        return typing.get_type_hints(fn)
    except Exception:
        pass
    out: dict[str, Any] = {}
    ns = getattr(fn, "__globals__", {})
    for name, ann in getattr(fn, "__annotations__", {}).items():
        if isinstance(ann, str):
            try:
                ann = eval(ann, ns, {})  # noqa: S307 - the function's own annotation text
            except Exception:
                ann = Any
        out[name] = ann
    return out


def input_model_from(fn: Callable[..., Any], *, name: str | None = None,
                     injected: Iterable[str] = INJECTED) -> type[BaseModel] | None:
    """The pydantic model of ``fn``'s parameters (minus the ``injected`` ones), or None when its
    parameters cannot be listed (``*args``/``**kwargs``). An unannotated parameter is ``Any``; a
    parameter with a default is optional."""
    skip = set(injected)
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    hints = _hints(fn)
    fields: dict[str, Any] = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return None
        if p.name in skip:
            continue
        ann = hints.get(p.name, Any)
        fields[p.name] = (ann, ... if p.default is p.empty else p.default)
    model_name = "".join(w.capitalize() for w in (name or fn.__name__ or "tool").split("_"))
    try:
        return create_model(f"{model_name or 'Tool'}Args",
                            __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=True),
                            **fields)
    except Exception:  # a hint pydantic cannot model (an arbitrary class): untyped, as before
        return None


def validate_arguments(tool: str, model: type[BaseModel], args: Any) -> dict[str, Any]:
    """The contract's schema gate over ``model``: returns ``args`` unchanged (a dict) when they
    fit, raises :class:`~minirt.contracts.SchemaViolation` naming the field when not."""
    gate = ToolContract(tool, input_model=model, handler=_never)
    gate.check_schema(args)
    return dict(args)


def _never(args: Any, inv: Any) -> Any:  # the gate above is never invoked
    raise AssertionError("schema gate only")


# -- the typed tool and @tool ----------------------------------------------------------------------

class TypedTool(FunctionTool):
    """A :class:`~minirt.tools.FunctionTool` whose contract is built from its type hints.

    ``input_model`` is the pydantic model of the function's parameters (minus
    ``injected_params``); ``prepare`` runs the contract's strict schema gate over it, so
    ``amount_cents: int`` refuses ``"3000"`` with a named ``SchemaViolation`` (field
    ``amount_cents``) before any intent is journaled. The arguments reach the function as the JSON
    they were journaled as: validated, never converted (so the effect key is the key of what the
    model sent). A function with ``*args``/``**kwargs`` has no input model and is not checked.
    """

    #: Parameters the tool fills in itself (never sent by a caller, never in the schema).
    injected_params: frozenset[str] = INJECTED

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None,
                 effect: EffectClass | str = EffectClass.PURE,
                 lookup: Callable[[ToolCall], Lookup] | None = None,
                 description: str | None = None, retry: Any = None) -> None:
        super().__init__(fn, name=name, effect=EffectClass(effect), lookup=lookup, retry=retry)
        self.description = description if description is not None else (
            inspect.getdoc(fn) or "")
        self.input_model = input_model_from(fn, name=self.name, injected=self.injected_params)
        self._gate = None if self.input_model is None else ToolContract(
            self.name, input_model=self.input_model, handler=_never)

    def prepare(self, args: Any, scopes: frozenset[str]) -> dict[str, Any]:
        if self._gate is None:
            return super().prepare(args, scopes)
        self._gate.check_schema(args)  # the contract's schema gate: strict, named refusals
        return dict(args)

    @property
    def is_async(self) -> bool:
        """An ``async def`` tool: awaited by :mod:`minirt.aio` (:meth:`ainvoke`)."""
        return inspect.iscoroutinefunction(self.fn)

    def invoke(self, call: ToolCall) -> Any:
        if self.is_async:  # nothing ran: a named refusal, journaled, instead of a coroutine
            raise AsyncToolNeedsAwait(tool=self.name)
        return super().invoke(call)

    async def ainvoke(self, call: ToolCall) -> Any:
        """The call awaited (an ``async def`` tool), or made (a plain one) in an async run."""
        if self.is_async:
            return await super().invoke(call)
        return super().invoke(call)

    def __repr__(self) -> str:
        return f"TypedTool({self.name!r}, effect={self.effect.value!r})"


class AsyncToolNeedsAwait(MinirtError):
    """An ``async def`` tool was called by a synchronous run: it never ran (nothing happened)."""

    fields = ("tool",)
    template = ("tool {tool!r} is async def: run it from an async workflow "
                "(minirt.aio.AsyncRuntime), a synchronous run cannot await it")


def tool(effect: EffectClass | str = EffectClass.PURE, *, name: str | None = None,
         lookup: Callable[[ToolCall], Lookup] | None = None, description: str | None = None,
         retry: Any = None) -> Callable[[Callable[..., Any]], TypedTool]:
    """Decorator (``from minirt import tool``): ``@tool(EffectClass.KEYED)`` turns a function
    into a :class:`TypedTool`, typed from its hints. (``minirt.tools.tool`` is the untyped
    primitive of the lower layer.)"""

    def wrap(fn: Callable[..., Any]) -> TypedTool:
        return TypedTool(fn, name=name, effect=effect, lookup=lookup, description=description,
                         retry=retry)

    return wrap


def typed(t: FunctionTool, *, description: str | None = None) -> TypedTool:
    """The same plain FunctionTool (function, name, effect, lookup), typed from its hints. A
    subclass (e.g. a ``GuardedTool``, whose ``invoke`` adds arguments) is refused: its own class
    must say which parameters it injects."""
    if isinstance(t, TypedTool):
        return t
    if type(t) is not FunctionTool:
        raise SchemaUnavailable(tool=t.name, reason=f"{type(t).__name__} is a FunctionTool "
                                                    "subclass: type it in its own class")
    lookup = t.lookup if t.has_lookup else None
    return TypedTool(t.fn, name=t.name, effect=t.effect, lookup=lookup, description=description)


# -- export -----------------------------------------------------------------------------------------

def input_model_of(tool: Any) -> type[BaseModel]:
    """The input model of a tool (ToolContract or typed FunctionTool), or SchemaUnavailable."""
    model = getattr(tool, "input_model", None)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return model
    raise SchemaUnavailable(tool=getattr(tool, "name", repr(tool)),
                            reason="no input model (untyped function, *args or **kwargs)")


def json_schema(tool: Any) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the tool's arguments, with the gate's extra rules. A
    tool whose gate IS a JSON Schema (``input_schema``: an MCP tool) exports that schema."""
    given = getattr(tool, "input_schema", None)
    if isinstance(given, dict):
        return copy.deepcopy(given)
    schema = copy.deepcopy(input_model_of(tool).model_json_schema())
    _tighten(schema)
    return schema


def _tighten(node: Any) -> None:
    """Closed objects and 64-bit integers, everywhere in the schema (``$defs`` included)."""
    if isinstance(node, list):
        for item in node:
            _tighten(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "object" and "properties" in node:
        node.setdefault("additionalProperties", False)
    if node.get("type") == "integer":
        if "minimum" not in node and "exclusiveMinimum" not in node:
            node["minimum"] = -MAX_INT
        if "maximum" not in node and "exclusiveMaximum" not in node:
            node["maximum"] = MAX_INT
    for value in node.values():
        _tighten(value)


def description_of(tool: Any) -> str:
    """The tool's description: its ``description`` attribute, else its function's docstring."""
    text = getattr(tool, "description", None)
    if not text:
        fn = getattr(tool, "fn", None) or getattr(tool, "handler", None)
        text = inspect.getdoc(fn) if fn is not None else None
    return (text or "").strip()


def openai_tool(tool: Any, *, strict: bool | None = None) -> dict[str, Any]:
    """Chat Completions: ``{"type": "function", "function": {name, description, parameters}}``."""
    fn: dict[str, Any] = {"name": tool.name, "parameters": json_schema(tool)}
    if desc := description_of(tool):
        fn["description"] = desc
    if strict is not None:
        fn["strict"] = strict
    return {"type": "function", "function": fn}


def openai_responses_tool(tool: Any, *, strict: bool = False) -> dict[str, Any]:
    """Responses API: ``{"type": "function", name, description, parameters, strict}`` (flat)."""
    out: dict[str, Any] = {"type": "function", "name": tool.name,
                           "parameters": json_schema(tool), "strict": strict}
    if desc := description_of(tool):
        out["description"] = desc
    return out


def anthropic_tool(tool: Any) -> dict[str, Any]:
    """Anthropic Messages: ``{"name", "description", "input_schema"}``."""
    out: dict[str, Any] = {"name": tool.name, "input_schema": json_schema(tool)}
    if desc := description_of(tool):
        out["description"] = desc
    return out


def mcp_tool(tool: Any) -> dict[str, Any]:
    """MCP ``tools/list`` entry as on the wire: ``{"name", "description", "inputSchema"}``
    (``mcp.types.Tool.model_validate`` reads it; the SDK's field is ``input_schema``)."""
    out: dict[str, Any] = {"name": tool.name, "inputSchema": json_schema(tool)}
    if desc := description_of(tool):
        out["description"] = desc
    return out


def tool_schemas(tools: Iterable[Any], shape: str = "openai") -> list[dict[str, Any]]:
    """Every tool in ``shape`` (``openai``, ``openai-responses``, ``anthropic``, ``mcp``)."""
    makers: dict[str, Callable[[Any], dict[str, Any]]] = {
        "openai": openai_tool, "openai-responses": openai_responses_tool,
        "anthropic": anthropic_tool, "mcp": mcp_tool}
    if shape not in makers:
        raise ValueError(f"unknown schema shape {shape!r}; one of {sorted(makers)}")
    return [makers[shape](t) for t in tools]
