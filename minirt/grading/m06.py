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

from ..approvals import (
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
    effect_of,
)
from ..canonical import digest, digest_bytes
from ..faults import crash_once
from ..scenarios.m06_approval import Ledger, M06Approval

KEY = Secret("drill-06-key", "m06-drill-signing-key-5b9e0a7d31")
OTHER_KEY = Secret("mallory", "mallorys-own-signing-key-000000")
NOW = 1_700_000_000.0
NOTE = b"Order 42 arrived broken (photo). Refund 30.00 EUR in full."
REFUSALS = {c.__name__: c for c in (ApprovalForged, ApprovalMismatch, ArtifactChanged,
                                    ApprovalReused, ApprovalExpired, ApprovalRevoked)}
CheckFn = Callable[..., Any]


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
    return _judge("forged-receipt", fn, cases)


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
    return _judge("exact-effect", fn, cases)


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
    return _judge("artifact-identity", fn, cases)


def check_reused(fn: CheckFn, hidden: bool = False) -> list[str]:
    g = genuine()
    cases = [("a receipt already spent at step 3", replace(g, used={"rcp_1": 3}),
              "ApprovalReused")]
    if hidden:
        cases += [("a receipt spent at step 1 of another call", replace(g, used={"rcp_1": 1}),
                   "ApprovalReused"),
                  ("other receipts spent, not this one (allowed)",
                   replace(g, used={"rcp_2": 3, "rcp_9": 5}), None)]
    return _judge("single-use", fn, cases)


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
    return _judge("expiry", fn, cases)


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
    return _judge("revocation-at-dispatch", fn, cases)


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


def run_prediction_drill() -> dict[str, str]:
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
    actual = run_prediction_drill()
    print("what the provider saw:", actual)
    return [f"[predict-then-run] your prediction for a crash at {p} does not match the run"
            for p in actual if pred.get(p) != actual[p]]
