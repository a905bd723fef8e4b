"""The combined refund-and-notify tool copies the refund's constraints and scope but not its
1024-byte payload limit: an oversized call the refund alone refuses goes through."""

ANSWERS = {
    "answer_refund_and_notify": '''def make_refund_and_notify(charges, payments, mailer):
    def refund_then_notify(args, inv):
        refund_id = payments.refund(inv.key("refund"), args.charge_id, args.amount,
                                    args.currency)
        inv.happened("refund", {"refund_id": refund_id})
        to = charges()[args.charge_id]["email"]
        message_id = mailer.send(inv.key("notify"), to,
                                 f"We refunded {args.amount} {args.currency} cents.")
        inv.happened("notify", {"message_id": message_id})
        return {"refund_id": refund_id, "message_id": message_id}

    rules = make_refund(charges, payments)
    return ToolContract("refund_and_notify", input_model=RefundArgs,
                        output_model=m02.RefundNotifyReceipt, handler=refund_then_notify,
                        effect=EffectClass.KEYED, constraints=rules.constraints,
                        scope=rules.scope, context=rules.context,
                        sub_effects=("refund", "notify"))
''',
}
MUST_FAIL = ["test_partial_report"]
