"""The replacement is booked as a saga step without its compensation (cancel_booking): a saga
stopped after it, or an operator, has nothing to undo it with."""

ANSWERS = {
    "answer_agent": '''def cancel_args(args, receipt):
    return {"booking_id": receipt["booking_id"]}


def support_agent(ctx, ticket):
    calls = [Call("lookup_order", {"order_id": o}, reads={f"orders:{o}"})
             for o in ticket["orders"]]
    orders = {o["order_id"]: o for o in parallel(ctx, calls, max_in_flight=3)}
    plan = ctx.decide({"task": "plan", "ticket": ticket, "orders": list(orders.values())},
                      name="plan")
    named = [*plan["refund"], *plan["replace"]]
    if not set(named) <= set(orders) or len(set(named)) != len(named):
        raise PlanRejected(run_id=ctx.run_id, reason=f"plan names {named}")
    refunded = []
    for oid in plan["refund"]:
        args = {"order_id": oid, "charge_id": orders[oid]["charge_id"],
                "amount_cents": orders[oid]["amount_cents"]}
        if needs_approval(args):
            receipt = request_approval(ctx, "refund", args)
            refunded.append(call_approved(ctx, "refund", args, receipt)["charge_id"])
        else:
            refunded.append(ctx.call_tool("refund", args)["charge_id"])
    saga = Saga(ctx, "replacements")
    try:
        for oid in plan["replace"]:
            saga.step("book", {"item": orders[oid]["item"], "customer": ticket["customer"]})
        saga.finish()
        replacements = "booked"
    except SAGA_STOPS as stop:
        replacements = saga.compensate(str(stop)).outcomes()
    email = ctx.call_tool("send_email", to=ticket["email"], body=plan["reply"],
                          subject=f"About your ticket {ticket['ticket_id']}")
    return {"refunded": refunded, "replacements": replacements, "email": email}
''',
}
MUST_FAIL = ["test_happy_path"]
