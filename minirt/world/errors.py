"""What the outside world answers when it says no, or does not answer at all.

Two families, because a caller must treat them in opposite ways:

- :class:`ProviderError` subclasses are **answers**: the provider received the request and said
  no (bad input, a key reused for other parameters, a refund of a refunded charge) or said "not
  now" (:class:`ProviderUnavailable`, a 5xx before anything was executed). Each carries an HTTP
  ``status``, and ``saved`` says whether the provider stored it under the idempotency key (Stripe
  saves the first response once execution began, failures included; validation failures are not
  saved).
- :class:`ResponseLost` and :class:`RequestTimedOut` are **silences**: subclasses of
  :class:`minirt.tools.OutcomeUnknown`, because the caller cannot tell whether the effect
  happened. They are never retried blindly; they are reconciled by looking the effect up.

Every error round-trips through JSON (:meth:`MinirtError.to_record`), which is how the HTTP
server sends them and the clients rebuild them as the same type.
"""

from __future__ import annotations

from typing import ClassVar

from ..errors import MinirtError
from ..tools import OutcomeUnknown


class ProviderError(MinirtError):
    """Base of every answer a provider gives instead of a result. Not raised itself."""

    status: ClassVar[int] = 400  # the HTTP status the server answers with
    saved: ClassVar[bool] = False  # stored under the idempotency key and replayed on a retry
    retryable: ClassVar[bool] = False  # sending the same request again may succeed


class InvalidRequest(ProviderError):
    """The request failed validation (a missing field, a negative amount, a key over 255
    characters). Raised before execution begins, so nothing is saved under the key and a
    corrected retry with the same key is fine. Not :class:`IdempotencyKeyReused`."""

    fields = ("provider", "operation", "reason")
    template = "{provider}.{operation}: invalid request: {reason}"


class NotFound(InvalidRequest):
    """The request names an object the provider does not have (a charge, a booking). A
    validation failure: not saved under the key."""

    status = 404
    fields = ("provider", "operation", "reason")
    template = "{provider}.{operation}: not found: {reason}"


class IdempotencyKeyReused(ProviderError):
    """The idempotency key was first used with other parameters (or on another endpoint) and is
    still retained. Stripe calls this an ``idempotency_error``. Nothing is executed and nothing is
    saved. Not :class:`minirt.idempotency.EffectKeyConflict`, which minirt raises locally *before*
    sending anything."""

    fields = ("provider", "idempotency_key", "first", "now")
    template = ("{provider}: idempotency key {idempotency_key!r} was first used for {first}, "
                "not {now} (idempotency_error)")


class CardDeclined(ProviderError):
    """The payment provider executed the charge request and the card was declined. Saved under
    the key (the first response is kept whether it succeeds or fails), so a retry with the same
    key gets the same decline; no money moved, so no effect is recorded in the ledger."""

    status = 402
    saved = True
    fields = ("provider", "customer", "amount_cents")
    template = "{provider}: card of {customer} declined for {amount_cents}"


class ChargeAlreadyRefunded(ProviderError):
    """A refund for a charge that is already refunded, under a *different* idempotency key (the
    same key replays the first refund instead). Saved under the new key."""

    saved = True
    fields = ("provider", "charge_id")
    template = "{provider}: charge {charge_id} is already refunded"


class ProviderUnavailable(ProviderError):
    """A 5xx answered before anything was executed (an overloaded gateway). Nothing committed,
    nothing saved: the same request with the same key may be sent again. Not
    :class:`RequestTimedOut` (no answer at all). A client that cannot reach the server at all
    raises this too, with ``status`` 0."""

    status = 503
    retryable = True
    fields = ("provider", "operation", "status_code")
    template = "{provider}.{operation}: unavailable (HTTP {status_code}), nothing was executed"


class ResponseLost(OutcomeUnknown):
    """The request was sent and no response came back (the connection dropped after the
    provider may have committed). An unknown outcome: look the effect up, do not assume."""


class RequestTimedOut(OutcomeUnknown):
    """No response within the client's timeout. The provider may still commit after the client
    gave up. An unknown outcome, exactly like :class:`ResponseLost`."""


class UnknownFault(MinirtError):
    """``inject`` was asked for a fault this provider does not know. Raised before anything is
    armed."""

    fields = ("fault", "known")
    template = "no fault named {fault!r} (known: {known})"
