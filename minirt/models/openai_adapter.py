"""The official ``openai`` SDK (Chat Completions) as a minirt model.

:class:`OpenAIChatModel` wraps an ``openai.OpenAI`` client (point it anywhere with ``base_url``)
and the minirt tools the model may call; ``complete(prompt, index=...)`` sends
``client.chat.completions.create(model=..., messages=..., tools=[openai_tool(t) ...])`` and
returns the decision of :mod:`minirt.models` (``provider: "openai-chat"``).

Invariant: the request is a pure function of the prompt and the adapter's settings (same prompt,
same request body), and the decision is JSON data built from the SDK's typed response only.
Guarantees: a function call's ``arguments`` (a JSON string) is parsed; text that is not a JSON
object is kept as ``arguments_text`` with ``arguments_error`` set, so the tool's gate refuses it
by name (journaled) instead of the adapter guessing. SDK errors become
:class:`~minirt.models.ModelUnavailable` / :class:`~minirt.models.ModelOutputInvalid`. Not
guaranteed: custom (non-function) tool calls are reported with ``arguments: null`` and the raw
input, never run; streaming is not used; retries are the client's (``max_retries``), and each
retry is one more request to the provider.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..canonical import canonical_json
from ..schema import openai_tool
from . import ModelOutputInvalid, ModelUnavailable, ToolCallOutcome, read_prompt, usage

PROVIDER = "openai-chat"


class OpenAIChatModel:
    """``ctx.decide(prompt, model=OpenAIChatModel(client, "gpt-4.1-mini", tools=[...]))``."""

    def __init__(self, client: Any, model: str, *, tools: Iterable[Any] = (),
                 **create_kwargs: Any) -> None:
        self.client = client
        self.model = model
        self.tools = list(tools)
        self.tool_specs = [openai_tool(t) for t in self.tools]
        self.create_kwargs = dict(create_kwargs)  # e.g. temperature=0, tool_choice="auto"
        self.calls = 0  # requests sent (a replayed decision sends none)

    def request(self, prompt: Any) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for ``prompt``."""
        messages, system = read_prompt(PROVIDER, prompt)
        if system is not None:
            messages = [{"role": "system", "content": system}, *messages]
        kw: dict[str, Any] = {"model": self.model, "messages": messages, **self.create_kwargs}
        if self.tool_specs:
            kw["tools"] = self.tool_specs
        return kw

    def complete(self, prompt: Any, *, index: int) -> dict[str, Any]:
        kw = self.request(prompt)
        self.calls += 1
        try:
            resp = self.client.chat.completions.create(**kw)
        except Exception as exc:
            raise unavailable(exc) from None
        return decision_of(resp)

    def tool_messages(self, outcomes: Iterable[ToolCallOutcome]) -> list[dict[str, Any]]:
        """The ``role: tool`` messages answering each call by the model's own id."""
        return [{"role": "tool", "tool_call_id": o.tool_call_id,
                 "content": canonical_json(o.result if o.ok else {"error": o.result})}
                for o in outcomes]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r}, tools={[t.name for t in self.tools]})"


class AsyncOpenAIChatModel(OpenAIChatModel):
    """The same adapter over ``openai.AsyncOpenAI``: ``await ctx.decide(prompt)`` in an async
    workflow (:mod:`minirt.aio`) awaits :meth:`acomplete`; the request and the decision are
    the synchronous adapter's, byte for byte."""

    async def acomplete(self, prompt: Any, *, index: int) -> dict[str, Any]:
        kw = self.request(prompt)
        self.calls += 1
        try:
            resp = await self.client.chat.completions.create(**kw)
        except Exception as exc:
            raise unavailable(exc) from None
        return decision_of(resp)

    def complete(self, prompt: Any, *, index: int) -> dict[str, Any]:
        raise ModelUnavailable(provider=PROVIDER, reason="an AsyncOpenAI client is awaited: "
                               "use it from an async workflow (minirt.aio)")


def unavailable(exc: Exception) -> Exception:
    """The named error for what the SDK raised (an error status, a connection error, a timeout,
    a bad body); anything else is returned as is (a bug is not an outage)."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        return ModelUnavailable(provider=PROVIDER,
                                reason=f"HTTP {exc.status_code}: {exc.message}"[:300])
    if isinstance(exc, openai.APIError):
        return ModelUnavailable(provider=PROVIDER, reason=f"{type(exc).__name__}: {exc}"[:300])
    return exc


def decision_of(resp: Any) -> dict[str, Any]:
    """The decision in a ``ChatCompletion`` (first choice)."""
    if not getattr(resp, "choices", None):
        raise ModelOutputInvalid(provider=PROVIDER, reason="no choices in the response")
    choice = resp.choices[0]
    msg = choice.message
    calls: list[dict[str, Any]] = []
    raw_calls: list[dict[str, Any]] = []
    for tc in msg.tool_calls or ():
        if getattr(tc, "type", "function") == "function":
            text = tc.function.arguments or ""
            calls.append({"id": tc.id, "name": tc.function.name, **_arguments(text)})
            raw_calls.append({"id": tc.id, "type": "function",
                              "function": {"name": tc.function.name, "arguments": text}})
        else:  # a custom tool call: reported, never run
            raw = getattr(getattr(tc, "custom", None), "input", "")
            calls.append({"id": tc.id, "name": getattr(tc.custom, "name", "?"),
                          "arguments": None, "arguments_text": str(raw),
                          "arguments_error": f"{tc.type} tool calls are not run by minirt"})
    message: dict[str, Any] = {"role": "assistant", "content": msg.content}
    if raw_calls:
        message["tool_calls"] = raw_calls
    u = getattr(resp, "usage", None)
    return {"provider": PROVIDER, "model": resp.model, "response_id": resp.id,
            "stop_reason": choice.finish_reason, "text": msg.content or "",
            "tool_calls": calls,
            "usage": usage(getattr(u, "prompt_tokens", 0), getattr(u, "completion_tokens", 0)),
            "message": message}


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        return {"arguments": None, "arguments_text": text,
                "arguments_error": f"not JSON: {exc}"[:200]}
    if not isinstance(value, Mapping):
        return {"arguments": None, "arguments_text": text,
                "arguments_error": f"a JSON {type(value).__name__}, not an object"}
    return {"arguments": dict(value), "arguments_text": text, "arguments_error": None}
