"""Tests for minirt_course.grading.m02: the drill's hidden checks pass the reference answers, fail
plausible wrong answers on the right property, and never crash on broken learner code."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pydantic import BaseModel

from minirt.contracts import (
    GATES,
    Invocation,
    Limits,
    NotAuthorized,
    PartialEffect,
    ToolContract,
    constraint,
)
from minirt.errors import ToolError
from minirt.tools import EffectClass
from minirt_course.grading import m02


class RefundArgs(BaseModel):
    charge_id: str
    amount: int
    currency: str


class FloatArgs(BaseModel):
    charge_id: str
    amount: float
    currency: str


def rules(strict_bound: bool = False, currency: bool = True) -> list[Any]:
    @constraint("positive_amount", field="amount")
    def positive(a: Any, ctx: Any) -> bool:
        return a.amount > 0

    @constraint("known_charge", field="charge_id")
    def known(a: Any, ctx: Any) -> bool:
        return a.charge_id in ctx["charges"]

    @constraint("within_charge", field="amount")
    def within(a: Any, ctx: Any) -> bool:
        bound = ctx["charges"][a.charge_id]["amount"]
        return a.amount < bound if strict_bound else a.amount <= bound

    @constraint("currency_matches", field="currency")
    def same_currency(a: Any, ctx: Any) -> bool:
        return a.currency == ctx["charges"][a.charge_id]["currency"]

    return [positive, known, within] + ([same_currency] if currency else [])


def make_refund(charges: Any, payments: Any, *, args_model: type[BaseModel] = RefundArgs,
                strict_bound: bool = False, currency: bool = True, scope: str | None = m02.SCOPE,
                limits: Limits | None = None, fresh_key: bool = False,
                scope_in_handler: bool = False) -> ToolContract:
    def refund(a: Any, inv: Invocation) -> dict[str, str]:
        if scope_in_handler and m02.SCOPE not in inv.call.scopes:
            raise NotAuthorized(tool="refund", field="$", reason="no scope", scope=m02.SCOPE)
        key = f"k-{uuid.uuid4().hex}" if fresh_key else inv.key("refund")
        return {"refund_id": payments.refund(key, a.charge_id, int(a.amount), a.currency)}

    return ToolContract("refund", input_model=args_model, output_model=m02.RefundReceipt,
                        handler=refund, effect=EffectClass.KEYED,
                        constraints=rules(strict_bound, currency), scope=scope,
                        limits=limits or Limits(max_payload_bytes=1024),
                        context=lambda: {"charges": charges()})


def make_refund_and_notify(charges: Any, payments: Any, mailer: Any, *,
                           receipts_at_end: bool = False) -> ToolContract:
    def both(a: Any, inv: Invocation) -> dict[str, str]:
        refund_id = payments.refund(inv.key("refund"), a.charge_id, a.amount, a.currency)
        if not receipts_at_end:
            inv.happened("refund", {"refund_id": refund_id})
        message_id = mailer.send(inv.key("notify"), charges()[a.charge_id]["email"], "done")
        if receipts_at_end:
            inv.happened("refund", {"refund_id": refund_id})
        inv.happened("notify", {"message_id": message_id})
        return {"refund_id": refund_id, "message_id": message_id}

    return ToolContract("refund_and_notify", input_model=RefundArgs,
                        output_model=m02.RefundNotifyReceipt, handler=both,
                        effect=EffectClass.KEYED, constraints=rules(), scope=m02.SCOPE,
                        context=lambda: {"charges": charges()}, sub_effects=("refund", "notify"))


def effect_status(kind: str | None, error: dict[str, Any] | None) -> str:
    if kind is None:
        return "unknown"
    if kind == "tool_rejected":
        return "none"
    if kind == "tool_result":
        return "happened"
    kind_of_error = (error or {}).get("type")
    if kind_of_error == "OutputInvalid":
        return "happened"
    if kind_of_error == "PartialEffect":
        return "partial"
    return "none"


def blank(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError()


# -- the reference answers pass -------------------------------------------------------------------

@pytest.mark.parametrize("check", [m02.check_schema, m02.check_domain, m02.check_authorization,
                                   m02.check_limits, m02.check_crash])
def test_the_reference_refund_passes(check: Any) -> None:
    assert check(make_refund) == []


def test_the_reference_partial_report_passes() -> None:
    assert m02.check_partial(make_refund_and_notify) == []


def test_the_reference_effect_status_passes() -> None:
    assert m02.check_effect_status(effect_status) == []


def test_the_grader_reference_contracts_pass_their_own_checks() -> None:
    assert m02.check_domain(m02.reference_refund) == []
    assert m02.check_partial(m02.reference_refund_and_notify) == []


def test_the_prediction_is_checked_against_the_run() -> None:
    assert m02.actual_gate() == "domain"
    assert m02.check_prediction("domain") == []
    wrong = m02.check_prediction("authorization")
    assert wrong and "domain" not in wrong[0]
    assert m02.check_prediction(None)[0].startswith("[predict-gate]")


# -- blank answers fail every property with a message, never a crash ------------------------------

@pytest.mark.parametrize("check", [m02.check_schema, m02.check_domain, m02.check_authorization,
                                   m02.check_limits, m02.check_crash, m02.check_partial,
                                   m02.check_effect_status])
def test_a_blank_answer_fails_with_a_named_property(check: Any) -> None:
    failures = check(blank)
    assert failures and failures[0].startswith("[")


def test_a_factory_returning_garbage_fails_cleanly() -> None:
    assert m02.check_schema(lambda *a: 42)[0].startswith("[schema]")


# -- each plausible wrong answer loses its property -----------------------------------------------

def test_a_float_amount_loses_schema() -> None:
    assert m02.check_schema(lambda c, p: make_refund(c, p, args_model=FloatArgs))


def test_a_strict_bound_loses_domain() -> None:
    failures = m02.check_domain(lambda c, p: make_refund(c, p, strict_bound=True))
    assert any("exactly the charge" in f for f in failures)


def test_ignoring_the_currency_loses_domain() -> None:
    failures = m02.check_domain(lambda c, p: make_refund(c, p, currency=False))
    assert any("currency" in f for f in failures)


def test_a_snapshot_of_the_charges_loses_domain() -> None:
    def snapshot(charges: Any, payments: Any) -> ToolContract:
        frozen = {k: dict(v) for k, v in charges().items()}
        return make_refund(lambda: frozen, payments)

    assert any("after the contract was built" in f for f in m02.check_domain(snapshot))


def test_checking_the_scope_in_the_handler_loses_authorization() -> None:
    failures = m02.check_authorization(
        lambda c, p: make_refund(c, p, scope=None, scope_in_handler=True))
    assert any("journal shows ['intent', 'tool_error']" in f for f in failures)


def test_no_payload_limit_loses_limits() -> None:
    assert m02.check_limits(lambda c, p: make_refund(c, p, limits=Limits()))


def test_receipts_recorded_only_at_the_end_lose_the_partial_report() -> None:
    failures = m02.check_partial(
        lambda c, p, m: make_refund_and_notify(c, p, m, receipts_at_end=True))
    assert failures and failures[0].startswith("[partial-report]")


def test_swallowing_the_mail_failure_loses_the_partial_report() -> None:
    def swallow(charges: Any, payments: Any, mailer: Any) -> ToolContract:
        def both(a: Any, inv: Invocation) -> dict[str, str]:
            refund_id = payments.refund(inv.key("refund"), a.charge_id, a.amount, a.currency)
            try:
                message_id = mailer.send(inv.key("notify"), "x@example.com", "done")
            except ToolError:
                message_id = "not sent"
            return {"refund_id": refund_id, "message_id": message_id}

        return ToolContract("refund_and_notify", input_model=RefundArgs,
                            output_model=m02.RefundNotifyReceipt, handler=both,
                            effect=EffectClass.KEYED, scope=m02.SCOPE)

    assert m02.check_partial(swallow)


def test_reading_an_invalid_output_as_no_effect_loses_effect_status() -> None:
    def wrong(kind: str | None, error: dict[str, Any] | None) -> str:
        if kind == "tool_error" and (error or {}).get("type") != "PartialEffect":
            return "none"
        return effect_status(kind, error)

    failures = m02.check_effect_status(wrong)
    assert len(failures) == 1 and "bad output" in failures[0]


def test_reading_an_intent_without_outcome_as_nothing_loses_effect_status() -> None:
    failures = m02.check_effect_status(lambda k, e: "none" if k is None else effect_status(k, e))
    assert any("intent with no outcome" in f for f in failures)


def test_a_fresh_key_per_attempt_loses_the_crash_sweep() -> None:
    failures = m02.check_crash(lambda c, p: make_refund(c, p, fresh_key=True))
    assert any("duplicate" in f for f in failures)


# -- the grader's world -----------------------------------------------------------------------

def test_payments_refund_is_idempotent_by_key(tmp_path: Any) -> None:
    p = m02.Payments(tmp_path / "p.sqlite")
    first = p.refund("k1", "ch_1", 100, "EUR")
    assert p.refund("k1", "ch_1", 100, "EUR") == first and len(p.refunds()) == 1


def test_payments_ledger_survives_reopening(tmp_path: Any) -> None:
    m02.Payments(tmp_path / "p.sqlite").refund("k1", "ch_1", 100, "EUR")
    assert [r["key"] for r in m02.Payments(tmp_path / "p.sqlite").refunds()] == ["k1"]


def test_payments_refuses_a_key_reused_with_other_parameters(tmp_path: Any) -> None:
    p = m02.Payments(tmp_path / "p.sqlite")
    p.refund("k1", "ch_1", 100, "EUR")
    with pytest.raises(ToolError):
        p.refund("k1", "ch_1", 200, "EUR")


def test_outcome_records_come_from_real_runs() -> None:
    records = {case: (kind, (err or {}).get("type")) for case, kind, err in m02.outcome_records()}
    assert records == {
        "refused call": ("tool_rejected", "DomainViolation"),
        "refund done": ("tool_result", None),
        "refund done, bad output": ("tool_error", "OutputInvalid"),
        "refund done, mail refused": ("tool_error", "PartialEffect"),
        "refund declined": ("tool_error", "ToolError"),
        "crash after the provider committed": (None, None),
    }
    assert set(m02.EXPECTED_STATUS) == set(records)


def test_partial_effect_in_the_records_round_trips() -> None:
    from minirt.errors import from_record

    err = next(e for c, k, e in m02.outcome_records() if c == "refund done, mail refused")
    assert type(from_record(err)) is PartialEffect and GATES[0] == "schema"


def test_learner_api_lists_only_helpers_that_exist_and_not_the_answer() -> None:
    from minirt_course.grading import m02 as grading

    assert grading.LEARNER_API and all(hasattr(grading, n) for n in grading.LEARNER_API)
    assert not [n for n in grading.LEARNER_API if n.startswith(("check_", "_", "actual"))]
    assert not [n for n in grading.LEARNER_API if n.startswith("reference")]


def test_the_prepare_property_probes_1024_against_1025_bytes() -> None:
    from minirt.contracts import Limits
    from minirt_course.grading import m02 as grading

    def loose(charges, payments):
        tool = grading.reference_refund(charges, payments)
        tool.limits = Limits(max_payload_bytes=1025)
        return tool

    failures = grading.check_prepare_properties(loose, "limits", ("LimitExceeded", "accepted"))
    assert failures and failures[0].startswith("[limits]") and "1025 canonical bytes" in failures[0]


def test_a_payments_ledger_of_its_own_is_removed_with_it() -> None:
    """A Payments made without a path keeps its ledger in a temporary folder of its own, removed
    when the object goes (the grader's property checks make hundreds: they used to pile up in
    /tmp, 350,000 folders after a day of test runs)."""
    import gc
    from pathlib import Path

    from minirt_course.grading.m02 import Payments

    pay = Payments()
    pay.refund("k1", "ch_1", 100, "EUR")
    folder = Path(pay.path).parent
    assert folder.is_dir() and pay.refunds()[0]["refund_id"] == "re_1"
    del pay
    gc.collect()
    assert not folder.exists()
