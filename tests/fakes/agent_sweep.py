"""What the agent crash-sweep scenarios share (fakes.agent_scenario, sync;
fakes.async_agent_scenario, async): the fake model server a scenario starts in the parent
process, a clock its recovering workers move past a lease, the ledger counts, and the oracle's
judgement.

:class:`ModelServedScenario` is a base for a :class:`minirt.testing.sweep.Scenario`: ``setup``
starts the model server on 127.0.0.1 (answering with the subclass's :meth:`policy`), the
subclass's ``oracle`` calls :meth:`stop_server` and :func:`judge`. The server lives in the
parent only (a killed child reads its URL from ``model_url.txt``), and counts requests, so the
oracle can check that a journaled decision was never asked again.

Guarantees: a verdict from the ledgers and the journal only (never from timing). Not here: the
agent, its tools and its runtime (each scenario's own).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from minirt.faults import Outcome, Verdict

from .model_server import FakeModelServer

SERVER = Path(__file__).parent / "mcp_server.py"  # the MCP server both agents call over stdio
_SERVERS: dict[str, FakeModelServer] = {}  # workdir -> its model server (parent process only)


class OffsetClock:
    """The wall clock moved by ``offset`` seconds (a recovering worker is past any lease)."""

    def __init__(self, offset: float) -> None:
        self.offset = offset

    def now(self) -> float:
        return time.time() + self.offset


class ModelServedScenario:
    """Starts the fake model server in ``setup``; the answer to a request is :meth:`policy`'s:
    ``turn`` (the tool calls) until a tool result is in the conversation, then ``done``."""

    turn: dict[str, Any]
    done: dict[str, Any]

    def policy(self, n: int, body: dict[str, Any]) -> dict[str, Any]:
        return self.done if body["messages"][-1].get("role") == "tool" else self.turn

    def setup(self, workdir: Path) -> None:
        server = FakeModelServer(self.policy)
        threading.Thread(target=server.httpd.serve_forever, daemon=True).start()
        _SERVERS[str(workdir)] = server
        (workdir / "model_url.txt").write_text(server.base_url)

    def stop_server(self, workdir: Path) -> int:
        """Stop the workdir's model server; how many requests it answered (-1: none ran)."""
        server = _SERVERS.pop(str(workdir), None)
        if server is None:
            return -1
        server.httpd.shutdown()
        server.httpd.server_close()
        return server.count


def mcp_ledger(workdir: Path) -> tuple[int, int]:
    """(effects, executions) in the MCP server's ledger under ``workdir`` (0, 0 if none)."""
    ledger = workdir / "ledger.sqlite"
    if not ledger.exists():
        return 0, 0
    db = sqlite3.connect(ledger)
    try:
        effects = db.execute("SELECT COUNT(*) FROM effects").fetchone()[0]
        executions = db.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
    finally:
        db.close()
    return effects, executions


def judge(workdir: Path, rt: Any, run_id: str, *, effects: list[int], asked: int,
          done: dict[str, Any], facts: dict[str, Any]) -> Verdict:
    """The verdict on a recovered run: each count of ``effects`` exactly 1, the run terminal and
    succeeded with ``done``'s text, the model asked 2 or 3 times (3 only when an answer was lost
    before it was journaled). ``facts`` are written to ``oracle.json`` and given as detail."""
    text = json.dumps(facts)
    (workdir / "oracle.json").write_text(text)
    if any(n > 1 for n in effects):
        return Verdict(Outcome.DUPLICATE, text)
    if any(n == 0 for n in effects):
        return Verdict(Outcome.LOST, text)
    if not rt.store.get_run(run_id).run.is_terminal:
        return Verdict(Outcome.STUCK, text)
    out = rt.outcome(run_id)
    if out.state.value != "succeeded" or out.result() != {"text": done["text"]}:
        return Verdict(Outcome.WRONG, f"{out.state.value} {out.error} {text}")
    if not 2 <= asked <= 3:
        return Verdict(Outcome.WRONG, f"model asked {asked} times: {text}")
    return Verdict(Outcome.CLEAN, text)
