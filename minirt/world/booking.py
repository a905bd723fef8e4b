"""A booking system that deduplicates by the client's reference, and cancels idempotently.

``book(client_ref, ...)``: the client chooses ``client_ref``; a second ``book`` with the same
reference returns the existing booking and books nothing new. Like Qonto's idempotency (and
unlike Stripe's), it does **not** compare the parameters: the same reference with another item
silently returns the first booking. That is why minirt binds keys to payloads itself
(:class:`minirt.idempotency.EffectKeyConflict`) instead of trusting every provider to.

References are kept forever (no retention window), and :meth:`lookup` finds a booking by its
reference, so a lost response is always settled by a lookup.

``cancel(booking_id)`` is idempotent: the first call cancels and records one ``cancellation``
effect; later calls return the same answer and record nothing.

Invariant: at most one ``booking`` row per ``client_ref`` and at most one ``cancellation`` row
per booking, both enforced inside the ledger transaction.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import InvalidRequest, NotFound
from .provider import Provider

SCHEMA = """
CREATE UNIQUE INDEX IF NOT EXISTS one_booking_per_ref ON effects(effect_key)
    WHERE kind = 'booking';
"""


class BookingProvider(Provider):
    """Bookings by client reference (see the module docstring)."""

    name = "booking"
    schema = SCHEMA
    retention_for = None  # client references are kept forever

    def book(self, client_ref: str, item: str, customer: str) -> dict[str, Any]:
        """Book ``item`` for ``customer`` under ``client_ref``; return ``{booking_id, status,
        client_ref, item, customer}``. Idempotent per ``client_ref`` (the first booking wins)."""
        params = {"client_ref": client_ref, "item": item, "customer": customer}
        for name, value in params.items():
            if not isinstance(value, str) or not 0 < len(value) <= 255:
                self.requests.append({"op": "book", "key": client_ref, "at": self.clock.now()})
                raise InvalidRequest(provider=self.name, operation="book",
                                     reason=f"{name} must be a non-empty string")

        def commit() -> dict[str, Any]:
            with self.ledger.transaction() as db:
                row = self._by_ref_txn(db, client_ref)
                if row is not None:
                    return row
                self.ledger.record_txn(db, prefix="bk", kind="booking", effect_key=client_ref,
                                       params=params, at=self.clock.now(), status="confirmed")
                return self._by_ref_txn(db, client_ref)

        return self._serve("book", client_ref, commit)

    def lookup(self, client_ref: str) -> dict[str, Any] | None:
        """The booking made under ``client_ref``, or None. Read-only."""
        return self._serve("lookup", client_ref, lambda: self._read("effect_key", client_ref))

    def get(self, booking_id: str) -> dict[str, Any] | None:
        """The booking ``booking_id``, or None. Read-only."""
        return self._serve("get", booking_id, lambda: self._read("effect_id", booking_id))

    def cancel(self, booking_id: str) -> dict[str, Any]:
        """Cancel a booking; idempotent (cancelling twice records one cancellation)."""
        def commit() -> dict[str, Any]:
            with self.ledger.transaction() as db:
                row = db.execute("SELECT status FROM effects WHERE effect_id=? AND"
                                 " kind='booking'", (booking_id,)).fetchone()
                if row is None:
                    raise NotFound(provider=self.name, operation="cancel",
                                   reason=f"no booking {booking_id!r}")
                if row[0] != "cancelled":
                    self.ledger.set_status_txn(db, booking_id, "cancelled")
                    self.ledger.record_txn(db, prefix="cx", kind="cancellation",
                                           effect_key=booking_id,
                                           params={"booking_id": booking_id},
                                           at=self.clock.now(), status="succeeded")
            return {"booking_id": booking_id, "status": "cancelled"}

        return self._serve("cancel", booking_id, commit)

    def _read(self, column: str, value: str) -> dict[str, Any] | None:
        with self.ledger.transaction() as db:
            if column == "effect_key":
                return self._by_ref_txn(db, value)
            row = db.execute("SELECT effect_key FROM effects WHERE effect_id=? AND"
                             " kind='booking'", (value,)).fetchone()
            return None if row is None else self._by_ref_txn(db, row[0])

    def _by_ref_txn(self, db: Any, client_ref: str) -> dict[str, Any] | None:
        row = db.execute("SELECT effect_id, params_json, status FROM effects WHERE"
                         " effect_key=? AND kind='booking'", (client_ref,)).fetchone()
        if row is None:
            return None
        p = json.loads(row[1])
        return {"booking_id": row[0], "status": row[2], "client_ref": client_ref,
                "item": p["item"], "customer": p["customer"]}
