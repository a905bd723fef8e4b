"""Scopes and approvals: every attack is refused with a named error and NOTHING is dispatched.

Each attack test runs a real refund run on SQLite (fake clock), counts the refund tool's real
executions (``h.sent``), and checks the refusal the workflow saw and the journal recorded. The
property tests pin down the canonical digest the approvals are bound to. The crash drills use the
module's scenario (minirt_course.scenarios.m06_approval) with both crash modes.
"""

from __future__ import annotations

import json
import pickle
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minirt.approvals import (
    K_USED,
    ApprovalExpired,
    ApprovalForged,
    ApprovalGate,
    ApprovalMismatch,
    ApprovalRejected,
    ApprovalRequired,
    ApprovalReused,
    ApprovalRevoked,
    ArtifactChanged,
    CapabilityExceeded,
    CapabilityExpired,
    CapabilityForged,
    CredentialInvalid,
    GateFailedClosed,
    GateRefused,
    OutOfScope,
    Receipt,
    Secret,
    _sign,
    call_approved,
    effect_of,
    first_difference,
    request_approval,
)
from minirt.canonical import NotCanonical, canonical_json, digest, normalise
from minirt.clock import FakeClock
from minirt.errors import MinirtError, ToolError, from_record
from minirt.faults import CrashMode, FaultPlan, SimulatedCrash, boundaries, crash_once
from minirt.run import RunState
from minirt.runtime import Runtime, RuntimeHook, ScriptedModel
from minirt.store.sqlite import SQLiteStore
from minirt.viz.approvals import timeline, timeline_diagram
from minirt_course.scenarios import m06_approval

KEY = "test-signing-key-0123456789abcdef"
SECRET = "sk_live_9f8Qz1TOPSECRETvalue"
RUN = "run-refund-42"
ARGS = {"order_id": 42, "amount_cents": 3000}
HOUR = 3600.0


class Harness:
    """A refund tool behind an ApprovalGate on a SQLite file, and a runtime factory.

    ``sent`` lists every real execution of the refund tool; ``echo`` makes the tool leak its
    credential in its result and error (to test redaction)."""

    def __init__(self, tmp: Path, *, check: Any = None) -> None:
        self.path = tmp / "runs.sqlite"
        self.clock = FakeClock(1_700_000_000.0)
        self.docs = {"note": b"Order 42 arrived broken. Refund 30.00 EUR."}
        self.sent: list[dict[str, Any]] = []
        self.echo = False
        kwargs = {"check": check} if check else {}
        self.gate = ApprovalGate(KEY, {"payments": SECRET}, artifacts=self.docs.__getitem__,
                                 **kwargs)

        def refund(order_id: int, amount_cents: int, *, credential: Secret, call: Any) -> Any:
            assert credential.reveal() == SECRET
            self.sent.append({"order_id": order_id, "amount_cents": amount_cents,
                              "effect_key": call.effect_key})
            if self.echo == "error":
                raise ToolError(tool="refund", reason=f"bad key {credential.reveal()}")
            out = {"refund_id": f"re_{len(self.sent)}", "amount_cents": amount_cents}
            if self.echo:
                out["debug"] = f"auth=Bearer {credential.reveal()}"
            return out

        self.tool = self.gate.guarded(refund, credential="payments",
                                      resource=lambda a: f"order:{a['order_id']}",
                                      amount=lambda a: a["amount_cents"],
                                      needs_approval=lambda a: a["amount_cents"] > 2000)
        self.rt: Runtime | None = None

    def runtime(self, workflow: Any, outputs: list[Any] | None = None, *,
                faults: Any = None, hooks: tuple[RuntimeHook, ...] = ()) -> Runtime:
        if self.rt is not None:
            self.rt.close()
        self.rt = Runtime(SQLiteStore(self.path), tools=[self.tool], workflows={"wf": workflow},
                          model=ScriptedModel(outputs or [ARGS, ARGS]), clock=self.clock,
                          hooks=[self.gate, *hooks], faults=faults)
        return self.rt

    def start(self, workflow: Any, outputs: list[Any] | None = None, *, max_amount: int = 50_000,
              resource: str = "order:42", **kw: Any) -> Runtime:
        rt = self.runtime(workflow, outputs, **kw)
        rt.start("wf", {"order_id": 42}, run_id=RUN)
        self.gate.mint(rt, RUN, "refund", resource=resource, max_amount=max_amount)
        return rt

    def request_id(self) -> str:
        assert self.rt is not None
        return self.gate.requests(self.rt.store, RUN)[0].request_id

    def approve(self, **kw: Any) -> Receipt:
        assert self.rt is not None
        return self.gate.approve(self.rt, RUN, self.request_id(), approver="alice", **kw)

    def error(self) -> MinirtError:
        assert self.rt is not None
        out = self.rt.outcome(RUN)
        assert out.state is RunState.FAILED, out
        assert out.error is not None
        return out.error

    def rejected_rows(self) -> list[dict[str, Any]]:
        assert self.rt is not None
        return [json.loads(e.payload_json) for e in self.rt.store.read(RUN)
                if e.kind == "tool_rejected"]


@pytest.fixture
def h(tmp_path: Path) -> Harness:
    harness = Harness(tmp_path)
    yield harness
    if harness.rt is not None:
        harness.rt.close()


# -- workflows ----------------------------------------------------------------------------------

def honest(ctx: Any, inp: Any) -> Any:
    """Plan, ask approval for that refund (with the note), re-plan, refund with the receipt."""
    plan = ctx.decide({"task": "refund"}, name="plan")
    receipt = request_approval(ctx, "refund", plan, artifact="note")
    final = ctx.decide({"task": "confirm"}, name="replan")
    return call_approved(ctx, "refund", final, receipt)


def twice(ctx: Any, inp: Any) -> Any:
    """Spend one receipt on two refunds (a replay attack)."""
    receipt = request_approval(ctx, "refund", ARGS)
    first = call_approved(ctx, "refund", ARGS, receipt)
    ctx.step("between", lambda: "first refund done")
    return [first, call_approved(ctx, "refund", ARGS, receipt)]


def bypass(ctx: Any, inp: Any) -> Any:
    return ctx.call_tool("refund", ARGS)


def run_to_approval(h: Harness, workflow: Any = honest, outputs: list[Any] | None = None,
                    **kw: Any) -> Runtime:
    rt = h.start(workflow, outputs, **kw)
    assert rt.run(RUN).state is RunState.WAITING
    return rt


# -- the honest path ----------------------------------------------------------------------------

def test_waits_for_hours_across_restarts_then_dispatches_once(h: Harness) -> None:
    run_to_approval(h)
    run = h.rt.store.get_run(RUN).run
    assert run.detail["waiting_for"] == f"approval:{h.request_id()}"
    for _ in range(3):  # three restarts over 9 hours: still waiting, nothing claimable
        h.clock.advance(3 * HOUR)
        rt = h.runtime(honest)
        assert rt.work() == [] and rt.store.get_run(RUN).run.state is RunState.WAITING
    h.approve()
    assert [o.state for o in h.rt.work()] == [RunState.SUCCEEDED]
    assert h.sent == [{"order_id": 42, "amount_cents": 3000, "effect_key": h.sent[0]["effect_key"]}]


def test_receipt_use_commits_with_the_intent(h: Harness) -> None:
    run_to_approval(h)
    h.approve()
    h.runtime(honest, faults=FaultPlan(crash_at="before_intent"))
    with pytest.raises(SimulatedCrash):
        h.rt.run(RUN)
    assert not [k for k in h.rt.store.kv_items(RUN) if k.startswith(K_USED)]
    h.clock.advance(60)  # past the crashed worker's lease, within the receipt's hour
    h.runtime(honest, faults=FaultPlan(crash_at="after_intent"))
    with pytest.raises(SimulatedCrash):
        h.rt.run(RUN)
    marks = [k for k in h.rt.store.kv_items(RUN) if k.startswith(K_USED)]
    intents = [e for e in h.rt.store.read(RUN) if e.kind == "intent"]
    assert len(marks) == 1 and len(intents) == 1 and h.sent == []
    h.clock.advance(2 * HOUR)  # the receipt has expired: the committed intent is still sent
    assert h.runtime(honest).run(RUN).state is RunState.SUCCEEDED
    assert len(h.sent) == 1


def test_small_refund_needs_a_capability_but_no_approval(h: Harness) -> None:
    small = {"order_id": 42, "amount_cents": 1500}
    rt = h.start(lambda ctx, inp: ctx.call_tool("refund", small))
    assert rt.run(RUN).state is RunState.SUCCEEDED and len(h.sent) == 1


# -- attacks on the receipt ---------------------------------------------------------------------

def forged_like(receipt: Receipt, **changes: Any) -> dict[str, Any]:
    return {**receipt.to_dict(), **changes}


def test_forged_signature_is_refused(h: Harness) -> None:
    run_to_approval(h)
    rid = h.request_id()
    genuine_looking = {"receipt_id": "rcp_fake", "request_id": rid, "run_id": RUN,
                       "effect_digest": h.gate.requests(h.rt.store, RUN)[0].effect_digest,
                       "approver": "alice", "granted_at": h.clock.now(),
                       "expires_at": h.clock.now() + HOUR, "signature": "hmac-sha256:" + "0" * 64}
    h.rt.signal(RUN, f"approval:{rid}", {"decision": "granted", "receipt": genuine_looking})
    h.rt.run(RUN)
    assert isinstance(h.error(), ApprovalForged) and h.sent == []
    assert h.rejected_rows()[0]["error"]["type"] == "ApprovalForged"


def test_receipt_with_a_widened_expiry_is_forged(h: Harness) -> None:
    run_to_approval(h)
    rid = h.request_id()
    req = h.gate.requests(h.rt.store, RUN)[0]
    body = dict(receipt_id="rcp_1", request_id=rid, run_id=RUN, effect_digest=req.effect_digest,
                approver="alice", granted_at=h.clock.now(), expires_at=h.clock.now() + 60)
    signed = Receipt(**body, signature=_sign(h.gate._key, "receipt", body))  # a genuine one
    widened = forged_like(signed, expires_at=h.clock.now() + 365 * 24 * HOUR)
    h.rt.signal(RUN, f"approval:{rid}", {"decision": "granted", "receipt": widened})
    h.rt.run(RUN)
    assert isinstance(h.error(), ApprovalForged) and h.sent == []


def test_receipt_signed_with_another_key_is_forged(h: Harness) -> None:
    run_to_approval(h)
    rid = h.request_id()
    mallory = ApprovalGate("mallory-has-her-own-key-000000", {"payments": SECRET})
    body = dict(receipt_id="rcp_m", request_id=rid, run_id=RUN,
                effect_digest=h.gate.requests(h.rt.store, RUN)[0].effect_digest,
                approver="alice", granted_at=h.clock.now(), expires_at=h.clock.now() + HOUR)
    h.rt.signal(RUN, f"approval:{rid}", {"decision": "granted", "receipt": {
        **body, "signature": _sign(mallory._key, "receipt", body)}})
    h.rt.run(RUN)
    assert isinstance(h.error(), ApprovalForged) and h.sent == []


def test_amount_changed_after_review_is_a_mismatch_naming_the_field(h: Harness) -> None:
    changed = {"order_id": 42, "amount_cents": 30_000}  # the model re-plans 300.00 EUR
    run_to_approval(h, outputs=[ARGS, changed])
    h.approve()
    h.rt.run(RUN)
    err = h.error()
    assert isinstance(err, ApprovalMismatch) and err.field == "args.amount_cents"
    assert (err.approved, err.requested) == ("3000", "30000") and h.sent == []


def test_order_changed_after_review_is_a_mismatch_on_the_resource(h: Harness) -> None:
    run_to_approval(h, outputs=[ARGS, {"order_id": 43, "amount_cents": 3000}],
                    resource="order:*")
    h.approve()
    h.rt.run(RUN)
    err = h.error()
    assert isinstance(err, ApprovalMismatch) and err.field == "resource" and h.sent == []


def test_artifact_changed_after_review_is_refused(h: Harness) -> None:
    run_to_approval(h)
    h.approve()
    h.docs["note"] = b"Order 42 arrived broken. Refund 3000.00 EUR."  # edited after review
    h.rt.run(RUN)
    err = h.error()
    assert isinstance(err, ArtifactChanged) and err.artifact == "note" and h.sent == []
    reviewed = h.rt.store.get_artifact(err.approved)  # the reviewer's copy is kept
    assert b"30.00 EUR" in reviewed


def test_replayed_receipt_is_refused(h: Harness) -> None:
    run_to_approval(h, twice)
    h.approve()
    h.rt.run(RUN)
    err = h.error()
    assert isinstance(err, ApprovalReused) and len(h.sent) == 1


@pytest.mark.parametrize("point", ["after_intent", "after_provider_commit", "after_result",
                                   "after_step_record"])
def test_replayed_receipt_after_a_crash_and_resume_is_refused(h: Harness, point: str) -> None:
    run_to_approval(h, twice)
    h.approve()
    h.runtime(twice, faults=FaultPlan(crash_at=point))
    with pytest.raises(SimulatedCrash):
        h.rt.run(RUN)
    h.clock.advance(60)  # a new worker, within the receipt's hour
    h.runtime(twice).run(RUN)
    assert isinstance(h.error(), ApprovalReused)
    assert len({s["effect_key"] for s in h.sent}) == 1  # one logical refund (keyed: resend ok)


def test_receipt_from_another_run_is_refused(h: Harness) -> None:
    run_to_approval(h)
    receipt = h.approve()

    def thief(ctx: Any, inp: Any) -> Any:
        return call_approved(ctx, "refund", ARGS, receipt)

    rt = h.runtime(thief)
    rt.start("wf", {"order_id": 42}, run_id="run-thief")
    h.gate.mint(rt, "run-thief", "refund", resource="order:42", max_amount=50_000)
    out = rt.run("run-thief")
    assert isinstance(out.error, ApprovalMismatch) and out.error.field == "run_id"
    assert h.sent == []


def test_expired_receipt_is_refused(h: Harness) -> None:
    run_to_approval(h)
    h.approve(expires_for=15 * 60)
    h.clock.advance(15 * 60)  # the worker comes back exactly at expiry
    h.runtime(honest).run(RUN)
    assert isinstance(h.error(), ApprovalExpired) and h.sent == []


@pytest.mark.parametrize("what", ["receipt", "approver:alice", "credential:payments",
                                  "capability"])
def test_revoked_between_approval_and_dispatch_is_refused(h: Harness, what: str) -> None:
    run_to_approval(h)
    receipt = h.approve()
    cap_id = json.loads(h.rt.store.kv_get(RUN, "capability:refund"))["cap_id"]
    ident = {"receipt": f"receipt:{receipt.receipt_id}", "capability": f"capability:{cap_id}"}
    h.clock.advance(60)
    h.gate.revoke(h.rt, RUN, ident.get(what, what))
    h.rt.run(RUN)
    err = h.error()
    assert isinstance(err, ApprovalRevoked) and err.revoked == ident.get(what, what)
    assert h.sent == []


def test_rejection_is_journaled_and_replayed(h: Harness) -> None:
    def polite(ctx: Any, inp: Any) -> Any:
        try:
            return honest(ctx, inp)
        except ApprovalRejected as exc:
            return {"rejected_by": exc.approver}

    run_to_approval(h, polite)
    h.gate.reject(h.rt, RUN, h.request_id(), approver="bob", reason="photo shows no damage")
    h.runtime(polite, faults=FaultPlan(crash_at="before_complete"))
    with pytest.raises(SimulatedCrash):
        h.rt.run(RUN)
    assert h.rejected_rows()[0]["error"]["type"] == "ApprovalRejected"
    h.clock.advance(HOUR)
    assert h.runtime(polite).run(RUN).value == {"rejected_by": "bob"}
    assert len(h.rejected_rows()) == 1 and h.sent == []


def test_refusal_is_replayed_from_the_journal_not_rechecked(h: Harness) -> None:
    def stubborn(ctx: Any, inp: Any) -> Any:
        try:
            return honest(ctx, inp)
        except GateRefused as exc:
            return {"refused": type(exc).__name__}

    run_to_approval(h, stubborn, outputs=[ARGS, {"order_id": 42, "amount_cents": 9000}])
    h.approve()
    h.runtime(stubborn, [ARGS, {"order_id": 42, "amount_cents": 9000}],
              faults=FaultPlan(crash_at="before_complete"))
    with pytest.raises(SimulatedCrash):
        h.rt.run(RUN)
    h.clock.advance(HOUR)
    assert h.runtime(stubborn).run(RUN).value == {"refused": "ApprovalMismatch"}
    assert len(h.rejected_rows()) == 1 and h.sent == []


def test_approving_twice_returns_the_first_receipt_and_reject_after_approve_loses(
        h: Harness) -> None:
    run_to_approval(h)
    first = h.approve()
    h.clock.advance(10)
    assert h.approve() == first
    h.gate.reject(h.rt, RUN, h.request_id(), approver="bob", reason="too late")
    assert h.rt.run(RUN).state is RunState.SUCCEEDED and len(h.sent) == 1


def test_revoking_twice_keeps_the_first_time(h: Harness) -> None:
    run_to_approval(h)
    h.gate.revoke(h.rt, RUN, "approver:alice")
    first = h.rt.store.kv_get(RUN, "revoked:approver:alice")
    h.clock.advance(10)
    h.gate.revoke(h.rt, RUN, "approver:alice")
    assert h.rt.store.kv_get(RUN, "revoked:approver:alice") == first


def test_revoking_an_approver_everywhere_stops_every_open_run(h: Harness) -> None:
    run_to_approval(h)
    h.approve()
    other = h.rt.start("wf", {"order_id": 42}, run_id="run-other")
    assert sorted(h.gate.revoke_everywhere(h.rt, "approver:alice")) == sorted([RUN, other])
    assert sorted(h.gate.revoke_everywhere(h.rt, "approver:alice")) == sorted([RUN, other])
    h.rt.run(RUN)
    assert isinstance(h.error(), ApprovalRevoked) and h.sent == []


def test_a_later_hook_refusing_drops_the_staged_receipt_use(h: Harness) -> None:
    class Budget(RuntimeHook):
        def before_dispatch(self, ctx: Any, tool: Any, call: Any) -> None:
            raise ToolError(tool=call.tool, reason="budget exhausted")

    run_to_approval(h)
    h.approve()
    h.runtime(honest, hooks=(Budget(),)).run(RUN)
    assert h.rejected_rows()[0]["error"]["type"] == "ToolError" and h.sent == []
    assert not [k for k in h.rt.store.kv_items(RUN) if k.startswith(K_USED)]


def test_a_check_that_crashes_fails_closed(tmp_path: Path) -> None:
    def broken(*args: Any, **kw: Any) -> None:
        raise NotImplementedError

    h = Harness(tmp_path, check=broken)
    run_to_approval(h)
    h.approve()
    h.rt.run(RUN)
    assert isinstance(h.error(), GateFailedClosed) and h.sent == []
    h.rt.close()


def test_malformed_decision_is_refused(h: Harness) -> None:
    run_to_approval(h)
    h.rt.signal(RUN, f"approval:{h.request_id()}", {"decision": "granted", "receipt": "yes"})
    h.rt.run(RUN)
    assert isinstance(h.error(), ApprovalForged) and h.sent == []


# -- attacks on the capability ------------------------------------------------------------------

def test_calling_a_guarded_tool_without_a_receipt_is_refused(h: Harness) -> None:
    h.start(bypass).run(RUN)
    assert isinstance(h.error(), ApprovalRequired) and h.sent == []
    assert h.rejected_rows()[0]["error"]["type"] == "ApprovalRequired"


def test_resource_outside_the_capability_is_out_of_scope(h: Harness) -> None:
    h.start(lambda ctx, inp: ctx.call_tool("refund", {"order_id": 7, "amount_cents": 100})
            ).run(RUN)
    assert isinstance(h.error(), OutOfScope) and h.sent == []


def test_amount_above_the_capability_is_exceeded(h: Harness) -> None:
    run_to_approval(h, outputs=[{"order_id": 42, "amount_cents": 60_000}] * 2)
    h.approve()
    h.rt.run(RUN)
    err = h.error()
    assert isinstance(err, CapabilityExceeded) and (err.amount, err.limit) == (60_000, 50_000)
    assert h.sent == []


def test_no_capability_minted_is_out_of_scope(h: Harness) -> None:
    rt = h.runtime(lambda ctx, inp: ctx.call_tool("refund", {"order_id": 42, "amount_cents": 1}))
    rt.start("wf", {}, run_id=RUN)
    rt.run(RUN)
    assert isinstance(h.error(), OutOfScope) and h.sent == []


def test_widened_capability_is_forged(h: Harness) -> None:
    rt = h.start(lambda ctx, inp: ctx.call_tool("refund", {"order_id": 9, "amount_cents": 10}))
    cap = json.loads(rt.store.kv_get(RUN, "capability:refund"))
    rt.store.set_kv(RUN, {"capability:refund": canonical_json({**cap, "resource": "order:*"})})
    rt.run(RUN)
    assert isinstance(h.error(), CapabilityForged) and h.sent == []


def test_expired_capability_is_refused(h: Harness) -> None:
    rt = h.start(lambda ctx, inp: ctx.call_tool("refund", {"order_id": 42, "amount_cents": 10}))
    h.clock.advance(24 * HOUR)
    rt.run(RUN)
    assert isinstance(h.error(), CapabilityExpired) and h.sent == []


# -- credentials never leave the gate -----------------------------------------------------------

class Tracer(RuntimeHook):
    """Records everything the runtime shows its hooks (a trace)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def before_dispatch(self, ctx: Any, tool: Any, call: Any) -> None:
        self.seen.append(repr(call) + repr(tool))

    def after_outcome(self, ctx: Any, call: Any, kind: str, payload: Any) -> None:
        self.seen.append(repr(call) + kind + json.dumps(payload))

    def on_position(self, ctx: Any, step: int, kind: str, name: str, replayed: bool) -> None:
        self.seen.append(f"{step} {kind} {name} {vars(ctx)!r}")


@pytest.mark.parametrize("echo", [False, True, "error"])
def test_secret_is_never_written_or_shown(h: Harness, echo: Any) -> None:
    h.echo = echo
    tracer = Tracer()
    run_to_approval(h, hooks=(tracer,))
    h.approve()
    out = h.runtime(honest, hooks=(tracer,)).run(RUN)
    assert len(h.sent) == 1
    store = h.rt.store
    texts = [json.dumps([e.payload_json for e in store.read(RUN)]),
             json.dumps(store.kv_items(RUN)), repr(store.get_run(RUN).run),
             repr(out), str(out.error), *tracer.seen, repr(h.gate), repr(h.tool),
             repr(timeline(store, RUN)), timeline_diagram(timeline(store, RUN)).source]
    h.rt.close()
    h.rt = None
    raw = b"".join(p.read_bytes() for p in h.path.parent.iterdir() if p.is_file())
    assert SECRET.encode() not in raw and SECRET.encode("utf-16-le") not in raw
    assert KEY.encode() not in raw
    for text in texts:
        assert SECRET not in text and KEY not in text
    if echo is True:
        assert out.value["debug"] == "auth=Bearer <redacted:payments>"
    if echo == "error":
        assert "<redacted:payments>" in str(out.error)


def test_a_secret_never_prints_serialises_or_pickles() -> None:
    s = Secret("payments", SECRET)
    shown = [repr(s), str(s), f"{s}", repr([s]), repr({"k": s})]
    assert all(SECRET not in x for x in shown)
    with pytest.raises(NotCanonical) as exc:
        canonical_json({"credential": s})
    assert SECRET not in str(exc.value)
    with pytest.raises(TypeError) as exc2:
        json.dumps(s)
    assert SECRET not in str(exc2.value)
    with pytest.raises(TypeError):
        pickle.dumps(s)
    assert s.reveal() == SECRET


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(CredentialInvalid):
        Secret("payments", "abc")


# -- the canonical digest the approval is bound to (properties) ---------------------------------

def strict(a: Any, b: Any) -> bool:
    """Equality as JSON data: 1 != 1.0 != True, -0.0 != 0.0, dict order ignored."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return repr(a) == repr(b)
    return a == b


scalars = (st.none() | st.booleans() | st.integers(-10**12, 10**12)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))
json_values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=3)
                           | st.dictionaries(st.text(max_size=5), kids, max_size=3),
                           max_leaves=10)


@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6), st.randoms())
def test_argument_order_never_changes_the_digest(args: dict[str, Any], rnd: Any) -> None:
    keys = list(args)
    rnd.shuffle(keys)
    try:
        expected = digest(args)
    except NotCanonical:  # two keys that normalise to one: refused, never merged
        return
    assert digest({k: args[k] for k in keys}) == expected


@given(json_values, json_values)
@settings(max_examples=300)
def test_different_effects_never_share_a_digest(a: Any, b: Any) -> None:
    try:
        na, nb = normalise(a), normalise(b)
    except NotCanonical:
        return
    assert strict(na, nb) == (digest(a) == digest(b))


@given(json_values)
def test_the_same_effect_always_gets_the_same_digest(value: Any) -> None:
    try:
        first = digest(value)
    except NotCanonical:
        return
    assert digest(json.loads(json.dumps(value))) == first == digest(value)


@given(st.text(min_size=1, max_size=12))
def test_nfc_and_nfd_of_the_same_text_are_the_same_effect(text: str) -> None:
    # Decision: canonical JSON normalises strings to NFC, so a reviewer who saw "Café" approved
    # the refund to "Café" however the bytes were composed.
    nfc, nfd = unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)
    assert digest({"payee": nfc}) == digest({"payee": nfd})


@pytest.mark.parametrize("seen,sent", [
    ("paypal.com", "pаypal.com"),  # Cyrillic а (U+0430) for Latin a
    ("ACME Ltd", "ΑCME Ltd"),  # Greek Alpha
    ("order 42", "order ４2"),  # fullwidth digit (NFKC would merge it; NFC does not)
    ("a b", "a\u00a0b"),  # no-break space
])
def test_confusable_but_different_code_points_are_different_effects(seen: str, sent: str) -> None:
    assert digest({"payee": seen}) != digest({"payee": sent})


@pytest.mark.parametrize("a,b", [(1, 1.0), (True, 1), (0.0, -0.0), ("1", 1), (None, "null"),
                                 (30, 30.000000000000004)])
def test_numbers_that_python_calls_equal_are_different_effects(a: Any, b: Any) -> None:
    # Decision: 1 and 1.0 are different effects; an amount must be sent as the reviewer saw it.
    assert digest({"amount": a}) != digest({"amount": b})


@given(st.integers(0, 10**9), st.integers(0, 10**9))
def test_effect_digest_binds_the_amount(a: int, b: int) -> None:
    def eff(cents: int) -> dict[str, Any]:
        return effect_of(RUN, 1, "refund", {"order_id": 42, "amount_cents": cents}, "order:42",
                         {"cap_id": "c"}, None)

    assert (digest(eff(a)) == digest(eff(b))) == (a == b)
    if a != b:
        assert first_difference(eff(a), eff(b))[0] == "args.amount_cents"


def test_refusals_round_trip_through_the_journal() -> None:
    err = ApprovalMismatch(request_id="apr_1", field="args.amount_cents", approved="3000",
                           requested="300000")
    back = from_record(json.loads(canonical_json(err.to_record())))
    assert type(back) is ApprovalMismatch and str(back) == str(err)
    assert isinstance(back, GateRefused)


# -- crash drills (scenario, both crash modes) --------------------------------------------------

@pytest.mark.parametrize("phase", ["waiting", "approved"])
def test_crash_at_every_boundary_dispatches_once_with_a_valid_receipt(phase: str) -> None:
    ref = f"minirt_course.scenarios.m06_approval:{phase}"
    points = boundaries(ref)
    assert ("approval_requested", 1) in points
    if phase == "approved":
        assert ("after_approval_recorded", 1) in points and ("after_intent", 1) in points
    bad = [(p, n, v) for p, n in points if not (v := crash_once(ref, p, occurrence=n)).ok]
    assert bad == []


@pytest.mark.parametrize("phase,point", [("waiting", "approval_requested"),
                                         ("approved", "after_approval_recorded"),
                                         ("approved", "after_intent")])
def test_killed_worker_dispatches_once(phase: str, point: str) -> None:
    ref = f"minirt_course.scenarios.m06_approval:{phase}"
    assert crash_once(ref, point, mode=CrashMode.KILL.value).ok


def test_the_oracle_catches_a_gate_that_lets_a_changed_amount_through() -> None:
    lax = m06_approval.M06Approval("approved", check=lambda *a, **k: None, replanned_cents=4000)
    strict_gate = m06_approval.M06Approval("approved", replanned_cents=4000)
    assert crash_once(lax, "after_approval_recorded").outcome.value == "wrong result"
    assert crash_once(strict_gate, "after_approval_recorded").outcome.value == "stuck"


# -- the picture --------------------------------------------------------------------------------

def test_timeline_tells_the_story_in_order(h: Harness) -> None:
    run_to_approval(h)
    h.clock.advance(2 * HOUR)
    h.approve()
    h.clock.advance(60)
    h.rt.run(RUN)
    kinds = [m.kind for m in timeline(h.rt.store, RUN)]
    assert kinds == ["requested", "waiting", "granted", "delivered", "dispatched", "result"]
    src = timeline_diagram(timeline(h.rt.store, RUN)).source
    assert "t+2h00m" in src and "granted" in src


def test_timeline_shows_a_revocation_and_the_refusal(h: Harness) -> None:
    run_to_approval(h)
    h.approve()
    h.clock.advance(60)
    h.gate.revoke(h.rt, RUN, "approver:alice")
    h.clock.advance(60)
    h.rt.run(RUN)
    kinds = [m.kind for m in timeline(h.rt.store, RUN)]
    assert kinds == ["requested", "waiting", "granted", "revoked", "delivered", "refused"]
