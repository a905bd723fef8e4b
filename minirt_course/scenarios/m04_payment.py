"""Module 04's crash drill: an agent run with a payment inside, judged by the provider's ledger.

The run: a scripted model decides the amount; the agent charges it through the payment
provider; then it books the item (or emails a receipt). The oracle reads the providers' ledgers
only through :class:`minirt.idempotency.EffectLedger` and says CLEAN only if there is **exactly
one charge**, exactly one booking (or email), the run ended, and the recorded receipt is the
charge in the ledger.

Variants (each importable as ``minirt_course.scenarios.m04_payment:<name>`` for the kill crash mode):

- ``pay_then_book`` — the right design: keys bound to the payload, reconcile by lookup;
- ``pay_then_book_random_keys`` — the wrong design: a fresh random key on every attempt;
- ``pay_then_email_at_most_once`` / ``pay_then_email_at_least_once`` — the email decision;
- ``pay_then_book_http`` — the providers in their own process, reached over HTTP
  (:func:`http_crash` starts and stops that process around one crash).

:data:`POINTS` crashes each tool call (occurrence 1: the charge, 2: the booking or email) in
each window W1..W5.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from minirt.clock import FakeClock
from minirt.errors import MinirtError
from minirt.faults import TOOL_POINTS, WINDOWS, FaultPlan, Faults, Outcome, SimulatedCrash, Verdict
from minirt.faults import crash_once as _crash_once
from minirt.idempotency import Delivery, EffectLedger, KeyFunction, ReconcileByLookup
from minirt.idempotency import reconcile_by_lookup as _reconcile_by_lookup
from minirt.run import RunState
from minirt.runtime import ReconcilePolicy, RunOutcome, Runtime, ScriptedModel
from minirt.store.sqlite import SQLiteStore
from minirt.world.booking import BookingProvider
from minirt.world.email import EmailProvider
from minirt.world.http import BookingClient, EmailClient, PaymentClient, spawn_world
from minirt.world.ledger import Ledger
from minirt.world.payments import PaymentProvider
from minirt.world.tools import book_tool, charge_tool, email_tool

from . import EPOCH

INPUT = {"order": "A-42", "customer": "cus_ada", "email": "ada@example.com"}
PLAN = {"amount_cents": 4200, "currency": "eur", "item": "room 12, two nights"}
#: Every (point, occurrence) the sweep crashes: W1..W5 of the charge (1) and of the next call (2).
POINTS = [(p, n) for n in (1, 2) for p in TOOL_POINTS]


def pay_then_follow_up(ctx: Any, inp: dict[str, Any]) -> dict[str, Any]:
    """The agent: decide, charge, then book (or email a receipt)."""
    plan = ctx.decide({"task": "charge the order, then follow up", "order": inp["order"]})
    receipt = ctx.call_tool("charge", amount_cents=plan["amount_cents"],
                            currency=plan["currency"], customer=inp["customer"])
    out = {"charge_id": receipt["charge_id"], "amount": receipt["amount"]}
    if "book" in ctx.runtime.tools:
        booking = ctx.call_tool("book", item=plan["item"], customer=inp["customer"])
        return {**out, "booking_id": booking["booking_id"]}
    sent = ctx.call_tool("send_email", to=inp["email"], subject=f"Receipt {receipt['charge_id']}",
                         body=f"We charged {receipt['amount']} {receipt['currency']}.")
    return {**out, "email": sent}


class WorldRuntime(Runtime):
    """A runtime that also closes the providers (or clients) it was built with."""

    world: tuple[Any, ...] = ()

    def close(self) -> None:
        for p in self.world:
            close = getattr(p, "close", None)
            if close is not None:
                close()
        super().close()


class HTTPWorldMissing(MinirtError):
    """The HTTP variant ran without its world process (use :func:`http_crash`)."""

    fields = ("workdir",)
    template = "no world.json in {workdir}: start the providers first (see http_crash)"


@dataclass(frozen=True)
class PaymentScenario:
    """One variant of the drill (see the module docstring). Frozen: use ``replace`` to vary."""

    name: str = "m04-pay-then-book"
    ref: str = "minirt_course.scenarios.m04_payment:pay_then_book"
    follow_up: str = "book"  # "book" or "email"
    per_attempt_random_keys: bool = False
    delivery: Delivery | None = None
    over_http: bool = False
    retention_for: float = 86_400.0
    reconcile: ReconcilePolicy = _reconcile_by_lookup
    key_for: KeyFunction | None = None
    run_id: str = "run-m04"

    # -- the Scenario protocol (minirt.faults) -------------------------------------------------

    def setup(self, workdir: Path) -> None:
        Path(workdir).mkdir(parents=True, exist_ok=True)
        if self.over_http and not (Path(workdir) / "world.json").exists():
            raise HTTPWorldMissing(workdir=str(workdir))

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> WorldRuntime:
        wd = Path(workdir)
        clock = FakeClock(EPOCH + clock_offset)
        payments, other = self._providers(wd, clock)
        second = (book_tool(other) if self.follow_up == "book"
                  else email_tool(other, delivery=self.delivery))
        rt = WorldRuntime(SQLiteStore(wd / "runs.sqlite"),
                          tools=[charge_tool(payments,
                                             per_attempt_random_keys=self.per_attempt_random_keys),
                                 second],
                          workflows={"pay_then_follow_up": pay_then_follow_up},
                          model=ScriptedModel([PLAN]), clock=clock, faults=faults,
                          worker_id=worker_id, reconcile=self.reconcile, key_for=self.key_for)
        rt.world = (payments, other)
        return rt

    def start(self, rt: Runtime) -> str:
        return rt.start("pay_then_follow_up", INPUT, run_id=self.run_id)

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        wd = Path(workdir)
        payments, other = Ledger(wd / "payments.sqlite"), Ledger(wd / f"{self.follow_up}.sqlite")
        try:
            return judge(payments, other, self.follow_up, rt.outcome(run_id),
                         rt.store.get_run(run_id).run.detail)
        finally:
            payments.close()
            other.close()

    # -- the world ----------------------------------------------------------------------------

    def _providers(self, wd: Path, clock: FakeClock) -> tuple[Any, Any]:
        if self.over_http:
            urls = json.loads((wd / "world.json").read_text())
            other = (BookingClient(urls["booking"]) if self.follow_up == "book"
                     else EmailClient(urls["email"]))
            return PaymentClient(urls["payments"]), other
        payments = PaymentProvider(wd / "payments.sqlite", clock,
                                   retention_for=self.retention_for)
        if self.follow_up == "book":
            return payments, BookingProvider(wd / "book.sqlite", clock)
        return payments, EmailProvider(wd / "email.sqlite", clock)


def judge(payments: EffectLedger, other: EffectLedger, follow_up: str, outcome: RunOutcome,
          detail: dict[str, Any]) -> Verdict:
    """The oracle: exactly one charge and one follow-up, a terminal run, the right receipt."""
    charges = payments.effects("charge")
    kind = "booking" if follow_up == "book" else "email"
    others = other.effects(kind)
    if len(charges) > 1:
        keys = ", ".join(str(c["effect_key"])[:14] for c in charges)
        return Verdict(Outcome.DUPLICATE, f"{len(charges)} charges for one payment (keys {keys})")
    if len(others) > 1:
        return Verdict(Outcome.DUPLICATE, f"{len(others)} {kind}s for one {kind}")
    state = outcome.state
    if state not in (RunState.SUCCEEDED, RunState.FAILED, RunState.CANCELLED):
        err = detail.get("error", {})
        return Verdict(Outcome.STUCK, f"run is {state.value} with {len(charges)} charge(s): "
                                      f"{err.get('type', '')} "
                                      f"{err.get('attrs', {}).get('reason', '')}".strip())
    if not charges:
        return Verdict(Outcome.LOST, "no charge in the payment provider's ledger")
    if state is not RunState.SUCCEEDED:
        return Verdict(Outcome.WRONG, f"run {state.value}: {outcome.error}")
    result = outcome.value
    if not others:
        maybe = result.get("email", {}).get("delivery") if kind == "email" else None
        return Verdict(Outcome.LOST, f"no {kind} in the ledger"
                       + (" (the run recorded it as maybe-sent)" if maybe else ""))
    if result.get("charge_id") != charges[0]["effect_id"]:
        return Verdict(Outcome.WRONG, f"the run recorded {result.get('charge_id')}, the ledger "
                                      f"has {charges[0]['effect_id']}")
    return Verdict(Outcome.CLEAN, f"1 charge ({charges[0]['effect_id']}), 1 {kind}")


# -- the variants -------------------------------------------------------------------------------

pay_then_book = PaymentScenario()
pay_then_book_random_keys = replace(
    pay_then_book, name="m04-random-keys", per_attempt_random_keys=True,
    ref="minirt_course.scenarios.m04_payment:pay_then_book_random_keys")
pay_then_email_at_most_once = replace(
    pay_then_book, name="m04-email-at-most-once", follow_up="email",
    delivery=Delivery.AT_MOST_ONCE, ref="minirt_course.scenarios.m04_payment:pay_then_email_at_most_once")
pay_then_email_at_least_once = replace(
    pay_then_email_at_most_once, name="m04-email-at-least-once", delivery=Delivery.AT_LEAST_ONCE,
    ref="minirt_course.scenarios.m04_payment:pay_then_email_at_least_once")
pay_then_book_http = replace(pay_then_book, name="m04-http", over_http=True,
                             ref="minirt_course.scenarios.m04_payment:pay_then_book_http")


def window(point: str, occurrence: int) -> str:
    """``"W3 charge"`` for ``("after_provider_commit", 1)``."""
    return f"{WINDOWS[point]} {'charge' if occurrence == 1 else 'follow-up'}"


def http_crash(point: str = "after_provider_commit", *, occurrence: int = 1,
               mode: str = "kill", workdir: Path | None = None) -> Verdict:
    """Serve payments and booking in their own process, crash the agent run at ``point``
    (SIGKILL in ``kill`` mode), recover over HTTP, judge the ledgers, stop the world."""
    with tempfile.TemporaryDirectory() as tmp:
        wd = Path(workdir or tmp)
        wd.mkdir(parents=True, exist_ok=True)
        world = spawn_world(wd / "world.json", payments=wd / "payments.sqlite",
                            booking=wd / "book.sqlite")
        try:
            return _crash_once(pay_then_book_http, point, occurrence=occurrence, mode=mode,
                               workdir=wd)
        finally:
            world.stop()


def crash_then_resume_after(scenario: PaymentScenario, point: str, resume_after_for: float, *,
                            occurrence: int = 1, workdir: Path | None = None
                            ) -> tuple[Verdict, RunOutcome]:
    """Crash at ``point``, then resume once, ``resume_after_for`` seconds later (e.g. after the
    provider's retention window). Returns the oracle's verdict and the resumed run's outcome."""
    with tempfile.TemporaryDirectory() as tmp:
        wd = Path(workdir or tmp)
        scenario.setup(wd)
        rt = scenario.make_runtime(wd, faults=FaultPlan(crash_at=point, occurrence=occurrence),
                                   clock_offset=0.0, worker_id="w-crashing")
        run_id = scenario.start(rt)
        try:
            rt.run(run_id)
        except SimulatedCrash:
            pass
        finally:
            rt.close()
        rt = scenario.make_runtime(wd, faults=Faults(), clock_offset=resume_after_for,
                                   worker_id="w-late")
        try:
            outcome = rt.resume(run_id)
            return scenario.oracle(wd, rt, run_id), outcome
        finally:
            rt.close()


__all__ = ["INPUT", "PLAN", "POINTS", "HTTPWorldMissing", "PaymentScenario", "ReconcileByLookup",
           "WorldRuntime", "crash_then_resume_after", "http_crash", "judge", "pay_then_book",
           "pay_then_book_http", "pay_then_book_random_keys", "pay_then_email_at_least_once",
           "pay_then_email_at_most_once", "pay_then_follow_up", "window"]


def scripted_charge(workdir: Path, name: str, answers: list[BaseException],
                    retry: Any = None) -> tuple[Runtime, RunOutcome, list[str]]:
    """Lesson 04's retry demo: run a one-charge workflow whose keyed charge tool raises the
    scripted ``answers`` in turn (one per request), then succeeds.

    ``retry`` is the tool's :class:`minirt.retry.RetryPolicy` (None: no retry). Returns the
    runtime (a :class:`FakeClock` at :data:`EPOCH`, SQLite at ``workdir/<name>.sqlite``), the
    first outcome (run id ``name``) and the list of effect-key prefixes sent, one per request,
    which grows as the runtime resumes the run.
    """
    from minirt.tools import EffectClass, FunctionTool

    sent: list[str] = []

    def charge(amount_cents: int, call: Any) -> dict[str, Any]:
        sent.append(call.effect_key[:12])
        if len(sent) <= len(answers):
            raise answers[len(sent) - 1]
        return {"charged": amount_cents}

    rt = Runtime(SQLiteStore(Path(workdir) / f"{name}.sqlite"), clock=FakeClock(EPOCH),
                 tools=[FunctionTool(charge, name="charge", effect=EffectClass.KEYED, retry=retry)],
                 workflows={"pay": lambda ctx, _: ctx.call_tool("charge", {"amount_cents": 4200})})
    return rt, rt.run_workflow("pay", None, run_id=name), sent
