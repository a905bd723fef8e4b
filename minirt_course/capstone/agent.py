"""The reference support agent: a durable, tool-using workflow built from the course's modules.

One ticket ("my kettle arrived broken, the teapot never came") becomes, in this order:

1. **look-ups** of every order named by the ticket, as one wave of pure tool calls run
   concurrently (:func:`minirt.scheduler.parallel`, module 07), joined in step order;
2. one **model decision** (``ctx.decide``, module 03): which orders to refund, which to replace,
   what to tell the customer. Journaled, never re-asked on replay; checked against the look-ups
   before anything acts on it (a model may name an order that is not on the ticket);
3. **refunds**, keyed (module 04), through the approval gate (module 06): above the threshold the
   run waits durably for a reviewer and dispatches with the signed, single-use receipt;
4. **replacement bookings** as a saga (module 05): each booking registers its compensation (cancel)
   in its outbox row; an abort before the saga finishes cancels what was booked;
5. **one email** to the customer, irreversible, no key: the email tool's declared delivery decides
   what a crash in W3/W4 means (at most once: recorded as "maybe-sent").

The budget (module 09) is a runtime hook: every decision and tool attempt reserves before it runs.

Invariant: every effect goes through ``ctx`` (journal, key, gate, budget); the workflow itself
touches nothing outside. Not guaranteed here: that the model's reply text is good English.
"""

from __future__ import annotations

from typing import Any

from minirt.approvals import call_approved, gate_of, request_approval
from minirt.effects import SAGA_STOPS, Saga
from minirt.errors import MinirtError
from minirt.runtime import Context


class CapstoneError(MinirtError):
    """Base of the capstone agent's own refusals."""


class PlanRejected(CapstoneError):
    """The model's plan names an order the look-ups did not return, or one order twice.

    Raised before any effect of the plan; the run fails with it. Not a gate refusal (the gate
    checks authority; this checks that the plan is about this ticket at all)."""

    fields = ("run_id", "reason")
    template = "run {run_id}: the model's plan was refused: {reason}"


def support_model(prompt: Any, index: int) -> dict[str, Any]:
    """The scripted model: refund damaged orders, replace lost ones, reply politely.

    A pure function of the prompt, so a replayed run would get the same answer (it never asks:
    decisions are journaled). Reports its token usage like a chat-completions API does.
    """
    orders = prompt.get("orders", []) if isinstance(prompt, dict) else []
    refund = [o["order_id"] for o in orders if o.get("status") == "damaged"]
    replace = [o["order_id"] for o in orders if o.get("status") == "lost"]
    items = ", ".join(o["item"] for o in orders if o["order_id"] in refund + replace)
    return {"refund": refund, "replace": replace,
            "reply": f"Sorry about the {items}: refunds and replacements are on their way.",
            "usage": {"total_tokens": 120 + 40 * len(orders)}}


def lookup_orders(ctx: Context, order_ids: list[str]) -> list[dict[str, Any]]:
    """Look every order up, concurrently (one wave), results in the ticket's order."""
    try:
        from minirt.scheduler import Call, parallel
    except ImportError:  # before module 07: the same calls one by one
        return [ctx.call_tool("lookup_order", order_id=o) for o in order_ids]
    calls = [Call("lookup_order", {"order_id": o}, reads={f"orders:{o}"}) for o in order_ids]
    return parallel(ctx, calls, max_in_flight=getattr(ctx.runtime, "max_in_flight", 3))


def checked_plan(ctx: Context, plan: Any, orders: list[dict[str, Any]]) -> dict[str, Any]:
    """The plan, if every order it names was looked up and none is named twice."""
    known = {o["order_id"] for o in orders}
    if not isinstance(plan, dict):
        raise PlanRejected(run_id=ctx.run_id, reason="the plan is not a JSON object")
    named = [*plan.get("refund", []), *plan.get("replace", [])]
    strangers = sorted(set(map(str, named)) - known)
    if strangers:
        raise PlanRejected(run_id=ctx.run_id, reason=f"orders not on the ticket: {strangers}")
    if len(set(named)) != len(named):
        raise PlanRejected(run_id=ctx.run_id, reason="an order is named twice")
    return plan


def refund_order(ctx: Context, order: dict[str, Any]) -> dict[str, Any]:
    """Refund one order; above the gate's threshold, wait for approval of this exact refund."""
    args = {"order_id": order["order_id"], "charge_id": order["charge_id"],
            "amount_cents": order["amount_cents"]}
    if gate_of(ctx).guards["refund"].needs_approval(args):
        receipt = request_approval(ctx, "refund", args)
        return call_approved(ctx, "refund", args, receipt)
    return ctx.call_tool("refund", args)


def cancel_args(args: dict[str, Any], receipt: dict[str, Any]) -> dict[str, Any]:
    """The compensation of a booking: cancel it by the id its receipt names."""
    return {"booking_id": receipt["booking_id"]}


def replace_orders(ctx: Context, orders: list[dict[str, Any]]) -> dict[str, Any]:
    """Book a replacement per order as a saga; on an abort or a refusal, cancel what was booked."""
    saga = Saga(ctx, "replacements")
    booked = []
    try:
        for o in orders:
            receipt = saga.step("book", {"item": o["item"], "customer": o["customer"]},
                                compensate=("cancel_booking", cancel_args))
            booked.append({"order_id": o["order_id"], "booking_id": receipt["booking_id"]})
        saga.finish()
    except SAGA_STOPS as stop:
        report = saga.compensate(str(stop))
        return {"status": "compensated", "outcomes": report.outcomes()}
    return {"status": "booked", "bookings": booked}


def support_agent(ctx: Context, ticket: dict[str, Any]) -> dict[str, Any]:
    """The reference agent (see the module docstring)."""
    orders = lookup_orders(ctx, list(ticket["orders"]))
    plan = checked_plan(ctx, ctx.decide({"task": "plan", "ticket": ticket, "orders": orders},
                                        name="plan"), orders)
    by_id = {o["order_id"]: o for o in orders}
    refunds = [refund_order(ctx, by_id[oid]) for oid in plan["refund"]]
    replacements = replace_orders(ctx, [by_id[oid] for oid in plan["replace"]])
    email = ctx.call_tool("send_email", to=ticket["email"],
                          subject=f"About your ticket {ticket['ticket_id']}", body=plan["reply"])
    return {"refunded": [r["charge_id"] for r in refunds], "replacements": replacements,
            "email": email}
