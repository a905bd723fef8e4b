"""What the approval gate re-checks inside the transaction that commits a guarded call's intent.

:meth:`minirt.approvals.ApprovalGate.before_dispatch` checks a call when it is prepared; between
that check and the intent's commit, an operator may revoke something, or another call of the
same run may spend the same allowance. So the gate also runs :func:`check_at_commit` from its
``at_intent_commit`` hook, which :func:`minirt.dispatch.write_intent` calls inside the intent's
own store transaction (SQLite: the write lock is held from ``BEGIN IMMEDIATE``; PostgreSQL: a
read in a transaction locks the run's row, as :meth:`~minirt.store.base.Store.set_kv` does for a
revocation). Three checks:

- **revocations**: every identity the dispatch relies on (capability, credential, receipt,
  approver) is looked up again; one revoked since the gate's check refuses the call
  (:class:`~minirt.approvals.ApprovalRevoked`), nothing is journaled but the refusal.
- **cumulative limits**: the amounts of every dispatched call are reserved, like budgets, in
  the run's kv (``approval:spent:capability:<cap_id>`` and ``approval:spent:run``), committed
  with the intent; ``Guard.max_total`` bounds the total under one capability and
  ``ApprovalGate(run_limit=...)`` the total of all guarded calls of the run
  (:class:`CumulativeLimitExceeded`). Each reservation is also kept per call
  (``approval:reserved:<step>``); when the provider *answered* no (a ``tool_error`` outcome,
  retries exhausted), :func:`release` gives it back in the transaction that records the error
  (the gate's ``at_outcome_commit``). An unknown outcome, or a partial effect
  (:class:`~minirt.contracts.PartialEffect`), keeps it: the money may have moved.
- **clock skew** (the stated policy): with ``ApprovalGate(max_skew=s)`` the gate reads the
  store's clock (:func:`store_time`: PostgreSQL's ``clock_timestamp()``, SQLite's host clock);
  a worker whose clock is more than ``s`` seconds away from it is refused
  (:class:`ClockSkewed`), and receipt and capability expiry are checked against the store's
  clock, not the worker's. Without ``max_skew``, expiry is checked against the worker's clock
  (the old behaviour: a worker whose clock is behind can use an expired receipt).

Guarantees: a revocation committed before the intent's commit stops the dispatch; the run's
and each capability's totals never exceed their limits, whatever the interleaving of its calls.
Not guaranteed: anything for a revocation committed after the intent (the authority was spent
when the intent committed). Fan-out waves (:mod:`minirt.scheduler`) run the same checks for
each child inside the wave's group commit, in step order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .canonical import canonical_json
from .errors import MinirtError

K_SPENT = "approval:spent:"  # kv: approval:spent:capability:<cap_id> | approval:spent:run -> int
K_RESERVED = "approval:reserved:"  # kv: approval:reserved:<step> -> {"amount", "keys"}
K_REVOKED = "revoked:"  # kv: revoked:<id> -> when; written by the gate (minirt.approvals)


class CumulativeLimitExceeded(MinirtError):
    """The call's amount would take a cumulative total over its limit (per capability or per
    run). Not :class:`~minirt.approvals.CapabilityExceeded` (one call above the per-call
    limit)."""

    fields = ("scope", "spent", "amount", "limit")
    template = ("{scope} allows {limit} in total: {spent} is already reserved by dispatched "
                "calls and this call asks for {amount}")


class ClockSkewed(MinirtError):
    """The worker's clock is further from the store's clock than the gate's ``max_skew``: the
    gate fails closed rather than judge an expiry by a clock it cannot trust."""

    fields = ("worker_now", "store_now", "max_skew")
    template = ("this worker's clock reads {worker_now:.3f}, the store's {store_now:.3f}: more "
                "than the gate's max_skew of {max_skew} s apart; fix the worker's clock")


@dataclass
class CommitPlan:
    """What :func:`check_at_commit` re-checks for one guarded call (built at its gate check)."""

    step: int
    request_id: str
    idents: Sequence[str]  # revocable identities the dispatch relies on
    amount: int | None
    limits: Sequence[tuple[str, int | None]]  # (spent key suffix, limit or None: count only)


def store_time(store: Any) -> float | None:
    """The store's own clock, in epoch seconds (None if the store cannot tell)."""
    module = type(store).__module__
    if module.endswith("postgres"):
        sql = "SELECT extract(epoch FROM clock_timestamp())::float8"
    elif module.endswith("sqlite"):
        sql = "SELECT (julianday('now') - 2440587.5) * 86400.0"
    else:
        return None
    with store.transaction() as db:
        row = db.execute(sql).fetchone()
    return float(row[0])


def expiry_now(store: Any, worker_now: float, max_skew: float | None,
               clock: Callable[[Any], float | None] = store_time) -> float:
    """The time expiries are judged by: the worker's, or (with ``max_skew``) the store's, after
    refusing a worker whose clock is too far from it (:class:`ClockSkewed`)."""
    if max_skew is None:
        return worker_now
    ref = clock(store)
    if ref is None:
        return worker_now
    if abs(worker_now - ref) > max_skew:
        raise ClockSkewed(worker_now=worker_now, store_now=ref, max_skew=max_skew)
    return ref


def revocations(store: Any, run_id: str) -> dict[str, float]:
    """The run's revocations (identity -> when), read now (locked inside a transaction)."""
    return {k[len(K_REVOKED):]: json.loads(v) for k, v in store.kv_items(run_id).items()
            if k.startswith(K_REVOKED)}


def check_at_commit(store: Any, run_id: str, plan: CommitPlan,
                    revoked_error: Callable[[str, str, float], MinirtError]) -> None:
    """Inside the intent's transaction: refuse if anything in ``plan.idents`` is revoked or a
    limit would be exceeded; else reserve the amount (kv, committed with the intent)."""
    found = revocations(store, run_id)
    for ident in plan.idents:
        if ident in found:
            raise revoked_error(plan.request_id, ident, found[ident])
    if plan.amount is None:
        for key, limit in plan.limits:
            if limit is not None:  # a call that names no amount cannot be counted: refused
                raise CumulativeLimitExceeded(
                    scope=_scope(key), spent=_spent(store.kv_items(run_id)).get(key, 0),
                    amount=None, limit=limit)
        return
    amount = int(plan.amount)
    spent = _spent(store.kv_items(run_id))
    updates: dict[str, str | None] = {}
    for key, limit in plan.limits:
        total = spent.get(key, 0)
        if limit is not None and total + amount > limit:
            raise CumulativeLimitExceeded(scope=_scope(key), spent=total, amount=amount,
                                          limit=limit)
        updates[K_SPENT + key] = canonical_json(total + amount)
    if updates:
        updates[K_RESERVED + str(plan.step)] = canonical_json(
            {"amount": amount, "keys": [key for key, _ in plan.limits]})
        store.set_kv(run_id, updates)


def release(store: Any, run_id: str, step: int) -> int:
    """Inside the transaction that records the call at ``step`` as an answered error: give its
    reservation back (each total it counted in goes down by its amount; the reservation is
    deleted, so a second release gives nothing). Returns the amount given back (0: none)."""
    items = store.kv_items(run_id)
    raw = items.get(K_RESERVED + str(step))
    if raw is None:
        return 0
    held = json.loads(raw)
    amount = int(held["amount"])
    totals = _spent(items)
    updates: dict[str, str | None] = {K_RESERVED + str(step): None}
    for key in held["keys"]:
        updates[K_SPENT + key] = canonical_json(max(0, totals.get(key, 0) - amount))
    store.set_kv(run_id, updates)
    return amount


def _scope(key: str) -> str:
    return "the run" if key == "run" else key.replace(":", " ", 1)


def _spent(items: Mapping[str, str]) -> dict[str, int]:
    return {k[len(K_SPENT):]: int(json.loads(v)) for k, v in items.items()
            if k.startswith(K_SPENT)}


def spent(store: Any, run_id: str) -> dict[str, int]:
    """The run's reserved totals: ``{"run": n, "capability:<cap_id>": n}``."""
    return _spent(store.kv_items(run_id))
