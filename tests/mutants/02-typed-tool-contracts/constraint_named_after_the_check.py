"""Names the constraints after what the code does (`amount_gt_zero`) instead of the rule the
drill names: the refusal is raised, but the DomainViolation points operators at no known rule."""

ANSWERS = {
    "answer_refund": '''class RefundArgs(BaseModel):
    charge_id: str
    amount: int  # cents
    currency: str


def make_refund(charges, payments):
    @constraint("amount_gt_zero", field="amount")
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
        key = inv.key("refund")
        return {"refund_id": payments.refund(key, args.charge_id, args.amount, args.currency)}

    return ToolContract("refund", input_model=RefundArgs, output_model=m02.RefundReceipt,
                        handler=refund, effect=EffectClass.KEYED,
                        constraints=[positive, known, within, same_currency],
                        scope="payments:refund", limits=Limits(max_payload_bytes=1024),
                        context=lambda: {"charges": charges()})
''',
}
MUST_FAIL = ['test_domain']
