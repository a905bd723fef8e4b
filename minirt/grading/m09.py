"""Hidden-test logic for drill 09 (runtime budgets). Course tooling, not runtime core.

The learner writes ``reserve(accounts, run_id, reservation_id, amounts, *, step=None)`` and
``settle(accounts, run_id, reservation_id, used)`` over :class:`minirt.budget.Accounts`. Each
``check_*`` drives them on a fresh SQLite store and returns failure messages (empty: the property
holds). A message starts with the property's name in brackets, says what happened, never the
answer. Learner code is never trusted: every call is wrapped (an exception becomes a message),
and every fact is read back from the store through fresh :class:`~minirt.budget.Accounts`
objects and the ledger's audit, never from what the learner returned.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..budget import Accounts, BudgetExceeded, audit
from ..clock import FakeClock
from ..faults import scratch_root, sweep_all
from ..scenarios import m09_budget as m09
from ..store.sqlite import SQLiteStore

Fn = Callable[..., Any]
LIMITS = {"tokens": 1000, "tool_attempts": 5}


def _fmt(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]


@contextmanager
def ledger(limits: dict[str, float] | None = None, *, accounts_class: type[Accounts] = Accounts
           ) -> Iterator[Accounts]:
    """A fresh store with run ``r1`` and its account (and ``r1/child`` under it)."""
    with tempfile.TemporaryDirectory(prefix="m09-", dir=scratch_root()) as tmp:
        store = SQLiteStore(Path(tmp) / "runs.sqlite", synchronous="OFF")
        try:
            for rid in ("r1", "r1/child"):
                store.create_run(rid, "wf", "null", 0.0)
            acc = accounts_class(store, clock=FakeClock())
            acc.open("r1", limits if limits is not None else LIMITS)
            acc.open("r1/child", {"tokens": 800}, parent="r1")
            yield acc
        finally:
            store.close()


def state(acc: Accounts, run_id: str = "r1") -> tuple[dict[str, float], dict[str, float]]:
    """(held, used) of an account, read back from the store."""
    fresh = Accounts(acc.store).account(run_id)
    assert fresh is not None
    return dict(fresh.held), dict(fresh.used)


def check_fail_closed(reserve: Fn) -> list[str]:
    """Within the limit: held. Past it: BudgetExceeded with the right fields, nothing changed."""
    with ledger() as acc:
        try:
            reserve(acc, "r1", "a", {"tokens": 700})
        except Exception as exc:
            return [f"[fail-closed] reserving 700 of 1000 tokens raised {_fmt(exc)}"]
        if state(acc) != ({"tokens": 700}, {}):
            return [f"[fail-closed] after reserving 700 tokens the account holds {state(acc)}"]
        before = (acc.store.kv_items("r1"), len(acc.store.read("r1")))
        try:
            reserve(acc, "r1", "b", {"tokens": 200, "tool_attempts": 9})
        except BudgetExceeded as exc:
            got = (str(exc.run_id), str(exc.dimension), float(exc.requested),
                   float(exc.available), str(exc.limited_by))
            if got != ("r1", "tool_attempts", 9.0, 5.0, "r1"):
                return [f"[fail-closed] the refusal names {got}: check which dimension, how "
                        "much was asked, how much is left and whose limit it was"]
        except Exception as exc:
            return [f"[fail-closed] a reservation past the limit raised {_fmt(exc)}, not "
                    "BudgetExceeded"]
        else:
            return ["[fail-closed] 9 tool attempts were reserved with a limit of 5"]
        if (acc.store.kv_items("r1"), len(acc.store.read("r1"))) != before:
            return ["[fail-closed] a refused reservation still changed the ledger (some of "
                    "its amounts were held, or something was journaled)"]
    return []


class RaceProbe(Accounts):
    """Accounts that make a race visible: an account read outside a transaction is held back
    until every thread has read (or 1 s passed), so a check made outside the transaction that
    holds is stale for all of them, every time, not only when the scheduler is unlucky."""

    barrier: threading.Barrier

    def account(self, run_id: str) -> Any:
        value = super().account(run_id)
        if not self.in_transaction:
            try:
                self.barrier.wait(timeout=1.0)
            except threading.BrokenBarrierError:
                pass
        return value


def check_concurrent(reserve: Fn, threads: int = 12, limit: int = 4) -> list[str]:
    """``threads`` threads race to reserve 1 attempt each against a limit of ``limit``."""
    with ledger({"tool_attempts": limit}, accounts_class=RaceProbe) as acc:
        RaceProbe.barrier = threading.Barrier(threads)
        start, won, errors = threading.Barrier(threads), [], []

        def worker(i: int) -> None:
            try:
                start.wait(timeout=5)
                reserve(acc, "r1", f"tool:{i}:1", {"tool_attempts": 1})
                won.append(i)
            except BudgetExceeded:
                pass
            except BaseException as exc:  # noqa: BLE001 - reported, never printed
                errors.append(exc)

        pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join(timeout=30)
        if errors:
            return [f"[no-overshoot] a racing reservation raised {_fmt(errors[0])}"]
        held = state(acc)[0].get("tool_attempts", 0)
        if len(won) > limit or held > limit:
            return [f"[no-overshoot] {threads} threads raced for {limit} tool attempts: "
                    f"{len(won)} reservations succeeded, {held:g} are held"]
        if len(won) < limit:
            return [f"[no-overshoot] {threads} threads raced for {limit} tool attempts but only "
                    f"{len(won)} succeeded: a free attempt was refused"]
    return []


def check_settle(reserve: Fn, settle: Fn) -> list[str]:
    """Settling charges the actual use and releases the rest of the hold."""
    with ledger() as acc:
        try:
            reserve(acc, "r1", "decision:0", {"tokens": 300})
            settle(acc, "r1", "decision:0", {"tokens": 120})
            reserve(acc, "r1", "tool:1:2", {"tool_attempts": 1})
            settle(acc, "r1", "tool:1:2", {})
        except Exception as exc:
            return [f"[settle-releases] reserve then settle raised {_fmt(exc)}"]
        held, used = state(acc)
        if held:
            return [f"[settle-releases] after settling every reservation {held} is still held"]
        if used != {"tokens": 120}:
            return [f"[settle-releases] 120 tokens were used and one attempt released unused; "
                    f"the account says used {used}"]
        problems = audit(Accounts(acc.store), "r1")
        if problems:
            return [f"[settle-releases] the ledger does not balance: {problems[0][1]}"]
    return []


def check_replay_once(reserve: Fn, settle: Fn) -> list[str]:
    """Reserving and settling again with the same ids (a replay) changes nothing."""
    with ledger() as acc:
        try:
            for _ in range(2):
                reserve(acc, "r1", "decision:0", {"tokens": 300})
            for _ in range(3):
                settle(acc, "r1", "decision:0", {"tokens": 120})
            reserve(acc, "r1", "decision:0", {"tokens": 300})  # replay after the settle
        except Exception as exc:
            return [f"[replay-once] doing the same reservation again raised {_fmt(exc)}"]
        held, used = state(acc)
        if (held, used) != ({}, {"tokens": 120}):
            return [f"[replay-once] one decision reserved twice and settled three times (a "
                    f"replay) left held {held}, used {used}"]
    return []


def check_child(reserve: Fn, settle: Fn) -> list[str]:
    """A child's reservation is checked against, and charged to, its parent's account."""
    with ledger({"tokens": 1000}) as acc:
        try:
            reserve(acc, "r1/child", "d0", {"tokens": 300})
            settle(acc, "r1/child", "d0", {"tokens": 250})
        except Exception as exc:
            return [f"[child-charged] a child's reservation raised {_fmt(exc)}"]
        if state(acc, "r1") != ({}, {"tokens": 250}):
            return [f"[child-charged] the child used 250 tokens; its parent's account shows "
                    f"held/used {state(acc, 'r1')}"]
        try:
            reserve(acc, "r1", "p0", {"tokens": 600})
            reserve(acc, "r1/child", "d1", {"tokens": 400})  # the child's own 800 allows it
        except BudgetExceeded:
            return []
        except Exception as exc:
            return [f"[child-charged] raised {_fmt(exc)} instead of refusing"]
        return ["[child-charged] the parent had 150 tokens left, yet its child reserved 400"]


def check_sweep(reserve: Fn, settle: Fn) -> list[str]:
    """The quote-and-pay run with these functions, crashed at every boundary, recovered: the
    oracle (ledger balanced, charges exactly what the journals record, one charge, one booking)
    says clean everywhere."""
    sc = replace(m09.reference, reserve=reserve, settle=settle)
    matrix = sweep_all([sc], modes=("simulate",))
    bad = matrix.failing()
    if not matrix.cells:
        return ["[crash-balanced] the run could not even start: " + str(matrix.skipped)[:200]]
    if bad:
        c = bad[0]
        return [f"[crash-balanced] crash at {c.point} #{c.occurrence} ({len(bad)} of "
                f"{len(matrix.cells)} crash points failed): {c.verdict.outcome.value} — "
                f"{c.verdict.detail[:200]}"]
    return []


def settle_every_time(accounts: Accounts, run_id: str, reservation_id: str,
                      used: dict[str, float]) -> Any:
    """The ledger of the prediction: settle without looking whether it is already closed."""
    with accounts.transaction():
        res = accounts.reservation(run_id, reservation_id)
        chain = accounts.chain(run_id)
        for acct in chain:
            if res.is_open:
                acct.unhold(res.amounts)
            acct.charge({k: v for k, v in used.items() if v})
        res = res.closed(used)
        accounts.save(res, chain)
    return res


def replay_tokens() -> int:
    """Tokens on the parent's account after the prediction's crash and recovery (run here)."""
    from ..faults import crash_once

    sc = replace(m09.reference, settle=settle_every_time)
    with tempfile.TemporaryDirectory(prefix="m09-", dir=scratch_root()) as tmp:
        crash_once(sc, "before_complete", occurrence=2, workdir=Path(tmp))
        store = SQLiteStore(Path(tmp) / "runs.sqlite")
        try:
            acct = Accounts(store).account(m09.reference.run_id)
            return int(acct.used.get("tokens", 0)) if acct else 0
        finally:
            store.close()


def check_prediction(predicted: Any) -> list[str]:
    try:
        guess = int(predicted)
    except (TypeError, ValueError):
        return ["[predict] the prediction must be a whole number of tokens"]
    actual = replay_tokens()
    if guess != actual:
        return [f"[predict] you predicted {guess} tokens; the run disagrees — rerun it and "
                "look at which positions were replayed"]
    return []
