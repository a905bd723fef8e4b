"""An email sender with no idempotency support at all: every call sends.

Like many real notification APIs, it takes no idempotency key and offers no way to ask "did
message X go out?". So a caller that lost the response to ``send`` cannot find out whether the
email left, and resending may deliver it twice. That is the point of this provider: a tool built
on it needs an explicit decision (:class:`minirt.idempotency.Delivery`): at most once (never
resend; record "maybe sent") or at least once (resend; accept a duplicate).

Invariant: one ``email`` row in the ledger per call that committed, whatever its arguments.
"""

from __future__ import annotations

from typing import Any

from .errors import InvalidRequest
from .provider import Provider


class EmailProvider(Provider):
    """Sends emails. Not idempotent: calling :meth:`send` twice sends twice."""

    name = "email"

    def send(self, to: str, subject: str, body: str) -> dict[str, Any]:
        """Send one email and return ``{message_id, status}``. NOT idempotent."""
        params = {"to": to, "subject": subject, "body": body}
        problem = _problem(params)
        if problem:
            self.requests.append({"op": "send", "key": None, "at": self.clock.now()})
            raise InvalidRequest(provider=self.name, operation="send", reason=problem)

        def commit() -> dict[str, Any]:
            with self.ledger.transaction() as db:
                message_id = self.ledger.record_txn(db, prefix="msg", kind="email",
                                                    effect_key=None, params=params,
                                                    at=self.clock.now(), status="sent")
            return {"message_id": message_id, "status": "sent"}

        return self._serve("send", None, commit)

    def sent_to(self, to: str) -> list[dict[str, Any]]:
        """Every email sent to ``to``, oldest first (reads the ledger)."""
        return [e for e in self.effects("email") if e["params"]["to"] == to]


def _problem(p: dict[str, Any]) -> str | None:
    to = p["to"]
    if not isinstance(to, str) or "@" not in to or len(to) > 254:
        return f"'to' must be an email address, got {to!r}"
    for name in ("subject", "body"):
        if not isinstance(p[name], str):
            return f"{name!r} must be a string"
    return None
