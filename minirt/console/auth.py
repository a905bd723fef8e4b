"""The console's access control: a start-up token, sessions, CSRF tokens and one-time forms.

How a person gets in, as with JupyterLab: ``minirt console`` prints a URL with ``?token=...``;
opening it (the token is compared in constant time) starts a **session**: a random id in an
``HttpOnly``, ``SameSite=Strict`` cookie (named per console), and the browser is redirected to the same page without
the token in its address. Every other request needs that cookie; without it the answer is 401.

Every form the console renders carries two hidden fields: the session's **CSRF token** (one per
session, never in a cookie, so another site cannot send it) and a **form id**, a one-time nonce
issued for that form (its action and run) and spent by the first post. So a post without the
CSRF token, with another session's, or forged by hand is refused (:class:`FormRefused`, 403), and
the same form posted twice (a replayed request, a double click) is refused the second time
(409), before any operator action runs.

Invariant: an operator action is carried out only for a post that presents this session's CSRF
token and an unspent form id issued to this session for this action and run. Guarantees: token
and ids are from :mod:`secrets` (256 bits, URL-safe) and compared with
:func:`hmac.compare_digest`; sessions and forms live in this process's memory only (a restart
logs everyone out, which is the point of a token printed at start). Not guaranteed: protection
against someone who can read the printed token or this machine's memory; TLS (the console binds
127.0.0.1 unless told otherwise; put it behind your own TLS proxy to serve it further).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from ..errors import MinirtError

#: The session cookie's name starts so; each console adds its own suffix, because browsers
#: share cookies between ports of one host and two consoles must not log each other out.
COOKIE = "minirt_console_"
#: How many unspent forms a session keeps (the oldest are forgotten first).
MAX_FORMS = 2000


class FormRefused(MinirtError):
    """A form post that is not one this session was given: forged, replayed or stale.

    ``status`` is the HTTP status the console answers with (403 forged, 409 replayed)."""

    fields = ("reason",)
    template = "form refused: {reason}"

    @property
    def status(self) -> int:
        return 409 if "already" in str(self.attrs.get("reason", "")) else 403


@dataclass
class Session:
    """One logged-in browser: its CSRF token, its unspent forms and its notices."""

    sid: str
    csrf: str
    started: float
    forms: OrderedDict[str, tuple[str, str]] = field(default_factory=OrderedDict)
    spent: set[str] = field(default_factory=set)
    notices: list[tuple[str, str]] = field(default_factory=list)  # (level, text)


class Access:
    """The token, and the sessions started with it (thread-safe: requests run in threads)."""

    def __init__(self, token: str | None = None) -> None:
        self.token = token or secrets.token_urlsafe(32)
        self.cookie = COOKIE + secrets.token_hex(4)
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def token_ok(self, presented: str) -> bool:
        return hmac.compare_digest(presented.encode(), self.token.encode())

    def start(self) -> Session:
        s = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), time.time())
        with self._lock:
            self._sessions[s.sid] = s
        return s

    def session(self, sid: str | None) -> Session | None:
        if not sid:
            return None
        with self._lock:
            for key, s in self._sessions.items():
                if hmac.compare_digest(key.encode(), sid.encode()):
                    return s
        return None

    def issue(self, s: Session, action: str, run_id: str) -> str:
        """A one-time form id for ``action`` on ``run_id`` in session ``s``."""
        nonce = secrets.token_urlsafe(24)
        with self._lock:
            s.forms[nonce] = (action, run_id)
            while len(s.forms) > MAX_FORMS:
                s.forms.popitem(last=False)
        return nonce

    def spend(self, s: Session, *, csrf: str | None, form_id: str | None, action: str,
              run_id: str) -> None:
        """Accept a post once, or raise :class:`FormRefused` (nothing is carried out)."""
        if not csrf or not hmac.compare_digest(csrf.encode(), s.csrf.encode()):
            raise FormRefused(reason="missing or wrong CSRF token (a form from elsewhere?)")
        if not form_id:
            raise FormRefused(reason="no form id: post the console's own form")
        with self._lock:
            if form_id in s.spent:
                raise FormRefused(reason="this form was already submitted (a replayed post)")
            issued = s.forms.get(form_id)
            if issued is None:
                raise FormRefused(reason="unknown form id (not issued to this session)")
            if issued != (action, run_id):
                raise FormRefused(reason=f"the form was issued for {issued[0]} on {issued[1]}, "
                                         f"not {action} on {run_id}")
            del s.forms[form_id]
            s.spent.add(form_id)

    def notify(self, s: Session, level: str, text: str) -> None:
        with self._lock:
            s.notices.append((level, text))

    def take_notices(self, s: Session) -> list[tuple[str, str]]:
        with self._lock:
            out, s.notices = s.notices, []
        return out
