"""Module 07's crash drill: a support agent's fan-out of six tool calls, judged by the shop's ledger.

A customer asks to fix the delivery address of order A-42 and to be sent the invoice again. The
agent fans out (:func:`fanout_calls`): three look-ups (order, customer, stock), then
``update_address`` (writes ``customers:cus_42``), ``reserve_stock`` (needs the order's quantity,
writes ``stock:lamp``) and ``send_invoice`` (needs the order's amount, reads ``customers:cus_42``).
The plan with ``max_in_flight=3`` is three waves; the invoice must wait for the address update
(read-after-write), the reservation for the stock check (write-after-read).

Concurrency is real (child threads) and deterministic: a :class:`Sequencer` lets the children of
a wave finish one at a time in the order of a simulated latency, each only after the parent
journaled the previous one, and moves the fake clock to each finish time (so the journal's times
draw a true Gantt chart). The completion order (customer, stock, order; then reserve, address)
is not the step order, on purpose.

The shop (:class:`ShopProvider`) keeps its own SQLite ledger: one ``executions`` row for every
request it served (look-ups included), one effect row per address update, reservation and
invoice, and the address each invoice went to. The oracle says CLEAN only if the run succeeded
with the crash-free run's result (same join, same reply), every write happened exactly once, the
invoice went to the new address, and no call whose result was journaled before the crash
executed again.
"""

from __future__ import annotations

import functools
import json
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from minirt.canonical import canonical_json
from minirt.clock import FakeClock
from minirt.errors import MinirtError
from minirt.faults import Faults, Outcome, Verdict
from minirt.journal import NonDeterminism
from minirt.run import RunState
from minirt.runtime import Context, Runtime, RuntimeHook, ScriptedModel
from minirt.scheduler import Call, ChildCancelled, current_scope, parallel, plan_waves, ref
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, Lookup, OutcomeUnknown, ToolCall
from minirt.world.provider import Provider

from . import EPOCH

REQUEST = {"order_id": "A-42", "customer": "cus_42", "sku": "lamp",
           "new_address": "7 New Street, Bern"}
OLD_ADDRESS = "1 Old Road, Basel"
ORDERS = {"A-42": {"order_id": "A-42", "sku": "lamp", "qty": 2, "amount_cents": 8400}}
#: Simulated latency (seconds) per tool: the children of a wave finish in this order.
LATENCY = {"lookup_order": 0.30, "lookup_customer": 0.10, "check_stock": 0.20,
           "update_address": 0.50, "reserve_stock": 0.20, "send_invoice": 0.40}
MAX_IN_FLIGHT = 3
WRITES = ("address_update", "reservation", "invoice")


# -- the world: a shop with a ledger -----------------------------------------------------------

class ShopProvider(Provider):
    """Orders, customers and stock, with keyed writes and a durable count of every request."""

    name = "shop"
    schema = """
    CREATE TABLE IF NOT EXISTS executions (seq INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL,
        effect_key TEXT NOT NULL, at REAL NOT NULL);
    CREATE TABLE IF NOT EXISTS responses (effect_key TEXT PRIMARY KEY, op TEXT NOT NULL,
        response_json TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS customers (customer TEXT PRIMARY KEY, address TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS stock (sku TEXT PRIMARY KEY, available INTEGER NOT NULL);
    """

    def seed(self) -> None:
        """Put the customer and the stock in place (idempotent)."""
        with self.ledger.transaction() as db:
            db.execute("INSERT OR IGNORE INTO customers VALUES (?, ?)", ("cus_42", OLD_ADDRESS))
            db.execute("INSERT OR IGNORE INTO stock VALUES (?, ?)", ("lamp", 5))

    def read(self, op: str, key: str, **args: Any) -> dict[str, Any]:
        """A look-up (not idempotent-keyed; every request is counted)."""
        def commit() -> dict[str, Any]:
            with self.ledger.transaction() as db:
                db.execute("INSERT INTO executions (op, effect_key, at) VALUES (?,?,?)",
                           (op, key, self.clock.now()))
                if op == "lookup_order":
                    return dict(ORDERS[args["order_id"]])
                if op == "lookup_customer":
                    row = db.execute("SELECT address FROM customers WHERE customer=?",
                                     (args["customer"],)).fetchone()
                    return {"customer": args["customer"], "address": row[0]}
                row = db.execute("SELECT available FROM stock WHERE sku=?",
                                 (args["sku"],)).fetchone()
                return {"sku": args["sku"], "available": row[0]}
        return self._serve(op, key, commit)

    def write(self, op: str, key: str, **args: Any) -> dict[str, Any]:
        """A keyed write: the same key returns the saved response and changes nothing."""
        def commit() -> dict[str, Any]:
            with self.ledger.transaction() as db:
                now = self.clock.now()
                db.execute("INSERT INTO executions (op, effect_key, at) VALUES (?,?,?)",
                           (op, key, now))
                saved = db.execute("SELECT response_json FROM responses WHERE effect_key=?",
                                   (key,)).fetchone()
                if saved:
                    return json.loads(saved[0])
                response = self._apply_txn(db, op, key, args, now)
                db.execute("INSERT INTO responses VALUES (?,?,?)",
                           (key, op, canonical_json(response)))
                return response
        return self._serve(op, key, commit)

    def _apply_txn(self, db: Any, op: str, key: str, args: dict[str, Any], now: float
                   ) -> dict[str, Any]:
        if op == "update_address":
            db.execute("UPDATE customers SET address=? WHERE customer=?",
                       (args["address"], args["customer"]))
            self.ledger.record_txn(db, prefix="adr", kind="address_update", effect_key=key,
                                   params=args, at=now, status="done")
            return {"update_id": _id("adr", key), "address": args["address"]}
        if op == "reserve_stock":
            db.execute("UPDATE stock SET available=available-? WHERE sku=?",
                       (args["qty"], args["sku"]))
            self.ledger.record_txn(db, prefix="rsv", kind="reservation", effect_key=key,
                                   params=args, at=now, status="held")
            return {"reservation_id": _id("rsv", key), "qty": args["qty"]}
        address = db.execute("SELECT address FROM customers WHERE customer=?",
                             (args["customer"],)).fetchone()[0]
        self.ledger.record_txn(db, prefix="inv", kind="invoice", effect_key=key,
                               params={**args, "address": address}, at=now, status="sent")
        return {"invoice_id": _id("inv", key), "address": address,
                "amount_cents": args["amount_cents"]}

    def lookup(self, key: str) -> dict[str, Any] | None:
        """The saved response of a keyed write, or None."""
        with self.ledger.transaction() as db:
            row = db.execute("SELECT response_json FROM responses WHERE effect_key=?",
                             (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def executions(self, effect_key: str) -> int:
        """How many requests under ``effect_key`` the shop served (look-ups included)."""
        with self.ledger.transaction() as db:
            return int(db.execute("SELECT COUNT(*) FROM executions WHERE effect_key=?",
                                  (effect_key,)).fetchone()[0])


def _id(prefix: str, key: str) -> str:
    """The shop's id for a keyed write: derived from the key, so it does not depend on which
    of two independent writes the shop happened to serve first."""
    return f"{prefix}_{key.removeprefix('ek_')[:8]}"


# -- deterministic concurrency -----------------------------------------------------------------

class Sequencer(RuntimeHook):
    """Children of a fan-out finish one at a time, in a chosen order: concurrency you can replay.

    A call is *admitted* when its intent is about to be journaled (``before_dispatch``) and
    leaves when its outcome is journaled (``after_outcome``). A tool that runs through
    :meth:`invoke` waits until it is the admitted call with the smallest key: by default its
    simulated finish time (admission time + ``latency``), so the fake ``clock`` jumps to that time
    when it goes. A call that was never admitted (a resend during recovery) goes at once. A
    waiting child wakes up when its fan-out's scope is cancelled (a crash of the parent).

    Install it as the LAST hook: a later hook that refuses a call would leave it admitted.
    """

    def __init__(self, clock: FakeClock | None = None,
                 latency: Mapping[str, float] | None = None,
                 key: Callable[[ToolCall, float], Any] | None = None) -> None:
        self.clock = clock
        self.latency = dict(latency or {})
        self.key = key or (lambda call, finish_at: (finish_at, call.step))
        self._cond = threading.Condition()
        self._admitted: dict[str, tuple[Any, float]] = {}  # effect_key -> (order key, finish_at)
        self.released: list[int] = []  # steps in the order they were let go

    def before_dispatch(self, ctx: Context, tool: Any, call: ToolCall) -> None:
        start = self.clock.now() if self.clock is not None else 0.0
        finish_at = start + float(self.latency.get(call.tool, 0.0))
        with self._cond:
            self._admitted[call.effect_key] = (self.key(call, finish_at), finish_at)

    def after_outcome(self, ctx: Context, call: ToolCall, kind: str, payload: Any) -> None:
        self._leave(call.effect_key)

    def _leave(self, effect_key: str) -> None:
        with self._cond:
            self._admitted.pop(effect_key, None)
            self._cond.notify_all()

    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def invoke(self, call: ToolCall, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` when it is ``call``'s turn."""
        scope = current_scope()
        if scope is not None:
            scope.on_cancel(self._wake)
        with self._cond:
            while call.effect_key in self._admitted and min(
                    self._admitted, key=lambda k: self._admitted[k][0]) != call.effect_key:
                if scope is not None and scope.cancel_called:
                    raise ChildCancelled()
                self._cond.wait()
            if scope is not None and scope.cancel_called:
                raise ChildCancelled()
            entry = self._admitted.get(call.effect_key)
            if entry is not None and self.clock is not None:
                self.clock.set(max(self.clock.now(), entry[1]))
            self.released.append(call.step)
        try:
            return fn()
        except OutcomeUnknown:  # the parent reconciles it later: let the next child go now
            self._leave(call.effect_key)
            raise
        except MinirtError:  # a refusal: the parent journals it at once, then lets go
            raise
        except Exception:  # no answer (a non-pure tool's crash): reconciled later, as above
            self._leave(call.effect_key)
            raise


class Arrivals(RuntimeHook):
    """Records, per execution, the tool outcomes in the order they reach the workflow: fresh
    ones as they complete, replayed ones as replay meets them (:func:`arrivals_of`)."""

    def after_outcome(self, ctx: Context, call: ToolCall, kind: str, payload: Any) -> None:
        if kind == "tool_result":
            ctx.state_for(self, list).append((call.step, payload["value"]))


def arrivals_of(ctx: Context) -> list[tuple[int, Any]]:
    """``(step, value)`` of every tool result of this execution, in arrival order (empty
    without an :class:`Arrivals` hook)."""
    hook = next((h for h in ctx.runtime.hooks if isinstance(h, Arrivals)), None)
    return [] if hook is None else list(ctx.state_for(hook, list))


# -- tools over the shop -----------------------------------------------------------------------

@dataclass
class ShopTool:
    """A tool over the shop: look-ups are pure, writes are keyed with a lookup."""

    name: str
    shop: ShopProvider
    sequencer: Sequencer

    @property
    def effect(self) -> EffectClass:
        return EffectClass.PURE if self.name in READS else EffectClass.KEYED

    @property
    def has_lookup(self) -> bool:
        return self.effect is EffectClass.KEYED

    def prepare(self, args: dict[str, Any], scopes: frozenset[str]) -> dict[str, Any]:
        return dict(args)

    def invoke(self, call: ToolCall) -> Any:
        op = self.shop.read if self.effect is EffectClass.PURE else self.shop.write
        return self.sequencer.invoke(call, lambda: op(self.name, call.effect_key, **call.args))

    def lookup(self, call: ToolCall) -> Lookup:
        found = self.shop.lookup(call.effect_key)
        return Lookup(found is not None, found)


READS = ("lookup_order", "lookup_customer", "check_stock")


def fanout_calls(req: Mapping[str, Any]) -> list[Call]:
    """The agent's six calls, with their data dependencies and resource sets."""
    o, c, sku = req["order_id"], req["customer"], req["sku"]
    return [
        Call("lookup_order", {"order_id": o}, reads={f"orders:{o}"}, name="order"),
        Call("lookup_customer", {"customer": c}, reads={f"customers:{c}"}, name="customer"),
        Call("check_stock", {"sku": sku}, reads={f"stock:{sku}"}, name="stock"),
        Call("update_address", {"customer": c, "address": req["new_address"]},
             writes={f"customers:{c}"}, name="address"),
        Call("reserve_stock", {"sku": sku, "qty": ref("order", "qty")},
             writes={f"stock:{sku}"}, name="reserve"),
        Call("send_invoice", {"customer": c, "order_id": o,
                              "amount_cents": ref("order", "amount_cents")},
             reads={f"customers:{c}", f"orders:{o}"}, name="invoice"),
    ]


def blind_fanout(shop: ShopProvider, calls: Sequence[Call], sequencer: Sequencer
                 ) -> list[tuple[str, Any]]:
    """The WRONG design, kept for the lesson: every call of the visible list at once, no plan,
    no journal; results in the order they come back. Arguments must be literal (no Refs)."""
    todo = [ToolCall("blind", i, c.tool, dict(c.args), f"ek_blind{i:02d}")
            for i, c in enumerate(calls)]
    for call in todo:
        sequencer.before_dispatch(None, None, call)  # type: ignore[arg-type]

    def one(call: ToolCall) -> tuple[str, Any]:
        out = ShopTool(call.tool, shop, sequencer).invoke(call)
        sequencer.after_outcome(None, call, "tool_result", out)  # type: ignore[arg-type]
        return call.tool, out

    arrived: list[tuple[str, Any]] = []
    with ThreadPoolExecutor(max_workers=len(todo)) as pool:
        for fut in as_completed([pool.submit(one, call) for call in todo]):
            arrived.append(fut.result())
    return arrived


def by_step(arrivals: Sequence[tuple[int, Any]]) -> list[Any]:
    """The deterministic join: results in step order, whatever order they arrived in."""
    return [value for _, value in sorted(arrivals, key=lambda a: a[0])]


def support_agent(ctx: Context, req: dict[str, Any]) -> dict[str, Any]:
    """Fan out the six calls, join their results, let the model write the reply."""
    opts = getattr(ctx.runtime, "fanout_options", {})
    first = ctx.position
    calls = fanout_calls(req)
    parallel(ctx, calls, max_in_flight=MAX_IN_FLIGHT, planner=opts.get("planner", plan_waves))
    mine = [(s, v) for s, v in arrivals_of(ctx) if first <= s < first + len(calls)]
    joined = opts.get("join", by_step)(mine)
    reply = ctx.decide({"task": "reply to the customer", "results": joined})
    return {"results": joined, "reply": reply}


def write_reply(prompt: Any, index: int) -> dict[str, Any]:
    """The scripted model: its reply is built from the joined results, in the order given."""
    parts = [r[min(r)] if isinstance(r, dict) and r else r for r in prompt["results"]]
    return {"text": "done: " + ", ".join(str(p) for p in parts)}


# -- the scenario ------------------------------------------------------------------------------

class FanoutRuntime(Runtime):
    """A runtime that closes its shop and carries the fan-out's planner and join."""

    world: tuple[Any, ...] = ()
    fanout_options: dict[str, Any] = {}

    def close(self) -> None:
        for provider in self.world:
            provider.close()
        super().close()


@dataclass(frozen=True)
class FanoutScenario:
    """The drill (see the module docstring). ``planner`` and ``join`` are swappable."""

    name: str = "m07-fanout"
    ref: str = "minirt_course.scenarios.m07_fanout:fanout"
    planner: Callable[..., Any] = plan_waves
    join: Callable[[Sequence[tuple[int, Any]]], Any] = by_step
    run_id: str = "run-m07"

    def setup(self, workdir: Path) -> None:
        Path(workdir).mkdir(parents=True, exist_ok=True)
        with ShopProvider(Path(workdir) / "shop.sqlite") as shop:
            shop.seed()

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> FanoutRuntime:
        wd = Path(workdir)
        clock = FakeClock(EPOCH + clock_offset)
        shop = ShopProvider(wd / "shop.sqlite", clock)
        seq = Sequencer(clock, LATENCY)
        tools = [ShopTool(n, shop, seq) for n in (*READS, "update_address", "reserve_stock",
                                                   "send_invoice")]
        rt = FanoutRuntime(SQLiteStore(wd / "runs.sqlite"), tools=tools,
                           workflows={"support_agent": support_agent},
                           model=ScriptedModel(write_reply), clock=clock, faults=faults,
                           worker_id=worker_id, hooks=[Arrivals(), seq])
        rt.world = (shop,)
        rt.fanout_options = {"planner": self.planner, "join": self.join}
        return rt

    def start(self, rt: Runtime) -> str:
        return rt.start("support_agent", REQUEST, run_id=self.run_id)

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        shop = ShopProvider(Path(workdir) / "shop.sqlite")
        try:
            return judge(shop, rt, run_id, reference_result())
        finally:
            shop.close()


def judge(shop: ShopProvider, rt: Runtime, run_id: str, expected: Any) -> Verdict:
    """The shop's ledger and the journal against the crash-free run (module docstring)."""
    outcome = rt.outcome(run_id)
    if outcome.state is not RunState.SUCCEEDED:
        # a run parked because its code diverged from its journal is a wrong run, as when
        # divergence failed it (minirt.divergence parks it so a rollback can finish it)
        wrong = outcome.state is RunState.FAILED or isinstance(outcome.error, NonDeterminism)
        kind = Outcome.WRONG if wrong else Outcome.STUCK
        return Verdict(kind, f"run ended {outcome.state.value}: {outcome.error}")
    for kind in WRITES:
        n = len(shop.effects(kind))
        if n != 1:
            return Verdict(Outcome.DUPLICATE if n > 1 else Outcome.LOST, f"{n} {kind} effects")
    invoice = shop.effects("invoice")[0]
    if invoice["params"]["address"] != REQUEST["new_address"]:
        return Verdict(Outcome.WRONG, "the invoice went to the old address (a read-after-write "
                                      "race on customers:cus_42)")
    for e in rt.store.read(run_id):
        if e.kind == "tool_result" and e.incarnation == 1:
            key = e.payload["effect_key"]
            if shop.executions(key) != 1:
                return Verdict(Outcome.DUPLICATE, f"step {e.step} finished before the crash and "
                                                  f"ran {shop.executions(key)} times")
    if canonical_json(outcome.value) != canonical_json(expected):
        return Verdict(Outcome.WRONG, "the join (or the reply) differs from the crash-free run")
    return Verdict(Outcome.CLEAN, "each write once, invoice to the new address, same join")


@functools.lru_cache(maxsize=1)
def reference_result() -> Any:
    """The result of a crash-free run with the reference planner and join (computed once)."""
    sc = FanoutScenario()
    with tempfile.TemporaryDirectory(prefix="m07-ref-") as tmp:
        sc.setup(Path(tmp))
        rt = sc.make_runtime(Path(tmp), faults=Faults(), clock_offset=0.0, worker_id="w-ref")
        try:
            return rt.run(sc.start(rt)).result()
        finally:
            rt.close()


def run_once(workdir: Path, scenario: FanoutScenario | None = None) -> tuple[Any, FanoutRuntime]:
    """Set up and run the scenario crash-free in ``workdir``; return (outcome, open runtime)."""
    sc = scenario or FanoutScenario()
    sc.setup(workdir)
    rt = sc.make_runtime(workdir, faults=Faults(), clock_offset=0.0, worker_id="w-1")
    try:
        return rt.run(sc.start(rt)), rt
    except MinirtError:
        rt.close()
        raise


fanout = FanoutScenario()
