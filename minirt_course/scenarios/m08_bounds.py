"""Module 08's two limits, run: a cleanup that overruns its bound, and a cancelled fan-out.

Both use the booking agent's world of :mod:`minirt_course.scenarios.m08_cancel` (a seat, a charge,
guest e-mails; the customer's cancel arrives while a chosen call is in flight, through another
store connection, as :class:`~minirt_course.scenarios.m08_cancel.CancelWhile` does).

- **Bounded cleanup exceeded** (:func:`make_runtime` with ``slow_refund_for``): the cleanup has
  ``cleanup_for`` seconds of the run's clock (and ``max_cleanup_calls`` calls) from the moment
  the run quiesced. A refund that takes longer runs to completion (a call in progress is never
  interrupted), and every cleanup call after it is refused before anything is journaled
  (:class:`~minirt.cancel.CleanupBoundExceeded`) and reported as "not attempted". The run still
  ends CANCELLED: the bound limits how long a cancelled run may keep acting, and the report
  says what is left for a person.
- **A cancelled fan-out** (workflow ``fan_out_agent``): the guests are e-mailed by
  :func:`minirt.scheduler.parallel`, two at a time. A cancel that arrives while the first wave
  runs does not stop its children (threads are not killed; the fan-out's cancellation points
  are its wave boundaries): they finish and are journaled, the fan-out stops at the next
  boundary, and the calls of later waves are never journaled, so never sent.

Invariant: every child of a cancelled fan-out ends either with an outcome in the journal or
with no intent at all, never in flight. Guarantees: those of :mod:`minirt.cancel` and
:mod:`minirt.scheduler`. Not guaranteed: that a cleanup finishes (it is bounded, on purpose).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from minirt.cancel import CancelHook, Cancelled, Cleanup
from minirt.clock import FakeClock
from minirt.faults import Faults
from minirt.idempotency import reconcile_by_lookup
from minirt.scheduler import Call, parallel
from minirt.store.sqlite import SQLiteStore
from minirt.world.booking import BookingProvider
from minirt.world.email import EmailProvider
from minirt.world.ledger import Ledger
from minirt.world.payments import PaymentProvider
from minirt.world.tools import book_tool, cancel_booking_tool, charge_tool, email_tool, refund_tool

from . import EPOCH
from .m08_cancel import NOTICE, ORDER, CancelRuntime, CancelWhile, booking_agent, reference_request


def _clean_up(ctx: Any, cancelled: Cancelled, order: dict[str, Any]) -> None:
    with Cleanup(ctx, cancelled) as cleanup:
        for fx in cancelled.happened("charge"):
            cleanup.call("refund", charge_id=fx.value["charge_id"])
        for fx in cancelled.happened("book"):
            cleanup.call("cancel_booking", booking_id=fx.value["booking_id"])
        cleanup.call("send_email", to=order["email"], subject=NOTICE,
                     body=f"Your order was cancelled: {cancelled.reason}.")


def fan_out_agent(ctx: Any, order: dict[str, Any]) -> dict[str, Any]:
    """The booking agent, with the guest e-mails sent as a fan-out (two in flight)."""
    try:
        ctx.call_tool("book", item=order["item"], customer=order["customer"])
        ctx.call_tool("charge", amount_cents=order["amount_cents"],
                      currency=order["currency"], customer=order["customer"])
        parallel(ctx, [Call("send_email", {"to": g, "subject": f"Order {order['order']}",
                                           "body": "See you on the boat!"}, name=g)
                       for g in order["guests"]], max_in_flight=2)
        return {"status": "confirmed"}
    except Cancelled as cancelled:
        _clean_up(ctx, cancelled, order)
        raise


def make_runtime(workdir: Path, *, cancel_during: str = "charge", cleanup_for: float = 6 * 3600.0,
                 max_cleanup_calls: int = 5, slow_refund_for: float = 0.0) -> CancelRuntime:
    """A cancellable runtime over fresh providers in ``workdir``, with both workflows
    (``booking_agent``, ``fan_out_agent``). ``cancel_during`` is ``"charge"`` or
    ``"send_email"`` (the cancel arrives during the first call of that tool);
    ``slow_refund_for`` makes the refund take that many seconds of the fake clock."""
    if cancel_during not in ("charge", "send_email"):
        raise ValueError(f"cancel_during must be 'charge' or 'send_email', not {cancel_during!r}")
    wd = Path(workdir)
    wd.mkdir(parents=True, exist_ok=True)
    clock = FakeClock(EPOCH)
    pay = PaymentProvider(wd / "payments.sqlite", clock)
    book = BookingProvider(wd / "booking.sqlite", clock)
    mail = EmailProvider(wd / "email.sqlite", clock)
    if slow_refund_for:
        pay.inject("slow", op="refund", delay_for=float(slow_refund_for))
    tools: dict[str, Any] = {
        "book": book_tool(book), "cancel_booking": cancel_booking_tool(book),
        "charge": charge_tool(pay), "refund": refund_tool(pay),
        "send_email": email_tool(mail, delivery="at-most-once")}
    tools[cancel_during] = CancelWhile(tools[cancel_during], reference_request,
                                       wd / "runs.sqlite", clock)
    rt = CancelRuntime(SQLiteStore(wd / "runs.sqlite"), clock=clock, faults=Faults(),
                       cancel_hook=CancelHook(cleanup_for=cleanup_for,
                                              max_cleanup_calls=max_cleanup_calls),
                       tools=list(tools.values()), reconcile=reconcile_by_lookup,
                       workflows={"booking_agent": booking_agent, "fan_out_agent": fan_out_agent})
    rt.world = (pay, book, mail)
    return rt


def applied(workdir: Path) -> dict[str, int]:
    """What the providers in ``workdir`` applied, by kind (charge, refund, booking, ...)."""
    out: dict[str, int] = {}
    for name, kinds in (("payments", ("charge", "refund")),
                        ("booking", ("booking", "cancellation")), ("email", ("email",))):
        ledger = Ledger(Path(workdir) / f"{name}.sqlite")
        out.update({k: len(ledger.effects(k)) for k in kinds})
        ledger.close()
    return out


__all__ = ["ORDER", "applied", "fan_out_agent", "make_runtime"]
