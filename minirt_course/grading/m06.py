"""Hidden-test logic for drill 06 (scopes and approvals). Course tooling, not runtime core.

The learner writes ``check_dispatch(receipt, request, current, *, key, now, revocations, used)``,
the dispatch-time receipt check, with the same contract as :func:`minirt.approvals.check_receipt`:
return None to allow, raise the named :class:`~minirt.approvals.GateRefused` to refuse.

Each ``check_*`` function is one attack class. It builds cases here (a genuine receipt signed
with :data:`KEY` for a reviewed refund, then one twist that breaks exactly one condition), calls
the learner's function on fresh copies, and returns failure messages (empty = the property holds).
Every attack class also requires the genuine receipt to pass, so refusing everything scores
nothing. Learner code is never trusted: calls are wrapped (an exception becomes a message), and
refusals are compared by the exception's class identity against :mod:`minirt.approvals`.
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from minirt.approvals import (
    ApprovalExpired,
    ApprovalForged,
    ApprovalMismatch,
    ApprovalRequest,
    ApprovalReused,
    ApprovalRevoked,
    ArtifactChanged,
    GateRefused,
    Receipt,
    Secret,
    _sign,
    check_receipt,
    effect_of,
)
from minirt.canonical import digest, digest_bytes
from minirt.faults import crash_once

from ..scenarios.m06_approval import Ledger, M06Approval
from .differential import falsify, plain_equal

KEY = Secret("drill-06-key", "m06-drill-signing-key-5b9e0a7d31")
OTHER_KEY = Secret("mallory", "mallorys-own-signing-key-000000")
NOW = 1_700_000_000.0
NOTE = b"Order 42 arrived broken (photo). Refund 30.00 EUR in full."
REFUSALS = {c.__name__: c for c in (ApprovalForged, ApprovalMismatch, ArtifactChanged,
                                    ApprovalReused, ApprovalExpired, ApprovalRevoked)}
CheckFn = Callable[..., Any]
#: What the drill's answer and plain cells may use (the out-of-kernel run allows nothing else).
LEARNER_API = ("KEY", "NOW", "NOTE", "Case", "genuine", "tamper", "with_call", "sign", "refusal")


@dataclass(frozen=True)
class Case:
    """One dispatch to judge: what the gate knows at that moment."""

    receipt: Receipt
    request: ApprovalRequest
    current: dict[str, Any]  # the effect of the call being dispatched, computed now
    now: float
    revocations: dict[str, float]
    used: dict[str, int]


def _effect(args: dict[str, Any], *, run_id: str = "run-7", tool: str = "refund",
            resource: str | None = None, note: bytes | None = NOTE) -> dict[str, Any]:
    res = resource or f"order:{args.get('order_id')}"
    art = None if note is None else {"name": "refund-note", "digest": digest_bytes(note)}
    return effect_of(run_id, 1, tool, args, res,
                     {"cap_id": "cap_7", "resource": "order:42", "max_amount": 500_000,
                      "credential": "payments"}, art)


def sign(key: Secret = KEY, **fields: Any) -> Receipt:
    """A receipt over ``fields``, signed with ``key``."""
    return Receipt(**fields, signature=_sign(key, Receipt.KIND, fields))


def genuine(*, args: dict[str, Any] | None = None, approver: str = "alice",
            expires_for: float = 3600.0, now: float = NOW + 600) -> Case:
    """A refund of 30.00 EUR on order 42, approved by ``approver`` at NOW, dispatched at ``now``
    with nothing revoked or used: the gate must allow it."""
    eff = _effect(args or {"order_id": 42, "amount_cents": 3000})
    req = ApprovalRequest("apr_1", eff, digest(eff), NOW - 60)
    rcp = sign(receipt_id="rcp_1", request_id="apr_1", run_id="run-7",
               effect_digest=req.effect_digest, approver=approver, granted_at=NOW,
               expires_at=NOW + expires_for)
    return Case(rcp, req, copy.deepcopy(eff), now, {}, {})


def tamper(case: Case, **receipt_fields: Any) -> Case:
    """The receipt with fields changed and its old signature kept (not re-signed)."""
    return replace(case, receipt=replace(case.receipt, **receipt_fields))


def with_call(case: Case, **changes: Any) -> Case:
    """The dispatched call changed after review: ``args=``, ``run_id=``, ``tool=``,
    ``resource=`` or ``note=`` (the artifact's bytes now; None = gone)."""
    req_eff = case.request.effect
    args = changes.pop("args", req_eff["args"])
    kw = {"run_id": req_eff["run_id"], "tool": req_eff["tool"], "resource": req_eff["resource"],
          "note": NOTE, **changes}
    current = _effect(args, **kw)
    if changes.get("note", NOTE) is None and "note" in changes:
        current["artifact"] = {"name": "refund-note", "digest": "missing"}
    return replace(case, current=current)


def refusal(fn: CheckFn, case: Case) -> str | None:
    """What the learner's check did: None (allowed), the refusal's class name, or
    ``"crashed: <Type>"`` for anything else."""
    try:
        fn(copy.deepcopy(case.receipt), copy.deepcopy(case.request), copy.deepcopy(case.current),
           key=KEY, now=float(case.now), revocations=dict(case.revocations),
           used=dict(case.used))
    except GateRefused as exc:
        return type(exc).__name__ if REFUSALS.get(type(exc).__name__) is type(exc) \
            else f"crashed: {type(exc).__name__}"
    except Exception as exc:  # noqa: BLE001 - learner code: any failure is a message
        return f"crashed: {type(exc).__name__}"
    return None


def _judge(prop: str, fn: CheckFn, cases: list[tuple[str, Case, str | None]]) -> list[str]:
    out = []
    for label, case, want in [("a genuine receipt", genuine(), None), *cases]:
        got = refusal(fn, case)
        if got != want:
            did = "allowed it" if got is None else f"answered {got}"
            out.append(f"[{prop}] {label}: your check {did}")
    return out


def check_forged(fn: CheckFn, hidden: bool = False) -> list[str]:
    g = genuine()
    cases = [("a receipt with a zeroed signature", tamper(g, signature="hmac-sha256:" + "0" * 64),
              "ApprovalForged")]
    if hidden:
        body = {k: v for k, v in g.receipt.to_dict().items() if k != "signature"}
        cases += [
            ("a receipt whose expiry was extended after signing",
             tamper(g, expires_at=NOW + 10 ** 7), "ApprovalForged"),
            ("a receipt whose approver was changed after signing", tamper(g, approver="root"),
             "ApprovalForged"),
            ("a receipt signed with someone else's key",
             replace(g, receipt=sign(OTHER_KEY, **body)), "ApprovalForged"),
            ("a receipt whose digest was swapped for the changed call's",
             tamper(with_call(g, args={"order_id": 42, "amount_cents": 300000}),
                    effect_digest=digest(with_call(g, args={"order_id": 42,
                                                            "amount_cents": 300000}).current)),
             "ApprovalForged"),
        ]
    return _judge("forged-receipt", fn, cases) or (differential("forged-receipt", fn) if hidden else [])


def check_mismatch(fn: CheckFn, hidden: bool = False) -> list[str]:
    g = genuine()
    cases = [("the amount raised from 3000 to 300000 cents after review",
              with_call(g, args={"order_id": 42, "amount_cents": 300000}), "ApprovalMismatch")]
    if hidden:
        cases += [
            ("the order changed after review", with_call(g, args={"order_id": 43,
                                                                  "amount_cents": 3000}),
             "ApprovalMismatch"),
            ("another tool called with the receipt",
             with_call(g, tool="payout"), "ApprovalMismatch"),
            ("the receipt used in another run", with_call(g, run_id="run-8"),
             "ApprovalMismatch"),
            ("an argument added after review",
             with_call(g, args={"order_id": 42, "amount_cents": 3000, "to_iban": "XX00"}),
             "ApprovalMismatch"),
            ("the amount sent as 3000.0 instead of 3000",
             with_call(g, args={"order_id": 42, "amount_cents": 3000.0}), "ApprovalMismatch"),
            ("the same arguments in another order (allowed)",
             with_call(g, args={"amount_cents": 3000, "order_id": 42}), None),
        ]
    return _judge("exact-effect", fn, cases) or (differential("exact-effect", fn) if hidden else [])


def check_artifact(fn: CheckFn, hidden: bool = False) -> list[str]:
    g = genuine()
    cases = [("the refund note edited after review",
              with_call(g, note=NOTE.replace(b"30.00", b"3000.00")), "ArtifactChanged")]
    if hidden:
        cases += [("the refund note deleted after review", with_call(g, note=None),
                   "ArtifactChanged"),
                  ("one byte of the note changed", with_call(g, note=NOTE + b" "),
                   "ArtifactChanged"),
                  ("the note rewritten to the same bytes (allowed)",
                   with_call(g, note=bytes(NOTE)), None)]
    return _judge("artifact-identity", fn, cases) or (differential("artifact-identity", fn) if hidden else [])


def check_reused(fn: CheckFn, hidden: bool = False) -> list[str]:
    g = genuine()
    cases = [("a receipt already spent at step 3", replace(g, used={"rcp_1": 3}),
              "ApprovalReused")]
    if hidden:
        cases += [("a receipt spent at step 1 of another call", replace(g, used={"rcp_1": 1}),
                   "ApprovalReused"),
                  ("other receipts spent, not this one (allowed)",
                   replace(g, used={"rcp_2": 3, "rcp_9": 5}), None)]
    return _judge("single-use", fn, cases) or (differential("single-use", fn) if hidden else [])


def check_expired(fn: CheckFn, hidden: bool = False) -> list[str]:
    g = genuine()
    cases = [("dispatch two hours after a one-hour approval", replace(g, now=NOW + 7200),
              "ApprovalExpired")]
    if hidden:
        cases += [("dispatch exactly at expiry", replace(g, now=NOW + 3600), "ApprovalExpired"),
                  ("dispatch one second before expiry (allowed)",
                   replace(g, now=NOW + 3599), None),
                  ("a five-minute approval used after six",
                   replace(genuine(expires_for=300), now=NOW + 360), "ApprovalExpired")]
    return _judge("expiry", fn, cases) or (differential("expiry", fn) if hidden else [])


def check_revoked(fn: CheckFn, hidden: bool = False) -> list[str]:
    g = genuine()
    cases = [("the approver revoked after approving, before dispatch",
              replace(g, revocations={"approver:alice": NOW + 300}), "ApprovalRevoked")]
    if hidden:
        cases += [("the receipt revoked after approval",
                   replace(g, revocations={"receipt:rcp_1": NOW + 120}), "ApprovalRevoked"),
                  ("the approver revoked before approving",
                   replace(g, revocations={"approver:alice": NOW - 60}), "ApprovalRevoked"),
                  ("another approver revoked (allowed)",
                   replace(g, revocations={"approver:bob": NOW + 10}), None)]
    return _judge("revocation-at-dispatch", fn, cases) or (differential("revocation-at-dispatch", fn) if hidden else [])


# -- differential: the learner's check against minirt.approvals.check_receipt -------------------
#
# Every property below also runs generated cases: a genuine refund (amount, order, approver, how
# long the receipt lives, when it is dispatched inside that window, unrelated revocations and
# spent receipts all drawn) with one twist of the property's attack class, or none. The learner's
# check and the reference see equal deep copies; they must agree on allow/refuse, on the refusal's
# class and on its fields (below), and the learner's check must leave its inputs unchanged.

#: the fields compared per refusal (``reason`` is free text; a mismatch's ``approved`` and
#: ``requested`` are a rendering of the values: only ``field`` is compared)
FIELDS = {"ApprovalForged": ("request_id", "receipt_id"),
          "ApprovalMismatch": ("request_id", "field"),
          "ArtifactChanged": ("request_id", "artifact", "approved", "current"),
          "ApprovalReused": ("request_id", "receipt_id", "used_at_step"),
          "ApprovalExpired": ("request_id", "receipt_id", "expires_at", "now"),
          "ApprovalRevoked": ("request_id", "revoked", "revoked_at")}

_base = st.fixed_dictionaries({
    "amount": st.sampled_from([3000, 1, 299_999]),
    "order": st.sampled_from([42, 7]),
    "approver": st.sampled_from(["alice", "bob"]),
    "life": st.sampled_from([3600.0, 300.0, 1800.5]),
    "at": st.sampled_from([0.5, 0.0, 0.999, -1e-3]),  # dispatch: share of life (-: 1 ms before)
    "noise_revoked": st.sampled_from([{}, {"approver:carol": NOW + 5, "receipt:rcp_9": NOW - 9},
                                      {"approver:alice-2": NOW + 1, "receipt:rcp_10": NOW + 1}]),
    "noise_used": st.sampled_from([{}, {"rcp_9": 2}, {"rcp_10": 1, "rcp_": 0}]),
})


def _base_case(b: dict[str, Any]) -> Case:
    life = b["life"]
    now = NOW + (life - 1e-3 if b["at"] < 0 else life * b["at"])
    g = genuine(args={"order_id": b["order"], "amount_cents": b["amount"]},
                approver=b["approver"], expires_for=life, now=now)
    return replace(g, revocations=dict(b["noise_revoked"]), used=dict(b["noise_used"]))


def _resign(case: Case, **fields: Any) -> Case:
    body = {k: v for k, v in case.receipt.to_dict().items() if k != "signature"}
    return replace(case, receipt=sign(KEY, **{**body, **fields}))


def _other_request(case: Case, same_effect: bool) -> Case:
    """A genuine receipt, signed with the gate's key, of another request (apr_2): for another
    amount, or for the very same effect reviewed twice."""
    eff = case.request.effect
    if not same_effect:
        eff = _effect({**eff["args"], "amount_cents": eff["args"]["amount_cents"] + 1})
    return _resign(case, request_id="apr_2", effect_digest=digest(eff))


def _args(case: Case, **changes: Any) -> Case:
    args = {**case.request.effect["args"], **changes}
    return with_call(case, args={k: v for k, v in args.items() if v is not _DROP})


_DROP = object()
TWISTS: dict[str, dict[str, Callable[[Case], Case]]] = {
    "forged-receipt": {
        "empty signature": lambda c: tamper(c, signature=""),
        "zeroed signature": lambda c: tamper(c, signature="hmac-sha256:" + "0" * 64),
        "one character of the signature changed": lambda c: tamper(
            c, signature=c.receipt.signature[:-1] + ("0" if c.receipt.signature[-1] != "0"
                                                     else "1")),
        "the signature without its prefix": lambda c: tamper(
            c, signature=c.receipt.signature.split(":", 1)[-1]),
        "signed with another key": lambda c: replace(c, receipt=sign(OTHER_KEY, **{
            k: v for k, v in c.receipt.to_dict().items() if k != "signature"})),
        **{f"{f} changed after signing": (lambda c, f=f: tamper(c, **{f: _bump(getattr(
            c.receipt, f))})) for f in ("receipt_id", "request_id", "run_id", "effect_digest",
                                        "approver", "granted_at", "expires_at")},
        "forged and also expired": lambda c: replace(tamper(c, signature=""),
                                                     now=c.receipt.expires_at + 1),
        "forged and also revoked": lambda c: replace(tamper(c, approver="mallory"), revocations={
            "approver:mallory": NOW}),
    },
    "exact-effect": {
        "the amount one cent higher": lambda c: _args(
            c, amount_cents=c.request.effect["args"]["amount_cents"] + 1),
        "the amount as a float": lambda c: _args(
            c, amount_cents=float(c.request.effect["args"]["amount_cents"])),
        "the amount as a string": lambda c: _args(
            c, amount_cents=str(c.request.effect["args"]["amount_cents"])),
        "another order": lambda c: _args(c, order_id=c.request.effect["args"]["order_id"] + 1),
        "an argument added": lambda c: _args(c, to_iban="XX00"),
        "an argument dropped": lambda c: _args(c, amount_cents=_DROP),
        "a nested argument": lambda c: _args(c, meta={"reason": "broken"}),
        "another tool": lambda c: with_call(c, tool="payout"),
        "another run": lambda c: with_call(c, run_id="run-8"),
        "another resource": lambda c: with_call(c, resource="order:43"),
        "a genuine receipt of another request": lambda c: _other_request(c, False),
        "a genuine receipt of another request for the same effect":
            lambda c: _other_request(c, True),
        "the same arguments in another order (allowed)": lambda c: with_call(
            c, args=dict(reversed(list(c.request.effect["args"].items())))),
    },
    "artifact-identity": {
        "one byte of the note added": lambda c: with_call(c, note=NOTE + b" "),
        "the note edited": lambda c: with_call(c, note=NOTE.replace(b"30.00", b"3000.00")),
        "the note deleted": lambda c: with_call(c, note=None),
        "the note rewritten to the same bytes (allowed)": lambda c: with_call(c, note=bytes(NOTE)),
    },
    "single-use": {
        **{f"spent at step {n}": (lambda c, n=n: replace(c, used={**c.used, "rcp_1": n}))
           for n in (0, 1, 3)},
        "a receipt with a longer id spent (allowed)": lambda c: replace(
            c, used={**c.used, "rcp_11": 3}),
    },
    "expiry": {
        "dispatched exactly at expiry": lambda c: replace(c, now=c.receipt.expires_at),
        "dispatched 1 ms after expiry": lambda c: replace(c, now=c.receipt.expires_at + 1e-3),
        "dispatched a day after expiry": lambda c: replace(c, now=c.receipt.expires_at + 86400),
        "a receipt that expired as it was granted": lambda c: replace(_resign(
            c, expires_at=c.receipt.granted_at), now=c.receipt.granted_at),
        "dispatched 1 ms before expiry (allowed)": lambda c: replace(
            c, now=c.receipt.expires_at - 1e-3),
    },
    "revocation-at-dispatch": {
        "the receipt revoked after it was granted": lambda c: replace(
            c, revocations={**c.revocations, "receipt:rcp_1": NOW + 1}),
        "the receipt revoked before it was granted": lambda c: replace(
            c, revocations={**c.revocations, "receipt:rcp_1": NOW - 100}),
        "the approver revoked after approving": lambda c: replace(
            c, revocations={**c.revocations, f"approver:{c.receipt.approver}": c.now - 1e-3}),
        "the approver revoked long before": lambda c: replace(
            c, revocations={**c.revocations, f"approver:{c.receipt.approver}": 0.0}),
        "a revocation of the bare name, not an approver (allowed)": lambda c: replace(
            c, revocations={**c.revocations, c.receipt.approver: NOW}),
        "another receipt of the same approver revoked (allowed)": lambda c: replace(
            c, revocations={**c.revocations, "receipt:rcp_1x": NOW}),
    },
}


def _bump(value: Any) -> Any:
    if isinstance(value, float):
        return value + 1.0
    return str(value) + "x" if not str(value).startswith("sha256:") else \
        str(value)[:-1] + ("0" if str(value)[-1] != "0" else "1")


def _fields(exc: BaseException, names: tuple[str, ...]) -> dict[str, Any]:
    return {n: getattr(exc, n, "<missing>") for n in names}


def _outcome(fn: CheckFn, case: Case) -> tuple[str, Any, Case]:
    """(kind, detail, the inputs as the check left them): kind None-as-"allowed", a refusal's
    class name with its fields, or "crashed"."""
    c = replace(case, receipt=copy.deepcopy(case.receipt), request=copy.deepcopy(case.request),
                current=copy.deepcopy(case.current), revocations=copy.deepcopy(case.revocations),
                used=copy.deepcopy(case.used))
    try:
        fn(c.receipt, c.request, c.current, key=KEY, now=float(c.now), revocations=c.revocations,
           used=c.used)
    except GateRefused as exc:
        name = type(exc).__name__
        if REFUSALS.get(name) is not type(exc):
            return "crashed", name, c
        return name, _fields(exc, FIELDS[name]), c
    except Exception as exc:  # noqa: BLE001 - learner code: any failure is a message
        return "crashed", type(exc).__name__, c
    return "allowed", None, c


def _compare(fn: CheckFn, prop: str, example: tuple[dict[str, Any], str | None],
             verdict_only: bool = False) -> str | None:
    base, twist = example
    case = _base_case(base)
    if twist is not None:
        case = TWISTS[prop][twist](case)
    label = twist or "a genuine receipt"
    want, want_fields, _ = _outcome(check_receipt, case)
    got, got_fields, left = _outcome(fn, case)
    for name in ("current", "revocations", "used"):
        if not plain_equal(getattr(left, name), getattr(case, name)):
            return f"{label}: your check changed its argument {name!r}"
    if not plain_equal(left.request.effect, case.request.effect):
        return f"{label}: your check changed request.effect"
    if verdict_only and got not in ("allowed", "crashed") and want != "allowed":
        return None  # any named refusal will do
    if got != want:
        did = {"allowed": "allowed it", "crashed": f"crashed with {got_fields}"}.get(
            got, f"refused it as {got}")
        should = "be allowed" if want == "allowed" else "be refused"
        return f"{label}: the dispatch should {should}; your check {did}"
    if want_fields is not None and not plain_equal(got_fields, want_fields):
        bad = [k for k in want_fields if not plain_equal(got_fields[k], want_fields[k])]
        return (f"{label}: the refusal's {bad[0]} is {got_fields[bad[0]]!r}, expected "
                f"{want_fields[bad[0]]!r}")
    return None


def _show(example: tuple[dict[str, Any], str | None]) -> dict[str, Any]:
    base, twist = example
    c = _base_case(base)
    if twist is not None:
        c = _twisted(c, twist)
    return {"twist": twist, "args": c.current["args"], "approver": c.receipt.approver,
            "granted_at": c.receipt.granted_at, "expires_at": c.receipt.expires_at,
            "now": c.now, "revocations": c.revocations, "used": c.used}


def _twisted(case: Case, twist: str) -> Case:
    for table in TWISTS.values():
        if twist in table:
            return table[twist](case)
    return case


def differential(prop: str, fn: CheckFn, max_examples: int = 60, *,
                 verdict_only: bool = False) -> list[str]:
    """[prop] generated genuine cases with each twist of ``prop``'s attack class (and none): the
    same verdict as the reference, the same refusal with the same fields, inputs untouched
    (``verdict_only``: any named refusal where the reference refuses)."""
    twists = [None, *TWISTS[prop]]
    strategy = st.tuples(_base, st.sampled_from(twists))
    first = {"amount": 3000, "order": 42, "approver": "alice", "life": 3600.0, "at": 0.5,
             "noise_revoked": {}, "noise_used": {}}
    return falsify(prop, strategy, lambda ex: _compare(fn, prop, ex, verdict_only),
                   max_examples=max_examples, show=_show,
                   examples=[(first, t) for t in twists])


# -- under the crash drill ----------------------------------------------------------------------

CRASHES = (("waiting", "approval_requested"), ("approved", "after_approval_recorded"),
           ("approved", "before_intent"), ("approved", "after_intent"))


def check_crash_drill(fn: CheckFn) -> list[str]:
    """The learner's check as the gate of the module's scenario: a crash while waiting and after
    the approval dispatches the refund exactly once; a changed amount dispatches nothing."""
    out = []
    for phase, point in CRASHES:
        v = _safe_crash(M06Approval(phase, check=fn), point)
        if not v[0]:
            out.append(f"[crash-drill] crash at {point} ({phase}): {v[1]}")
    with tempfile.TemporaryDirectory() as tmp:
        sc = M06Approval("approved", check=fn, replanned_cents=4000)
        _safe_crash(sc, "after_approval_recorded", Path(tmp))
        if Ledger(Path(tmp)).refunds():
            out.append("[crash-drill] the model changed the amount after the approval and the "
                       "refund was still dispatched")
    return out


def _safe_crash(sc: M06Approval, point: str, workdir: Path | None = None) -> tuple[bool, str]:
    try:
        v = crash_once(sc, point, workdir=workdir)
    except Exception as exc:  # noqa: BLE001 - learner code ran inside
        return False, f"the drill crashed with {type(exc).__name__}"
    return v.ok, f"{v.outcome.value}: {v.detail}"


# -- predict, then run --------------------------------------------------------------------------

OUTCOMES = ("refused", "sent once", "sent twice")


def _run_prediction_drill() -> dict[str, str]:
    """The receipt lives 30 minutes; the worker crashes at ``point`` and a new one resumes an hour
    later. What did the provider see? (The reference gate, not the learner's.)"""
    out = {}
    for point in ("before_intent", "after_intent"):
        with tempfile.TemporaryDirectory() as tmp:
            crash_once(M06Approval("approved", receipt_for=1800), point, workdir=Path(tmp))
            n = len(Ledger(Path(tmp)).refunds())
        out[point] = OUTCOMES[min(n, 2)]
    return out


def check_prediction(prediction: Any) -> list[str]:
    try:
        pred = {str(k): str(v) for k, v in dict(prediction).items()}
    except Exception:  # noqa: BLE001
        return ["[predict-then-run] prediction must be a dict like {'before_intent': ..., "
                "'after_intent': ...}"]
    actual = _run_prediction_drill()
    return [f"[predict-then-run] your prediction for a crash at {p} does not match the run"
            for p in actual if pred.get(p) != actual[p]]
