"""The capstone's crash scenario and its oracle, which reads only the providers' ledgers and the run.

:class:`CapstoneScenario` is a :class:`minirt.faults.Scenario`: a fresh shop under a work
directory, the support agent (the reference one, or a learner's: ``workflow`` and ``policies``),
the stand-in reviewer who approves whenever the run waits, and :func:`judge`. So
``minirt.faults.sweep(reference)`` crashes the agent at every boundary it passes (the tool windows
W1..W5 of every look-up, refund, booking and email, the decision, the approval request and wait,
the budget's reserve and settle) and judges each recovery. ``reference`` is importable as
``minirt_course.capstone.scenario:reference`` for the kill crash mode.

:func:`judge` says CLEAN only if, on disk:

- the run SUCCEEDED (else STUCK, or WRONG when it FAILED);
- payments: one refund per damaged order's charge, none for any other (DUPLICATE / LOST / WRONG);
- approvals: every refund above the business threshold was dispatched with a receipt spent on
  that refund's intent, signed by the gate, for a request whose effect is that refund (else WRONG);
- booking: one booking per lost order, no cancellation (DUPLICATE / LOST / WRONG);
- email: at most one to the customer; none only if the journal recorded it as "maybe-sent"
  (the at-most-once decision said so) (DUPLICATE / LOST);
- budget: the run's ledger balances and no dimension passed its limit
  (:func:`minirt.budget.audit`) (else WRONG).

Not judged: the reply's wording, and timing.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from minirt.approvals import K_REQUEST, K_USED, ApprovalRequest, Receipt
from minirt.clock import FakeClock
from minirt.faults import Faults, Outcome, SweepCell, Verdict, boundaries, crash_once
from minirt.idempotency import MAYBE_SENT
from minirt.run import RunState
from minirt.runtime import Runtime, Workflow
from minirt.world.ledger import Ledger

from .shop import (
    APPROVAL_THRESHOLD_CENTS,
    EPOCH,
    ORDERS,
    REFERENCE,
    TICKET,
    CapstoneRuntime,
    Options,
    Policies,
    build_runtime,
    read_orders,
    setup_world,
    start_ticket,
)


@dataclass(frozen=True)
class CapstoneScenario:
    """The support agent on a fresh shop, crashed and recovered (see the module docstring)."""

    name: str = "capstone"
    ref: str = "minirt_course.capstone.scenario:reference"
    workflow: Workflow | None = None
    policies: Policies = REFERENCE
    ticket: dict[str, Any] = field(default_factory=lambda: dict(TICKET))
    budget: dict[str, float] | None = None  # None: shop.DEFAULT_BUDGET
    run_id: str = "run-capstone"
    #: (provider, fault, op, times): provider faults armed in every runtime (adversarial cases)
    provider_faults: tuple[tuple[str, str, str | None, int], ...] = ()

    def setup(self, workdir: Path) -> None:
        setup_world(workdir)

    def options(self) -> Options:
        opts = Options(workflow=self.workflow, policies=self.policies)
        if self.budget is not None:
            opts.budget = dict(self.budget)
        return opts

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> CapstoneRuntime:
        rt = build_runtime(workdir, faults=faults, clock=FakeClock(EPOCH + clock_offset),
                           worker_id=worker_id, options=self.options())
        self.arm(rt, workdir)
        return rt

    def arm(self, rt: CapstoneRuntime, workdir: Path) -> None:
        """Arm the provider faults once per world (in the first runtime made for it). Idempotent."""
        marker = Path(workdir) / "armed"
        if marker.exists() or not self.provider_faults:
            return
        for provider, fault, op, times in self.provider_faults:
            rt.world[provider].inject(fault, times=times, op=op)
        marker.write_text("1")

    def start(self, rt: Runtime) -> str:
        assert isinstance(rt, CapstoneRuntime)
        return start_ticket(rt, self.ticket, run_id=self.run_id)

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        return judge(workdir, rt, run_id, self.ticket)


def expected_actions(orders: dict[str, dict[str, Any]], ticket: dict[str, Any]
                     ) -> tuple[set[str], set[str]]:
    """(charge ids to refund, items to replace) that the ticket calls for."""
    named = [orders[o] for o in ticket["orders"] if o in orders]
    return ({o["charge_id"] for o in named if o["status"] == "damaged"},
            {o["item"] for o in named if o["status"] == "lost"})


def judge(workdir: Path, rt: Runtime, run_id: str, ticket: dict[str, Any] | None = None
          ) -> Verdict:
    """The ledgers and the run against what the ticket calls for (see the module docstring)."""
    ticket = ticket or TICKET
    run = rt.store.get_run(run_id).run
    if run.state is not RunState.SUCCEEDED:
        kind = Outcome.WRONG if run.state is RunState.FAILED else Outcome.STUCK
        return Verdict(kind, f"run is {run.state.value}: {run.detail.get('error', '')}"[:300])
    wd = Path(workdir)
    ledgers = {n: Ledger(wd / f"{n}.sqlite") for n in ("payments", "booking", "email")}
    try:
        for check in (_refunds, _approvals, _bookings, _email, _budget):
            verdict = check(wd, rt, run_id, ticket, ledgers)
            if verdict is not None:
                return verdict
    finally:
        for ledger in ledgers.values():
            ledger.close()
    return Verdict(Outcome.CLEAN, "every effect once, approvals and budget kept")


Ledgers = dict[str, Ledger]


def _refunds(wd: Path, rt: Runtime, run_id: str, ticket: dict[str, Any], led: Ledgers
             ) -> Verdict | None:
    want, _ = expected_actions(read_orders(wd), ticket)
    got = [r["params"]["charge_id"] for r in led["payments"].effects("refund")]
    if len(got) != len(set(got)):
        return Verdict(Outcome.DUPLICATE, f"refunds per charge: {sorted(got)}")
    if want - set(got):
        return Verdict(Outcome.LOST, f"no refund for {sorted(want - set(got))}")
    if set(got) - want:
        return Verdict(Outcome.WRONG, f"refunded charges nobody asked for: "
                                      f"{sorted(set(got) - want)}")
    return None


def _journal_intents(rt: Runtime, run_id: str, tool: str) -> list[tuple[int, dict[str, Any]]]:
    return [(e.step, e.payload) for e in rt.store.read(run_id)
            if e.kind == "intent" and e.payload.get("tool") == tool]


def _approvals(wd: Path, rt: Runtime, run_id: str, ticket: dict[str, Any], led: Ledgers
               ) -> Verdict | None:
    assert isinstance(rt, CapstoneRuntime)
    items = rt.store.kv_items(run_id)
    marks = [json.loads(v) for k, v in items.items() if k.startswith(K_USED)]
    intents = {p["args"]["charge_id"]: p for _, p in _journal_intents(rt, run_id, "refund")}
    for r in led["payments"].effects("refund"):
        cents = int(r["params"]["amount_cents"])
        if cents <= APPROVAL_THRESHOLD_CENTS:
            continue
        intent = intents.get(r["params"]["charge_id"])
        spent = [m for m in marks if intent and m["effect_key"] == intent["effect_key"]]
        if len(spent) != 1:
            return Verdict(Outcome.WRONG, f"refund of {cents} cents dispatched with "
                                          f"{len(spent)} receipts spent on it")
        m = spent[0]
        decision = json.loads(items.get(f"signal:approval:{m['request_id']}", "{}"))
        req_raw = items.get(K_REQUEST + m["request_id"])
        if req_raw is None or decision.get("decision") != "granted":
            return Verdict(Outcome.WRONG, f"refund of {cents} cents without a granted request")
        request = ApprovalRequest.from_dict(json.loads(req_raw))
        receipt = Receipt.from_dict(decision["receipt"])
        approved = request.effect.get("args", {})
        if not (rt.gate.verify(receipt) and receipt.effect_digest == request.effect_digest
                and approved.get("charge_id") == r["params"]["charge_id"]
                and int(approved.get("amount_cents", -1)) == cents):
            return Verdict(Outcome.WRONG, f"refund of {cents} cents on "
                                          f"{r['params']['charge_id']} was not the approved effect")
    return None


def _bookings(wd: Path, rt: Runtime, run_id: str, ticket: dict[str, Any], led: Ledgers
              ) -> Verdict | None:
    _, want = expected_actions(read_orders(wd), ticket)
    got = [b["params"]["item"] for b in led["booking"].effects("booking")]
    if len(got) != len(set(got)):
        return Verdict(Outcome.DUPLICATE, f"bookings: {sorted(got)}")
    if want - set(got):
        return Verdict(Outcome.LOST, f"no replacement booked for {sorted(want - set(got))}")
    if set(got) - want or led["booking"].effects("cancellation"):
        return Verdict(Outcome.WRONG, "a booking nobody asked for, or a cancelled one")
    return None


def _email(wd: Path, rt: Runtime, run_id: str, ticket: dict[str, Any], led: Ledgers
           ) -> Verdict | None:
    sent = [e for e in led["email"].effects("email") if e["params"]["to"] == ticket["email"]]
    if len(sent) > 1:
        return Verdict(Outcome.DUPLICATE, f"{len(sent)} emails to the customer")
    if sent:
        return None
    steps = {s for s, _ in _journal_intents(rt, run_id, "send_email")}
    for e in rt.store.read(run_id):
        if e.kind == "tool_result" and e.step in steps and \
                e.payload.get("value", {}).get("delivery") == MAYBE_SENT:
            return None
    return Verdict(Outcome.LOST, "no email reached the customer and the run did not say so")


def _budget(wd: Path, rt: Runtime, run_id: str, ticket: dict[str, Any], led: Ledgers
            ) -> Verdict | None:
    try:
        from minirt.budget import Accounts, audit
    except ImportError:
        return None
    if Accounts(rt.store).account(run_id) is None:
        return None
    problems = audit(Accounts(rt.store), run_id)
    if problems:
        return Verdict(Outcome.WRONG, f"budget: {problems[0][0]}: {problems[0][1]}")
    return None


reference = CapstoneScenario()


def scratch_dir() -> tempfile.TemporaryDirectory[str]:
    """A work directory in memory (``/dev/shm``) when there is one: simulated crashes do not
    kill the process, so the disk's fsync proves nothing there and costs most of the time."""
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        return tempfile.TemporaryDirectory(prefix="capstone-", dir=shm)
    return tempfile.TemporaryDirectory(prefix="capstone-")


@dataclass(frozen=True)
class SweepReport:
    """A sweep's cells and how long it took."""

    cells: list[SweepCell]
    seconds: float

    @property
    def failures(self) -> list[SweepCell]:
        return [c for c in self.cells if not c.verdict.ok]

    def matrix(self) -> dict[str, dict[str, int]]:
        """point -> outcome -> count."""
        out: dict[str, dict[str, int]] = {}
        for c in self.cells:
            row = out.setdefault(c.point, {})
            row[c.verdict.outcome.value] = row.get(c.verdict.outcome.value, 0) + 1
        return out


def run_sweep(sc: CapstoneScenario, *, points: Iterable[tuple[str, int]] | None = None,
              mode: str = "simulate", progress: Callable[[Iterable[Any]], Iterable[Any]]
              | None = None) -> SweepReport:
    """Crash ``sc`` once at every boundary (or at ``points``), recover, judge; in-memory work
    directories for the simulated mode. ``progress`` wraps the job list (e.g. ``tqdm.auto.tqdm``)."""
    started = time.perf_counter()
    with scratch_dir() as tmp:
        todo = list(points) if points is not None else boundaries(sc, Path(tmp) / "probe")
    jobs: Iterable[tuple[str, int]] = progress(todo) if progress else todo
    cells = []
    for point, n in jobs:
        with scratch_dir() as tmp:
            verdict = crash_once(sc, point, occurrence=n, mode=mode, workdir=Path(tmp))
        cells.append(SweepCell(sc.name, point, n, mode, verdict, ref=sc.ref))
    return SweepReport(cells, time.perf_counter() - started)


def variant(**changes: Any) -> CapstoneScenario:
    """The reference scenario with some fields changed (``dataclasses.replace``)."""
    return replace(reference, **changes)


__all__ = ["ORDERS", "CapstoneScenario", "SweepReport", "judge", "reference", "run_sweep",
           "variant"]
