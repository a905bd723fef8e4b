"""The providers over real HTTP on 127.0.0.1, and clients with the providers' own methods.

:func:`serve` runs one provider in a ``ThreadingHTTPServer`` on a thread (port 0: the OS picks a
free port); :func:`spawn_world` runs providers in a **separate process**
(``python -m minirt.world serve``) so a drill can SIGKILL either side. JSON bodies; the payment
endpoints take the ``Idempotency-Key`` header, as Stripe's do.

The clients (:class:`StripeClient`, :class:`PaymentClient`, :class:`EmailClient`,
:class:`BookingClient`) have the same methods as the in-process providers, so the tools of :mod:`minirt.world.tools` take either. What
comes back over the wire is mapped once, here:

======================================= ===================================================
on the wire                             the client raises
======================================= ===================================================
connection refused (nothing was sent)   :class:`ProviderUnavailable` with ``status_code`` 0
request sent, connection dropped        :class:`ResponseLost` (an OutcomeUnknown)
request sent, no answer within timeout  :class:`RequestTimedOut` (an OutcomeUnknown)
4xx / 5xx with an error record          that named error, rebuilt (IdempotencyKeyReused...)
======================================= ===================================================

The server never writes to stderr (request logging and error printing are silenced).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from ..errors import MinirtError, from_record
from ..tools import OutcomeUnknown
from .booking import BookingProvider
from .email import EmailProvider
from .errors import (
    InvalidRequest,
    ProviderError,
    ProviderUnavailable,
    RequestTimedOut,
    ResponseLost,
)
from .payments import PaymentProvider, StripePayments
from .provider import Provider

# -- the server -----------------------------------------------------------------------------------

class _Server(ThreadingHTTPServer):
    daemon_threads = False  # so server_close() waits for requests in flight (a slow answer)
    provider: Provider

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # never print tracebacks to stderr; the client sees a dropped connection


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        pass  # silence: providers never write to stderr

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def _handle(self, method: str) -> None:
        provider = self.server.provider
        parts = urlsplit(self.path)
        path = [unquote(p) for p in parts.path.strip("/").split("/")]
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        try:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}") if length else {}
            result = _route(provider, method, path, query, body,
                            self.headers.get("Idempotency-Key"))
        except RequestTimedOut as exc:
            time.sleep(float(getattr(exc, "hang_for", 0.0)))
            self.close_connection = True  # no response at all
            return
        except ResponseLost:
            self.close_connection = True  # committed; the answer is lost on the way back
            return
        except ProviderError as exc:
            self._reply(exc.status, {"error": exc.to_record()})
            return
        except (KeyError, TypeError, ValueError) as exc:
            err = InvalidRequest(provider=provider.name, operation="/".join(path),
                                 reason=f"malformed request: {type(exc).__name__}: {exc}")
            self._reply(400, {"error": err.to_record()})
            return
        self._reply(200, result)

    def _reply(self, status: int, payload: Any) -> None:
        data = json.dumps(payload, sort_keys=True).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _route(p: Provider, method: str, path: list[str], query: dict[str, str],
           body: dict[str, Any], key: str | None) -> Any:
    route = (method, *path)
    if route == ("GET", "_info"):
        return {"provider": p.name, "retention_for": getattr(p, "retention_for", None)}
    if route == ("POST", "_faults"):
        p.inject(body["fault"], times=int(body.get("times", 1)), op=body.get("op"),
                 delay_for=float(body.get("delay_for", 0.0)))
        return {"armed": len(p.faults.armed)}
    if route == ("GET", "_ledger", "count"):
        return {"count": p.count(query["effect_key"], query.get("kind"))}
    if route == ("GET", "_ledger", "effects"):
        return {"effects": p.effects(query.get("kind"))}
    if isinstance(p, StripePayments):
        if route == ("POST", "v1", "charges"):
            return p.charge(key, body["amount_cents"], body["currency"], body["customer"])
        if route == ("POST", "v1", "refunds"):
            return p.refund(body["charge_id"], key)
        # Only the teaching provider answers a lookup; Stripe has no such endpoint.
        if (isinstance(p, PaymentProvider) and method == "GET"
                and path[:2] == ["v1", "idempotency"] and len(path) == 3):
            return _found(p.lookup(path[2]))
    if isinstance(p, EmailProvider) and route == ("POST", "v1", "emails"):
        return p.send(body["to"], body["subject"], body["body"])
    if isinstance(p, BookingProvider):
        if route == ("POST", "v1", "bookings"):
            return p.book(body["client_ref"], body["item"], body["customer"])
        if method == "GET" and path[:3] == ["v1", "bookings", "by-ref"] and len(path) == 4:
            return _found(p.lookup(path[3]))
        if method == "GET" and path[:2] == ["v1", "bookings"] and len(path) == 3:
            return _found(p.get(path[2]))
        if method == "POST" and path[:2] == ["v1", "bookings"] and path[3:] == ["cancel"]:
            return p.cancel(path[2])
    raise InvalidRequest(provider=p.name, operation=f"{method} /{'/'.join(path)}",
                         reason="no such endpoint")


def _found(value: Any) -> dict[str, Any]:
    return {"found": value is not None, "value": value}


@dataclass
class ServerHandle:
    """A running provider server. ``stop()`` is idempotent."""

    url: str
    server: _Server
    thread: threading.Thread
    stopped: bool = field(default=False)

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def __enter__(self) -> ServerHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve(provider: Provider, host: str = "127.0.0.1", port: int = 0) -> ServerHandle:
    """Serve ``provider`` over HTTP on a background thread; return its handle (``url``)."""
    server = _Server((host, port), _Handler)
    server.provider = provider
    provider.sleeps_for_real = True  # ``slow`` and timeouts really take time on the wire
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              name=f"minirt-world-{provider.name}", daemon=True)
    thread.start()
    return ServerHandle(f"http://{host}:{server.server_address[1]}", server, thread)


# -- the clients ----------------------------------------------------------------------------------

class _Client:
    provider_name = "provider"

    def __init__(self, url: str, timeout: float = 5.0) -> None:
        parts = urlsplit(url)
        self.url = url
        self.host = parts.hostname or "127.0.0.1"
        self.port = int(parts.port or 80)
        self.timeout = float(timeout)
        self._info: dict[str, Any] | None = None

    def _call(self, method: str, path: str, body: Any = None, *, op: str,
              key: str | None = None) -> Any:
        label = f"{self.provider_name}.{op}"
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["Idempotency-Key"] = key
        data = None if body is None else json.dumps(body).encode("utf-8")
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            try:
                conn.connect()
            except OSError:  # refused or unreachable: the request never left
                raise ProviderUnavailable(provider=self.provider_name, operation=op,
                                          status_code=0) from None
            try:
                conn.request(method, path, body=data, headers=headers)
                resp = conn.getresponse()
                status, raw = resp.status, resp.read()
            except TimeoutError:
                raise RequestTimedOut(tool=label, effect_key=key or "-",
                                      reason=f"no response within {self.timeout:g} s") from None
            except (OSError, http.client.HTTPException) as exc:
                raise ResponseLost(tool=label, effect_key=key or "-",
                                   reason=f"{type(exc).__name__}: {exc}") from None
        finally:
            conn.close()
        try:
            payload = json.loads(raw or b"null")
        except ValueError:
            payload = None
        if status == 200:
            return payload
        if isinstance(payload, dict) and isinstance(payload.get("error"), dict):
            raise from_record(payload["error"])
        if status >= 500:
            raise ProviderUnavailable(provider=self.provider_name, operation=op,
                                      status_code=status)
        raise InvalidRequest(provider=self.provider_name, operation=op,
                             reason=f"HTTP {status}: {raw[:200]!r}")

    def info(self) -> dict[str, Any]:
        if self._info is None:
            self._info = self._call("GET", "/_info", op="info")
        return self._info

    def inject(self, fault: str, *, times: int = 1, op: str | None = None,
               delay_for: float = 0.0) -> None:
        """Arm a fault in the served provider (see :mod:`minirt.world.faults`)."""
        self._call("POST", "/_faults", {"fault": fault, "times": times, "op": op,
                                        "delay_for": delay_for}, op="inject")

    def count(self, effect_key: str, kind: str | None = None) -> int:
        q = f"effect_key={quote(effect_key, safe='')}" + (f"&kind={quote(kind)}" if kind else "")
        return int(self._call("GET", f"/_ledger/count?{q}", op="count")["count"])

    def effects(self, kind: str | None = None) -> list[dict[str, Any]]:
        q = f"?kind={quote(kind)}" if kind else ""
        return list(self._call("GET", f"/_ledger/effects{q}", op="effects")["effects"])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r}, timeout={self.timeout:g})"


class StripeClient(_Client):
    """:class:`~minirt.world.payments.StripePayments`'s methods over HTTP (no lookup)."""

    provider_name = "payments"

    def charge(self, idempotency_key: str | None, amount_cents: int, currency: str,
               customer: str) -> dict[str, Any]:
        return self._call("POST", "/v1/charges", {"amount_cents": amount_cents,
                                                  "currency": currency, "customer": customer},
                          op="charge", key=idempotency_key)

    def refund(self, charge_id: str, idempotency_key: str | None) -> dict[str, Any]:
        return self._call("POST", "/v1/refunds", {"charge_id": charge_id}, op="refund",
                          key=idempotency_key)

    @property
    def retention_for(self) -> float:
        return float(self.info()["retention_for"])


class PaymentClient(StripeClient):
    """:class:`~minirt.world.payments.PaymentProvider`'s methods over HTTP (with the lookup)."""

    def lookup(self, idempotency_key: str) -> dict[str, Any] | None:
        found = self._call("GET", f"/v1/idempotency/{quote(idempotency_key, safe='')}",
                           op="lookup", key=idempotency_key)
        return found["value"] if found["found"] else None


class EmailClient(_Client):
    """:class:`~minirt.world.email.EmailProvider`'s methods over HTTP."""

    provider_name = "email"

    def send(self, to: str, subject: str, body: str) -> dict[str, Any]:
        return self._call("POST", "/v1/emails", {"to": to, "subject": subject, "body": body},
                          op="send")


class BookingClient(_Client):
    """:class:`~minirt.world.booking.BookingProvider`'s methods over HTTP."""

    provider_name = "booking"
    retention_for = None

    def book(self, client_ref: str, item: str, customer: str) -> dict[str, Any]:
        return self._call("POST", "/v1/bookings", {"client_ref": client_ref, "item": item,
                                                   "customer": customer}, op="book",
                          key=client_ref)

    def lookup(self, client_ref: str) -> dict[str, Any] | None:
        found = self._call("GET", f"/v1/bookings/by-ref/{quote(client_ref, safe='')}",
                           op="lookup", key=client_ref)
        return found["value"] if found["found"] else None

    def get(self, booking_id: str) -> dict[str, Any] | None:
        found = self._call("GET", f"/v1/bookings/{quote(booking_id, safe='')}", op="get")
        return found["value"] if found["found"] else None

    def cancel(self, booking_id: str) -> dict[str, Any]:
        return self._call("POST", f"/v1/bookings/{quote(booking_id, safe='')}/cancel", {},
                          op="cancel", key=booking_id)


# -- the world in its own process ---------------------------------------------------------------

class WorldDidNotStart(MinirtError):
    """``python -m minirt.world serve`` did not report its URLs in time (or exited)."""

    fields = ("returncode", "stderr")
    template = "the world process did not start (exit code {returncode}): {stderr}"


@dataclass
class WorldProcess:
    """Providers served by a child process. ``urls`` maps provider name -> base URL."""

    urls: dict[str, str]
    proc: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        return int(self.proc.pid)

    def kill(self) -> None:
        """SIGKILL the world (nothing flushed beyond what SQLite already committed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM and wait (idempotent)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> WorldProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def spawn_world(url_file: str | Path, *, payments: str | Path | None = None,
                email: str | Path | None = None, booking: str | Path | None = None,
                retention_for: float | None = None, payments_lookup: bool = True,
                start_within: float = 20.0) -> WorldProcess:
    """Start ``python -m minirt.world serve`` and wait (bounded) until it wrote ``url_file``.

    ``payments_lookup=False`` serves the Stripe-faithful :class:`StripePayments` (no lookup).
    """
    url_file = Path(url_file)
    url_file.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "minirt.world", "serve", "--url-file", str(url_file)]
    for flag, path in (("--payments", payments), ("--email", email), ("--booking", booking)):
        if path is not None:
            cmd += [flag, str(path)]
    if retention_for is not None:
        cmd += ["--retention-for", str(retention_for)]
    if not payments_lookup:
        cmd += ["--no-payments-lookup"]
    err_path = url_file.with_name(url_file.name + ".stderr")
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + start_within
    while time.monotonic() < deadline:
        if url_file.exists():
            return WorldProcess(json.loads(url_file.read_text()), proc)
        if proc.poll() is not None:
            break
        time.sleep(0.02)  # waiting for another process to come up: bounded by start_within
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    raise WorldDidNotStart(returncode=proc.returncode,
                           stderr=err_path.read_text(errors="replace")[-2000:])


def serve_forever(url_file: str | Path, *, payments: str | None = None, email: str | None = None,
                  booking: str | None = None, retention_for: float | None = None,
                  payments_lookup: bool = True) -> None:
    """The body of ``python -m minirt.world serve``: serve until SIGTERM/SIGINT."""
    providers: list[Provider] = []
    if payments:
        kind = PaymentProvider if payments_lookup else StripePayments
        providers.append(kind(payments, retention_for=retention_for or 86_400.0))
    if email:
        providers.append(EmailProvider(email))
    if booking:
        providers.append(BookingProvider(booking))
    handles = [serve(p) for p in providers]
    urls = {p.name: h.url for p, h in zip(providers, handles, strict=True)}
    tmp = Path(str(url_file) + ".tmp")
    tmp.write_text(json.dumps(urls))
    os.replace(tmp, url_file)  # appears complete or not at all
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    done.wait()
    for h in handles:
        h.stop()
    for p in providers:
        p.close()


__all__ = ["BookingClient", "EmailClient", "OutcomeUnknown", "PaymentClient", "ServerHandle",
           "StripeClient", "WorldDidNotStart", "WorldProcess", "serve", "serve_forever",
           "spawn_world"]
