"""Module 09's crash drill: a quote-and-pay agent under a budget, judged by its ledger and the world.

The run (:func:`quote_and_pay`): the model plans (a decision that reports its token usage); the
agent starts a child run ``quote`` (its own token limit, drawn from the parent's budget) that
asks the model for a price; then it charges the card (a payment provider whose first charge
request in every process answers 503, so one resend is normal) and books the room. A
:class:`~minirt.budget.BudgetHook` reserves before each decision, tool attempt and child, and
settles after.

The oracle says CLEAN only if all of these hold, on disk:

- exactly one charge and one booking in the providers' ledgers (else DUPLICATE / LOST);
- every reservation of the run and its child was reserved once and closed once (else
  DUPLICATE: counted twice), and the ledger charges exactly what the journals record: tokens =
  the usage of every journaled decision, tool attempts = intents + resends, retries = resends,
  child runs = 1 (more: DUPLICATE; less: LOST, usage that escaped the budget);
- the run succeeded (else STUCK or WRONG) with the ledger's receipts;
- the ledger balances: nothing held, held + used within every limit (else WRONG).

Compute seconds are checked against the limit only: a crash forfeits a call's reserved time.

Variants (``minirt_course.scenarios.m09_budget:<name>``): ``reference`` and
``tight_retries`` (a retry budget of 1: a crash that needs a second resend leaves the run
UNCERTAIN, on purpose).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from minirt.budget import (
    Accounts,
    BudgetHook,
    Dimension,
    ReserveFn,
    SettleFn,
    audit,
    reserve,
    run_child,
    settle,
    start_child,
    tree,
    usage_of,
)
from minirt.clock import FakeClock
from minirt.faults import Faults, Outcome, Verdict
from minirt.idempotency import reconcile_by_lookup
from minirt.run import RunState
from minirt.runtime import Runtime, ScriptedModel
from minirt.store.base import Store
from minirt.store.sqlite import SQLiteStore
from minirt.world.booking import BookingProvider
from minirt.world.ledger import Ledger
from minirt.world.payments import PaymentProvider
from minirt.world.tools import book_tool, charge_tool

from . import EPOCH

ORDER = {"order": "Q-9", "customer": "cus_ada"}
PLAN = {"item": "room 9, one night", "usage": {"input_tokens": 220, "output_tokens": 60}}
QUOTE = {"amount_cents": 12900, "usage": {"input_tokens": 90, "output_tokens": 30}}
LIMITS = {"tokens": 1000, "tool_attempts": 8, "retries": 4, "compute_seconds": 600,
          "child_runs": 1}
CHILD_LIMITS = {"tokens": 400}
TOKENS_PER_DECISION = 300  # the bound each decision reserves (the model's max_tokens)
COUNTED = (Dimension.TOKENS, Dimension.TOOL_ATTEMPTS, Dimension.RETRIES, Dimension.CHILD_RUNS)


def quote(ctx: Any, inp: dict[str, Any]) -> dict[str, Any]:
    """The child run: ask the model for a price."""
    answer = ctx.decide({"task": "quote", "item": inp["item"]}, name="quote")
    return {"amount_cents": answer["amount_cents"]}


def quote_and_pay(ctx: Any, order: dict[str, Any]) -> dict[str, Any]:
    """Plan, get a quote from a child run, charge it, book."""
    plan = ctx.decide({"task": "quote and pay", "order": order["order"]}, name="plan")
    child = start_child(ctx, "quote", {"item": plan["item"]}, name="quote", limits=CHILD_LIMITS)
    price = run_child(ctx, child)
    receipt = ctx.call_tool("charge", amount_cents=price["amount_cents"], currency="eur",
                            customer=order["customer"])
    booking = ctx.call_tool("book", item=plan["item"], customer=order["customer"])
    return {"charge_id": receipt["charge_id"], "booking_id": booking["booking_id"],
            "amount_cents": price["amount_cents"]}


def model_output(prompt: Any, index: int) -> dict[str, Any]:
    return dict(QUOTE if prompt.get("task") == "quote" else PLAN)


class BudgetRuntime(Runtime):
    """A runtime that also closes its providers."""

    world: tuple[Any, ...] = ()

    def close(self) -> None:
        for provider in self.world:
            provider.close()
        super().close()


@dataclass(frozen=True)
class BudgetScenario:
    """See the module docstring. ``reserve``/``settle`` are pluggable (the drill's grading)."""

    name: str = "m09-quote-and-pay"
    ref: str = "minirt_course.scenarios.m09_budget:reference"
    limits: Mapping[str, float] = field(default_factory=lambda: dict(LIMITS))
    reserve: ReserveFn = reserve
    settle: SettleFn = settle
    run_id: str = "run-m09"

    def setup(self, workdir: Path) -> None:
        Path(workdir).mkdir(parents=True, exist_ok=True)

    def hook(self) -> BudgetHook:
        return BudgetHook(self.limits, tokens_per_decision=TOKENS_PER_DECISION,
                          reserve=self.reserve, settle=self.settle)

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> BudgetRuntime:
        wd = Path(workdir)
        clock = FakeClock(EPOCH + clock_offset)
        pay = PaymentProvider(wd / "payments.sqlite", clock)
        pay.inject("error_5xx", times=1, op="charge")  # every process: the first charge gets 503
        book = BookingProvider(wd / "booking.sqlite", clock)
        rt = BudgetRuntime(SQLiteStore(wd / "runs.sqlite"),
                           tools=[charge_tool(pay), book_tool(book)],
                           workflows={"quote_and_pay": quote_and_pay, "quote": quote},
                           model=ScriptedModel(model_output), clock=clock, faults=faults,
                           worker_id=worker_id, reconcile=reconcile_by_lookup,
                           hooks=[self.hook()])
        rt.world = (pay, book)
        return rt

    def start(self, rt: Runtime) -> str:
        return rt.start("quote_and_pay", ORDER, run_id=self.run_id)

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        wd = Path(workdir)
        pay, book = Ledger(wd / "payments.sqlite"), Ledger(wd / "booking.sqlite")
        try:
            return judge(rt.store, run_id, pay.effects("charge"), book.effects("booking"),
                         rt.outcome(run_id).state, rt.outcome(run_id).value)
        finally:
            pay.close()
            book.close()


def journal_use(store: Store, run_id: str) -> dict[str, float]:
    """What the journals of the run and its children say was used, per counted dimension."""
    use: dict[str, float] = {d.value: 0 for d in COUNTED}
    runs = tree(Accounts(store), run_id)
    use[Dimension.CHILD_RUNS] = len(runs) - 1
    for rid in runs:
        for e in store.read(rid):
            if e.kind == "decision":
                use[Dimension.TOKENS] += usage_of(e.payload["output"], TOKENS_PER_DECISION)
            elif e.kind == "intent":
                use[Dimension.TOOL_ATTEMPTS] += 1
            elif e.kind == "attempt":
                use[Dimension.TOOL_ATTEMPTS] += 1
                use[Dimension.RETRIES] += 1
    return use


def judge(store: Store, run_id: str, charges: list[dict[str, Any]],
          bookings: list[dict[str, Any]], state: RunState, result: Any) -> Verdict:
    """The oracle (see the module docstring), from the store and the providers' effects."""
    if len(charges) > 1 or len(bookings) > 1:
        return Verdict(Outcome.DUPLICATE, f"{len(charges)} charges, {len(bookings)} bookings")
    accounts = Accounts(store)
    problems = audit(accounts, run_id)
    doubles = [m for kind, m in problems if kind == "double"]
    if doubles:
        return Verdict(Outcome.DUPLICATE, f"ledger: {doubles[0]}")
    if state not in (RunState.SUCCEEDED, RunState.FAILED, RunState.CANCELLED):
        return Verdict(Outcome.STUCK, f"run is {state.value}")
    account = accounts.account(run_id)
    if account is None:
        return Verdict(Outcome.LOST, "the run has no budget account")
    expected = journal_use(store, run_id)
    for dim in COUNTED:
        got, want = account.used.get(dim, 0), expected[dim]
        if got != want:
            kind = Outcome.DUPLICATE if got > want else Outcome.LOST
            return Verdict(kind, f"ledger charged {got:g} {dim}, the journals record {want:g}")
    if problems:
        return Verdict(Outcome.WRONG, f"ledger: {problems[0][1]}")
    if not charges or not bookings:
        return Verdict(Outcome.LOST, f"{len(charges)} charges, {len(bookings)} bookings")
    if state is not RunState.SUCCEEDED:
        return Verdict(Outcome.WRONG, f"run {state.value}")
    if (result or {}).get("charge_id") != charges[0]["effect_id"] or \
            result.get("booking_id") != bookings[0]["effect_id"]:
        return Verdict(Outcome.WRONG, f"result {result} does not match the ledgers")
    spent = ", ".join(f"{d} {account.used.get(d, 0):g}/{account.limits[d]:g}"
                      for d in sorted(account.limits))
    return Verdict(Outcome.CLEAN, f"balanced: {spent}")


reference = BudgetScenario()
tight_retries = replace(reference, name="m09-tight-retries",
                        ref="minirt_course.scenarios.m09_budget:tight_retries",
                        limits={**LIMITS, "retries": 1})
