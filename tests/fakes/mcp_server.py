"""A tiny real MCP server (mcp SDK's MCPServer) over stdio, with a ledger file of its own.

``python tests/fakes/mcp_server.py LEDGER.sqlite [--http PORT]`` (stdio, or streamable HTTP on
127.0.0.1:PORT/mcp) serves ``refund(order_id, amount_cents,
idempotency_key)`` (deduplicated by key) and ``send_note(to, text)`` (no key: every call is an
effect). Every call is counted in the ledger, so a test can tell executions from effects after a
crash.
"""

from __future__ import annotations

import sqlite3
import sys

from mcp.server.mcpserver import MCPServer

LEDGER = sys.argv[1] if len(sys.argv) > 1 else "ledger.sqlite"
server = MCPServer("fake-payments")


def _db() -> sqlite3.Connection:
    db = sqlite3.connect(LEDGER, isolation_level=None, timeout=10)
    db.execute("CREATE TABLE IF NOT EXISTS executions (tool TEXT, key TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS effects (key TEXT PRIMARY KEY, body TEXT)")
    return db


@server.tool()
def refund(order_id: str, amount_cents: int, idempotency_key: str) -> dict:
    """Refund an order, once per idempotency key."""
    with _db() as db:
        db.execute("INSERT INTO executions VALUES ('refund', ?)", (idempotency_key,))
        db.execute("INSERT OR IGNORE INTO effects VALUES (?, ?)",
                   (idempotency_key, f"{order_id}:{amount_cents}"))
        n = db.execute("SELECT rowid FROM effects WHERE key = ?", (idempotency_key,)).fetchone()
    return {"refund_id": f"re_{n[0]}", "amount_cents": amount_cents}


@server.tool()
def send_note(to: str, text: str) -> dict:
    """Send a note (no key: every call sends one)."""
    with _db() as db:
        db.execute("INSERT INTO executions VALUES ('send_note', NULL)")
    return {"sent_to": to}


if __name__ == "__main__":
    if "--http" in sys.argv:  # streamable HTTP on 127.0.0.1:PORT/mcp
        port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        server.run()
