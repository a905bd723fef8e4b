"""A checkout agent for many workers on PostgreSQL, with a payment provider that keeps its own ledger.

The story (capstone-style): for each order, the agent asks the model for a plan (the amount to
charge), records a reservation step, **charges the card** at a payment provider, thinks a little,
then **sends a receipt** through a receipt service. Both providers behave like Stripe: a request
carries an idempotency key (minirt's effect key); the provider applies the effect once per key,
answers a repeated key with the recorded result, refuses the same key with other parameters, and
can be asked whether a key was applied (``lookup``). On request, a provider "loses" the response
of a committed charge (the W3 window of the course) so that reconciliation by lookup is exercised.

The providers' ledgers live in their own PostgreSQL database (``$MINIRT_PROVIDER_URL``), not in
minirt's store: they are the outside world, and the authoritative count of effects. Their tables
have **no** unique constraint on the key: deduplication is the providers' own code (an advisory
lock per key, then look up, then insert), so :func:`ledger_report` checks something that could
fail.

Used by ``tests/test_workers_postgres.py`` (a few hundred runs, four worker processes, a chaos
loop), ``benchmarks/pg_scaling.py`` and the PostgreSQL appendix, as
``minirt worker --app minirt_course.scenarios.pg_chaos:app``.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from typing import Any

from minirt.canonical import digest
from minirt.errors import ToolError
from minirt.runtime import Runtime, ScriptedModel
from minirt.store.base import Store
from minirt.tools import EffectClass, FunctionTool, Lookup, OutcomeUnknown, ToolCall

PROVIDER_ENV = "MINIRT_PROVIDER_URL"
LEDGER_SCHEMA = """
CREATE TABLE IF NOT EXISTS ledger (
    id              BIGSERIAL PRIMARY KEY,
    provider        TEXT NOT NULL,         -- 'payments' or 'receipts'
    idempotency_key TEXT NOT NULL,         -- deliberately not UNIQUE: dedup is the provider's code
    order_id        TEXT NOT NULL,
    params_digest   TEXT NOT NULL,
    result_json     TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE TABLE IF NOT EXISTS requests (
    id              BIGSERIAL PRIMARY KEY,
    provider        TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    outcome         TEXT NOT NULL,         -- 'applied', 'replayed', 'refused', 'lookup'
    response_lost   BOOLEAN NOT NULL DEFAULT false
);
"""


class Provider:
    """A payment provider on PostgreSQL: one effect per idempotency key (as at Stripe), plus a
    lookup by key, which Stripe does not offer (it reconciles by resending the same key).

    ``lose_response_one_in``: for about one key in N, the first request commits and then raises
    :class:`OutcomeUnknown` (the response was lost), as a timeout after the provider committed.
    """

    def __init__(self, url: str, name: str, *, lose_response_one_in: int = 0) -> None:
        self.url = url
        self.name = name
        self.lose_response_one_in = lose_response_one_in
        self._lock = threading.Lock()
        self._conn: Any = None

    def _db(self) -> Any:
        import psycopg

        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = psycopg.connect(self.url, autocommit=True)
            self._conn.execute("SET synchronous_commit TO on")
        return self._conn

    def apply(self, key: str, order_id: str, params: dict[str, Any],
              make_result: Any, *, attempt: int) -> dict[str, Any]:
        """Apply the effect for ``key`` once; a repeated key returns the recorded result."""
        pd = digest(params)
        with self._lock:
            db = self._db()
            with db.transaction():
                db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                           (f"{self.name}:{key}",))
                row = db.execute("SELECT params_digest, result_json FROM ledger WHERE provider=%s"
                                 " AND idempotency_key=%s", (self.name, key)).fetchone()
                if row is None:
                    effect_id = db.execute("SELECT nextval(pg_get_serial_sequence('ledger', 'id'))"
                                           ).fetchone()[0]
                    result, lost = make_result(effect_id), self._loses(key, attempt)
                    db.execute("INSERT INTO ledger (id, provider, idempotency_key, order_id,"
                               " params_digest, result_json) VALUES (%s,%s,%s,%s,%s,%s)",
                               (effect_id, self.name, key, order_id, pd, json.dumps(result)))
                    outcome = "applied"
                else:
                    result, lost = json.loads(row[1]), False
                    outcome = "replayed" if row[0] == pd else "refused"
                db.execute("INSERT INTO requests (provider, idempotency_key, outcome,"
                           " response_lost) VALUES (%s,%s,%s,%s)", (self.name, key, outcome, lost))
        if outcome == "refused":
            raise ToolError(tool=self.name,
                            reason=f"idempotency key {key} was already used with other parameters")
        if lost:
            raise OutcomeUnknown(tool=self.name, effect_key=key,
                                 reason="the provider committed but the response was lost")
        return result

    def lookup(self, key: str) -> Lookup:
        with self._lock:
            db = self._db()
            row = db.execute("SELECT result_json FROM ledger WHERE provider=%s AND"
                             " idempotency_key=%s", (self.name, key)).fetchone()
            db.execute("INSERT INTO requests (provider, idempotency_key, outcome)"
                       " VALUES (%s,%s,'lookup')", (self.name, key))
        if row is None:
            return Lookup(False, detail="no effect with this key")
        return Lookup(True, json.loads(row[0]), "found by idempotency key")

    def _loses(self, key: str, attempt: int) -> bool:
        if not self.lose_response_one_in or attempt != 1:
            return False
        h = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)
        return h % self.lose_response_one_in == 0


def create_ledger(url: str) -> None:
    """Create the providers' tables in the database at ``url`` (idempotent)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(42)")
        conn.execute(LEDGER_SCHEMA)
        conn.execute("SELECT pg_advisory_unlock(42)")


def ledger_report(url: str) -> dict[str, Any]:
    """The providers' own view: effects per provider, keys or orders applied more than once,
    requests by outcome, lost responses."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        effects = dict(conn.execute("SELECT provider, count(*) FROM ledger GROUP BY provider"
                                    ).fetchall())
        dup_keys = conn.execute("SELECT provider, idempotency_key, count(*) FROM ledger GROUP BY"
                                " 1, 2 HAVING count(*) > 1").fetchall()
        dup_orders = conn.execute("SELECT provider, order_id, count(*) FROM ledger GROUP BY 1, 2"
                                  " HAVING count(*) > 1").fetchall()
        orders = {p: {o for (o,) in conn.execute("SELECT order_id FROM ledger WHERE provider=%s",
                                                (p,)).fetchall()} for p in effects}
        requests = {f"{p}:{o}": n for p, o, n in conn.execute(
            "SELECT provider, outcome, count(*) FROM requests GROUP BY 1, 2").fetchall()}
        lost = conn.execute("SELECT count(*) FROM requests WHERE response_lost").fetchone()[0]
    return {"effects": effects, "duplicate_keys": dup_keys, "duplicate_orders": dup_orders,
            "orders": orders, "requests": requests, "responses_lost": lost}


# -- the agent ----------------------------------------------------------------------------------

def plan_for(prompt: Any, index: int) -> dict[str, Any]:
    """The scripted model: charge the cart's total (deterministic in the prompt)."""
    cart = prompt["cart"]
    return {"amount_cents": sum(int(item["cents"]) * int(item["qty"]) for item in cart),
            "currency": "EUR"}


def think(ms: int) -> int:
    """A step that takes time (a slow local computation); journaled, so never repeated."""
    time.sleep(ms / 1000.0)
    return ms


def checkout(ctx: Any, inp: dict[str, Any]) -> dict[str, Any]:
    """Plan, reserve, charge, think, send a receipt."""
    plan = ctx.decide({"order_id": inp["order_id"], "cart": inp["cart"]})
    ctx.step("reserve", lambda: {"reserved": [i["sku"] for i in inp["cart"]]})
    charge = ctx.call_tool("charge", order_id=inp["order_id"], amount_cents=plan["amount_cents"],
                           currency=plan["currency"])
    ctx.step("think", think, int(inp.get("think_ms", 0)))
    receipt = ctx.call_tool("send_receipt", order_id=inp["order_id"], to=inp["email"],
                            charge_id=charge["charge_id"])
    return {"order_id": inp["order_id"], "charge_id": charge["charge_id"],
            "receipt_id": receipt["receipt_id"], "amount_cents": plan["amount_cents"]}


def slow_count(ctx: Any, inp: dict[str, Any]) -> dict[str, Any]:
    """``n`` steps of ``ms`` milliseconds each (the appendix's run that a worker dies in)."""
    for i in range(int(inp["n"])):
        ctx.step(f"count-{i}", think, int(inp["ms"]))
    return {"counted": int(inp["n"])}


def tiny(ctx: Any, inp: dict[str, Any]) -> dict[str, Any]:
    """``steps`` small steps (the scaling benchmark's unit of work), each waiting ``ms``
    milliseconds first, as an agent waits on a model or a tool (0: the store alone)."""
    ms = int(inp.get("ms", 0))

    def one(i: int) -> dict[str, Any]:
        if ms:
            time.sleep(ms / 1000.0)
        return {"i": i, "pad": "x" * 150}

    for i in range(int(inp["steps"])):
        ctx.step(f"s{i}", one, i)
    return {"steps": int(inp["steps"])}


def make_tools(provider_url: str | None, *, lose_response_one_in: int = 0) -> list[FunctionTool]:
    """The two provider tools (keyed-idempotent, with lookup). Without a provider URL they
    raise a named error when called (the appendix's workflows do not call them)."""
    url = provider_url or ""
    payments = Provider(url, "payments", lose_response_one_in=lose_response_one_in)
    receipts = Provider(url, "receipts")

    def need_url(name: str) -> None:
        if not url:
            raise ToolError(tool=name, reason=f"no provider database: set ${PROVIDER_ENV}")

    def charge(order_id: str, amount_cents: int, currency: str, call: ToolCall) -> Any:
        need_url("charge")
        return payments.apply(call.effect_key, order_id, dict(call.args),
                              lambda n: {"charge_id": f"ch_{n:06d}", "amount_cents": amount_cents,
                                         "currency": currency}, attempt=call.attempt)

    def send_receipt(order_id: str, to: str, charge_id: str, call: ToolCall) -> Any:
        need_url("send_receipt")
        return receipts.apply(call.effect_key, order_id, dict(call.args),
                              lambda n: {"receipt_id": f"rc_{n:06d}", "to": to},
                              attempt=call.attempt)

    def lookup_with(p: Provider, name: str) -> Any:
        def lookup(call: ToolCall) -> Lookup:
            need_url(name)
            return p.lookup(call.effect_key)
        return lookup

    return [FunctionTool(charge, effect=EffectClass.KEYED,
                         lookup=lookup_with(payments, "charge")),
            FunctionTool(send_receipt, effect=EffectClass.KEYED,
                         lookup=lookup_with(receipts, "send_receipt"))]


def app(store: Store) -> Runtime:
    """The ``--app`` factory: a Runtime on ``store`` with the checkout agent and its tools.

    Reads ``$MINIRT_PROVIDER_URL`` (the providers' database) and ``$MINIRT_LOSE_RESPONSE_ONE_IN``.
    """
    lose = int(os.environ.get("MINIRT_LOSE_RESPONSE_ONE_IN", "0") or 0)
    return Runtime(store, tools=make_tools(os.environ.get(PROVIDER_ENV), lose_response_one_in=lose),
                   workflows={"checkout": checkout, "slow_count": slow_count, "tiny": tiny},
                   model=ScriptedModel(plan_for))


def order_input(i: int, *, seed: int = 0, think_ms: int = 20) -> dict[str, Any]:
    """The input of the ``i``-th order of a seeded batch."""
    h = hashlib.sha256(f"{seed}:{i}".encode()).digest()
    cart = [{"sku": f"sku-{h[k] % 50}", "cents": 100 + h[k + 1] * 7, "qty": 1 + h[k + 2] % 3}
            for k in range(0, 3 * (1 + h[9] % 3), 3)]
    return {"order_id": f"ord-{seed}-{i:05d}", "email": f"buyer{i}@example.test", "cart": cart,
            "think_ms": think_ms}
