"""Module 06's crash scenario: a refund that needs a human approval, and crashes around it.

The story: a refund agent decides to refund 30.00 EUR on order 42, asks a reviewer to approve that
exact refund (with the refund note the reviewer reads), waits durably, and after the approval
calls the payment provider with the receipt. The provider keeps its own ledger
(``refunds.sqlite``): one row per effect key (keyed-idempotent, like Stripe), plus a row per
request received; it checks the credential the gate handed to the tool.

Two phases, one scenario object each:

- :data:`waiting`: the crash happens on the way *into* the wait (after the request is journaled,
  fault point ``approval_requested``, or at the request step's own points). The reviewer
  approves while no worker runs, hours later (each recovery round moves the clock an hour on);
  a fresh worker resumes the run.
- :data:`approved`: the run reached WAITING and was approved before the crashing worker starts;
  the crash happens *after* the approval is journaled (``after_approval_recorded``) or in any
  crash window of the refund call (``before_intent`` ... ``after_result``).

The reviewer is a stand-in for a human: whenever a worker starts (``make_runtime``), it approves
any published request of the run that has no decision yet. Idempotent.

The oracle says CLEAN only if, on disk: the run succeeded (else STUCK); the provider holds exactly
one refund (else DUPLICATE or LOST) of the approved amount (else WRONG); and that refund's effect
key is the one the receipt was spent on, by a receipt that verifies against the approved request
(else WRONG: dispatched without a valid receipt).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from minirt.approvals import (
    K_REQUEST,
    K_USED,
    ApprovalGate,
    ApprovalRequest,
    GuardedTool,
    Receipt,
    call_approved,
    check_receipt,
    request_approval,
)
from minirt.errors import ToolError
from minirt.faults import Faults, Outcome, Verdict
from minirt.run import RunNotFound, RunState
from minirt.runtime import Context, Runtime, ScriptedModel
from minirt.tools import Lookup, ToolCall

from . import SQLiteScenario

SIGNING_KEY = "m06-scenario-signing-key-0123456789"
#: The provider's API key. The tests look for it in every byte the runtime wrote: never found.
PROVIDER_KEY = "sk_test_m06_51HqLyjWDarjtT1zdp7dc"
ORDER_ID = 42
APPROVED_CENTS = 3000
NOTE = "refund-note.txt"
NOTE_TEXT = b"Order 42 arrived broken (photo attached). Refund 30.00 EUR in full."


class Ledger:
    """The payment provider's own ledger (its authoritative count of effects)."""

    def __init__(self, workdir: Path) -> None:
        self.path = Path(workdir) / "refunds.sqlite"

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None)
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE IF NOT EXISTS refunds (effect_key TEXT PRIMARY KEY,"
                   " order_id INTEGER NOT NULL, amount_cents INTEGER NOT NULL)")
        db.execute("CREATE TABLE IF NOT EXISTS received (n INTEGER PRIMARY KEY AUTOINCREMENT,"
                   " effect_key TEXT NOT NULL)")
        return db

    def refund(self, order_id: int, amount_cents: int, effect_key: str, api_key: str
               ) -> dict[str, Any]:
        if api_key != PROVIDER_KEY:
            raise ToolError(tool="refund", reason="provider: invalid API key")
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO received (effect_key) VALUES (?)", (effect_key,))
            db.execute("INSERT OR IGNORE INTO refunds VALUES (?,?,?)",
                       (effect_key, order_id, amount_cents))
            row = db.execute("SELECT order_id, amount_cents FROM refunds WHERE effect_key=?",
                             (effect_key,)).fetchone()
            db.execute("COMMIT")
        finally:
            db.close()
        return {"refund_id": "re_" + effect_key[-8:], "order_id": row[0], "amount_cents": row[1]}

    def lookup(self, effect_key: str) -> Lookup:
        db = self._db()
        try:
            row = db.execute("SELECT order_id, amount_cents FROM refunds WHERE effect_key=?",
                             (effect_key,)).fetchone()
        finally:
            db.close()
        if row is None:
            return Lookup(False)
        return Lookup(True, {"refund_id": "re_" + effect_key[-8:], "order_id": row[0],
                             "amount_cents": row[1]})

    def refunds(self) -> list[tuple[str, int, int]]:
        if not self.path.exists():
            return []
        db = self._db()
        try:
            return db.execute("SELECT effect_key, order_id, amount_cents FROM refunds").fetchall()
        finally:
            db.close()

    def received(self) -> int:
        if not self.path.exists():
            return 0
        db = self._db()
        try:
            return int(db.execute("SELECT count(*) FROM received").fetchone()[0])
        finally:
            db.close()


def refund_agent(ctx: Context, order: dict[str, Any]) -> dict[str, Any]:
    """Decide, ask for approval of that exact refund, re-plan, refund with the receipt."""
    plan = ctx.decide({"task": "refund", "order": order}, name="plan")
    args = {"order_id": order["order_id"], "amount_cents": plan["amount_cents"]}
    receipt = request_approval(ctx, "refund", args, artifact=NOTE)
    final = ctx.decide({"task": "confirm", "approved": args}, name="replan")
    return call_approved(ctx, "refund", {**args, "amount_cents": final["amount_cents"]}, receipt)


class M06Approval(SQLiteScenario):
    """See the module docstring. ``check`` replaces the gate's receipt check (the drill plugs
    a learner's in); ``replanned_cents`` is what the model says after the approval;
    ``receipt_for`` is the receipts' lifetime (recovery rounds come an hour apart)."""

    run_id = "run-m06-refund"

    def __init__(self, phase: str = "waiting", *, check: Callable[..., None] = check_receipt,
                 replanned_cents: int = APPROVED_CENTS, approver: str = "alice",
                 receipt_for: float = 6 * 3600.0) -> None:
        if phase not in ("waiting", "approved"):
            raise ValueError(f"phase must be 'waiting' or 'approved', not {phase!r}")
        self.phase = phase
        self.check = check
        self.replanned_cents = int(replanned_cents)
        self.approver = approver
        self.receipt_for = float(receipt_for)  # how long a receipt is valid after approval
        self.name = f"m06-approval-{phase}"
        self.ref = f"minirt_course.scenarios.m06_approval:{phase}"

    def setup(self, workdir: Path) -> None:
        super().setup(workdir)
        (Path(workdir) / NOTE).write_bytes(NOTE_TEXT)

    def gate(self, workdir: Path) -> tuple[ApprovalGate, GuardedTool]:
        """The gate (key, vault, the refund note as the reviewed artifact) and its refund tool."""
        note, ledger = Path(workdir) / NOTE, Ledger(workdir)

        def artifacts(name: str) -> bytes:
            if name != NOTE:
                raise KeyError(name)
            return note.read_bytes()

        def refund(order_id: int, amount_cents: int, *, credential: Any, call: ToolCall) -> Any:
            return ledger.refund(order_id, amount_cents, call.effect_key, credential.reveal())

        gate = ApprovalGate(SIGNING_KEY, {"payments": PROVIDER_KEY}, artifacts=artifacts,
                            check=self.check)
        tool = gate.guarded(refund, credential="payments",
                            resource=lambda a: f"order:{a['order_id']}",
                            amount=lambda a: a["amount_cents"],
                            needs_approval=lambda a: a["amount_cents"] > 2000,
                            lookup=lambda call: ledger.lookup(call.effect_key))
        return gate, tool

    def runtime_kwargs(self, workdir: Path) -> dict[str, Any]:
        gate, tool = self.gate(workdir)
        outputs = [{"amount_cents": APPROVED_CENTS}, {"amount_cents": self.replanned_cents}]
        return {"tools": [tool], "workflows": {"refund_agent": refund_agent},
                "model": ScriptedModel(outputs), "hooks": [gate]}

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> Runtime:
        rt = super().make_runtime(workdir, faults=faults, clock_offset=clock_offset,
                                  worker_id=worker_id)
        self.review(rt)
        return rt

    def review(self, rt: Runtime) -> None:
        """The stand-in reviewer: approve every undecided request of the run. Idempotent."""
        try:
            items = rt.store.kv_items(self.run_id)
        except RunNotFound:
            return
        gate = next(h for h in rt.hooks if isinstance(h, ApprovalGate))
        for key in sorted(items):
            rid = key[len(K_REQUEST):]
            if key.startswith(K_REQUEST) and f"signal:approval:{rid}" not in items:
                gate.approve(rt, self.run_id, rid, approver=self.approver,
                             expires_for=self.receipt_for)

    def start(self, rt: Runtime) -> str:
        run_id = rt.start("refund_agent", {"order_id": ORDER_ID}, run_id=self.run_id)
        gate = next(h for h in rt.hooks if isinstance(h, ApprovalGate))
        if rt.store.kv_get(run_id, "capability:refund") is None:
            gate.mint(rt, run_id, "refund", resource=f"order:{ORDER_ID}", max_amount=50_000)
        if self.phase == "approved" and rt.store.get_run(run_id).run.state is RunState.PENDING \
                and not gate.requests(rt.store, run_id):
            workdir = Path(rt.store.path).parent  # type: ignore[attr-defined]
            before = self.make_runtime(workdir, faults=Faults(), clock_offset=0.0,
                                       worker_id="w-before-approval")
            try:
                before.run(run_id)  # up to WAITING
                self.review(before)  # approved: PENDING again, for the crashing worker
            finally:
                before.close()
        return run_id

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        run = rt.store.get_run(run_id).run
        if run.state is not RunState.SUCCEEDED:
            return Verdict(Outcome.STUCK, f"run is {run.state.value} after recovery")
        refunds = Ledger(workdir).refunds()
        if len(refunds) != 1:
            return Verdict(Outcome.DUPLICATE if refunds else Outcome.LOST,
                           f"the provider holds {len(refunds)} refunds")
        effect_key, _, cents = refunds[0]
        if cents != APPROVED_CENTS:
            return Verdict(Outcome.WRONG, f"refunded {cents} cents, approved {APPROVED_CENTS}")
        return self._receipt_verdict(rt, run_id, effect_key)

    def _receipt_verdict(self, rt: Runtime, run_id: str, effect_key: str) -> Verdict:
        items = rt.store.kv_items(run_id)
        marks = {k[len(K_USED):]: json.loads(v) for k, v in items.items() if k.startswith(K_USED)}
        spent = [rid for rid, m in marks.items() if m["effect_key"] == effect_key]
        if len(spent) != 1:
            return Verdict(Outcome.WRONG, f"{len(spent)} receipts spent on the refund")
        m = marks[spent[0]]
        decision = json.loads(items.get(f"signal:approval:{m['request_id']}", "{}"))
        request = ApprovalRequest.from_dict(json.loads(items[K_REQUEST + m["request_id"]]))
        receipt = Receipt.from_dict(decision.get("receipt", {}))
        gate = next(h for h in rt.hooks if isinstance(h, ApprovalGate))
        if not (receipt.receipt_id == spent[0] and gate.verify(receipt)
                and receipt.effect_digest == request.effect_digest):
            return Verdict(Outcome.WRONG, "the refund was dispatched without a valid receipt")
        return Verdict(Outcome.CLEAN)


waiting = M06Approval("waiting")
approved = M06Approval("approved")
