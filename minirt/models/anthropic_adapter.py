"""The official ``anthropic`` SDK (Messages API) as a minirt model.

:class:`AnthropicModel` wraps an ``anthropic.Anthropic`` client (``base_url`` points it
anywhere) and the minirt tools the model may call; ``complete(prompt, index=...)`` sends
``client.messages.create(model=..., max_tokens=..., system=..., messages=...,
tools=[anthropic_tool(t) ...])`` and returns the decision of :mod:`minirt.models`
(``provider: "anthropic"``): ``tool_use`` blocks become ``tool_calls`` (their ``input`` is
already an object), text blocks are joined into ``text``.

Invariant: the request is a pure function of the prompt and the adapter's settings; the decision
is JSON data built from the SDK's typed response only. Guarantees: SDK errors become
:class:`~minirt.models.ModelUnavailable`; a response without content blocks is
:class:`~minirt.models.ModelOutputInvalid`. ``max_tokens`` (required by the API) is also the
bound a budget reserves for the decision. Not guaranteed: server tools and thinking blocks are
kept in ``message`` as the SDK dumped them but are not interpreted; no streaming.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..canonical import canonical_json
from ..schema import anthropic_tool
from . import ModelOutputInvalid, ModelUnavailable, ToolCallOutcome, read_prompt, usage

PROVIDER = "anthropic"


class AnthropicModel:
    """``ctx.decide(prompt, model=AnthropicModel(client, "claude-...", tools=[...]))``."""

    def __init__(self, client: Any, model: str, *, tools: Iterable[Any] = (),
                 max_tokens: int = 1024, **create_kwargs: Any) -> None:
        self.client = client
        self.model = model
        self.tools = list(tools)
        self.tool_specs = [anthropic_tool(t) for t in self.tools]
        self.max_tokens = int(max_tokens)
        self.create_kwargs = dict(create_kwargs)
        self.calls = 0  # requests sent (a replayed decision sends none)

    def request(self, prompt: Any) -> dict[str, Any]:
        """The keyword arguments of ``messages.create`` for ``prompt``."""
        messages, system = read_prompt(PROVIDER, prompt)
        kw: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens,
                              "messages": messages, **self.create_kwargs}
        if system is not None:
            kw["system"] = system
        if self.tool_specs:
            kw["tools"] = self.tool_specs
        return kw

    def complete(self, prompt: Any, *, index: int) -> dict[str, Any]:
        kw = self.request(prompt)
        self.calls += 1
        try:
            resp = self.client.messages.create(**kw)
        except Exception as exc:
            raise unavailable(exc) from None
        return decision_of(resp)

    def tool_results_message(self, outcomes: Iterable[ToolCallOutcome]) -> dict[str, Any]:
        """The ``user`` message of ``tool_result`` blocks, each answering a ``tool_use`` id."""
        return {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": o.tool_call_id,
             "content": canonical_json(o.result if o.ok else {"error": o.result}),
             "is_error": not o.ok} for o in outcomes]}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r}, tools={[t.name for t in self.tools]})"


class AsyncAnthropicModel(AnthropicModel):
    """The same adapter over ``anthropic.AsyncAnthropic``: ``await ctx.decide(prompt)`` in an
    async workflow (:mod:`minirt.aio`) awaits :meth:`acomplete`; same request, same decision."""

    async def acomplete(self, prompt: Any, *, index: int) -> dict[str, Any]:
        kw = self.request(prompt)
        self.calls += 1
        try:
            resp = await self.client.messages.create(**kw)
        except Exception as exc:
            raise unavailable(exc) from None
        return decision_of(resp)

    def complete(self, prompt: Any, *, index: int) -> dict[str, Any]:
        raise ModelUnavailable(provider=PROVIDER, reason="an AsyncAnthropic client is awaited: "
                               "use it from an async workflow (minirt.aio)")


def unavailable(exc: Exception) -> Exception:
    """The named error for what the SDK raised; anything else is returned as is."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        return ModelUnavailable(provider=PROVIDER,
                                reason=f"HTTP {exc.status_code}: {exc.message}"[:300])
    if isinstance(exc, anthropic.APIError):
        return ModelUnavailable(provider=PROVIDER, reason=f"{type(exc).__name__}: {exc}"[:300])
    return exc


def decision_of(resp: Any) -> dict[str, Any]:
    """The decision in a ``Message``."""
    blocks = getattr(resp, "content", None)
    if blocks is None:
        raise ModelOutputInvalid(provider=PROVIDER, reason="no content in the response")
    calls: list[dict[str, Any]] = []
    texts: list[str] = []
    for b in blocks:
        if b.type == "tool_use":
            args = b.input if isinstance(b.input, dict) else None
            calls.append({"id": b.id, "name": b.name, "arguments": args,
                          "arguments_text": canonical_json(b.input),
                          "arguments_error": None if args is not None else "input is not an "
                                                                           "object"})
        elif b.type == "text":
            texts.append(b.text)
    u = getattr(resp, "usage", None)
    return {"provider": PROVIDER, "model": resp.model, "response_id": resp.id,
            "stop_reason": resp.stop_reason, "text": "".join(texts), "tool_calls": calls,
            "usage": usage(getattr(u, "input_tokens", 0), getattr(u, "output_tokens", 0)),
            "message": {"role": "assistant",
                        "content": [b.model_dump(mode="json", exclude_none=True)
                                    for b in blocks]}}
