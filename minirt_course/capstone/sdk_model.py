"""The capstone's planner on the real ``openai`` SDK, and a local model server for it.

:class:`SdkPlanModel` is :class:`~minirt_course.capstone.openai_model.ChatCompletionsModel` (the same
request body, byte for byte, and the same parsing of the answer into one JSON object with its
``usage``) sent through an ``openai.OpenAI`` client instead of ``urllib``: point the client's
``base_url`` at any OpenAI-compatible endpoint. :class:`LocalModelServer` is such an endpoint on
127.0.0.1 (no network, no key): it answers the planning prompt with what the scripted planner
(:func:`~minirt_course.capstone.agent.support_model`) would, so a run over the SDK makes the same plan
as the default run, and it counts requests, so a replay can be shown to ask nothing.

The switch: ``build_runtime(workdir, model_url=server.base_url)`` (or
``Options(model=SdkPlanModel(client))``); without it the capstone keeps ``ScriptedModel``, which
needs no server and teaches replay with nothing in the way.

Invariant: the decision is the parsed answer only (never the SDK's response object), so it
journals as JSON and replays identically. Guarantees: SDK errors become the named
:class:`~minirt_course.capstone.openai_model.ModelUnavailable` / ``ModelOutputInvalid``; the server
writes nothing to stderr. Not guaranteed: that a real model answers with a valid plan (the agent
checks it: :class:`~minirt_course.capstone.agent.PlanRejected`).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .agent import support_model
from .openai_model import ChatCompletionsModel, ModelUnavailable

MODEL = "local-support-planner"


class SdkPlanModel(ChatCompletionsModel):
    """``ctx.decide`` over ``client.chat.completions.create`` (an ``openai.OpenAI`` client)."""

    def __init__(self, client: Any, model: str = MODEL, **kw: Any) -> None:
        super().__init__(str(client.base_url), model, **kw)
        self.client = client

    def __repr__(self) -> str:
        return f"SdkPlanModel({self.url!r}, model={self.model!r})"

    def complete(self, prompt: Any, *, index: int) -> Any:
        import openai

        self.calls += 1
        try:
            resp = self.client.chat.completions.create(**self.request_body(prompt))
        except openai.APIStatusError as exc:
            raise ModelUnavailable(url=self.url, reason=f"HTTP {exc.status_code}") from None
        except openai.APIError as exc:
            raise ModelUnavailable(url=self.url, reason=f"{type(exc).__name__}") from None
        return self.parse(resp.model_dump_json().encode("utf-8"))


def sdk_model(base_url: str, *, api_key: str = "local-no-key", model: str = MODEL
              ) -> SdkPlanModel:
    """An :class:`SdkPlanModel` over a fresh ``openai.OpenAI(base_url=...)`` (no retries: a
    retry is another request, and the budget should see it)."""
    import openai

    return SdkPlanModel(openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0), model)


class LocalModelServer:
    """A chat-completions endpoint on 127.0.0.1 that plans like the scripted model.

    ``with LocalModelServer() as server: ... server.base_url ... server.count``."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # never write to stderr
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"] or 0)))
                with server.lock:
                    n = server.count
                    server.count += 1
                status, out = server.answer(n, body)
                data = json.dumps(out).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def answer(self, n: int, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The response to request ``n``: the scripted plan for the prompt in the user message."""
        try:
            prompt = json.loads(body["messages"][-1]["content"])
        except (KeyError, IndexError, TypeError, ValueError):
            return 400, {"error": {"message": "expected the capstone's planning prompt"}}
        plan = support_model(prompt, n)
        tokens = int(plan.pop("usage", {}).get("total_tokens", 0))
        return 200, {"id": f"chatcmpl-local-{n}", "object": "chat.completion",
                     "created": 1700000000 + n, "model": body.get("model", MODEL),
                     "choices": [{"index": 0, "finish_reason": "stop",
                                  "message": {"role": "assistant",
                                              "content": json.dumps(plan)}}],
                     "usage": {"prompt_tokens": tokens - 40, "completion_tokens": 40,
                               "total_tokens": tokens}}

    def start(self) -> LocalModelServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True,
                                        name="minirt-local-model")
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(5)
            self._thread = None
        self.httpd.server_close()

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ = ["LocalModelServer", "SdkPlanModel", "sdk_model"]
