"""Model adapters: a real SDK's answer as a journaled decision, and its tool calls run durably.

An adapter (:class:`~minirt.models.openai_adapter.OpenAIChatModel`,
:class:`~minirt.models.anthropic_adapter.AnthropicModel`) is a :class:`minirt.runtime.Model`:
``ctx.decide(prompt, model=adapter)`` sends ``prompt`` (``{"messages": [...], "system": ...}``,
JSON data) with the tools' schemas (:mod:`minirt.schema`) through the official SDK and returns
a **decision**, JSON data in one shape for every provider::

    {"provider": "openai-chat", "model": "...", "response_id": "...", "stop_reason": "...",
     "text": "...", "tool_calls": [{"id": "call_1", "name": "refund", "arguments": {...},
                                    "arguments_error": null, "arguments_text": "..."}],
     "usage": {"input_tokens": 12, "output_tokens": 5, "total_tokens": 17},
     "message": {...the assistant message to append, in the provider's own shape...}}

In an ``async def`` workflow (:mod:`minirt.aio`) the same adapters exist over the SDKs' async
clients (:class:`~minirt.models.openai_adapter.AsyncOpenAIChatModel` over ``openai.AsyncOpenAI``,
:class:`~minirt.models.anthropic_adapter.AsyncAnthropicModel` over ``anthropic.AsyncAnthropic``:
the same request, the same decision), and :func:`arun_tool_calls` (``await
ctx.run_tool_calls(d, parallel=...)``) runs the calls one after another or at once.

An agent over the SDK (``pip install -e '.[agents]'``; tested against a fake server)::

    import openai
    from minirt import EffectClass, Runtime, SQLiteStore, tool
    from minirt.models import run_tool_calls
    from minirt.models.openai_adapter import OpenAIChatModel

    @tool(EffectClass.KEYED)                 # typed from the hints: "3000" is refused by name
    def refund(order_id: str, amount_cents: int, call=None):
        "Refund an order, in cents."
        return {"refund_id": "re_" + call.effect_key[-8:]}

    model = OpenAIChatModel(openai.OpenAI(base_url=URL, api_key=KEY), "gpt-4.1-mini",
                            tools=[refund])

    def agent(ctx, ask):
        messages = [{"role": "user", "content": ask}]
        while (d := ctx.decide({"messages": messages}))["tool_calls"]:   # journaled
            outcomes = run_tool_calls(ctx, d)                            # intents first
            messages += [d["message"], *model.tool_messages(outcomes)]
        return d["text"]

    rt = Runtime(SQLiteStore("runs.sqlite"), tools=[refund], workflows={"agent": agent},
                 model=model)

Invariant: a decision is journaled by ``ctx.decide`` and never re-asked on replay (the SDK is not
called again: its request count is the proof the tests use). The model's tool-call ids are data
inside the decision, kept beside minirt's effect keys (:class:`ToolCallOutcome`), never used as
them: an effect key names the logical operation (run, step, tool, arguments), and a model that is
asked again after a crash before its answer was journaled returns new ids for the same intent.

Guarantees: :func:`run_tool_calls` sends each tool call through ``ctx.call_tool`` (the gate,
the intent journaled before the call, reconcile on replay), in the model's order, and reports
per call its id, its step, its effect key and its result or its refusal (a gate refusal or a
tool's "no" goes back to the model as an error result; an unknown outcome is never reported as
a failure: :class:`~minirt.journal.UnresolvedIntent` and anything else propagate).
``usage`` is in the decision in the keys :func:`minirt.budget.usage_of` reads, so a
:class:`~minirt.budget.BudgetHook` settles the tokens really used.

Not guaranteed: a crash after the SDK answered and before the decision was journaled (fault point
``before_decision_record``) asks the model again, and the provider bills both; what the model
answers (only its shape is checked: :class:`ModelOutputInvalid`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..contracts import ContractError
from ..errors import MinirtError, ToolError


class ModelUnavailable(MinirtError):
    """The SDK got no usable answer: connection error, timeout, or an error status."""

    fields = ("provider", "reason")
    template = "model provider {provider} unavailable: {reason}"


class ModelOutputInvalid(MinirtError):
    """The SDK answered with something that is not a decision (no choice, no content)."""

    fields = ("provider", "reason")
    template = "model provider {provider} answered something unusable: {reason}"


class PromptInvalid(MinirtError):
    """The prompt given to ``ctx.decide`` is not ``{"messages": [...], ...}``."""

    fields = ("provider", "reason")
    template = "prompt for {provider} is invalid: {reason}"


def read_prompt(provider: str, prompt: Any) -> tuple[list[Any], str | None]:
    """``(messages, system)`` of a prompt: a list of messages, or a mapping with ``messages``
    and optionally ``system``."""
    if isinstance(prompt, Sequence) and not isinstance(prompt, str):
        return list(prompt), None
    if not isinstance(prompt, Mapping) or not isinstance(prompt.get("messages"), Sequence) \
            or isinstance(prompt.get("messages"), str):
        raise PromptInvalid(provider=provider,
                            reason='expected {"messages": [...], "system": "..."}')
    system = prompt.get("system")
    if system is not None and not isinstance(system, str):
        raise PromptInvalid(provider=provider, reason="system must be a string")
    return list(prompt["messages"]), system


def usage(input_tokens: Any, output_tokens: Any) -> dict[str, int]:
    i, o = int(input_tokens or 0), int(output_tokens or 0)
    return {"input_tokens": i, "output_tokens": o, "total_tokens": i + o}


@dataclass(frozen=True)
class ToolCallOutcome:
    """One tool call of a decision, after minirt ran it: the model's id beside minirt's key."""

    tool_call_id: str  # the model's id (answer it with this), never an effect key
    tool: str
    step: int  # the journal position of the call
    effect_key: str | None  # minirt's key of the logical call; None if refused before an intent
    ok: bool
    result: Any = None  # the tool's result (ok) or the refusal's record (not ok)


def run_tool_calls(ctx: Any, decision: Mapping[str, Any]) -> list[ToolCallOutcome]:
    """Run every tool call of ``decision`` through ``ctx.call_tool``, in order (see the module
    docstring for what is reported to the model and what propagates)."""
    out: list[ToolCallOutcome] = []
    for tc in decision.get("tool_calls") or ():
        step = ctx.position
        try:
            value = ctx.call_tool(tc["name"], arguments_of(tc))
        except MinirtError as exc:
            out.append(refused(ctx, tc, step, exc))
            continue
        out.append(ToolCallOutcome(tc["id"], tc["name"], step, key_at(ctx, step), True, value))
    return out


async def arun_tool_calls(ctx: Any, decision: Mapping[str, Any], *, parallel: bool = False
                          ) -> list[ToolCallOutcome]:
    """:func:`run_tool_calls` in an async workflow (``ctx`` a :class:`minirt.aio.AsyncContext`):
    one ``await ctx.call_tool`` after another, or (``parallel=True``) one ``ctx.parallel``
    fan-out of every call of a known tool, journaled in completion order and reported in the
    model's order. What is reported and what propagates is the same as in the sync version."""
    calls = list(decision.get("tool_calls") or ())
    if not parallel:
        out: list[ToolCallOutcome] = []
        for tc in calls:
            step = ctx.position
            try:
                value = await ctx.call_tool(tc["name"], arguments_of(tc))
            except MinirtError as exc:
                out.append(refused(ctx, tc, step, exc))
                continue
            out.append(ToolCallOutcome(tc["id"], tc["name"], step, key_at(ctx, step), True,
                                       value))
        return out
    known = [tc for tc in calls if tc["name"] in ctx.runtime.tools]
    first = ctx.position
    results = await ctx.parallel([(tc["name"], arguments_of(tc)) for tc in known],
                                 return_errors=True)
    by_id = {}
    for i, (tc, value) in enumerate(zip(known, results, strict=True)):
        step = first + i
        by_id[id(tc)] = (refused(ctx, tc, step, value) if isinstance(value, BaseException) else
                         ToolCallOutcome(tc["id"], tc["name"], step, key_at(ctx, step), True,
                                         value))
    return [by_id.get(id(tc)) or refused(ctx, tc, -1, _unknown_tool(ctx, tc)) for tc in calls]


def arguments_of(tc: Mapping[str, Any]) -> Any:
    """The arguments to send: the parsed object, or (not JSON) the raw text, which the tool's
    gate refuses by name (journaled)."""
    args = tc.get("arguments")
    return tc.get("arguments_text", "") if args is None else args


def refused(ctx: Any, tc: Mapping[str, Any], step: int, exc: BaseException) -> ToolCallOutcome:
    """The outcome reported to the model for a call that raised ``exc``: an unknown tool, a gate
    refusal or the tool's own "no". Anything else (an unknown outcome, an output that broke the
    contract after the tool ran, a divergence) is raised again: it is never a "failure"."""
    from ..runtime import UnknownTool

    if isinstance(exc, UnknownTool):  # nothing claimed, nothing journaled: the same on replay
        return ToolCallOutcome(tc["id"], tc["name"], -1, None, False, exc.to_record())
    if isinstance(exc, ContractError | ToolError) and not (
            isinstance(exc, ContractError) and not exc.before_dispatch):
        return ToolCallOutcome(tc["id"], tc["name"], step, key_at(ctx, step), False,
                               exc.to_record())
    raise exc


def _unknown_tool(ctx: Any, tc: Mapping[str, Any]) -> MinirtError:
    from ..runtime import UnknownTool

    return UnknownTool(tool=tc["name"], known=sorted(ctx.runtime.tools))


def key_at(ctx: Any, step: int) -> str | None:
    """The effect key the intent at ``step`` recorded (None for a refusal)."""
    pos = ctx.journal.at(step)
    if pos is None or pos.opening is None or pos.opening.kind != "intent":
        return None
    return ctx.journal.payload(pos.opening).get("effect_key")


__all__ = ["ModelOutputInvalid", "ModelUnavailable", "PromptInvalid", "ToolCallOutcome",
           "arguments_of", "arun_tool_calls", "key_at", "read_prompt", "refused",
           "run_tool_calls", "usage"]
