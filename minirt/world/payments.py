"""Payment providers with Stripe's idempotency keys: one faithful to Stripe, one with a lookup.

Two classes, one idempotency layer:

- :class:`StripePayments` is **faithful to Stripe**: charges and refunds under idempotency keys
  and **no lookup by key**. Stripe offers none: a client whose answer was lost reconciles by
  *resending the same key inside the retention window* (the saved answer comes back and nothing
  is charged twice), or by searching its objects by metadata, which Stripe documents as lagging
  ("data is searchable in under 1 minute", delayed during outages: https://docs.stripe.com/search).
  Outside the window a resend is a new request and charges again.
- :class:`PaymentProvider` is the same provider **plus** :meth:`PaymentProvider.lookup`, a read of
  the response saved under a key. Some APIs do offer a read by the client's reference (the world's
  booking provider models one); Stripe does not. The course uses it to teach "ask before you
  resend"; lesson 04 runs both ways to reconcile side by side.

What both copy from Stripe's documented behaviour (https://docs.stripe.com/idempotency), and
nothing more:

- the status and body of the first request made with a key are **saved once execution begins**,
  whether it succeeds or fails (a :class:`~minirt.world.errors.CardDeclined` is saved too); a
  retry with the same key and the same parameters gets the saved answer and applies nothing;
- the same key with **different parameters** (or on another endpoint) is refused with
  :class:`~minirt.world.errors.IdempotencyKeyReused` (Stripe's ``idempotency_error``);
- **validation failures are not saved** (:class:`~minirt.world.errors.InvalidRequest`), so a
  corrected retry with the same key is fine;
- keys are **pruned after the retention window** (``retention_for``, 24 h by default, measured on
  the injectable clock); a request that reuses a pruned key is a *new* request and charges again.

Invariant: the charge row in the ledger, and the saved response under its key, commit in one
transaction. So for every key within retention there is at most one charge, and a crash of the
provider leaves either both or neither.

Not copied: Stripe's handling of concurrent requests with one key (here they serialise on the
ledger's write lock), API v2's "retry drives failed work to completion", search by metadata
(neither class offers a search), and real money.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..canonical import canonical_json
from ..clock import Clock
from ..errors import from_record
from .errors import (
    CardDeclined,
    ChargeAlreadyRefunded,
    IdempotencyKeyReused,
    InvalidRequest,
    NotFound,
    ProviderError,
)
from .provider import Provider

CURRENCIES = ("chf", "eur", "gbp", "jpy", "usd")
MAX_KEY_CHARS = 255  # Stripe: "Idempotency keys are up to 255 characters long"
DAY = 86_400.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency (
    idempotency_key TEXT PRIMARY KEY,
    endpoint        TEXT NOT NULL,
    params_json     TEXT NOT NULL,
    status_code     INTEGER NOT NULL,
    response_json   TEXT NOT NULL,   -- the saved body: a result, or {"error": <error record>}
    created_at      REAL NOT NULL    -- Invariant: pruned (ignored) once retention_for old
);
"""

Execute = Callable[[sqlite3.Connection, "str | None", dict[str, Any], float], dict[str, Any]]


class StripePayments(Provider):
    """Charges and refunds with idempotency keys and no lookup, as Stripe's API v1 documents.

    Reconcile a lost answer by resending the same key with the same parameters while the key is
    retained (``retention_for``); past it, a resend charges again.
    """

    name = "payments"
    schema = SCHEMA

    def __init__(self, path: str | Path, clock: Clock | None = None,
                 retention_for: float = DAY) -> None:
        if not float(retention_for) > 0:
            raise ValueError("retention_for must be positive (seconds)")
        super().__init__(path, clock)
        self.retention_for = float(retention_for)  # Invariant: keys younger than this are kept

    # -- operations ---------------------------------------------------------------------------

    def charge(self, idempotency_key: str | None, amount_cents: int, currency: str,
               customer: str) -> dict[str, Any]:
        """Charge ``amount_cents`` to ``customer``; idempotent per key within retention.

        Returns the receipt ``{charge_id, amount, currency, customer, status, created_at}``.
        Without a key (``None``) every call charges again, as with Stripe.
        """
        params = {"amount_cents": amount_cents, "currency": currency, "customer": customer}
        self._validate("charge", idempotency_key, _charge_problem(params))
        return self._serve("charge", idempotency_key,
                           lambda: self._idempotent("charge", idempotency_key, params,
                                                    self._charge_txn))

    def refund(self, charge_id: str, idempotency_key: str | None) -> dict[str, Any]:
        """Refund a whole charge; idempotent per key, and a charge is refunded at most once."""
        params = {"charge_id": charge_id}
        problem = None if isinstance(charge_id, str) and charge_id else "charge_id is required"
        self._validate("refund", idempotency_key, problem)
        return self._serve("refund", idempotency_key,
                           lambda: self._idempotent("refund", idempotency_key, params,
                                                    self._refund_txn))

    def prune(self) -> int:
        """Delete every key older than the retention window; return how many. Idempotent."""
        with self.ledger.transaction() as db:
            cur = db.execute("DELETE FROM idempotency WHERE created_at <= ?",
                             (self.clock.now() - self.retention_for,))
            return int(cur.rowcount)

    # -- the idempotency layer ----------------------------------------------------------------

    def _validate(self, op: str, key: str | None, problem: str | None) -> None:
        if key is not None and not (isinstance(key, str) and 0 < len(key) <= MAX_KEY_CHARS):
            problem = f"the idempotency key must be 1..{MAX_KEY_CHARS} characters"
        if problem:
            self.requests.append({"op": op, "key": key, "at": self.clock.now()})
            raise InvalidRequest(provider=self.name, operation=op, reason=problem)

    def _saved_txn(self, db: sqlite3.Connection, key: str, now: float) -> tuple[Any, ...] | None:
        row = db.execute("SELECT endpoint, params_json, status_code, response_json, created_at"
                         " FROM idempotency WHERE idempotency_key=?", (key,)).fetchone()
        if row is None or now - row[4] >= self.retention_for:
            return None  # never saved, or pruned: the key is free again
        return row

    def _idempotent(self, endpoint: str, key: str | None, params: dict[str, Any],
                    execute: Execute) -> dict[str, Any]:
        failure: ProviderError | None = None
        with self.ledger.transaction() as db:
            now = self.clock.now()
            saved = None if key is None else self._saved_txn(db, key, now)
            if saved is not None:
                first, body = f"{saved[0]} {saved[1]}", json.loads(saved[3])
                if (saved[0], saved[1]) != (endpoint, canonical_json(params)):
                    raise IdempotencyKeyReused(provider=self.name, idempotency_key=key,
                                               first=first,
                                               now=f"{endpoint} {canonical_json(params)}")
            else:
                try:
                    body, status = execute(db, key, params, now), 200
                except ProviderError as exc:
                    if not exc.saved:
                        raise  # validation-like: rolled back, nothing saved under the key
                    failure, body, status = exc, {"error": exc.to_record()}, exc.status
                if key is not None:
                    db.execute("INSERT OR REPLACE INTO idempotency (idempotency_key, endpoint,"
                               " params_json, status_code, response_json, created_at)"
                               " VALUES (?,?,?,?,?,?)",
                               (key, endpoint, canonical_json(params), status,
                                canonical_json(body), now))
        if failure is not None:
            raise failure
        if "error" in body:  # a replayed failure: raised again as the same named error
            raise from_record(body["error"])
        return body

    # -- the endpoints' own work (inside the transaction) -------------------------------------

    def _charge_txn(self, db: sqlite3.Connection, key: str | None, params: dict[str, Any],
                    now: float) -> dict[str, Any]:
        if params["customer"].startswith("cus_declined"):
            raise CardDeclined(provider=self.name, customer=params["customer"],
                               amount_cents=params["amount_cents"])
        charge_id = self.ledger.record_txn(db, prefix="ch", kind="charge", effect_key=key,
                                           params=params, at=now, status="succeeded")
        return {"charge_id": charge_id, "amount": params["amount_cents"],
                "currency": params["currency"], "customer": params["customer"],
                "status": "succeeded", "created_at": now}

    def _refund_txn(self, db: sqlite3.Connection, key: str | None, params: dict[str, Any],
                    now: float) -> dict[str, Any]:
        charge_id = params["charge_id"]
        row = db.execute("SELECT params_json, status FROM effects WHERE effect_id=?"
                         " AND kind='charge'", (charge_id,)).fetchone()
        if row is None:
            raise NotFound(provider=self.name, operation="refund",
                           reason=f"no charge {charge_id!r}")
        if row[1] == "refunded":
            raise ChargeAlreadyRefunded(provider=self.name, charge_id=charge_id)
        charge = json.loads(row[0])
        refund_id = self.ledger.record_txn(db, prefix="re", kind="refund", effect_key=key,
                                           params={"charge_id": charge_id,
                                                   "amount_cents": charge["amount_cents"]},
                                           at=now, status="succeeded")
        self.ledger.set_status_txn(db, charge_id, "refunded")
        return {"refund_id": refund_id, "charge_id": charge_id,
                "amount": charge["amount_cents"], "currency": charge["currency"],
                "status": "succeeded", "created_at": now}


class PaymentProvider(StripePayments):
    """:class:`StripePayments` plus a lookup by idempotency key, which Stripe does not offer.

    The course's teaching provider for "look it up before you resend" (lesson 04 also runs the
    faithful :class:`StripePayments`, reconciled by resending the same key instead).
    """

    def lookup(self, idempotency_key: str) -> dict[str, Any] | None:
        """The saved response of ``idempotency_key`` if it is still retained, else None.

        A saved failure comes back as ``{"error": <record>}``. Read-only: looking up twice
        changes nothing.
        """
        def read() -> dict[str, Any] | None:
            with self.ledger.transaction() as db:
                row = self._saved_txn(db, idempotency_key, self.clock.now())
            return None if row is None else json.loads(row[3])

        return self._serve("lookup", idempotency_key, read)


def _charge_problem(p: dict[str, Any]) -> str | None:
    amount, currency, customer = p["amount_cents"], p["currency"], p["customer"]
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= 10**9:
        return f"amount_cents must be an integer in 1..10^9, got {amount!r}"
    if currency not in CURRENCIES:
        return f"currency must be one of {', '.join(CURRENCIES)}, got {currency!r}"
    if not isinstance(customer, str) or not 0 < len(customer) <= 100:
        return "customer must be a non-empty string of at most 100 characters"
    return None
