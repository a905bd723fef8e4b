"""The outside world: ledgers, Stripe-like idempotency, email, booking, faults, HTTP, processes."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from minirt.clock import FakeClock
from minirt.idempotency import Delivery, EffectLedger
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, OutcomeUnknown, ToolCall
from minirt.world import (
    BookingProvider,
    CardDeclined,
    ChargeAlreadyRefunded,
    EmailProvider,
    IdempotencyKeyReused,
    InvalidRequest,
    Ledger,
    NotFound,
    PaymentProvider,
    ProviderUnavailable,
    RequestTimedOut,
    ResponseLost,
    book_tool,
    cancel_booking_tool,
    charge_tool,
    email_tool,
    refund_tool,
)
from minirt.world.errors import UnknownFault
from minirt.world.http import (
    BookingClient,
    EmailClient,
    PaymentClient,
    serve,
    spawn_world,
)
from minirt.world.ledger import LedgerUnreadable

DAY = 86_400.0


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_700_000_000.0)


@pytest.fixture
def pay(tmp_path: Path, clock: FakeClock):
    p = PaymentProvider(tmp_path / "payments.sqlite", clock)
    yield p
    p.close()


@pytest.fixture
def mail(tmp_path: Path, clock: FakeClock):
    p = EmailProvider(tmp_path / "email.sqlite", clock)
    yield p
    p.close()


@pytest.fixture
def books(tmp_path: Path, clock: FakeClock):
    p = BookingProvider(tmp_path / "booking.sqlite", clock)
    yield p
    p.close()


# -- ledger -----------------------------------------------------------------------------------

def test_ledger_counts_by_key_and_kind(pay: PaymentProvider) -> None:
    ch = pay.charge("k1", 100, "eur", "cus_a")
    pay.refund(ch["charge_id"], "k2")
    assert (pay.count("k1"), pay.count("k1", "charge"), pay.count("k1", "refund")) == (1, 1, 0)
    assert pay.count("k2", "refund") == 1 and pay.count("nope") == 0


def test_ledger_lists_effects_in_order_with_params(pay: PaymentProvider) -> None:
    pay.charge("k1", 100, "eur", "cus_a")
    pay.charge("k2", 200, "usd", "cus_b")
    rows = pay.effects("charge")
    assert [r["effect_id"] for r in rows] == ["ch_000001", "ch_000002"]
    assert rows[1]["params"] == {"amount_cents": 200, "currency": "usd", "customer": "cus_b"}
    assert rows[0]["status"] == "succeeded" and rows[0]["effect_key"] == "k1"


def test_ledger_survives_reopen(tmp_path: Path, clock: FakeClock) -> None:
    p = PaymentProvider(tmp_path / "p.sqlite", clock)
    receipt = p.charge("k1", 100, "eur", "cus_a")
    p.close()
    again = PaymentProvider(tmp_path / "p.sqlite", clock)
    assert again.count("k1") == 1 and again.charge("k1", 100, "eur", "cus_a") == receipt
    assert again.count("k1") == 1
    again.close()


def test_ledger_and_provider_implement_the_effect_ledger_protocol(pay: PaymentProvider) -> None:
    assert isinstance(pay.ledger, EffectLedger) and isinstance(pay, EffectLedger)


def test_a_file_that_is_not_a_ledger_gets_a_named_error(tmp_path: Path) -> None:
    bad = tmp_path / "not.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(LedgerUnreadable):
        Ledger(bad)


def test_ledger_uses_wal_and_full_sync(tmp_path: Path) -> None:
    led = Ledger(tmp_path / "l.sqlite")
    assert led._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert led._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    led.close()


# -- payments: Stripe-like idempotency --------------------------------------------------------

def test_same_key_same_params_returns_the_same_receipt_and_charges_once(pay) -> None:
    first = pay.charge("k1", 4200, "eur", "cus_a")
    second = pay.charge("k1", 4200, "eur", "cus_a")
    assert second == first and pay.count("k1", "charge") == 1


def test_same_key_other_params_is_refused_and_charges_nothing(pay) -> None:
    pay.charge("k1", 4200, "eur", "cus_a")
    with pytest.raises(IdempotencyKeyReused) as err:
        pay.charge("k1", 9900, "eur", "cus_a")
    assert err.value.idempotency_key == "k1" and "9900" in str(err.value)
    assert len(pay.effects("charge")) == 1


def test_same_key_on_another_endpoint_is_refused(pay) -> None:
    ch = pay.charge("k1", 4200, "eur", "cus_a")
    with pytest.raises(IdempotencyKeyReused):
        pay.refund(ch["charge_id"], "k1")
    assert pay.effects("refund") == []


def test_key_is_kept_until_just_before_retention(pay, clock) -> None:
    first = pay.charge("k1", 4200, "eur", "cus_a")
    clock.advance(DAY - 1)
    assert pay.charge("k1", 4200, "eur", "cus_a") == first and pay.count("k1") == 1


def test_key_reused_after_retention_makes_a_new_charge(pay, clock) -> None:
    first = pay.charge("k1", 4200, "eur", "cus_a")
    clock.advance(DAY)
    second = pay.charge("k1", 4200, "eur", "cus_a")
    assert second["charge_id"] != first["charge_id"] and pay.count("k1", "charge") == 2


def test_lookup_finds_the_saved_receipt_within_retention_only(pay, clock) -> None:
    receipt = pay.charge("k1", 4200, "eur", "cus_a")
    assert pay.lookup("k1") == receipt and pay.lookup("other") is None
    clock.advance(DAY)
    assert pay.lookup("k1") is None


def test_validation_failure_is_not_saved(pay) -> None:
    with pytest.raises(InvalidRequest):
        pay.charge("k1", -5, "eur", "cus_a")
    assert pay.lookup("k1") is None
    assert pay.charge("k1", 500, "eur", "cus_a")["amount"] == 500


def test_key_longer_than_255_characters_is_invalid(pay) -> None:
    with pytest.raises(InvalidRequest, match="255"):
        pay.charge("k" * 256, 500, "eur", "cus_a")


def test_a_decline_is_saved_and_replayed_without_a_charge(pay) -> None:
    for _ in range(2):
        with pytest.raises(CardDeclined):
            pay.charge("k1", 500, "eur", "cus_declined_1")
    assert pay.effects("charge") == [] and pay.lookup("k1")["error"]["type"] == "CardDeclined"


def test_without_a_key_every_call_charges(pay) -> None:
    pay.charge(None, 500, "eur", "cus_a")
    pay.charge(None, 500, "eur", "cus_a")
    assert len(pay.effects("charge")) == 2


def test_refund_with_the_same_key_twice_refunds_once(pay) -> None:
    ch = pay.charge("k1", 500, "eur", "cus_a")
    r1, r2 = pay.refund(ch["charge_id"], "r1"), pay.refund(ch["charge_id"], "r1")
    assert r1 == r2 and pay.count("r1", "refund") == 1
    assert pay.ledger.get(ch["charge_id"])["status"] == "refunded"


def test_second_refund_under_another_key_is_refused(pay) -> None:
    ch = pay.charge("k1", 500, "eur", "cus_a")
    pay.refund(ch["charge_id"], "r1")
    with pytest.raises(ChargeAlreadyRefunded):
        pay.refund(ch["charge_id"], "r2")
    assert len(pay.effects("refund")) == 1


def test_refund_of_an_unknown_charge_is_not_found_and_not_saved(pay) -> None:
    with pytest.raises(NotFound):
        pay.refund("ch_999999", "r1")
    assert pay.lookup("r1") is None


def test_retention_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        PaymentProvider(tmp_path / "p.sqlite", retention_for=0)


def test_prune_deletes_expired_keys_and_is_idempotent(pay, clock) -> None:
    pay.charge("k1", 500, "eur", "cus_a")
    clock.advance(DAY)
    assert (pay.prune(), pay.prune()) == (1, 0)


# -- email and booking ------------------------------------------------------------------------

def test_email_sends_every_time(mail) -> None:
    a = mail.send("ada@example.com", "Hi", "body")
    b = mail.send("ada@example.com", "Hi", "body")
    assert a["message_id"] != b["message_id"] and len(mail.sent_to("ada@example.com")) == 2


def test_email_refuses_a_bad_address(mail) -> None:
    with pytest.raises(InvalidRequest):
        mail.send("not-an-address", "Hi", "body")
    assert mail.effects() == []


def test_email_provider_has_no_lookup(mail) -> None:
    assert not hasattr(mail, "lookup")


def test_book_twice_with_one_client_ref_returns_the_existing_booking(books) -> None:
    a = books.book("ref-1", "room 12", "cus_a")
    b = books.book("ref-1", "room 12", "cus_a")
    assert a == b and books.count("ref-1", "booking") == 1


def test_booking_does_not_compare_parameters_of_a_reused_ref(books) -> None:
    books.book("ref-1", "room 12", "cus_a")
    assert books.book("ref-1", "suite 1", "cus_a")["item"] == "room 12"


def test_booking_lookup_by_client_ref(books) -> None:
    assert books.lookup("ref-1") is None
    made = books.book("ref-1", "room 12", "cus_a")
    assert books.lookup("ref-1") == made and books.get(made["booking_id"]) == made


def test_cancel_twice_records_one_cancellation(books) -> None:
    bk = books.book("ref-1", "room 12", "cus_a")["booking_id"]
    assert books.cancel(bk) == books.cancel(bk) == {"booking_id": bk, "status": "cancelled"}
    assert books.count(bk, "cancellation") == 1 and books.get(bk)["status"] == "cancelled"


def test_cancel_of_an_unknown_booking_is_not_found(books) -> None:
    with pytest.raises(NotFound):
        books.cancel("bk_000404")


# -- injected faults (in-process) -------------------------------------------------------------

def test_drop_response_after_commit_charges_and_raises_an_unknown_outcome(pay) -> None:
    pay.inject("drop_response_after_commit")
    with pytest.raises(ResponseLost) as err:
        pay.charge("k1", 500, "eur", "cus_a")
    assert isinstance(err.value, OutcomeUnknown) and pay.count("k1") == 1


def test_timeout_before_commit_charges_nothing(pay) -> None:
    pay.inject("timeout_before_commit")
    with pytest.raises(RequestTimedOut):
        pay.charge("k1", 500, "eur", "cus_a")
    assert pay.count("k1") == 0 and pay.lookup("k1") is None


def test_error_5xx_charges_nothing_and_is_retryable(pay) -> None:
    pay.inject("error_5xx")
    with pytest.raises(ProviderUnavailable) as err:
        pay.charge("k1", 500, "eur", "cus_a")
    assert err.value.retryable and err.value.status_code == 503 and pay.count("k1") == 0
    assert pay.charge("k1", 500, "eur", "cus_a")["status"] == "succeeded"


def test_slow_moves_the_fake_clock_and_still_answers(pay, clock) -> None:
    before = clock.now()
    pay.inject("slow", delay_for=30.0)
    assert pay.charge("k1", 500, "eur", "cus_a")["created_at"] == before + 30.0


def test_a_fault_fires_times_then_disarms(pay) -> None:
    pay.inject("error_5xx", times=2)
    for _ in range(2):
        with pytest.raises(ProviderUnavailable):
            pay.charge("k1", 500, "eur", "cus_a")
    assert pay.charge("k1", 500, "eur", "cus_a") and pay.faults.armed == []


def test_a_fault_without_op_spares_lookups_and_one_with_op_targets_it(pay) -> None:
    pay.inject("error_5xx")
    assert pay.lookup("k1") is None  # not consumed by the lookup
    pay.inject("error_5xx", op="lookup")
    with pytest.raises(ProviderUnavailable):
        pay.lookup("k1")
    assert len(pay.faults.armed) == 1  # the first one still waits for a charge


def test_an_unknown_fault_is_refused(pay) -> None:
    with pytest.raises(UnknownFault):
        pay.inject("explode")


# -- HTTP on 127.0.0.1 ------------------------------------------------------------------------

@pytest.fixture
def http_pay(pay):
    with serve(pay) as handle:
        yield pay, PaymentClient(handle.url, timeout=2.0)


def test_http_charge_round_trip_and_lookup(http_pay) -> None:
    pay, client = http_pay
    receipt = client.charge("k1", 4200, "eur", "cus_a")
    assert client.charge("k1", 4200, "eur", "cus_a") == receipt == client.lookup("k1")
    assert client.lookup("nope") is None and client.retention_for == DAY
    assert pay.count("k1") == 1 == client.count("k1", "charge")
    assert [e["effect_id"] for e in client.effects("charge")] == [receipt["charge_id"]]


def test_http_key_mismatch_comes_back_as_the_named_error(http_pay) -> None:
    _, client = http_pay
    client.charge("k1", 4200, "eur", "cus_a")
    with pytest.raises(IdempotencyKeyReused) as err:
        client.charge("k1", 1, "eur", "cus_a")
    assert err.value.idempotency_key == "k1"


def test_http_dropped_response_is_an_unknown_outcome_and_the_charge_happened(http_pay) -> None:
    pay, client = http_pay
    client.inject("drop_response_after_commit")
    with pytest.raises(ResponseLost):
        client.charge("k1", 4200, "eur", "cus_a")
    assert pay.count("k1") == 1 and client.lookup("k1")["amount"] == 4200


def test_http_timeout_before_commit_is_an_unknown_outcome_and_nothing_happened(pay) -> None:
    with serve(pay) as handle:
        client = PaymentClient(handle.url, timeout=0.2)
        client.inject("timeout_before_commit", delay_for=0.4)
        with pytest.raises(RequestTimedOut):
            client.charge("k1", 4200, "eur", "cus_a")
        assert pay.count("k1") == 0


def test_http_slow_answer_times_out_but_the_charge_happens(pay) -> None:
    with serve(pay) as handle:
        client = PaymentClient(handle.url, timeout=0.2)
        client.inject("slow", delay_for=0.4)
        with pytest.raises(RequestTimedOut):
            client.charge("k1", 4200, "eur", "cus_a")
        handle.stop()  # waits for the slow request to finish
    assert pay.count("k1") == 1


def test_http_5xx_is_provider_unavailable(http_pay) -> None:
    pay, client = http_pay
    client.inject("error_5xx")
    with pytest.raises(ProviderUnavailable) as err:
        client.charge("k1", 4200, "eur", "cus_a")
    assert err.value.status_code == 503 and pay.count("k1") == 0


def test_http_connection_refused_is_unavailable_with_status_0(pay) -> None:
    handle = serve(pay)
    url = handle.url
    handle.stop()
    with pytest.raises(ProviderUnavailable) as err:
        PaymentClient(url, timeout=1.0).charge("k1", 4200, "eur", "cus_a")
    assert err.value.status_code == 0


def test_http_email_and_booking_round_trip(mail, books) -> None:
    with serve(mail) as m, serve(books) as b:
        em, bk = EmailClient(m.url), BookingClient(b.url)
        assert em.send("ada@example.com", "Hi", "x")["status"] == "sent"
        made = bk.book("ref-1", "room 12", "cus_a")
        assert bk.book("ref-1", "room 12", "cus_a") == made == bk.lookup("ref-1")
        assert bk.cancel(made["booking_id"])["status"] == "cancelled"
        assert bk.get(made["booking_id"])["status"] == "cancelled"
    assert len(mail.effects("email")) == 1 and books.count("ref-1", "booking") == 1


def test_http_server_writes_nothing_to_stderr(pay, capfd) -> None:
    with serve(pay) as handle:
        client = PaymentClient(handle.url, timeout=2.0)
        client.charge("k1", 4200, "eur", "cus_a")
        client.inject("drop_response_after_commit")
        with pytest.raises(ResponseLost):
            client.charge("k2", 4200, "eur", "cus_a")
        with pytest.raises(InvalidRequest):
            client._call("GET", "/v1/nowhere", op="nowhere")
    assert capfd.readouterr().err == ""


def test_world_process_killed_and_restarted_keeps_its_ledger_and_keys(tmp_path: Path) -> None:
    ledger = tmp_path / "payments.sqlite"
    world = spawn_world(tmp_path / "urls.json", payments=ledger)
    receipt = PaymentClient(world.urls["payments"]).charge("k1", 4200, "eur", "cus_a")
    os.kill(world.pid, signal.SIGKILL)
    world.proc.wait(timeout=10)
    assert world.proc.returncode == -signal.SIGKILL
    with spawn_world(tmp_path / "urls.json", payments=ledger) as again:
        client = PaymentClient(again.urls["payments"])
        assert client.charge("k1", 4200, "eur", "cus_a") == receipt == client.lookup("k1")
        assert client.count("k1", "charge") == 1


# -- tools over the providers -----------------------------------------------------------------

def _call(tool_name: str, args: dict, key: str = "ek_test", attempt: int = 1) -> ToolCall:
    return ToolCall("run-1", 1, tool_name, args, key, attempt)


def test_charge_tool_sends_the_effect_key_on_every_attempt(pay) -> None:
    t = charge_tool(pay)
    args = t.prepare({"amount_cents": 500, "currency": "eur", "customer": "cus_a"}, frozenset())
    first = t.invoke(_call("charge", args))
    assert t.invoke(_call("charge", args, attempt=2)) == first
    assert list(t.sent_keys) == ["ek_test", "ek_test"] and pay.count("ek_test") == 1
    assert t.effect is EffectClass.KEYED and t.retention_for == DAY
    assert t.lookup(_call("charge", args)).result == first


def test_charge_tool_with_per_attempt_random_keys_charges_per_attempt(pay) -> None:
    t = charge_tool(pay, per_attempt_random_keys=True)
    args = t.prepare({"amount_cents": 500, "currency": "eur", "customer": "cus_a"}, frozenset())
    t.invoke(_call("charge", args))
    t.invoke(_call("charge", args, attempt=2))
    assert len(set(t.sent_keys)) == 2 and len(pay.effects("charge")) == 2
    assert not t.lookup(_call("charge", args)).found


def test_tools_report_silences_and_5xx_as_unknown_outcomes(pay) -> None:
    t = charge_tool(pay)
    args = t.prepare({"amount_cents": 500, "currency": "eur", "customer": "cus_a"}, frozenset())
    for fault in ("error_5xx", "timeout_before_commit", "drop_response_after_commit"):
        pay.inject(fault)
        with pytest.raises(OutcomeUnknown) as err:
            t.invoke(_call("charge", args))
        assert type(err.value) is OutcomeUnknown and err.value.tool == "charge"


def test_charge_tool_journals_a_provider_refusal_as_the_named_error(tmp_path, pay, clock) -> None:
    def agent(ctx, _):
        return ctx.call_tool("charge", amount_cents=500, currency="eur", customer="cus_declined")

    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=[charge_tool(pay)],
                 workflows={"agent": agent}, clock=clock)
    out = rt.run_workflow("agent", None, run_id="r1")
    assert type(out.error) is CardDeclined and pay.effects("charge") == []
    rt.close()


def test_email_tool_has_no_lookup_and_carries_its_delivery_decision(mail) -> None:
    t = email_tool(mail, delivery="at-most-once")
    assert not t.has_lookup and t.effect is EffectClass.IRREVERSIBLE
    assert t.delivery is Delivery.AT_MOST_ONCE and email_tool(mail).delivery is None


def test_book_tool_uses_the_effect_key_as_client_ref(books) -> None:
    t = book_tool(books)
    args = t.prepare({"item": "room 12", "customer": "cus_a"}, frozenset())
    made = t.invoke(_call("book", args, key="ek_b"))
    assert made["client_ref"] == "ek_b" and t.lookup(_call("book", args, key="ek_b")).found
    assert t.retention_for is None


def test_cancel_and_refund_tools_look_their_effects_up(pay, books) -> None:
    bk = books.book("ref-1", "room 12", "cus_a")["booking_id"]
    cancel = cancel_booking_tool(books)
    call = _call("cancel_booking", {"booking_id": bk})
    assert not cancel.lookup(call).found
    cancel.invoke(call)
    assert cancel.lookup(call).result == {"booking_id": bk, "status": "cancelled"}
    ch = pay.charge("k1", 500, "eur", "cus_a")["charge_id"]
    refund = refund_tool(pay)
    rcall = _call("refund", {"charge_id": ch}, key="ek_r")
    assert not refund.lookup(rcall).found
    assert refund.invoke(rcall) == refund.lookup(rcall).result
