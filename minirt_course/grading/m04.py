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
  and from the oracle of :mod:`minirt_course.scenarios.m04_payment`, never from the learner's objects;
- the prediction is compared, as a set of plain strings, with a sweep run here.

The key and the reconcile properties are checked apart (the reconcile checks use minirt's own
:func:`~minirt.idempotency.effect_key`), and the whole recovery together under the sweep.
"""

from __future__ import annotations

import copy
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from minirt.canonical import canonical_json, normalise
from minirt.clock import FakeClock
from minirt.faults import TOOL_POINTS, WINDOWS, Outcome, crash_once
from minirt.run import RunState
from minirt.runtime import Resolution, Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, Lookup, OutcomeUnknown, ToolCall

from ..scenarios import m04_payment as m04
from .differential import falsify, plain_equal

#: The only names of this module the learner's answer and plain cells may use (the out-of-kernel
#: run refuses the others). ``duplicate_windows`` (the prediction's answer) is not one of them.
LEARNER_API = ("spy_run", "resume_after", "crash_in", "SpyCharge", "CHARGE")

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
    return check_key_properties(derive_key)


# -- the key, differentially: same logical call <=> same key, over generated calls --------------

_scalars = st.one_of(st.integers(-2, 2), st.sampled_from([0.0, 1.0, 42.0, 4200, 4200.0]),
                     st.booleans(), st.none(), st.sampled_from(["", "a", "a:1", "1", "é", "e\u0301"]))
_json = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "ab", "amount"]),
                                                 inner, max_size=3)), max_leaves=6)
_calls = st.tuples(st.sampled_from(["r", "r1", "r:1", "run-7", "r|1"]), st.sampled_from([1, 2, 11]),
                   st.sampled_from(["charge", "refund", "charge1"]),
                   st.dictionaries(st.sampled_from(["a", "b", "ab", "amount"]), _json, max_size=3))


def _reordered(value: Any) -> Any:
    """The same JSON with every object's keys in reverse order (lists keep their order)."""
    if isinstance(value, dict):
        return {k: _reordered(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(v) for v in value]
    return value


def _identity(call: tuple[Any, ...]) -> str:
    """The logical identity of a call, as the drill defines it: run, step, tool and the canonical
    JSON of the arguments (key order ignored, 42 and 42.0 apart, strings in NFC)."""
    return canonical_json([call[0], call[1], call[2], call[3]])


def _key_pair_property(derive_key: KeyFn) -> Callable[[tuple[Any, Any]], str | None]:
    def prop(pair: tuple[Any, Any]) -> str | None:
        a, b = pair
        before = copy.deepcopy(pair)
        try:
            ka, kb = _key(derive_key, *a), _key(derive_key, *b)
        except LearnerFailed as exc:
            return str(exc)
        if not plain_equal(pair, before) or canonical_json(pair) != canonical_json(before):
            return "derive_key changed the arguments it was given"
        same = _identity(a) == _identity(b)
        if same and ka != kb:
            return "two calls of the same logical operation got different keys"
        if not same and ka == kb:
            return "two different operations got the same key"
        if not 0 < len(ka) <= 255:
            return f"a key of {len(ka)} characters cannot be sent as an Idempotency-Key"
        return None
    return prop


@st.composite
def key_pairs(draw: Any) -> tuple[Any, Any]:
    """Two calls: the same one with its keys reordered, one with a single part changed, or two
    independent calls from small domains (so "r1"+"1" and "r"+"11" both occur)."""
    a = draw(_calls)
    how = draw(st.sampled_from(["reorder", "change", "independent"]))
    if how == "reorder":
        return a, (a[0], a[1], a[2], _reordered(a[3]))
    if how == "change":
        b = draw(_calls)
        part = draw(st.integers(0, 3))
        return a, tuple(b[i] if i == part else a[i] for i in range(4))
    return a, draw(_calls)


def check_key_properties(derive_key: KeyFn) -> list[str]:
    """[key-bound] differential: over generated pairs of calls (nested arguments, keys in another
    order, 42 vs 42.0, True vs 1, separators inside ids), the keys are equal exactly when the
    calls are the same logical operation; arguments are left unchanged."""
    examples = [(("run-7", 1, "charge", {"a": {"x": 1, "y": [1, {"z": 2}]}}),
                 ("run-7", 1, "charge", {"a": {"x": 1, "y": [1, {"z": 3}]}})),
                (("r1", 1, "charge", {}), ("r", 11, "charge", {})),
                (("r", 1, "charge", {"a": 1}), ("r", 1, "charge", {"a": True})),
                (("r", 1, "charge", {"a": [1, 2]}), ("r", 1, "charge", {"a": [2, 1]})),
                (("r", 1, "charge", {"a": {"b": 1, "ab": 2}}),
                 ("r", 1, "charge", {"a": {"ab": 2, "b": 1}}))]
    return falsify("key-bound", key_pairs(), _key_pair_property(derive_key), max_examples=150,
                   examples=examples)


# -- reconcile, differentially: fake provider, fake clock, every retention boundary -------------

RETENTION = 86_400.0


class _Opening:
    def __init__(self, at: float) -> None:
        self.kind, self.at = "intent", at


class _Position:
    def __init__(self, at: float) -> None:
        self.opening = _Opening(at)


class FakeJournal:
    def __init__(self, step: int, at: float) -> None:
        self._step, self._at = step, at

    def at(self, step: int) -> _Position | None:
        return _Position(self._at) if step == self._step else None


class FakeRuntime:
    def __init__(self, now: float) -> None:
        self.clock = FakeClock(now)


class FakeContext:
    """What a reconcile policy reads: ``runtime.clock.now()`` and the journal's intent time."""

    def __init__(self, step: int, sent_at: float, now: float) -> None:
        self.runtime, self.journal = FakeRuntime(now), FakeJournal(step, sent_at)


class FakeProvider:
    """A keyed tool with lookup; ``log`` counts what reconcile asked. Sending is refused."""

    name = "charge"
    effect = EffectClass.KEYED
    has_lookup = True

    def __init__(self, found: bool, result: Any, retention_for: float | None) -> None:
        self.found, self.result, self.retention_for = found, result, retention_for
        self.log: list[str] = []

    def lookup(self, call: ToolCall) -> Lookup:
        self.log.append("lookup")
        return Lookup(self.found, copy.deepcopy(self.result) if self.found else None)

    def invoke(self, call: ToolCall) -> Any:
        self.log.append("send")
        raise AssertionError("reconcile must not send; it says redispatch and the runtime does")


#: Seconds before the provider's retention ends within which escalating ("unknown") instead of
#: resending is accepted too (minirt's own ReconcileByLookup keeps margin_for=60 against clock
#: skew); a resend is never accepted at or past the retention.
SAFETY_MARGIN = 60.0


def expected_resolution(found: bool, result: Any, retention: float | None,
                        elapsed: float) -> tuple[str, Any]:
    """The drill's rule: found -> its result; else past retention (elapsed >= retention) ->
    unknown; else redispatch with the same key."""
    if found:
        return "result", result
    if retention is not None and elapsed >= retention:
        return "unknown", None
    return "redispatch", None


def _reconcile_property(reconcile: ReconcileFn) -> Callable[[tuple[Any, ...]], str | None]:
    def prop(case: tuple[Any, ...]) -> str | None:
        found, result, retention, offset = case
        elapsed = (retention if retention is not None else RETENTION) + offset
        t0 = m04.EPOCH
        tool = FakeProvider(found, result, retention)
        ctx = FakeContext(3, t0, t0 + elapsed)
        call = ToolCall("run-spy", 3, "charge", dict(CHARGE), "ek_" + "0" * 32, 1)
        try:
            r = reconcile(ctx, tool, call)
        except Exception as exc:  # learner code
            return f"reconcile raised {_fmt(exc)}"
        kind = str(getattr(r, "kind", ""))
        want_kind, want_value = expected_resolution(found, result, retention, elapsed)
        allowed = {want_kind}
        if (want_kind == "redispatch" and retention is not None
                and elapsed >= retention - min(SAFETY_MARGIN, retention)):
            allowed.add("unknown")  # escalating within the safety margin is safe, not wrong
        where = (f"{'found' if found else 'not found'}, {elapsed:g} s after the first send, "
                 f"retention {retention}")
        if tool.log.count("lookup") != 1 or "send" in tool.log:
            return f"({where}) reconcile asked the provider {tool.log}; look it up exactly once"
        if kind not in allowed:
            return (f"({where}) reconcile answered {kind!r}, expected "
                    f"{' or '.join(repr(k) for k in sorted(allowed))}")
        if want_kind == "result" and not plain_equal(normalise(getattr(r, "value", None)),
                                                     want_value):
            return f"({where}) the result is not the provider's recorded result"
        reason = getattr(r, "reason", "")
        if not isinstance(reason, str) or not reason.strip():
            return (f"({where}) the resolution gives no reason; every answer says why, in words "
                    "(an operator reads it when the run stops)")
        return None
    return prop


def check_reconcile_properties(reconcile: ReconcileFn, prop: str,
                               retention_only: bool = False) -> list[str]:
    """[prop] differential on a fake provider and clock. lookup-before-resend: found or not,
    nested results, retention 24 h, 60 s or none, always within the retention. no-blind-resend:
    not found, elapsed exactly at, just before and just after the retention."""
    if retention_only:
        strategy = st.tuples(st.just(False), st.none(), st.sampled_from([RETENTION, 60.0]),
                             st.sampled_from([0.0, -0.5, 0.5, -3600.0, 3600.0]))
        boundary = [(False, None, RETENTION, 0.0), (False, None, RETENTION, -0.5),
                    (False, None, 60.0, 0.0), (False, None, RETENTION, 0.5)]
    else:
        strategy = st.tuples(st.booleans(), _json, st.sampled_from([RETENTION, 60.0, None]),
                             st.sampled_from([-3600.0, -30.0, -1.0, -0.5]))
        boundary = [(True, {"charge_id": "ch_1", "nested": {"k": [1]}}, RETENTION, -1.0),
                    (False, None, None, -1.0), (False, None, RETENTION, -1.0),
                    (False, None, RETENTION, -3600.0)]
    return falsify(prop, strategy, _reconcile_property(reconcile), max_examples=60,
                   examples=boundary, show=lambda c: dict(zip(
                       ("found", "result", "retention_for", "elapsed_minus_retention"), c,
                       strict=True)))


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
    return check_reconcile_properties(reconcile, "lookup-before-resend")


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
    return check_reconcile_properties(reconcile, "no-blind-resend", retention_only=True)


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
                f"{len(got ^ actual)} window(s): run the cell after this one and look again"]
    return []
