"""Hidden-test logic for drill 02 (typed tool contracts). Course tooling, not runtime core.

Each ``check_*`` function takes the learner's factory or function, builds its own world (a payments
provider with a SQLite ledger, a mailer), drives the learner's code on cases built here, and
returns a list of failure messages (empty = the property holds). A message starts with the
property's name in brackets, names the case and what the learner's code did, and never states
the expected answer. Learner code is never trusted:

- every call is wrapped, so an exception becomes a failure message instead of a crashed cell;
- errors are compared by exact type, after a round trip through ``to_record``/``from_record``;
- what the world did is read from the providers' own ledgers, never from the learner's objects;
- the reference contracts below are used for the prediction and for the journal records the
  effect-status exercise reads, never the learner's.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import sqlite3
import tempfile
import weakref
from collections.abc import Callable, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from pydantic import BaseModel

from minirt.canonical import canonical_json, normalise
from minirt.clock import FakeClock
from minirt.contracts import (
    GATES,
    ContractError,
    DomainViolation,
    Invocation,
    LimitExceeded,
    Limits,
    NotAuthorized,
    PartialEffect,
    SchemaViolation,
    ToolContract,
    constraint,
)
from minirt.errors import MinirtError, ToolError, from_record
from minirt.faults import WINDOWS, FaultPlan, Outcome, SimulatedCrash, Verdict, sweep
from minirt.idempotency import effect_key
from minirt.run import RunState
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, ToolCall

from ..scenarios import SQLiteScenario
from .differential import falsify, plain_equal

#: The only names of this module the learner's answer and plain cells may use (the out-of-kernel
#: run refuses the others). ``actual_gate`` (the prediction's answer) is not one of them.
LEARNER_API = ("CHARGES", "Payments", "Mailer", "RefundReceipt", "RefundNotifyReceipt",
               "call_for", "SCOPE", "PREDICT_CALL")

SCOPE = "payments:refund"
CHARGES: dict[str, dict[str, Any]] = {
    "ch_1": {"amount": 5000, "currency": "EUR", "email": "ana@example.com"},
    "ch_2": {"amount": 1200, "currency": "USD", "email": "bo@example.com"},
}
PREDICT_CALL = {"charge_id": "ch_1", "amount": 6000, "currency": "EUR"}  # scopes: none
Factory = Callable[..., Any]


# -- the outside world --------------------------------------------------------------------------

class Payments:
    """A payments provider with its own SQLite ledger. ``refund(key, ...)`` is idempotent by key
    (the same key returns the first refund id; the same key with other parameters is an error),
    like Stripe's idempotency keys. Charges in ``declined`` cannot be refunded."""

    def __init__(self, path: str | Path | None = None, declined: frozenset[str] = frozenset()
                 ) -> None:
        if path is None:  # a ledger of its own, removed with this object (a sweep makes many)
            own = tempfile.mkdtemp(prefix="m02-pay-")
            weakref.finalize(self, shutil.rmtree, own, ignore_errors=True)
            path = Path(own) / "payments.sqlite"
        self.path = str(path)
        self.declined = declined
        with closing(sqlite3.connect(self.path)) as db, db:
            db.execute("CREATE TABLE IF NOT EXISTS refunds (key TEXT PRIMARY KEY, refund_id TEXT,"
                       " charge_id TEXT, amount INTEGER, currency TEXT)")

    def refund(self, key: str, charge_id: str, amount: int, currency: str) -> str:
        with closing(sqlite3.connect(self.path)) as db, db:
            row = db.execute("SELECT refund_id, charge_id, amount, currency FROM refunds "
                             "WHERE key = ?", (str(key),)).fetchone()
            if row is not None:
                if tuple(row[1:]) != (charge_id, amount, currency):
                    raise ToolError(tool="payments", reason=f"key {key} reused with other "
                                                            "parameters")
                return str(row[0])
            if charge_id in self.declined:
                raise ToolError(tool="payments", reason=f"charge {charge_id} cannot be refunded")
            n = db.execute("SELECT COUNT(*) FROM refunds").fetchone()[0]
            refund_id = f"re_{n + 1}"
            db.execute("INSERT INTO refunds VALUES (?, ?, ?, ?, ?)",
                       (str(key), refund_id, charge_id, amount, currency))
            return refund_id

    def refunds(self, charge_id: str | None = None) -> list[dict[str, Any]]:
        """The ledger's rows (the authoritative count of refunds)."""
        with closing(sqlite3.connect(self.path)) as db:
            rows = db.execute("SELECT key, refund_id, charge_id, amount, currency FROM refunds "
                              "ORDER BY rowid").fetchall()
        out = [dict(zip(("key", "refund_id", "charge_id", "amount", "currency"), r, strict=True))
               for r in rows]
        return [r for r in out if charge_id is None or r["charge_id"] == charge_id]


class Mailer:
    """An email sender that records what it sent; idempotent by key. ``fail=True`` refuses."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.sent: dict[str, dict[str, str]] = {}

    def send(self, key: str, to: str, text: str) -> str:
        if str(key) in self.sent:
            return self.sent[str(key)]["message_id"]
        if self.fail:
            raise ToolError(tool="mailer", reason="the mail server refused the message")
        message_id = f"msg_{len(self.sent) + 1}"
        self.sent[str(key)] = {"message_id": message_id, "to": str(to), "text": str(text)}
        return message_id


class RefundReceipt(BaseModel):
    refund_id: str


class RefundNotifyReceipt(BaseModel):
    refund_id: str
    message_id: str


def call_for(tool: Any, prepared: Mapping[str, Any], *, run_id: str = "drill", step: int = 0,
             attempt: int = 1) -> ToolCall:
    """The ToolCall the runtime would dispatch for ``prepared`` arguments."""
    args = dict(prepared)
    return ToolCall(run_id, step, tool.name, args, effect_key(run_id, step, tool.name, args),
                    attempt, 0, frozenset({SCOPE}))


# -- the reference contracts (never the learner's) ----------------------------------------------

class _RefundArgs(BaseModel):
    charge_id: str
    amount: int
    currency: str


def _constraints() -> list[Any]:
    @constraint("positive_amount", field="amount")
    def positive(a: Any, ctx: Mapping[str, Any]) -> bool:
        return a.amount > 0

    @constraint("known_charge", field="charge_id")
    def known(a: Any, ctx: Mapping[str, Any]) -> bool:
        return a.charge_id in ctx["charges"]

    @constraint("within_charge", field="amount")
    def within(a: Any, ctx: Mapping[str, Any]) -> bool:
        return a.amount <= ctx["charges"][a.charge_id]["amount"]

    @constraint("currency_matches", field="currency")
    def currency(a: Any, ctx: Mapping[str, Any]) -> bool:
        return a.currency == ctx["charges"][a.charge_id]["currency"]

    return [positive, known, within, currency]


def reference_refund(charges: Callable[[], Mapping[str, Any]], payments: Payments,
                     handler: Any = None) -> ToolContract:
    def refund(a: Any, inv: Invocation) -> dict[str, str]:
        return {"refund_id": payments.refund(inv.key("refund"), a.charge_id, a.amount,
                                             a.currency)}

    return ToolContract("refund", input_model=_RefundArgs, output_model=RefundReceipt,
                        handler=handler or refund, effect=EffectClass.KEYED,
                        constraints=_constraints(), scope=SCOPE,
                        limits=Limits(max_payload_bytes=1024),
                        context=lambda: {"charges": charges()})


def reference_refund_and_notify(charges: Callable[[], Mapping[str, Any]], payments: Payments,
                                mailer: Mailer) -> ToolContract:
    def both(a: Any, inv: Invocation) -> dict[str, str]:
        refund_id = payments.refund(inv.key("refund"), a.charge_id, a.amount, a.currency)
        inv.happened("refund", {"refund_id": refund_id})
        message_id = mailer.send(inv.key("notify"), charges()[a.charge_id]["email"], "refunded")
        inv.happened("notify", {"message_id": message_id})
        return {"refund_id": refund_id, "message_id": message_id}

    return ToolContract("refund_and_notify", input_model=_RefundArgs,
                        output_model=RefundNotifyReceipt, handler=both, effect=EffectClass.KEYED,
                        constraints=_constraints(), scope=SCOPE,
                        limits=Limits(max_payload_bytes=1024),
                        context=lambda: {"charges": charges()}, sub_effects=("refund", "notify"))


# -- calling learner code -----------------------------------------------------------------------

def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args, **kwargs), None
    except Exception as exc:  # a learner's bug becomes a failure message, not a crashed cell
        return None, exc


def _trusted(exc: BaseException | None) -> BaseException | None:
    """A minirt error rebuilt from its record (so the learner's object is not what we read)."""
    if isinstance(exc, MinirtError):
        return from_record(json.loads(json.dumps(exc.to_record())))
    return exc


def _prepare(tool: Any, args: Any, scopes: frozenset[str]) -> tuple[Any, BaseException | None]:
    value, exc = _call(tool.prepare, copy.deepcopy(args), frozenset(scopes))
    return value, _trusted(exc)


def _describe(value: Any, exc: BaseException | None) -> str:
    if exc is None:
        return "it was accepted"
    return f"it raised {type(exc).__name__}: {str(exc)[:120]}"


class ChargeBook:
    """The ``charges`` callable handed to the learner's factory: returns the book it holds (an
    object, so the out-of-kernel run may pass its method to the learner; a local lambda of the
    grading code would be refused there)."""

    def __init__(self, book: dict[str, Any]) -> None:
        self.book = book

    def __call__(self) -> dict[str, Any]:
        return self.book


def _charges(extra: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], Callable[[], Any]]:
    book = copy.deepcopy(CHARGES)
    book.update(copy.deepcopy(dict(extra or {})))
    return book, ChargeBook(book)


def _build(tag: str, factory: Factory, *args: Any) -> tuple[Any, list[str]]:
    tool, exc = _call(factory, *args)
    if exc is not None:
        return None, [f"[{tag}] building the contract raised {type(exc).__name__}: {exc}"]
    if not callable(getattr(tool, "prepare", None)) or not callable(getattr(tool, "invoke", None)):
        return None, [f"[{tag}] the factory did not return a tool (prepare/invoke)"]
    return tool, []


def _expect(tag: str, tool: Any, label: str, args: Any, scopes: frozenset[str],
            kind: type[ContractError] | None, field: str | None = None) -> list[str]:
    value, exc = _prepare(tool, args, scopes)
    if kind is None:
        if exc is not None:
            return [f"[{tag}] {label}: a valid call was refused ({_describe(value, exc)})"]
        return []
    if type(exc) is not kind:
        return [f"[{tag}] {label}: {_describe(value, exc)}"]
    if field is not None and str(getattr(exc, "field", "")) != field:
        return [f"[{tag}] {label}: refused, but the error names field "
                f"{getattr(exc, 'field', None)!r}"]
    return []


def _good(**kw: Any) -> dict[str, Any]:
    return {"charge_id": "ch_1", "amount": 1000, "currency": "EUR", **kw}


ALL = frozenset({SCOPE})


# -- prepare, differentially: every gate, its order and its boundaries against the reference ----

def _padded(target: int) -> str:
    """A charge id that makes ``_good(charge_id=...)`` exactly ``target`` canonical bytes."""
    base = len(canonical_json(_good(charge_id="")).encode("utf-8"))
    return "ch_" + "p" * (target - base - 3)


_BOUNDARY_IDS = tuple(_padded(n) for n in (1023, 1024, 1025))
_CHARGE_BOOK = {cid: {"amount": 5000, "currency": "EUR", "email": "p@example.com"}
                for cid in _BOUNDARY_IDS}


@st.composite
def prepare_cases(draw: Any) -> tuple[Any, frozenset[str]]:
    """Arguments around every gate: amounts at 0, 1, the charge's amount and one more, strings,
    floats and bools; unknown charges; another currency; extra or missing fields; payloads of
    exactly 1023, 1024 and 1025 bytes; with the scope, without it, or with another one."""
    cid = draw(st.sampled_from(["ch_1", "ch_2", "ch_9", *_BOUNDARY_IDS]))
    cap = {**CHARGES, **_CHARGE_BOOK}.get(cid, {"amount": 5000})["amount"]
    amount = draw(st.sampled_from([-1, 0, 1, cap - 1, cap, cap + 1, "10", 10.5, True, None]))
    args: Any = {"charge_id": cid, "amount": amount,
                 "currency": draw(st.sampled_from(["EUR", "USD", "eur"]))}
    shape = draw(st.sampled_from(["ok", "ok", "ok", "extra", "missing", "not a dict"]))
    if shape == "extra":
        args["note"] = "x"
    elif shape == "missing":
        del args[draw(st.sampled_from(sorted(args)))]
    elif shape == "not a dict":
        args = [args]
    scopes = draw(st.sampled_from([frozenset({SCOPE}), frozenset(), frozenset({"payments:read"}),
                                   frozenset({SCOPE, "payments:read"})]))
    return args, scopes


def _outcome_of(tool: Any, args: Any, scopes: frozenset[str]) -> tuple[Any, Any]:
    value, exc = _prepare(tool, args, scopes)
    if exc is not None:
        attrs = {k: v for k, v in getattr(exc, "attrs", {}).items() if k != "reason"}
        return "raised", (type(exc).__name__, attrs)
    return "prepared", normalise(value) if isinstance(value, Mapping) else value


def _gate_of(case: tuple[Any, frozenset[str]]) -> str:
    ref = reference_refund(lambda: {**CHARGES, **_CHARGE_BOOK}, Payments())
    kind, value = _outcome_of(ref, *case)
    return value[0] if kind == "raised" else "accepted"


def _prepare_property(make_refund: Factory) -> Callable[[Any], str | None]:
    def prop(case: tuple[Any, frozenset[str]]) -> str | None:
        args, scopes = case
        book = {**copy.deepcopy(CHARGES), **copy.deepcopy(_CHARGE_BOOK)}
        tool, exc = _call(make_refund, ChargeBook(book), Payments())
        if exc is not None or not callable(getattr(tool, "prepare", None)):
            return f"make_refund did not build a tool ({_describe(None, exc)})"
        given = copy.deepcopy(args)
        got = _outcome_of(tool, given, scopes)
        if canonical_json(given) != canonical_json(args):
            return "prepare changed the arguments it was given"
        want = _outcome_of(reference_refund(lambda: book, Payments()), args, scopes)
        if got[0] != want[0]:
            what = f"refused it with {got[1][0]}" if got[0] == "raised" else "accepted it"
            wanted = f"{want[1][0]}" if want[0] == "raised" else "acceptance"
            return f"prepare {what}, expected {wanted}"
        if want[0] == "raised":
            (gname, gattrs), (wname, wattrs) = got[1], want[1]
            if gname != wname:
                return f"prepare raised {gname}, expected {wname} (the gates run in order)"
            for k, v in wattrs.items():
                if not plain_equal(gattrs.get(k, "<missing>"), v):
                    return f"{wname}.{k} is {gattrs.get(k, '<missing>')!r}, expected {v!r}"
            return None
        if not plain_equal(got[1], want[1]):
            return f"prepare returned {got[1]!r}, expected the canonical arguments {want[1]!r}"
        return None
    return prop


def check_prepare_properties(make_refund: Factory, prop: str, gates: tuple[str, ...]) -> list[str]:
    """[prop] differential against the reference contract on generated calls whose reference
    outcome is one of ``gates`` (error class names, or "accepted"): the same gate, every
    attribute of its error but the free-text reason, or the same canonical arguments."""
    examples = [(_good(charge_id=cid), frozenset({SCOPE})) for cid in _BOUNDARY_IDS]
    examples += [(_good(amount=5000), frozenset({SCOPE})), (_good(amount=5001), frozenset()),
                 (_good(amount=0), frozenset()), (_good(charge_id="ch_9"), frozenset())]
    check = _prepare_property(make_refund)

    def judged(case: tuple[Any, frozenset[str]]) -> str | None:
        return check(case) if _gate_of(case) in gates else None  # another cell's property

    return falsify(prop, prepare_cases(), judged, max_examples=80, examples=examples,
                   show=lambda c: f"args={_short_args(c[0])} ({_size(c[0])} canonical bytes), "
                   f"scopes={sorted(c[1])}")


def _size(args: Any) -> int | str:
    try:
        return len(canonical_json(args).encode("utf-8"))
    except Exception:  # noqa: BLE001 - not JSON data: no size
        return "?"


def _short_args(args: Any) -> str:
    text = repr(args)
    return re.sub(r"p{20,}", lambda m: f"<{len(m.group())} x 'p'>", text)


# -- the checks ---------------------------------------------------------------------------------

def check_schema(make_refund: Factory) -> list[str]:
    """[schema] malformed arguments of every shape are a SchemaViolation naming the field."""
    payments = Payments()
    _, charges = _charges()
    tool, failures = _build("schema", make_refund, charges, payments)
    if tool is None:
        return failures
    cases: list[tuple[str, Any, str | None]] = [
        ("a string amount", _good(amount="10.00"), "amount"),
        ("a float amount", _good(amount=10.5), "amount"),
        ("an integral float amount", _good(amount=1000.0), "amount"),
        ("a boolean amount", _good(amount=True), "amount"),
        ("a NaN amount", _good(amount=float("nan")), "amount"),
        ("a missing currency", {"charge_id": "ch_1", "amount": 1000}, "currency"),
        ("an extra field", _good(reason="duplicate"), "reason"),
        ("a number as charge_id", _good(charge_id=1), "charge_id"),
        ("arguments that are a list", [_good()], None),
        ("arguments that are a string", "refund ch_1", None),
    ]
    for label, args, field in cases:
        failures += _expect("schema", tool, label, args, ALL, SchemaViolation, field)
    value, exc = _prepare(tool, _good(), ALL)
    if exc is not None or not isinstance(value, Mapping) or value.get("amount") != 1000:
        failures.append(f"[schema] a valid refund did not come back as its arguments "
                        f"({_describe(value, exc)})")
    if payments.refunds():
        failures.append("[schema] checking arguments refunded money")
    return failures or check_prepare_properties(make_refund, "schema", ("SchemaViolation",))


def check_domain(make_refund: Factory) -> list[str]:
    """[domain] amount > 0, amount <= the original charge, currency matches, charge known; the
    charges are read when the call is checked, not when the contract is built."""
    payments = Payments()
    book, charges = _charges()
    tool, failures = _build("domain", make_refund, charges, payments)
    if tool is None:
        return failures
    cases: list[tuple[str, dict[str, Any], type[ContractError] | None, str | None]] = [
        ("a zero amount", _good(amount=0), DomainViolation, "amount"),
        ("a negative amount", _good(amount=-500), DomainViolation, "amount"),
        ("more than the charge", _good(amount=5001), DomainViolation, "amount"),
        ("exactly the charge", _good(amount=5000), None, None),
        ("one cent", _good(amount=1), None, None),
        ("another currency", _good(currency="USD"), DomainViolation, "currency"),
        ("the currency of another charge", _good(charge_id="ch_2", amount=100), DomainViolation,
         "currency"),
        ("a USD charge in USD", _good(charge_id="ch_2", amount=1200, currency="USD"), None, None),
        ("an unknown charge", _good(charge_id="ch_404"), DomainViolation, None),
    ]
    for label, args, kind, field in cases:
        failures += _expect("domain", tool, label, args, ALL, kind, field)
    book["ch_9"] = {"amount": 700, "currency": "JPY", "email": "kai@example.com"}
    book["ch_1"]["amount"] = 2000  # partly refunded since the contract was built
    failures += _expect("domain", tool, "a charge added after the contract was built",
                        _good(charge_id="ch_9", amount=700, currency="JPY"), ALL, None)
    failures += _expect("domain", tool, "more than a charge that shrank after the contract "
                        "was built", _good(amount=2500), ALL, DomainViolation, "amount")
    if payments.refunds():
        failures.append("[domain] checking arguments refunded money")
    return failures or check_prepare_properties(make_refund, "domain", ("DomainViolation",))


def check_authorization(make_refund: Factory) -> list[str]:
    """[authorization] without the scope the call is refused before anything is journaled as an
    intent or sent; with it, it passes."""
    payments = Payments()
    _, charges = _charges()
    tool, failures = _build("authorization", make_refund, charges, payments)
    if tool is None:
        return failures
    for label, scopes in (("no scopes", frozenset()), ("only payments:read",
                                                       frozenset({"payments:read"})),
                          ("a look-alike scope", frozenset({"payments:refund:ch_1"}))):
        failures += _expect("authorization", tool, f"a valid refund with {label}", _good(),
                            scopes, NotAuthorized)
    _, exc = _prepare(tool, _good(), frozenset())
    if type(exc) is NotAuthorized and exc.scope != SCOPE:
        failures.append(f"[authorization] the refusal names scope {exc.scope!r}")
    failures += _expect("authorization", tool, "a valid refund with the scope", _good(),
                        frozenset({SCOPE, "payments:read"}), None)
    with tempfile.TemporaryDirectory(prefix="m02-auth-") as tmp:
        kinds, err = _run_once(Path(tmp), tool, _good(), scopes=())
    if kinds != ["tool_rejected"]:
        failures.append(f"[authorization] in a run without the scope the journal shows {kinds} "
                        f"at the refund's step ({_describe(None, err)})")
    if payments.refunds():
        failures.append("[authorization] a refund reached the payments provider without the "
                        "scope")
    return failures or check_prepare_properties(make_refund, "authorization", ("NotAuthorized",))


def check_limits(make_refund: Factory) -> list[str]:
    """[limits] canonical arguments above 1024 bytes are refused by the limits gate."""
    payments = Payments()
    big, small = "ch_" + "x" * 1100, "ch_" + "y" * 850
    extra = {cid: {"amount": 5000, "currency": "EUR", "email": "z@example.com"}
             for cid in (big, small)}
    _, charges = _charges(extra)
    tool, failures = _build("limits", make_refund, charges, payments)
    if tool is None:
        return failures
    failures += _expect("limits", tool, "a refund with a 1.1 kB charge id", _good(charge_id=big),
                        ALL, LimitExceeded, "payload_bytes")
    failures += _expect("limits", tool, "a refund with a 0.85 kB charge id",
                        _good(charge_id=small), ALL, None)
    failures += _expect("limits", tool, "an oversized call without the scope",
                        _good(charge_id=big), frozenset(), NotAuthorized)
    return failures or check_prepare_properties(make_refund, "limits", ("LimitExceeded", "accepted"))


def _run_once(workdir: Path, tool: Any, args: Any, *, scopes: tuple[str, ...] = (SCOPE,),
              faults: Any = None) -> tuple[list[str], BaseException | None]:
    """Run a one-call workflow; return the kinds journaled at the tool's step and its error."""
    def wf(ctx: Any, inp: Any) -> Any:
        return ctx.call_tool(tool.name, inp)

    rt = Runtime(SQLiteStore(workdir / "runs.sqlite"), tools=[tool], workflows={"wf": wf},
                 clock=FakeClock(), scopes=scopes, faults=faults)
    try:
        out = rt.run_workflow("wf", args, run_id="run-1")
        kinds = [e.kind for e in rt.store.read("run-1") if e.step == 0]
        return kinds, out.error
    except SimulatedCrash as crash:
        return ["crash"], crash
    finally:
        rt.close()


def check_partial(make_refund_and_notify: Factory) -> list[str]:
    """[partial-report] when the notification fails after the refund, the outcome says the refund
    happened (with its refund id) and the notification did not; nothing is claimed that did not
    happen, and a refund the provider declines is not reported as done."""
    failures: list[str] = []
    # 1. the mailer fails after the refund
    payments, mailer = Payments(), Mailer(fail=True)
    _, charges = _charges()
    tool, errs = _build("partial-report", make_refund_and_notify, charges, payments, mailer)
    if tool is None:
        return errs
    args, exc = _prepare(tool, _good(), ALL)
    if exc is not None:
        return [f"[partial-report] a valid call was refused ({_describe(None, exc)})"]
    out, exc = _call(tool.invoke, call_for(tool, args))
    exc = _trusted(exc)
    rows = payments.refunds()
    if len(rows) != 1:
        failures.append(f"[partial-report] the provider's ledger shows {len(rows)} refunds "
                        "for one call")
    if type(exc) is not PartialEffect:
        failures.append(f"[partial-report] refund done, notification refused: "
                        f"{_describe(out, exc)}")
    else:
        names = [h.get("name") if isinstance(h, Mapping) else h for h in exc.happened]
        if names != ["refund"]:
            failures.append(f"[partial-report] the report lists {names} as happened")
        receipt = normalise(exc.receipts.get("refund"))
        if rows and not plain_equal(receipt, {"refund_id": rows[0]["refund_id"]}):
            failures.append("[partial-report] the refund's receipt is not {'refund_id': <the "
                            f"provider's refund id>}} (got {str(receipt)[:80]})")
        if "notify" not in list(exc.not_happened) + list(exc.unknown):
            failures.append("[partial-report] the report does not account for the notification")
    # 2. everything works
    payments, mailer = Payments(), Mailer()
    tool, errs = _build("partial-report", make_refund_and_notify, charges, payments, mailer)
    if tool is None:
        return failures + errs
    args, exc = _prepare(tool, _good(amount=700), ALL)
    out, exc = _call(tool.invoke, call_for(tool, args or {}))
    rows, sent = payments.refunds(), list(mailer.sent.values())
    if exc is not None or not isinstance(out, Mapping) or not rows or not sent or \
            str(out.get("refund_id")) != rows[0]["refund_id"] or \
            str(out.get("message_id")) != sent[0]["message_id"]:
        failures.append(f"[partial-report] when both succeed the output does not carry both "
                        f"receipts ({_describe(out, exc)})")
    # 3. the provider declines the refund: nothing happened, no mail goes out
    payments, mailer = Payments(declined=frozenset({"ch_2"})), Mailer()
    tool, errs = _build("partial-report", make_refund_and_notify, charges, payments, mailer)
    if tool is None:
        return failures + errs
    args, exc = _prepare(tool, _good(charge_id="ch_2", amount=100, currency="USD"), ALL)
    out, exc = _call(tool.invoke, call_for(tool, args or {}))
    exc = _trusted(exc)
    claimed = type(exc) is PartialEffect and bool(exc.happened)
    if not isinstance(exc, ToolError) or claimed or mailer.sent:
        failures.append(f"[partial-report] a declined refund: {_describe(out, exc)}"
                        + (", and a notification was sent" if mailer.sent else ""))
    # 4. through a runtime: the report is the step's recorded outcome
    payments, mailer = Payments(), Mailer(fail=True)
    tool, errs = _build("partial-report", make_refund_and_notify, charges, payments, mailer)
    if tool is not None:
        with tempfile.TemporaryDirectory(prefix="m02-partial-") as tmp:
            kinds, err = _run_once(Path(tmp), tool, _good())
        if kinds != ["intent", "tool_error"] or type(_trusted(err)) is not PartialEffect:
            failures.append(f"[partial-report] in a run the journal shows {kinds} "
                            f"({_describe(None, err)})")
    return failures


def _declared(tool: Any) -> dict[str, Any]:
    """What a contract declares, as plain data read from its public attributes."""
    effect = getattr(tool, "effect", None)
    subs = getattr(tool, "sub_effects", None)
    return {"name": str(getattr(tool, "name", None)),
            "effect": str(getattr(effect, "value", effect)),
            "scope": str(getattr(tool, "scope", None)),
            "sub_effects": [str(x) for x in subs] if isinstance(subs, (list, tuple)) else
            repr(subs)[:60]}


def check_combined_contract(make_refund_and_notify: Factory) -> list[str]:
    """[combined-contract] the refund-and-notify tool is the refund with a second effect: it is
    declared as the reference declares it (name, KEYED, scope, sub-effects refund then notify),
    its ``prepare`` refuses and accepts exactly what the reference does on generated calls
    (schema, every domain constraint and its context, the scope, the 1024-byte limit and their
    order, boundaries included), and its output is validated (a provider answer that is not a
    receipt is OutputInvalid, not a success)."""
    _, charges = _charges()
    tool, failures = _build("combined-contract", make_refund_and_notify, charges, Payments(),
                            Mailer())
    if tool is None:
        return failures
    want = _declared(reference_refund_and_notify(charges, Payments(), Mailer()))
    got = _declared(tool)
    for k, v in want.items():
        if got[k] != v:
            return [f"[combined-contract] the tool declares {k}={got[k]!r}, expected {v!r}"]

    def prop(case: tuple[Any, frozenset[str]]) -> str | None:
        args, scopes = case
        book = {**copy.deepcopy(CHARGES), **copy.deepcopy(_CHARGE_BOOK)}
        learner, exc = _call(make_refund_and_notify, ChargeBook(book), Payments(), Mailer())
        if exc is not None or not callable(getattr(learner, "prepare", None)):
            return f"the factory did not build a tool ({_describe(None, exc)})"
        given = copy.deepcopy(args)
        mine = _outcome_of(learner, given, scopes)
        if canonical_json(given) != canonical_json(args):
            return "prepare changed the arguments it was given"
        ref = _outcome_of(reference_refund_and_notify(lambda: book, Payments(), Mailer()), args,
                          scopes)
        if mine[0] != ref[0] or (ref[0] == "raised" and mine[1][0] != ref[1][0]):
            what = f"refused it with {mine[1][0]}" if mine[0] == "raised" else "accepted it"
            wanted = f"{ref[1][0]}" if ref[0] == "raised" else "acceptance, as the refund does"
            return f"prepare {what}, expected {wanted}"
        if ref[0] == "raised":
            for k, v in ref[1][1].items():
                if not plain_equal(mine[1][1].get(k, "<missing>"), v):
                    return f"{ref[1][0]}.{k} is {mine[1][1].get(k, '<missing>')!r}, expected {v!r}"
        elif not plain_equal(mine[1], ref[1]):
            return f"prepare returned {mine[1]!r}, expected the canonical arguments {ref[1]!r}"
        return None

    examples = [(_good(charge_id=cid), frozenset({SCOPE})) for cid in _BOUNDARY_IDS]
    examples += [(_good(amount=5000), frozenset({SCOPE})), (_good(amount=5001), frozenset()),
                 (_good(amount=-1), frozenset({SCOPE})), (_good(currency="USD"), ALL),
                 (_good(charge_id="ch_9"), ALL), (_good(amount="10"), ALL), (_good(), frozenset())]
    failures = falsify("combined-contract", prepare_cases(), prop, max_examples=60,
                       examples=examples,
                       show=lambda c: f"args={_short_args(c[0])} ({_size(c[0])} canonical bytes), "
                       f"scopes={sorted(c[1])}")
    if failures:
        return failures
    outcomes = []
    for build in (make_refund_and_notify, reference_refund_and_notify):
        t, exc = _call(build, charges, _BadIdPayments(), Mailer())
        if exc is not None:
            return [f"[combined-contract] building the contract raised {type(exc).__name__}"]
        prepared, exc = _prepare(t, _good(), ALL)
        if exc is None:
            _, exc = _call(t.invoke, call_for(t, prepared))
        outcomes.append(type(_trusted(exc)).__name__ if exc is not None else "success")
    if outcomes[0] != outcomes[1]:
        return [f"[combined-contract] a provider answering a refund id that is not a string: "
                f"the outcome was {outcomes[0]}, expected {outcomes[1]} (validate the output "
                "against RefundNotifyReceipt)"]
    return []


# -- effect status: records from real runs of the reference contracts ----------------------------

def outcome_records() -> list[tuple[str, str | None, dict[str, Any] | None]]:
    """(case, journal kind or None for "intent only", recorded error or None) from real runs."""
    out: list[tuple[str, str | None, dict[str, Any] | None]] = []

    def bad_output(a: Any, inv: Invocation) -> dict[str, str]:
        payments.refund(inv.key("refund"), a.charge_id, a.amount, a.currency)
        return {"refund": "re_1"}

    with tempfile.TemporaryDirectory(prefix="m02-status-") as tmp:
        root, charges = Path(tmp), _charges()[1]
        runs: list[tuple[str, Any, Any, Any]] = []
        payments = Payments(root / "p.sqlite")
        runs.append(("refused call", reference_refund(charges, payments), _good(amount=-1), None))
        runs.append(("refund done", reference_refund(charges, payments), _good(), None))
        runs.append(("refund done, bad output", reference_refund(charges, payments, bad_output),
                     _good(amount=200), None))
        runs.append(("refund done, mail refused",
                     reference_refund_and_notify(charges, payments, Mailer(fail=True)),
                     _good(amount=300), None))
        runs.append(("refund declined", reference_refund_and_notify(
            charges, Payments(root / "d.sqlite", frozenset({"ch_2"})), Mailer()),
            _good(charge_id="ch_2", amount=5, currency="USD"), None))
        runs.append(("crash after the provider committed",
                     reference_refund_and_notify(charges, payments, Mailer(fail=True)),
                     _good(amount=400), FaultPlan(crash_at="after_provider_commit")))
        for i, (case, tool, args, faults) in enumerate(runs):
            wd = root / f"run{i}"
            wd.mkdir()
            _run_once(wd, tool, args, faults=faults)
            with closing(SQLiteStore(wd / "runs.sqlite")) as store:
                rows = [e for e in store.read("run-1") if e.step == 0]
            last = rows[-1]
            if last.kind == "intent":
                out.append((case, None, None))
            else:
                out.append((case, last.kind, last.payload.get("error")))
    return out


EXPECTED_STATUS = {"refused call": "none", "refund done": "happened",
                   "refund done, bad output": "happened", "refund done, mail refused": "partial",
                   "refund declined": "none", "crash after the provider committed": "unknown"}


def check_effect_status(effect_status: Callable[..., Any]) -> list[str]:
    """[effect-status] each recorded outcome is read as what happened to the world."""
    failures = []
    for case, kind, error in outcome_records():
        got, exc = _call(effect_status, kind, copy.deepcopy(error))
        if exc is not None or str(got) != EXPECTED_STATUS[case]:
            shown = kind if kind is not None else "an intent with no outcome"
            what = f"returned {got!r}" if exc is None else f"raised {type(exc).__name__}"
            failures.append(f"[effect-status] {case} (journal: {shown}"
                            f"{', ' + error['type'] if error else ''}): {what}")
    return failures


# -- prediction ---------------------------------------------------------------------------------

def actual_gate() -> str:
    """The gate the reference refund contract stops PREDICT_CALL at, for a run with no scopes."""
    tool = reference_refund(_charges()[1], Payments())
    err = tool.rejection(PREDICT_CALL, frozenset())
    return type(err).gate if err is not None else "none"


def check_prediction(prediction: Any) -> list[str]:
    """[predict-gate] the prediction names the gate the run shows."""
    if str(prediction) not in GATES:
        return [f"[predict-gate] {prediction!r} is not one of {list(GATES)}"]
    if str(prediction) != actual_gate():
        return [f"[predict-gate] the run was not stopped at {str(prediction)!r}"]
    return []


# -- the crash sweep ----------------------------------------------------------------------------

def _refund_workflow(ctx: Any, inp: Any) -> Any:
    return ctx.call_tool("refund", inp)


class LearnerRefundScenario(SQLiteScenario):
    """One refund through the learner's contract, on a SQLite store and a SQLite payments ledger
    under the work directory; the oracle counts refunds in the provider's ledger."""

    name = "m02-learner-refund"
    args = {"charge_id": "ch_1", "amount": 1500, "currency": "EUR"}

    def __init__(self, factory: Factory) -> None:
        self.factory = factory

    def runtime_kwargs(self, workdir: Path) -> dict[str, Any]:
        tool = self.factory(_charges()[1], Payments(workdir / "payments.sqlite"))
        return {"tools": [tool], "workflows": {"refund": _refund_workflow}, "scopes": [SCOPE]}

    def start(self, rt: Runtime) -> str:
        return rt.start("refund", self.args, run_id=self.run_id)

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        rows = Payments(workdir / "payments.sqlite").refunds("ch_1")
        run = rt.store.get_run(run_id).run
        if len(rows) > 1:
            return Verdict(Outcome.DUPLICATE, f"{len(rows)} refunds in the provider's ledger")
        if not rows:
            return Verdict(Outcome.LOST, "no refund in the provider's ledger")
        if run.state is not RunState.SUCCEEDED:
            return Verdict(Outcome.STUCK, f"the run ended {run.state.value}")
        result = run.detail.get("result")
        if not isinstance(result, Mapping) or result.get("refund_id") != rows[0]["refund_id"]:
            return Verdict(Outcome.WRONG, "the run's result is not the provider's refund")
        return Verdict(Outcome.CLEAN)


class _BadIdPayments(Payments):
    """A provider that answers with a refund id that is not a string (for output validation)."""

    def refund(self, key: str, charge_id: str, amount: int, currency: str) -> Any:
        super().refund(key, charge_id, amount, currency)
        return 12345


def _declared_keyed_and_validated(make_refund: Factory) -> str | None:
    """None when the contract is declared KEYED (the runtime may not re-run it freely) and its
    output is validated (a provider answer that is not a receipt raises OutputInvalid)."""
    _, charges = _charges()
    tool, exc = _call(make_refund, charges, _BadIdPayments())
    if exc is not None:
        return f"building the contract raised {type(exc).__name__}"
    effect = str(getattr(getattr(tool, "effect", None), "value", getattr(tool, "effect", None)))
    if effect != EffectClass.KEYED.value:
        return (f"the refund is declared {effect!r}; a refund is an effect the provider "
                "deduplicates by key (EffectClass.KEYED)")
    prepared, exc = _prepare(tool, _good(), ALL)
    if exc is not None:
        return f"a valid refund was refused: {type(exc).__name__}"
    out, exc = _call(tool.invoke, call_for(tool, prepared))
    if type(_trusted(exc)).__name__ != "OutputInvalid":
        return ("a provider answer with a non-string refund id was "
                f"{'accepted' if exc is None else type(exc).__name__}; the receipt must be "
                "validated against RefundReceipt (OutputInvalid)")
    return None


def check_crash(make_refund: Factory) -> list[str]:
    """[crash-refund-once] crashed at every fault point and recovered, the run succeeds with
    exactly one refund in the provider's ledger."""
    _, charges = _charges()
    tool, failures = _build("crash-refund-once", make_refund, charges, Payments())
    if tool is None:
        return failures
    if getattr(tool, "name", None) != "refund":
        return [f"[crash-refund-once] the tool is named {getattr(tool, 'name', None)!r}"]
    problem = _declared_keyed_and_validated(make_refund)
    if problem:
        return [f"[crash-refund-once] {problem}"]
    cells, exc = _call(sweep, LearnerRefundScenario(make_refund))
    if exc is not None:
        return [f"[crash-refund-once] the sweep could not run: {type(exc).__name__}: {exc}"]
    for cell in cells:
        if not cell.verdict.ok:
            window = WINDOWS.get(cell.point, "")
            failures.append(f"[crash-refund-once] crash at {cell.point} {window}: "
                            f"{cell.verdict.outcome.value} ({cell.verdict.detail})")
    if not cells:
        failures.append("[crash-refund-once] the scenario passed no fault point")
    return failures
