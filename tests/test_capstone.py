"""The capstone's reference agent: effects, approvals, budget, recovery, note checks, model adapter."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from minirt.clock import FakeClock
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.run import RunState
from minirt.runtime import ScriptedModel
from minirt.world.ledger import Ledger
from minirt_course.capstone import agent, note, openai_model, scenario, shop


def ledger(wd: Path, provider: str, kind: str) -> list[dict[str, Any]]:
    led = Ledger(wd / f"{provider}.sqlite")
    try:
        return led.effects(kind)
    finally:
        led.close()


@pytest.fixture
def shop_dir(tmp_path: Path) -> Path:
    shop.setup_world(tmp_path)
    return tmp_path


def run_ticket(wd: Path, **options: Any) -> tuple[shop.CapstoneRuntime, str]:
    rt = shop.build_runtime(wd, **options)
    run_id = shop.start_ticket(rt)
    rt.run(run_id)
    return rt, run_id


def test_setup_world_is_idempotent(tmp_path: Path) -> None:
    shop.setup_world(tmp_path)
    shop.setup_world(tmp_path)
    assert len(ledger(tmp_path, "payments", "charge")) == len(shop.ORDERS)


def test_a_fresh_world_is_written_once_charged(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A second fresh world of the default orders gets the first one's bytes, not new charges;
    other orders (or changed ORDERS) are charged as before."""
    shop.setup_world(tmp_path / "first")
    charges: list[str] = []
    real = shop.PaymentProvider.charge

    def counted(self: Any, key: str, *args: Any, **kwargs: Any) -> Any:
        charges.append(key)
        return real(self, key, *args, **kwargs)

    monkeypatch.setattr(shop.PaymentProvider, "charge", counted)
    shop.setup_world(tmp_path / "second")
    assert charges == []
    for name in ("payments.sqlite", "orders.json"):
        assert (tmp_path / "second" / name).read_bytes() == (tmp_path / "first" / name).read_bytes()
    assert sorted(p.name for p in (tmp_path / "second").iterdir()) == ["orders.json",
                                                                       "payments.sqlite"]
    first = ledger(tmp_path / "first", "payments", "charge")
    assert ledger(tmp_path / "second", "payments", "charge") == first
    assert len(first) == len(shop.ORDERS)
    shop.setup_world(tmp_path / "second")  # an existing world: idempotent, as before
    assert len(charges) == len(shop.ORDERS) and \
        len(ledger(tmp_path / "second", "payments", "charge")) == len(shop.ORDERS)
    one = [dict(next(iter(shop.ORDERS.values())))]
    shop.setup_world(tmp_path / "other", orders=one)
    assert len(ledger(tmp_path / "other", "payments", "charge")) == 1
    monkeypatch.setitem(shop.ORDERS, "A-999", {**one[0], "order_id": "A-999"})
    shop.setup_world(tmp_path / "changed")
    assert len(ledger(tmp_path / "changed", "payments", "charge")) == len(shop.ORDERS)


def test_reference_agent_does_every_effect_once(shop_dir: Path) -> None:
    rt, run_id = run_ticket(shop_dir)
    try:
        assert rt.outcome(run_id).state is RunState.SUCCEEDED
        assert scenario.judge(shop_dir, rt, run_id).ok
    finally:
        rt.close()
    assert len(ledger(shop_dir, "payments", "refund")) == 2
    assert len(ledger(shop_dir, "booking", "booking")) == 1
    assert len(ledger(shop_dir, "email", "email")) == 1


def test_lookups_run_as_one_wave(shop_dir: Path) -> None:
    rt, run_id = run_ticket(shop_dir)
    try:
        waves = [e.payload for e in rt.store.read(run_id) if e.kind == "wave"]
    finally:
        rt.close()
    assert waves and waves[0]["steps"] == [0, 1, 2]


def test_big_refund_waits_for_a_reviewer(shop_dir: Path) -> None:
    rt, run_id = run_ticket(shop_dir, reviewer=None)
    try:
        assert rt.store.get_run(run_id).run.state is RunState.WAITING
        assert [r["params"]["amount_cents"] for r in ledger(shop_dir, "payments", "refund")] \
            == [3000]
        (req,) = rt.gate.requests(rt.store, run_id)
        rt.gate.approve(rt, run_id, req.request_id, approver="carol")
        assert rt.run(run_id).state is RunState.SUCCEEDED
    finally:
        rt.close()
    assert len(ledger(shop_dir, "payments", "refund")) == 2


def test_rejected_refund_is_not_dispatched(shop_dir: Path) -> None:
    rt, run_id = run_ticket(shop_dir, reviewer=shop.approve_all(up_to_cents=10_000))
    try:
        assert rt.outcome(run_id).state is RunState.FAILED
    finally:
        rt.close()
    assert [r["params"]["amount_cents"] for r in ledger(shop_dir, "payments", "refund")] == [3000]


def test_plan_naming_an_order_not_on_the_ticket_is_refused(shop_dir: Path) -> None:
    evil = ScriptedModel([{"refund": ["A-103"], "replace": [], "reply": "ok"}])
    rt, run_id = run_ticket(shop_dir, model=evil)
    try:
        out = rt.outcome(run_id)
    finally:
        rt.close()
    assert out.state is RunState.FAILED and isinstance(out.error, agent.PlanRejected)
    assert ledger(shop_dir, "payments", "refund") == []


def test_budget_too_small_fails_closed_before_the_effect(shop_dir: Path) -> None:
    rt, run_id = run_ticket(shop_dir, budget={"tool_attempts": 4})
    try:
        assert rt.outcome(run_id).state is RunState.FAILED
        from minirt.budget import Accounts, audit

        assert audit(Accounts(rt.store), run_id) == []
    finally:
        rt.close()
    assert len(ledger(shop_dir, "payments", "refund")) == 1


def test_crash_in_w3_of_the_approved_refund_then_reopen_refunds_once(shop_dir: Path) -> None:
    crashing = shop.build_runtime(shop_dir, faults=FaultPlan("after_provider_commit", 5))
    run_id = shop.start_ticket(crashing)
    with pytest.raises(SimulatedCrash):
        crashing.run(run_id)
    crashing.close()
    assert len(ledger(shop_dir, "payments", "refund")) == 2  # the provider did refund
    rt = shop.build_runtime(shop_dir, clock=FakeClock(shop.EPOCH + 3600), worker_id="w-2")
    try:
        assert rt.resume(run_id).state is RunState.SUCCEEDED
        assert scenario.judge(shop_dir, rt, run_id).ok
        kinds = [e.kind for e in rt.store.read(run_id)]
    finally:
        rt.close()
    assert "reconciled" in kinds
    assert len(ledger(shop_dir, "payments", "refund")) == 2


def test_resume_of_a_finished_run_is_idempotent(shop_dir: Path) -> None:
    rt, run_id = run_ticket(shop_dir)
    try:
        first = rt.outcome(run_id).value
        assert rt.resume(run_id).value == first
        assert rt.resume(run_id).value == first
    finally:
        rt.close()
    assert len(ledger(shop_dir, "email", "email")) == 1


def test_judge_catches_a_second_email(shop_dir: Path) -> None:
    rt, run_id = run_ticket(shop_dir)
    try:
        rt.world["email"].send(TICKET_EMAIL, "again", "again")
        verdict = scenario.judge(shop_dir, rt, run_id)
    finally:
        rt.close()
    assert verdict.outcome.value == "duplicate effect"


TICKET_EMAIL = shop.TICKET["email"]


def test_judge_catches_a_refund_without_a_receipt(shop_dir: Path) -> None:
    rt, run_id = run_ticket(shop_dir, policies=shop.Policies(needs_approval=lambda a: False))
    try:
        verdict = scenario.judge(shop_dir, rt, run_id)
    finally:
        rt.close()
    assert verdict.outcome.value == "wrong result" and "receipt" in verdict.detail


def test_unknown_option_is_refused(shop_dir: Path) -> None:
    with pytest.raises(TypeError, match="unexpected option"):
        shop.build_runtime(shop_dir, colour="red")


def test_secret_never_reaches_the_run_store(shop_dir: Path) -> None:
    rt, _ = run_ticket(shop_dir)
    rt.close()
    assert shop.PROVIDER_KEY.encode() not in (shop_dir / "runs.sqlite").read_bytes()


# -- the architecture note -----------------------------------------------------------------------

NOTE = """## Decisions
We key refunds by the effect key and send the email at most once, as decided.
## Trade-offs
A durable step costs 3,300 µs against 970 µs without fsync; the journal holds 729 bytes per step.
## Remaining risks
Providers that prune keys early are not covered by anything in this agent yet.
"""
FIGURES = {"step_us": 3334.0, "baseline_step_us": 973.0, "journal_bytes_per_step": 728.6,
           "steps": 10.0}


def test_note_with_sections_and_figures_passes() -> None:
    check = note.check_note(NOTE, FIGURES)
    assert check.problems() == []
    assert set(check.matched) == {"step_us", "baseline_step_us", "journal_bytes_per_step"}


def test_note_without_figures_fails() -> None:
    text = "\n".join(line for line in NOTE.splitlines() if not any(c.isdigit() for c in line))
    text += "\nWe measured nothing in particular at all here today."
    assert any("[note-figures]" in p for p in note.check_note(text, FIGURES).problems())


def test_note_missing_a_section_fails() -> None:
    text = NOTE.replace("## Remaining risks", "## Outlook")
    assert any("remaining risks" in p for p in note.check_note(text, FIGURES).problems())


def test_small_figures_never_match_by_accident() -> None:
    assert note.quoted_figures("we use 3 tools in 2 waves", {"a": 3.0, "b": 2.0}) == {}


def test_figure_outside_tolerance_does_not_match() -> None:
    assert note.quoted_figures("about 500 bytes", {"bytes": 728.6}) == {}


def test_note_that_is_not_a_string_fails() -> None:
    assert note.check_note(None, FIGURES).missing_sections == list(note.SECTIONS)


# -- the OpenAI-compatible adapter, against a fake server on loopback ----------------------------

class FakeChat(BaseHTTPRequestHandler):
    answers: list[tuple[int, bytes]] = []
    seen: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        length = int(self.headers["Content-Length"])
        FakeChat.seen.append({"path": self.path, "auth": self.headers.get("Authorization"),
                              "body": json.loads(self.rfile.read(length))})
        status, body = FakeChat.answers.pop(0)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:  # never to stderr
        return


@pytest.fixture
def fake_chat() -> Iterator[str]:
    FakeChat.answers, FakeChat.seen = [], []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeChat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def completion(content: str, tokens: int = 77) -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}],
                       "usage": {"total_tokens": tokens}}).encode()


def test_model_sends_the_prompt_and_returns_json_with_usage(fake_chat: str) -> None:
    FakeChat.answers = [(200, completion('{"refund": ["A-100"]}'))]
    model = openai_model.ChatCompletionsModel(fake_chat, "tiny", api_key="k-test")
    out = model.complete({"task": "plan"}, index=0)
    assert out == {"refund": ["A-100"], "usage": {"total_tokens": 77}}
    (req,) = FakeChat.seen
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer k-test"
    assert req["body"]["messages"][1]["content"] == '{"task":"plan"}'


def test_model_http_error_is_named(fake_chat: str) -> None:
    FakeChat.answers = [(503, b"{}")]
    with pytest.raises(openai_model.ModelUnavailable, match="HTTP 503"):
        openai_model.ChatCompletionsModel(fake_chat, "tiny").complete({}, index=0)


def test_model_non_json_content_is_named(fake_chat: str) -> None:
    FakeChat.answers = [(200, completion("Sure! Here is the plan: refund it."))]
    with pytest.raises(openai_model.ModelOutputInvalid):
        openai_model.ChatCompletionsModel(fake_chat, "tiny").complete({}, index=0)


def test_model_unreachable_is_named() -> None:
    model = openai_model.ChatCompletionsModel("http://127.0.0.1:9/v1", "tiny", timeout_s=2)
    with pytest.raises(openai_model.ModelUnavailable):
        model.complete({}, index=0)


def test_agent_on_the_http_model_is_never_asked_twice(fake_chat: str, shop_dir: Path) -> None:
    plan = agent.support_model({"orders": [shop.read_orders(shop_dir)[o]
                                           for o in shop.TICKET["orders"]]}, 0)
    FakeChat.answers = [(200, completion(json.dumps(plan)))]
    model = openai_model.ChatCompletionsModel(fake_chat, "tiny")
    crashing = shop.build_runtime(shop_dir, model=model,
                                  faults=FaultPlan("after_decision_record"))
    run_id = shop.start_ticket(crashing)
    with pytest.raises(SimulatedCrash):
        crashing.run(run_id)
    crashing.close()
    rt = shop.build_runtime(shop_dir, model=model, clock=FakeClock(shop.EPOCH + 3600))
    try:
        assert rt.resume(run_id).state is RunState.SUCCEEDED
    finally:
        rt.close()
    assert model.calls == 1
