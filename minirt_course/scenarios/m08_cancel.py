"""Module 08's crash drill: a booking agent cancelled while a charge is in flight.

The agent (:func:`booking_agent`) holds a seat (``book``), charges the customer (``charge``) and
emails three guests. While the charge is in flight, the customer cancels: the charge tool's
wrapper (:class:`CancelWhile`) makes the operator's cancel request through its own store
connection, as another process would, and then lets the charge through. The worker notices the
cancel at its next cancellation point (before the first guest email): it quiesces, the workflow's
cleanup refunds the charge, cancels the booking and sends one "order cancelled" email, and the
run is reconciled and CANCELLED.

After every crash an operator who sees the run still cancelling presses cancel again (the same
``request`` function); and the first worker that recovers a cancel not yet quiesced finds the
payment provider's lookup down once, so an effect that was in flight at the request cannot be
looked up on the first try: quiescence must wait for it.

The oracle reads the providers' ledgers only through :class:`minirt.idempotency.EffectLedger` and
says CLEAN only if: the run is CANCELLED with every effect reconciled (none left in flight); no
guest email was sent; a charge that happened was refunded exactly once, a booking that happened
was cancelled exactly once; at most one "order cancelled" email went out (exactly one unless the
journal records it as "maybe sent"). ``cancel_during="email:1"`` (the lesson's prediction) cancels
while the first guest email is in flight instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from minirt.cancel import (
    CancelHook,
    CancellableRuntime,
    Cancelled,
    Cleanup,
    cancel,
    cancel_record,
    effective_deadline,
    is_quiescent,
)
from minirt.clock import FakeClock
from minirt.faults import Faults, Outcome, Verdict
from minirt.idempotency import MAYBE_SENT, reconcile_by_lookup
from minirt.run import RunNotFound, RunState
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import ToolCall
from minirt.world.booking import BookingProvider
from minirt.world.email import EmailProvider
from minirt.world.ledger import Ledger
from minirt.world.payments import PaymentProvider
from minirt.world.tools import book_tool, cancel_booking_tool, charge_tool, email_tool, refund_tool

from . import EPOCH

ORDER = {"order": "T-9", "customer": "cus_bo", "email": "bo@example.com",
         "guests": ["ann@example.com", "cy@example.com", "di@example.com"],
         "amount_cents": 12000, "currency": "eur", "item": "boat tour, 2 seats"}
REASON = "the customer cancelled the order"
NOTICE = "Order T-9 cancelled"
Request = Callable[[Any, str, str, float], Any]  # (store, run_id, reason, at) -> bool


def reference_request(store: Any, run_id: str, reason: str, at: float) -> bool:
    """The operator's cancel button: :func:`minirt.cancel.cancel`."""
    return cancel(store, run_id, reason, by="operator", at=at)


def booking_agent(ctx: Any, order: dict[str, Any]) -> dict[str, Any]:
    """Hold a seat, charge, email the guests; on a cancel, undo what happened and say so."""
    try:
        ctx.call_tool("book", item=order["item"], customer=order["customer"])
        ctx.call_tool("charge", amount_cents=order["amount_cents"],
                      currency=order["currency"], customer=order["customer"])
        for guest in order["guests"]:
            ctx.call_tool("send_email", to=guest, subject=f"Order {order['order']}",
                          body="See you on the boat!")
        return {"status": "confirmed"}
    except Cancelled as cancelled:
        with Cleanup(ctx, cancelled) as cleanup:
            for fx in cancelled.happened("charge"):
                cleanup.call("refund", charge_id=fx.value["charge_id"])
            for fx in cancelled.happened("book"):
                cleanup.call("cancel_booking", booking_id=fx.value["booking_id"])
            cleanup.call("send_email", to=order["email"], subject=NOTICE,
                         body=f"Your order was cancelled: {cancelled.reason}.")
        raise


class CancelWhile:
    """A tool wrapper: the operator's cancel arrives while this call is in flight.

    The request is written during the ``nth`` call of this tool to start (a call resent at the
    same step counts once), under a lock: a call of the same tool that starts meanwhile (a
    sibling in a fan-out wave) waits until the request is durable, so every call in flight then
    ends after ``cancel_requested``, whatever the threads' timing."""

    def __init__(self, inner: Any, request: Request, store_path: Path, clock: FakeClock,
                 *, nth: int = 1) -> None:
        self.inner, self.request, self.store_path, self.clock = inner, request, store_path, clock
        self.nth = nth  # cancel during the nth call of this tool to start
        self.name, self.effect = inner.name, inner.effect
        self.seen: set[int] = set()
        self._lock = threading.Lock()
        self._requested = False

    def __getattr__(self, attr: str) -> Any:  # lookup, retention_for, delivery, has_lookup...
        return getattr(self.inner, attr)

    def prepare(self, args: dict[str, Any], scopes: frozenset[str]) -> dict[str, Any]:
        return self.inner.prepare(args, scopes)

    def invoke(self, call: ToolCall) -> Any:
        with self._lock:
            self.seen.add(call.step)
            if len(self.seen) == self.nth and not self._requested:
                other = SQLiteStore(self.store_path)  # another process's connection
                try:
                    self.request(other, call.run_id, REASON, self.clock.now())
                finally:
                    other.close()
                self._requested = True
        return self.inner.invoke(call)


class CancelRuntime(CancellableRuntime):
    """Closes the providers it was built with."""

    world: tuple[Any, ...] = ()

    def close(self) -> None:
        for provider in self.world:
            provider.close()
        super().close()


class HeedlessRuntime(Runtime):
    """The WRONG design, kept for the lesson: a runtime with no cancellation point."""

    world: tuple[Any, ...] = ()

    def close(self) -> None:
        for provider in self.world:
            provider.close()
        super().close()


@dataclass(frozen=True)
class CancelScenario:
    """The drill (module docstring). ``request``, ``quiescent`` and ``propagate`` are
    swappable (the drill plugs the learner's in)."""

    name: str = "m08-cancel"
    ref: str = "minirt_course.scenarios.m08_cancel:cancel_drill"
    cancel_during: str = "charge"  # "charge" or "email:<n>"
    request: Request = reference_request
    quiescent: Callable[..., Any] = is_quiescent
    propagate: Callable[..., Any] = effective_deadline
    cancellable: bool = True  # False: the lesson's runtime that never looks at the cancel
    run_id: str = "run-m08"

    def setup(self, workdir: Path) -> None:
        Path(workdir).mkdir(parents=True, exist_ok=True)

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> Any:
        wd = Path(workdir)
        clock = FakeClock(EPOCH + clock_offset)
        pay = PaymentProvider(wd / "payments.sqlite", clock)
        book = BookingProvider(wd / "booking.sqlite", clock)
        mail = EmailProvider(wd / "email.sqlite", clock)
        tools: dict[str, Any] = {
            "book": book_tool(book), "cancel_booking": cancel_booking_tool(book),
            "charge": charge_tool(pay), "refund": refund_tool(pay),
            "send_email": email_tool(mail, delivery="at-most-once")}
        target, _, nth = self.cancel_during.partition(":")
        target = "send_email" if target == "email" else target
        tools[target] = CancelWhile(tools[target], self.request, wd / "runs.sqlite", clock,
                                    nth=int(nth or 1))
        store = SQLiteStore(wd / "runs.sqlite")
        hook = CancelHook(quiescent=self.quiescent, propagate=self.propagate,
                          cleanup_for=6 * 3600.0, max_cleanup_calls=5)
        common: dict[str, Any] = {
            "tools": list(tools.values()), "workflows": {"booking_agent": booking_agent},
            "clock": clock, "faults": faults, "worker_id": worker_id,
            "reconcile": reconcile_by_lookup}
        rt: Any = (CancelRuntime(store, cancel_hook=hook, **common) if self.cancellable
                   else HeedlessRuntime(store, **common))
        rt.world = (pay, book, mail)
        if worker_id.startswith("w-recover"):
            self._operator(rt, pay, worker_id)
        return rt

    def _operator(self, rt: CancelRuntime, pay: PaymentProvider, worker_id: str) -> None:
        try:
            run = rt.store.get_run(self.run_id).run
        except RunNotFound:
            return
        if run.state is not RunState.CANCELLING:
            return
        if worker_id == "w-recover-1" and (cancel_record(rt.store, self.run_id) or {}).get(
                "stage") == "requested":
            pay.inject("error_5xx", op="lookup")  # the first look-up after the crash fails
        self.request(rt.store, self.run_id, REASON + " (pressed again)", rt.clock.now())

    def start(self, rt: Runtime) -> str:
        return rt.start("booking_agent", ORDER, run_id=self.run_id)

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        wd = Path(workdir)
        ledgers = {n: Ledger(wd / f"{n}.sqlite") for n in ("payments", "booking", "email")}
        try:
            return judge(ledgers, rt, run_id, guest_emails=_guests_before(self.cancel_during))
        finally:
            for ledger in ledgers.values():
                ledger.close()


def _guests_before(cancel_during: str) -> int:
    """Guest emails that legitimately go out: the one in flight at the cancel, if any."""
    return 1 if cancel_during.startswith("email") else 0


def judge(ledgers: dict[str, Any], rt: Runtime, run_id: str, *, guest_emails: int = 0
          ) -> Verdict:
    """The ledgers and the cancel record against the rules (module docstring)."""
    run = rt.store.get_run(run_id).run
    if run.state is not RunState.CANCELLED:
        return Verdict(Outcome.STUCK, f"the run is {run.state.value}, not cancelled")
    rec = cancel_record(rt.store, run_id) or {}
    open_ = [e for e in rec.get("effects", []) if e["status"] == "in_flight"]
    if rec.get("stage") != "reconciled" or open_:
        return Verdict(Outcome.STUCK, f"cancel stage {rec.get('stage')}, {len(open_)} in flight")
    pay, book, mail = ledgers["payments"], ledgers["booking"], ledgers["email"]
    charges, refunds = pay.effects("charge"), pay.effects("refund")
    bookings, cancels = book.effects("booking"), book.effects("cancellation")
    emails = mail.effects("email")
    notices = [e for e in emails if e["params"]["subject"] == NOTICE]
    guests = [e for e in emails if e["params"]["subject"] != NOTICE]
    if len(charges) > 1 or len(bookings) > 1 or len(refunds) > 1 or len(cancels) > 1:
        return Verdict(Outcome.DUPLICATE, f"{len(charges)} charges, {len(refunds)} refunds, "
                                          f"{len(bookings)} bookings, {len(cancels)} cancels")
    if len(notices) > 1:
        return Verdict(Outcome.DUPLICATE, f"{len(notices)} 'order cancelled' emails: the "
                                          "cleanup ran again")
    if len(guests) > guest_emails:
        return Verdict(Outcome.WRONG, f"{len(guests)} guest emails: the cancelled run kept "
                                      "sending")
    if charges and len(refunds) != 1:
        return Verdict(Outcome.LOST, "the charge happened and was not refunded")
    if bookings and len(cancels) != 1:
        return Verdict(Outcome.LOST, "the booking happened and was not cancelled")
    if not notices and not _maybe_sent(rec):
        return Verdict(Outcome.LOST, "no 'order cancelled' email, and none recorded as maybe "
                                     "sent")
    return Verdict(Outcome.CLEAN, f"cancelled: {len(charges)} charge refunded, "
                                  f"{len(notices)} notice, {len(guests)} guest emails")


def _maybe_sent(rec: dict[str, Any]) -> bool:
    return any(isinstance(e.get("value"), dict) and e["value"].get("delivery") == MAYBE_SENT
               for e in rec.get("effects", []))


cancel_drill = CancelScenario()
during_email = CancelScenario("m08-cancel-during-email",
                              "minirt_course.scenarios.m08_cancel:during_email", cancel_during="email:1")
