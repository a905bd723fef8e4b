"""Tests for minirt.contracts: each gate, their order, partial effects, output validation after
the effect, and a contract inside a Runtime on a SQLite store (journal, replay, crash)."""

from __future__ import annotations

import math
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, field_validator

from minirt.clock import FakeClock
from minirt.contracts import (
    GATES,
    MAX_DEPTH,
    ContractError,
    DomainViolation,
    Invocation,
    LimitExceeded,
    Limits,
    NotAuthorized,
    OutputInvalid,
    PartialEffect,
    PartialEffectReport,
    SchemaViolation,
    ToolContract,
    constraint,
    gate_of,
)
from minirt.errors import ToolError, from_record
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.run import RunState
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, OutcomeUnknown, Tool, ToolCall

SCOPE = "accounts:acc-1:debit"
GOOD = {"from_account": "acc-1", "to_account": "acc-2", "amount": 10, "currency": "EUR"}


class TransferArgs(BaseModel):
    from_account: str
    to_account: str
    amount: int  # minor units (cents)
    currency: str
    memo: str = ""


class TransferReceipt(BaseModel):
    debit_id: str
    credit_id: str


class Bank:
    """A tiny provider with its own ledger: debits and credits keyed by idempotency key."""

    def __init__(self, fail_credit: bool = False) -> None:
        self.accounts = {"acc-1": {"currency": "EUR", "balance": 100},
                         "acc-2": {"currency": "EUR", "balance": 0},
                         "acc-9": {"currency": "USD", "balance": 50}}
        self.ledger: dict[str, dict[str, Any]] = {}
        self.fail_credit = fail_credit
        self.calls = 0

    def post(self, key: str, account: str, delta: int) -> str:
        if key not in self.ledger:
            self.ledger[key] = {"account": account, "delta": delta}
            self.accounts[account]["balance"] += delta
        return "tx_" + key[-10:]


@constraint("positive_amount", field="amount", message="amount must be above 0")
def positive_amount(args: TransferArgs, ctx: Any) -> bool:
    return args.amount > 0


@constraint("currency_matches", field="currency")
def currency_matches(args: TransferArgs, ctx: Any) -> bool | str:
    acct = ctx["accounts"].get(args.from_account)
    if acct is None:
        return f"no account {args.from_account}"
    return args.currency == acct["currency"] or f"{args.from_account} holds {acct['currency']}"


def make_transfer(bank: Bank, *, output_model: type[BaseModel] | None = TransferReceipt,
                  handler: Any = None, max_payload_bytes: int = 4096) -> ToolContract:
    def transfer(args: TransferArgs, inv: Invocation) -> dict[str, str]:
        bank.calls += 1
        debit = bank.post(inv.key("debit"), args.from_account, -args.amount)
        inv.happened("debit", {"tx": debit})
        if bank.fail_credit:
            raise ToolError(tool="transfer", reason="credit refused by the bank")
        credit = bank.post(inv.key("credit"), args.to_account, args.amount)
        inv.happened("credit", {"tx": credit})
        return {"debit_id": debit, "credit_id": credit}

    return ToolContract("transfer", input_model=TransferArgs, output_model=output_model,
                        handler=handler or transfer, effect=EffectClass.COMPENSATABLE,
                        constraints=[positive_amount, currency_matches],
                        scope="accounts:{from_account}:debit",
                        limits=Limits(max_payload_bytes=max_payload_bytes),
                        context=lambda: {"accounts": bank.accounts},
                        sub_effects=("debit", "credit"))


@pytest.fixture
def bank() -> Bank:
    return Bank()


@pytest.fixture
def transfer(bank: Bank) -> ToolContract:
    return make_transfer(bank)


def call_for(contract: ToolContract, args: dict[str, Any], *, attempt: int = 1) -> ToolCall:
    prepared = contract.prepare(args, frozenset({SCOPE}))
    return ToolCall("run-1", 0, contract.name, prepared, "ek_test", attempt)


def rejected(contract: ToolContract, args: Any, scopes: Any = frozenset({SCOPE})) -> ContractError:
    with pytest.raises(ContractError) as info:
        contract.prepare(args, frozenset(scopes))
    return info.value


# -- the contract is a Tool -----------------------------------------------------------------------

def test_contract_implements_the_tool_protocol(transfer: ToolContract) -> None:
    assert isinstance(transfer, Tool)
    assert transfer.effect is EffectClass.COMPENSATABLE


def test_good_arguments_pass_every_gate_and_come_back_canonical(transfer: ToolContract) -> None:
    assert transfer.prepare(GOOD, frozenset({SCOPE})) == {**GOOD, "memo": ""}


def test_prepare_is_idempotent(transfer: ToolContract) -> None:
    first = transfer.prepare(GOOD, frozenset({SCOPE}))
    assert transfer.prepare(GOOD, frozenset({SCOPE})) == first


# -- gate 1: schema -------------------------------------------------------------------------------

def test_schema_refuses_a_string_amount(transfer: ToolContract) -> None:
    err = rejected(transfer, {**GOOD, "amount": "10"})
    assert type(err) is SchemaViolation and err.field == "amount"


def test_schema_is_strict_about_a_float_for_an_integer(transfer: ToolContract) -> None:
    assert type(rejected(transfer, {**GOOD, "amount": 10.0})) is SchemaViolation


def test_schema_refuses_a_boolean_for_an_integer(transfer: ToolContract) -> None:
    assert rejected(transfer, {**GOOD, "amount": True}).field == "amount"


def test_schema_refuses_an_extra_field(transfer: ToolContract) -> None:
    err = rejected(transfer, {**GOOD, "priority": "high"})
    assert type(err) is SchemaViolation and err.field == "priority"


def test_schema_refuses_a_missing_field(transfer: ToolContract) -> None:
    args = dict(GOOD)
    del args["currency"]
    assert rejected(transfer, args).field == "currency"


@pytest.mark.parametrize("args", [[GOOD], "transfer 10 EUR", None, 10, b"{}"])
def test_schema_refuses_arguments_that_are_not_an_object(transfer: ToolContract, args: Any) -> None:
    err = rejected(transfer, args)
    assert type(err) is SchemaViolation and err.field == "$"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_schema_refuses_nan_and_infinities(transfer: ToolContract, bad: float) -> None:
    err = rejected(transfer, {**GOOD, "amount": bad})
    assert type(err) is SchemaViolation and err.field == "amount"


def test_schema_refuses_a_lone_surrogate(transfer: ToolContract) -> None:
    assert rejected(transfer, {**GOOD, "memo": "a\ud800b"}).field == "memo"


def test_schema_refuses_an_integer_beyond_64_bits(transfer: ToolContract) -> None:
    assert rejected(transfer, {**GOOD, "amount": 10**30}).field == "amount"


def test_schema_refuses_deep_nesting_without_recursion_error(transfer: ToolContract) -> None:
    deep: Any = 1
    for _ in range(10_000):
        deep = [deep]
    err = rejected(transfer, {**GOOD, "memo": deep})
    assert type(err) is SchemaViolation and str(MAX_DEPTH) in err.reason


def test_schema_normalises_unicode_to_nfc(transfer: ToolContract) -> None:
    decomposed = unicodedata.normalize("NFD", "café")
    prepared = transfer.prepare({**GOOD, "memo": decomposed}, frozenset({SCOPE}))
    assert prepared["memo"] == unicodedata.normalize("NFC", "café")


class Leg(BaseModel):
    account: str
    amount: int


class Batch(BaseModel):
    legs: list[Leg]


def test_schema_field_is_a_dotted_path_into_nested_arguments() -> None:
    c = ToolContract("batch", input_model=Batch, handler=lambda a, inv: {})
    err = rejected(c, {"legs": [{"account": "a", "amount": 1}, {"account": "b", "amount": "2"}]})
    assert err.field == "legs.1.amount"


class Picky(BaseModel):
    code: str

    @field_validator("code")
    @classmethod
    def explode(cls, v: str) -> str:
        if v == "boom":
            raise TypeError("validator bug")
        return v


def test_schema_turns_a_validator_type_error_into_a_schema_violation() -> None:
    c = ToolContract("picky", input_model=Picky, handler=lambda a, inv: {})
    assert type(rejected(c, {"code": "boom"})) is SchemaViolation


# -- gate 2: domain -------------------------------------------------------------------------------

def test_domain_refuses_a_negative_amount(transfer: ToolContract) -> None:
    err = rejected(transfer, {**GOOD, "amount": -5})
    assert type(err) is DomainViolation
    assert (err.constraint, err.field, err.reason) == ("positive_amount", "amount",
                                                       "amount must be above 0")


def test_domain_refuses_a_currency_the_account_does_not_hold(transfer: ToolContract) -> None:
    err = rejected(transfer, {**GOOD, "currency": "USD"})
    assert type(err) is DomainViolation and err.reason == "acc-1 holds EUR"


def test_domain_reads_the_context_on_every_call(bank: Bank, transfer: ToolContract) -> None:
    assert transfer.rejection(GOOD, {SCOPE}) is None
    bank.accounts["acc-1"]["currency"] = "CHF"
    assert isinstance(transfer.rejection(GOOD, {SCOPE}), DomainViolation)


def test_domain_reports_the_first_constraint_in_order(transfer: ToolContract) -> None:
    err = rejected(transfer, {**GOOD, "amount": 0, "currency": "USD"})
    assert err.constraint == "positive_amount"


def test_domain_constraint_that_raises_is_a_violation_not_a_crash() -> None:
    @constraint("known_account", field="from_account")
    def known(args: TransferArgs, ctx: Any) -> bool:
        return ctx["accounts"][args.from_account] is not None  # KeyError for unknown accounts

    c = ToolContract("t", input_model=TransferArgs, handler=lambda a, inv: {},
                     constraints=[known], context={"accounts": {}})
    err = rejected(c, GOOD)
    assert type(err) is DomainViolation and "KeyError" in err.reason


# -- gate 3: authorization ------------------------------------------------------------------------

def test_authorization_refuses_an_account_the_run_has_no_scope_for(
        transfer: ToolContract) -> None:
    err = rejected(transfer, GOOD, scopes={"accounts:acc-2:debit"})
    assert type(err) is NotAuthorized
    assert (err.scope, err.field) == ("accounts:acc-1:debit", "from_account")


def test_authorization_fixed_scope_reports_the_whole_call() -> None:
    c = ToolContract("refund", input_model=Leg, handler=lambda a, inv: {}, scope="payments:refund")
    err = rejected(c, {"account": "a", "amount": 1}, scopes=set())
    assert (err.scope, err.field) == ("payments:refund", "$")
    assert c.rejection({"account": "a", "amount": 1}, {"payments:refund"}) is None


# -- gate 4: limits -------------------------------------------------------------------------------

def test_limits_refuse_a_payload_above_the_maximum(transfer: ToolContract) -> None:
    err = rejected(transfer, {**GOOD, "memo": "x" * 2_000_000})
    assert type(err) is LimitExceeded and err.field == "payload_bytes"
    assert err.limit == 4096 and err.actual > 2_000_000


def test_limits_accept_a_payload_exactly_at_the_maximum(bank: Bank) -> None:
    size = len(b'{"amount":10,"currency":"EUR","from_account":"acc-1","memo":"","to_account":"acc-2"}')
    c = make_transfer(bank, max_payload_bytes=size + 5)
    assert c.rejection({**GOOD, "memo": "12345"}, {SCOPE}) is None
    assert isinstance(c.rejection({**GOOD, "memo": "123456"}, {SCOPE}), LimitExceeded)


# -- the order ------------------------------------------------------------------------------------

def test_a_malformed_unauthorized_call_is_reported_at_schema(transfer: ToolContract) -> None:
    assert type(rejected(transfer, {**GOOD, "amount": "10"}, scopes=set())) is SchemaViolation


def test_a_domain_breaking_unauthorized_call_is_reported_at_domain(
        transfer: ToolContract) -> None:
    assert type(rejected(transfer, {**GOOD, "amount": -1}, scopes=set())) is DomainViolation


def test_an_unauthorized_oversized_call_is_reported_at_authorization(
        transfer: ToolContract) -> None:
    big = {**GOOD, "memo": "x" * 10_000}
    assert type(rejected(transfer, big, scopes=set())) is NotAuthorized


def test_gate_attribute_follows_the_documented_order() -> None:
    gates = [SchemaViolation.gate, DomainViolation.gate, NotAuthorized.gate, LimitExceeded.gate]
    assert tuple(gates) == GATES
    assert OutputInvalid.gate == "output" and gate_of(PartialEffect(
        tool="t", reason="r", happened=[], not_happened=[], unknown=[])) == "dispatch"


def test_prepare_never_calls_the_handler(bank: Bank, transfer: ToolContract) -> None:
    for args in (GOOD, {**GOOD, "amount": "1"}, {**GOOD, "amount": -1}, {**GOOD, "memo": "x" * 9000}):
        transfer.rejection(args, {SCOPE})
    transfer.rejection(GOOD, set())
    assert bank.calls == 0 and bank.ledger == {}


# -- the errors round trip ------------------------------------------------------------------------

@pytest.mark.parametrize("args,scopes", [({**GOOD, "amount": "1"}, {SCOPE}),
                                         ({**GOOD, "amount": -1}, {SCOPE}),
                                         (GOOD, set()),
                                         ({**GOOD, "memo": "x" * 9000}, {SCOPE})])
def test_every_gate_error_round_trips_through_a_record(transfer: ToolContract, args: Any,
                                                       scopes: set[str]) -> None:
    err = transfer.rejection(args, scopes)
    back = from_record(err.to_record())
    assert type(back) is type(err) and back.attrs == err.attrs and str(back) == str(err)


def test_output_invalid_round_trips_with_effect_happened() -> None:
    err = OutputInvalid(tool="t", field="id", reason="missing", effect_key="ek_1",
                        effect_happened=True, output_digest="sha256:00")
    back = from_record(err.to_record())
    assert type(back) is OutputInvalid and back.effect_happened is True


def test_message_is_built_from_the_fields(transfer: ToolContract) -> None:
    err = transfer.rejection(GOOD, set())
    assert str(err) == ("'transfer' needs scope 'accounts:acc-1:debit' (from_account): "
                        "the run does not hold this scope")


# -- dispatch: partial effects --------------------------------------------------------------------

def test_failure_after_a_sub_effect_raises_a_partial_effect_with_its_receipt(bank: Bank) -> None:
    bank.fail_credit = True
    c = make_transfer(bank)
    with pytest.raises(PartialEffect) as info:
        c.invoke(call_for(c, GOOD))
    err = info.value
    assert [h["name"] for h in err.happened] == ["debit"]
    assert err.receipts["debit"] == {"tx": "tx_" + "ek_test:debit"[-10:]}
    assert (err.not_happened, err.unknown) == (["credit"], [])
    assert len(bank.ledger) == 1


def test_a_tool_error_before_any_sub_effect_stays_a_plain_tool_error() -> None:
    def refuse(args: Any, inv: Invocation) -> Any:
        raise ToolError(tool="transfer", reason="account frozen")

    c = make_transfer(Bank(), handler=refuse)
    with pytest.raises(ToolError) as info:
        c.invoke(call_for(c, GOOD))
    assert type(info.value) is ToolError


def test_an_unexpected_exception_after_a_sub_effect_leaves_the_next_one_unknown() -> None:
    def flaky(args: Any, inv: Invocation) -> Any:
        inv.happened("debit", {"tx": "d1"})
        raise TimeoutError("no answer from the credit endpoint")

    c = make_transfer(Bank(), handler=flaky)
    with pytest.raises(PartialEffect) as info:
        c.invoke(call_for(c, GOOD))
    assert (info.value.unknown, info.value.not_happened) == (["credit"], [])


def test_a_returned_report_becomes_a_partial_effect() -> None:
    def reporting(args: Any, inv: Invocation) -> Any:
        return PartialEffectReport("credit refused", happened=(("debit", {"tx": "d1"}),),
                                   not_happened=("credit",))

    c = make_transfer(Bank(), handler=reporting)
    with pytest.raises(PartialEffect) as info:
        c.invoke(call_for(c, GOOD))
    assert info.value.report.happened == (("debit", {"tx": "d1"}),)


def test_partial_effect_round_trips_with_its_receipts(bank: Bank) -> None:
    bank.fail_credit = True
    c = make_transfer(bank)
    with pytest.raises(PartialEffect) as info:
        c.invoke(call_for(c, GOOD))
    back = from_record(info.value.to_record())
    assert type(back) is PartialEffect and back.attrs == info.value.attrs
    assert isinstance(back, ToolError)


def test_sub_effect_keys_are_the_same_on_every_attempt() -> None:
    keys = []
    c = make_transfer(Bank(), handler=lambda a, inv: keys.append(inv.key("debit")) or
                      {"debit_id": "d", "credit_id": "c"})
    c.invoke(call_for(c, GOOD, attempt=1))
    c.invoke(call_for(c, GOOD, attempt=2))
    assert keys == ["ek_test:debit", "ek_test:debit"]


def test_an_attempt_above_max_attempts_is_an_unknown_outcome_not_a_failure(bank: Bank) -> None:
    c = make_transfer(bank)
    with pytest.raises(OutcomeUnknown):
        c.invoke(call_for(c, GOOD, attempt=4))
    assert bank.calls == 0


def test_the_handler_gets_a_deadline_from_the_timeout() -> None:
    seen = []
    c = ToolContract("t", input_model=Leg, handler=lambda a, inv: seen.append(inv.deadline_at)
                     or {}, limits=Limits(timeout_s=5), clock=FakeClock(100.0))
    c.invoke(ToolCall("r", 0, "t", c.prepare({"account": "a", "amount": 1}), "ek"))
    assert seen == [105.0]


# -- output validation after the effect -----------------------------------------------------------

def test_an_invalid_output_says_the_effect_happened(bank: Bank) -> None:
    c = make_transfer(bank, handler=lambda a, inv: {"debit_id": "d1"})  # credit_id missing
    with pytest.raises(OutputInvalid) as info:
        c.invoke(call_for(c, GOOD))
    err = info.value
    assert err.effect_happened is True and err.field == "credit_id"
    assert err.output_digest.startswith("sha256:") and err.effect_key == "ek_test"


def test_an_output_that_is_not_json_is_invalid_with_a_repr_digest() -> None:
    c = make_transfer(Bank(), handler=lambda a, inv: {"debit_id": {1, 2}, "credit_id": "c"})
    with pytest.raises(OutputInvalid) as info:
        c.invoke(call_for(c, GOOD))
    assert info.value.output_digest.startswith("repr-sha256:")


def test_a_valid_output_comes_back_as_json_data(bank: Bank, transfer: ToolContract) -> None:
    out = transfer.invoke(call_for(transfer, GOOD))
    assert set(out) == {"debit_id", "credit_id"} and bank.accounts["acc-2"]["balance"] == 10


# -- in a Runtime on a SQLite store ---------------------------------------------------------------

class CountingContract(ToolContract):
    prepared = 0

    def prepare(self, args: Any, scopes: frozenset[str] = frozenset()) -> dict[str, Any]:
        type(self).prepared += 1
        return super().prepare(args, scopes)


def agent(ctx: Any, inp: Any) -> Any:
    """Calls the tool with the arguments from the input; a refusal goes back to the caller."""
    try:
        value = ctx.call_tool("transfer", inp["args"])
        outcome: Any = {"ok": value}
    except (ContractError, ToolError) as exc:
        outcome = exc.to_record()
    ctx.step("after", lambda: "done")
    return outcome


def runtime(path: Path, contract: ToolContract, clock: FakeClock, faults: Any = None,
            scopes: tuple[str, ...] = (SCOPE,)) -> Runtime:
    return Runtime(SQLiteStore(path), tools=[contract], workflows={"agent": agent}, clock=clock,
                   faults=faults, scopes=scopes, worker_id=f"w{clock.now()}")


def kinds(rt: Runtime, run_id: str) -> list[str]:
    return [e.kind for e in rt.store.read(run_id) if e.step is not None]


def test_a_rejected_call_is_journaled_as_tool_rejected_without_an_intent(
        tmp_path: Path, bank: Bank) -> None:
    rt = runtime(tmp_path / "r.sqlite", make_transfer(bank), FakeClock())
    out = rt.run_workflow("agent", {"args": {**GOOD, "amount": "10"}}, run_id="r1")
    assert kinds(rt, "r1") == ["tool_rejected", "step"]
    assert out.value["type"] == "SchemaViolation" and bank.calls == 0
    rt.close()


def test_replay_raises_the_recorded_rejection_without_calling_prepare_or_the_handler(
        tmp_path: Path, bank: Bank) -> None:
    CountingContract.prepared = 0
    contract = CountingContract("transfer", input_model=TransferArgs, handler=lambda a, i: {},
                                scope="accounts:{from_account}:debit")
    clock = FakeClock()
    rt = runtime(tmp_path / "r.sqlite", contract, clock, FaultPlan(crash_at="before_complete"),
                 scopes=())
    with pytest.raises(SimulatedCrash):
        rt.run_workflow("agent", {"args": GOOD}, run_id="r1")
    rt.close()
    clock.advance(60)
    rt2 = runtime(tmp_path / "r.sqlite", contract, clock, scopes=())  # reopened, new worker
    out = rt2.resume("r1")
    first = from_record(out.value)
    assert type(first) is NotAuthorized and first.scope == SCOPE
    assert CountingContract.prepared == 1 and kinds(rt2, "r1").count("tool_rejected") == 1
    rt2.close()


def test_a_partial_effect_is_the_recorded_outcome_and_replays_with_its_receipt(
        tmp_path: Path) -> None:
    bank = Bank(fail_credit=True)
    clock = FakeClock()
    rt = runtime(tmp_path / "r.sqlite", make_transfer(bank), clock,
                 FaultPlan(crash_at="after_step_record"))
    with pytest.raises(SimulatedCrash):
        rt.run_workflow("agent", {"args": GOOD}, run_id="r1")
    rt.close()
    clock.advance(60)
    rt2 = runtime(tmp_path / "r.sqlite", make_transfer(bank), clock)
    back = from_record(rt2.resume("r1").value)
    assert type(back) is PartialEffect and list(back.receipts) == ["debit"]
    assert kinds(rt2, "r1") == ["intent", "tool_error", "step"]
    assert bank.calls == 1 and len(bank.ledger) == 1
    rt2.close()


def test_an_invalid_output_is_recorded_as_an_effect_that_happened(tmp_path: Path,
                                                                   bank: Bank) -> None:
    c = make_transfer(bank, output_model=TransferReceipt)
    c.handler = lambda a, inv: bank.post(inv.key("debit"), "acc-1", -a.amount) and {"oops": 1}
    rt = runtime(tmp_path / "r.sqlite", c, FakeClock())
    out = rt.run_workflow("agent", {"args": GOOD}, run_id="r1")
    err = from_record(out.value)
    assert type(err) is OutputInvalid and err.effect_happened is True
    assert kinds(rt, "r1")[:2] == ["intent", "tool_error"] and len(bank.ledger) == 1
    rt.close()


def test_a_crash_after_the_provider_commit_of_a_partial_tool_leaves_the_run_uncertain(
        tmp_path: Path) -> None:
    bank = Bank(fail_credit=True)
    clock = FakeClock()
    rt = runtime(tmp_path / "r.sqlite", make_transfer(bank), clock,
                 FaultPlan(crash_at="after_provider_commit"))
    with pytest.raises(SimulatedCrash):
        rt.run_workflow("agent", {"args": GOOD}, run_id="r1")
    rt.close()
    clock.advance(60)
    rt2 = runtime(tmp_path / "r.sqlite", make_transfer(bank), clock)
    out = rt2.resume("r1")
    assert out.state is RunState.UNCERTAIN  # not FAILED as if nothing happened, not re-sent
    assert kinds(rt2, "r1")[0] == "intent" and "tool_error" not in kinds(rt2, "r1")
    assert bank.calls == 1 and len(bank.ledger) == 1
    rt2.close()


# -- fuzzing: nothing but a ContractError ever leaves the gate ------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)
near_schema = st.dictionaries(
    st.sampled_from([*TransferArgs.model_fields, "extra"]) | st.text(max_size=5),
    json_values | st.sampled_from(["acc-1", "EUR", "USD", 10, -1, 0]), max_size=7)
python_objects = st.one_of(st.sets(st.integers(), max_size=3), st.binary(max_size=5),
                           st.builds(object), st.complex_numbers(), st.frozensets(st.text()))
FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


def assert_gate_contained(contract: ToolContract, value: Any) -> None:
    try:
        out = contract.prepare(value, frozenset({SCOPE}))
    except ContractError as exc:
        assert type(exc).gate in GATES and isinstance(exc.reason, str)
        assert type(from_record(exc.to_record())) is type(exc)
    else:
        assert TransferArgs.model_validate(out).model_dump(mode="json") == out


@FUZZ
@given(json_values)
def test_fuzz_any_json_value_is_args_or_a_contract_error(value: Any) -> None:
    assert_gate_contained(make_transfer(Bank()), value)


@FUZZ
@given(near_schema)
def test_fuzz_dicts_near_the_schema_are_args_or_a_contract_error(value: Any) -> None:
    assert_gate_contained(make_transfer(Bank()), value)


@FUZZ
@given(st.text())
def test_fuzz_text_is_a_schema_violation(value: str) -> None:
    assert type(make_transfer(Bank()).rejection(value, {SCOPE})) is SchemaViolation


@FUZZ
@given(st.dictionaries(st.sampled_from(list(GOOD)), python_objects, min_size=1))
def test_fuzz_python_objects_in_arguments_are_schema_violations(value: dict[str, Any]) -> None:
    assert type(make_transfer(Bank()).rejection({**GOOD, **value}, {SCOPE})) is SchemaViolation


def test_only_gate_refusals_count_as_before_dispatch(transfer: ToolContract) -> None:
    assert transfer.rejection(GOOD, set()).before_dispatch is True
    err = OutputInvalid(tool="t", field="$", reason="r", effect_key="ek", effect_happened=True,
                        output_digest="sha256:0")
    assert err.before_dispatch is False


def test_a_receipt_that_is_not_json_still_records_the_sub_effect() -> None:
    def odd(args: Any, inv: Invocation) -> Any:
        inv.happened("debit", object())
        raise ToolError(tool="transfer", reason="credit refused")

    c = make_transfer(Bank(), handler=odd)
    with pytest.raises(PartialEffect) as info:
        c.invoke(call_for(c, GOOD))
    assert list(info.value.receipts) == ["debit"] and "repr" in info.value.receipts["debit"]


def test_a_report_rebuilt_from_names_only_still_lists_them() -> None:
    err = PartialEffect(tool="t", reason="r", happened=["debit"], not_happened=[], unknown=[])
    assert err.receipts == {"debit": None}


def test_a_constraint_that_returns_nothing_fails_closed() -> None:
    @constraint("forgot_return", field="amount")
    def forgot(args: Any, ctx: Any) -> None:
        args.amount > 0  # noqa: B015 - the bug under test: no return

    c = ToolContract("t", input_model=TransferArgs, handler=lambda a, inv: {},
                     constraints=[forgot])
    assert type(rejected(c, GOOD)) is DomainViolation


def test_a_scope_template_naming_an_unknown_field_is_refused_at_construction() -> None:
    with pytest.raises(ValueError):
        ToolContract("t", input_model=TransferArgs, handler=lambda a, inv: {},
                     scope="accounts:{account_id}:debit")


def test_an_output_validator_bug_is_still_an_effect_that_happened() -> None:
    class Picky(BaseModel):
        debit_id: str

        @field_validator("debit_id")
        @classmethod
        def explode(cls, v: str) -> str:
            raise TypeError("validator bug")

    c = make_transfer(Bank(), output_model=Picky)
    with pytest.raises(OutputInvalid) as info:
        c.invoke(call_for(c, GOOD))
    assert info.value.effect_happened is True
