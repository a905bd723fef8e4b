"""Catches the mail failure and raises a plain ToolError: the report claims nothing happened
although the refund went through."""

ANSWERS = {
    'answer_refund_and_notify': '''def make_refund_and_notify(charges, payments, mailer):
    def refund_then_notify(args, inv):
        refund_id = payments.refund(inv.key("refund"), args.charge_id, args.amount,
                                    args.currency)
        to = charges()[args.charge_id]["email"]
        try:
            message_id = mailer.send(inv.key("notify"), to,
                                     f"We refunded {args.amount} {args.currency} cents.")
        except ToolError as exc:
            raise ToolError(tool="refund_and_notify", reason=str(exc)) from None
        inv.happened("notify", {"message_id": message_id})
        return {"refund_id": refund_id, "message_id": message_id}

    rules = make_refund(charges, payments)
    return ToolContract("refund_and_notify", input_model=RefundArgs,
                        output_model=m02.RefundNotifyReceipt, handler=refund_then_notify,
                        effect=EffectClass.KEYED, constraints=rules.constraints,
                        scope=rules.scope, limits=rules.limits, context=rules.context,
                        sub_effects=("refund", "notify"))
''',
}
MUST_FAIL = ['test_partial_report']
