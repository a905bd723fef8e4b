"""Tool idempotency: one effect key per logical operation, bound to its payload.

An **attempt** is one transport try (a request on the wire). A **logical operation** is what the
agent meant ("charge order 42 for 30 EUR"). Retries make many attempts of one operation; the
provider must see the same key on every attempt and apply the effect once.

Invariant: :func:`effect_key` depends only on the run id, the step position, the tool and the
canonical digest of the arguments, never on the attempt, the worker or the time. So a retry after a
crash, by another worker, sends the same key; and the same key can never stand for two different
payloads.

What this module adds to the runtime:

- **attempts vs operations**: the journal records one ``intent`` per operation (with its key) and
  one ``attempt`` event per resend; :func:`logical_operations` reads them back as data.
- **payload binding**: a custom key function (a business key such as an order id, given to
  ``Runtime(key_for=...)``) can map two payloads to one key. :class:`KeyRegistry` keeps a local,
  durable record ``key -> payload digest`` and raises :class:`EffectKeyConflict` *before anything
  is journaled or sent*. (The default :func:`effect_key` contains the digest, so it cannot
  conflict; a provider's own check, like Stripe's ``idempotency_error``, comes one network round
  trip later and only within its retention window; some providers do not check at all.)
- **retention**: a tool declares how long its provider keeps keys (``retention_for``, seconds;
  ``None`` for forever). Past it, "the lookup found nothing" proves nothing and a resend may
  apply the effect twice, so :class:`ReconcileByLookup` escalates with
  :class:`EffectKeyMayBePruned` (the run goes UNCERTAIN) instead of resending.
- **unknown outcomes**: :data:`reconcile_by_lookup` looks the effect up by key *before* any
  resend: found -> the recorded result; not found within retention -> resend with the same key.
- **tools with neither key nor lookup** (email): an explicit per-tool :class:`Delivery` choice,
  at most once (never resend, record :data:`MAYBE_SENT`) or at least once (resend, accept a
  duplicate). A tool that declares neither stays unknown and escalates.

Not guaranteed: a provider that prunes keys *earlier* than it declares, or whose clock runs far
from the runtime's (beyond ``margin_for``); a :class:`KeyRegistry` shared across machines (it is
one SQLite file).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .canonical import digest
from .errors import MinirtError
from .journal import UnresolvedIntent
from .resolution import Resolution
from .sqlite_wal import enter_wal
from .tools import EffectClass, Tool, ToolCall, has_lookup

if TYPE_CHECKING:
    from .runtime import Context
    from .store.base import Event

#: ``key_for(run_id, step, tool, args) -> key``: how a runtime names a logical operation.
KeyFunction = Callable[[str, int, str, Any], str]


def effect_key(run_id: str, step: int, tool: str, args: Any, *,
               args_digest: str | None = None) -> str:
    """The effect key of a logical tool call: ``ek_`` + 32 hex characters.

    Derived from ``(run_id, step, tool, digest(args))``; the same inputs always give the same key.
    ``args_digest`` may pass ``digest(args)`` when the caller already computed it.
    """
    d = digest(args) if args_digest is None else args_digest
    material = "\x1f".join([run_id, str(int(step)), tool, d])
    return "ek_" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]


@runtime_checkable
class EffectLedger(Protocol):
    """How the effect-count oracle reads a provider's authoritative record (and nothing else)."""

    def count(self, effect_key: str, kind: str | None = None) -> int:
        """How many effects were applied under ``effect_key`` (of ``kind``, if given)."""

    def effects(self, kind: str | None = None) -> list[dict[str, Any]]:
        """Every effect (of ``kind``) in the order applied: ``effect_id, kind, effect_key,
        params, created_at, status``."""


class Delivery(StrEnum):
    """What to do with a lost response when the provider has neither keys nor lookup."""

    AT_MOST_ONCE = "at-most-once"  # never resend; the journal records MAYBE_SENT
    AT_LEAST_ONCE = "at-least-once"  # resend; a duplicate effect is accepted


MAYBE_SENT = "maybe-sent"


class EffectKeyConflict(MinirtError):
    """One effect key, two payloads: refused locally before anything is journaled or sent.

    Raised by :class:`KeyRegistry` when a key function maps a new payload to a key already bound
    to another. Not the provider's :class:`minirt.world.errors.IdempotencyKeyReused` (that one
    costs a round trip and exists only within the provider's retention) and not
    :class:`minirt.journal.NonDeterminism` (replay asked for another call at a position).
    """

    fields = ("effect_key", "tool", "run_id", "step", "payload_digest", "bound_digest",
              "bound_run_id", "bound_step")
    template = ("effect key {effect_key!r} is bound to payload {bound_digest:.19} (run "
                "{bound_run_id} step {bound_step}); refused {tool} in run {run_id} step {step} "
                "with payload {payload_digest:.19} before sending anything")


class EffectKeyMayBePruned(UnresolvedIntent):
    """An unknown outcome found after the provider's retention window: the key may be pruned.

    A lookup that finds nothing no longer proves the effect did not happen, and a resend with the
    same key would be a *new* request to the provider. So nothing is sent; the run goes to
    UNCERTAIN for an operator (or a search by other means). A subclass of
    :class:`UnresolvedIntent`, so the runtime treats it as one.
    """

    fields = ("run_id", "step", "tool", "effect_key", "reason", "elapsed_for", "retention_for")
    template = ("run {run_id} step {step}: {tool} ({effect_key}) was first sent {elapsed_for:.0f}"
                " s ago, past the provider's retention of {retention_for:.0f} s; the key may have"
                " been pruned, so it is not resent: {reason}")


# -- what a tool declares -----------------------------------------------------------------------

def retention_of(tool: Tool) -> float | None:
    """How long the tool's provider keeps keys (seconds), or None: forever / not declared."""
    value = getattr(tool, "retention_for", None)
    return None if value is None else float(value)


def delivery_of(tool: Tool) -> Delivery | None:
    """The tool's declared :class:`Delivery`, or None if it made no decision."""
    value = getattr(tool, "delivery", None)
    return None if value is None else Delivery(value)


def maybe_sent(call: ToolCall, reason: str) -> dict[str, Any]:
    """The result recorded for an at-most-once call whose outcome is unknown."""
    return {"delivery": MAYBE_SENT, "tool": call.tool, "effect_key": call.effect_key,
            "reason": reason}


def first_sent_at(ctx: Context, call: ToolCall) -> float:
    """When the operation's intent was journaled: no attempt of it can be older."""
    pos = ctx.journal.at(call.step)
    if pos is not None and pos.opening is not None and pos.opening.kind == "intent":
        return float(pos.opening.at)
    return ctx.runtime.clock.now()


# -- reconciliation -----------------------------------------------------------------------------

@dataclass(frozen=True)
class ReconcileByLookup:
    """A reconcile policy (``Runtime(reconcile=reconcile_by_lookup)``) for unknown outcomes.

    Look the effect up by key before any resend; resend with the same key only when the lookup
    says "not found" *within* the provider's retention; past it, escalate; without lookup, decide
    by effect class and the tool's :class:`Delivery`. ``margin_for`` (seconds) is subtracted from
    the retention to absorb clock skew between the runtime and the provider.
    ``ask_lookup=False`` never calls a tool's lookup: every tool is decided as if it had none (a
    keyed call is resent with its key within the retention less ``margin_for`` and escalates
    with :class:`EffectKeyMayBePruned` past it), for a design that trusts the provider's
    deduplication within its window instead of asking (module 05b's ``retry-within-retention``).
    Idempotent: reconciling the same intent twice asks the same questions and gives the same
    answer as long as the provider's answer does not change.
    """

    margin_for: float = 60.0
    ask_lookup: bool = True

    def __call__(self, ctx: Context, tool: Tool, call: ToolCall) -> Resolution:
        retention = retention_of(tool)
        elapsed = ctx.runtime.clock.now() - first_sent_at(ctx, call)
        expired = retention is not None and elapsed >= retention - self.margin_for
        if self.ask_lookup and has_lookup(tool):
            try:
                found = tool.lookup(call)  # type: ignore[attr-defined]
            except MinirtError as exc:  # the lookup itself got no answer: still unknown
                return Resolution("unknown", reason=f"lookup failed: {exc}")
            if found.found:
                return Resolution("result", found.result, "found at the provider by effect key")
            if expired:
                raise self._pruned(call, elapsed, retention, "the lookup found nothing")
            return Resolution("redispatch", reason="not found within retention: resend, same key")
        if tool.effect is EffectClass.PURE:
            return Resolution("redispatch", reason="pure: safe to run again")
        if tool.effect is EffectClass.KEYED:
            if expired:
                raise self._pruned(call, elapsed, retention, "no lookup to ask" if
                                   self.ask_lookup else "the lookup is not asked, by design")
            return Resolution("redispatch", reason="keyed, within retention: the provider "
                                                   "deduplicates the resend")
        delivery = delivery_of(tool)
        if delivery is Delivery.AT_LEAST_ONCE:
            return Resolution("redispatch", reason="at-least-once: resend, a duplicate is "
                                                   "accepted")
        if delivery is Delivery.AT_MOST_ONCE:
            why = "at-most-once: no key and no lookup, so it is never resent"
            return Resolution("result", maybe_sent(call, why), why)
        return Resolution("unknown", reason=f"{tool.effect.value} tool without key, lookup or "
                                            "delivery decision")

    @staticmethod
    def _pruned(call: ToolCall, elapsed: float, retention: float | None, why: str
                ) -> EffectKeyMayBePruned:
        return EffectKeyMayBePruned(run_id=call.run_id, step=call.step, tool=call.tool,
                                    effect_key=call.effect_key, reason=why,
                                    elapsed_for=elapsed, retention_for=retention)


reconcile_by_lookup = ReconcileByLookup()


# -- payload binding ----------------------------------------------------------------------------

class KeyRegistry:
    """A key function that remembers every key it derived, bound to its payload's digest.

    ``Runtime(key_for=KeyRegistry(order_key, path))``: the runtime calls it before journaling an
    intent; a key already bound to another payload raises :class:`EffectKeyConflict` there, so
    the call is journaled as rejected and nothing is sent. The same key with the same payload
    (another attempt, another run of the same business operation) is fine: binding is
    idempotent. One SQLite file (``":memory:"`` for demos), shared by every runtime that opens it.
    """

    def __init__(self, key_for: KeyFunction = effect_key, path: str | Path = ":memory:") -> None:
        self.key_for = key_for
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                                   timeout=10.0)
        enter_wal(self._db, 10.0)
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("CREATE TABLE IF NOT EXISTS bindings (effect_key TEXT PRIMARY KEY,"
                         " payload_digest TEXT NOT NULL, run_id TEXT NOT NULL,"
                         " step INTEGER NOT NULL, tool TEXT NOT NULL)")

    def __call__(self, run_id: str, step: int, tool: str, args: Any) -> str:
        key = self.key_for(run_id, step, tool, args)
        self.bind(key, args, run_id=run_id, step=step, tool=tool)
        return key

    def bind(self, key: str, args: Any, *, run_id: str, step: int, tool: str) -> None:
        """Bind ``key`` to ``digest(args)``; idempotent; EffectKeyConflict if bound otherwise."""
        d = digest(args)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT payload_digest, run_id, step FROM bindings"
                                       " WHERE effect_key=?", (key,)).fetchone()
                if row is None:
                    self._db.execute("INSERT INTO bindings VALUES (?,?,?,?,?)",
                                     (key, d, run_id, int(step), tool))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        if row is not None and row[0] != d:
            raise EffectKeyConflict(effect_key=key, tool=tool, run_id=run_id, step=step,
                                    payload_digest=d, bound_digest=row[0], bound_run_id=row[1],
                                    bound_step=row[2])

    def close(self) -> None:
        with self._lock:
            self._db.close()


# -- attempts vs logical operations, read back from a journal -----------------------------------

@dataclass(frozen=True)
class Attempt:
    """One dispatch of an operation: the first one (from the intent) or a resend."""

    number: int  # 1 for the intent's dispatch, then 2, 3, ... (never part of the key)
    incarnation: int  # the worker incarnation that sent it
    at: float
    why: str  # "intent" or the reconciliation that allowed the resend


@dataclass(frozen=True)
class Operation:
    """One logical operation as the journal records it."""

    step: int
    tool: str
    effect_key: str
    effect: str
    args: Any
    attempts: tuple[Attempt, ...]
    resolutions: tuple[dict[str, Any], ...]  # the ``reconciled`` notes, in order
    outcome: str  # "tool_result", "tool_error" or "unresolved"
    value: Any = None


def logical_operations(events: Sequence[Event]) -> list[Operation]:
    """Every tool intent of a journal with its attempts, reconciliations and outcome."""
    by_step: dict[int, list[Event]] = {}
    for e in events:
        if e.step is not None:
            by_step.setdefault(e.step, []).append(e)
    ops = []
    for step in sorted(by_step):
        rows = by_step[step]
        intent = next((e for e in rows if e.kind == "intent"), None)
        if intent is None:
            continue
        p = json.loads(intent.payload_json)
        attempts = [Attempt(1, intent.incarnation, intent.at, "intent")]
        notes: list[dict[str, Any]] = []
        outcome, value = "unresolved", None
        for e in rows:
            q = json.loads(e.payload_json)
            if e.kind == "reconciled":
                notes.append({**q, "incarnation": e.incarnation, "at": e.at})
            elif e.kind == "attempt":
                why = notes[-1]["reason"] if notes else ""
                attempts.append(Attempt(int(q["attempt"]), e.incarnation, e.at, why))
            elif e.kind in ("tool_result", "tool_error"):
                outcome, value = e.kind, q.get("value", q.get("error"))
        ops.append(Operation(step, p["tool"], p["effect_key"], p.get("effect", ""), p["args"],
                             tuple(attempts), tuple(notes), outcome, value))
    return ops
