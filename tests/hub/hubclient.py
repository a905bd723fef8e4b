"""A small client for a running JupyterHub: its REST API, the users' servers, and commands run
in a user's own kernel.

Invariant: everything goes over HTTP(S)/WebSocket through the Hub's proxy with the class-driver
service token, so each action runs in the single-user server of the user named, as that Unix
user (LocalProcessSpawner); nothing here touches the users' files directly.
Not guaranteed: anything about a Hub configured without the class-driver service.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any


class HubError(Exception):
    """A Hub or single-user server request failed; the message carries status and body."""


class Hub:
    def __init__(self, url: str, token: str) -> None:
        self.url = url.rstrip("/")
        self.token = token

    # ------------------------------------------------------------------ plain HTTP

    def request(self, method: str, path: str, *, data: Any = None, form: dict | None = None,
                timeout: float = 120.0) -> Any:
        body, headers = None, {"Authorization": f"token {self.token}"}
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            raise HubError(f"{method} {path}: HTTP {exc.code}: {exc.read()[:500]!r}") from None
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")

    def wait_up(self, timeout: float = 60.0) -> float:
        t0 = time.monotonic()
        while True:
            try:
                self.request("GET", "/hub/api/", timeout=5)
                return time.monotonic() - t0
            except (OSError, HubError):
                if time.monotonic() - t0 > timeout:
                    raise
                time.sleep(0.25)

    def start_server(self, user: str, timeout: float = 180.0) -> None:
        try:
            self.request("POST", f"/hub/api/users/{user}/server")
        except HubError as exc:
            if "400" not in str(exc):  # 400: already running
                raise
        t0 = time.monotonic()
        while True:
            info = self.request("GET", f"/hub/api/users/{user}")
            server = info.get("servers", {}).get("", {})
            if server.get("ready"):
                return
            if not info.get("pending") and not server:
                raise HubError(f"the server of {user} stopped while starting (see the Hub log)")
            if time.monotonic() - t0 > timeout:
                raise HubError(f"the server of {user} was not ready in {timeout:.0f} s")
            time.sleep(0.3)

    def user(self, user: str, method: str, path: str, **kw: Any) -> Any:
        """A request to `user`'s single-user server (path relative to /user/<user>/)."""
        return self.request(method, f"/user/{user}/{path.lstrip('/')}", **kw)

    # ------------------------------------------------------------------ a kernel of the user

    def run(self, user: str, code: str, timeout: float = 600.0) -> str:
        """Run `code` in a fresh kernel of `user`'s server; return its stdout+stderr text.
        Raises HubError with the traceback when the code raises."""
        kernel = self.user(user, "POST", "api/kernels", data={"name": "python3"})
        try:
            # In a thread of its own: a sync Playwright session earlier in the same pytest
            # process leaves an event loop running in this thread, where asyncio.run refuses.
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                return pool.submit(asyncio.run,
                                   self._execute(user, kernel["id"], code, timeout)).result()
        finally:
            try:
                self.user(user, "DELETE", f"api/kernels/{kernel['id']}")
            except HubError:
                pass

    async def _execute(self, user: str, kernel_id: str, code: str, timeout: float) -> str:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        ws_url = self.url.replace("http", "ws", 1) + f"/user/{user}/api/kernels/{kernel_id}/channels"
        conn = await websocket_connect(HTTPRequest(
            ws_url, headers={"Authorization": f"token {self.token}"}, request_timeout=60))
        msg_id = uuid.uuid4().hex
        conn.write_message(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": user,
                       "session": uuid.uuid4().hex, "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": False,
                        "user_expressions": {}, "allow_stdin": False, "stop_on_error": True},
        }))
        out: list[str] = []
        error: str | None = None
        deadline = time.monotonic() + timeout
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise HubError(f"code in {user}'s kernel did not finish in {timeout:.0f} s")
                raw = await asyncio.wait_for(conn.read_message(), left)
                if raw is None:
                    raise HubError(f"{user}'s kernel websocket closed")
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = msg["header"]["msg_type"], msg["content"]
                if kind == "stream":
                    out.append(content["text"])
                elif kind == "error":
                    error = "\n".join(content.get("traceback", [])) or content.get("evalue", "")
                elif kind == "status" and content.get("execution_state") == "idle":
                    break
        finally:
            conn.close()
        if error is not None:
            raise HubError(f"code in {user}'s kernel raised:\n{''.join(out)}\n{error}")
        return "".join(out)
