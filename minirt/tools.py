"""The smallest contract between the runtime and a tool.

A tool has a name, an **effect class** (what re-running it would do to the world) and two calls:

- ``prepare(args, scopes)`` validates and normalises the arguments *before* anything is journaled
  or sent, raising a named error for bad input. It has no effect on the world.
- ``invoke(call)`` performs the call. It returns JSON data, raises :class:`minirt.errors.ToolError`
  when the tool ran and said no, or :class:`OutcomeUnknown` when it cannot tell whether the effect
  happened (a timeout, a dropped connection after the request left).

A tool may also offer ``lookup(call)``: ask the outside world whether the effect with
``call.effect_key`` happened, returning a :class:`Lookup`. Reconciliation uses it.

:mod:`minirt.contracts` builds typed tools with the full gate (schema, domain, authorization,
limits, output validation); :class:`FunctionTool` wraps a plain function for demos and tests.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from .errors import MinirtError


class EffectClass(StrEnum):
    PURE = "pure"  # no outside effect: running it again is harmless
    KEYED = "keyed-idempotent"  # the provider deduplicates by effect key: resend with the same key
    IRREVERSIBLE = "irreversible"  # resending may do it twice and nothing undoes it
    COMPENSATABLE = "compensatable"  # resending may do it twice, but a compensation can undo it


class OutcomeUnknown(MinirtError):
    """The call may or may not have taken effect (no response: timeout, lost connection).

    Not a :class:`ToolError` (the tool answered "no"): an unknown outcome must be reconciled by
    looking the effect up, never assumed to have failed and never blindly retried.
    """

    fields = ("tool", "effect_key", "reason")
    template = "outcome of {tool} ({effect_key}) is unknown: {reason}"


@dataclass(frozen=True)
class ToolCall:
    """One logical tool call as the runtime dispatches it."""

    run_id: str
    step: int
    tool: str
    args: dict[str, Any]
    effect_key: str  # Invariant: the same for every attempt of this logical call
    attempt: int = 1  # transport attempt number; never part of the effect key
    incarnation: int = 0
    scopes: frozenset[str] = field(default_factory=frozenset)
    deadline_at: float | None = None


@dataclass(frozen=True)
class Lookup:
    """What a provider says about an effect key: found (with the recorded result) or not."""

    found: bool
    result: Any = None
    detail: str = ""


@runtime_checkable
class Tool(Protocol):
    name: str
    effect: EffectClass

    def prepare(self, args: dict[str, Any], scopes: frozenset[str]) -> dict[str, Any]: ...

    def invoke(self, call: ToolCall) -> Any: ...


#: How many argument-name sets one :class:`FunctionTool` remembers as valid.
_BOUND_MAX = 64


class FunctionTool:
    """A plain function as a tool. ``fn`` takes the arguments as keywords (and ``call=`` if it
    declares a parameter named ``call``, to see its effect key)."""

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None,
                 effect: EffectClass = EffectClass.PURE,
                 lookup: Callable[[ToolCall], Lookup] | None = None,
                 retry: Any = None) -> None:
        self.fn = fn
        self.name = name or fn.__name__
        self.effect = EffectClass(effect)
        self._lookup = lookup
        # a minirt.retry.RetryPolicy, or None (the runtime's default applies)
        self.retry = check_retry(self.name, retry)
        sig = inspect.signature(fn)
        self._wants_call = "call" in sig.parameters
        self._signature: inspect.Signature | None = None
        # sets of argument names (plain str) that bound to the signature (see prepare)
        self._bound: set[frozenset[str]] = set()
        if not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
            self._signature = sig.replace(parameters=[
                p for n, p in sig.parameters.items() if not (n == "call" and self._wants_call)])

    def prepare(self, args: dict[str, Any], scopes: frozenset[str]) -> dict[str, Any]:
        if not isinstance(args, dict):
            raise ToolArgumentsInvalid(tool=self.name, reason="arguments must be a JSON object")
        if self._signature is not None and type(self).invoke is FunctionTool.invoke:
            # refused here, before anything is journaled or sent (a subclass that passes extra
            # arguments of its own to ``fn`` checks its own). Whether the arguments bind
            # depends only on their names: a set of plain-str names that bound once is not
            # bound again (a bounded cache, per tool).
            names = frozenset(args)
            plain = all(type(k) is str for k in names)
            if plain and names in self._bound:
                return dict(args)
            unknown = sorted(str(k) for k in args if k not in self._signature.parameters
                             or self._signature.parameters[k].kind
                             in (inspect.Parameter.POSITIONAL_ONLY,
                                 inspect.Parameter.VAR_POSITIONAL))
            if unknown:
                raise ToolArgumentsInvalid(
                    tool=self.name, reason=f"unknown argument(s) {', '.join(unknown)} (accepts: "
                    f"{', '.join(self._signature.parameters) or 'none'})")
            try:
                self._signature.bind(**{str(k): v for k, v in args.items()})
            except TypeError as exc:
                raise ToolArgumentsInvalid(tool=self.name, reason=str(exc)) from None
            if plain and len(self._bound) < _BOUND_MAX:
                self._bound.add(names)
        return dict(args)

    def invoke(self, call: ToolCall) -> Any:
        if self._wants_call:
            return self.fn(**call.args, call=call)
        return self.fn(**call.args)

    @property
    def has_lookup(self) -> bool:
        return self._lookup is not None

    def lookup(self, call: ToolCall) -> Lookup:
        if self._lookup is None:
            raise NotImplementedError(f"{self.name} offers no lookup")
        return self._lookup(call)

    def __repr__(self) -> str:
        return f"FunctionTool({self.name!r}, effect={self.effect.value!r})"


class ToolArgumentsInvalid(MinirtError):
    fields = ("tool", "reason")
    template = "arguments for {tool} are invalid: {reason}"


class ToolDeclarationInvalid(MinirtError):
    """A tool declared with an option of the wrong kind (checked when the tool is built)."""

    fields = ("tool", "option", "reason")
    template = "tool {tool!r}: {option}= {reason}"


def check_retry(name: str, policy: Any) -> Any:
    """``policy`` if it is a retry policy (or None), else :class:`ToolDeclarationInvalid`: the
    check every tool class that takes ``retry=`` runs (FunctionTool, ToolContract)."""
    # duck-typed: this lower layer does not import minirt.retry (see tests/test_seams.py)
    if policy is not None and not (callable(getattr(policy, "retryable", None))
                                   and callable(getattr(policy, "delay", None))
                                   and isinstance(getattr(policy, "attempts", None), int)):
        raise ToolDeclarationInvalid(tool=name, option="retry",
                                     reason=f"must be a minirt.retry.RetryPolicy, not {policy!r}")
    return policy


def tool(effect: EffectClass | str = EffectClass.PURE, *, name: str | None = None,
         lookup: Callable[[ToolCall], Lookup] | None = None, retry: Any = None
         ) -> Callable[[Callable[..., Any]], FunctionTool]:
    """Decorator: ``@tool(EffectClass.KEYED)`` turns a function into a :class:`FunctionTool`;
    ``retry=RetryPolicy(...)`` (:mod:`minirt.retry`) retries its answered errors."""

    def wrap(fn: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(fn, name=name, effect=EffectClass(effect), lookup=lookup,
                            retry=retry)

    return wrap


def has_lookup(t: Tool) -> bool:
    """Whether ``t`` can be asked if an effect happened."""
    flag = getattr(t, "has_lookup", None)
    if flag is not None:
        return bool(flag)
    return callable(getattr(t, "lookup", None))
