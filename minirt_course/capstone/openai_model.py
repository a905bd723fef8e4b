"""An optional model for ``ctx.decide``: any OpenAI-compatible chat-completions endpoint.

:class:`ChatCompletionsModel` implements :class:`minirt.runtime.Model` over HTTP with ``urllib``
only: the prompt (JSON data) goes as the user message, the system message asks for one JSON
object, ``response_format`` is ``{"type": "json_object"}`` and the answer's ``content`` is parsed
as JSON. The response's ``usage`` is copied into the decision (``{"usage": {"total_tokens": n}}``)
so the budget (module 09) settles the tokens really used.

The runtime journals each decision, so a replay after a crash never calls the endpoint again; a
crash *before* the decision is journaled asks again (a model call is a step that may run twice,
and may answer differently: only the journaled answer counts).

Errors are named: :class:`ModelUnavailable` (no answer, a timeout, a non-2xx status) and
:class:`ModelOutputInvalid` (an answer that is not one JSON object). Neither is retried here:
a retry policy belongs to the caller, bounded by the budget.

Not guaranteed: anything about the model's answer beyond its shape. The course's tests run it
only against a fake server on 127.0.0.1; no test makes a real network call.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from minirt.canonical import canonical_json
from minirt.errors import MinirtError

SYSTEM = ("You are the planning step of a customer-support agent. Answer with exactly one JSON "
          "object and nothing else.")


class ModelUnavailable(MinirtError):
    """The endpoint gave no usable answer: a connection error, a timeout or a non-2xx status.

    Not :class:`ModelOutputInvalid` (an answer arrived but is not one JSON object)."""

    fields = ("url", "reason")
    template = "model endpoint {url} unavailable: {reason}"


class ModelOutputInvalid(MinirtError):
    """The endpoint answered, but not with one JSON object in ``choices[0].message.content``."""

    fields = ("url", "reason")
    template = "model endpoint {url} answered something that is not one JSON object: {reason}"


class ChatCompletionsModel:
    """``complete(prompt, index=...)`` -> the JSON object the model answered (see the module doc).

    ``base_url`` ends before ``/chat/completions`` (e.g. ``http://127.0.0.1:8000/v1``).
    ``api_key`` is sent as a bearer token when given; it is never part of a decision.
    """

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 timeout_s: float = 30.0, temperature: float = 0.0,
                 system: str = SYSTEM) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._api_key = api_key  # Invariant: only ever placed in the Authorization header
        self.timeout_s = float(timeout_s)
        self.temperature = float(temperature)
        self.system = system
        self.calls = 0  # how many requests were sent (replays send none)

    def __repr__(self) -> str:
        return f"ChatCompletionsModel({self.url!r}, model={self.model!r})"

    def request_body(self, prompt: Any) -> dict[str, Any]:
        """The JSON body sent for ``prompt`` (pure: the same prompt gives the same body)."""
        return {"model": self.model, "temperature": self.temperature,
                "response_format": {"type": "json_object"},
                "messages": [{"role": "system", "content": self.system},
                             {"role": "user", "content": canonical_json(prompt)}]}

    def complete(self, prompt: Any, *, index: int) -> Any:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        data = json.dumps(self.request_body(prompt)).encode("utf-8")
        req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        self.calls += 1
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:  # noqa: S310
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            raise ModelUnavailable(url=self.url, reason=f"HTTP {exc.code}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ModelUnavailable(url=self.url, reason=str(reason)) from None
        return self.parse(raw)

    def parse(self, raw: bytes) -> dict[str, Any]:
        """The decision in a chat-completions response body, with its ``usage``."""
        try:
            body = json.loads(raw)
            content = body["choices"][0]["message"]["content"]
            out = json.loads(content)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ModelOutputInvalid(url=self.url, reason=f"{type(exc).__name__}: {exc}"[:200]
                                     ) from None
        if not isinstance(out, dict):
            raise ModelOutputInvalid(url=self.url, reason=f"a {type(out).__name__}, not an "
                                                          "object")
        usage = body.get("usage")
        if isinstance(usage, dict) and "total_tokens" in usage and "usage" not in out:
            out["usage"] = {"total_tokens": int(usage["total_tokens"])}
        return out
