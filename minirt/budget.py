"""Runtime budgets: reserve bounded work before dispatching it, settle what it used, release the rest.

A run has an **account** with a **limit** per **dimension**: ``tokens`` (model tokens),
``tool_attempts``, ``compute_seconds``, ``retries`` and ``child_runs``. Before the runtime
dispatches work it **reserves** the most that work may use (a **hold**); afterwards it **settles**
the actual use and **releases** the rest. An *estimate* ("about 300 tokens") is advice; a
*reservation* is enforceable: it is taken, or refused, before anything happens.

Invariant, for every account and dimension: ``held + used <= limit``. An account's held and used
include those of its child runs, so a child draws from its parent's budget (hierarchical).

How it is kept:

- **fail closed**: a reservation that would pass the limit of the run or of any ancestor is refused
  with :class:`BudgetExceeded` (run, dimension, requested, available, whose limit) and changes
  nothing;
- **atomic check-and-reserve**: the check and the hold happen in one store transaction
  (``BEGIN IMMEDIATE`` behind the store's lock), so concurrent reservations (threads, or
  processes on one SQLite file) never overshoot;
- **journaled**: every reserve, settle and release appends a ``budget`` event to the owning run's
  journal (its ``step`` column empty, so replay ignores it) in the same transaction as the kv
  balances, fenced by the worker's incarnation: a zombie worker cannot spend;
- **replay never counts twice**: a reservation id comes from durable identities (step position,
  attempt); reserving an existing id returns it; settling a closed one does nothing. A hold left
  open by a crash is found on recovery (replay reaches the same position) and settled or released
  exactly once. Holds still open when a run ends are released by :func:`close`; the journal of a
  finished run is sealed, so that fact is recorded in kv, in the same transaction.

Not guaranteed: that work uses no more than it reserved. A model that ignores its token bound is
an **overrun**: settled as it happened (used may then pass the limit and every later reservation
is refused). The ledger tells the truth; it cannot undo work. A model call whose answer was lost
in a crash is asked again and the ledger charges the recorded answer only (the model's provider
billed both: reconcile with its bill if that matters). :class:`BudgetHook` plugs this into
the runtime; :func:`start_child` starts a child run that draws from its parent's account.
"""

from __future__ import annotations

import json
import math
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from .canonical import canonical_json
from .clock import Clock, SystemClock
from .errors import MinirtError
from .journal import UnresolvedIntent
from .run import TERMINAL, RunState
from .runtime import Context, RuntimeHook
from .store.base import NewEvent, Store
from .tools import Tool, ToolCall


class Dimension(StrEnum):
    TOKENS = "tokens"
    TOOL_ATTEMPTS = "tool_attempts"
    COMPUTE_SECONDS = "compute_seconds"
    RETRIES = "retries"
    CHILD_RUNS = "child_runs"


DIMENSIONS = tuple(d.value for d in Dimension)
K_ACCOUNT = "budget:account"
K_RESERVATION = "budget:res:"
K_CLOSED = "budget:closed"


class BudgetExceeded(MinirtError):
    """A reservation was refused: it would take ``dimension`` past the limit of the run or of an
    ancestor (``limited_by``). Raised before anything is dispatched; nothing changed.

    Not :class:`RetryRefused` (a resend refused, the outcome stays unknown) and not an overrun
    (work that already used more than it reserved is recorded, never refused)."""

    fields = ("run_id", "dimension", "requested", "available", "limited_by")
    template = ("run {run_id}: reserving {requested:g} {dimension} refused, {available:g} "
                "available (limit of run {limited_by})")


class RetryRefused(UnresolvedIntent):
    """Reconciliation allowed a resend but the budget refused it: nothing is sent, the call's
    outcome stays unknown and the run goes UNCERTAIN (fail closed). Not :class:`BudgetExceeded`,
    which refuses new work before any intent exists."""

    fields = ("run_id", "step", "tool", "effect_key", "reason", "dimension", "requested",
              "available")


class ReservationUnknown(MinirtError):
    """Settle of a reservation id that was never reserved in this run. Not a double settle (that
    is a no-op: replay settles again and must change nothing)."""

    fields = ("run_id", "reservation")
    template = "run {run_id} has no reservation {reservation!r}"


class BadAmount(MinirtError):
    """An amount that is not a finite number >= 0, or a dimension that is not one of
    :data:`DIMENSIONS`. Raised before anything is written."""

    fields = ("dimension", "amount", "reason")
    template = "amount {amount!r} of {dimension!r} is not allowed: {reason}"


class NoBudget(MinirtError):
    """A reservation for a run that has no account (fail closed: no account, no spending)."""

    fields = ("run_id",)
    template = "run {run_id} has no budget account (open one with Accounts.open)"


def amounts_of(amounts: Mapping[str, Any], *, keep_zero: bool = False) -> dict[str, float]:
    """Check and normalise ``{dimension: amount}`` (drops zeros unless ``keep_zero``, as a limit
    of 0 must); raises :class:`BadAmount`."""
    out: dict[str, float] = {}
    for dim, n in dict(amounts).items():
        if str(dim) not in DIMENSIONS:
            raise BadAmount(dimension=str(dim), amount=n, reason=f"known: {', '.join(DIMENSIONS)}")
        if isinstance(n, bool) or not isinstance(n, int | float) or not math.isfinite(n) or n < 0:
            raise BadAmount(dimension=str(dim), amount=n, reason="a finite number >= 0")
        if n or keep_zero:
            out[str(dim)] = n
    return out


@dataclass
class Account:
    """One run's account. ``held`` and ``used`` include every descendant's."""

    run_id: str
    limits: dict[str, float]  # Invariant: only limited dimensions; absent = no limit at this level
    held: dict[str, float] = field(default_factory=dict)  # Invariant: sum of open reservations
    used: dict[str, float] = field(default_factory=dict)  # Invariant: sum of settled use
    parent: str | None = None
    children: list[str] = field(default_factory=list)
    ticks: int = 0  # Invariant: on a root account, how many changes its tree has seen

    def available(self, dimension: str) -> float:
        limit = self.limits.get(dimension)
        if limit is None:
            return math.inf
        return limit - self.held.get(dimension, 0) - self.used.get(dimension, 0)

    def hold(self, amounts: Mapping[str, float]) -> None:
        _add(self.held, amounts, 1)

    def unhold(self, amounts: Mapping[str, float]) -> None:
        _add(self.held, amounts, -1)

    def charge(self, amounts: Mapping[str, float]) -> None:
        _add(self.used, amounts, 1)

    def to_json(self) -> str:
        return canonical_json({"run_id": self.run_id, "limits": self.limits, "held": self.held,
                               "used": self.used, "parent": self.parent,
                               "children": self.children, "ticks": self.ticks})

    @classmethod
    def from_json(cls, text: str) -> Account:
        d = json.loads(text)
        return cls(d["run_id"], d["limits"], d["held"], d["used"], d["parent"], d["children"],
                   d.get("ticks", 0))


def _add(bucket: dict[str, float], amounts: Mapping[str, float], sign: int) -> None:
    for dim, n in amounts.items():
        value = bucket.get(dim, 0) + sign * n
        if abs(value) < 1e-9:
            bucket.pop(dim, None)
        else:
            bucket[dim] = value


@dataclass(frozen=True)
class Reservation:
    """A hold: reserved ``amounts`` for one piece of work, then closed once (settled/released)."""

    run_id: str
    reservation_id: str
    amounts: dict[str, float]
    at: float
    step: int | None = None
    state: str = "held"  # Invariant: "held" until closed once, then "settled" or "released"
    used: dict[str, float] = field(default_factory=dict)

    @property
    def is_open(self) -> bool:
        return self.state == "held"

    def closed(self, used: Mapping[str, float]) -> Reservation:
        """This reservation settled with ``used`` (all zero: released)."""
        used = amounts_of(used)
        return replace(self, state="settled" if used else "released", used=used)

    def to_json(self) -> str:
        return canonical_json({"run_id": self.run_id, "reservation_id": self.reservation_id,
                               "amounts": self.amounts, "at": self.at, "step": self.step,
                               "state": self.state, "used": self.used})

    @classmethod
    def from_json(cls, text: str) -> Reservation:
        return cls(**json.loads(text))


class Accounts:
    """Where the ledger lives: accounts and reservations in the store's kv, every change journaled.

    ``incarnation``: the worker's fencing token (writes by a stale one raise StaleIncarnation);
    None writes as whoever holds the run now (tools, tests, operators)."""

    def __init__(self, store: Store, *, incarnation: int | None = None,
                 clock: Clock | None = None) -> None:
        self.store = store
        self.incarnation = incarnation
        self.clock = clock or SystemClock()
        self._local = threading.local()

    @contextmanager
    def transaction(self) -> Iterator[Accounts]:
        """One store transaction (nested calls join it): the place to check and write at once."""
        with self.store.transaction():
            depth = getattr(self._local, "depth", 0)
            self._local.depth = depth + 1
            try:
                yield self
            finally:
                self._local.depth = depth

    @property
    def in_transaction(self) -> bool:
        return getattr(self._local, "depth", 0) > 0

    def open(self, run_id: str, limits: Mapping[str, float] | None = None, *,
             parent: str | None = None) -> Account:
        """Create the run's account (idempotent: an existing account is returned unchanged)."""
        limits = amounts_of(limits or {}, keep_zero=True)
        with self.transaction():
            found = self.account(run_id)
            if found is not None:
                return found
            acct = Account(run_id, limits, parent=parent)
            if parent is not None:
                up = self.account(parent)
                if up is None:
                    raise NoBudget(run_id=parent)
                up.children.append(run_id)
                self.store.set_kv(parent, {K_ACCOUNT: up.to_json()})
            self._journal(run_id, {"op": "open", "limits": limits, "parent": parent},
                          {K_ACCOUNT: acct.to_json()})
        return acct

    def account(self, run_id: str) -> Account | None:
        raw = self.store.kv_get(run_id, K_ACCOUNT)
        return None if raw is None else Account.from_json(raw)

    def chain(self, run_id: str) -> list[Account]:
        """The run's account, then its parent's, up to the root."""
        out: list[Account] = []
        current: str | None = run_id
        while current is not None and len(out) < 64:
            acct = self.account(current)
            if acct is None:
                raise NoBudget(run_id=current)
            out.append(acct)
            current = acct.parent
        return out

    def reservation(self, run_id: str, reservation_id: str) -> Reservation | None:
        raw = self.store.kv_get(run_id, K_RESERVATION + reservation_id)
        return None if raw is None else Reservation.from_json(raw)

    def reservations(self, run_id: str) -> list[Reservation]:
        items = self.store.kv_items(run_id)
        return [Reservation.from_json(v) for k, v in sorted(items.items())
                if k.startswith(K_RESERVATION)]

    def save(self, res: Reservation, chain: Sequence[Account]) -> None:
        """Write ``res`` and the accounts of ``chain`` and journal the change, in one transaction.
        The event's ``op`` follows the reservation: held -> reserve, else settle / release."""
        op = {"held": "reserve", "settled": "settle", "released": "release"}[res.state]
        chain[-1].ticks += 1
        payload = {"op": op, "reservation": res.reservation_id, "step": res.step,
                   "amounts": res.amounts, "used": res.used, "tick": chain[-1].ticks}
        with self.transaction():
            own = {K_RESERVATION + res.reservation_id: res.to_json()}
            for acct in chain:
                if acct.run_id == res.run_id:
                    own[K_ACCOUNT] = acct.to_json()
                else:
                    self.store.set_kv(acct.run_id, {K_ACCOUNT: acct.to_json()})
            self._journal(res.run_id, payload, own)

    def _journal(self, run_id: str, payload: dict[str, Any], kv: dict[str, str | None]) -> None:
        incarnation = self.incarnation
        if incarnation is None:
            incarnation = self.store.get_run(run_id).run.incarnation
        event = NewEvent("budget", None, canonical_json(payload), self.clock.now())
        self.store.append(run_id, incarnation, [event], kv=kv)


# -- the three operations ----------------------------------------------------------------------

def reserve(accounts: Accounts, run_id: str, reservation_id: str,
            amounts: Mapping[str, float], *, step: int | None = None) -> Reservation:
    """Hold ``amounts`` for ``run_id`` and every ancestor, or raise :class:`BudgetExceeded`.

    Check and hold happen in one transaction. Idempotent: an existing id is returned unchanged
    (a replay, or a retry after a crash, reserves nothing twice)."""
    amounts = amounts_of(amounts)
    with accounts.transaction():
        found = accounts.reservation(run_id, reservation_id)
        if found is not None:
            return found
        chain = accounts.chain(run_id)
        for acct in chain:
            for dim, n in amounts.items():
                if n > acct.available(dim):
                    raise BudgetExceeded(run_id=run_id, dimension=dim, requested=n,
                                         available=max(acct.available(dim), 0),
                                         limited_by=acct.run_id)
        for acct in chain:
            acct.hold(amounts)
        res = Reservation(run_id, reservation_id, amounts, accounts.clock.now(), step)
        accounts.save(res, chain)
    return res


def settle(accounts: Accounts, run_id: str, reservation_id: str,
           used: Mapping[str, float]) -> Reservation:
    """Close the reservation with the actual ``used`` (release the rest), in the run and every
    ancestor. Idempotent: a closed reservation is returned unchanged."""
    used = amounts_of(used)
    with accounts.transaction():
        res = accounts.reservation(run_id, reservation_id)
        if res is None:
            raise ReservationUnknown(run_id=run_id, reservation=reservation_id)
        if not res.is_open:
            return res
        chain = accounts.chain(run_id)
        for acct in chain:
            acct.unhold(res.amounts)
            acct.charge(used)
        res = res.closed(used)
        accounts.save(res, chain)
    return res


def release(accounts: Accounts, run_id: str, reservation_id: str) -> Reservation:
    """Close the reservation with nothing used (idempotent)."""
    return settle(accounts, run_id, reservation_id, {})


def close(accounts: Accounts, run_id: str) -> list[str]:
    """Release every hold still open in a finished run (idempotent); return their ids.

    The run's journal is sealed, so the releases and a ``budget:closed`` record go to kv in one
    transaction instead."""
    with accounts.transaction():
        open_ = [r for r in accounts.reservations(run_id) if r.is_open]
        if accounts.store.kv_get(run_id, K_CLOSED) is not None or not open_:
            return []
        chain = accounts.chain(run_id)
        kv: dict[str, str | None] = {}
        for res in open_:
            for acct in chain:
                acct.unhold(res.amounts)
            kv[K_RESERVATION + res.reservation_id] = res.closed({}).to_json()
        for acct in chain[1:]:
            accounts.store.set_kv(acct.run_id, {K_ACCOUNT: acct.to_json()})
        kv[K_ACCOUNT] = chain[0].to_json()
        kv[K_CLOSED] = canonical_json({"released": [r.reservation_id for r in open_],
                                       "at": accounts.clock.now()})
        accounts.store.set_kv(run_id, kv)
    return [r.reservation_id for r in open_]


ReserveFn = Callable[..., Any]  # reserve(accounts, run_id, reservation_id, amounts, *, step=)
SettleFn = Callable[..., Any]  # settle(accounts, run_id, reservation_id, used)


# -- the runtime hook -----------------------------------------------------------------------------

def usage_of(output: Any, reserved: float) -> float:
    """Tokens a model output reports (``output["usage"]``: ``total_tokens``, or ``input_tokens``
    + ``output_tokens``). No report: the whole reservation is charged (fail closed)."""
    usage = output.get("usage") if isinstance(output, dict) else None
    tokens: Any = reserved
    if isinstance(usage, dict):
        if "total_tokens" in usage:
            tokens = usage["total_tokens"]
        elif "input_tokens" in usage or "output_tokens" in usage:
            tokens = usage.get("input_tokens", 0) + usage.get("output_tokens", 0)
    return int(tokens) if float(tokens).is_integer() else float(tokens)


class BudgetHook(RuntimeHook):
    """Reserve before dispatch, settle after, for tool calls, resends and model decisions.

    Reservation ids: ``tool:<step>:<attempt>``, ``decision:<step>``, ``child:<name>``. A tool
    attempt holds 1 ``tool_attempts`` (+1 ``retries`` for a resend) and its timeout in
    ``compute_seconds``; a decision holds ``tokens_per_decision`` tokens (the model's bound).
    Put it last in ``hooks``: a later hook that refuses a call leaves its hold to :func:`close`.
    ``reserve``/``settle`` are pluggable (the drill plugs a learner's in).
    """

    def __init__(self, limits: Mapping[str, float] | None = None, *,
                 tokens_per_decision: float = 1000, seconds_per_call: float = 30.0,
                 reserve: ReserveFn = reserve, settle: SettleFn = settle) -> None:
        self.limits = amounts_of(limits or {}, keep_zero=True)
        self.tokens_per_decision = tokens_per_decision
        self.seconds_per_call = seconds_per_call
        self.reserve, self.settle = reserve, settle
        self._opened: weakref.WeakSet[Context] = weakref.WeakSet()

    def accounts(self, ctx: Context) -> Accounts:
        return Accounts(ctx.runtime.store, incarnation=ctx.incarnation, clock=ctx.runtime.clock)

    def attempt_amounts(self, tool: Tool, attempt: int) -> dict[str, float]:
        limits = getattr(tool, "limits", None)
        seconds = float(getattr(limits, "timeout_s", self.seconds_per_call))
        return {Dimension.TOOL_ATTEMPTS: 1, Dimension.RETRIES: 1 if attempt > 1 else 0,
                Dimension.COMPUTE_SECONDS: seconds}

    def _hold(self, ctx: Context, rid: str, amounts: Mapping[str, float], step: int) -> None:
        self.reserve(self.accounts(ctx), ctx.run_id, rid, amounts, step=step)
        ctx.runtime.faults.hit("after_budget_reserve", step=step)

    def _close(self, ctx: Context, acc: Accounts, rid: str, used: Mapping[str, float]) -> None:
        found = acc.reservation(ctx.run_id, rid)
        if found is None:
            return
        if found.is_open:
            ctx.runtime.faults.hit("before_budget_settle", step=found.step)
        self.settle(acc, ctx.run_id, rid, used)  # also when closed: replay must change nothing

    def at_checkpoint(self, ctx: Context) -> None:
        if ctx not in self._opened:
            self.accounts(ctx).open(ctx.run_id, self.limits)
            self._opened.add(ctx)

    def before_dispatch(self, ctx: Context, tool: Tool, call: ToolCall) -> None:
        self._hold(ctx, f"tool:{call.step}:1", self.attempt_amounts(tool, 1), call.step)

    def before_redispatch(self, ctx: Context, tool: Tool, call: ToolCall) -> None:
        try:
            self._hold(ctx, f"tool:{call.step}:{call.attempt}",
                       self.attempt_amounts(tool, call.attempt), call.step)
        except BudgetExceeded as exc:
            raise RetryRefused(run_id=ctx.run_id, step=call.step, tool=call.tool,
                               effect_key=call.effect_key, reason=str(exc),
                               dimension=exc.dimension, requested=exc.requested,
                               available=exc.available) from None

    def after_outcome(self, ctx: Context, call: ToolCall, kind: str, payload: Any) -> None:
        acc, now = self.accounts(ctx), ctx.runtime.clock.now()
        for attempt in range(1, ctx.runtime.max_attempts + 1):
            rid = f"tool:{call.step}:{attempt}"
            res = acc.reservation(ctx.run_id, rid)
            if res is None:
                continue
            used: dict[str, float] = {}
            if attempt <= call.attempt:  # sent; a hold beyond the last attempt was never used
                seconds = res.amounts.get(Dimension.COMPUTE_SECONDS, 0)
                used = {Dimension.TOOL_ATTEMPTS: 1, Dimension.RETRIES: 1 if attempt > 1 else 0,
                        Dimension.COMPUTE_SECONDS: min(seconds, max(now - res.at, 0.0))}
            self._close(ctx, acc, rid, used)

    def before_decision(self, ctx: Context, step: int, name: str, prompt: Any) -> None:
        self._hold(ctx, f"decision:{step}", {Dimension.TOKENS: self.tokens_per_decision}, step)

    def on_position(self, ctx: Context, step: int, kind: str, name: str, replayed: bool) -> None:
        if kind != "decision":
            return
        acc, rid = self.accounts(ctx), f"decision:{step}"
        res = acc.reservation(ctx.run_id, rid)
        pos = ctx.journal.at(step)
        if res is None or pos is None or pos.opening is None:
            return
        output = ctx.journal.payload(pos.opening)["output"]
        tokens = usage_of(output, res.amounts.get(Dimension.TOKENS, 0))
        self._close(ctx, acc, rid, {Dimension.TOKENS: tokens})

    def on_run_end(self, ctx: Context, state: RunState) -> None:
        if state in TERMINAL:
            close(Accounts(ctx.runtime.store, clock=ctx.runtime.clock), ctx.run_id)


def _hook(ctx: Context) -> BudgetHook:
    for h in ctx.runtime.hooks:
        if isinstance(h, BudgetHook):
            return h
    raise NoBudget(run_id=ctx.run_id)


def start_child(ctx: Context, workflow: str, input: Any = None, *, name: str,
                limits: Mapping[str, float] | None = None) -> str:
    """Start (or get) the child run ``<run_id>/<name>``, charged to this run: one ``child_runs``
    held until :func:`run_child` joins it, and the child's account linked to this one, so every
    reservation of the child is checked against this run's limits too. A recorded step."""
    hook, child_id = _hook(ctx), f"{ctx.run_id}/{name}"

    def spawn() -> str:
        hook.reserve(hook.accounts(ctx), ctx.run_id, f"child:{name}",
                     {Dimension.CHILD_RUNS: 1}, step=ctx.position - 1)
        ctx.runtime.start(workflow, input, run_id=child_id)
        Accounts(ctx.runtime.store, clock=ctx.runtime.clock).open(child_id, limits,
                                                                  parent=ctx.run_id)
        return child_id

    return ctx.step(f"start_child:{name}", spawn)


def run_child(ctx: Context, child_id: str) -> Any:
    """Run the child to its end (a recorded step), settle its ``child_runs`` hold, return its
    result (or raise its failure)."""
    hook, name = _hook(ctx), child_id.rsplit("/", 1)[-1]

    def join() -> Any:
        outcome = ctx.runtime.run(child_id)
        hook.settle(hook.accounts(ctx), ctx.run_id, f"child:{name}", {Dimension.CHILD_RUNS: 1})
        return outcome.result()

    return ctx.step(f"run_child:{name}", join)


# -- reading the ledger back ------------------------------------------------------------------------

def tree(accounts: Accounts, run_id: str) -> list[str]:
    """``run_id`` and every descendant that has an account, parents first."""
    out, todo = [], [run_id]
    while todo:
        current = todo.pop(0)
        acct = accounts.account(current)
        if acct is not None:
            out.append(current)
            todo += acct.children
    return out


def history(store: Store, run_id: str) -> list[dict[str, Any]]:
    """Every budget event of the run's tree, in the order the ledger changed (by ``tick``)."""
    events = []
    for rid in tree(Accounts(store), run_id):
        for e in store.read(rid):
            if e.kind == "budget":
                events.append({**e.payload, "run_id": rid, "at": e.at, "seq": e.seq})
    return sorted(events, key=lambda d: (d.get("tick", 0), d["at"], d["seq"]))


def audit(accounts: Accounts, run_id: str, *, finished: bool = True) -> list[tuple[str, str]]:
    """``(kind, message)`` for every way the ledger of the run's tree fails to balance; empty when
    it balances. Kinds: ``double`` (reserved or closed twice), ``unbalanced`` (an account's held
    or used is not the sum of its reservations), ``open`` (a hold never closed; only when
    ``finished``), ``over-limit``."""
    problems: list[tuple[str, str]] = []
    runs = tree(accounts, run_id)
    held: dict[str, dict[str, float]] = {r: {} for r in runs}
    used: dict[str, dict[str, float]] = {r: {} for r in runs}
    for rid in runs:
        ops: dict[str, list[str]] = {}
        for e in accounts.store.read(rid):
            if e.kind == "budget" and "reservation" in e.payload:
                ops.setdefault(e.payload["reservation"], []).append(e.payload["op"])
        closed_at_end = json.loads(accounts.store.kv_get(rid, K_CLOSED) or '{"released": []}')
        for res in accounts.reservations(rid):
            seen = ops.get(res.reservation_id, [])
            closes = [o for o in seen if o != "reserve"]
            if seen.count("reserve") != 1 or len(closes) > 1:
                problems.append(("double", f"{rid} {res.reservation_id}: journal has {seen}"))
            if res.is_open:
                if finished:
                    problems.append(("open", f"{rid} {res.reservation_id} is still held"))
            elif not closes and res.reservation_id not in closed_at_end["released"]:
                problems.append(("double", f"{rid} {res.reservation_id} closed without a record"))
            for r in _ancestors(accounts, rid, runs):
                _add(held[r] if res.is_open else used[r], res.amounts if res.is_open else res.used, 1)
    for r in runs:
        acct = accounts.account(r)
        assert acct is not None
        for what, expect, got in (("held", held[r], acct.held), ("used", used[r], acct.used)):
            if {k: round(v, 6) for k, v in expect.items()} != {k: round(v, 6) for k, v in got.items()}:
                problems.append(("unbalanced", f"{r} {what} {got} but its reservations say {expect}"))
        for dim, limit in acct.limits.items():
            if acct.held.get(dim, 0) + acct.used.get(dim, 0) > limit + 1e-9:
                problems.append(("over-limit", f"{r} {dim}: held {acct.held.get(dim, 0):g} + used "
                                               f"{acct.used.get(dim, 0):g} > limit {limit:g}"))
    return problems


def _ancestors(accounts: Accounts, run_id: str, within: Sequence[str]) -> list[str]:
    return [a.run_id for a in accounts.chain(run_id) if a.run_id in within]
