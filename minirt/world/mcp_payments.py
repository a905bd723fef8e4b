"""A payments provider served over MCP (stdio), with its own ledger: what lesson 03 wraps.

``python -m minirt.world.mcp_payments LEDGER.sqlite`` starts a real MCP server (the ``mcp``
SDK's ``MCPServer``, ``[agents]`` extra) over stdio with one tool, ``refund(order_id,
amount_cents, idempotency_key)``: the provider deduplicates by key, like Stripe. Every call is
counted in the ``executions`` table and every applied refund is one row of ``effects``, so a
reader can tell how often the tool ran from how often money moved.

Invariant: one ``effects`` row per idempotency key, however often the tool runs. Guarantees:
each call commits before it answers (a crash after the answer left loses nothing here). Not
guaranteed: anything about an answer the client never read (that is the client's problem, and
the lesson's point).
"""

from __future__ import annotations

import sqlite3
import sys
from typing import Any


def _db(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, timeout=10)
    db.execute("CREATE TABLE IF NOT EXISTS executions (tool TEXT, key TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS effects (key TEXT PRIMARY KEY, body TEXT)")
    return db


def counts(path: str) -> tuple[int, int]:
    """(executions, effects) in the ledger at ``path``."""
    db = _db(str(path))
    try:
        return (db.execute("SELECT COUNT(*) FROM executions").fetchone()[0],
                db.execute("SELECT COUNT(*) FROM effects").fetchone()[0])
    finally:
        db.close()


def serve(ledger: str) -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("payments")

    @server.tool()
    def refund(order_id: str, amount_cents: int, idempotency_key: str) -> dict[str, Any]:
        """Refund an order, once per idempotency key."""
        db = _db(ledger)
        try:
            db.execute("INSERT INTO executions VALUES ('refund', ?)", (idempotency_key,))
            db.execute("INSERT OR IGNORE INTO effects VALUES (?, ?)",
                       (idempotency_key, f"{order_id}:{amount_cents}"))
            n = db.execute("SELECT rowid FROM effects WHERE key = ?",
                           (idempotency_key,)).fetchone()[0]
        finally:
            db.close()
        return {"refund_id": f"re_{n}", "amount_cents": amount_cents}

    server.run()


if __name__ == "__main__":
    serve(sys.argv[1] if len(sys.argv) > 1 else "ledger.sqlite")
