"""Leaves the effect class at its default (PURE): the contract claims a refund can be re-run
freely, so nothing in the runtime treats a lost answer as a possible double refund."""

ANSWERS = {
    "answer_refund": '''class RefundArgs(BaseModel):
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
        key = inv.key("refund")
        return {"refund_id": payments.refund(key, args.charge_id, args.amount, args.currency)}

    return ToolContract("refund", input_model=RefundArgs, output_model=m02.RefundReceipt,
                        handler=refund,
                        constraints=[positive, known, within, same_currency],
                        scope="payments:refund", limits=Limits(max_payload_bytes=1024),
                        context=lambda: {"charges": charges()})
''',
}
MUST_FAIL = ["test_crash_refund_once"]
