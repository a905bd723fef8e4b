"""Module 05b: module 04's payment run, rebuilt from a design (one runtime variant per choice).

A :class:`Design` is three choices: when the run is checkpointed (:class:`Checkpoint`), how a
logical call is named to the provider (:class:`Idempotency`), and what a resumed run does with a
call whose outcome it does not know (:class:`Resume`). :class:`DesignScenario` builds the real
minirt runtime, the real providers and the real agent of :mod:`minirt_course.scenarios.m04_payment`
from those choices, and :func:`run_cell` crashes it in one window, recovers, and judges the
providers' ledgers. Nothing is simulated except the crash itself (simulate mode).

What each choice changes (and nothing else):

- ``Checkpoint``: the context class. ``intent-and-result`` is minirt's own journal;
  ``result-only`` writes one event per call after it returns (:class:`ResultOnlyPolicy`);
  ``periodic-snapshot`` buffers the journal and writes it every ``SNAPSHOT_EVERY`` positions
  (:class:`SnapshotPolicy`); ``none`` writes no journal at all (:class:`NoCheckpointPolicy`).
- ``Idempotency``: the key function and the charge/booking tools: a key derived from run + step +
  payload digest (minirt's :func:`~minirt.idempotency.effect_key`), a random key made once per
  operation (journaled with the intent, if there is one), a fresh random key on every attempt,
  a client reference the provider stores and can be searched by but does NOT deduplicate on
  (:class:`ReferencePayments`), or no key at all.
- ``Resume``: the reconcile policy: look up, then resend within retention
  (:class:`~minirt.idempotency.ReconcileByLookup`); resend blindly; resend with the same key
  within the provider's retention and escalate past it, asking nothing
  (:func:`resend_within_retention`: minirt's ``ReconcileByLookup(ask_lookup=False)``, its
  margin and its :class:`~minirt.idempotency.EffectKeyMayBePruned`); fail the run and refund
  what has a receipt (:func:`give_up` and :func:`pay_then_book_or_refund`); or escalate.

The model is :class:`DriftingModel`: asked again, it answers differently (as a sampled LLM
does). A design whose checkpoint keeps the model's decision never asks twice; one that loses it
charges a different amount, under a different derived key.

Invariant: the same design, point, occurrence and recovery delay give the same verdict (fake
clock, fresh temporary directory per cell). Not covered: the kill crash mode (these scenarios
are built per design and are not importable by name), providers over HTTP, concurrent workers.
"""

from __future__ import annotations

import os
import tempfile
import uuid
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from minirt.clock import FakeClock
from minirt.dispatch import DispatchPolicy
from minirt.errors import MinirtError
from minirt.faults import WINDOWS, Faults, Outcome, Verdict, crash_once
from minirt.idempotency import (
    EffectLedger,
    KeyFunction,
    ReconcileByLookup,
    effect_key,
)
from minirt.journal import OUTCOME_KINDS
from minirt.run import RunState
from minirt.runtime import Context, ReconcilePolicy, Resolution, RunOutcome
from minirt.store.base import Event, NewEvent
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, Lookup, ToolCall
from minirt.world.booking import BookingProvider
from minirt.world.ledger import Ledger
from minirt.world.payments import PaymentProvider
from minirt.world.tools import (
    BookArgs,
    ChargeArgs,
    ProviderTool,
    book_tool,
    charge_tool,
    refund_tool,
)

from . import EPOCH
from .m04_payment import INPUT, PLAN, POINTS, PaymentScenario, WorldRuntime, judge
from .m04_payment import crash_then_resume_after as _crash_then_resume_after
from .m04_payment import pay_then_follow_up as _pay_then_book

#: A snapshot is written before every SNAPSHOT_EVERY-th step position (decide=0, charge=1, book=2).
SNAPSHOT_EVERY = 2
#: The late recovery comes back after the payment provider's 24 h key retention.
LATE_FOR = 25 * 3600.0
RECOVERIES = ("at once", "after 25 h")
#: Cells run in a RAM-backed directory when there is one: a simulated crash never loses the page
#: cache, so SQLite's fsyncs would only cost time here (the kill mode of module 04 proves them).
FAST_TMP = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


class Checkpoint(StrEnum):
    INTENT_AND_RESULT = "intent-and-result"  # intent journaled before dispatch, result after
    RESULT_ONLY = "result-only"  # one write after the call returns
    SNAPSHOT = "periodic-snapshot"  # the journal is written every SNAPSHOT_EVERY positions
    NONE = "none"  # nothing is journaled


class Idempotency(StrEnum):
    DERIVED_KEY = "derived-key"  # key from run + step + payload digest, the same every attempt
    STORED_KEY = "stored-key"  # a random key made once per operation, kept by the checkpoint
    RANDOM_PER_ATTEMPT = "random-per-attempt"  # a fresh random key on every attempt
    CLIENT_REFERENCE = "client-reference"  # a reference the provider can be searched by
    NONE = "none"  # no key: every request is a new effect


class Resume(StrEnum):
    REPLAY_AND_LOOKUP = "replay-and-lookup"  # replay; look unresolved intents up, then resend
    BLIND_RETRY = "blind-retry"  # replay; resend unresolved calls without asking
    RETRY_WITHIN_RETENTION = "retry-within-retention"  # same-key resend within retention, else escalate
    FAIL_AND_COMPENSATE = "fail-and-compensate"  # fail the run, refund what has a receipt
    ESCALATE = "escalate"  # leave the run UNCERTAIN for an operator


@dataclass(frozen=True)
class Design:
    """One design: the three choices the runtime is built from. Hashable (results are cached)."""

    checkpoint: Checkpoint
    idempotency: Idempotency
    resume: Resume


class DesignGaveUp(MinirtError):
    """The ``fail-and-compensate`` design found a call with no recorded outcome and gives up.

    Raised by :func:`give_up` (a reconcile policy); the workflow refunds what has a receipt and
    the run FAILS. Not :class:`~minirt.journal.UnresolvedIntent` (that one leaves the run
    UNCERTAIN for an operator).
    """

    fields = ("run_id", "step", "tool", "effect_key")
    template = ("run {run_id} step {step}: {tool} ({effect_key}) has no recorded outcome; by "
                "design the run fails and refunds what has a receipt")


class UnknownCrashCell(MinirtError):
    """:func:`run_cell` was asked for a crash point, occurrence or recovery the sweep does not
    have. Raised before anything runs; not :class:`~minirt.faults.ScenarioNotImportable` (that
    one is about loading a scenario by name)."""

    fields = ("point", "occurrence", "recovery", "known")
    template = ("no crash cell ({point!r}, occurrence {occurrence}, recovery {recovery!r}); "
                "known: {known}")


# -- checkpoints: the journal policy ------------------------------------------------------------

@dataclass
class _Held:
    """A policy's per-run buffer: events (and kv) not written yet."""

    events: list[NewEvent] = field(default_factory=list)
    kv: dict[str, str | None] = field(default_factory=dict)


class ResultOnlyPolicy(DispatchPolicy):
    """``result-only``: a call's intent is held in memory and written together with its
    outcome, in one transaction after the call returns. A crash before that leaves no trace."""

    def append(self, ctx: Context, events: tuple[NewEvent, ...],
               kv: dict[str, str | None] | None) -> list[Event]:
        held = ctx.state_for(self, _Held)  # Invariant: events of the call in flight, unwritten
        batch = [*held.events, *events]
        opened = any(e.kind == "intent" for e in batch)
        if opened and not any(e.kind in OUTCOME_KINDS for e in batch):
            held.events, held.kv = batch, {**held.kv, **(kv or {})}
            return []
        staged = {**held.kv, **(kv or {})}
        held.events, held.kv = [], {}
        return ctx.write_journal(batch, staged or None)


class SnapshotPolicy(DispatchPolicy):
    """``periodic-snapshot``: journal events are buffered and written before every
    ``SNAPSHOT_EVERY``-th position; a crash loses everything since the last snapshot (the
    model's decision included). The run's final state is in the run record, not the journal."""

    def append(self, ctx: Context, events: tuple[NewEvent, ...],
               kv: dict[str, str | None] | None) -> list[Event]:
        held = ctx.state_for(self, _Held)  # Invariant: written at the next snapshot, or lost
        held.events.extend(events)
        held.kv.update(kv or {})
        return []

    def before_position(self, ctx: Context, step: int) -> None:
        held = ctx.state_for(self, _Held)
        if step and step % SNAPSHOT_EVERY == 0 and held.events:
            batch, kv = held.events, held.kv
            held.events, held.kv = [], {}
            ctx.write_journal(batch, kv or None)


class NoCheckpointPolicy(DispatchPolicy):
    """``none``: nothing is journaled; a resumed run starts from the top and asks again."""

    def append(self, ctx: Context, events: tuple[NewEvent, ...],
               kv: dict[str, str | None] | None) -> list[Event]:
        return []


POLICIES_BY_CHECKPOINT: dict[Checkpoint, DispatchPolicy] = {
    Checkpoint.INTENT_AND_RESULT: DispatchPolicy(), Checkpoint.RESULT_ONLY: ResultOnlyPolicy(),
    Checkpoint.SNAPSHOT: SnapshotPolicy(), Checkpoint.NONE: NoCheckpointPolicy()}


class DriftingModel:
    """The agent's model: its n-th real answer (counted in a file, the model's side) adds
    ``(n - 1) * 50`` cents to the plan's amount. A run that journals the decision asks once."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def complete(self, prompt: Any, *, index: int) -> Any:
        n = int(self.path.read_text()) + 1 if self.path.exists() else 1
        self.path.write_text(str(n))
        return {**PLAN, "amount_cents": PLAN["amount_cents"] + 50 * (n - 1)}


# -- idempotency: key functions, a provider with references, tools ------------------------------

class ReferencePayments(PaymentProvider):
    """The payment provider, plus charges that carry a client reference.

    :meth:`charge_with_reference` stores the reference with the charge (in the ledger's
    ``effect_key`` column) and :meth:`find_by_reference` searches for it, forever; but a second
    request with the same reference is a second charge: a reference is not an idempotency key.
    """

    def charge_with_reference(self, reference: str, amount_cents: int, currency: str,
                              customer: str) -> dict[str, Any]:
        params = {"amount_cents": amount_cents, "currency": currency, "customer": customer}

        def commit() -> dict[str, Any]:
            with self.ledger.transaction() as db:
                return self._charge_txn(db, reference, params, self.clock.now())

        return self._serve("charge", reference, commit)

    def find_by_reference(self, reference: str) -> dict[str, Any] | None:
        """The first charge made under ``reference``, as its receipt, or None. Read-only."""
        def read() -> dict[str, Any] | None:
            for row in self.ledger.effects("charge"):
                if row["effect_key"] == reference:
                    p = row["params"]
                    return {"charge_id": row["effect_id"], "amount": p["amount_cents"],
                            "currency": p["currency"], "customer": p["customer"],
                            "status": row["status"], "created_at": row["created_at"]}
            return None

        return self._serve("lookup", reference, read)


def _tool(name: str, model: Any, effect: EffectClass, send: Any, lookup: Any = None,
          retention_for: float | None = None) -> ProviderTool:
    tool: ProviderTool

    def handler(args: Any, inv: Any) -> Any:
        key, fn = send(args, inv.call)
        return tool.send(inv.call, key, fn)

    tool = ProviderTool(name, input_model=model, handler=handler, effect=effect, lookup=lookup,
                        retention_for=retention_for)
    return tool


def _fresh(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex}"


def charge_tool_for(idem: Idempotency, pay: ReferencePayments) -> ProviderTool:
    """The charge tool of one idempotency choice (see the module docstring)."""
    if idem in (Idempotency.DERIVED_KEY, Idempotency.STORED_KEY):
        return charge_tool(pay)
    if idem is Idempotency.RANDOM_PER_ATTEMPT:
        return charge_tool(pay, per_attempt_random_keys=True)
    if idem is Idempotency.CLIENT_REFERENCE:
        def find(call: ToolCall) -> Lookup:
            found = pay.find_by_reference(call.effect_key)
            return Lookup(found is not None, found)

        return _tool("charge", ChargeArgs, EffectClass.IRREVERSIBLE, lambda a, call: (
            call.effect_key, lambda: pay.charge_with_reference(
                call.effect_key, a.amount_cents, a.currency, a.customer)), lookup=find)
    return _tool("charge", ChargeArgs, EffectClass.IRREVERSIBLE, lambda a, call: (
        None, lambda: pay.charge(None, a.amount_cents, a.currency, a.customer)))


def book_tool_for(idem: Idempotency, booking: BookingProvider) -> ProviderTool:
    """The booking tool: its reference follows the idempotency choice (the provider needs one)."""
    if idem not in (Idempotency.RANDOM_PER_ATTEMPT, Idempotency.NONE):
        return book_tool(booking)

    def send(a: Any, call: ToolCall) -> Any:
        ref = _fresh("rk")
        return ref, lambda: booking.book(ref, a.item, a.customer)

    if idem is Idempotency.RANDOM_PER_ATTEMPT:  # looks up the logical key it never sent
        def find(call: ToolCall) -> Lookup:
            found = booking.lookup(call.effect_key)
            return Lookup(found is not None, found)

        return _tool("book", BookArgs, EffectClass.KEYED, send, lookup=find)
    return _tool("book", BookArgs, EffectClass.IRREVERSIBLE, send)


def key_for(idem: Idempotency) -> KeyFunction:
    """How the runtime names a logical call: derived, or random once per fresh execution."""
    if idem is Idempotency.STORED_KEY:
        return lambda run_id, step, tool, args: _fresh("sk")
    return effect_key


# -- resume: reconcile policies and the compensating workflow ----------------------------------

def resend_blindly(ctx: Context, tool: Any, call: ToolCall) -> Resolution:
    """``blind-retry``: send the unfinished call again (same key, if it has one), unasked."""
    return Resolution("redispatch", reason="blind retry of an unfinished call")


#: minirt's reconcile policy without its lookup: a keyed call resent with its key within the
#: provider's retention (less minirt's safety margin), EffectKeyMayBePruned past it.
_BY_RETENTION = ReconcileByLookup(ask_lookup=False)


def resend_within_retention(ctx: Context, tool: Any, call: ToolCall) -> Resolution:
    """``retry-within-retention``: resend the unfinished call with its key while the intent is
    younger than the provider's key retention (the provider answers a retry with the original
    effect); past it, never resend: the run waits UNCERTAIN for an operator. A keyed call is
    decided by minirt's :class:`~minirt.idempotency.ReconcileByLookup` with ``ask_lookup=False``
    (its retention rule, margin and :class:`~minirt.idempotency.EffectKeyMayBePruned`), so the
    two cannot drift. Nothing is looked up, so a call made without a key (a tool that is not
    keyed) is resent as a new effect."""
    if tool.effect is not EffectClass.KEYED:
        return Resolution("redispatch", reason="no key to trust: resent as a new effect")
    return _BY_RETENTION(ctx, tool, call)


def escalate(ctx: Context, tool: Any, call: ToolCall) -> Resolution:
    """``escalate``: never settle automatically; the run waits UNCERTAIN for an operator."""
    return Resolution("unknown", reason="escalated to an operator by design")


def give_up(ctx: Context, tool: Any, call: ToolCall) -> Resolution:
    """``fail-and-compensate``: raise :class:`DesignGaveUp` (the workflow compensates)."""
    raise DesignGaveUp(run_id=ctx.run_id, step=call.step, tool=call.tool,
                       effect_key=call.effect_key)


POLICIES: dict[Resume, ReconcilePolicy] = {
    Resume.REPLAY_AND_LOOKUP: ReconcileByLookup(), Resume.BLIND_RETRY: resend_blindly,
    Resume.RETRY_WITHIN_RETENTION: resend_within_retention,
    Resume.FAIL_AND_COMPENSATE: give_up, Resume.ESCALATE: escalate}


def pay_then_book_or_refund(ctx: Any, inp: dict[str, Any]) -> dict[str, Any]:
    """Module 04's agent, plus: when the booking's outcome is given up, refund the charge (it
    has a receipt) and fail. A charge given up has no receipt, so nothing can refund it."""
    plan = ctx.decide({"task": "charge the order, then follow up", "order": inp["order"]})
    receipt = ctx.call_tool("charge", amount_cents=plan["amount_cents"],
                            currency=plan["currency"], customer=inp["customer"])
    try:
        booking = ctx.call_tool("book", item=plan["item"], customer=inp["customer"])
    except DesignGaveUp:
        ctx.call_tool("refund", charge_id=receipt["charge_id"])
        raise
    return {"charge_id": receipt["charge_id"], "amount": receipt["amount"],
            "booking_id": booking["booking_id"]}


# -- the scenario -------------------------------------------------------------------------------

@dataclass(frozen=True)
class DesignScenario(PaymentScenario):
    """Module 04's pay-then-book run, built from ``design`` (a :class:`minirt.faults.Scenario`).

    The design decides the context class, tools, key function and reconcile policy; the fields
    inherited from :class:`PaymentScenario` for those (``reconcile``, ``key_for``,
    ``per_attempt_random_keys``, ``follow_up``) are not used.
    """

    name: str = "design-payment"
    ref: str = ""
    design: Design = Design(Checkpoint.INTENT_AND_RESULT, Idempotency.DERIVED_KEY,
                            Resume.REPLAY_AND_LOOKUP)

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> WorldRuntime:
        wd, d = Path(workdir), self.design
        clock = FakeClock(EPOCH + clock_offset)
        pay = ReferencePayments(wd / "payments.sqlite", clock, retention_for=self.retention_for)
        booking = BookingProvider(wd / "book.sqlite", clock)
        workflow = (pay_then_book_or_refund if d.resume is Resume.FAIL_AND_COMPENSATE
                    else _pay_then_book)
        rt = WorldRuntime(SQLiteStore(wd / "runs.sqlite"),
                          tools=[charge_tool_for(d.idempotency, pay),
                                 book_tool_for(d.idempotency, booking), refund_tool(pay)],
                          workflows={"pay_then_follow_up": workflow},
                          model=DriftingModel(wd / "model-asks.txt"), clock=clock, faults=faults,
                          worker_id=worker_id, reconcile=POLICIES[d.resume],
                          key_for=key_for(d.idempotency))
        rt.policy = POLICIES_BY_CHECKPOINT[d.checkpoint]
        rt.world = (pay, booking)
        return rt

    def oracle(self, workdir: Path, rt: Any, run_id: str) -> Verdict:
        wd = Path(workdir)
        payments, booking = Ledger(wd / "payments.sqlite"), Ledger(wd / "book.sqlite")
        try:
            return judge_design(payments, booking, rt.outcome(run_id),
                                rt.store.get_run(run_id).run.detail)
        finally:
            payments.close()
            booking.close()


def judge_design(payments: EffectLedger, booking: EffectLedger, outcome: RunOutcome,
                 detail: dict[str, Any]) -> Verdict:
    """Module 04's oracle, plus what a failed run left behind: an unrefunded charge or a
    standing booking is a WRONG result; a clean refund still LOST the order."""
    base = judge(payments, booking, "book", outcome, detail)
    if outcome.state is not RunState.FAILED or base.outcome is Outcome.DUPLICATE:
        return base
    charges = [c for c in payments.effects("charge") if c["status"] != "refunded"]
    bookings = booking.effects("booking")
    if charges:
        return Verdict(Outcome.WRONG, f"the run failed but charge {charges[0]['effect_id']} "
                                      "stands: nothing refunds a charge without a receipt")
    if bookings:
        return Verdict(Outcome.WRONG, f"the run failed but booking {bookings[0]['effect_id']} "
                                      "stands")
    refunded = len(payments.effects("refund"))
    return Verdict(Outcome.LOST, f"the run failed and gave the order up ({refunded} refund(s)): "
                                 "order A-42 is neither paid nor booked")


# -- one cell of the sweep matrix ---------------------------------------------------------------

def window_label(point: str, occurrence: int) -> str:
    """``"W3 charge"`` for ``("after_provider_commit", 1)``, ``"W3 booking"`` for occurrence 2."""
    return f"{WINDOWS[point]} {'charge' if occurrence == 1 else 'booking'}"


@dataclass(frozen=True)
class DesignCell:
    """What one crash did to one design: the oracle's outcome and the ledgers after recovery."""

    point: str
    occurrence: int
    recovery: str  # "at once" (within retention) or "after 25 h" (past it)
    outcome: str  # an Outcome value, or "escalated": uncertain past retention, <= 1 charge
    detail: str
    charges: tuple[str, ...]  # the payment ledger after recovery, one line per charge/refund
    bookings: tuple[str, ...]

    @property
    def window(self) -> str:
        """``"W3 charge"`` / ``"W3 booking"``."""
        return window_label(self.point, self.occurrence)

    @property
    def ok(self) -> bool:
        return self.outcome in ("clean", "escalated")

    def verdict(self) -> Verdict:
        kind = Outcome.STUCK if self.outcome == "escalated" else Outcome(self.outcome)
        return Verdict(kind, self.detail)


def _ledger_lines(path: Path, kinds: tuple[str, ...]) -> tuple[str, ...]:
    ledger = Ledger(path)
    try:
        rows = [r for r in ledger.effects() if r["kind"] in kinds]
    finally:
        ledger.close()
    out = []
    for r in rows:
        p, key = r["params"], str(r["effect_key"] or "no key")
        what = (f"{p['amount_cents'] / 100:.2f} {p['currency'].upper()}" if "amount_cents" in p
                and "currency" in p else p.get("charge_id") or p.get("item", ""))
        out.append(f"{r['effect_id']} {r['kind']} {what} key {key[:15]} {r['status']}")
    return tuple(out)


def run_cell(design: Design, point: str, occurrence: int, recovery: str = "at once"
             ) -> DesignCell:
    """Crash the design's run at ``point`` (its ``occurrence``-th hit), recover at once (fresh
    runtimes, within retention) or 25 h later (one resume, past retention), judge, read ledgers."""
    if (point, occurrence) not in POINTS or recovery not in RECOVERIES:
        raise UnknownCrashCell(point=point, occurrence=occurrence, recovery=recovery,
                               known=f"{[p for p, _ in POINTS[:5]]} x occurrence 1, 2 x "
                                     f"{list(RECOVERIES)}")
    sc = replace(DesignScenario(), design=design)
    with tempfile.TemporaryDirectory(prefix="design-", dir=FAST_TMP) as tmp:
        wd = Path(tmp)
        if recovery == RECOVERIES[1]:
            verdict, outcome = _crash_then_resume_after(sc, point, LATE_FOR,
                                                        occurrence=occurrence, workdir=wd)
        else:
            verdict, outcome = crash_once(sc, point, occurrence=occurrence, workdir=wd), None
        charges = _ledger_lines(wd / "payments.sqlite", ("charge", "refund"))
        bookings = _ledger_lines(wd / "book.sqlite", ("booking",))
    kind = verdict.outcome.value
    if (outcome is not None and verdict.outcome is Outcome.STUCK
            and sum(" charge " in c for c in charges) <= 1):
        kind = "escalated"
    return DesignCell(point, occurrence, recovery, kind, verdict.detail, charges, bookings)


def sweep_design(design: Design) -> tuple[DesignCell, ...]:
    """Every window W1..W5 of the charge and of the booking, recovered at once and after 25 h."""
    return tuple(run_cell(design, p, n, r) for r in RECOVERIES for p, n in POINTS)


__all__ = ["INPUT", "LATE_FOR", "POLICIES", "POLICIES_BY_CHECKPOINT", "RECOVERIES",
           "SNAPSHOT_EVERY", "Checkpoint", "Design", "DesignCell", "DesignGaveUp",
           "DesignScenario", "DriftingModel", "Idempotency", "NoCheckpointPolicy",
           "ReferencePayments", "ResultOnlyPolicy", "Resume", "SnapshotPolicy",
           "UnknownCrashCell", "book_tool_for", "charge_tool_for", "escalate", "give_up",
           "judge_design", "key_for", "pay_then_book_or_refund", "resend_blindly",
           "resend_within_retention", "run_cell",
           "sweep_design", "window_label"]
