"""The capstone's world and runtime: a small shop, its providers, its tools, one factory.

The shop sold three orders to one customer; each was paid with a real charge at the payment
provider (made by :func:`setup_world`, so refunds have something to refund). The support agent
(:mod:`minirt_course.capstone.agent`) answers a ticket about them with five tools:

============== ================ ============================================================
tool           effect           provider, key, reconciliation
============== ================ ============================================================
lookup_order   pure             the shop's order table (``orders.json``); safe to repeat
refund         keyed, guarded   payments; key = ``policies.refund_key(call)``; lookup by it;
                                approval above the threshold (:class:`ApprovalGate`)
book           keyed            booking; client_ref = effect key; lookup forever
cancel_booking keyed            booking; the compensation of ``book``
send_email     irreversible     email; no key, no lookup: ``policies.delivery`` decides
============== ================ ============================================================

:class:`Policies` holds the four decisions a learner makes in the capstone drill (the key the
refund tool sends, the email's delivery, which refunds need approval, and the dispatch-time
receipt check). :data:`REFERENCE` holds the reference answers. :func:`build_runtime` wires
everything on one work directory: the run store ``runs.sqlite`` and one ledger per provider.

Invariant: the providers' ledgers are the only evidence of effects; nothing here counts effects
any other way. Not guaranteed: the shop's order table is read-only and trusted (a real shop's
database would be a provider of its own).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minirt.approvals import ApprovalGate, check_receipt
from minirt.clock import Clock, FakeClock
from minirt.errors import ToolError
from minirt.faults import Faults
from minirt.idempotency import Delivery, reconcile_by_lookup
from minirt.run import RunState
from minirt.runtime import Model, RunOutcome, Runtime, RuntimeHook, ScriptedModel, Workflow
from minirt.store.sqlite import SQLiteStore
from minirt.tools import FunctionTool, Lookup, OutcomeUnknown, ToolCall
from minirt.world.booking import BookingProvider
from minirt.world.email import EmailProvider
from minirt.world.errors import ProviderUnavailable
from minirt.world.payments import PaymentProvider
from minirt.world.tools import book_tool, cancel_booking_tool, email_tool

from .agent import CapstoneError, support_agent, support_model  # noqa: F401 - CapstoneError

# is re-exported (it lived here before the agent owned it); the agent imports nothing of the shop

EPOCH = 1_700_000_000.0
#: The business rule: refunds above this many cents need a reviewer's approval.
APPROVAL_THRESHOLD_CENTS = 5000
#: The most one run may refund (the capability the operator mints for each run).
MAX_REFUND_CENTS = 50_000
SIGNING_KEY = "capstone-approval-signing-key-0123456789"
#: The payment provider's API key: held by the gate, handed to the refund tool only.
PROVIDER_KEY = "sk_test_capstone_4eC39HqLyjWDarjtT1zdp7dc"

CUSTOMER = {"customer": "cus_ada", "email": "ada@example.com"}
ORDERS: dict[str, dict[str, Any]] = {
    "A-100": {"order_id": "A-100", "item": "kettle", "amount_cents": 3000, "currency": "eur",
              "status": "damaged", **CUSTOMER},
    "A-101": {"order_id": "A-101", "item": "espresso machine", "amount_cents": 12000,
              "currency": "eur", "status": "damaged", **CUSTOMER},
    "A-102": {"order_id": "A-102", "item": "teapot", "amount_cents": 4500, "currency": "eur",
              "status": "lost", **CUSTOMER},
    "A-103": {"order_id": "A-103", "item": "grinder", "amount_cents": 9000, "currency": "eur",
              "status": "delivered", **CUSTOMER},
}
TICKET: dict[str, Any] = {
    "ticket_id": "T-1", **CUSTOMER, "orders": ["A-100", "A-101", "A-102"],
    "text": "My kettle and my espresso machine arrived broken and the teapot never came.",
}


class OrderNotFound(ToolError):
    """The shop has no order with this id (a model or a ticket named one that does not exist).
    Not a provider's :class:`~minirt.world.errors.NotFound` (that is about a charge)."""

    fields = ("tool", "reason")
    template = "{tool} refused: {reason}"


class CredentialRejected(ToolError):
    """The refund tool was handed a credential the payment provider does not accept."""


@dataclass(frozen=True)
class Policies:
    """The decisions a capstone agent makes about its effects (the drill's answers).

    ``refund_key(call) -> str``: the idempotency key the refund tool sends and looks up by;
    ``delivery``: the email's choice for a lost response; ``needs_approval(args) -> bool``: which
    refunds wait for a reviewer; ``check_approval``: the gate's dispatch-time receipt check
    (signature of :func:`minirt.approvals.check_receipt`).
    """

    refund_key: Callable[[ToolCall], str] = lambda call: call.effect_key
    delivery: Delivery | str = Delivery.AT_MOST_ONCE
    needs_approval: Callable[[dict[str, Any]], bool] = \
        lambda args: int(args["amount_cents"]) > APPROVAL_THRESHOLD_CENTS
    check_approval: Callable[..., None] = check_receipt


REFERENCE = Policies()


#: The files :func:`setup_world` writes (``payments.sqlite``, ``orders.json``), as bytes.
_WORLD_FILES = ("payments.sqlite", "orders.json")
_default_worlds: dict[str, dict[str, bytes]] = {}  # (EPOCH, ORDERS) as JSON -> the files


def setup_world(workdir: str | Path, orders: Iterable[dict[str, Any]] | None = None) -> None:
    """Create the shop under ``workdir``: the order table and one paid charge per order.

    Idempotent: the charges are made with a fixed key per order, so a second call charges nothing.
    A fresh directory and the default orders get the same bytes as the first such world this
    process made with the same ``ORDERS`` and ``EPOCH`` (its files are deterministic: fixed keys,
    a fake clock), written instead of charged again: a crash sweep makes a new world per crash
    point.
    """
    wd = Path(workdir)
    wd.mkdir(parents=True, exist_ok=True)
    fresh = orders is None and not any(
        (wd / f).exists() for f in (*_WORLD_FILES, "payments.sqlite-wal", "payments.sqlite-shm"))
    key = json.dumps([EPOCH, ORDERS], sort_keys=True) if fresh else ""
    if fresh and key in _default_worlds:
        for name in _WORLD_FILES:
            (wd / name).write_bytes(_default_worlds[key][name])
        return
    _make_world(wd, orders)
    if fresh and not any((wd / f).exists() for f in ("payments.sqlite-wal",
                                                     "payments.sqlite-shm")):
        _default_worlds[key] = {name: (wd / name).read_bytes() for name in _WORLD_FILES}


def _make_world(wd: Path, orders: Iterable[dict[str, Any]] | None) -> None:
    table = {o["order_id"]: dict(o) for o in (orders or ORDERS.values())}
    with PaymentProvider(wd / "payments.sqlite", FakeClock(EPOCH - 3600)) as pay:
        for o in table.values():
            receipt = pay.charge(f"shop-sale-{o['order_id']}", int(o["amount_cents"]),
                                 o["currency"], o["customer"])
            o["charge_id"] = receipt["charge_id"]
    (wd / "orders.json").write_text(json.dumps(table, sort_keys=True, indent=1))


def read_orders(workdir: str | Path) -> dict[str, dict[str, Any]]:
    """The shop's order table as :func:`setup_world` wrote it."""
    return json.loads((Path(workdir) / "orders.json").read_text())


def lookup_order_tool(workdir: str | Path) -> FunctionTool:
    """``lookup_order(order_id)``: the order row (pure: reading it twice changes nothing)."""
    path = Path(workdir) / "orders.json"

    def lookup_order(order_id: str) -> dict[str, Any]:
        table = json.loads(path.read_text())
        if order_id not in table:
            raise OrderNotFound(tool="lookup_order", reason=f"no order {order_id!r}")
        return table[order_id]

    return FunctionTool(lookup_order)


def refund_tool(gate: ApprovalGate, pay: PaymentProvider, workdir: str | Path,
                policies: Policies) -> FunctionTool:
    """``refund(order_id, charge_id, amount_cents)``: a guarded, keyed refund of a whole charge.

    The tool refuses (before sending) an amount that is not the order's, so what a reviewer
    approved is what moves. Transport silence and 5xx become :class:`OutcomeUnknown`, settled by a
    lookup under the same key.
    """
    orders = Path(workdir) / "orders.json"

    def refund(order_id: str, charge_id: str, amount_cents: int, *, credential: Any,
               call: ToolCall) -> dict[str, Any]:
        if credential.reveal() != PROVIDER_KEY:
            raise CredentialRejected(tool="refund", reason="provider: invalid API key")
        order = json.loads(orders.read_text()).get(order_id)
        if order is None or order["charge_id"] != charge_id \
                or int(order["amount_cents"]) != int(amount_cents):
            raise OrderNotFound(tool="refund", reason=f"{order_id}/{charge_id}/{amount_cents} "
                                                      "is not a charge of the shop")
        key = str(policies.refund_key(call))
        try:
            return pay.refund(charge_id, key)
        except ProviderUnavailable as exc:
            raise OutcomeUnknown(tool="refund", effect_key=key, reason=str(exc)) from None

    def lookup(call: ToolCall) -> Lookup:
        body = pay.lookup(str(policies.refund_key(call)))
        if body is None or "error" in body:
            return Lookup(False, detail="nothing saved under this key")
        return Lookup(True, body)

    tool = gate.guarded(refund, credential="payments", name="refund",
                        resource=lambda a: f"order:{a['order_id']}",
                        amount=lambda a: int(a["amount_cents"]),
                        needs_approval=policies.needs_approval, lookup=lookup)
    tool.retention_for = pay.retention_for  # type: ignore[attr-defined]  # for reconciliation
    return tool


Reviewer = Callable[["CapstoneRuntime", str], bool]


class CapstoneRuntime(Runtime):
    """A runtime that owns its providers and, if it has a ``reviewer``, lets it decide pending
    approval requests whenever a run parks to wait (a stand-in for a human who answers later).

    ``run`` loops: run, and while the run waits for an approval the reviewer just decided, run
    again. Without a reviewer it is :meth:`Runtime.run` exactly.
    """

    world: dict[str, Any]
    gate: ApprovalGate
    reviewer: Reviewer | None = None

    def run(self, run_id: str) -> RunOutcome:
        out = super().run(run_id)
        while (out.state is RunState.WAITING and self.reviewer is not None
               and self.reviewer(self, run_id)):
            out = super().run(run_id)
        return out

    resume = run

    def close(self) -> None:
        for provider in self.world.values():
            provider.close()
        super().close()


def approve_all(approver: str = "reviewer-bob", *, up_to_cents: int = MAX_REFUND_CENTS,
                expires_for: float = 6 * 3600.0) -> Reviewer:
    """A stand-in reviewer: approves every undecided request up to ``up_to_cents``, rejects the
    rest. Returns whether it decided anything. Idempotent (a decided request is skipped)."""

    def review(rt: CapstoneRuntime, run_id: str) -> bool:
        decided = False
        items = rt.store.kv_items(run_id)
        for req in rt.gate.requests(rt.store, run_id):
            if f"signal:approval:{req.request_id}" in items:
                continue
            amount = int(req.effect["args"].get("amount_cents", 0))
            if amount <= up_to_cents:
                rt.gate.approve(rt, run_id, req.request_id, approver=approver,
                                expires_for=expires_for)
            else:
                rt.gate.reject(rt, run_id, req.request_id, approver=approver,
                               reason=f"{amount} cents is above what I may approve")
            decided = True
        return decided

    return review


@dataclass
class Options:
    """Everything :func:`build_runtime` may vary besides the work directory."""

    workflow: Workflow | None = None
    policies: Policies = REFERENCE
    model: Model | None = None
    budget: dict[str, float] | None = field(default_factory=lambda: dict(DEFAULT_BUDGET))
    reviewer: Reviewer | None = field(default_factory=approve_all)
    synchronous: str = "FULL"
    max_in_flight: int = 3
    #: The switch to a real SDK: plan through ``openai.OpenAI(base_url=model_url)``
    #: (:mod:`minirt_course.capstone.sdk_model`) instead of the scripted model. Ignored if ``model``.
    model_url: str | None = None


#: Enough for the reference ticket with room for one crash and a few resends.
DEFAULT_BUDGET = {"tool_attempts": 20, "tokens": 4000, "retries": 6}


def build_runtime(workdir: str | Path, *, faults: Faults | None = None,
                  clock: Clock | None = None, worker_id: str = "w-capstone",
                  options: Options | None = None, hooks: Iterable[RuntimeHook] = (),
                  **overrides: Any) -> CapstoneRuntime:
    """The capstone runtime on ``workdir`` (which :func:`setup_world` prepared).

    ``options`` (or keyword ``overrides`` of its fields) choose the workflow, the policies, the
    model, the budget limits (None: no budget hook), the reviewer (None: runs wait for a real
    one) and the store's ``synchronous`` setting. ``hooks`` are added before the budget hook.
    """
    opts = options or Options()
    for name in overrides:
        if not hasattr(opts, name):
            raise TypeError(f"build_runtime() got an unexpected option {name!r}")
    opts = Options(**{**opts.__dict__, **overrides})
    if opts.model is None and opts.model_url is not None:
        from .sdk_model import sdk_model

        opts.model = sdk_model(opts.model_url)
    wd = Path(workdir)
    clock = clock or FakeClock(EPOCH)
    world = {"payments": PaymentProvider(wd / "payments.sqlite", clock),
             "booking": BookingProvider(wd / "booking.sqlite", clock),
             "email": EmailProvider(wd / "email.sqlite", clock)}
    gate = ApprovalGate(SIGNING_KEY, {"payments": PROVIDER_KEY}, check=opts.policies.check_approval)
    tools = [lookup_order_tool(wd), refund_tool(gate, world["payments"], wd, opts.policies),
             book_tool(world["booking"]), cancel_booking_tool(world["booking"]),
             email_tool(world["email"], delivery=opts.policies.delivery)]
    all_hooks: list[RuntimeHook] = [gate, *hooks]
    if opts.budget is not None:
        from minirt.budget import BudgetHook

        all_hooks.append(BudgetHook(opts.budget, tokens_per_decision=500))  # last, as it asks
    rt = CapstoneRuntime(SQLiteStore(wd / "runs.sqlite", synchronous=opts.synchronous),
                         tools=tools, workflows={"support_agent": opts.workflow or support_agent},
                         model=opts.model or ScriptedModel(support_model), clock=clock,
                         faults=faults, worker_id=worker_id, reconcile=reconcile_by_lookup,
                         hooks=all_hooks)
    rt.world, rt.gate, rt.reviewer = world, gate, opts.reviewer
    rt.max_in_flight = opts.max_in_flight  # type: ignore[attr-defined]
    return rt


def start_ticket(rt: CapstoneRuntime, ticket: dict[str, Any] | None = None, *,
                 run_id: str = "run-capstone") -> str:
    """Start (get-or-create) the run for ``ticket`` and mint its refund capability. Idempotent."""
    run_id = rt.start("support_agent", ticket or TICKET, run_id=run_id)
    if rt.store.kv_get(run_id, "capability:refund") is None:
        rt.gate.mint(rt, run_id, "refund", resource="order:*", max_amount=MAX_REFUND_CENTS)
    return run_id
