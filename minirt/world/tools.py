"""minirt tools over the world's providers (in-process providers or their HTTP clients alike).

Each tool is a :class:`minirt.contracts.ToolContract` (typed arguments, named gates) that also
declares what reconciliation needs: ``effect``, ``lookup``, ``retention_for`` (how long the
provider keeps keys) and, for a provider with neither keys nor lookup, ``delivery``.

========================== ============= ================= ==================================
tool (default name)        effect        key sent           lookup / retention
========================== ============= ================= ==================================
``charge_tool`` (charge)   keyed         ``call.effect_key`` by key if offered / the window
``refund_tool`` (refund)   keyed         ``call.effect_key`` by key if offered / the window
``book_tool`` (book)       keyed         client_ref = key   by client_ref / forever
``cancel_booking_tool``    keyed         the booking id     booking status / forever
``email_tool`` (send_email) irreversible none               none: ``delivery`` decides
========================== ============= ================= ==================================

Transport failures are mapped once, here: no response (a lost response, a timeout) and a 5xx are
raised as :class:`minirt.tools.OutcomeUnknown` naming the tool and the effect key, so the runtime
reconciles them instead of recording a failure. (A 5xx says "nothing executed" at *this*
provider; a client cannot check that claim, and Stripe saves 500s of requests that did begin, so
the safe reading is "unknown, look it up".) Every other provider answer (card declined, key
reused, invalid) is raised as itself and journaled as the call's error.

``charge_tool(..., per_attempt_random_keys=True)`` is the WRONG design, kept for the lesson: it
sends a fresh random key on every attempt, so the provider cannot tell a retry from a new charge.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

from ..contracts import Invocation, Limits, ToolContract
from ..idempotency import Delivery
from ..tools import EffectClass, Lookup, OutcomeUnknown, ToolCall
from .errors import ProviderUnavailable

T = TypeVar("T")


class ChargeArgs(BaseModel):
    amount_cents: int = Field(gt=0, le=10**9)
    currency: Literal["chf", "eur", "gbp", "jpy", "usd"]
    customer: str = Field(min_length=1, max_length=100)


class RefundArgs(BaseModel):
    charge_id: str = Field(min_length=1)


class EmailArgs(BaseModel):
    to: str = Field(min_length=3, max_length=254)
    subject: str
    body: str


class BookArgs(BaseModel):
    item: str = Field(min_length=1, max_length=255)
    customer: str = Field(min_length=1, max_length=255)


class CancelArgs(BaseModel):
    booking_id: str = Field(min_length=1)


class ProviderTool(ToolContract):
    """A contract over a provider, declaring ``retention_for`` and ``delivery`` for reconcile.

    ``sent_keys`` lists the key each attempt actually sent, in order (in memory, the last 1,000,
    for lessons and tests).
    """

    def __init__(self, name: str, *, retention_for: float | None = None,
                 delivery: Delivery | str | None = None, **contract: Any) -> None:
        super().__init__(name, **contract)
        self.retention_for = retention_for  # seconds the provider keeps keys; None: forever
        self.delivery = None if delivery is None else Delivery(delivery)
        self.sent_keys: deque[str | None] = deque(maxlen=1000)

    def send(self, call: ToolCall, key: str | None, fn: Callable[[], T]) -> T:
        """Send one attempt, mapping silences and 5xx to OutcomeUnknown."""
        self.sent_keys.append(key)
        try:
            return fn()
        except OutcomeUnknown as exc:
            reason = f"{type(exc).__name__}: {exc.attrs.get('reason', exc)}"
        except ProviderUnavailable as exc:
            reason = f"{exc} (reconcile, then resend with the same key)"
        raise OutcomeUnknown(tool=self.name, effect_key=call.effect_key, reason=reason)


def _saved(body: dict[str, Any] | None) -> Lookup:
    if body is None:
        return Lookup(False, detail="no response saved under this key")
    if "error" in body:  # a saved failure: nothing happened, and a resend replays the failure
        return Lookup(False, detail=f"saved failure {body['error'].get('type')}")
    return Lookup(True, body)


def _lookup_of(provider: Any) -> Callable[[ToolCall], Lookup] | None:
    """A lookup by ``call.effect_key`` if the provider offers one (Stripe does not), else None.

    Without one the tool declares no lookup, and :data:`minirt.idempotency.reconcile_by_lookup`
    reconciles a keyed tool by resending the same key within retention (escalating past it).
    """
    if not callable(getattr(provider, "lookup", None)):
        return None
    return lambda call: _saved(provider.lookup(call.effect_key))


def _retention(provider: Any) -> float | None:
    value = getattr(provider, "retention_for", None)
    return None if value is None else float(value)


def charge_tool(provider: Any, *, name: str = "charge", per_attempt_random_keys: bool = False,
                limits: Limits | None = None) -> ProviderTool:
    """Charge through a payment provider of :mod:`minirt.world.payments` or its HTTP client.

    Sends ``call.effect_key`` as the idempotency key on every attempt, and looks effects up by it
    if the provider has a lookup (``PaymentProvider``; the Stripe-faithful ``StripePayments`` has
    none, so an unknown outcome is reconciled by resending the same key within retention).
    With ``per_attempt_random_keys=True`` (wrong, for the lesson) each attempt sends a new UUID.
    """
    tool: ProviderTool

    def handler(args: ChargeArgs, inv: Invocation) -> dict[str, Any]:
        call = inv.call
        key = f"rk_{uuid.uuid4().hex}" if per_attempt_random_keys else call.effect_key
        return tool.send(call, key, lambda: provider.charge(
            key, args.amount_cents, args.currency, args.customer))

    tool = ProviderTool(name, input_model=ChargeArgs, handler=handler, effect=EffectClass.KEYED,
                        lookup=_lookup_of(provider),
                        retention_for=_retention(provider), limits=limits)
    return tool


def refund_tool(provider: Any, *, name: str = "refund", limits: Limits | None = None
                ) -> ProviderTool:
    """Refund a whole charge, keyed by ``call.effect_key`` (a refund is also at most once per
    charge: a second refund under another key is refused by the provider)."""
    tool: ProviderTool

    def handler(args: RefundArgs, inv: Invocation) -> dict[str, Any]:
        call = inv.call
        return tool.send(call, call.effect_key,
                          lambda: provider.refund(args.charge_id, call.effect_key))

    tool = ProviderTool(name, input_model=RefundArgs, handler=handler, effect=EffectClass.KEYED,
                        lookup=_lookup_of(provider),
                        retention_for=_retention(provider), limits=limits)
    return tool


def book_tool(provider: Any, *, name: str = "book", limits: Limits | None = None
              ) -> ProviderTool:
    """Book through a :class:`~minirt.world.booking.BookingProvider` or ``BookingClient``, with
    ``client_ref = call.effect_key`` (kept forever by the provider, found by lookup)."""
    tool: ProviderTool

    def handler(args: BookArgs, inv: Invocation) -> dict[str, Any]:
        call = inv.call
        return tool.send(call, call.effect_key,
                          lambda: provider.book(call.effect_key, args.item, args.customer))

    def lookup(call: ToolCall) -> Lookup:
        found = provider.lookup(call.effect_key)
        return Lookup(found is not None, found)

    tool = ProviderTool(name, input_model=BookArgs, handler=handler, effect=EffectClass.KEYED,
                        lookup=lookup, retention_for=None, limits=limits)
    return tool


def cancel_booking_tool(provider: Any, *, name: str = "cancel_booking",
                        limits: Limits | None = None) -> ProviderTool:
    """Cancel a booking (idempotent at the provider: keyed by the booking id itself)."""
    tool: ProviderTool

    def handler(args: CancelArgs, inv: Invocation) -> dict[str, Any]:
        return tool.send(inv.call, args.booking_id, lambda: provider.cancel(args.booking_id))

    def lookup(call: ToolCall) -> Lookup:
        booking = provider.get(call.args["booking_id"])
        if booking is not None and booking["status"] == "cancelled":
            return Lookup(True, {"booking_id": booking["booking_id"], "status": "cancelled"})
        return Lookup(False, detail="not cancelled (yet)")

    tool = ProviderTool(name, input_model=CancelArgs, handler=handler, effect=EffectClass.KEYED,
                        lookup=lookup, retention_for=None, limits=limits)
    return tool


def email_tool(provider: Any, *, name: str = "send_email", delivery: Delivery | str | None = None,
               limits: Limits | None = None) -> ProviderTool:
    """Send an email: irreversible, no key, no lookup. ``delivery`` is the explicit decision for
    a lost response (:class:`~minirt.idempotency.Delivery`); without one, an unknown outcome is
    escalated (the run goes UNCERTAIN)."""
    tool: ProviderTool

    def handler(args: EmailArgs, inv: Invocation) -> dict[str, Any]:
        return tool.send(inv.call, None, lambda: provider.send(args.to, args.subject, args.body))

    tool = ProviderTool(name, input_model=EmailArgs, handler=handler,
                        effect=EffectClass.IRREVERSIBLE, delivery=delivery, limits=limits)
    return tool
