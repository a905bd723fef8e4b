"""Hidden-test logic for drill 04 (tool idempotency). Course tooling, not runtime core.

The learner writes ``derive_key(run_id, step, tool, args) -> str`` and
``reconcile(ctx, tool, call) -> Resolution``. Each ``check_*`` function drives them on cases
built here and returns a list of failure messages (empty = the property holds). A message starts
with the property's name in brackets, says what the learner's code did, and never states the
expected answer. Learner code is never trusted:

- every call is wrapped, so an exception becomes a failure message instead of a crashed cell;
- a returned key is rebuilt with ``str``; a returned Resolution is rebuilt field by field into a
  fresh :class:`~minirt.runtime.Resolution` (``kind`` must be one of the three words);
- what the world did is read from the providers' ledgers (:class:`~minirt.world.ledger.Ledger`)
  and from the oracle of :mod:`minirt.scenarios.m04_payment`, never from the learner's objects;
- the prediction is compared, as a set of plain strings, with a sweep run here.

The key and the reconcile properties are checked apart (the reconcile checks use minirt's own
:func:`~minirt.idempotency.effect_key`), and the whole recovery together under the sweep.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..canonical import normalise
from ..clock import FakeClock
from ..faults import TOOL_POINTS, WINDOWS, Outcome, crash_once
from ..run import RunState
from ..runtime import Resolution, Runtime
from ..scenarios import m04_payment as m04
from ..store.sqlite import SQLiteStore
from ..tools import EffectClass, Lookup, OutcomeUnknown, ToolCall

KeyFn = Callable[[str, int, str, Any], Any]
ReconcileFn = Callable[[Any, Any, ToolCall], Any]
KINDS = ("result", "redispatch", "unknown")
PAST_RETENTION = 25 * 3600.0  # the scenario's provider keeps keys 24 h
CHARGE = {"amount_cents": 4200, "currency": "eur", "customer": "cus_ada"}


class LearnerFailed(Exception):
    """The learner's function raised or returned something unusable (message says which)."""


def _fmt(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]


def key_fn(derive_key: KeyFn) -> Callable[[str, int, str, Any], str]:
    """The learner's key function as the runtime calls it, its answer rebuilt with ``str``."""
    def key_for(run_id: str, step: int, tool: str, args: Any) -> str:
        key = derive_key(str(run_id), int(step), str(tool), normalise(args))
        if not isinstance(key, str):
            raise LearnerFailed(f"derive_key returned {type(key).__name__}, not a str")
        return str(key)

    return key_for


def policy(reconcile: ReconcileFn) -> Callable[[Any, Any, ToolCall], Resolution]:
    """The learner's reconcile as a runtime policy, its answer rebuilt into a fresh Resolution."""
    def wrapped(ctx: Any, tool: Any, call: ToolCall) -> Resolution:
        r = reconcile(ctx, tool, call)
        kind = str(getattr(r, "kind", ""))
        if kind not in KINDS:
            raise LearnerFailed(f"reconcile returned kind {kind!r}, not one of {KINDS}")
        return Resolution(kind, normalise(getattr(r, "value", None)),
                          str(getattr(r, "reason", "")))

    return wrapped


# -- the key ------------------------------------------------------------------------------------

def _key(derive_key: KeyFn, *a: Any) -> str:
    try:
        return key_fn(derive_key)(*a)
    except Exception as exc:  # learner code
        raise LearnerFailed(f"derive_key{a[:3]} raised {_fmt(exc)}") from None


def check_key_stable(derive_key: KeyFn) -> list[str]:
    """Same logical call -> same key, every time; usable as an Idempotency-Key (1..255 chars)."""
    cases = [("run-7", 1, "charge", CHARGE), ("run-7", 2, "book", {"item": "room", "customer": "c"}),
             (f"run-{uuid.UUID(int=7)}", 3, "refund", {"charge_id": "ch_000001"})]
    try:
        for case in cases:
            keys = {_key(derive_key, *case) for _ in range(3)}
            if len(keys) != 1:
                return [f"[key-stable] {case[2]} at step {case[1]} got {len(keys)} different keys "
                        "in 3 calls with the same inputs: a retry would look like a new "
                        "operation"]
            key = keys.pop()
            if not 0 < len(key) <= 255:
                return [f"[key-stable] a key of {len(key)} characters cannot be sent as an "
                        "Idempotency-Key (providers accept 1..255)"]
    except LearnerFailed as exc:
        return [f"[key-stable] {exc}"]
    return []


def check_key_bound(derive_key: KeyFn) -> list[str]:
    """Another payload, step, run or tool -> another key; the same JSON in another order -> the
    same key."""
    base = ("run-7", 1, "charge", CHARGE)
    variants = {
        "another amount": ("run-7", 1, "charge", {**CHARGE, "amount_cents": 4300}),
        "another customer": ("run-7", 1, "charge", {**CHARGE, "customer": "cus_bob"}),
        "a float amount (42.0 is not 42)": ("run-7", 1, "charge",
                                            {**CHARGE, "amount_cents": 4200.0}),
        "another step": ("run-7", 2, "charge", CHARGE),
        "another run": ("run-8", 1, "charge", CHARGE),
        "another tool": ("run-7", 1, "refund", CHARGE),
    }
    try:
        k0 = _key(derive_key, *base)
        for what, case in variants.items():
            if _key(derive_key, *case) == k0:
                return [f"[key-bound] {what} got the same key as the original charge: the "
                        "provider would replay the first answer for a different operation"]
        flipped = dict(reversed(list(CHARGE.items())))
        if _key(derive_key, "run-7", 1, "charge", flipped) != k0:
            return ["[key-bound] the same arguments in another key order got another key"]
    except LearnerFailed as exc:
        return [f"[key-bound] {exc}"]
    return []


# -- reconcile, alone ---------------------------------------------------------------------------

class SpyCharge:
    """A keyed charge tool with lookup whose first attempt loses its response; logs every call."""

    name = "charge"
    effect = EffectClass.KEYED
    retention_for = 86_400.0
    has_lookup = True

    def __init__(self, committed_before_loss: bool) -> None:
        self.committed_before_loss = committed_before_loss
        self.log: list[str] = []
        self.charges: list[str] = []  # effect keys charged (this fake provider deduplicates)

    def prepare(self, args: dict[str, Any], scopes: frozenset[str]) -> dict[str, Any]:
        return dict(args)

    def receipt(self, key: str) -> dict[str, Any]:
        return {"charge_id": f"ch_{self.charges.index(key) + 1:06d}", "amount": 4200}

    def invoke(self, call: ToolCall) -> dict[str, Any]:
        self.log.append("send")
        if call.effect_key not in self.charges and (call.attempt > 1 or
                                                    self.committed_before_loss):
            self.charges.append(call.effect_key)
        if call.attempt == 1:
            raise OutcomeUnknown(tool="charge", effect_key=call.effect_key, reason="lost")
        return self.receipt(call.effect_key)

    def lookup(self, call: ToolCall) -> Lookup:
        self.log.append("lookup")
        if call.effect_key in self.charges:
            return Lookup(True, self.receipt(call.effect_key))
        return Lookup(False)


def spy_run(reconcile: ReconcileFn, committed: bool) -> tuple[SpyCharge, Any]:
    """Run one charge whose first response is lost (after committing, or not); return the spy
    (``log``: what the provider was asked, in order) and the run's outcome."""
    spy = SpyCharge(committed)
    with tempfile.TemporaryDirectory() as tmp:
        rt = Runtime(SQLiteStore(Path(tmp) / "r.sqlite"), tools=[spy],
                     workflows={"pay": lambda ctx, _: ctx.call_tool("charge", **CHARGE)},
                     clock=FakeClock(m04.EPOCH), reconcile=policy(reconcile))
        try:
            out = rt.run_workflow("pay", None, run_id="run-spy")
        finally:
            rt.close()
    return spy, out


def check_lookup_before_resend(reconcile: ReconcileFn) -> list[str]:
    """After a lost response: ask the provider first; found -> its receipt, no resend; not found
    within retention -> resend (same key)."""
    for committed in (True, False):
        case = "whose charge had happened" if committed else "whose charge had not happened"
        try:
            spy, out = spy_run(reconcile, committed)
        except Exception as exc:
            return [f"[lookup-before-resend] a run with a lost response {case} crashed the "
                    f"runtime: {_fmt(exc)}"]
        calls = ", ".join(spy.log)
        if out.state is not RunState.SUCCEEDED:
            err = out.error.attrs.get("detail", out.error) if out.error else ""
            return [f"[lookup-before-resend] after a lost response {case} the run ended "
                    f"{out.state.value} ({str(err)[:120]}); calls: {calls}"]
        if "lookup" not in spy.log or spy.log.index("lookup") > 1:
            return [f"[lookup-before-resend] after a lost response {case} the provider was "
                    f"not asked before anything else happened; calls: {calls}"]
        if committed and spy.log.count("send") > 1:
            return [f"[lookup-before-resend] the charge had happened and the lookup said so, yet "
                    f"it was sent again; calls: {calls}"]
        if out.value != spy.receipt(spy.charges[0]):
            return [f"[lookup-before-resend] after a lost response {case} the run recorded "
                    f"{str(out.value)[:80]}, not the provider's receipt"]
    return []


def check_no_blind_resend(reconcile: ReconcileFn) -> list[str]:
    """Crash in W3, come back after the provider's retention window: the key may be pruned, so
    the run must escalate (UNCERTAIN) and the ledger must still hold exactly one charge."""
    sc = replace(m04.pay_then_book, reconcile=policy(reconcile))
    try:
        verdict, outcome = m04.crash_then_resume_after(sc, "after_provider_commit",
                                                       PAST_RETENTION)
    except Exception as exc:
        return [f"[no-blind-resend] recovery 25 h after a crash in W3 crashed the runtime: "
                f"{_fmt(exc)}"]
    if verdict.outcome is Outcome.DUPLICATE:
        return [f"[no-blind-resend] 25 h after a crash in W3 (retention 24 h) the recovery "
                f"charged again: {verdict.detail}"]
    if outcome.state is not RunState.UNCERTAIN:
        why = f" ({str(outcome.error)[:120]})" if outcome.error else ""
        return [f"[no-blind-resend] 25 h after a crash in W3 (retention 24 h) the run ended "
                f"{outcome.state.value}{why}; an outcome nobody can settle any more must be "
                "escalated"]
    return []


def resume_after(reconcile: ReconcileFn, after_for: float) -> tuple[str, str]:
    """Crash in W3 of the charge, resume ``after_for`` seconds later; (verdict, run state)."""
    sc = replace(m04.pay_then_book, reconcile=policy(reconcile))
    verdict, outcome = m04.crash_then_resume_after(sc, "after_provider_commit", after_for)
    return verdict.outcome.value, outcome.state.value


# -- the whole recovery, under the sweep ----------------------------------------------------------

def crash_in(reconcile: ReconcileFn, derive_key: KeyFn, window: str = "W3",
             occurrence: int = 1) -> str:
    """Crash the pay-then-book run once in ``window`` of the ``occurrence``-th call, recover with
    the learner's functions; return the oracle's outcome and detail as one line."""
    point = next(p for p, w in WINDOWS.items() if w == window)
    sc = replace(m04.pay_then_book, reconcile=policy(reconcile), key_for=key_fn(derive_key))
    verdict = crash_once(sc, point, occurrence=occurrence)
    return f"{verdict.outcome.value}: {verdict.detail}"


def check_one_charge(reconcile: ReconcileFn, derive_key: KeyFn) -> list[str]:
    """Crash the pay-then-book run in W1..W5 of both calls; exactly one charge, one booking,
    the run succeeded with the ledger's receipt (the oracle says CLEAN) in every cell."""
    sc = replace(m04.pay_then_book, reconcile=policy(reconcile), key_for=key_fn(derive_key))
    for point, n in m04.POINTS:
        try:
            verdict = crash_once(sc, point, occurrence=n)
        except Exception as exc:
            return [f"[one-charge] {m04.window(point, n)}: the crash drill itself failed: "
                    f"{_fmt(exc)}"]
        if verdict.outcome is not Outcome.CLEAN:
            return [f"[one-charge] crash in {m04.window(point, n)}: {verdict.outcome.value} — "
                    f"{verdict.detail}"]
    return []


def duplicate_windows() -> set[str]:
    """The windows of the charge where per-attempt random keys charge twice (run here)."""
    cells = [(p, crash_once(m04.pay_then_book_random_keys, p)) for p in TOOL_POINTS]
    return {WINDOWS[p] for p, v in cells if v.outcome is Outcome.DUPLICATE}


def check_prediction(predicted: Any) -> list[str]:
    """The learner's set of windows (e.g. ``{"W1"}``) matches the sweep's duplicates."""
    try:
        got = {str(w).strip().upper() for w in predicted}
    except TypeError:
        return ["[predict] the prediction must be a set of window names such as {'W1'}"]
    unknown = sorted(got - set(WINDOWS.values()))
    if unknown:
        return [f"[predict] {unknown} are not windows (W1..W5)"]
    actual = duplicate_windows()
    if got != actual:
        return [f"[predict] you predicted {sorted(got)}; the sweep disagrees in "
                f"{len(got ^ actual)} window(s): rerun the lesson's sweep and look again"]
    return []
