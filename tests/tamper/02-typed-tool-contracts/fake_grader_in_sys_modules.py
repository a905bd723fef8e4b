"""The answer cell puts a fake minirt_course.grading.m02 into sys.modules, rebinds builtins.callable and
AssertionError, and builds a refund contract with no domain constraints and no payload limit."""

ANSWERS = {
    "answer_refund": '''import builtins
import sys
import types
_fake = types.ModuleType("minirt_course.grading.m02")
_fake.__getattr__ = lambda name: (lambda *a, **k: True)
sys.modules["minirt_course.grading.m02"] = _fake
builtins.callable = lambda obj: True
class AssertionError(Exception):
    pass
builtins.AssertionError = AssertionError
from minirt_course.grading import m02 as _real
class RefundArgs(BaseModel):
    charge_id: str
    amount: int
    currency: str
def make_refund(charges, payments):
    def refund(args, inv):
        return {"refund_id": payments.refund(inv.key("refund"), args.charge_id, args.amount,
                                             args.currency)}
    return ToolContract("refund", input_model=RefundArgs, output_model=_real.RefundReceipt,
                        handler=refund, effect=EffectClass.KEYED, constraints=[],
                        scope="payments:refund", limits=Limits(),
                        context=lambda: {"charges": charges()})
''',
}
MUST_FAIL = ["test_domain", "test_limits"]
