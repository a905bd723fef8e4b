"""Operator actions on runs: approve, deny, revoke, signal, cancel, resolve, retry, fork; each
journaled.

The people who run agents act on runs from outside any worker: they answer an approval, revoke
a receipt, deliver a signal, cancel a run, or settle an effect that a crash left UNCERTAIN.
:class:`Operator` is the one API for all of them (``minirt approve|deny|revoke|signal|cancel|
resolve`` are its command-line face, :mod:`minirt.cli_operator`). Every action goes through the
public seam that already does it (``ApprovalGate.approve/reject/revoke``, ``Runtime.signal``,
``minirt.cancel.cancel``) and, **in the same store transaction**, appends one ``operator`` event
to the run's journal: ``{"action", "by", "reason", ...}``. So the journal says who did what and
why, and an action that was refused leaves no event.

**resolve** settles an UNCERTAIN effect with evidence: either the provider's record of it
(``happened``, its result becomes the step's result) or ``did_not_happen`` after a lookup (the
call is sent again with the same effect key). The resolution is kept in the run's kv under
``operator:resolution:<effect_key>``, bound to the attempt it was made for, and
:class:`OperatorFirst`, a reconcile policy wrapped around the runtime's own (:func:`attach`),
answers from it the next time the run is executed, so the run continues from that step.
``minirt`` runtimes built by the CLI (``--app``) are attached; an application that builds its
own Runtime calls ``attach(rt)`` (or passes ``reconcile=OperatorFirst(policy)``).

**retry** re-runs a run from its last consistent step: a FAILED or CANCELLED run as a new run
that replays the steps that had succeeded (:mod:`minirt.fork`), a *parked* run (PENDING or
RUNNING with no live worker) executed again now with the application's runtime, replaying its
journal (waiting out a dead worker's lease). UNCERTAIN and WAITING runs are refused with what to
do instead (resolve; signal or approve). **fork** copies a run's journal up to step position N
into a new run (:mod:`minirt.fork`). Both journal an ``operator`` event in the new run and, when
the old run has not ended, in the old one. **resume_diverged** resumes a run parked for a
divergence (:func:`diverged` says where and why) once the deploy is rolled back.

Invariants: no action without a non-empty ``by`` and ``reason`` (:class:`OperatorInputInvalid`);
an operator event is written only with the action it records; a resolution applies to one
attempt of one effect key (a later resend that is lost again is UNCERTAIN again, never settled
by an old answer). Guarantees: ``resolve`` refuses a run that is not UNCERTAIN, an effect key
that is not the run's unresolved intent, and a second resolution of the same attempt
(:class:`NothingToResolve`, :class:`AlreadyResolved`). Not guaranteed: that the evidence is
true (the operator vouches for it; the journal records who did), or authentication of the
operator (``by`` is what the caller says; put the CLI behind your own access control).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .canonical import canonical_json, normalise
from .clock import Clock, SystemClock
from .errors import MinirtError
from .fork import CannotFork, Forked, copy_run, free_id, last_consistent
from .journal import Journal
from .kinds import EventKind
from .resolution import Kind, Resolution
from .run import RunState
from .store.base import NewEvent, Store
from .tools import Tool, ToolCall

__all__ = ["DID_NOT_HAPPEN", "HAPPENED", "K_RESOLUTION", "AlreadyResolved", "CannotFork",
           "DIVERGED_HINT", "Forked", "NeedsApp", "NotDiverged", "NothingToResolve", "Operator",
           "OperatorFirst", "OperatorInputInvalid", "Unresolved", "attach", "diverged",
           "last_consistent", "operator_events", "resolution_of", "unresolved"]

if TYPE_CHECKING:
    from .approvals import ApprovalGate, Receipt
    from .runtime import Context, ReconcilePolicy, Runtime

K_RESOLUTION = "operator:resolution:"  # kv: effect_key -> the operator's resolution (JSON)
HAPPENED, DID_NOT_HAPPEN = "happened", "did_not_happen"


class OperatorInputInvalid(MinirtError):
    """An operator action without who or why, or with unusable evidence. Nothing is written."""

    fields = ("action", "reason")
    template = "{action}: {reason}"


class NothingToResolve(MinirtError):
    """``resolve`` on a run that has no such unresolved effect. Nothing is written."""

    fields = ("run_id", "reason")
    template = "run {run_id}: nothing to resolve: {reason}"


class AlreadyResolved(MinirtError):
    """This attempt of the effect already has an operator's resolution (the first one stays)."""

    fields = ("run_id", "effect_key", "by", "outcome")
    template = "run {run_id}: {effect_key} was already resolved by {by} as {outcome}"


class NotDiverged(MinirtError):
    """``resume_diverged`` on a run that is not parked for a divergence. Nothing is written."""

    fields = ("run_id", "state")
    template = ("run {run_id} is {state}, not parked for a divergence: nothing to resume "
                "(minirt pending says what it awaits)")


#: What an operator is told to do about a parked divergence.
DIVERGED_HINT = ("roll back and resume: deploy the code that recorded this run (or mark the "
                 "change with ctx.patched), then resume it")


def diverged(store: Store, run_id: str) -> dict[str, Any] | None:
    """The divergence a WAITING run is parked for (:mod:`minirt.divergence`): ``step``,
    ``recorded`` and ``requested`` calls, ``error`` and the operator's ``hint``; else None."""
    run = store.get_run(run_id).run
    found = run.detail.get("diverged") if run.state is RunState.WAITING else None
    if not isinstance(found, Mapping):
        return None
    return {"step": found.get("step"), "recorded": found.get("recorded"),
            "requested": found.get("requested"), "error": found.get("error"),
            "hint": DIVERGED_HINT}


class NeedsApp(MinirtError):
    """approve/deny/revoke need the application's ApprovalGate (its signing key) and resume
    needs its workflows: give ``--app`` (a Runtime with them)."""

    fields = ("action", "what")
    template = "{action} needs the application's {what}: give --app (a Runtime with it)"


@dataclass(frozen=True)
class Unresolved:
    """An intent of a run without an outcome: what ``resolve`` settles."""

    step: int
    tool: str
    effect_key: str
    args: Any
    attempt: int  # the attempt whose answer was lost (1 + the recorded resends)


def unresolved(store: Store, run_id: str) -> list[Unresolved]:
    """The run's intents without an outcome, oldest first (read from its verified journal)."""
    journal = Journal.load(store, run_id)
    out = []
    for pos in journal.unresolved():
        rec = journal.payload(pos.opening)  # type: ignore[arg-type]
        attempts = 1 + sum(1 for e in pos.extra if e.kind == EventKind.ATTEMPT)
        out.append(Unresolved(pos.step, rec["tool"], rec["effect_key"], rec["args"], attempts))
    return out


def resolution_of(store: Store, run_id: str, effect_key: str) -> dict[str, Any] | None:
    """The operator's recorded resolution of ``effect_key`` in the run, or None."""
    raw = store.kv_get(run_id, K_RESOLUTION + effect_key)
    return None if raw is None else json.loads(raw)


def operator_events(store: Store, run_id: str) -> list[dict[str, Any]]:
    """Every operator event of the run, in journal order, with its ``seq`` and ``at``."""
    return [{**json.loads(e.payload_json), "seq": e.seq, "at": e.at}
            for e in store.read(run_id) if e.kind == EventKind.OPERATOR]


@dataclass(frozen=True)
class OperatorFirst:
    """A reconcile policy: the operator's resolution of this attempt if there is one, else
    ``inner``'s answer. ``Runtime(reconcile=OperatorFirst(reconcile_by_lookup))``."""

    inner: ReconcilePolicy

    def __call__(self, ctx: Context, tool: Tool, call: ToolCall) -> Resolution:
        found = resolution_of(ctx.runtime.store, ctx.run_id, call.effect_key)
        if found is not None and int(found.get("attempt", 0)) == call.attempt:
            why = f"resolved by operator {found['by']}: {found['reason']}"
            if found["outcome"] == HAPPENED:
                return Resolution(Kind.RESULT, found["value"], why)
            return Resolution(Kind.REDISPATCH, reason=why)
        return self.inner(ctx, tool, call)


def attach(rt: Runtime) -> Runtime:
    """Make ``rt`` honour operators' resolutions (idempotent); returns ``rt``."""
    if not isinstance(rt.reconcile, OperatorFirst):
        rt.reconcile = OperatorFirst(rt.reconcile)
    return rt


@dataclass
class Operator:
    """Operator actions on one store. ``runtime`` (the application's, for approvals and for
    continuing a resolved run) is optional for signal, cancel and resolve."""

    store: Store
    runtime: Runtime | None = None
    clock: Clock = field(default_factory=SystemClock)

    @classmethod
    def for_runtime(cls, rt: Runtime) -> Operator:
        return cls(rt.store, attach(rt), rt.clock)

    # -- the journal ------------------------------------------------------------------------

    def record(self, run_id: str, action: str, by: str, reason: str, **detail: Any) -> None:
        """Append the ``operator`` event (join the caller's transaction, if any)."""
        now = self.clock.now()
        payload = {"action": action, "by": by, "reason": reason, **normalise(detail)}
        with self.store.transaction():
            run = self.store.get_run(run_id).run
            self.store.append(run_id, run.incarnation,
                              [NewEvent(EventKind.OPERATOR, None, canonical_json(payload), now)])

    @staticmethod
    def _who(action: str, by: str, reason: str) -> None:
        if not (isinstance(by, str) and by.strip()):
            raise OperatorInputInvalid(action=action, reason="say who acts (--by)")
        if not (isinstance(reason, str) and reason.strip()):
            raise OperatorInputInvalid(action=action, reason="say why (--reason)")

    def _gate(self, action: str) -> ApprovalGate:
        from .approvals import ApprovalGate

        for hook in (self.runtime.hooks if self.runtime is not None else ()):
            if isinstance(hook, ApprovalGate):
                return hook
        raise NeedsApp(action=action, what="ApprovalGate")

    def gate(self) -> ApprovalGate | None:
        """The application's ApprovalGate, or None (no runtime, or one without a gate)."""
        try:
            return self._gate("gate")
        except NeedsApp:
            return None

    def _rt(self) -> Runtime:
        if self.runtime is not None:
            return self.runtime
        from .runtime import Runtime

        return Runtime(self.store, clock=self.clock)

    # -- approvals ----------------------------------------------------------------------------

    def approve(self, run_id: str, request_id: str, *, by: str, reason: str,
                effect_digest: str | None = None, expires_for: float = 3_600.0) -> Receipt:
        """Sign a receipt for the pending request (the gate's ``approve``); the run wakes."""
        self._who("approve", by, reason)
        gate, rt = self._gate("approve"), self._rt()
        with self.store.transaction():
            receipt = gate.approve(rt, run_id, request_id, approver=by, expires_for=expires_for,
                                   effect_digest=effect_digest)
            self.record(run_id, "approve", by, reason, request_id=request_id,
                        receipt_id=receipt.receipt_id, effect_digest=receipt.effect_digest)
        return receipt

    def deny(self, run_id: str, request_id: str, *, by: str, reason: str) -> None:
        """Refuse the pending request (the gate's ``reject``); the run wakes and is refused."""
        self._who("deny", by, reason)
        gate, rt = self._gate("deny"), self._rt()
        with self.store.transaction():
            gate.reject(rt, run_id, request_id, approver=by, reason=reason)
            self.record(run_id, "deny", by, reason, request_id=request_id)

    def revoke(self, run_id: str, what: str, *, by: str, reason: str) -> None:
        """Revoke ``receipt:<id>``, ``approver:<name>``, ``capability:<id>`` or
        ``credential:<name>`` for the run (checked at dispatch)."""
        self._who("revoke", by, reason)
        gate, rt = self._gate("revoke"), self._rt()
        with self.store.transaction():
            gate.revoke(rt, run_id, what)
            self.record(run_id, "revoke", by, reason, what=what)

    # -- signals and cancellation -------------------------------------------------------------

    def signal(self, run_id: str, name: str, payload: Any = None, *, by: str, reason: str
               ) -> None:
        """Deliver the signal ``name`` (``Runtime.signal``; the first payload wins)."""
        self._who("signal", by, reason)
        rt = self._rt()
        with self.store.transaction():
            rt.signal(run_id, name, payload)
            self.record(run_id, "signal", by, reason, name=name, payload=payload)

    def cancel(self, run_id: str, *, by: str, reason: str) -> bool:
        """Request cancellation (:func:`minirt.cancel.cancel`); False if already requested
        or the run ended (still journaled, unless the run ended)."""
        from .cancel import cancel

        self._who("cancel", by, reason)
        with self.store.transaction():
            changed = cancel(self.store, run_id, reason, by=by, at=self.clock.now())
            if not self.store.get_run(run_id).run.is_terminal:
                self.record(run_id, "cancel", by, reason, changed=changed)
        return changed

    # -- UNCERTAIN ------------------------------------------------------------------------------

    def resolve(self, run_id: str, *, outcome: str, by: str, reason: str,
                effect_key: str | None = None, value: Any = None,
                evidence: Mapping[str, Any] | None = None) -> Unresolved:
        """Settle the run's unresolved effect: ``happened`` with ``value`` (the step's result,
        from the provider's record) or ``did_not_happen`` (sent again, same key). ``evidence``
        is journaled as given (the provider's record, the lookup that found nothing)."""
        self._who("resolve", by, reason)
        if outcome not in (HAPPENED, DID_NOT_HAPPEN):
            raise OperatorInputInvalid(action="resolve", reason=f"outcome must be {HAPPENED!r} "
                                       f"or {DID_NOT_HAPPEN!r}, not {outcome!r}")
        if outcome == HAPPENED and value is None:
            raise OperatorInputInvalid(action="resolve", reason="'happened' needs the effect's "
                                       "result (--value JSON, from the provider's record)")
        with self.store.transaction():
            run = self.store.get_run(run_id).run
            if run.state is not RunState.UNCERTAIN:
                raise NothingToResolve(run_id=run_id, reason=f"it is {run.state.value}, not "
                                       "uncertain")
            open_ = unresolved(self.store, run_id)
            if effect_key is not None:
                open_ = [u for u in open_ if u.effect_key == effect_key]
            if len(open_) != 1:
                raise NothingToResolve(run_id=run_id, reason=(
                    f"no unresolved intent with effect key {effect_key}" if not open_ else
                    f"{len(open_)} unresolved intents: name one with --effect-key"))
            target = open_[0]
            prior = resolution_of(self.store, run_id, target.effect_key)
            if prior is not None and int(prior.get("attempt", 0)) == target.attempt:
                raise AlreadyResolved(run_id=run_id, effect_key=target.effect_key,
                                      by=prior["by"], outcome=prior["outcome"])
            record = {"outcome": outcome, "value": normalise(value), "by": by, "reason": reason,
                      "attempt": target.attempt, "step": target.step, "tool": target.tool,
                      "evidence": normalise(dict(evidence or {})), "at": self.clock.now()}
            self.store.set_kv(run_id, {K_RESOLUTION + target.effect_key: canonical_json(record)})
            self.record(run_id, "resolve", by, reason, effect_key=target.effect_key,
                        step=target.step, tool=target.tool, outcome=outcome,
                        attempt=target.attempt, value=value, evidence=dict(evidence or {}))
        return target

    # -- retry and fork -------------------------------------------------------------------------

    def fork(self, run_id: str, position: int, *, by: str, reason: str,
             new_run_id: str | None = None) -> Forked:
        """Copy the run's journal up to step position ``position`` (exclusive) into a new run
        (PENDING; a worker or :meth:`resume` executes it). See the module docstring."""
        self._who("fork", by, reason)
        return copy_run(self, run_id, position, new_run_id or free_id(self.store, run_id, "fork"),
                        action="fork", by=by, reason=reason)

    def retry(self, run_id: str, *, by: str, reason: str, new_run_id: str | None = None,
              timeout: float | None = None) -> Forked:
        """Re-run the run from its last consistent step: a FAILED/CANCELLED run as a new run
        (a fork at :func:`last_consistent`), a parked PENDING/RUNNING run executed again now."""
        self._who("retry", by, reason)
        run = self.store.get_run(run_id).run
        if run.state in (RunState.FAILED, RunState.CANCELLED):
            cut = last_consistent(self.store, run_id)
            return copy_run(self, run_id, cut, new_run_id or free_id(self.store, run_id, "retry"),
                            action="retry", by=by, reason=reason)
        if run.state in (RunState.PENDING, RunState.RUNNING):
            if self.runtime is None:
                raise NeedsApp(action="retry", what="Runtime")
            self.record(run_id, "retry", by, reason, state=run.state.value)
            self.resume(run_id, wait=True, timeout=timeout)
            return Forked(run_id, run_id, last_consistent(self.store, run_id), 0, True)
        todo = {RunState.UNCERTAIN: "resolve its unresolved effect (minirt resolve)",
                RunState.WAITING: ("roll back and resume it (it is parked for a divergence)"
                                   if diverged(self.store, run_id) else
                                   "deliver what it waits for (signal, approve or deny)"),
                RunState.CANCELLING: "let a worker finish the cancellation",
                RunState.SUCCEEDED: "it succeeded; fork it to run it differently"}
        raise CannotFork(run_id=run_id, reason=f"retry does not apply to a {run.state.value} "
                         f"run: {todo.get(run.state, 'nothing to retry')}")

    def resume_diverged(self, run_id: str, *, by: str, reason: str, wait: bool = True,
                        timeout: float | None = None) -> Any:
        """Resume a run parked for a divergence, after the deploy was rolled back (or the change
        marked): journal an ``operator`` event (``resume``, with the step), then
        ``Runtime.resume``, which replays it again. Code that still differs parks it again
        (WAITING, diverged). Refused for any other run (:class:`NotDiverged`)."""
        self._who("resume", by, reason)
        found = diverged(self.store, run_id)
        if found is None:
            raise NotDiverged(run_id=run_id, state=self.store.get_run(run_id).run.state.value)
        if self.runtime is None:
            raise NeedsApp(action="resume", what="Runtime")
        self.record(run_id, "resume", by, reason, diverged_step=found["step"])
        return self.resume(run_id, wait=wait, timeout=timeout)

    def resume(self, run_id: str, *, wait: bool = True, timeout: float | None = None) -> Any:
        """Execute the run now with the application's runtime (after a resolve, an approval):
        ``Runtime.resume(run_id, wait=...)``."""
        if self.runtime is None:
            raise NeedsApp(action="resume", what="Runtime")
        return self.runtime.resume(run_id, wait=wait, timeout=timeout)
