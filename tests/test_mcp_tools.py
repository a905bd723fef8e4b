"""MCP tools (minirt.mcp_tools) against a real MCP server over stdio (tests/fakes/mcp_server.py)
that keeps its own ledger: crashes between the call and the result, counted."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("jsonschema")

from mcp import StdioServerParameters  # noqa: E402

from minirt import EffectClass, FakeClock, FaultPlan, Runtime, SimulatedCrash, SQLiteStore  # noqa: E402,I001
from minirt.contracts import SchemaViolation  # noqa: E402
from minirt.mcp_tools import EffectNotDeclared, MCPSession, mcp_tools  # noqa: E402
from minirt.schema import anthropic_tool, json_schema, openai_tool  # noqa: E402

SERVER = Path(__file__).parent / "fakes" / "mcp_server.py"
RUN = "mcp-run"
EFFECTS = {"refund": EffectClass.KEYED, "send_note": EffectClass.IRREVERSIBLE}
KEYS = {"refund": "idempotency_key"}


def open_session(ledger: Path) -> MCPSession:
    return MCPSession(StdioServerParameters(command=sys.executable,
                                            args=[str(SERVER), str(ledger)]))


def counts(ledger: Path) -> tuple[int, int]:
    """(executions of refund, refund effects) in the server's own ledger."""
    if not ledger.exists():
        return 0, 0
    db = sqlite3.connect(ledger)
    try:
        ex = db.execute("SELECT COUNT(*) FROM executions WHERE tool='refund'").fetchone()[0]
        return ex, db.execute("SELECT COUNT(*) FROM effects").fetchone()[0]
    finally:
        db.close()


def agent(ctx: Any, task: Any) -> Any:
    receipt = ctx.call_tool("refund", order_id=task["order"], amount_cents=task["amount"])
    return {"refund_id": receipt["refund_id"]}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory):
    ledger = tmp_path_factory.mktemp("mcp") / "shared-ledger.sqlite"
    s = open_session(ledger)
    yield s
    s.close()


def test_listed_tools_need_a_declared_effect(session: MCPSession) -> None:
    with pytest.raises(EffectNotDeclared):
        mcp_tools(session, {"refund": EffectClass.KEYED})
    tools = mcp_tools(session, {"refund": EffectClass.KEYED}, only_declared=True)
    assert [t.name for t in tools] == ["refund"]


def test_schema_hides_the_key_and_exports_in_every_shape(session: MCPSession) -> None:
    import jsonschema

    (refund,) = [t for t in mcp_tools(session, EFFECTS, key_params=KEYS) if t.name == "refund"]
    schema = json_schema(refund)
    assert set(schema["properties"]) == {"order_id", "amount_cents"}
    assert "idempotency_key" in refund.server_schema["properties"]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert openai_tool(refund)["function"]["parameters"] == schema
    assert anthropic_tool(refund)["input_schema"] == schema


def test_the_gate_refuses_before_any_intent(session: MCPSession) -> None:
    (refund,) = [t for t in mcp_tools(session, EFFECTS, key_params=KEYS) if t.name == "refund"]
    with pytest.raises(SchemaViolation) as err:
        refund.prepare({"order_id": "o1", "amount_cents": "3000"}, frozenset())
    assert err.value.field == "amount_cents"
    with pytest.raises(SchemaViolation):
        refund.prepare({"order_id": "o1", "amount_cents": 1, "idempotency_key": "mine"},
                       frozenset())


class Harness:
    def __init__(self, tmp_path: Path) -> None:
        self.path = tmp_path / "runs.sqlite"
        self.ledger = tmp_path / "ledger.sqlite"
        self.clock = FakeClock(1000.0)
        self.n = 0

    def run(self, faults: Any = None) -> Any:
        """One worker process's life: its own MCP connection (a crash loses it)."""
        self.n += 1
        with self.open() as s:
            rt = Runtime(SQLiteStore(self.path), tools=mcp_tools(s, EFFECTS, key_params=KEYS),
                         workflows={"agent": agent}, clock=self.clock, faults=faults,
                         worker_id=f"w{self.n}")
            try:
                return rt.run_workflow("agent", {"order": "o1", "amount": 3000}, run_id=RUN)
            finally:
                rt.close()
                self.clock.advance(3600)

    def open(self) -> MCPSession:
        return open_session(self.ledger)

    def kinds(self) -> list[str]:
        store = SQLiteStore(self.path)
        try:
            return [e.kind for e in store.read(RUN)]
        finally:
            store.close()


def test_a_call_through_the_pipeline(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    out = h.run()
    assert out.state.value == "succeeded", out.error
    assert out.result()["refund_id"] == "re_1"
    assert counts(h.ledger) == (1, 1)
    kinds = h.kinds()
    assert kinds.index("intent") < kinds.index("tool_result")


@pytest.mark.parametrize("point,executions", [
    ("before_intent", 1),            # nothing journaled, nothing sent
    ("after_intent", 1),             # intent durable, nothing sent: resent with the key
    ("after_provider_commit", 2),    # the server refunded; the answer was lost: resent, deduped
    ("before_result", 2),
    ("after_result", 1),             # recorded: replayed, not sent again
])
def test_crash_between_the_call_and_the_result(tmp_path: Path, point: str,
                                               executions: int) -> None:
    h = Harness(tmp_path)
    with pytest.raises(SimulatedCrash):
        h.run(FaultPlan(crash_at=point))
    out = h.run()
    assert out.state.value == "succeeded", out.error
    assert out.result()["refund_id"] == "re_1"
    ex, effects = counts(h.ledger)
    assert effects == 1, f"{point}: {effects} refunds"
    assert ex == executions, f"{point}: {ex} executions"


# -- the same over streamable HTTP on 127.0.0.1 ---------------------------------------------------

@pytest.fixture
def http_server(tmp_path: Path):
    import socket
    import subprocess

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ledger = tmp_path / "ledger.sqlite"
    proc = subprocess.Popen([sys.executable, str(SERVER), str(ledger), "--http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):  # readiness: until the port accepts (bounded), not a fixed sleep
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("the MCP HTTP server exited")
                import time

                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", ledger
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("point,executions", [("after_intent", 1),
                                              ("after_provider_commit", 2)])
def test_over_streamable_http_a_crash_refunds_once(tmp_path: Path, http_server: Any,
                                                   point: str, executions: int) -> None:
    url, ledger = http_server
    h = Harness(tmp_path)
    h.ledger = ledger
    h.open = lambda: MCPSession(url)  # type: ignore[attr-defined]
    with pytest.raises(SimulatedCrash):
        h.run(FaultPlan(crash_at=point))
    out = h.run()
    assert out.state.value == "succeeded", out.error
    assert counts(ledger) == (executions, 1)
