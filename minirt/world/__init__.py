"""The outside world: providers that behave like real ones, each with its own SQLite ledger.

- :mod:`~minirt.world.ledger` — :class:`Ledger`, the authoritative count of effects
  (read by the oracle through :class:`minirt.idempotency.EffectLedger`)
- :mod:`~minirt.world.payments` — :class:`StripePayments`, Stripe's idempotency keys and no
  lookup (faithful to Stripe), and :class:`PaymentProvider`, the same plus a lookup by key
- :mod:`~minirt.world.email` — :class:`EmailProvider`, no idempotency at all
- :mod:`~minirt.world.booking` — :class:`BookingProvider`, dedup by client reference
- :mod:`~minirt.world.faults` — faults a provider injects on demand
- :mod:`~minirt.world.http` — the same providers over real HTTP, and their clients
- :mod:`~minirt.world.tools` — minirt tools over providers or clients

The world imports only minirt's small protocols (tools, contracts, errors, idempotency); the
runtime never imports the world.
"""

from __future__ import annotations

from .booking import BookingProvider
from .email import EmailProvider
from .errors import (
    CardDeclined,
    ChargeAlreadyRefunded,
    IdempotencyKeyReused,
    InvalidRequest,
    NotFound,
    ProviderError,
    ProviderUnavailable,
    RequestTimedOut,
    ResponseLost,
)
from .ledger import EffectLedger, Ledger
from .payments import PaymentProvider, StripePayments
from .tools import (
    book_tool,
    cancel_booking_tool,
    charge_tool,
    email_tool,
    refund_tool,
)

__all__ = [
    "BookingProvider", "CardDeclined", "ChargeAlreadyRefunded", "EffectLedger", "EmailProvider",
    "IdempotencyKeyReused", "InvalidRequest", "Ledger", "NotFound", "PaymentProvider",
    "ProviderError", "ProviderUnavailable", "RequestTimedOut", "ResponseLost", "StripePayments",
    "book_tool",
    "cancel_booking_tool", "charge_tool", "email_tool", "refund_tool",
]
