"""The tool-call pipeline: every dispatch of a tool, whoever asks for it, goes through here.

One logical tool call passes these steps, in this order, whether it comes from
``Context.call_tool``, ``Saga.step``, a fan-out wave (:mod:`minirt.scheduler`), a compensation
(:mod:`minirt.effects`) or a cancellation look-up (:mod:`minirt.cancel`):

1. **prepare** (:func:`prepare`): the tool's gate validates and normalises the arguments;
2. **key**: the runtime's ``key_for`` names the logical operation (inside :func:`prepare`);
3. **hooks**: every ``before_dispatch`` hook may refuse it or stage kv for the intent;
4. a refusal becomes a ``tool_rejected`` event (:func:`rejection`), else an **intent**
   (:func:`intent_event`, :func:`write_intent`) is journaled before anything is sent;
5. **invoke** (:func:`invoke`): the tool runs; its answer is classified, never interpreted here;
6. **outcome** (:func:`record_outcome`) or **reconcile** (:func:`reconcile`): an answer is
   journaled; a lost one goes to the reconciliation policy (lookup, resend with the same key,
   or unknown);
7. **replay** (:func:`replay`): a recorded position returns (or raises) what it recorded.

Every :class:`~minirt.tools.ToolCall` is built by ONE factory, :func:`new_call`, which always
fills in the run, the incarnation of the executing worker, the runtime's scopes and the deadline
of the innermost deadline scope in force (``ctx.deadline_at``, replayed identically after a
crash). No other module builds a ToolCall positionally.

How a run journals and settles a call is a :class:`DispatchPolicy`, passed to the runtime
(``Runtime(policy=...)``). The default is minirt's design; the course's deliberately broken
designs (results written before the call, intents held in memory, unknown answers taken as
failures) are policies too, so nothing overrides a private method of :class:`Context`.

Invariant: the fault points of a call are hit in the order ``before_intent``, (``inside_commit``),
``after_intent``, ``after_provider_commit``, ``before_result``, ``after_result`` whichever path
dispatches it, so a crash sweep sees the same windows everywhere.

Guarantees: a refused call is journaled and replays as the same refusal; an intent is durable
before the tool is invoked; an answer that never came is reconciled, never taken as a failure
(by the default policy). Not guaranteed: that a custom policy keeps any of this (the course's
broken designs do not, on purpose).

May import: canonical, errors, idempotency, journal, kinds, resolution, retry, store.base,
tools. Not runtime (it receives a context; the runtime imports this module).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import retry
from .canonical import canonical_json, digest_text, normalise
from .canonical import encode_normalised as _encode
from .errors import MinirtError, RecordedError, describe_exception, from_record, safe_str
from .idempotency import effect_key
from .journal import Position, UnresolvedIntent, new_event, new_event_text
from .kinds import KIND
from .resolution import Kind
from .retry import UNKNOWN_EXCEPTIONS
from .store.base import Event, NewEvent
from .tools import EffectClass, FunctionTool, OutcomeUnknown, Tool, ToolCall

if TYPE_CHECKING:
    from .runtime import Context


# -- the one ToolCall factory ---------------------------------------------------------------------

def new_call(ctx: Context, step: int, tool: str, args: Any, key: str, *,
             attempt: int = 1) -> ToolCall:
    """The call ``ctx`` dispatches at ``step``: always with the executing incarnation, the
    runtime's scopes and the innermost deadline in force (``ctx.deadline_at``)."""
    # positional, in ToolCall's field order (run_id, step, tool, args, effect_key, attempt,
    # incarnation, scopes, deadline_at): this is the hot path of every call
    return ToolCall(ctx.run_id, step, tool, args, key, attempt, ctx.incarnation,
                    ctx.runtime.scopes, ctx.deadline_at)


def resend_of(ctx: Context, call: ToolCall, attempt: int) -> ToolCall:
    """Another attempt of the same logical call (same step, args and effect key)."""
    return new_call(ctx, call.step, call.tool, call.args, call.effect_key, attempt=attempt)


# -- prepare, key, hooks ---------------------------------------------------------------------------

#: A ``prepare`` that returns a plain copy of its arguments (after validating them): the text of
#: what it prepared is the text of what it was given.
_COPYING_PREPARE = FunctionTool.prepare

def prepare(ctx: Context, tool: Tool, step: int, raw: Any
            ) -> tuple[ToolCall, dict[str, str | None]]:
    """Steps 1-3: the gate, the key, the ``before_dispatch`` hooks. Returns the call and the kv
    the hooks staged (to commit with its intent). A :class:`MinirtError` raised here refuses the
    call; the caller journals :func:`rejection`."""
    call, kv, _ = prepare_call(ctx, tool, step, raw)
    return call, kv


def prepare_call(ctx: Context, tool: Tool, step: int, raw: Any, raw_text: str | None = None,
                 raw_digest: str | None = None
                 ) -> tuple[ToolCall, dict[str, str | None], str]:
    """:func:`prepare`, also returning the canonical JSON text of the prepared arguments (what
    :func:`write_intent` puts in the intent as it is, instead of encoding them again).

    ``raw_text``/``raw_digest``: the canonical text and digest of ``raw`` (the caller computed
    them for the replay check: :func:`minirt.steps.args_identity`); when the gate left the
    arguments as they were (same text), the key reuses that digest instead of hashing the same
    bytes again. The text is taken before the hooks run: a hook must not change ``call.args``
    (the key was derived from them)."""
    rt = ctx.runtime
    prepared = normalise(tool.prepare(dict(raw) if type(raw) is dict or isinstance(raw, Mapping)
                                      else raw, rt.scopes))
    if raw_text is not None and type(tool).prepare is _COPYING_PREPARE:
        # FunctionTool.prepare validates and returns a plain copy of the arguments: normalised,
        # they are normalise(raw), whose canonical text the caller already has (raw_text)
        text = raw_text
    else:
        text = canonical_json(prepared, normalised=True)
    if rt.key_for is effect_key:  # the default reuses the digest of the normalised args
        args_digest = (raw_digest if raw_digest is not None and text == raw_text
                       else digest_text(text))
        key = effect_key(ctx.run_id, step, tool.name, prepared, args_digest=args_digest)
    else:
        key = rt.key_for(ctx.run_id, step, tool.name, prepared)
    call = new_call(ctx, step, tool.name, prepared, key)
    ctx.pending_kv = {}
    try:
        for hook in rt.hooks:
            hook.before_dispatch(ctx, tool, call)
        return call, ctx.pending_kv, text
    finally:
        ctx.pending_kv = {}


def rejection(ctx: Context, step: int, tool: str, raw_digest: str, exc: MinirtError) -> NewEvent:
    """The ``tool_rejected`` event of a call refused by its gate or a hook."""
    return new_event(ctx.runtime.store, KIND.TOOL_REJECTED, step,
                     {"tool": tool, "args_digest": raw_digest, "error": exc.to_record()},
                     ctx.now_raw())


# -- the intent ------------------------------------------------------------------------------------

def intent_event(ctx: Context, tool: Tool, call: ToolCall, raw_digest: str, *,
                 outbox: Mapping[str, Any] | None = None,
                 args_text: str | None = None) -> NewEvent:
    """The ``intent`` event of ``call`` (with an ``outbox`` field for a saga's row).

    ``args_text``: the canonical JSON of ``call.args`` (:func:`prepare_call`), spliced into the
    payload as it is, so the arguments are encoded once per call; the payload's text is the same
    as encoding the whole payload (its keys in canonical order: ``args``, ``args_digest``,
    ``effect``, ``effect_key``, ``outbox``, ``tool``)."""
    if args_text is None:
        payload: dict[str, Any] = {"tool": normalise(tool.name), "args": call.args,
                                   "args_digest": raw_digest,
                                   "effect_key": normalise(call.effect_key),
                                   "effect": tool.effect.value}
        if outbox is not None:
            payload["outbox"] = normalise(dict(outbox))
        return new_event(ctx.runtime.store, KIND.INTENT, call.step, payload, ctx.now_raw(),
                         normalised=True)
    enc = _encode
    # the digest is minirt's own ASCII string (a sha256 in hex): nothing to normalise
    text = (f'{{"args":{args_text},"args_digest":{enc(raw_digest)},'
            f'"effect":{_fragment(tool.effect.value)},'
            f'"effect_key":{enc(normalise(call.effect_key))},'
            + (f'"outbox":{enc(normalise(dict(outbox)))},' if outbox is not None else "")
            + f'"tool":{_fragment(tool.name)}}}')
    return new_event_text(ctx.runtime.store, KIND.INTENT, call.step, text, ctx.now_raw())


#: The canonical JSON of the strings every intent of a tool repeats (its name, its effect
#: class), by value: plain ``str`` only (a subclass is normalised and encoded each time).
_FRAGMENTS: dict[str, str] = {}


def _fragment(value: Any) -> str:
    """``encode_normalised(normalise(value))``, remembered for a plain ``str`` (a bounded cache:
    tool names and effect classes are few)."""
    if type(value) is str:
        out = _FRAGMENTS.get(value)
        if out is None:
            out = _encode(normalise(value))
            if len(_FRAGMENTS) < 1024:
                _FRAGMENTS[value] = out
        return out
    return _encode(normalise(value))


def write_intent(ctx: Context, tool: Tool, call: ToolCall, raw_digest: str,
                 kv: Mapping[str, str | None] | None = None, *,
                 outbox: Mapping[str, Any] | None = None,
                 args_text: str | None = None) -> list[Event]:
    """Step 4: journal the intent (with ``kv``) before anything is sent.

    A hook with an ``at_intent_commit(ctx, tool, call)`` method (the approval gate) runs it
    inside the intent's transaction, so what it reads cannot change before the intent commits;
    it refuses by raising :class:`CommitRefused`.

    A saga's outbox row (``outbox`` given) commits in an explicit transaction with the fault
    point ``inside_commit`` open inside it (see :func:`minirt.effects.commit`). ``args_text``:
    see :func:`intent_event`."""
    rt = ctx.runtime
    event = intent_event(ctx, tool, call, raw_digest, outbox=outbox, args_text=args_text)
    rt.faults.hit("before_intent", step=call.step, tool=tool.name)
    if outbox is None and not has_commit_checks(ctx):
        rows = ctx.append(event, kv=dict(kv) if kv else None)
    else:
        try:
            with rt.store.transaction():
                check_at_commit(ctx, tool, call)  # inside the intent's transaction
                rows = ctx.append(event, kv=dict(kv) if kv else None)
                if outbox is not None:
                    rt.faults.hit("inside_commit", step=call.step, tool=tool.name)
        except CommitRefused as refused:  # rolled back: journal the refusal instead
            ctx.append(rejection(ctx, call.step, tool.name, raw_digest, refused.error))
            raise refused.error from None
    rt.faults.hit("after_intent", step=call.step, tool=tool.name)
    return rows


def has_commit_checks(ctx: Context) -> bool:
    """Whether a hook of the runtime has an ``at_intent_commit`` check."""
    hooks = ctx.runtime.hooks
    return bool(hooks) and any(hasattr(h, "at_intent_commit") for h in hooks)


def check_at_commit(ctx: Context, tool: Tool, call: ToolCall) -> None:
    """Every hook's ``at_intent_commit(ctx, tool, call)``, in hook order. The caller holds the
    transaction that commits the intent of ``call`` (:func:`write_intent` for one call, the
    wave's group commit in :mod:`minirt.scheduler` for each child): look, then write. A hook
    refuses by raising :class:`CommitRefused` before it writes anything."""
    for hook in ctx.runtime.hooks:
        check = getattr(hook, "at_intent_commit", None)
        if check is not None:
            check(ctx, tool, call)


class CommitRefused(Exception):  # noqa: N818 - a carrier, never seen outside this module
    """Raised by a hook's ``at_intent_commit`` to refuse a call inside the intent's own
    transaction (which then rolls back); :func:`write_intent` journals ``error`` as the call's
    ``tool_rejected`` and raises it, as for a refusal in :func:`prepare`."""

    def __init__(self, error: MinirtError) -> None:
        super().__init__(str(error))
        self.error = error


# -- invoke and settle -----------------------------------------------------------------------------

#: What :func:`invoke` returns as the first element: how the tool answered.
VALUE, ERROR, UNKNOWN, EXCEPTION = "value", "error", "unknown", "exception"


def invoke(tool: Tool, call: ToolCall) -> tuple[str, Any]:
    """Step 5: run the tool; classify its answer as (``value`` | ``error`` | ``unknown`` |
    ``exception``, payload). Journals nothing (a fan-out child calls it on its own thread)."""
    try:
        return VALUE, tool.invoke(call)
    except OutcomeUnknown as exc:
        return UNKNOWN, exc
    except MinirtError as exc:  # the tool ran and said no (or its output broke the contract)
        return ERROR, exc
    except Exception as exc:
        return EXCEPTION, exc


def is_unknown(tool: Tool, kind: str, value: Any) -> bool:
    """Whether an answer of ``kind`` (``value``: what :func:`invoke` returned with it) leaves the
    effect unknown, to be reconciled: :class:`OutcomeUnknown`, or a lost answer
    (:data:`minirt.retry.UNKNOWN_EXCEPTIONS`) from a tool with an outside effect. Any other
    exception the tool raised is an answer (see :mod:`minirt.retry`). The one classification:
    a sequential call (:func:`settle`) and a fan-out child (:mod:`minirt.scheduler`) both ask
    here."""
    if kind == UNKNOWN:
        return True
    if kind != EXCEPTION or tool.effect is EffectClass.PURE:
        return False
    return isinstance(value, UNKNOWN_EXCEPTIONS)


def why_unknown(kind: str, value: Any) -> str:
    return safe_str(value) if kind == UNKNOWN else describe_exception(value)


#: What :func:`settle` returns with ``defer_retry=True`` when the retry policy scheduled another
#: attempt: the caller runs :func:`retry_attempt` for the call when it is ready to wait.
RETRY_SCHEDULED = object()


def settle(ctx: Context, tool: Tool, call: ToolCall, kind: str, value: Any, *,
           defer_retry: bool = False) -> Any:
    """Step 6: journal the answer :func:`invoke` classified (or reconcile a lost one). An
    answered error follows the tool's retry policy (:mod:`minirt.retry`): the failed attempt is
    journaled with its durable timer, then :func:`retry_attempt` waits and sends the next one;
    with ``defer_retry`` (a fan-out wave, which records its other children first) settle returns
    :data:`RETRY_SCHEDULED` instead and the caller calls :func:`retry_attempt` later."""
    faults = ctx.runtime.faults
    if kind != VALUE and is_unknown(tool, kind, value):
        return ctx.runtime.policy.reconcile(ctx, tool, call, why_unknown(kind, value))
    faults.hit("after_provider_commit", step=call.step, tool=call.tool)
    if kind == VALUE:
        value = normalise(value)
        faults.hit("before_result", step=call.step, tool=call.tool)
        return record_outcome(ctx, call, KIND.TOOL_RESULT,
                              {"effect_key": normalise(call.effect_key), "value": value},
                              normalised=True)
    err = value if kind == ERROR else RecordedError(type_name=type(value).__name__,
                                                    detail=safe_str(value))
    if retry.answered(ctx, tool, call, err, value):  # another attempt, after a durable wait
        return RETRY_SCHEDULED if defer_retry else retry_attempt(ctx, tool, call)
    faults.hit("before_result", step=call.step, tool=call.tool)
    return record_outcome(ctx, call, KIND.TOOL_ERROR,
                          {"effect_key": call.effect_key, "error": err.to_record()}, err)


def retry_attempt(ctx: Context, tool: Tool, call: ToolCall) -> Any:
    """The next attempt of a call whose answered error the retry policy retries: wait durably
    (:func:`minirt.retry.wait` parks the run until due), then journal an ``attempt`` and deliver
    it with the same effect key (the ``before_redispatch`` hooks may refuse it)."""
    failed = retry.wait(ctx, call)
    rt = ctx.runtime
    resend = resend_of(ctx, call, call.attempt + 1)
    for hook in rt.hooks:
        hook.before_redispatch(ctx, tool, resend)
    ctx.append(new_event(rt.store, KIND.ATTEMPT, call.step,
                         {"effect_key": call.effect_key, "attempt": resend.attempt,
                          "retry": failed}, ctx.now_raw()))
    return rt.policy.deliver(ctx, tool, resend)


def deliver(ctx: Context, tool: Tool, call: ToolCall) -> Any:
    """Steps 5-6 for a journaled intent: invoke, then record the outcome or reconcile."""
    return settle(ctx, tool, call, *invoke(tool, call))


def record_outcome(ctx: Context, call: ToolCall, kind: str, payload: dict[str, Any],
                   error: MinirtError | None = None, extra: tuple[NewEvent, ...] = (), *,
                   normalised: bool = False) -> Any:
    """Journal a tool outcome (with ``extra`` events first, in the same write, and inside the
    same transaction every hook's ``at_outcome_commit(ctx, call, kind, payload)``); run the
    ``after_outcome`` hooks; return the value or raise the recorded error."""
    rt = ctx.runtime
    outcome = new_event(rt.store, kind, call.step, payload, ctx.now_raw(), normalised=normalised)
    commits = [h.at_outcome_commit for h in rt.hooks if hasattr(h, "at_outcome_commit")]
    if not commits:
        ctx.append(*extra, outcome)
    else:  # the hooks' writes commit with the outcome, or neither does
        with rt.store.transaction():
            for commit in commits:
                commit(ctx, call, kind, payload)
            ctx.append(*extra, outcome)
    rt.faults.hit("after_result", step=call.step, tool=call.tool)
    ctx.positioned(call.step, "tool", call.tool, False)
    for hook in rt.hooks:
        hook.after_outcome(ctx, call, kind, payload)
    if error is not None:
        raise error
    return payload["value"]


def reconcile(ctx: Context, tool: Tool, call: ToolCall, why: str) -> Any:
    """An intent without an answer: ask the reconciliation policy; record what it found, resend
    with the same key (a new attempt) if it says so, else raise UnresolvedIntent."""
    rt = ctx.runtime
    res = rt.reconcile(ctx, tool, call)
    if ctx.uncertain and res.kind in (Kind.RESULT, Kind.REDISPATCH):
        rt.mark_resolved(ctx, {"effect_key": call.effect_key})
        ctx.uncertain = False
    note = new_event(rt.store, KIND.RECONCILED, call.step,
                     {"effect_key": call.effect_key, "resolution": str(res.kind),
                      "reason": res.reason, "why": why}, ctx.now_raw())
    if res.kind == Kind.RESULT:
        return record_outcome(ctx, call, KIND.TOOL_RESULT,
                              {"effect_key": call.effect_key, "value": normalise(res.value)},
                              extra=(note,))
    if res.kind == Kind.REDISPATCH:
        attempt = call.attempt + 1
        # max_attempts bounds the resends of unknown outcomes; the retries of answered errors
        # (minirt.retry) are the retry policy's to count, not this budget's
        if attempt - retry.failed_attempts(ctx.journal.at(call.step)) > rt.max_attempts:
            raise UnresolvedIntent(run_id=ctx.run_id, step=call.step, tool=call.tool,
                                   effect_key=call.effect_key,
                                   reason=f"gave up after {rt.max_attempts} attempts")
        resend = resend_of(ctx, call, attempt)
        for hook in rt.hooks:
            hook.before_redispatch(ctx, tool, resend)
        ctx.append(note, new_event(rt.store, KIND.ATTEMPT, call.step,
                                   {"effect_key": call.effect_key, "attempt": attempt},
                                   ctx.now_raw()))
        return rt.policy.deliver(ctx, tool, resend)
    raise UnresolvedIntent(run_id=ctx.run_id, step=call.step, tool=call.tool,
                           effect_key=call.effect_key, reason=res.reason or why)


# -- replay ----------------------------------------------------------------------------------------

def recorded_call(ctx: Context, pos: Position, tool: Tool,
                  rec: Mapping[str, Any] | None = None) -> ToolCall:
    """The call recorded by the intent at ``pos``, as this incarnation would send it now (its
    attempt number counts the recorded resends). ``rec``: the intent's payload, if the caller
    already decoded it (it is not decoded twice)."""
    assert pos.opening is not None
    if rec is None:
        rec = ctx.journal.payload(pos.opening)
    extra = pos.extra
    attempt = 1 + sum(1 for e in extra if e.kind == KIND.ATTEMPT) if extra else 1
    return new_call(ctx, pos.step, tool.name, rec["args"], rec["effect_key"], attempt=attempt)


# What :func:`replay` compares at every replayed position, read once (plain str, see KIND).
_REPLAYED_OPENINGS = (KIND.INTENT, KIND.TOOL_REJECTED)
_REJECTED, _TOOL_ERROR = KIND.TOOL_REJECTED, KIND.TOOL_ERROR


def replay(ctx: Context, p: int, pos: Position, tool: Tool, raw_digest: str) -> Any:
    """Step 7: a recorded position. The same tool and arguments, or NonDeterminism; a recorded
    refusal is raised again; an intent without an outcome is reconciled; an outcome returns."""
    opening = pos.opening
    journal = ctx.journal
    # the intent is decoded once (its tool, digest, args and key all come from this one decode);
    # the stored digest is compared as text, never recomputed from the stored args
    rec = journal.payload(opening) if opening else {}
    if (opening is None or opening.kind not in _REPLAYED_OPENINGS
            or rec.get("tool") != tool.name or rec.get("args_digest") != raw_digest):
        raise ctx.diverged(p, opening, f"tool {tool.name!r} with args digest {raw_digest[:19]}")
    if opening.kind == _REJECTED:
        raise from_record(rec["error"])
    outcome = pos.outcome
    if outcome is None:
        call = recorded_call(ctx, pos, tool, rec)
        if retry.pending(ctx, pos) is not None:  # in a retry's wait
            return retry_attempt(ctx, tool, call)
        return ctx.runtime.policy.reconcile(ctx, tool, call, "recorded intent without an outcome")
    out = journal.payload(outcome)
    ctx.positioned(p, "tool", tool.name, True)
    hooks = ctx.runtime.hooks
    if hooks:  # the call is built only for someone who looks at it
        call = recorded_call(ctx, pos, tool, rec)
        for hook in hooks:
            hook.after_outcome(ctx, call, outcome.kind, out)
    if outcome.kind == _TOOL_ERROR:
        raise from_record(out["error"])
    return out["value"]


# -- the strategy object ---------------------------------------------------------------------------

class DispatchPolicy:
    """How a run journals its events and settles its tool calls: minirt's design by default.

    ``Runtime(policy=MyPolicy())``. Override any of the four methods; per-run state goes in
    ``ctx.state_for(self, factory)`` (a fresh context per execution, so a crash loses it, as it
    would lose a real process's memory). The course's deliberately broken designs
    (:mod:`minirt_course.scenarios.design_payment`, :mod:`minirt_course.scenarios.m10_trace`) are subclasses.
    """

    def append(self, ctx: Context, events: tuple[NewEvent, ...],
               kv: dict[str, str | None] | None) -> list[Event]:
        """Write ``events`` (and ``kv``) to the journal; the default writes them at once."""
        return ctx.write_journal(events, kv)

    def before_position(self, ctx: Context, step: int) -> None:
        """Before position ``step`` is claimed (before the checkpoint hooks)."""

    def deliver(self, ctx: Context, tool: Tool, call: ToolCall) -> Any:
        """Send a journaled call and settle its answer (:func:`deliver`)."""
        return deliver(ctx, tool, call)

    def reconcile(self, ctx: Context, tool: Tool, call: ToolCall, why: str) -> Any:
        """Settle an intent without an answer (:func:`reconcile`)."""
        return reconcile(ctx, tool, call, why)


DEFAULT_POLICY = DispatchPolicy()
