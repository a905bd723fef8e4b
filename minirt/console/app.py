"""The console as an ASGI application (Starlette): pages, operator actions, access control.

Why Starlette: a small, well-kept ASGI toolkit (the base of FastAPI) with a real form parser
(python-multipart), a trusted-host middleware against DNS rebinding, and an in-process test
client (httpx) for the unit tests; served by uvicorn. It parses HTTP for us (no hand-written
parsing) and adds no ORM, template engine or JavaScript of its own. Flask would do as well; a
single ASGI app keeps the door open to streaming a run's progress later.

Routes: ``GET /`` the runs by state, ``GET /runs/{id}`` one run (its journal timeline, its
pending approvals, its UNCERTAIN effects, its operator actions), ``POST /runs/{id}/{action}``
with ``action`` one of approve, deny, resolve, cancel, retry, fork. Every action is
:class:`minirt.operator.Operator`'s, with ``by`` = the console's user name and ``reason`` from
the form, so it is journaled as an ``operator`` event with who and why. With an application
(``--app``), an approve, deny, resolve or retry then executes the run at once (waiting out a
dead worker's lease, at most ``run_timeout`` s); without one, approvals are refused with
:class:`~minirt.operator.NeedsApp` and a worker picks the run up after the other actions.

Invariant: a request is served only if its ``Host`` is the console's own and it carries the
session cookie a ``?token=`` login set; an action runs only for a form this session was given,
once (:mod:`minirt.console.auth`). A refused action shows its named error and writes nothing.
Not guaranteed: who the user really is (``--user``, as ``--by`` in the CLI, is what the person
who started the console says), nor that a run is executed in the console's process when no
``--app`` is given.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from markupsafe import Markup
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ..errors import MinirtError
from ..operator import DID_NOT_HAPPEN, HAPPENED, Operator, OperatorInputInvalid
from ..run import RunNotFound
from ..store import open_store
from .auth import Access, FormRefused, Session
from .pages import hidden_fields, render
from .views import run_view, runs_by_state

ACTIONS = ("approve", "deny", "resolve", "cancel", "retry", "fork", "resume")
#: Sent with every answer: no scripts at all, no framing, no referrer sent to other sites.
#: (``same-origin``, not ``no-referrer``: under ``no-referrer`` Chromium sends ``Origin: null``
#: with the console's own form posts, which the cross-origin check rightly refuses.)
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' "
                               "data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin", "Cache-Control": "no-store",
}
LOCAL_HOSTS = ("127.0.0.1", "localhost")


@dataclass
class ConsoleConfig:
    """What one console serves: a store, optionally the application, and who acts."""

    store_url: str
    user: str
    app: Callable[[Any], Any] | None = None  # store -> Runtime (``--app``)
    token: str | None = None  # default: a fresh one
    hosts: tuple[str, ...] = LOCAL_HOSTS  # accepted Host header names
    run_timeout: float = 60.0  # how long an action's execution waits for a dead lease
    access: Access = field(init=False)

    def __post_init__(self) -> None:
        if not (isinstance(self.user, str) and self.user.strip()):
            raise OperatorInputInvalid(action="console", reason="say who acts (--user)")
        self.access = Access(self.token)
        self.token = self.access.token


def _refused(status: int, text: str) -> Response:
    body = render("message", title="Not allowed", text=text, user="", store_label="",
                  notices=[])
    return HTMLResponse(body, status_code=status)


class TokenAuth(BaseHTTPMiddleware):
    """``?token=`` starts a session (cookie, then a redirect without the token); every other
    request needs the session; a cross-origin post is refused."""

    def __init__(self, app: Any, access: Access) -> None:
        super().__init__(app)
        self.access = access

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        response = await self._dispatch(request, call_next)
        for k, v in SECURITY_HEADERS.items():
            response.headers.setdefault(k, v)
        return response

    async def _dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        token = request.query_params.get("token")
        if token is not None:
            if not self.access.token_ok(token):
                return _refused(403, "wrong token: use the URL minirt console printed")
            s = self.access.start()
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
            target = request.url.path + ("?" + "&".join(f"{quote(k)}={quote(v)}"
                                                       for k, v in rest) if rest else "")
            resp = RedirectResponse(target, status_code=303)
            resp.set_cookie(self.access.cookie, s.sid, httponly=True, samesite="strict", path="/")
            return resp
        session = self.access.session(request.cookies.get(self.access.cookie))
        if session is None:
            return _refused(401, "token required: open the URL with ?token=... that "
                                 "minirt console printed when it started")
        if request.method == "POST":
            origin = request.headers.get("origin")
            if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
                return _refused(403, f"cross-origin post from {origin} refused")
        request.state.session = session
        return await call_next(request)


class Console:
    """The routes over one :class:`ConsoleConfig`."""

    def __init__(self, config: ConsoleConfig) -> None:
        self.config = config

    # -- helpers --------------------------------------------------------------------------
    def _page(self, request: Request, template: str, status: int = 200, **ctx: Any) -> Response:
        s: Session = request.state.session
        access = self.config.access

        def form(action: str, run_id: str) -> Markup:
            return hidden_fields(s.csrf, access.issue(s, action, run_id))

        body = render(template, form=form, user=self.config.user,
                      store_label=_label(self.config.store_url),
                      notices=access.take_notices(s), **ctx)
        return HTMLResponse(body, status_code=status)

    def _operator(self) -> Operator:
        store = open_store(self.config.store_url)
        if self.config.app is None:
            return Operator(store)
        from ..cli import build_runtime

        try:
            return Operator.for_runtime(build_runtime(self.config.app, store))
        except BaseException:
            store.close()
            raise

    # -- pages ----------------------------------------------------------------------------
    def runs(self, request: Request) -> Response:
        store = open_store(self.config.store_url)
        try:
            groups = runs_by_state(store)
        finally:
            store.close()
        return self._page(request, "runs", groups=groups)

    def run(self, request: Request) -> Response:
        run_id = request.path_params["run_id"]
        op = self._operator()
        try:
            view = run_view(op.store, run_id, op.gate())
        except RunNotFound:
            return self._page(request, "message", 404, title="No such run",
                              text=f"there is no run {run_id!r} in this store")
        finally:
            (op.runtime or op.store).close()
        return self._page(request, "run", v=view)

    # -- actions --------------------------------------------------------------------------
    async def act(self, request: Request) -> Response:
        run_id, action = request.path_params["run_id"], request.path_params["action"]
        if action not in ACTIONS:
            return _refused(404, f"no action {action!r}")
        s: Session = request.state.session
        data = await request.form()
        form = {k: str(v) for k, v in data.items() if isinstance(v, str)}
        try:
            self.config.access.spend(s, csrf=form.get("csrf"), form_id=form.get("form_id"),
                                     action=action, run_id=run_id)
        except FormRefused as exc:
            return _refused(exc.status, str(exc))
        from starlette.concurrency import run_in_threadpool

        target = await run_in_threadpool(self._carry_out, s, run_id, action, form)
        return RedirectResponse(f"/runs/{quote(target, safe='')}", status_code=303)

    def _carry_out(self, s: Session, run_id: str, action: str, form: dict[str, str]) -> str:
        """Do the action; a notice says what happened. Returns the run to show next."""
        access, by = self.config.access, self.config.user
        reason = form.get("reason", "")
        try:
            op = self._operator()
        except MinirtError as exc:
            access.notify(s, "error", f"{action} refused: {exc}")
            return run_id
        show, execute = run_id, None
        try:
            if action == "approve":
                r = op.approve(run_id, form.get("request_id", ""), by=by, reason=reason,
                               effect_digest=form.get("effect_digest") or None)
                text, execute = f"approved {r.request_id}: receipt {r.receipt_id}", run_id
            elif action == "deny":
                op.deny(run_id, form.get("request_id", ""), by=by, reason=reason)
                text, execute = f"denied {form.get('request_id')}", run_id
            elif action == "resolve":
                outcome = form.get("outcome", "")
                value = _json_field("the provider's record", form.get("value"))
                evidence = _json_field("evidence", form.get("evidence")) or {}
                if not isinstance(evidence, dict):
                    raise OperatorInputInvalid(action="resolve",
                                               reason="evidence must be a JSON object")
                u = op.resolve(run_id, outcome=outcome, by=by, reason=reason,
                               effect_key=form.get("effect_key") or None, value=value,
                               evidence=evidence)
                text, execute = f"resolved step {u.step} ({u.tool}) as {outcome}", run_id
            elif action == "cancel":
                changed = op.cancel(run_id, by=by, reason=reason)
                text = "cancel requested" if changed else "cancel was already requested"
            elif action == "retry":
                made = op.retry(run_id, by=by, reason=reason, timeout=self.config.run_timeout)
                show = made.run_id
                text = ("executed the parked run again" if made.resumed else
                        f"retried as {made.run_id} from step {made.position}")
                execute = None if made.resumed else made.run_id
            elif action == "resume":  # a run parked for a divergence, after a roll-back
                out = op.resume_diverged(run_id, by=by, reason=reason,
                                         timeout=self.config.run_timeout)
                text = f"resumed the diverged run; the run is now {out.state.value}"
            else:  # fork
                try:
                    position = int(form.get("position", ""))
                except ValueError:
                    raise OperatorInputInvalid(action="fork", reason="position must be a "
                                               "whole number") from None
                made = op.fork(run_id, position, by=by, reason=reason)
                show, text = made.run_id, f"forked into {made.run_id} at step {position}"
            if execute is not None and op.runtime is not None:
                out = op.resume(execute, wait=True, timeout=self.config.run_timeout)
                text += f"; the run is now {out.state.value}"
            access.notify(s, "ok", text)
        except MinirtError as exc:
            access.notify(s, "error", f"{action} refused: {exc}")
        finally:
            (op.runtime or op.store).close()
        return show


def _json_field(name: str, text: str | None) -> Any:
    if text is None or not text.strip():
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise OperatorInputInvalid(action="resolve", reason=f"{name} is not JSON: {exc}") \
            from None


def _label(url: str) -> str:
    """The store for the header, without a password."""
    parts = urlsplit(url)
    if parts.scheme.startswith("postgres") and parts.password:
        return url.replace(f":{parts.password}@", ":***@")
    return url


def create_app(config: ConsoleConfig) -> Starlette:
    """The console's ASGI app (serve it with uvicorn, or test it with Starlette's TestClient
    on ``base_url="http://127.0.0.1"``)."""
    c = Console(config)
    routes = [Route("/", c.runs), Route("/runs/{run_id:path}/{action}", c.act, methods=["POST"]),
              Route("/runs/{run_id:path}", c.run)]
    return Starlette(routes=routes, middleware=[
        Middleware(TrustedHostMiddleware, allowed_hosts=list(config.hosts)),
        Middleware(TokenAuth, access=config.access)])


__all__ = ["DID_NOT_HAPPEN", "HAPPENED", "ConsoleConfig", "create_app"]
