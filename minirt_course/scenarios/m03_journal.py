"""Module 03's crash scenario: a refund agent whose every outside contact goes through the journal.

The story: a support agent handles "refund order A-1001, it arrived broken". It looks the order up
(a **pure** tool), asks a scripted model for a plan (a **decision**), reads the time and draws a
random refund reference (two recorded **steps**), refunds the customer and e-mails them (two
**keyed-idempotent** tools), asking the model for the e-mail's wording in between. Seven step
positions, three tool calls, 25 fault-point boundaries.

The outside world is a small SQLite ledger, ``workdir/world.sqlite``, so that the kill crash mode
(a child process SIGKILLed mid-run) can be counted exactly like the simulated one:

- ``executions``: one row per real invocation of a tool (tool, effect key, attempt, incarnation);
- ``effects``: one row per *applied* effect key. A keyed tool applies an effect key once and
  answers every later request with that key from this table, as a payment provider would; the
  same key with other arguments is refused (:class:`~minirt.errors.ToolError`).

The oracle (:meth:`RefundScenario.oracle`) says CLEAN only if all of these hold, on disk:

- the run is terminal (else STUCK) and succeeded (else WRONG);
- no effect key was executed more often than once plus the number of resends the journal recorded
  for it (``attempt`` events): a tool whose result was journaled never runs again (else
  DUPLICATE);
- each keyed tool applied exactly one effect (two refunds = DUPLICATE, none = LOST), and the
  applied effect key is the one the journal's intent recorded (else WRONG);
- the result equals the crash-free run's, except the time and the random reference, which must
  equal the values the journal recorded for them (a re-drawn reference would show here, and as a
  second refund under another effect key).

What it does not check: irreversible tools (none here; tests/test_runtime.py covers UNCERTAIN),
or leases (module 01's scenario does).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from minirt.canonical import canonical_json, digest
from minirt.clock import FakeClock
from minirt.errors import ToolError
from minirt.faults import Faults, Outcome, Verdict
from minirt.runtime import Context, Runtime, ScriptedModel
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, ToolCall

from . import EPOCH, SQLiteScenario

TASK = {"order_id": "A-1001", "complaint": "the mug arrived broken"}
ORDERS = [("A-1001", "ana@example.com", 4999, "EUR"), ("A-1002", "bo@example.com", 1250, "EUR")]
KEYED_TOOLS = ("refund", "notify")
RECORDED_FIELDS = ("at", "ref")  # result fields that come from the clock and from randomness

WORLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS orders (order_id TEXT PRIMARY KEY, email TEXT NOT NULL,
                                   total_cents INTEGER NOT NULL, currency TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS executions (n INTEGER PRIMARY KEY AUTOINCREMENT, tool TEXT NOT NULL,
                                       effect_key TEXT NOT NULL, attempt INTEGER NOT NULL,
                                       incarnation INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS effects (effect_key TEXT PRIMARY KEY, tool TEXT NOT NULL,
                                    args_digest TEXT NOT NULL, result_json TEXT NOT NULL);
"""


class RefundWorld:
    """The outside world of the scenario: a ledger file that counts every execution and effect.

    Every call opens the file, does its work in one transaction (``synchronous=FULL``) and closes
    it, so what a killed process did is on disk.
    """

    def __init__(self, workdir: Path, synchronous: str = "FULL") -> None:
        self.path = Path(workdir) / "world.sqlite"
        self.synchronous = synchronous  # Invariant: FULL wherever a real crash (kill) may happen

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, timeout=10)
        db.execute(f"PRAGMA synchronous={self.synchronous}")
        return db

    def setup(self) -> None:
        """Create the ledger with its orders (idempotent)."""
        db = self._db()
        try:
            db.executescript(WORLD_SCHEMA)
            db.executemany("INSERT OR IGNORE INTO orders VALUES (?,?,?,?)", ORDERS)
        finally:
            db.close()

    def lookup_order(self, call: ToolCall, order_id: str) -> dict[str, Any]:
        """Pure: read an order. Counted as an execution, applies no effect."""
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
            self._executed(db, call)
            row = db.execute("SELECT order_id, email, total_cents, currency FROM orders"
                             " WHERE order_id=?", (order_id,)).fetchone()
            db.execute("COMMIT")
        finally:
            db.close()
        if row is None:
            raise ToolError(tool=call.tool, reason=f"no order {order_id}")
        return dict(zip(("order_id", "email", "total_cents", "currency"), row, strict=True))

    def refund(self, call: ToolCall, order_id: str, amount_cents: int, ref: str
               ) -> dict[str, Any]:
        """Keyed-idempotent: refund once per effect key."""
        return self._apply_once(call, lambda n: {"refund_id": f"re_{n}", "order_id": order_id,
                                                 "amount_cents": amount_cents, "ref": ref,
                                                 "status": "succeeded"})

    def notify(self, call: ToolCall, to: str, text: str) -> dict[str, Any]:
        """Keyed-idempotent: send one e-mail per effect key."""
        return self._apply_once(call, lambda n: {"message_id": f"msg_{n}", "to": to})

    def _executed(self, db: sqlite3.Connection, call: ToolCall) -> None:
        db.execute("INSERT INTO executions (tool, effect_key, attempt, incarnation)"
                   " VALUES (?,?,?,?)", (call.tool, call.effect_key, call.attempt,
                                         call.incarnation))

    def _apply_once(self, call: ToolCall, make: Callable[[int], dict[str, Any]]) -> Any:
        args_digest = digest(call.args)
        db = self._db()
        try:
            db.execute("BEGIN IMMEDIATE")
            self._executed(db, call)
            row = db.execute("SELECT args_digest, result_json FROM effects WHERE effect_key=?",
                             (call.effect_key,)).fetchone()
            if row is None:
                (n,) = db.execute("SELECT count(*) FROM effects WHERE tool=?",
                                  (call.tool,)).fetchone()
                result = make(n + 1)
                db.execute("INSERT INTO effects VALUES (?,?,?,?)",
                           (call.effect_key, call.tool, args_digest, canonical_json(result)))
            db.execute("COMMIT")
        finally:
            db.close()
        if row is None:
            return result
        if row[0] != args_digest:
            raise ToolError(tool=call.tool, reason="effect key reused with other arguments")
        return json.loads(row[1])

    def executions(self) -> list[tuple[str, str, int, int]]:
        """Every execution, in order: (tool, effect_key, attempt, incarnation)."""
        db = self._db()
        try:
            return db.execute("SELECT tool, effect_key, attempt, incarnation FROM executions"
                              " ORDER BY n").fetchall()
        finally:
            db.close()

    def effects(self) -> list[tuple[str, str]]:
        """Every applied effect: (tool, effect_key)."""
        db = self._db()
        try:
            return db.execute("SELECT tool, effect_key FROM effects ORDER BY rowid").fetchall()
        finally:
            db.close()

    def counts(self) -> dict[str, int]:
        """Executions per tool (what the lesson prints)."""
        return dict(Counter(tool for tool, *_ in self.executions()))


def make_tools(world: RefundWorld) -> list[FunctionTool]:
    return [FunctionTool(world.lookup_order, name="lookup_order", effect=EffectClass.PURE),
            FunctionTool(world.refund, name="refund", effect=EffectClass.KEYED),
            FunctionTool(world.notify, name="notify", effect=EffectClass.KEYED)]


def scripted_model(prompt: Any, index: int) -> Any:
    """The model's script: decision 0 plans the refund, decision 1 words the e-mail."""
    if index == 0:
        order = prompt["order"]
        return {"action": "refund", "amount_cents": order["total_cents"],
                "reason": "arrived damaged"}
    refund = prompt["refund"]
    return {"text": f"We refunded {refund['amount_cents'] / 100:.2f} for order "
                    f"{refund['order_id']}."}


def new_refund_ref() -> str:
    """A random reference (not reproducible on purpose: only the journal makes it stable)."""
    return "rf_" + secrets.token_hex(4)


def refund_agent(ctx: Context, task: dict[str, Any]) -> dict[str, Any]:
    """The workflow: seven positions, every outside contact journaled."""
    order = ctx.call_tool("lookup_order", order_id=task["order_id"])           # 0 pure tool
    plan = ctx.decide({"task": task, "order": order}, name="plan")             # 1 decision
    at = ctx.now()                                                             # 2 step (time)
    ref = ctx.step("refund_ref", new_refund_ref)                               # 3 step (random)
    refund = ctx.call_tool("refund", order_id=order["order_id"],               # 4 keyed tool
                           amount_cents=plan["amount_cents"], ref=ref)
    message = ctx.decide({"refund": refund}, name="message")                   # 5 decision
    sent = ctx.call_tool("notify", to=order["email"],                          # 6 keyed tool
                         text=f"{message['text']} Reference {ref}, at {at:.0f}.")
    return {"order_id": order["order_id"], "refund_id": refund["refund_id"],
            "amount_cents": refund["amount_cents"], "message_id": sent["message_id"],
            "ref": ref, "at": at}


class RefundScenario(SQLiteScenario):
    """The refund agent on a SQLite store plus the ledger world, with the oracle above."""

    name = "m03-refund-journal"
    ref = "minirt_course.scenarios.m03_journal:RefundScenario"
    run_id = "refund-A-1001"
    workflow = "refund_agent"
    #: PRAGMA synchronous of both files. FULL: survives SIGKILL (the kill mode proves it). Only a
    #: harness whose crashes are all simulated (the process never dies) may lower it, for speed.
    synchronous = "FULL"
    _baseline: dict[str, Any] | None = None  # the crash-free result, computed once per process

    def setup(self, workdir: Path) -> None:
        super().setup(workdir)
        RefundWorld(workdir).setup()

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> Runtime:
        store = SQLiteStore(Path(workdir) / "runs.sqlite", synchronous=self.synchronous)
        return Runtime(store, clock=FakeClock(EPOCH + clock_offset), faults=faults,
                       worker_id=worker_id, **self.runtime_kwargs(Path(workdir)))

    def runtime_kwargs(self, workdir: Path) -> dict[str, Any]:
        return {"tools": make_tools(RefundWorld(workdir, self.synchronous)),
                "workflows": {self.workflow: refund_agent},
                "model": ScriptedModel(scripted_model)}

    def start(self, rt: Runtime) -> str:
        return rt.start(self.workflow, TASK, run_id=self.run_id)

    def reference_runtime(self, workdir: Path, clock_offset: float = 0.0) -> Runtime:
        """The reference runtime (plain :class:`Context`), whatever a subclass plugs in."""
        return Runtime(SQLiteStore(Path(workdir) / "runs.sqlite"),
                       clock=FakeClock(EPOCH + clock_offset), faults=Faults(),
                       worker_id="w-reference", **RefundScenario.runtime_kwargs(self, workdir))

    def baseline(self) -> dict[str, Any]:
        """The crash-free run's result, from the reference runtime in a scratch directory."""
        if RefundScenario._baseline is None:
            with tempfile.TemporaryDirectory() as tmp:
                RefundScenario.setup(self, Path(tmp))
                rt = self.reference_runtime(Path(tmp))
                try:
                    RefundScenario._baseline = rt.run(RefundScenario.start(self, rt)).result()
                finally:
                    rt.close()
        return dict(RefundScenario._baseline)

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        run = rt.store.get_run(run_id).run
        if not run.is_terminal:
            return Verdict(Outcome.STUCK, f"run is {run.state.value} after recovery")
        events = rt.store.read(run_id)
        payloads = [(e, json.loads(e.payload_json)) for e in events]
        world = RefundWorld(workdir)
        resends = Counter(p["effect_key"] for e, p in payloads if e.kind == "attempt")
        ran = Counter(key for _, key, _, _ in world.executions())
        for key, n in sorted(ran.items()):
            if n > 1 + resends[key]:
                return Verdict(Outcome.DUPLICATE, f"{key} executed {n} times, journal allows "
                                                  f"{1 + resends[key]}")
        intents = {p["tool"]: p["effect_key"] for e, p in payloads if e.kind == "intent"}
        applied = Counter(tool for tool, _ in world.effects())
        for tool in KEYED_TOOLS:
            if applied[tool] > 1:
                return Verdict(Outcome.DUPLICATE, f"{tool} applied {applied[tool]} effects")
            if applied[tool] == 0:
                return Verdict(Outcome.LOST, f"{tool} applied no effect")
        for tool, key in world.effects():
            if intents.get(tool) != key:
                return Verdict(Outcome.WRONG, f"{tool} effect {key} is not the journaled intent")
        if run.state.value != "succeeded":
            return Verdict(Outcome.WRONG, f"run {run.state.value}: {run.detail.get('error')}")
        steps = {p["name"]: p.get("value") for e, p in payloads if e.kind == "step"}
        expected = {**self.baseline(), "at": steps.get("now"), "ref": steps.get("refund_ref")}
        result = run.detail.get("result")
        if result != expected:
            return Verdict(Outcome.WRONG, f"result {result} != expected {expected}")
        return Verdict(Outcome.CLEAN)


SCENARIO = RefundScenario()
