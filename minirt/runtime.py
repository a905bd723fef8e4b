"""The agent loop: run a workflow function whose every step goes through the journal.

A **workflow** is a plain function ``fn(ctx, input) -> result``. Everything it does that is not a
pure function of its input goes through the context:

- ``ctx.step(name, fn, *args)``: a local computation whose result is recorded (time, randomness);
- ``ctx.decide(prompt)``: a model output, recorded as a decision and never re-asked on replay;
- ``ctx.call_tool(tool, args)``: a tool call: validated, **intent** journaled, dispatched with its
  effect key, **result** journaled;
- ``ctx.wait_for(name)``: a durable wait for a signal (an approval, a timer): the run leaves the
  worker and comes back when :meth:`Runtime.signal` delivers it.

:meth:`Runtime.resume` re-executes the function from the top after any crash: every position
that has a recorded outcome returns it without touching the outside world (see
:mod:`minirt.journal`), an intent without an outcome goes to the reconciliation policy, and the
first unrecorded position continues for real.

Guarantees: a step whose outcome was journaled never runs again; a tool whose intent was journaled
is never sent again unless the policy says it is safe (a pure or keyed-idempotent tool, or a lookup
that says the effect did not happen); a zombie worker's writes are fenced out. Not guaranteed:
that a tool with no key and no lookup runs exactly once across a crash in W3/W4: the run goes to
UNCERTAIN and says so instead.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .canonical import bounded_repr, canonical_json, digest, normalise
from .clock import Clock, SystemClock
from .errors import (
    MinirtError,
    RecordedError,
    ToolError,
    describe_exception,
    from_record,
    safe_str,
)
from .faults import Faults
from .idempotency import KeyFunction, effect_key
from .journal import Journal, NonDeterminism, Position, UnresolvedIntent, describe, new_event
from .run import RunEvent, RunIsTerminal, RunState, StaleIncarnation
from .store.base import Event, NewEvent, Store, StoreFault
from .tools import EffectClass, OutcomeUnknown, Tool, ToolCall, has_lookup

Workflow = Callable[["Context", Any], Any]


class UnknownTool(MinirtError):
    fields = ("tool", "known")
    template = "no tool named {tool!r} is registered (known: {known})"


class UnknownWorkflow(MinirtError):
    fields = ("workflow", "known")
    template = "no workflow named {workflow!r} is registered (known: {known})"


class RunFailed(MinirtError):
    """Raised by :meth:`RunOutcome.result` for a run that ended in failure; wraps the cause."""

    fields = ("run_id", "error")
    template = "run {run_id} failed: {error}"


class RunNotFinished(MinirtError):
    fields = ("run_id", "state")
    template = "run {run_id} has not finished (state {state})"


class Suspend(BaseException):  # noqa: N818 - control flow, not an error
    """Internal: the workflow waits for a signal; the runtime parks the run as WAITING."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


@dataclass(frozen=True)
class RunOutcome:
    """Where a call to :meth:`Runtime.run` left the run."""

    run_id: str
    state: RunState
    value: Any = None
    error: MinirtError | None = None

    def result(self) -> Any:
        """The workflow's return value; raises :class:`RunFailed` or :class:`RunNotFinished`."""
        if self.state is RunState.SUCCEEDED:
            return self.value
        if self.state is RunState.FAILED:
            raise RunFailed(run_id=self.run_id, error=str(self.error))
        raise RunNotFinished(run_id=self.run_id, state=self.state.value)


@dataclass(frozen=True)
class Resolution:
    """A reconciliation policy's answer for an intent without an outcome."""

    kind: str  # "result": the effect happened, here is its result; "redispatch": safe to send
    value: Any = None  # again with the same effect key; "unknown": cannot tell
    reason: str = ""


ReconcilePolicy = Callable[["Context", Tool, ToolCall], Resolution]


def reconcile_default(ctx: Context, tool: Tool, call: ToolCall) -> Resolution:
    """Module 03's policy: ask the provider if the tool can be asked, else decide by effect class.

    A lookup that finds the effect returns its result; one that does not find it allows a resend
    with the same key. Without a lookup, only pure and keyed-idempotent tools are resent; anything
    else stays unknown. (:mod:`minirt.idempotency` adds retention windows.)
    """
    if has_lookup(tool):
        found = tool.lookup(call)  # type: ignore[attr-defined]
        if found.found:
            return Resolution("result", found.result, "found at the provider by effect key")
        return Resolution("redispatch", reason="the provider has no effect with this key")
    if tool.effect in (EffectClass.PURE, EffectClass.KEYED):
        return Resolution("redispatch", reason=f"{tool.effect.value}: safe to send again")
    return Resolution("unknown", reason=f"{tool.effect.value} tool without lookup")


class Model(Protocol):
    """A language model as minirt sees it: a prompt in, JSON data out."""

    def complete(self, prompt: Any, *, index: int) -> Any: ...


class ScriptedModel:
    """A deterministic model: the ``index``-th decision of a run gets ``outputs[index]``.

    ``outputs`` may also be a function ``(prompt, index) -> output``. Because the index counts
    decisions in the run (replayed ones included), a resumed run gets the same script.
    """

    def __init__(self, outputs: list[Any] | Callable[[Any, int], Any]) -> None:
        self.outputs = outputs
        self.calls = 0  # how many times the model was really asked (replays do not ask)

    def complete(self, prompt: Any, *, index: int) -> Any:
        self.calls += 1
        if callable(self.outputs):
            return self.outputs(prompt, index)
        return self.outputs[index]


class RuntimeHook:
    """Extension points used by later modules (approvals, budgets, cancellation, traces).

    Every method is optional; the base class does nothing. Hooks run inside the worker and may
    raise a named error to refuse a dispatch.
    """

    def at_checkpoint(self, ctx: Context) -> None:
        """Before every step position (a cooperative cancellation point)."""

    def before_dispatch(self, ctx: Context, tool: Tool, call: ToolCall) -> None:
        """After validation, before the intent is journaled. A :class:`MinirtError` raised here
        refuses the call: it is journaled as ``tool_rejected`` (replay raises it again) and
        nothing is dispatched. Facts to commit with the intent go in ``ctx.pending_kv``."""

    def after_outcome(self, ctx: Context, call: ToolCall, kind: str, payload: Any) -> None:
        """After a tool outcome is journaled (or replayed: ``ctx.replaying``)."""

    def before_redispatch(self, ctx: Context, tool: Tool, call: ToolCall) -> None:
        """Before a resend of an unresolved call (``call.attempt`` is the new attempt's number),
        after reconciliation allowed it. A :class:`MinirtError` raised here refuses the resend;
        raise an :class:`~minirt.journal.UnresolvedIntent` to leave the outcome unknown."""

    def before_decision(self, ctx: Context, step: int, name: str, prompt: Any) -> None:
        """Before the model is really asked at ``step`` (never on replay). A :class:`MinirtError`
        raised here refuses the decision: nothing is asked or journaled, the run fails."""

    def on_position(self, ctx: Context, step: int, kind: str, name: str, replayed: bool) -> None:
        """After any step position completes, fresh or replayed."""

    def on_run_end(self, ctx: Context, state: RunState) -> None:
        """After the run's final transition for this incarnation (success, failure, wait)."""


class Context:
    """What a workflow sees. One per execution of a run (a fresh one after every crash)."""

    def __init__(self, runtime: Runtime, run_id: str, incarnation: int, journal: Journal,
                 input: Any) -> None:
        self.runtime = runtime
        self.run_id = run_id
        self.incarnation = incarnation
        self.journal = journal
        self.input = input
        self._position = 0  # Invariant: the next step position; advances identically on replay
        self._decisions = 0
        self.replaying = False  # a fact: the last position came from the journal
        self.uncertain = False  # a fact: the run is UNCERTAIN (an intent awaits reconciliation)
        self.deadline_at: float | None = None  # the innermost deadline scope's (minirt.cancel)
        # Invariant: kv that before_dispatch hooks staged for the call being dispatched; it
        # commits in the same transaction as that call's intent, or is dropped with a refusal.
        self.pending_kv: dict[str, str | None] = {}

    # -- helpers ------------------------------------------------------------------------------

    def _next(self) -> tuple[int, Position | None]:
        for hook in self.runtime.hooks:
            hook.at_checkpoint(self)
        p = self._position
        self._position += 1
        pos = self.journal.at(p)
        self.replaying = pos is not None
        return p, pos

    def _append(self, *events: NewEvent, kv: dict[str, str | None] | None = None
                ) -> list[Event]:
        rt = self.runtime
        rows = rt.store.append(self.run_id, self.incarnation, events,
                               lease_until=rt.clock.now() + rt.lease_for, kv=kv)
        self.journal.note(rows)
        return rows

    def _diverged(self, step: int, recorded: Event | None, requested: str) -> NonDeterminism:
        return NonDeterminism(run_id=self.run_id, step=step, recorded=describe(recorded),
                              requested=requested)

    def _positioned(self, step: int, kind: str, name: str, replayed: bool) -> None:
        for hook in self.runtime.hooks:
            hook.on_position(self, step, kind, name, replayed)

    @property
    def position(self) -> int:
        return self._position

    # -- steps --------------------------------------------------------------------------------

    def step(self, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run ``fn(*args, **kwargs)`` once; on replay return (or raise) what it returned.

        Replay matches a step by its position and ``name`` only, not by ``fn`` or its arguments:
        a step whose inputs changed since it was recorded replays the recorded value. Put what
        the step depends on in its name (``f"price:{sku}"``) when that matters."""
        p, pos = self._next()
        if pos is not None:
            rec = self.journal.payload(pos.opening) if pos.opening else None
            if pos.opening is None or pos.opening.kind != "step" or rec.get("name") != name:
                raise self._diverged(p, pos.opening, f"step {name!r}")
            self._positioned(p, "step", name, True)
            if "error" in rec:
                raise from_record(rec["error"])
            return rec["value"]
        faults = self.runtime.faults
        try:
            value = normalise(fn(*args, **kwargs))
        except MinirtError as exc:
            faults.hit("before_step_record", step=p)
            self._append(new_event(self.runtime.store, "step", p,
                                   {"name": name, "error": exc.to_record()}, self.now_raw()))
            faults.hit("after_step_record", step=p)
            raise
        faults.hit("before_step_record", step=p)
        self._append(new_event(self.runtime.store, "step", p,
                               {"name": normalise(name), "value": value}, self.now_raw(),
                               normalised=True))
        faults.hit("after_step_record", step=p)
        self._positioned(p, "step", name, False)
        return value

    def now(self) -> float:
        """The time, recorded as a step, so replay sees the same time."""
        return self.step("now", self.runtime.clock.now)

    def now_raw(self) -> float:
        return self.runtime.clock.now()

    def decide(self, prompt: Any, *, name: str = "decide", model: Model | None = None) -> Any:
        """Ask the model; on replay return the recorded decision without asking again."""
        p, pos = self._next()
        index = self._decisions
        self._decisions += 1
        prompt_digest = digest(prompt)
        if pos is not None:
            rec = self.journal.payload(pos.opening) if pos.opening else None
            if (pos.opening is None or pos.opening.kind != "decision" or rec.get("name") != name
                    or rec.get("prompt_digest") != prompt_digest):
                raise self._diverged(p, pos.opening, f"decision {name!r}")
            self._positioned(p, "decision", name, True)
            return rec["output"]
        m = model or self.runtime.model
        if m is None:
            raise MinirtError(detail="ctx.decide needs a model: Runtime(model=...)")
        for hook in self.runtime.hooks:
            hook.before_decision(self, p, name, prompt)
        output = normalise(m.complete(prompt, index=index))
        faults = self.runtime.faults
        faults.hit("before_decision_record", step=p)
        self._append(new_event(self.runtime.store, "decision", p,
                               {"name": name, "prompt_digest": prompt_digest, "output": output},
                               self.now_raw()))
        faults.hit("after_decision_record", step=p)
        self._positioned(p, "decision", name, False)
        return output

    # -- tools --------------------------------------------------------------------------------

    def call_tool(self, tool_name: str, args: Mapping[str, Any] | None = None, **kw: Any) -> Any:
        """Call a tool durably: validate, journal the intent, dispatch with the effect key,
        journal the outcome. On replay, return the recorded outcome."""
        rt = self.runtime
        # Whatever the model produced reaches the tool's own gate (prepare), which names the
        # problem; only a mapping is merged with keyword arguments.
        raw: Any = {**args, **kw} if isinstance(args, Mapping) else (kw if args is None else args)
        tool = rt.tool(tool_name)
        p, pos = self._next()
        raw_digest = _safe_digest(raw)
        if pos is not None:
            return self._replay_tool(p, pos, tool, raw_digest)
        try:  # a refusal by prepare or by a hook is journaled, so replay raises it again
            prepared = normalise(tool.prepare(dict(raw) if isinstance(raw, Mapping) else raw,
                                              rt.scopes))
            if rt.key_for is effect_key:  # the default: reuse the digest of the normalised args
                key = effect_key(self.run_id, p, tool_name, prepared,
                                 args_digest=digest(prepared, normalised=True))
            else:
                key = rt.key_for(self.run_id, p, tool_name, prepared)
            call = ToolCall(self.run_id, p, tool_name, prepared, key, 1, self.incarnation,
                            rt.scopes, self.deadline_at)
            self.pending_kv = {}
            for hook in rt.hooks:
                hook.before_dispatch(self, tool, call)
        except MinirtError as exc:
            self._append(new_event(rt.store, "tool_rejected", p,
                                   {"tool": tool_name, "args_digest": raw_digest,
                                    "error": exc.to_record()}, self.now_raw()))
            raise
        rt.faults.hit("before_intent", step=p, tool=tool_name)
        staged, self.pending_kv = self.pending_kv, {}
        self._append(new_event(rt.store, "intent", p,
                               {"tool": normalise(tool_name), "args": prepared,
                                "args_digest": raw_digest, "effect_key": normalise(call.effect_key),
                                "effect": tool.effect.value},
                               self.now_raw(), normalised=True), kv=staged or None)
        rt.faults.hit("after_intent", step=p, tool=tool_name)
        return self._dispatch(tool, call)

    def _replay_tool(self, p: int, pos: Position, tool: Tool, raw_digest: str) -> Any:
        opening = pos.opening
        rec = self.journal.payload(opening) if opening else {}
        if (opening is None or opening.kind not in ("intent", "tool_rejected")
                or rec.get("tool") != tool.name or rec.get("args_digest") != raw_digest):
            raise self._diverged(p, opening, f"tool {tool.name!r} with args digest "
                                             f"{raw_digest[:19]}")
        if opening.kind == "tool_rejected":
            raise from_record(rec["error"])
        call = ToolCall(self.run_id, p, tool.name, rec["args"], rec["effect_key"],
                        1 + sum(1 for e in pos.extra if e.kind == "attempt"), self.incarnation,
                        self.runtime.scopes)
        if pos.outcome is None:
            return self._reconcile(tool, call, "recorded intent without an outcome")
        out = self.journal.payload(pos.outcome)
        self._positioned(p, "tool", tool.name, True)
        for hook in self.runtime.hooks:
            hook.after_outcome(self, call, pos.outcome.kind, out)
        if pos.outcome.kind == "tool_error":
            raise from_record(out["error"])
        return out["value"]

    def _dispatch(self, tool: Tool, call: ToolCall) -> Any:
        rt = self.runtime
        try:
            value = tool.invoke(call)
        except OutcomeUnknown as exc:
            return self._reconcile(tool, call, str(exc))
        except MinirtError as exc:  # the tool ran and said no (or its output broke the contract)
            rt.faults.hit("after_provider_commit", step=call.step, tool=call.tool)
            rt.faults.hit("before_result", step=call.step, tool=call.tool)
            return self._record_outcome(call, "tool_error", {"effect_key": call.effect_key,
                                                             "error": exc.to_record()}, exc)
        except Exception as exc:
            if tool.effect is EffectClass.PURE:
                err = RecordedError(type_name=type(exc).__name__, detail=safe_str(exc))
                return self._record_outcome(call, "tool_error",
                                            {"effect_key": call.effect_key,
                                             "error": err.to_record()}, err)
            return self._reconcile(tool, call, describe_exception(exc))
        rt.faults.hit("after_provider_commit", step=call.step, tool=call.tool)
        value = normalise(value)
        rt.faults.hit("before_result", step=call.step, tool=call.tool)
        return self._record_outcome(call, "tool_result",
                                    {"effect_key": normalise(call.effect_key), "value": value},
                                    normalised=True)

    def _record_outcome(self, call: ToolCall, kind: str, payload: dict[str, Any],
                        error: MinirtError | None = None, extra: tuple[NewEvent, ...] = (),
                        *, normalised: bool = False) -> Any:
        rt = self.runtime
        self._append(*extra, new_event(rt.store, kind, call.step, payload, self.now_raw(),
                                       normalised=normalised))
        rt.faults.hit("after_result", step=call.step, tool=call.tool)
        self._positioned(call.step, "tool", call.tool, False)
        for hook in rt.hooks:
            hook.after_outcome(self, call, kind, payload)
        if error is not None:
            raise error
        return payload["value"]

    def _reconcile(self, tool: Tool, call: ToolCall, why: str) -> Any:
        rt = self.runtime
        res = rt.reconcile(self, tool, call)
        if self.uncertain and res.kind in ("result", "redispatch"):
            rt._finish(self, "effect_resolved", {"effect_key": call.effect_key})
            self.uncertain = False
        note = new_event(rt.store, "reconciled", call.step,
                         {"effect_key": call.effect_key, "resolution": res.kind,
                          "reason": res.reason, "why": why}, self.now_raw())
        if res.kind == "result":
            return self._record_outcome(call, "tool_result",
                                        {"effect_key": call.effect_key,
                                         "value": normalise(res.value)}, extra=(note,))
        if res.kind == "redispatch":
            attempt = call.attempt + 1
            if attempt > rt.max_attempts:
                raise UnresolvedIntent(run_id=self.run_id, step=call.step, tool=call.tool,
                                       effect_key=call.effect_key,
                                       reason=f"gave up after {rt.max_attempts} attempts")
            resend = ToolCall(call.run_id, call.step, call.tool, call.args, call.effect_key,
                              attempt, self.incarnation, call.scopes, call.deadline_at)
            for hook in rt.hooks:
                hook.before_redispatch(self, tool, resend)
            self._append(note, new_event(rt.store, "attempt", call.step,
                                         {"effect_key": call.effect_key, "attempt": attempt},
                                         self.now_raw()))
            return self._dispatch(tool, resend)
        raise UnresolvedIntent(run_id=self.run_id, step=call.step, tool=call.tool,
                               effect_key=call.effect_key, reason=res.reason or why)

    # -- waits --------------------------------------------------------------------------------

    def wait_for(self, name: str) -> Any:
        """Wait durably for the signal ``name``; return its payload. The run leaves the worker
        (state WAITING) until :meth:`Runtime.signal` delivers it; nothing holds a lease meanwhile."""
        rt = self.runtime
        p, pos = self._next()
        if pos is not None:
            rec = self.journal.payload(pos.opening) if pos.opening else None
            if pos.opening is None or pos.opening.kind != "wait" or rec.get("name") != name:
                raise self._diverged(p, pos.opening, f"wait for {name!r}")
            if pos.outcome is not None:
                self._positioned(p, "wait", name, True)
                return self.journal.payload(pos.outcome)["payload"]
        else:
            self._append(new_event(rt.store, "wait", p, {"name": name}, self.now_raw()))
        raw = rt.store.kv_get(self.run_id, f"signal:{name}")
        if raw is None:
            raise Suspend(name)
        payload = normalise(json.loads(raw))
        self._append(new_event(rt.store, "wait_result", p, {"name": name, "payload": payload},
                               self.now_raw()))
        self._positioned(p, "wait", name, False)
        return payload


def _safe_digest(value: Any) -> str:
    """The digest of arguments as the code passed them, even when they are not canonical JSON
    (NaN, a set, a lone surrogate): those still need a stable identity so that replay can check
    the call and re-raise the recorded refusal."""
    try:
        return digest(value)
    except (MinirtError, TypeError, ValueError, UnicodeError):
        import hashlib

        try:
            text = repr(value).encode("utf-8", "backslashreplace")
        except (RecursionError, ValueError):  # too deep, or an int too long for repr
            text = bounded_repr(value).encode("utf-8", "backslashreplace")
        return "sha256-repr:" + hashlib.sha256(text).hexdigest()


class Runtime:
    """Runs workflows durably on a store. One runtime = one worker identity."""

    #: The context class each execution gets; a subclass may change how positions replay.
    context_class: type[Context] = Context

    def __init__(self, store: Store, *, tools: Iterable[Tool] = (),
                 workflows: Mapping[str, Workflow] | None = None, model: Model | None = None,
                 clock: Clock | None = None, faults: Faults | None = None,
                 worker_id: str | None = None, lease_for: float = 30.0,
                 reconcile: ReconcilePolicy | None = None, hooks: Iterable[RuntimeHook] = (),
                 scopes: Iterable[str] = (), max_attempts: int = 5,
                 key_for: KeyFunction | None = None) -> None:
        self.store = store
        self.tools: dict[str, Tool] = {}
        for t in tools:
            self.add_tool(t)
        self.workflows: dict[str, Workflow] = dict(workflows or {})
        self.model = model
        self.clock = clock or SystemClock()
        self.faults = faults or Faults()
        self.worker_id = worker_id or f"w-{uuid.uuid4().hex[:8]}"
        self.lease_for = float(lease_for)
        self.reconcile = reconcile or reconcile_default
        self.hooks: list[RuntimeHook] = list(hooks)
        self.scopes = frozenset(scopes)
        self.max_attempts = int(max_attempts)
        # How a logical call is named (minirt.idempotency): the default binds the key to the
        # payload; a custom one (a business key) should be a KeyRegistry, which refuses a second
        # payload under one key before anything is journaled or sent.
        self.key_for: KeyFunction = key_for or effect_key

    # -- registration -------------------------------------------------------------------------

    def add_tool(self, t: Tool) -> Tool:
        self.tools[t.name] = t
        return t

    def tool(self, name: str) -> Tool:
        try:
            return self.tools[name]
        except KeyError:
            raise UnknownTool(tool=name, known=sorted(self.tools)) from None

    def workflow(self, fn: Workflow | None = None, *, name: str | None = None) -> Any:
        """Register a workflow (usable as ``@rt.workflow``)."""

        def reg(f: Workflow) -> Workflow:
            self.workflows[name or f.__name__] = f
            return f

        return reg(fn) if fn is not None else reg

    # -- runs ---------------------------------------------------------------------------------

    def start(self, workflow: str, input: Any = None, *, run_id: str | None = None) -> str:
        """Create a run (PENDING) and journal its input. With an explicit ``run_id`` this is
        get-or-create: starting the same run twice returns the same id; a different input for an
        existing id raises DuplicateRun."""
        from .ids import check_run_id
        from .run import DuplicateRun, RunNotFound

        if workflow not in self.workflows:
            raise UnknownWorkflow(workflow=workflow, known=sorted(self.workflows))
        # None means "generate one"; anything else must be a usable id (never silently replaced)
        run_id = f"run-{uuid.uuid4().hex[:12]}" if run_id is None else check_run_id(run_id)
        text = canonical_json(input)
        try:
            rec = self.store.get_run(run_id)
        except RunNotFound:
            pass
        else:
            if rec.workflow == workflow and rec.input_json == text:
                return run_id
            raise DuplicateRun(run_id=run_id)
        now = self.clock.now()
        self.store.create_run(run_id, workflow, text, now, events=[
            NewEvent("run_started", None, canonical_json({"workflow": workflow, "input": input}),
                     now)])
        return run_id

    def run(self, run_id: str) -> RunOutcome:
        """Claim the run and execute it until it ends or waits. Safe after any crash."""
        rec = self.store.get_run(run_id)
        if rec.run.is_terminal:
            return self.outcome(run_id)
        if rec.run.state is RunState.WAITING:  # nothing to do until a signal wakes it
            return RunOutcome(run_id, RunState.WAITING)
        now = self.clock.now()
        run = self.store.transition(
            run_id, RunEvent("claim", at=now, worker_id=self.worker_id, lease_for=self.lease_for),
            events=[self._transition_event("claim", now)])
        return self._execute(run_id, rec.workflow, rec.input_json, run.incarnation)

    resume = run

    def run_workflow(self, workflow: str, input: Any = None, *, run_id: str | None = None
                     ) -> RunOutcome:
        return self.run(self.start(workflow, input, run_id=run_id))

    def work(self, *, max_runs: int | None = None,
             workflows: Iterable[str] | None = None) -> list[RunOutcome]:
        """Worker loop: claim runnable runs (pending, or with an expired lease) until none is
        left or ``max_runs`` were executed."""
        done: list[RunOutcome] = []
        names = list(workflows) if workflows is not None else list(self.workflows)
        while max_runs is None or len(done) < max_runs:
            now = self.clock.now()
            rec = self.store.claim_next(self.worker_id, now, self.lease_for, names,
                                        events=[self._transition_event("claim", now)])
            if rec is None:
                break
            done.append(self._execute(rec.run.run_id, rec.workflow, rec.input_json,
                                      rec.run.incarnation))
        return done

    def _transition_event(self, kind: str, at: float, **detail: Any) -> NewEvent:
        return NewEvent("transition", None,
                        canonical_json({"event": kind, "worker_id": self.worker_id, **detail}), at)

    def _finish(self, ctx: Context, kind: str, detail: dict[str, Any]) -> None:
        now = self.clock.now()
        self.store.transition(ctx.run_id, RunEvent(kind, at=now, incarnation=ctx.incarnation,
                                                   detail=detail),
                              events=[self._transition_event(kind, now, **detail)])

    def _execute(self, run_id: str, workflow: str, input_json: str, incarnation: int
                 ) -> RunOutcome:
        fn = self.workflows.get(workflow)
        if fn is None:
            raise UnknownWorkflow(workflow=workflow, known=sorted(self.workflows))
        journal = Journal.load(self.store, run_id)
        ctx = self.context_class(self, run_id, incarnation, journal, json.loads(input_json))
        self.faults.hit("after_claim", run_id=run_id)
        # An UNCERTAIN run replays up to its unresolved intent; reconciling it moves the run back
        # to RUNNING there (see Context._reconcile), not at the end of the workflow.
        ctx.uncertain = self.store.get_run(run_id).run.state is RunState.UNCERTAIN
        try:
            value = fn(ctx, ctx.input)
        except Suspend as s:
            return self._suspend(ctx, s.name)
        except StaleIncarnation:
            raise  # a zombie: another incarnation owns the run now; write nothing, not even "fail"
        except StoreFault:
            raise  # the store could not record the last write (full, lost): a crash, not a failure
        except UnresolvedIntent as exc:
            if self.store.get_run(run_id).run.state is RunState.RUNNING:
                self._finish(ctx, "effect_unknown", {"error": exc.to_record()})
            self._end(ctx, RunState.UNCERTAIN)
            return RunOutcome(run_id, RunState.UNCERTAIN, error=exc)
        except (MinirtError, ToolError) as exc:
            return self._fail(ctx, exc)
        except Exception as exc:  # a bug in the workflow: recorded, so it is visible and final
            return self._fail(ctx, RecordedError(type_name=type(exc).__name__,
                                                 detail=safe_str(exc)))
        try:
            value = normalise(value, "result")
        except MinirtError as exc:  # a result that is not JSON: the run fails, named
            return self._fail(ctx, exc)
        if self.store.get_run(run_id).run.state is RunState.UNCERTAIN:
            self._finish(ctx, "effect_resolved", {})
        self.faults.hit("before_complete", run_id=run_id)
        self._finish(ctx, "complete", {"result": value})
        self._end(ctx, RunState.SUCCEEDED)
        return RunOutcome(run_id, RunState.SUCCEEDED, value)

    def _suspend(self, ctx: Context, name: str) -> RunOutcome:
        """Park the run as WAITING for the signal ``name``.

        The wait and a last look for the signal commit in one transaction, and :meth:`signal`
        checks and writes in one transaction too, so a signal that lands while the run parks is
        never lost: the run is woken at once (PENDING) instead of waiting forever.
        """
        with self.store.transaction():
            if self.store.get_run(ctx.run_id).run.state is RunState.UNCERTAIN:
                self._finish(ctx, "effect_resolved", {})  # this replay settled it (as in _fail)
            self._finish(ctx, "wait", {"waiting_for": name})
            if self.store.kv_get(ctx.run_id, f"signal:{name}") is not None:
                now = self.clock.now()
                self.store.transition(ctx.run_id, RunEvent("wake", at=now),
                                      events=[self._transition_event("wake", now, signal=name)])
        self._end(ctx, RunState.WAITING)
        return RunOutcome(ctx.run_id, self.store.get_run(ctx.run_id).run.state)

    def _fail(self, ctx: Context, exc: MinirtError) -> RunOutcome:
        if self.store.get_run(ctx.run_id).run.state is RunState.UNCERTAIN:
            self._finish(ctx, "effect_resolved", {})
        self._finish(ctx, "fail", {"error": exc.to_record()})
        self._end(ctx, RunState.FAILED)
        return RunOutcome(ctx.run_id, RunState.FAILED, error=exc)

    def _end(self, ctx: Context, state: RunState) -> None:
        for hook in self.hooks:
            hook.on_run_end(ctx, state)

    def outcome(self, run_id: str) -> RunOutcome:
        """The run's current outcome as recorded (no execution)."""
        from .journal import verified_end

        run = self.store.get_run(run_id).run
        if run.state in (RunState.SUCCEEDED, RunState.FAILED):  # from the verified journal
            end = verified_end(self.store, run_id, run.state.value, run.detail)
        if run.state is RunState.SUCCEEDED:
            return RunOutcome(run_id, run.state, end.get("result"))
        if run.state is RunState.FAILED:
            return RunOutcome(run_id, run.state, error=from_record(end.get("error") or {}))
        return RunOutcome(run_id, run.state)

    def signal(self, run_id: str, name: str, payload: Any = None) -> None:
        """Deliver the signal ``name`` to a run (idempotent: the first payload wins). A waiting
        run becomes PENDING again, ready for any worker to claim. A finished run refuses a new
        signal with :class:`~minirt.run.RunIsTerminal`."""
        key = f"signal:{name}"
        text = canonical_json(payload)
        with self.store.transaction():  # look and write at once (see _suspend)
            if self.store.kv_get(run_id, key) is not None:
                return
            run = self.store.get_run(run_id).run
            if run.is_terminal:  # nothing will ever read it: refuse instead of storing it
                raise RunIsTerminal(run_id=run_id, state=run.state.value, event="signal")
            now = self.clock.now()
            if run.state is RunState.WAITING:
                self.store.transition(run_id, RunEvent("wake", at=now),
                                      events=[self._transition_event("wake", now, signal=name)],
                                      kv={key: text})
            else:
                self.store.set_kv(run_id, {key: text})

    def close(self) -> None:
        self.store.close()
