"""Model adapters (minirt.models) over the official openai and anthropic SDKs, against a fake
provider on 127.0.0.1 (tests/fakes/model_server.py): no network, a dummy key."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from minirt import EffectClass, FakeClock, FaultPlan, Runtime, SimulatedCrash, SQLiteStore, tool
from minirt.budget import usage_of
from minirt.models import PromptInvalid, run_tool_calls

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

from fakes.model_server import USAGE_IN, USAGE_OUT, serving  # noqa: E402

from minirt.models.anthropic_adapter import AnthropicModel  # noqa: E402
from minirt.models.openai_adapter import OpenAIChatModel  # noqa: E402
from minirt.schema import anthropic_tool, openai_tool  # noqa: E402

RUN = "ticket-42"
PROVIDERS = ["openai", "anthropic"]


class Ledger:
    """The payment provider's own books: every execution, and effects deduplicated by key."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with self._db() as db:
            db.execute("CREATE TABLE IF NOT EXISTS executions (key TEXT, amount INTEGER)")
            db.execute("CREATE TABLE IF NOT EXISTS effects (key TEXT PRIMARY KEY, "
                       "amount INTEGER)")

    def _db(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, isolation_level=None)

    def refund(self, key: str, amount: int) -> dict[str, Any]:
        with self._db() as db:
            db.execute("INSERT INTO executions VALUES (?, ?)", (key, amount))
            db.execute("INSERT OR IGNORE INTO effects VALUES (?, ?)", (key, amount))
        return {"refund_id": "re_" + key[-8:], "amount_cents": amount}

    def count(self, table: str) -> int:
        with self._db() as db:
            return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]

    def keys(self) -> list[str]:
        with self._db() as db:
            return [r[0] for r in db.execute("SELECT key FROM effects")]


def make_refund(ledger: Ledger):
    @tool(EffectClass.KEYED)
    def refund(order_id: str, amount_cents: int, call=None):
        """Refund an order, in cents."""
        return ledger.refund(call.effect_key, amount_cents)

    return refund


def adapter(provider: str, base_url: str, tools: list[Any]) -> Any:
    if provider == "openai":
        client = openai.OpenAI(base_url=base_url, api_key="dummy-key", max_retries=0)
        return OpenAIChatModel(client, "fake-gpt", tools=tools, temperature=0)
    client = anthropic.Anthropic(base_url=base_url.removesuffix("/v1"), api_key="dummy-key",
                                 max_retries=0)
    return AnthropicModel(client, "fake-claude", tools=tools, max_tokens=256)


def support_agent(model: Any):
    def agent(ctx, task):
        messages: list[Any] = [{"role": "user", "content": task["ask"]}]
        for _ in range(4):
            d = ctx.decide({"system": "You are a support agent.", "messages": messages},
                           name="turn")
            if not d["tool_calls"]:
                return {"text": d["text"], "turns": len(messages)}
            outcomes = run_tool_calls(ctx, d)
            answers = (model.tool_messages(outcomes) if isinstance(model, OpenAIChatModel)
                       else [model.tool_results_message(outcomes)])
            messages += [d["message"], *answers]
            ctx.step("outcomes", lambda o=outcomes: [vars(x) for x in o])
        return {"text": "gave up"}
    return agent


class World:
    def __init__(self, tmp_path: Path, provider: str, server: Any) -> None:
        self.path = tmp_path / "runs.sqlite"
        self.ledger = Ledger(tmp_path / "ledger.sqlite")
        self.refund = make_refund(self.ledger)
        self.model = adapter(provider, server.base_url, [self.refund])
        self.clock = FakeClock(1000.0)
        self.n = 0

    def runtime(self, faults: Any = None) -> Runtime:
        self.n += 1
        return Runtime(SQLiteStore(self.path), tools=[self.refund],
                       workflows={"support": support_agent(self.model)}, model=self.model,
                       clock=self.clock, faults=faults, worker_id=f"w{self.n}")

    def run(self, faults: Any = None):
        rt = self.runtime(faults)
        try:
            return rt.run_workflow("support", {"ask": "refund order o1"}, run_id=RUN)
        finally:
            rt.close()
            self.clock.advance(3600)  # past the lease of a crashed worker

    def kinds(self) -> list[str]:
        store = SQLiteStore(self.path)
        try:
            return [e.kind for e in store.read(RUN)]
        finally:
            store.close()

    def steps(self) -> list[Any]:
        import json

        store = SQLiteStore(self.path)
        try:
            return [e.payload if isinstance(e.payload, dict) else json.loads(e.payload)
                    for e in store.read(RUN) if e.kind == "step"]
        finally:
            store.close()


REFUND_THEN_DONE = [{"tool_calls": [("refund", {"order_id": "o1", "amount_cents": 3000})]},
                    {"text": "Refunded 30.00."}]


def answer_or_refund(n: int, body: dict[str, Any]) -> dict[str, Any]:
    """A model that refunds until it sees a tool result, then answers (asked again after a
    crash, it asks for the same refund again)."""
    last = body["messages"][-1]
    seen = last.get("role") == "tool" or (isinstance(last.get("content"), list) and any(
        b.get("type") == "tool_result" for b in last["content"]))
    return REFUND_THEN_DONE[1] if seen else REFUND_THEN_DONE[0]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_agent_over_the_sdk_refunds_once(tmp_path: Path, provider: str) -> None:
    with serving(REFUND_THEN_DONE) as server:
        w = World(tmp_path, provider, server)
        out = w.run()
        assert out.state.value == "succeeded", out.error
        assert out.result()["text"] == "Refunded 30.00."
        assert server.count == 2 and w.model.calls == 2
        assert w.ledger.count("effects") == 1 and w.ledger.count("executions") == 1
        path, first = server.requests[0]
        spec = openai_tool(w.refund) if provider == "openai" else anthropic_tool(w.refund)
        assert first["tools"] == [spec]  # the schema the model sees is the tool's contract
        second = server.requests[1][1]["messages"]
        answered = (second[-1]["tool_call_id"] if provider == "openai"
                    else second[-1]["content"][0]["tool_use_id"])
        assert answered == ("call_0_0" if provider == "openai" else "toolu_0_0")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_tool_call_ids_sit_beside_effect_keys_never_as_them(tmp_path: Path,
                                                            provider: str) -> None:
    with serving(REFUND_THEN_DONE) as server:
        w = World(tmp_path, provider, server)
        assert w.run().state.value == "succeeded"
    (outcomes,) = [s["value"] for s in w.steps() if s["name"] == "outcomes"]
    (o,) = outcomes
    assert o["tool_call_id"].startswith(("call_", "toolu_")) and o["ok"]
    assert o["effect_key"] and o["effect_key"] != o["tool_call_id"]
    assert o["tool_call_id"] not in o["effect_key"]
    assert w.ledger.keys() == [o["effect_key"]]  # the provider saw minirt's key


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("point", ["after_decision_record", "before_intent", "after_intent"])
def test_crash_after_the_answer_before_the_tool_asks_nothing_again(
        tmp_path: Path, provider: str, point: str) -> None:
    with serving(REFUND_THEN_DONE) as server:
        w = World(tmp_path, provider, server)
        with pytest.raises(SimulatedCrash):
            w.run(FaultPlan(crash_at=point))
        assert server.count == 1 and w.ledger.count("executions") == 0
        out = w.run()
        assert out.state.value == "succeeded", out.error
        assert server.count == 2  # the recorded decision was replayed, not asked again
        assert w.ledger.count("effects") == 1
        # the tool result answers the RECORDED decision's id (the model never saw another)
        msgs = server.requests[1][1]["messages"]
        answered = (msgs[-1]["tool_call_id"] if provider == "openai"
                    else msgs[-1]["content"][0]["tool_use_id"])
        assert answered.endswith("_0_0")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_crash_before_the_decision_is_journaled_asks_again_same_effect(
        tmp_path: Path, provider: str) -> None:
    """The documented window: the answer was lost with the process, so the model is asked again
    (new tool-call ids), and the effect key is still the same logical refund."""
    script = [REFUND_THEN_DONE[0], *REFUND_THEN_DONE]
    with serving(script) as server:
        w = World(tmp_path, provider, server)
        with pytest.raises(SimulatedCrash):
            w.run(FaultPlan(crash_at="before_decision_record"))
        assert server.count == 1
        assert w.run().state.value == "succeeded"
        assert server.count == 3
    (outcomes,) = [s["value"] for s in w.steps() if s["name"] == "outcomes"]
    assert outcomes[0]["tool_call_id"].endswith("_1_0")  # the re-asked answer's id
    assert w.ledger.count("effects") == 1


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("point", ["before_decision_record", "after_decision_record",
                                   "before_intent", "after_intent", "after_provider_commit",
                                   "before_result", "after_result", "before_step_record",
                                   "after_step_record"])
def test_every_fault_point_of_one_turn_refunds_exactly_once(
        tmp_path: Path, provider: str, point: str) -> None:
    with serving(answer_or_refund) as server:
        w = World(tmp_path, provider, server)
        with pytest.raises(SimulatedCrash):
            w.run(FaultPlan(crash_at=point))
        out = w.run()
        assert out.state.value == "succeeded", out.error
        asked_again = point == "before_decision_record"
        assert server.count == (3 if asked_again else 2)
    assert w.ledger.count("effects") == 1
    assert w.kinds().count("decision") == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_usage_is_in_the_decision_for_budgets(tmp_path: Path, provider: str) -> None:
    with serving([{"text": "hello"}]) as server:
        m = adapter(provider, server.base_url, [])
        d = m.complete({"messages": [{"role": "user", "content": "hi"}]}, index=0)
    assert d["usage"] == {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT,
                          "total_tokens": USAGE_IN + USAGE_OUT}
    assert usage_of(d, 1000) == USAGE_IN + USAGE_OUT
    assert d["tool_calls"] == [] and d["text"] == "hello"


@pytest.mark.parametrize("bad,why", [("{not json", "JSON object"),
                                     ({"order_id": "o1", "amount_cents": "3000"},
                                      "amount_cents")])
def test_bad_model_arguments_are_refused_by_the_gate_and_journaled(
        tmp_path: Path, bad: Any, why: str) -> None:
    script = [{"tool_calls": [("refund", bad)]}, {"text": "sorry"}]
    with serving(script) as server:
        w = World(tmp_path, "openai", server)
        out = w.run()
        assert out.state.value == "succeeded", out.error
        err_msg = server.requests[1][1]["messages"][-1]
        assert err_msg["role"] == "tool" and why in err_msg["content"]
    assert w.ledger.count("executions") == 0
    assert "tool_rejected" in w.kinds() and "intent" not in w.kinds()


def test_an_unknown_tool_goes_back_to_the_model(tmp_path: Path) -> None:
    script = [{"tool_calls": [("wire_money", {"to": "x"})]}, {"text": "ok"}]
    with serving(script) as server:
        w = World(tmp_path, "anthropic", server)
        assert w.run().state.value == "succeeded"
        block = server.requests[1][1]["messages"][-1]["content"][0]
        assert block["is_error"] is True and "wire_money" in block["content"]
    assert w.ledger.count("executions") == 0


def test_a_prompt_without_messages_is_named() -> None:
    m = OpenAIChatModel(object(), "fake")
    with pytest.raises(PromptInvalid):
        m.request({"text": "hi"})


def test_an_unreachable_provider_is_model_unavailable() -> None:
    from minirt.models import ModelUnavailable

    with serving([]) as server:
        url = server.base_url
    m = adapter("openai", url, [])  # the server is gone: connection refused
    with pytest.raises(ModelUnavailable):
        m.complete({"messages": [{"role": "user", "content": "hi"}]}, index=0)


@pytest.mark.parametrize("point", [None, "after_decision_record"])
def test_budget_settles_the_tokens_the_sdk_reported(tmp_path: Path, point: str | None) -> None:
    """Module 09's BudgetHook reserves max_tokens per decision and settles the decision's
    reported usage; a decision replayed after a crash is not charged again."""
    from minirt.budget import Accounts, BudgetHook

    with serving(answer_or_refund) as server:
        w = World(tmp_path, "anthropic", server)

        def runtime(faults: Any = None) -> Runtime:
            w.n += 1
            return Runtime(SQLiteStore(w.path), tools=[w.refund],
                           workflows={"support": support_agent(w.model)}, model=w.model,
                           clock=w.clock, faults=faults, worker_id=f"w{w.n}",
                           hooks=[BudgetHook({"tokens": 10_000},
                                             tokens_per_decision=w.model.max_tokens)])

        w.runtime = runtime  # type: ignore[method-assign]
        if point is not None:
            with pytest.raises(SimulatedCrash):
                w.run(FaultPlan(crash_at=point))
        assert w.run().state.value == "succeeded"
        assert server.count == 2
    store = SQLiteStore(w.path)
    try:
        acc = Accounts(store).account(RUN)
    finally:
        store.close()
    assert acc is not None
    assert acc.used.get("tokens") == 2 * (USAGE_IN + USAGE_OUT)
    assert acc.held.get("tokens", 0) == 0


def test_the_docstring_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import textwrap

    import minirt.models as mm

    doc = mm.__doc__ or ""
    code = textwrap.dedent(doc.split("An agent over the SDK", 1)[1].split("::\n", 1)[1]
                           .split("\nInvariant:", 1)[0])
    monkeypatch.chdir(tmp_path)
    with serving(answer_or_refund) as server:
        ns: dict[str, Any] = {"URL": server.base_url, "KEY": "dummy-key"}
        exec(compile(code, "minirt.models docstring", "exec"), ns)  # noqa: S102
        out = ns["rt"].run_workflow("agent", "refund order o1", run_id="doc-1")
        ns["rt"].close()
        assert out.state.value == "succeeded" and out.result() == REFUND_THEN_DONE[1]["text"]
        assert server.count == 2
