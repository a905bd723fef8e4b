"""A fake model provider on 127.0.0.1 that the official SDKs reach through ``base_url``.

It speaks just enough of two wire formats: OpenAI Chat Completions (``POST
/v1/chat/completions``) and Anthropic Messages (``POST /v1/messages``). Replies come from a
script, one turn per request (or a function ``(n, body) -> turn``): ``{"tool_calls": [(name, arguments)]}`` (``arguments`` is a dict,
or a raw string sent as is) or ``{"text": "..."}``. Every request is counted and its body kept,
so a test can prove that a replayed decision asked nothing. Tool-call ids are fresh per request
(``call_<n>_<i>`` / ``toolu_<n>_<i>``), as a real model's are.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE_IN, USAGE_OUT = 21, 7  # tokens every fake answer reports


class FakeModelServer:
    def __init__(self, script: list[dict[str, Any]] | Callable[[int, Any], dict[str, Any]]
                 ) -> None:
        self.script = script if callable(script) else list(script)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet: never write to stderr
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"] or 0)))
                with server.lock:
                    n = len(server.requests)
                    server.requests.append((self.path, body))
                    turn = (server.script(n, body) if callable(server.script) else
                            server.script[n] if n < len(server.script) else {"text": "done"})
                if self.path.endswith("/chat/completions"):
                    out = _openai(n, body, turn)
                elif self.path.endswith("/messages"):
                    out = _anthropic(n, body, turn)
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                data = json.dumps(out).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def count(self) -> int:
        with self.lock:
            return len(self.requests)


def _args_text(args: Any) -> str:
    return args if isinstance(args, str) else json.dumps(args)


def _openai(n: int, body: dict[str, Any], turn: dict[str, Any]) -> dict[str, Any]:
    calls = [{"id": f"call_{n}_{i}", "type": "function",
              "function": {"name": name, "arguments": _args_text(args)}}
             for i, (name, args) in enumerate(turn.get("tool_calls", ()))]
    message: dict[str, Any] = {"role": "assistant", "content": turn.get("text")}
    if calls:
        message["tool_calls"] = calls
    return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1700000000 + n,
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": USAGE_IN, "completion_tokens": USAGE_OUT,
                      "total_tokens": USAGE_IN + USAGE_OUT}}


def _anthropic(n: int, body: dict[str, Any], turn: dict[str, Any]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if turn.get("text"):
        content.append({"type": "text", "text": turn["text"]})
    for i, (name, args) in enumerate(turn.get("tool_calls", ())):
        content.append({"type": "tool_use", "id": f"toolu_{n}_{i}", "name": name,
                        "input": args if isinstance(args, dict) else {"raw": args}})
    return {"id": f"msg_{n}", "type": "message", "role": "assistant",
            "model": body.get("model", "fake"), "content": content,
            "stop_reason": "tool_use" if turn.get("tool_calls") else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT}}


@contextmanager
def serving(script: Any) -> Iterator[FakeModelServer]:
    server = FakeModelServer(script)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        thread.join(5)
