"""Effect commit and compensation: recover without pretending the world rewinds.

Three boundaries, kept apart on purpose:

- the **local commit**: a change of the run's own state (``kv``) and an **outbox row** commit in
  ONE store transaction (:func:`commit`), so a crash leaves both or neither;
- the **send**: the dispatcher (:func:`deliver`) sends the row's call with its effect key; the
  world may change from here on, and no transaction of ours covers it;
- the **receipt**: the provider's answer, journaled as the position's ``tool_result``. Only a
  receipt (or a provider lookup that finds the effect) says an effect happened.

How the outbox is stored: there is no separate outbox table. The outbox row IS the journal's
``intent`` event, with an ``outbox`` field naming the saga, the registered compensation and the
``kv`` keys written with it. An ``intent`` without an outcome is an undelivered or unconfirmed row:
:meth:`minirt.journal.Journal.unresolved` lists them, and :meth:`minirt.runtime.Runtime.resume`
delivers them again after reconciling (the run's own worker is the relay, fenced by its
incarnation; there is no background relay process). Compensation records are journal events with
no step position (``compensation_intent`` / ``compensation_result`` / ``compensation_error``,
``forward_reconciled``, ``saga_abort``, ``saga_compensated``, ``saga_completed``), found by key.

A :class:`Saga` runs forward steps and, when it must go back, a **conditional** compensation:
:func:`plan_compensations` compensates only effects with a receipt, asks the provider first about
each UNKNOWN one, skips what never happened, and reports (never drops) what cannot be undone.

Register before, run only on evidence. minirt journals the compensation *intent* in the forward
step's outbox row, BEFORE the forward call is sent (Restate's order: a charge whose confirmation
is lost is still on the list), and runs it only when the journal or a lookup proves the forward
effect happened (Vercel's concern: nothing that never happened is compensated). The crash sweep of
:mod:`minirt_course.scenarios.m05_saga` checks both halves at every boundary.

Fault points added here (see :mod:`minirt.faults`): ``inside_commit`` (the local transaction is
open), ``after_forward_reconciled`` (a lookup's answer is journaled), ``before_compensation``,
``after_compensation_intent``, ``after_compensation_commit`` (the provider applied the
compensation, the answer is lost), ``before_compensation_result``, ``after_compensation_result``
and ``after_saga_compensated``; forward steps pass the tool windows W1..W5 of the runtime.

Guarantees: the state change and its outbox row commit together; a compensation takes effect at
most once per forward effect (its key derives from the forward effect key, its intent is journaled
before it is sent, an unconfirmed one is looked up or re-sent with the same key, and only tools
that are keyed or can be looked up may compensate); a compensation never runs for an effect
without a receipt or a positive lookup; every registered step appears in the report.

Not guaranteed: that the world rewinds (a sent email stays sent: it is reported as not
compensable); that a lookup's "not found" is final if an older incarnation could still send the
request late (fencing stops a zombie's journal writes, not its network calls); isolation (others
see the charge before the refund).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from . import dispatch
from .canonical import digest, normalise
from .errors import MinirtError
from .idempotency import MAYBE_SENT
from .journal import Journal, NonDeterminism, UnresolvedIntent, new_event
from .run import RunError
from .store.base import Event
from .tools import EffectClass, Lookup, OutcomeUnknown, Tool, ToolCall, has_lookup

if TYPE_CHECKING:
    from .runtime import Context, Runtime

ABORT_SIGNAL = "saga-abort"  # Runtime.signal name an operator uses to abort a run's sagas


class EffectStatus(StrEnum):
    RECEIPTED = "receipted"  # the provider's receipt is journaled (or a lookup found the effect)
    UNKNOWN = "unknown"  # an outbox row without an answer: it may or may not have happened
    DECLINED = "declined"  # the provider (or a contract gate) said no: nothing happened
    NEVER_SENT = "never sent"  # the saga stopped before this step's outbox row was committed
    NEVER_HAPPENED = "never happened"  # was unknown; the provider's lookup did not find it


class Action(StrEnum):
    COMPENSATE = "compensate"
    SKIP = "skip"  # nothing happened, nothing to undo
    NOT_COMPENSABLE = "not compensable"  # it (may have) happened and nothing undoes it: report it
    UNRESOLVED = "unresolved"  # unknown, and the provider cannot tell yet: do not guess


class SagaError(MinirtError):
    """Base of the saga's errors."""


class AbortRequested(SagaError):
    """The run was asked to abort (:func:`request_abort`) before this step could touch the world.

    Raised by :meth:`Saga.step` / :meth:`Saga.finish`; the workflow catches it and compensates.
    Not :class:`StepFailed` (the provider never saw this step).
    """

    fields = ("run_id", "saga", "step", "reason")
    template = "run {run_id}: saga {saga!r} aborted at step {step}: {reason}"


class StepFailed(SagaError):
    """A forward step was refused: the provider answered no, or a gate rejected the call.

    Nothing happened at this step. Not :class:`~minirt.journal.UnresolvedIntent` (no answer at
    all).
    """

    fields = ("run_id", "saga", "step", "tool", "reason")
    template = "run {run_id}: saga {saga!r} step {step} ({tool}) failed: {reason}"


class CompensationNotIdempotent(SagaError):
    """Registration refused: the compensating tool can be neither re-sent safely nor looked up.

    Raised by :meth:`Saga.step` before anything is committed. Not :class:`SagaMisuse`.
    """

    fields = ("tool", "compensating_tool", "effect")
    template = ("cannot register {compensating_tool!r} to compensate {tool!r}: a {effect} tool "
                "without lookup could compensate twice")


class SagaMisuse(SagaError):
    """A saga call with arguments of the wrong shape (raised before anything is committed)."""

    fields = ("saga", "reason")
    template = "saga {saga!r}: {reason}"


class CompensationFailed(SagaError):
    """A compensating call was refused by its provider; the saga needs an operator."""

    fields = ("run_id", "saga", "tool", "compensation_key", "reason")
    template = "run {run_id}: saga {saga!r}: compensation {tool} ({compensation_key}) failed: {reason}"


class PlanInvalid(SagaError):
    """The compensation planner returned a plan the executor refuses (it is never run)."""

    fields = ("saga", "reason")
    template = "saga {saga!r}: compensation plan refused: {reason}"


@dataclass(frozen=True)
class ForwardEffect:
    """One forward step as the planner sees it."""

    step: int
    tool: str
    effect_key: str | None  # None only for a step that never reached its outbox row
    status: EffectStatus
    compensation: str | None  # the compensating tool registered with the row, or None
    receipt: Any = None  # Invariant: set iff status is RECEIPTED
    receipt_at: float | None = None
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PlannedAction:
    action: Action
    effect: ForwardEffect  # with its status as settled by the plan (after any lookup)
    note: str = ""


#: What a workflow catches around its forward steps to decide to compensate (see Saga).
SAGA_STOPS: tuple[type[MinirtError], ...] = (StepFailed, AbortRequested, UnresolvedIntent)

Lookup_ = Callable[[ForwardEffect], Lookup]
Planner = Callable[[Sequence[ForwardEffect], Lookup_], Sequence[PlannedAction]]


def compensation_key(forward_key: str, tool: str) -> str:
    """The key of the compensation of ``forward_key`` by ``tool``: ``ck_`` + 32 hex characters.

    Depends only on the forward effect key and the compensating tool, never on the attempt, the
    worker or the time, so every retry of the compensation is deduplicated by the provider.
    """
    material = "\x1f".join(["compensate", forward_key, tool])
    return "ck_" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]


def plan_compensations(effects: Sequence[ForwardEffect], lookup: Lookup_) -> list[PlannedAction]:
    """What to undo, last step first. Pure apart from ``lookup`` (which may raise OutcomeUnknown).

    UNKNOWN effects are looked up first; only RECEIPTED ones with a registered compensation are
    compensated; what never happened is skipped; what happened and cannot be undone is reported.
    """
    plan = []
    for fx in sorted(effects, key=lambda f: f.step, reverse=True):
        if fx.status is EffectStatus.UNKNOWN:
            try:
                found = lookup(fx)
            except OutcomeUnknown:
                found = None
            if found is not None and found.found:
                fx = replace(fx, status=EffectStatus.RECEIPTED, receipt=found.result)
            elif found is not None:
                fx = replace(fx, status=EffectStatus.NEVER_HAPPENED)
        if fx.status in (EffectStatus.DECLINED, EffectStatus.NEVER_SENT,
                         EffectStatus.NEVER_HAPPENED):
            plan.append(PlannedAction(Action.SKIP, fx, f"nothing to undo: {fx.status.value}"))
        elif fx.compensation is None:
            plan.append(PlannedAction(Action.NOT_COMPENSABLE, fx, "nothing undoes it"))
        elif fx.status is EffectStatus.UNKNOWN:
            plan.append(PlannedAction(Action.UNRESOLVED, fx, "the provider cannot tell yet"))
        else:
            plan.append(PlannedAction(Action.COMPENSATE, fx, f"undo with {fx.compensation}"))
    return plan


# -- the outbox: local commit boundary and dispatcher ------------------------------------------

def commit(ctx: Context, step: int, tool: Tool, call: ToolCall, *, args_digest: str,
           state: Mapping[str, str | None] | None = None,
           outbox: Mapping[str, Any] | None = None) -> Event:
    """The local commit boundary: ``state`` (kv) and the outbox row commit in ONE transaction.

    Fault points: ``before_intent`` (W1), ``inside_commit`` (the transaction is open, nothing is
    committed yet) and ``after_intent`` (W2: both are durable, nothing was sent). The row is the
    pipeline's intent (:func:`minirt.dispatch.write_intent`) with an ``outbox`` field.
    """
    kv = dict(state or {})
    rows = dispatch.write_intent(ctx, tool, call, args_digest, kv,
                                 outbox={**(outbox or {}), "state": sorted(kv)})
    return rows[0] if rows else None  # type: ignore[return-value]


def deliver(ctx: Context, tool: Tool, call: ToolCall) -> Any:
    """The dispatcher: send a committed outbox row with its effect key and journal the receipt.

    This is the runtime's own dispatch (:func:`minirt.dispatch.deliver`, through the run's
    policy; fault points W3 ``after_provider_commit``, W4 ``before_result``, W5
    ``after_result``): a refusal is journaled as ``tool_error``, a lost answer is reconciled by
    lookup or a resend with the same key, else UnresolvedIntent.
    """
    return ctx.runtime.policy.deliver(ctx, tool, call)


def request_abort(runtime: Runtime, run_id: str, reason: str) -> None:
    """Ask a run's sagas to stop and compensate (idempotent: the first reason wins)."""
    runtime.signal(run_id, ABORT_SIGNAL, {"reason": str(reason)})


def forward_status(journal: Journal, step: int) -> tuple[EffectStatus, Any, float | None]:
    """A forward step's status from the journal alone (no lookup)."""
    pos = journal.at(step)
    if pos is None or pos.opening is None:
        return EffectStatus.NEVER_SENT, None, None
    if pos.opening.kind == "tool_rejected":
        return EffectStatus.DECLINED, None, None
    if pos.outcome is None:
        return EffectStatus.UNKNOWN, None, None
    out = journal.payload(pos.outcome)
    if pos.outcome.kind == "tool_result":
        value = out["value"]
        if isinstance(value, dict) and value.get("delivery") == MAYBE_SENT:
            return EffectStatus.UNKNOWN, None, None  # at most once: recorded, never resent
        return EffectStatus.RECEIPTED, value, pos.outcome.at
    err = out.get("error", {})
    attrs = err.get("attrs", {})
    if attrs.get("effect_happened") or attrs.get("happened") or attrs.get("unknown"):
        return EffectStatus.UNKNOWN, None, None  # it may have happened: a lookup must decide
    return EffectStatus.DECLINED, None, None


def when(at: float | None) -> str:
    """A journal time as ISO-8601 UTC (the report's clock)."""
    if at is None:
        return "an unknown time"
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- the report ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class ReportItem:
    """What compensation did about one forward step (JSON-friendly: journaled as is)."""

    step: int
    tool: str
    effect_key: str | None
    status: str  # EffectStatus value, as settled by the plan
    action: str  # Action value
    outcome: str  # compensated | failed | skipped | not compensable | unresolved
    compensation: str | None = None
    compensation_key: str | None = None
    line: str = ""


@dataclass(frozen=True)
class CompensationReport:
    saga: str
    reason: str
    items: tuple[ReportItem, ...]

    def lines(self) -> list[str]:
        return [item.line for item in self.items]

    def outcomes(self) -> dict[str, str]:
        """``tool -> outcome`` (the shape a test or an oracle compares)."""
        return {item.tool: item.outcome for item in self.items}

    def as_dict(self) -> dict[str, Any]:
        return {"saga": self.saga, "reason": self.reason,
                "items": [item.__dict__.copy() for item in self.items]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CompensationReport:
        return cls(str(data["saga"]), str(data["reason"]),
                   tuple(ReportItem(**item) for item in data["items"]))


# -- the saga -----------------------------------------------------------------------------------

CompensationSpec = tuple[str, Callable[[dict[str, Any], Any], Mapping[str, Any]]]


@dataclass
class _Registered:
    step: int
    tool: str
    compensation: CompensationSpec | None
    args: dict[str, Any] | None = None  # None until the outbox row exists
    effect_key: str | None = None


class Saga:
    """Forward steps through the outbox, and a conditional, journaled, idempotent compensation.

    ``saga.step(tool, args, compensate=(tool, args_fn))`` registers the compensation and commits
    the outbox row (with ``state``) before sending; ``args_fn(forward_args, receipt)`` builds the
    compensating call from the receipt. ``saga.compensate(reason)`` plans and runs the
    compensations (idempotent: calling it again, or replaying it, returns the same report).
    ``name`` identifies the saga's records in the journal: unique within a run.
    """

    def __init__(self, ctx: Context, name: str = "saga", *,
                 planner: Planner = plan_compensations,
                 key: Callable[[str, str], str] = compensation_key) -> None:
        self.ctx = ctx
        self.name = name
        self.planner = planner
        self.key = key
        self._steps: list[_Registered] = []  # Invariant: in step order, one per saga.step call

    # -- forward ------------------------------------------------------------------------------

    def step(self, tool_name: str, args: Mapping[str, Any] | None = None, *,
             compensate: CompensationSpec | None = None,
             state: Mapping[str, str | None] | None = None) -> Any:
        """Run one forward step; return its receipt. Raises StepFailed (refused), AbortRequested
        (an abort arrived before the step reached the world) or UnresolvedIntent (no answer, and
        reconciliation could not settle it). A tool with neither key nor lookup should declare
        its delivery (:class:`minirt.idempotency.Delivery`): at most once records "maybe sent"."""
        ctx, rt = self.ctx, self.ctx.runtime
        tool = rt.tool(tool_name)
        self._check(tool, compensate)
        raw = dict(args or {})
        raw_digest = digest(raw)
        p, pos = ctx.claim_position()
        reg = _Registered(p, tool_name, compensate)
        self._steps.append(reg)
        if pos is not None and pos.opening is not None and pos.opening.kind == "intent":
            rec = ctx.journal.payload(pos.opening)
            reg.args, reg.effect_key = rec["args"], rec["effect_key"]
            registered = rec.get("outbox", {}).get("compensation")
            if registered != (compensate[0] if compensate else None):
                raise NonDeterminism(run_id=ctx.run_id, step=p,
                                     recorded=f"compensation {registered!r}",
                                     requested=f"compensation {compensate and compensate[0]!r}")
        needs_world = pos is None or pos.is_unresolved
        if needs_world:
            self._raise_if_aborted(p)
        if pos is None and self._find("saga_compensated"):
            raise SagaMisuse(saga=self.name, reason=f"step {p} ({tool_name}) after the saga was "
                                                   f"compensated; start a new Saga")
        if pos is not None:
            return self._settle(reg, lambda: dispatch.replay(ctx, p, pos, tool, raw_digest))
        try:  # as Context.call_tool: a refusal by prepare or by a hook is journaled
            call, staged = dispatch.prepare(ctx, tool, p, raw)
        except MinirtError as exc:
            ctx.append(dispatch.rejection(ctx, p, tool_name, raw_digest, exc))
            raise self._failed(reg, exc) from exc
        reg.args, reg.effect_key = call.args, call.effect_key
        commit(ctx, p, tool, call, args_digest=raw_digest, state={**staged, **(state or {})},
               outbox={"saga": self.name, "compensation": compensate[0] if compensate else None})
        return self._settle(reg, lambda: deliver(ctx, tool, call))

    def finish(self) -> None:
        """End the forward part: after this, an abort request no longer compensates this saga.
        Raises AbortRequested if one arrived first. Idempotent."""
        if self._find("saga_completed") or self._find("saga_compensated"):
            return
        self._raise_if_aborted(self.ctx.position)
        self._append({"saga": self.name}, "saga_completed")

    def _check(self, tool: Tool, compensate: Any) -> None:
        if compensate is None:
            return
        if not (isinstance(compensate, tuple) and len(compensate) == 2
                and isinstance(compensate[0], str) and callable(compensate[1])):
            raise SagaMisuse(saga=self.name, reason="compensate must be (tool_name, "
                                                   "args_fn(forward_args, receipt))")
        comp = self.ctx.runtime.tool(compensate[0])
        if comp.effect not in (EffectClass.KEYED, EffectClass.PURE) and not has_lookup(comp):
            raise CompensationNotIdempotent(tool=tool.name, compensating_tool=comp.name,
                                            effect=comp.effect.value)

    def _settle(self, reg: _Registered, run: Callable[[], Any]) -> Any:
        try:
            return run()
        except (NonDeterminism, UnresolvedIntent, RunError):
            raise  # a changed workflow, an unknown outcome, a zombie: never "the step failed"
        except MinirtError as exc:
            if forward_status(self.ctx.journal, reg.step)[0] is EffectStatus.DECLINED:
                raise self._failed(reg, exc) from exc
            raise

    def _failed(self, reg: _Registered, exc: MinirtError) -> StepFailed:
        return StepFailed(run_id=self.ctx.run_id, saga=self.name, step=reg.step, tool=reg.tool,
                          reason=str(exc))

    def _raise_if_aborted(self, step: int) -> None:
        rec = self._find("saga_abort")
        if rec is None and not self._find("saga_completed"):
            raw = self.ctx.runtime.store.kv_get(self.ctx.run_id, f"signal:{ABORT_SIGNAL}")
            if raw is not None:
                rec = {"saga": self.name, "step": step,
                       "reason": str((json.loads(raw) or {}).get("reason", "abort requested"))}
                self._append(rec, "saga_abort")
        if rec is not None:
            raise AbortRequested(run_id=self.ctx.run_id, saga=self.name, step=step,
                                 reason=rec["reason"])

    # -- journal helpers ----------------------------------------------------------------------

    def _append(self, payload: dict[str, Any], kind: str,
                kv: Mapping[str, str | None] | None = None) -> None:
        """Append one non-positional saga event (with ``kv`` in the same transaction)."""
        ctx = self.ctx
        ctx.append(new_event(ctx.runtime.store, kind, None, payload, ctx.now_raw()),
                   kv=dict(kv or {}) or None)

    def _find(self, kind: str, **match: Any) -> dict[str, Any] | None:
        """The last ``kind`` event of this saga whose payload matches ``match``."""
        found = None
        for e in self.ctx.journal.events:
            if e.kind == kind:
                rec = self.ctx.journal.payload(e)
                if rec.get("saga") == self.name and all(rec.get(k) == v for k, v in match.items()):
                    found = {**rec, "at": e.at, "kind": e.kind}
        return found

    def _reg(self, effect_key: str | None = None, step: int | None = None) -> _Registered | None:
        return next((r for r in self._steps
                     if (effect_key is not None and r.effect_key == effect_key)
                     or (step is not None and r.step == step)), None)

    # -- backward -----------------------------------------------------------------------------

    def effects(self) -> list[ForwardEffect]:
        """The registered forward steps with their status from the journal (no lookup)."""
        out = []
        for r in self._steps:
            status, receipt, at = forward_status(self.ctx.journal, r.step)
            out.append(ForwardEffect(r.step, r.tool, r.effect_key, status,
                                     r.compensation[0] if r.compensation else None, receipt, at,
                                     dict(r.args or {})))
        return out

    def compensate(self, reason: str, *,
                   state: Mapping[str, str | None] | None = None) -> CompensationReport:
        """Plan and run the compensations; record the report (with ``state``) once. Idempotent.

        Raises UnresolvedIntent (the run waits as UNCERTAIN) while a compensable effect stays
        unknown, CompensationFailed if a provider refuses a compensation, PlanInvalid if the
        planner asks for something unsafe.
        """
        done = self._find("saga_compensated")
        if done is not None:
            return CompensationReport.from_dict(done["report"])
        effects = self.effects()
        try:
            raw = self.planner(effects, self._lookup)
            plan = self._checked(list(raw), effects)
        except MinirtError:
            raise
        except Exception as exc:  # a broken planner is reported by name, not as a crash
            raise PlanInvalid(saga=self.name, reason=f"{type(exc).__name__}: {exc}") from None
        outcomes = {item.effect.step: self._run_compensation(item) for item in plan
                    if item.action is Action.COMPENSATE}
        report = self._report(reason, plan, outcomes)
        waiting = next((i for i in report.items if i.outcome == "unresolved"), None)
        if waiting is not None:
            raise UnresolvedIntent(run_id=self.ctx.run_id, step=waiting.step, tool=waiting.tool,
                                   effect_key=waiting.effect_key,
                                   reason="compensation waits until the provider can tell")
        failed = next((i for i in report.items if i.outcome == "failed"), None)
        if failed is not None:
            raise CompensationFailed(run_id=self.ctx.run_id, saga=self.name,
                                     tool=str(failed.compensation),
                                     compensation_key=failed.compensation_key, reason=failed.line)
        self._append({"saga": self.name, "reason": reason, "report": report.as_dict()},
                     "saga_compensated", kv=state)
        self.ctx.runtime.faults.hit("after_saga_compensated", saga=self.name)
        return report

    def _lookup(self, fx: ForwardEffect) -> Lookup:
        """Ask the forward tool's provider about an effect, once: the answer is journaled."""
        key = str(fx.effect_key)
        rec = self._find("forward_reconciled", effect_key=key)
        if rec is not None:
            return Lookup(bool(rec["found"]), rec.get("receipt"), "recorded lookup")
        reg = self._reg(effect_key=key)
        tool = self.ctx.runtime.tool(reg.tool) if reg else None
        if reg is None or tool is None or not has_lookup(tool):
            raise OutcomeUnknown(tool=fx.tool, effect_key=key, reason="no lookup for this effect")
        ctx = self.ctx
        call = dispatch.new_call(ctx, reg.step, reg.tool, dict(reg.args or {}), key)
        try:
            found = tool.lookup(call)  # type: ignore[attr-defined]
        except OutcomeUnknown:
            raise
        except Exception as exc:  # the provider cannot answer now: unknown, not "not found"
            raise OutcomeUnknown(tool=reg.tool, effect_key=key,
                                 reason=f"lookup failed: {exc}") from None
        receipt = normalise(found.result) if found.found else None
        self._append({"saga": self.name, "step": reg.step, "effect_key": key,
                      "found": bool(found.found), "receipt": receipt}, "forward_reconciled")
        ctx.runtime.faults.hit("after_forward_reconciled", step=reg.step, tool=reg.tool)
        return Lookup(bool(found.found), receipt, str(found.detail))

    def _settled(self, fx: ForwardEffect) -> ForwardEffect:
        """``fx`` with a journaled lookup applied (the executor trusts only the journal)."""
        if fx.status is not EffectStatus.UNKNOWN or fx.effect_key is None:
            return fx
        rec = self._find("forward_reconciled", effect_key=fx.effect_key)
        if rec is None:
            return fx
        if rec["found"]:
            return replace(fx, status=EffectStatus.RECEIPTED, receipt=rec.get("receipt"))
        return replace(fx, status=EffectStatus.NEVER_HAPPENED)

    def _checked(self, plan: list[Any], effects: list[ForwardEffect]) -> list[PlannedAction]:
        """Rebuild the planner's answer from our own records; refuse an unsafe plan."""
        by_step = {fx.step: fx for fx in effects}
        out: list[PlannedAction] = []
        for item in plan:
            try:
                action = Action(str(getattr(item.action, "value", item.action)))
                step = int(item.effect.step)
            except Exception:
                raise PlanInvalid(saga=self.name,
                                  reason=f"not a PlannedAction: {item!r:.80}") from None
            fx = by_step.get(step)
            if fx is None or any(a.effect.step == step for a in out):
                raise PlanInvalid(saga=self.name, reason=f"step {step} is not a step of this "
                                                         f"saga, or is planned twice")
            fx = self._settled(fx)
            if action is Action.COMPENSATE and (fx.status is not EffectStatus.RECEIPTED
                                                or fx.compensation is None):
                raise PlanInvalid(saga=self.name, reason=f"compensating {fx.tool} (step {step}) "
                                                         f"whose status is {fx.status.value}")
            out.append(PlannedAction(action, fx, str(getattr(item, "note", ""))))
        missing = sorted(set(by_step) - {a.effect.step for a in out})
        if missing:
            raise PlanInvalid(saga=self.name, reason=f"steps {missing} are missing from the "
                                                     f"plan: no effect may be dropped silently")
        return out

    def _run_compensation(self, item: PlannedAction) -> tuple[str, str]:
        """Compensate one receipted effect, exactly once across crashes. Returns (outcome, why)."""
        ctx, rt = self.ctx, self.ctx.runtime
        fx = item.effect
        reg = self._reg(step=fx.step)
        assert reg is not None and reg.compensation is not None and fx.effect_key is not None
        comp_name, args_fn = reg.compensation
        ck = str(self.key(fx.effect_key, comp_name))
        records = [r for r in (self._find(k, forward_key=fx.effect_key) for k in
                               ("compensation_intent", "compensation_result",
                                "compensation_error")) if r is not None]
        for r in records:
            if r["compensation_key"] != ck:  # the key must be a function of the forward effect
                raise NonDeterminism(run_id=ctx.run_id, step=fx.step,
                                     recorded=f"compensation key {r['compensation_key']}",
                                     requested=f"compensation key {ck}")
        kinds = {r["kind"]: r for r in records}
        if "compensation_result" in kinds:
            return "compensated", ""
        if "compensation_error" in kinds:
            return "failed", str(kinds["compensation_error"]["error"].get("attrs"))
        tool = rt.tool(comp_name)
        if "compensation_intent" in kinds:  # sent before a crash, no answer: unknown
            args = kinds["compensation_intent"]["args"]
        else:
            args = normalise(tool.prepare(dict(args_fn(dict(reg.args or {}), fx.receipt)),
                                          rt.scopes))
        call = dispatch.new_call(ctx, fx.step, comp_name, args, ck)
        if "compensation_intent" not in kinds:
            rt.faults.hit("before_compensation", step=fx.step, tool=comp_name)
            self._append({"saga": self.name, "forward_key": fx.effect_key,
                          "forward_step": fx.step, "tool": comp_name, "args": args,
                          "compensation_key": ck}, "compensation_intent")
            rt.faults.hit("after_compensation_intent", step=fx.step, tool=comp_name)
        elif self._found_compensation(tool, call, fx):
            return "compensated", "found by lookup"
        return self._send_compensation(tool, call, fx)

    def _found_compensation(self, tool: Tool, call: ToolCall, fx: ForwardEffect) -> bool:
        if not has_lookup(tool):
            return False
        try:
            found = tool.lookup(call)  # type: ignore[attr-defined]
        except Exception:
            return False
        if found.found:
            self._record_compensation(call, fx, normalise(found.result), reconciled=True)
        return bool(found.found)

    def _send_compensation(self, tool: Tool, call: ToolCall, fx: ForwardEffect
                           ) -> tuple[str, str]:
        rt = self.ctx.runtime
        for attempt in range(1, rt.max_attempts + 1):
            kind, value = dispatch.invoke(tool, dispatch.resend_of(self.ctx, call, attempt))
            if kind == dispatch.ERROR:  # the provider refused the compensation
                rt.faults.hit("after_compensation_commit", step=fx.step, tool=call.tool)
                self._append({"saga": self.name, "forward_key": fx.effect_key,
                              "compensation_key": call.effect_key, "error": value.to_record()},
                             "compensation_error")
                return "failed", str(value)
            if kind == dispatch.VALUE:
                rt.faults.hit("after_compensation_commit", step=fx.step, tool=call.tool)
                rt.faults.hit("before_compensation_result", step=fx.step, tool=call.tool)
                self._record_compensation(call, fx, normalise(value), reconciled=False)
                rt.faults.hit("after_compensation_result", step=fx.step, tool=call.tool)
                return "compensated", ""
            if self._found_compensation(tool, call, fx):  # the answer was lost: ask first
                return "compensated", "found by lookup"
            if tool.effect not in (EffectClass.KEYED, EffectClass.PURE):
                break  # not safe to send again without a key the provider deduplicates
        raise UnresolvedIntent(run_id=self.ctx.run_id, step=fx.step, tool=call.tool,
                               effect_key=call.effect_key,
                               reason="compensation sent, outcome unknown")

    def _record_compensation(self, call: ToolCall, fx: ForwardEffect, value: Any, *,
                             reconciled: bool) -> None:
        self._append({"saga": self.name, "forward_key": fx.effect_key,
                      "compensation_key": call.effect_key, "value": value,
                      "reconciled": reconciled}, "compensation_result")

    def _report(self, reason: str, plan: list[PlannedAction],
                outcomes: Mapping[int, tuple[str, str]]) -> CompensationReport:
        items = []
        for item in plan:
            fx = item.effect
            comp = fx.compensation
            ck = str(self.key(fx.effect_key, comp)) if comp and fx.effect_key else None
            where = f"{fx.tool} (step {fx.step})"
            if item.action is Action.COMPENSATE:
                outcome, why = outcomes[fx.step]
                line = (f"compensated {where} with {comp}" if outcome == "compensated"
                        else f"compensation FAILED: {comp} for {where}: {why}")
            elif item.action is Action.SKIP:
                outcome, line = "skipped", f"nothing to undo: {where} {fx.status.value}"
            elif item.action is Action.NOT_COMPENSABLE:
                outcome = "not compensable"
                line = (f"not compensable: {where} happened at {when(fx.receipt_at)}"
                        if fx.status is EffectStatus.RECEIPTED else
                        f"not compensable: {where} may have happened (outcome unknown, "
                        f"not sent again)")
            else:
                outcome = "unresolved"
                line = f"waiting: {where} outcome unknown; it is not compensated blindly"
            items.append(ReportItem(fx.step, fx.tool, fx.effect_key, fx.status.value,
                                    item.action.value, outcome, comp, ck, line))
        return CompensationReport(self.name, reason, tuple(items))
