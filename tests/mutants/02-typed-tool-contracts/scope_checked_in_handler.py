"""Checks the scope inside the handler instead of declaring it: the intent is journaled and the
call dispatched before the refusal, so the refusal is a tool failure, not a gate."""

ANSWERS = {
    'answer_refund': '''class RefundArgs(BaseModel):
    charge_id: str
    amount: int  # cents
    currency: str


def make_refund(charges, payments):
    @constraint("positive_amount", field="amount")
    def positive(args, ctx):
        return args.amount > 0

    @constraint("known_charge", field="charge_id")
    def known(args, ctx):
        return args.charge_id in ctx["charges"] or f"no charge {args.charge_id}"

    @constraint("within_charge", field="amount")
    def within(args, ctx):
        return args.amount <= ctx["charges"][args.charge_id]["amount"]

    @constraint("currency_matches", field="currency")
    def same_currency(args, ctx):
        return args.currency == ctx["charges"][args.charge_id]["currency"]

    def refund(args, inv):
        if "payments:refund" not in inv.call.scopes:
            raise NotAuthorized(tool="refund", field="$", reason="missing scope",
                                scope="payments:refund")
        key = inv.key("refund")
        return {"refund_id": payments.refund(key, args.charge_id, args.amount, args.currency)}

    return ToolContract("refund", input_model=RefundArgs, output_model=m02.RefundReceipt,
                        handler=refund, effect=EffectClass.KEYED,
                        constraints=[positive, known, within, same_currency],
                        limits=Limits(max_payload_bytes=1024),
                        context=lambda: {"charges": charges()})
''',
}
MUST_FAIL = ['test_authorization']
