"""Typed tool contracts: every call passes named gates, in a fixed order, before it may act.

A :class:`ToolContract` is a :class:`minirt.tools.Tool` built from data: a pydantic input model,
named domain constraints that may read a context (the account's currency, the original charge),
a required scope, limits, an effect class, an output model and a handler. The gates run in this
order, and the first one that fails raises its own named error:

============  =======================  ==================================================
gate          where                    refuses
============  =======================  ==================================================
schema        ``prepare`` (no effect)  not a JSON object, wrong types, missing or extra fields
domain        ``prepare`` (no effect)  a well-typed call that breaks a business rule
authorization ``prepare`` (no effect)  a call that needs a scope the run does not hold
limits        ``prepare`` (no effect)  a canonical payload above ``max_payload_bytes``
dispatch      ``invoke``               (the handler runs: the world may change from here on)
output        ``invoke``               an output that does not fit the output model
============  =======================  ==================================================

Invariant: ``prepare`` never calls the handler, and for ANY argument value (any Python object,
any JSON) it either returns canonical JSON arguments or raises a :class:`ContractError` subclass,
never a raw pydantic ``ValidationError``, ``TypeError`` or ``RecursionError``.

Strict, not lax: arguments are validated as JSON in pydantic's strict mode with extra fields
forbidden, so ``"10"`` is not an integer, ``10.0`` is not an integer, ``true`` is not a number,
and an unknown field is an error rather than silently dropped. Strings are NFC-normalised (see
:mod:`minirt.canonical`); NaN, infinities, non-string keys, lone surrogates, integers beyond 64
bits and nesting deeper than :data:`MAX_DEPTH` are schema violations.

Guarantees: the runtime journals a gate refusal as ``tool_rejected`` and replay raises the same
error (same type, same fields) without calling ``prepare`` or the handler again. After dispatch,
the contract never reports "nothing happened" when something may have: a handler that fails after
some declared sub-effects raises :class:`PartialEffect` listing what happened (with receipts),
what did not and what is unknown; an output that fails validation raises :class:`OutputInvalid`
with ``effect_happened=True`` and the digest of the raw output.

Not guaranteed: the domain and authorization gates read the context when ``prepare`` runs, not
at dispatch (module 06 re-checks at dispatch time); ``timeout_s`` is handed to the handler as a
deadline for its own transport, the contract cannot stop a running handler; a domain refusal is
reported before authorization, so a domain message may tell a caller without the scope a fact
from the context (keep such messages terse, or authorize first in a public API).
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from .canonical import canonical_json, digest, digest_bytes, normalise
from .clock import Clock, SystemClock
from .errors import MinirtError, ToolError
from .tools import (
    EffectClass,
    Lookup,
    OutcomeUnknown,
    ToolCall,
    ToolDeclarationInvalid,
    check_retry,
)

GATES = ("schema", "domain", "authorization", "limits")  # run by prepare, in this order
STAGES = (*GATES, "dispatch", "output")  # the whole pipeline
MAX_DEPTH = 32  # nesting of JSON arguments; deeper is a schema violation, never a RecursionError
MAX_INT = 2**63 - 1  # integers beyond 64 bits are refused (JSON peers cannot read them safely)


# -- the errors -----------------------------------------------------------------------------------

class ContractError(MinirtError):
    """Base of every refusal by a contract gate. Not raised itself.

    ``gate`` names the stage that refused; ``field`` is a dotted path into the arguments (or the
    output) such as ``legs.0.amount``, ``$`` for the whole value. Not a :class:`ToolError`: a
    ContractError raised by ``prepare`` means the tool never ran.
    """

    gate: ClassVar[str] = ""
    fields = ("tool", "field", "reason")
    template = "{tool!r} refused at {field}: {reason}"

    @property
    def before_dispatch(self) -> bool:
        """True for a gate refusal (nothing was sent: safe to ask the model again); False for
        :class:`OutputInvalid` (the tool ran: asking again could do it twice)."""
        return self.gate in GATES


class SchemaViolation(ContractError):
    """The arguments are not a JSON object that fits the input model (strict, no extra fields).

    Raised by ``prepare`` before any other gate. Not a :class:`DomainViolation`: the value could
    not even be read as the model.
    """

    gate = "schema"
    template = "arguments for {tool!r} do not fit the schema at {field}: {reason}"


class DomainViolation(ContractError):
    """Well-typed arguments break a named domain constraint (``constraint``).

    Raised by ``prepare`` after the schema gate passed. Not a :class:`NotAuthorized`: the call is
    wrong for everybody, whatever scopes the run holds.
    """

    gate = "domain"
    fields = ("tool", "field", "reason", "constraint")
    template = "arguments for {tool!r} break {constraint!r} at {field}: {reason}"


class NotAuthorized(ContractError):
    """The call needs ``scope`` and the run does not hold it (``field``: the argument the scope
    was derived from, ``$`` for a fixed scope).

    Raised by ``prepare`` after schema and domain passed. Not a :class:`DomainViolation`: the
    same call is fine for a run that holds the scope.
    """

    gate = "authorization"
    fields = ("tool", "field", "reason", "scope")
    template = "{tool!r} needs scope {scope!r} ({field}): {reason}"


class LimitExceeded(ContractError):
    """A resource limit of the contract is exceeded before dispatch (``field`` names it, e.g.
    ``payload_bytes``; ``actual`` is above ``limit``).

    Raised by ``prepare`` last. Not a budget refusal (module 09): a contract limit is per call.
    """

    gate = "limits"
    fields = ("tool", "field", "reason", "limit", "actual")
    template = "{tool!r}: {field} is {actual}, above the limit of {limit}: {reason}"


class OutputInvalid(ContractError):
    """The handler RAN and returned an output that does not fit the output model.

    Raised by ``invoke`` after dispatch, so ``effect_happened`` is always True: the world may
    have changed; ``output_digest`` identifies the raw output. Not a refusal before the effect,
    and never to be read as "nothing happened".
    """

    gate = "output"
    fields = ("tool", "field", "reason", "effect_key", "effect_happened", "output_digest")
    template = ("{tool!r} ran (effect {effect_key}, effect_happened={effect_happened}) but its "
                "output does not fit at {field}: {reason} (raw output {output_digest})")


class PartialEffect(ToolError):
    """The tool stopped part way: some declared sub-effects happened, others did not.

    ``happened`` lists ``{"name", "receipt"}`` records; ``not_happened`` and ``unknown`` list
    sub-effect names (``unknown``: the sub-effect in flight when the handler failed, whose outcome
    nobody knows). Recorded by the runtime as the step's outcome (``tool_error``) and raised again
    on replay with the same report. Not a plain :class:`ToolError`, which means nothing happened.
    """

    fields = ("tool", "reason", "happened", "not_happened", "unknown")

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        names = [h.get("name") if isinstance(h, Mapping) else h for h in self.happened]
        Exception.__init__(self, f"tool {self.tool!r} stopped part way ({self.reason}): "
                                 f"happened {names}, not happened {list(self.not_happened)}, "
                                 f"unknown {list(self.unknown)}")

    @property
    def receipts(self) -> dict[str, Any]:
        """Sub-effect name -> its receipt, for the sub-effects that happened."""
        return {str(h.get("name")) if isinstance(h, Mapping) else str(h):
                h.get("receipt") if isinstance(h, Mapping) else None for h in self.happened}

    @property
    def report(self) -> PartialEffectReport:
        return PartialEffectReport(self.reason, tuple(self.receipts.items()),
                                   tuple(self.not_happened), tuple(self.unknown))


@dataclass(frozen=True)
class PartialEffectReport:
    """What a handler may RETURN instead of raising :class:`PartialEffect`: the contract turns it
    into that error, so the runtime records it as the step's outcome."""

    reason: str
    happened: tuple[tuple[str, Any], ...] = ()  # (sub-effect name, receipt), in order
    not_happened: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()

    def error(self, tool: str) -> PartialEffect:
        return PartialEffect(tool=tool, reason=self.reason,
                             happened=[{"name": n, "receipt": normalise(r)}
                                       for n, r in self.happened],
                             not_happened=list(self.not_happened), unknown=list(self.unknown))


def gate_of(error: BaseException | None) -> str:
    """The stage an outcome stopped at: a gate or ``output`` for a ContractError, ``dispatch``
    for a tool failure after dispatch (partial or not), ``ok`` for None."""
    if error is None:
        return "ok"
    return getattr(error, "gate", "") or "dispatch"


# -- the parts of a contract ----------------------------------------------------------------------

@dataclass(frozen=True)
class Constraint:
    """A named domain rule. ``check(args, context)`` returns True (or any truthy non-string) when
    the rule holds, and a reason string or anything falsy (reason: ``message``) when it does not.
    Fails closed: a check that returns None (a forgotten ``return``) or raises does not hold."""

    name: str
    check: Callable[[Any, Mapping[str, Any]], bool | str | None]
    field: str = "$"  # the argument the rule is about (dotted path), reported on violation
    message: str = ""


def constraint(name: str, *, field: str = "$", message: str = ""
               ) -> Callable[[Callable[[Any, Mapping[str, Any]], bool | str | None]], Constraint]:
    """Decorator: ``@constraint("positive_amount", field="amount")`` over ``check(args, ctx)``."""

    def wrap(fn: Callable[[Any, Mapping[str, Any]], bool | str | None]) -> Constraint:
        return Constraint(name, fn, field, message)

    return wrap


@dataclass(frozen=True)
class Limits:
    """Per-call resource limits. ``max_payload_bytes`` is checked by ``prepare`` on the canonical
    arguments; ``timeout_s`` becomes the handler's deadline; ``max_attempts`` bounds transport
    attempts of one logical call (attempts beyond it are refused as an unknown outcome)."""

    max_payload_bytes: int = 64 * 1024
    timeout_s: float = 30.0
    max_attempts: int = 3


@dataclass
class Invocation:
    """What a handler sees besides its arguments: the call, the context, its deadline, and
    :meth:`happened` to record each sub-effect's receipt as soon as it exists."""

    call: ToolCall
    context: Mapping[str, Any]
    deadline_at: float | None
    done: list[dict[str, Any]] = field(default_factory=list)  # Invariant: in declared order

    def key(self, sub_effect: str) -> str:
        """The idempotency key to send to the provider for one sub-effect (same every attempt)."""
        return f"{self.call.effect_key}:{sub_effect}"

    def happened(self, sub_effect: str, receipt: Any) -> None:
        """Record that ``sub_effect`` took effect, with the provider's receipt (JSON data; a
        receipt that is not is kept as its repr, because the fact that it happened matters more)."""
        try:
            kept = normalise(receipt)
        except MinirtError:
            kept = {"repr": repr(receipt)[:200]}
        self.done.append({"name": str(sub_effect), "receipt": kept})


@dataclass(frozen=True)
class Stage:
    """One box of the pipeline, as data (for pictures and tables)."""

    name: str
    detail: str


# -- the contract ---------------------------------------------------------------------------------

Handler = Callable[[Any, Invocation], Any]
ContextSource = Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None


class ToolContract:
    """A typed tool: the gates of the module docstring around ``handler(args, inv)``.

    ``scope`` is a fixed scope (``"payments:refund"``), a template over the arguments
    (``"accounts:{from_account}:debit"``) or None; ``sub_effects`` declares, in execution order,
    the effects the handler performs, so a failure part way can be reported honestly;
    ``retry=RetryPolicy(...)`` (:mod:`minirt.retry`) retries its answered errors, as for a
    :class:`~minirt.tools.FunctionTool`.
    """

    def __init__(self, name: str, *, input_model: type[BaseModel], handler: Handler,
                 output_model: type[BaseModel] | None = None,
                 effect: EffectClass | str = EffectClass.PURE,
                 constraints: Sequence[Constraint] = (), scope: str | None = None,
                 limits: Limits | None = None, context: ContextSource = None,
                 sub_effects: Sequence[str] = (),
                 lookup: Callable[[ToolCall], Lookup] | None = None,
                 clock: Clock | None = None, retry: Any = None) -> None:
        self.name = name
        # a minirt.retry.RetryPolicy for its answered errors, or None (the runtime's default)
        self.retry = check_retry(name, retry)
        self.limits = limits or Limits()
        if retry is not None and retry.attempts > self.limits.max_attempts:
            # invoke() refuses an attempt above max_attempts as unknown: a policy asking for
            # more would end every exhausted retry in reconciliation, not in its last error
            raise ToolDeclarationInvalid(
                tool=name, option="retry",
                reason=f"RetryPolicy(attempts={retry.attempts}) exceeds "
                       f"limits.max_attempts={self.limits.max_attempts}; raise the limit")
        self.input_model = input_model
        unknown = [f for f in _template_fields(scope) if f not in input_model.model_fields]
        if unknown:  # a contract bug: refuse it when the contract is built, not per call
            raise ValueError(f"scope template {scope!r} names {unknown}, which "
                             f"{input_model.__name__} does not have")
        self.output_model = output_model
        self.handler = handler
        self.effect = EffectClass(effect)
        self.constraints = tuple(constraints)
        self.scope = scope
        self.context = context
        self.sub_effects = tuple(sub_effects)
        self._lookup = lookup
        self.clock = clock or SystemClock()

    # -- prepare: the gates (no effect) -------------------------------------------------------

    def prepare(self, args: Any, scopes: frozenset[str] = frozenset()) -> dict[str, Any]:
        """Run schema -> domain -> authorization -> limits; return the canonical arguments.

        Raises the first gate's named error. Pure with respect to the world: calling it twice
        with the same arguments, scopes and context gives the same answer.
        """
        model = self.check_schema(args)
        self.check_domain(model)
        self.check_authorization(model, scopes)
        return self.check_limits(model)

    def check_schema(self, args: Any) -> BaseModel:
        """Gate 1: JSON data of the right shape, read strictly into the input model."""
        if not isinstance(args, Mapping):
            raise SchemaViolation(tool=self.name, field="$",
                                  reason=f"arguments must be a JSON object, not {_kind(args)}")
        problem = _json_problem(args)
        if problem is not None:
            raise SchemaViolation(tool=self.name, field=problem[0], reason=problem[1])
        try:
            text = canonical_json(args)
            return self.input_model.model_validate_json(text, strict=True, extra="forbid")
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            raise SchemaViolation(tool=self.name, field=_dotted(first.get("loc", ())),
                                  reason=str(first.get("msg", "invalid"))) from None
        except Exception as exc:  # a model validator that raised something else (its bug)
            raise SchemaViolation(tool=self.name, field="$",
                                  reason=f"{type(exc).__name__}: {exc}"[:200]) from None

    def check_domain(self, model: BaseModel) -> None:
        """Gate 2: every named constraint, in order, over the validated arguments."""
        if not self.constraints:
            return
        ctx = self.read_context()
        for c in self.constraints:
            try:
                result = c.check(model, ctx)
            except Exception as exc:  # a rule that cannot be evaluated does not hold
                result = f"could not be checked: {type(exc).__name__}: {exc}"[:200]
            if _holds(result):
                continue
            reason = result if isinstance(result, str) and result else (
                c.message or f"{c.name} does not hold (the check returned {result!r:.40})")
            raise DomainViolation(tool=self.name, field=c.field, reason=reason,
                                  constraint=c.name)

    def check_authorization(self, model: BaseModel, scopes: Any) -> None:
        """Gate 3: the run must hold the scope this call needs."""
        needed, source = self.required_scope(model)
        if needed is None:
            return
        held = {scopes} if isinstance(scopes, str) else set(scopes or ())
        if needed not in held:
            raise NotAuthorized(tool=self.name, field=source, scope=needed,
                                reason="the run does not hold this scope")

    def check_limits(self, model: BaseModel) -> dict[str, Any]:
        """Gate 4: the canonical payload fits ``max_payload_bytes``; returns the payload."""
        prepared = model.model_dump(mode="json")
        size = len(canonical_json(prepared).encode("utf-8"))
        if size > self.limits.max_payload_bytes:
            raise LimitExceeded(tool=self.name, field="payload_bytes", actual=size,
                                limit=self.limits.max_payload_bytes,
                                reason="canonical arguments are too large")
        return prepared

    def required_scope(self, model: BaseModel) -> tuple[str | None, str]:
        """The scope this call needs and the argument it came from (``$`` if fixed)."""
        if self.scope is None:
            return None, "$"
        names = _template_fields(self.scope)
        if not names:
            return self.scope, "$"
        return self.scope.format(**model.model_dump(mode="json")), ".".join(names)

    def read_context(self) -> Mapping[str, Any]:
        ctx = self.context() if callable(self.context) else self.context
        return ctx if ctx is not None else {}

    def rejection(self, args: Any, scopes: Any = frozenset()) -> ContractError | None:
        """Which gate refuses ``args`` (its error), or None if all four pass. No effect."""
        try:
            self.prepare(args, scopes)
        except ContractError as exc:
            return exc
        return None

    # -- invoke: dispatch and output validation -----------------------------------------------

    def invoke(self, call: ToolCall) -> Any:
        """Dispatch a prepared call, then validate the output. See the module docstring for what
        each failure after dispatch reports."""
        if call.attempt > self.limits.max_attempts:
            # Attempts after the first exist only because an earlier one has an unknown outcome;
            # refusing this one settles nothing, so it stays unknown (never "failed").
            raise OutcomeUnknown(tool=self.name, effect_key=call.effect_key,
                                 reason=f"attempt {call.attempt} is above max_attempts="
                                        f"{self.limits.max_attempts}; earlier attempts unknown")
        args = self.check_schema(call.args)
        deadline = self.clock.now() + self.limits.timeout_s
        if call.deadline_at is not None:
            deadline = min(deadline, call.deadline_at)
        inv = Invocation(call, self.read_context(), deadline)
        try:
            raw = self.handler(args, inv)
        except PartialEffect:
            raise
        except Exception as exc:
            if not inv.done:
                raise  # nothing recorded: a ToolError says no, anything else is for reconcile
            raise self._partial(inv, exc) from None
        if isinstance(raw, PartialEffectReport):
            raise raw.error(self.name)
        return self.check_output(raw, call)

    def _partial(self, inv: Invocation, exc: Exception) -> PartialEffect:
        names = [d["name"] for d in inv.done]
        rest = [s for s in self.sub_effects if s not in names]
        # The first undone sub-effect was in flight: a ToolError means the provider said no,
        # anything else (a timeout, a crash of the client) leaves it unknown.
        in_flight = [] if isinstance(exc, ToolError) or not rest else rest[:1]
        return PartialEffect(tool=self.name, reason=f"{type(exc).__name__}: {exc}"[:300],
                             happened=list(inv.done),
                             not_happened=[s for s in rest if s not in in_flight],
                             unknown=in_flight)

    def check_output(self, raw: Any, call: ToolCall) -> Any:
        """Validate what the handler returned; raise OutputInvalid (effect happened) if it does
        not fit. Returns the output as canonical JSON data."""
        value = raw.model_dump(mode="json") if isinstance(raw, BaseModel) else raw

        def invalid(where: str, why: str) -> OutputInvalid:
            return OutputInvalid(tool=self.name, field=where, reason=why[:300],
                                 effect_key=call.effect_key, effect_happened=True,
                                 output_digest=_raw_digest(value))

        problem = _json_problem(value)
        if problem is not None:
            raise invalid(*problem)
        try:
            text = canonical_json(value)
        except (MinirtError, ValueError, TypeError) as exc:
            raise invalid("$", f"not JSON data: {exc}") from None
        if self.output_model is None:
            return normalise(value)
        try:
            return self.output_model.model_validate_json(text, strict=True).model_dump(
                mode="json")
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            raise invalid(_dotted(first.get("loc", ())), str(first.get("msg", "invalid"))
                          ) from None
        except Exception as exc:  # an output validator's own bug: the effect still happened
            raise invalid("$", f"{type(exc).__name__}: {exc}") from None

    # -- reconciliation and description -------------------------------------------------------

    @property
    def has_lookup(self) -> bool:
        return self._lookup is not None

    def lookup(self, call: ToolCall) -> Lookup:
        if self._lookup is None:
            raise NotImplementedError(f"{self.name} offers no lookup")
        return self._lookup(call)

    def stages(self) -> list[Stage]:
        """The pipeline of this contract, gate by gate, as data."""
        lim = self.limits
        return [
            Stage("schema", f"{self.input_model.__name__}({', '.join(self.input_model.model_fields)})"
                            " strict, no extra fields"),
            Stage("domain", ", ".join(c.name for c in self.constraints) or "(no constraints)"),
            Stage("authorization", f"scope {self.scope}" if self.scope else "(no scope needed)"),
            Stage("limits", f"payload <= {lim.max_payload_bytes} B, timeout {lim.timeout_s:g} s, "
                            f"<= {lim.max_attempts} attempts"),
            Stage("dispatch", f"{self.effect.value}"
                              + (f", sub-effects {' -> '.join(self.sub_effects)}"
                                 if self.sub_effects else "")),
            Stage("output", self.output_model.__name__ if self.output_model else "(JSON data)"),
        ]

    def __repr__(self) -> str:
        return f"ToolContract({self.name!r}, effect={self.effect.value!r})"


# -- helpers --------------------------------------------------------------------------------------

def _holds(result: Any) -> bool:
    if isinstance(result, str):
        return False  # a string is the reason the rule does not hold
    try:
        return bool(result)
    except Exception:  # an object without a truth value (e.g. an array) proves nothing
        return False


def _kind(value: Any) -> str:
    names = {list: "an array", tuple: "an array", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), f"a {type(value).__name__}")


def _template_fields(template: str | None) -> list[str]:
    if template is None:
        return []
    return [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]


def _dotted(loc: Sequence[Any]) -> str:
    return ".".join(str(p) for p in loc) or "$"


def _json_problem(value: Any) -> tuple[str, str] | None:
    """The first place where ``value`` is not JSON data a contract accepts, as (path, reason).
    Iterative, so no input can exhaust the stack."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        v, path, depth = stack.pop()
        here = path or "$"
        if depth > MAX_DEPTH:
            return here, f"nested deeper than {MAX_DEPTH} levels"
        if v is None or isinstance(v, bool):
            continue
        if isinstance(v, int):
            if abs(v) > MAX_INT:
                return here, "integer does not fit in 64 bits"
        elif isinstance(v, float):
            if not math.isfinite(v):
                return here, f"{v!r} is not a JSON number"
        elif isinstance(v, str):
            if not _encodable(v):
                return here, "string is not valid Unicode (lone surrogate)"
        elif isinstance(v, Mapping):
            # pushed in reverse so the first problem in document order is reported
            for k in reversed(list(v)):
                if not isinstance(k, str):
                    return here, f"object key {k!r:.40} is not a string"
                if not _encodable(k):
                    return here, "object key is not valid Unicode (lone surrogate)"
                stack.append((v[k], f"{path}.{k}" if path else k, depth + 1))
        elif isinstance(v, (list, tuple)):
            stack.extend((v[i], f"{path}.{i}" if path else str(i), depth + 1)
                         for i in reversed(range(len(v))))
        else:
            return here, f"{_kind(v)} is not JSON data"
    return None


def _encodable(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _raw_digest(value: Any) -> str:
    """Digest of the canonical JSON of ``value``, or ``repr-sha256:...`` of its repr when it has
    no JSON form (so even a broken output is identified in the journal)."""
    try:
        if _json_problem(value) is None:
            return digest(value)
    except MinirtError:
        pass
    return "repr-" + digest_bytes(repr(value).encode("utf-8", "backslashreplace"))

