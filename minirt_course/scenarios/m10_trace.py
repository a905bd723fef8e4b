"""Module 10's crash drill: a pay-then-book run, traced, judged by the effect-count oracle.

The run (:func:`order_agent`): the model plans, the agent charges the card (a payment provider
with Stripe's idempotency keys plus a lookup by key, which Stripe itself does not offer) and
books (a booking provider, deduplicated by client reference). A
:class:`~minirt.trace.TraceHook` writes every span to ``workdir/spans.jsonl`` as the run goes
(what was written survives SIGKILL).

The oracle: :func:`minirt.trace.effect_report` joins the journal and the spans to the providers'
ledgers, then a judge (:func:`judge`; the drill plugs a learner's in) reads the report and the
run's state. CLEAN also needs both effects and the expected result.

Three runtimes, the reference and two deliberately broken ones, each importable as
``minirt_course.scenarios.m10_trace:<name>``:

- ``reference``: minirt as it is;
- ``journals_before_commit``: records a call's result *before* the provider commits ("record
  first, so a crash cannot lose it"), then sends. A crash between the two loses the effect, and
  recovery replays a receipt for something that never happened;
- ``unknown_as_failure``: takes a call whose answer never came (a crash in W2..W4) as a failure
  instead of reconciling it, so the run fails, sometimes after the provider charged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from minirt.clock import FakeClock
from minirt.dispatch import DEFAULT_POLICY, DispatchPolicy, record_outcome
from minirt.errors import ToolError
from minirt.faults import Faults, Outcome, Verdict
from minirt.idempotency import reconcile_by_lookup
from minirt.journal import new_event
from minirt.run import RunState
from minirt.runtime import Context, Runtime, ScriptedModel
from minirt.store.sqlite import SQLiteStore
from minirt.tools import Tool, ToolCall
from minirt.trace import (
    EffectReport,
    JsonLinesSink,
    TraceHook,
    effect_report,
    journal_spans,
    merge,
    read_jsonl,
)
from minirt.world.booking import BookingProvider
from minirt.world.ledger import Ledger
from minirt.world.payments import PaymentProvider
from minirt.world.tools import book_tool, charge_tool

from . import EPOCH

ORDER = {"order": "T-10", "customer": "cus_ada"}
PLAN = {"amount_cents": 2500, "currency": "eur", "item": "museum tickets x2"}
EXPECTED = {"order": "T-10", "amount_cents": 2500, "item": "museum tickets x2"}
SPANS = "spans.jsonl"
TERMINAL_STATES = ("succeeded", "failed", "cancelled")


def order_agent(ctx: Any, order: dict[str, Any]) -> dict[str, Any]:
    """Plan, charge, book; the result names the order, not the providers' ids."""
    plan = ctx.decide({"task": "pay then book", "order": order["order"]}, name="plan")
    ctx.call_tool("charge", amount_cents=plan["amount_cents"], currency=plan["currency"],
                  customer=order["customer"])
    ctx.call_tool("book", item=plan["item"], customer=order["customer"])
    return {"order": order["order"], "amount_cents": plan["amount_cents"], "item": plan["item"]}


class JournalsBeforeCommit(DispatchPolicy):
    """BROKEN ON PURPOSE: the result is journaled before the provider is called."""

    def deliver(self, ctx: Context, tool: Tool, call: ToolCall) -> Any:
        rt = ctx.runtime
        receipt = {"accepted": True, "effect_key": call.effect_key}
        ctx.append(new_event(rt.store, "tool_result", call.step,
                             {"effect_key": call.effect_key, "value": receipt}, ctx.now_raw()))
        rt.faults.hit("after_result", step=call.step, tool=call.tool)
        try:
            tool.invoke(call)  # fire and forget: the journal already says it is done
        except Exception:  # noqa: BLE001 - that is the bug: nobody looks at the answer
            pass
        rt.faults.hit("after_provider_commit", step=call.step, tool=call.tool)
        ctx.positioned(call.step, "tool", call.tool, False)
        for hook in rt.hooks:
            hook.after_outcome(ctx, call, "tool_result", {"value": receipt})
        return receipt


class UnknownAsFailure(DispatchPolicy):
    """BROKEN ON PURPOSE: an answer that never came is recorded as the call's failure."""

    def reconcile(self, ctx: Context, tool: Tool, call: ToolCall, why: str) -> Any:
        err = ToolError(tool=call.tool, reason=f"no answer, taken as a failure ({why})")
        return record_outcome(ctx, call, "tool_error", {"effect_key": call.effect_key,
                                                        "error": err.to_record()}, err)


class TraceRuntime(Runtime):
    """A runtime that also closes its providers."""

    world: tuple[Any, ...] = ()

    def close(self) -> None:
        for provider in self.world:
            provider.close()
        super().close()


Judge = Callable[[str, EffectReport], Any]


def judge(state: str, report: EffectReport) -> str:
    """The reference oracle: the providers' ledgers decide, the run's state second.

    duplicate effect: executed more than once, or an effect no intent of the run owns;
    stuck: the run did not end; lost effect: a receipt for an effect never executed;
    wrong result: the run ended but did not succeed; else clean."""
    if report.orphans or any((r.executions or 0) > 1 for r in report.rows):
        return Outcome.DUPLICATE.value
    if state not in TERMINAL_STATES:
        return Outcome.STUCK.value
    if any(r.executions == 0 and r.receipts for r in report.rows):
        return Outcome.LOST.value
    if state != "succeeded":
        return Outcome.WRONG.value
    return Outcome.CLEAN.value


@dataclass(frozen=True)
class TraceScenario:
    """See the module docstring. ``policy`` picks the runtime's design; ``judge`` the oracle."""

    name: str = "m10-reference"
    ref: str = "minirt_course.scenarios.m10_trace:reference"
    policy: DispatchPolicy = DEFAULT_POLICY
    judge: Judge = judge
    run_id: str = "run-m10"

    def setup(self, workdir: Path) -> None:
        Path(workdir).mkdir(parents=True, exist_ok=True)

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> TraceRuntime:
        wd = Path(workdir)
        clock = FakeClock(EPOCH + clock_offset)
        pay, book = PaymentProvider(wd / "payments.sqlite", clock), \
            BookingProvider(wd / "booking.sqlite", clock)
        rt = TraceRuntime(SQLiteStore(wd / "runs.sqlite"), tools=[charge_tool(pay),
                                                                  book_tool(book)],
                          workflows={"order_agent": order_agent}, model=ScriptedModel([PLAN]),
                          clock=clock, faults=faults, worker_id=worker_id,
                          reconcile=reconcile_by_lookup,
                          hooks=[TraceHook(JsonLinesSink(wd / SPANS))])
        rt.policy = self.policy
        rt.world = (pay, book)
        return rt

    def start(self, rt: Runtime) -> str:
        return rt.start("order_agent", ORDER, run_id=self.run_id)

    def report(self, workdir: Path, rt: Runtime, run_id: str) -> EffectReport:
        """The effect report: journal + spans (as written) joined to the two ledgers."""
        wd = Path(workdir)
        spans = merge(read_jsonl(wd / SPANS), journal_spans(rt.store, run_id))
        pay, book = Ledger(wd / "payments.sqlite"), Ledger(wd / "booking.sqlite")
        try:
            return effect_report(rt.store, run_id, {"charge": pay, "book": book}, spans)
        finally:
            pay.close()
            book.close()

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        report = self.report(workdir, rt, run_id)
        run = rt.store.get_run(run_id).run
        said = Outcome(str(self.judge(run.state.value, report)))
        rows = ", ".join(f"{r.tool} {r.verdict}" for r in report.rows)
        detail = f"{rows}{f'; {len(report.orphans)} orphan effect(s)' if report.orphans else ''}"
        if said is not Outcome.CLEAN:
            return Verdict(said, detail)
        if len(report.rows) != 2:
            return Verdict(Outcome.LOST, f"{len(report.rows)} of 2 effects attempted")
        if run.state is not RunState.SUCCEEDED or run.detail.get("result") != EXPECTED:
            return Verdict(Outcome.WRONG, f"run {run.state.value}: {run.detail.get('result')}")
        return Verdict(Outcome.CLEAN, detail)


reference = TraceScenario()
journals_before_commit = TraceScenario("m10-journals-before-commit",
                                       "minirt_course.scenarios.m10_trace:journals_before_commit",
                                       JournalsBeforeCommit())
unknown_as_failure = TraceScenario("m10-unknown-as-failure",
                                   "minirt_course.scenarios.m10_trace:unknown_as_failure",
                                   UnknownAsFailure())
VARIANTS = (reference, journals_before_commit, unknown_as_failure)
