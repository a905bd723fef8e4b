"""Module 05's pivot step: the saga step after which the saga can only go forward.

A saga's steps are of three kinds (the names of the saga pattern in Microsoft's Azure
Architecture Center, after Garcia-Molina and Salem's sagas): **compensable** steps, which a new
action undoes (a refund, a cancellation); the **pivot**, the first step nothing undoes (here the
confirmation e-mail); and the steps after it, which can only be **retried forward**, because going
back is no longer possible. The design rule: every compensable step before the pivot, only
retryable steps after it.

Two orders of the lesson's ticket saga, on the providers of :mod:`minirt_course.scenarios.m05_saga`:

- :func:`pivot_too_early`: charge -> e-mail -> book. With the booking provider down, the saga
  compensates after its pivot: the charge is refunded and the e-mail "your ticket is booked"
  stays sent. The report says so honestly; nothing can repair it.
- :func:`pivot_last`: charge -> book -> e-mail (the pivot) -> issue the ticket. A failure before
  the pivot compensates as in module 05; after it, ``saga.finish()`` closes the compensable part
  and the ticket is retried forward under a :class:`minirt.retry.RetryPolicy` (a durable,
  journaled wait), never compensated.

Invariant: in :func:`pivot_last` no compensation runs once the pivot has a receipt, and every
step after it is a keyed tool with a retry policy. Guarantees: what :mod:`minirt.effects` and
:mod:`minirt.retry` guarantee. Not guaranteed: that a step after the pivot ever succeeds; when
its attempts run out the run fails with everything before it still in effect, for an operator
to finish (a post-pivot step should be one that succeeds when retried long enough).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from minirt.clock import FakeClock
from minirt.effects import SAGA_STOPS, Saga
from minirt.idempotency import reconcile_by_lookup
from minirt.retry import RetryPolicy
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, ToolCall
from minirt.world.booking import BookingProvider
from minirt.world.email import EmailProvider
from minirt.world.ledger import Ledger
from minirt.world.payments import PaymentProvider
from minirt.world.tools import book_tool, cancel_booking_tool, charge_tool, email_tool, refund_tool

from . import EPOCH
from .m05_saga import ORDER, SagaRuntime, cancel_args, compensated, refund_args

#: The ticket service's retry policy: 5 attempts, 30 s, then 60 s, 120 s, ...
TICKET_RETRY = RetryPolicy(attempts=5, initial_interval=30, backoff=2)


class TicketServiceBusy(Exception):
    """The ticket service answered "busy, try later": nothing was issued."""


def _charge(saga: Saga, order: dict[str, Any]) -> Any:
    return saga.step("charge", {"amount_cents": order["amount_cents"],
                                "currency": order["currency"], "customer": order["customer"]},
                     compensate=("refund", refund_args), state={"order:status": "charged"})


def _book(saga: Saga, order: dict[str, Any]) -> Any:
    return saga.step("book", {"item": order["item"], "customer": order["customer"]},
                     compensate=("cancel_booking", cancel_args), state={"order:status": "booked"})


def _email(saga: Saga, order: dict[str, Any]) -> Any:
    return saga.step("send_email", {"to": order["email"], "subject": f"Order {order['order']}",
                                    "body": "Your ticket is booked."})


def pivot_too_early(ctx: Any, order: dict[str, Any]) -> dict[str, Any]:
    """The wrong order: the e-mail (the pivot) before the booking, a compensable step."""
    saga = Saga(ctx, "order")
    try:
        _charge(saga, order)
        _email(saga, order)  # the pivot, too early: a compensable step still follows
        _book(saga, order)
        saga.finish()
    except SAGA_STOPS as stop:
        return compensated(saga, str(stop))
    return {"status": "confirmed"}


def pivot_last(ctx: Any, order: dict[str, Any]) -> dict[str, Any]:
    """Compensable steps, then the pivot, then only steps retried forward."""
    saga = Saga(ctx, "order")
    try:
        _charge(saga, order)
        booking = _book(saga, order)
        _email(saga, order)  # the pivot: from here on, only forward
        saga.finish()
    except SAGA_STOPS as stop:
        return compensated(saga, str(stop))
    ticket = ctx.call_tool("issue_ticket", {"booking_id": booking["booking_id"]})
    return {"status": "confirmed", "ticket": ticket["ticket"]}


def make_runtime(workdir: Path, *, booking_down: bool = False,
                 ticket_failures: int = 0) -> SagaRuntime:
    """A runtime with both workflows, the providers in ``workdir`` and a ticket service that
    answers :class:`TicketServiceBusy` to its first ``ticket_failures`` requests."""
    wd = Path(workdir)
    wd.mkdir(parents=True, exist_ok=True)
    clock = FakeClock(EPOCH)
    pay = PaymentProvider(wd / "payments.sqlite", clock)
    book = BookingProvider(wd / "booking.sqlite", clock)
    mail = EmailProvider(wd / "email.sqlite", clock)
    if booking_down:
        book.inject("error_5xx", times=1_000, op="book")
    requests: list[str] = []

    def issue_ticket(booking_id: str, call: ToolCall) -> dict[str, Any]:
        requests.append(call.effect_key)
        if len(requests) <= ticket_failures:
            raise TicketServiceBusy(f"ticket service busy (request {len(requests)})")
        return {"ticket": f"TKT-{booking_id}"}

    rt = SagaRuntime(SQLiteStore(wd / "runs.sqlite"), clock=clock, reconcile=reconcile_by_lookup,
                     tools=[charge_tool(pay), refund_tool(pay), book_tool(book),
                            cancel_booking_tool(book), email_tool(mail, delivery="at-most-once"),
                            FunctionTool(issue_ticket, effect=EffectClass.KEYED,
                                         retry=TICKET_RETRY)],
                     workflows={"pivot_too_early": pivot_too_early, "pivot_last": pivot_last})
    rt.world = (pay, book, mail)
    return rt


def ledgers(workdir: Path) -> dict[str, Ledger]:
    """The three providers' ledgers in ``workdir`` (payments, booking, email)."""
    return {n: Ledger(Path(workdir) / f"{n}.sqlite") for n in ("payments", "booking", "email")}


__all__ = ["ORDER", "TICKET_RETRY", "TicketServiceBusy", "ledgers", "make_runtime",
           "pivot_last", "pivot_too_early"]
