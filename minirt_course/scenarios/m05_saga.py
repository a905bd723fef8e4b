"""Module 05's crash drill: an order saga (charge -> book -> email) judged by the providers' ledgers.

The saga (:func:`order_saga`) charges the customer, books the ticket and sends a confirmation
email, each through :class:`minirt.effects.Saga`, with a refund and a cancellation registered in
the outbox rows of the first two. Variants (importable as ``minirt_course.scenarios.m05_saga:<name>``,
which the kill crash mode needs):

- ``booking_down``: the booking provider answers 503 to every booking; after the runtime's last
  attempt the outcome is unknown, the saga compensates, the lookup says the booking never
  happened, so only the charge is refunded;
- ``agent_aborts``: after the email, the (scripted) agent learns that the customer cancelled:
  the booking is cancelled, the charge refunded, the email reported as not compensable;
- ``operator_aborts``: the happy path, but every crash is followed by an operator's abort
  (:func:`minirt.effects.request_abort`) before recovery: whatever happened is compensated
  (unknown effects looked up first), whatever did not is not.

The oracle reads the ledgers only through :class:`minirt.idempotency.EffectLedger` and says CLEAN
only if: the run succeeded; no forward effect or compensation happened twice; every effect that
happened in a compensated order was compensated (except the email, which the report must list as
not compensable); nothing was compensated that never happened; every refund went out under the
compensation key derived from its charge's effect key.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from minirt.clock import FakeClock
from minirt.effects import SAGA_STOPS, Planner, Saga, compensation_key, plan_compensations
from minirt.effects import request_abort as _request_abort
from minirt.faults import Faults, Outcome, Verdict
from minirt.idempotency import EffectLedger, reconcile_by_lookup
from minirt.journal import NonDeterminism
from minirt.run import RunNotFound, RunState
from minirt.runtime import RunOutcome, Runtime, ScriptedModel
from minirt.store.sqlite import SQLiteStore
from minirt.world.booking import BookingProvider
from minirt.world.email import EmailProvider
from minirt.world.ledger import Ledger
from minirt.world.payments import PaymentProvider
from minirt.world.tools import book_tool, cancel_booking_tool, charge_tool, email_tool, refund_tool

from . import EPOCH

ORDER = {"order": "T-7", "customer": "cus_ada", "email": "ada@example.com",
         "amount_cents": 8900, "currency": "eur", "item": "concert, row 7 seat 12"}
OPERATOR_REASON = "operator cancelled the order after a crash"


def refund_args(args: dict[str, Any], receipt: dict[str, Any]) -> dict[str, Any]:
    return {"charge_id": receipt["charge_id"]}


def cancel_args(args: dict[str, Any], receipt: dict[str, Any]) -> dict[str, Any]:
    return {"booking_id": receipt["booking_id"]}


def order_saga(ctx: Any, order: dict[str, Any]) -> dict[str, Any]:
    """The agent's order: three forward steps; compensate on refusal, unknown outcome or abort."""
    opts = getattr(ctx.runtime, "saga_options", {})
    saga = Saga(ctx, "order", **opts)
    try:
        saga.step("charge", {"amount_cents": order["amount_cents"], "currency": order["currency"],
                             "customer": order["customer"]},
                  compensate=("refund", refund_args), state={"order:status": "charged"})
        saga.step("book", {"item": order["item"], "customer": order["customer"]},
                  compensate=("cancel_booking", cancel_args), state={"order:status": "booked"})
        sent = saga.step("send_email", {"to": order["email"], "subject": f"Order {order['order']}",
                                        "body": "Your ticket is booked."})
        if order.get("ask_agent"):
            decision = ctx.decide({"question": "does the customer still want the ticket?",
                                   "order": order["order"]})
            if decision.get("abort"):
                return compensated(saga, str(decision["reason"]))
        saga.finish()
    except SAGA_STOPS as stop:
        return compensated(saga, str(stop))
    return {"status": "confirmed", "email": "maybe sent" if sent.get("delivery") else "sent"}


def compensated(saga: Saga, reason: str) -> dict[str, Any]:
    report = saga.compensate(reason, state={"order:status": "cancelled"})
    return {"status": "compensated", "outcomes": report.outcomes(),
            "keys": {i.tool: i.compensation_key for i in report.items if i.compensation_key}}


def scratch_dir() -> tempfile.TemporaryDirectory[str]:
    """A temporary work directory in memory (``/dev/shm``) when the system has one.

    For SIMULATED crashes only: the process does not die, so the disk's fsync proves nothing
    there and costs most of the time. The kill-mode sweep (tests/test_sweep_m05.py) uses the disk.
    """
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        return tempfile.TemporaryDirectory(prefix="m05-", dir=shm)
    return tempfile.TemporaryDirectory(prefix="m05-")


class SagaRuntime(Runtime):
    """A runtime that carries the saga's options and closes the providers it was built with."""

    world: tuple[Any, ...] = ()
    saga_options: dict[str, Any] = {}

    def close(self) -> None:
        for provider in self.world:
            provider.close()
        super().close()


@dataclass(frozen=True)
class SagaScenario:
    """One variant of the drill (see the module docstring). Frozen: use ``replace`` to vary."""

    name: str = "m05-operator-aborts"
    ref: str = "minirt_course.scenarios.m05_saga:operator_aborts"
    booking_down: bool = False
    ask_agent: bool = False
    operator_aborts: bool = False
    planner: Planner = plan_compensations
    key: Any = compensation_key
    run_id: str = "run-m05"

    def setup(self, workdir: Path) -> None:
        Path(workdir).mkdir(parents=True, exist_ok=True)

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> SagaRuntime:
        wd = Path(workdir)
        clock = FakeClock(EPOCH + clock_offset)
        pay = PaymentProvider(wd / "payments.sqlite", clock)
        book = BookingProvider(wd / "booking.sqlite", clock)
        mail = EmailProvider(wd / "email.sqlite", clock)
        if self.booking_down:
            book.inject("error_5xx", times=1_000, op="book")  # every process sees it down
        model = ScriptedModel([{"abort": True, "reason": "the customer cancelled the order"}])
        rt = SagaRuntime(SQLiteStore(wd / "runs.sqlite"),
                         tools=[charge_tool(pay), refund_tool(pay), book_tool(book),
                                cancel_booking_tool(book),
                                email_tool(mail, delivery="at-most-once")],
                         workflows={"order_saga": order_saga}, model=model, clock=clock,
                         faults=faults, worker_id=worker_id, reconcile=reconcile_by_lookup)
        rt.world = (pay, book, mail)
        rt.saga_options = {"planner": self.planner, "key": self.key}
        if self.operator_aborts and worker_id.startswith("w-recover"):
            # An operator who finds a crashed order cancels it before any worker resumes it
            # (minirt.faults.recover names its workers w-recover-N).
            try:
                _request_abort(rt, self.run_id, OPERATOR_REASON)
            except RunNotFound:
                pass
        return rt

    def start(self, rt: Runtime) -> str:
        return rt.start("order_saga", {**ORDER, "ask_agent": self.ask_agent},
                        run_id=self.run_id)

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        wd = Path(workdir)
        ledgers = [Ledger(wd / f"{n}.sqlite") for n in ("payments", "booking", "email")]
        try:
            verdict = judge(*ledgers, rt.outcome(run_id))
        finally:
            for ledger in ledgers:
                ledger.close()
        must = "compensated" if (self.booking_down or self.ask_agent) else None
        if verdict.ok and must and rt.outcome(run_id).value["status"] != must:
            return Verdict(Outcome.WRONG, f"the order should have been {must}")
        return verdict


def judge(pay: EffectLedger, book: EffectLedger, mail: EffectLedger,
          outcome: RunOutcome) -> Verdict:
    """The ledgers against the run's result (see the module docstring for what CLEAN means)."""
    if outcome.state is not RunState.SUCCEEDED:
        # a run parked because its code diverged from its journal is a wrong run, as when
        # divergence failed it (minirt.divergence parks it so a rollback can finish it)
        wrong = outcome.state is RunState.FAILED or isinstance(outcome.error, NonDeterminism)
        kind = Outcome.WRONG if wrong else Outcome.STUCK
        return Verdict(kind, f"run ended {outcome.state.value}: {outcome.error}")
    charges, refunds = pay.effects("charge"), pay.effects("refund")
    bookings, cancels = book.effects("booking"), book.effects("cancellation")
    emails = mail.effects("email")
    for what, rows in (("charge", charges), ("booking", bookings), ("email", emails)):
        if len(rows) > 1:
            return Verdict(Outcome.DUPLICATE, f"{len(rows)} {what} effects for one order")
    refunded = [r["params"]["charge_id"] for r in refunds]
    cancelled = [c["params"]["booking_id"] for c in cancels]
    if len(set(refunded)) < len(refunded) or len(set(cancelled)) < len(cancelled):
        return Verdict(Outcome.DUPLICATE, "an effect was compensated twice")
    if {*refunded} - {c["effect_id"] for c in charges} or \
            {*cancelled} - {b["effect_id"] for b in bookings}:
        return Verdict(Outcome.WRONG, "compensated an effect that never happened")
    result = outcome.value
    if result["status"] == "confirmed":
        if refunds or cancels:
            return Verdict(Outcome.WRONG, "a confirmed order was compensated")
        if not (charges and bookings) or (not emails and result["email"] == "sent"):
            return Verdict(Outcome.LOST, "a confirmed order is missing an effect")
        return Verdict(Outcome.CLEAN, "confirmed")
    for c in charges:
        if c["effect_id"] not in refunded:
            return Verdict(Outcome.LOST, f"charge {c['effect_id']} left uncompensated")
        if pay.count(result["keys"].get("charge", "-"), "refund") != 1:
            return Verdict(Outcome.WRONG, "the refund was not sent under the compensation key "
                                          "derived from the charge")
    for b in bookings:
        if b["effect_id"] not in cancelled:
            return Verdict(Outcome.LOST, f"booking {b['effect_id']} left uncompensated")
    if emails and result["outcomes"].get("send_email") != "not compensable":
        return Verdict(Outcome.WRONG, "the email was sent but not reported as not compensable")
    return Verdict(Outcome.CLEAN, f"compensated: {result['outcomes']}")


booking_down = SagaScenario("m05-booking-down", "minirt_course.scenarios.m05_saga:booking_down",
                            booking_down=True)
agent_aborts = SagaScenario("m05-agent-aborts", "minirt_course.scenarios.m05_saga:agent_aborts",
                            ask_agent=True)
operator_aborts = SagaScenario(operator_aborts=True)
VARIANTS = (booking_down, agent_aborts, operator_aborts)
