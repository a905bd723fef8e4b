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

import copy
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from minirt import budget as _budget
from minirt.budget import Accounts, BudgetExceeded, audit
from minirt.clock import FakeClock
from minirt.faults import scratch_root, sweep_all
from minirt.store.sqlite import SQLiteStore

from ..scenarios import m09_budget as m09
from .differential import falsify, plain_equal, same_fields

Fn = Callable[..., Any]
#: What the drill's answer and plain cells may use (the out-of-kernel run allows nothing else).
LEARNER_API = ("LIMITS", "ledger", "state")
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


# -- the differential properties ---------------------------------------------------------------
#
# Each property below runs a generated sequence of calls through the learner's functions on one
# fresh ledger and through the reference (minirt.budget.reserve / settle) on another, and after
# every call compares what came back (every field of the Reservation, or of the refusal) and the
# whole ledger (held, used and limits of both accounts, every reservation with every field, the
# journal's length). Amounts are chosen relative to what is available at that moment (one less,
# exactly, one more, more than either account has), so every comparison's boundary is probed.

RUNS = ("r1", "r1/child")
RES_FIELDS = ("run_id", "reservation_id", "amounts", "at", "step", "state", "used")
REFUSAL_FIELDS = ("run_id", "dimension", "requested", "available", "limited_by")
DIMS = ("tokens", "tool_attempts")

_limits = st.fixed_dictionaries({
    "r1": st.fixed_dictionaries({}, optional={"tokens": st.sampled_from([0, 300, 1000]),
                                              "tool_attempts": st.sampled_from([1, 3, 5])}),
    "r1/child": st.fixed_dictionaries({}, optional={"tokens": st.sampled_from([200, 800, 1500]),
                                                    "tool_attempts": st.sampled_from([2, 9])}),
})
_amount = st.tuples(st.sampled_from(["own", "top", "abs"]),
                    st.sampled_from([0, 1, -1, 0.5, 50, 2000]))
_reserve = st.tuples(st.just("reserve"), st.sampled_from(RUNS), st.sampled_from("abc"),
                     st.dictionaries(st.sampled_from(DIMS), _amount, min_size=1, max_size=2),
                     st.sampled_from([None, 0, 4]))
_used = st.dictionaries(st.sampled_from(DIMS), st.sampled_from([1, 0.5, 0, 1.5, -1]), max_size=2)
_settle = st.tuples(st.just("settle"), st.sampled_from(RUNS), st.sampled_from("abcz"), _used,
                    st.none())
#: one piece of work: reserved, then settled with part, all, none or more than its hold
_pair = st.tuples(st.sampled_from(RUNS), st.sampled_from("abc"),
                  st.dictionaries(st.sampled_from(DIMS), _amount, min_size=1, max_size=2),
                  st.sampled_from([None, 0, 4]), _used).map(
    lambda p: [("reserve", p[0], p[1], p[2], p[3]), ("settle", p[0], p[1], p[4], None)])


def _flat(pairs: list[list[Any]]) -> list[Any]:
    return [op for pair in pairs for op in pair]


def _ops(*kinds: st.SearchStrategy[Any], max_size: int = 6) -> st.SearchStrategy[Any]:
    return st.tuples(_limits, st.lists(st.one_of(*kinds), min_size=1, max_size=max_size))


@contextmanager
def _ledger_with(limits: dict[str, dict[str, float]]) -> Iterator[Accounts]:
    with tempfile.TemporaryDirectory(prefix="m09-", dir=scratch_root()) as tmp:
        store = SQLiteStore(Path(tmp) / "runs.sqlite", synchronous="OFF")
        try:
            for rid in RUNS:
                store.create_run(rid, "wf", "null", 0.0)
            acc = Accounts(store, clock=FakeClock())
            acc.open("r1", limits["r1"])
            acc.open("r1/child", limits["r1/child"], parent="r1")
            yield acc
        finally:
            store.close()


def _resolve(acc: Accounts, op: tuple[Any, ...]) -> tuple[Any, ...]:
    """A generated op made concrete against the reference ledger ``acc`` as it is now."""
    kind, run, rid, spec, step = op
    if kind == "settle":
        res = acc.reservation(run, rid)
        base = res.amounts if res is not None else {"tokens": 100}
        used = {d: base.get(d, 0) * k for d, k in spec.items()}
        return ("settle", run, rid, {d: (int(v) if float(v).is_integer() else v)
                                      for d, v in used.items()}, None)
    chain = acc.chain(run)
    amounts: dict[str, Any] = {}
    for dim, (where, delta) in spec.items():
        acct = chain[0] if where == "own" else chain[-1]
        avail = acct.available(dim)
        if where == "abs" or avail == float("inf"):
            n: Any = (abs(delta) or 100) if delta != -1 else -1  # -1: a bad amount
        else:
            n = avail + delta
        amounts[dim] = int(n) if isinstance(n, float) and n.is_integer() else n
    return ("reserve", run, rid, amounts, step)


def _call_text(op: tuple[Any, ...]) -> str:
    kind, run, rid, amounts, step = op
    extra = f", step={step}" if kind == "reserve" and step is not None else ""
    return f"{kind}(acc, {run!r}, {rid!r}, {amounts!r}{extra})"


def _snapshot(acc: Accounts) -> dict[str, Any]:
    fresh = Accounts(acc.store)
    out: dict[str, Any] = {}
    for run in RUNS:
        a = fresh.account(run)
        out[run] = None if a is None else {"held": a.held, "used": a.used, "limits": a.limits}
        out[run + " reservations"] = {r.reservation_id: {f: getattr(r, f) for f in RES_FIELDS}
                                      for r in fresh.reservations(run)}
        out[run + " journal"] = len(acc.store.read(run))
    return out


def _apply(reserve: Fn, settle: Fn, acc: Accounts, op: tuple[Any, ...]) -> tuple[str, Any]:
    kind, run, rid, amounts, step = op
    try:
        if kind == "reserve":
            got = reserve(acc, run, rid, amounts, step=step)
        else:
            got = settle(acc, run, rid, amounts)
    except BudgetExceeded as exc:
        return "refused", exc
    except Exception as exc:  # noqa: BLE001 - learner code: its error is compared by kind
        return "error", exc
    return "ok", got


def _compare(reserve: Fn, settle: Fn, example: Any, *, ops_note: str = "") -> str | None:
    limits, ops = example
    with _ledger_with(limits) as mine, _ledger_with(limits) as ref:
        done: list[str] = []
        for raw in ops:
            op = _resolve(ref, raw)
            call = _call_text(op)
            done.append(call)
            arg = copy.deepcopy(op[3])
            want_kind, want = _apply(_budget.reserve, _budget.settle, ref, op)
            got_kind, got = _apply(reserve, settle, mine, (*op[:3], arg, op[4]))
            where = f"after {'; '.join(done)}"
            if not plain_equal(arg, op[3]):
                return f"{where}: the amounts passed in were changed to {arg!r}"
            if got_kind != want_kind:
                said = {"ok": "accepted it", "refused": "refused it with BudgetExceeded",
                        "error": f"raised {type(got).__name__}"}[got_kind]
                expected = {"ok": "accepted", "refused": "refused with BudgetExceeded",
                            "error": "refused with an error (nothing held, nothing charged)"
                            }[want_kind]
                return f"{where}: the last call should be {expected}; yours {said}"
            if want_kind == "ok":
                diff = same_fields(got, want, RES_FIELDS)
                if diff:
                    return f"{where}: the Reservation returned {diff}"
            elif want_kind == "refused":
                diff = same_fields(got, want, REFUSAL_FIELDS)
                if diff:
                    return f"{where}: the BudgetExceeded refusal {diff}"
            a, b = _snapshot(mine), _snapshot(ref)
            for key in b:
                if not plain_equal(a[key], b[key]):
                    return (f"{where}: the ledger's {key.replace('r1', 'account r1', 1)} is {a[key]!r}, expected {b[key]!r}"
                            )[:400]
    return None


def _property(prop: str, reserve: Fn, settle: Fn, strategy: Any, max_examples: int,
              examples: list[Any] = ()) -> list[str]:  # type: ignore[assignment]
    return falsify(prop, strategy, lambda ex: _compare(reserve, settle, ex),
                   max_examples=max_examples, show=lambda ex: {"limits": ex[0]},
                   examples=examples)


_L = {"r1": {"tokens": 1000, "tool_attempts": 5}, "r1/child": {"tokens": 800}}


def _r(run: str, rid: str, **spec: Any) -> tuple[Any, ...]:
    return ("reserve", run, rid, spec, None)


def _s(run: str, rid: str, **used: Any) -> tuple[Any, ...]:
    return ("settle", run, rid, used, None)


#: boundaries every run probes: exactly the limit, one past it, a second dimension past it, the
#: parent's limit binding on the child, all/none/more than held used, an unknown id, a replay
FIXED = {
    "fail-closed": [
        (_L, [_r("r1", "a", tokens=("own", 0)), _r("r1", "b", tokens=("abs", 1))]),
        (_L, [_r("r1", "a", tokens=("own", 1))]),
        (_L, [_r("r1", "a", tokens=("abs", 50), tool_attempts=("own", 1))]),
        (_L, [_r("r1", "a", tokens=("abs", 300)), _r("r1/child", "b", tokens=("top", 1))]),
        (_L, [_r("r1", "a", tokens=("abs", -1))]),
    ],
    "settle-releases": [
        (_L, [_r("r1", "a", tokens=("abs", 300)), _s("r1", "a", tokens=0.5)]),
        (_L, [_r("r1", "a", tokens=("abs", 300)), _s("r1", "a", tokens=1.5)]),
        (_L, [_r("r1", "a", tokens=("abs", 300)), _s("r1", "a")]),
        (_L, [_s("r1", "z", tokens=1)]),
        (_L, [_r("r1", "a", tokens=("abs", 300)), _s("r1", "a", tokens=-1)]),
        (_L, [_r("r1", "a", tokens=("own", 0)), _s("r1", "a", tokens=1.5),
              _r("r1", "b", tokens=("abs", 1))]),
        (_L, [_r("r1", "a", tokens=("abs", 300)), _s("r1/child", "a", tokens=1)]),
    ],
    "replay-once": [
        (_L, [_r("r1", "a", tokens=("abs", 300)), _r("r1", "a", tokens=("abs", 50)),
              _s("r1", "a", tokens=0.5), _s("r1", "a", tokens=1), _r("r1", "a", tokens=("abs", 1))]),
    ],
    "child-charged": [
        (_L, [_r("r1/child", "a", tokens=("abs", 300)), _s("r1/child", "a", tokens=0.5)]),
        (_L, [_r("r1", "a", tokens=("abs", 600)), _r("r1/child", "b", tokens=("top", 1))]),
        (_L, [_r("r1/child", "a", tokens=("own", 1))]),
    ],
}


def _reference_settle_unused(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("settle is not called by this property")  # pragma: no cover


def check_fail_closed(reserve: Fn, max_examples: int = 50) -> list[str]:
    """[fail-closed] reservations alone (both runs, one or two dimensions, at and around the
    limit of the run and of its parent, bad amounts, replayed ids): the same acceptances and
    refusals as the reference, every field of each, and a refusal changes nothing."""
    return _property("fail-closed", reserve, _reference_settle_unused, _ops(_reserve),
                     max_examples, FIXED["fail-closed"])


def check_settle(reserve: Fn, settle: Fn, max_examples: int = 50) -> list[str]:
    """[settle-releases] reserve then settle with nothing, part, all or more than was held, and
    settling an id never reserved: the ledger after each call equals the reference's."""
    work = st.tuples(_limits, st.lists(st.one_of(_pair, st.lists(_settle, max_size=1)),
                                       min_size=1, max_size=3).map(_flat)
                     ).filter(lambda ex: bool(ex[1]))
    return _property("settle-releases", reserve, settle, work, max_examples,
                     FIXED["settle-releases"])


def check_replay_once(reserve: Fn, settle: Fn, max_examples: int = 40) -> list[str]:
    """[replay-once] the same ids reserved and settled again and again (with other amounts, as a
    replay after a crash would): each is counted once, exactly as the reference counts it."""
    twice = st.tuples(_limits, st.lists(_pair, min_size=1, max_size=2).map(_flat),
                      st.lists(st.one_of(_reserve, _settle), max_size=2)
                      ).map(lambda ex: (ex[0], ex[1] + ex[2] + ex[1]))
    return _property("replay-once", reserve, settle, twice, max_examples, FIXED["replay-once"])


def check_child(reserve: Fn, settle: Fn, max_examples: int = 40) -> list[str]:
    """[child-charged] the child's reservations and settles, mixed with the parent's, under
    limits where the child's or the parent's binds: held, used and ``limited_by`` as the
    reference has them on both accounts."""
    child = st.tuples(_limits, st.lists(st.one_of(_pair, _reserve.map(lambda o: [o])),
                                        min_size=1, max_size=3).map(_flat)
                      ).filter(lambda ex: any(o[1] == "r1/child" for o in ex[1]))
    return _property("child-charged", reserve, settle, child, max_examples,
                     FIXED["child-charged"])


class RaceProbe(Accounts):
    """Accounts that make a race visible: an account or reservation read outside a transaction
    is held back until every thread has read (or 1 s passed), so a check made outside the
    transaction that writes is stale for all of them, every time, not only when the scheduler is
    unlucky."""

    barrier: threading.Barrier

    def _wait(self) -> None:
        if not self.in_transaction:
            try:
                self.barrier.wait(timeout=1.0)
            except threading.BrokenBarrierError:
                pass

    def account(self, run_id: str) -> Any:
        value = super().account(run_id)
        self._wait()
        return value

    def reservation(self, run_id: str, reservation_id: str) -> Any:
        value = super().reservation(run_id, reservation_id)
        self._wait()
        return value


def _race(jobs: list[Callable[[], Any]], acc: RaceProbe) -> tuple[list[int], list[BaseException]]:
    RaceProbe.barrier = threading.Barrier(len(jobs))
    start, won, errors = threading.Barrier(len(jobs)), [], []

    def worker(i: int) -> None:
        try:
            start.wait(timeout=5)
            jobs[i]()
            won.append(i)
        except BudgetExceeded:
            pass
        except BaseException as exc:  # noqa: BLE001 - reported, never printed
            errors.append(exc)

    pool = [threading.Thread(target=worker, args=(i,)) for i in range(len(jobs))]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=30)
    return won, errors


def check_concurrent(reserve: Fn, threads: int = 12, limit: int = 4) -> list[str]:
    """[no-overshoot] ``threads`` threads race to reserve 1 attempt each against a limit of
    ``limit``, half of them in the child run (so the parent's limit binds)."""
    with ledger({"tool_attempts": limit}, accounts_class=RaceProbe) as acc:
        assert isinstance(acc, RaceProbe)
        jobs = [(lambda i=i: reserve(acc, "r1/child" if i % 2 else "r1", f"tool:{i}:1",
                                     {"tool_attempts": 1})) for i in range(threads)]
        won, errors = _race(jobs, acc)
        if errors:
            return [f"[no-overshoot] a racing reservation raised {_fmt(errors[0])}"]
        held = state(acc)[0].get("tool_attempts", 0)
        if len(won) > limit or held > limit:
            return [f"[no-overshoot] {threads} threads (half of them in the child run) raced "
                    f"for {limit} tool attempts: {len(won)} reservations succeeded, {held:g} "
                    "are held"]
        if len(won) < limit:
            return [f"[no-overshoot] {threads} threads raced for {limit} tool attempts but only "
                    f"{len(won)} succeeded: a free attempt was refused"]
    return []


def check_concurrent_settle(reserve: Fn, settle: Fn, limit: int = 4) -> list[str]:
    """[replay-once] 4 threads settle one reservation at once (a replay racing the original), 4
    release another, 8 reserve new work, all released by one barrier: the settle counts once,
    nothing overshoots, the ledger balances."""
    prop = "replay-once"
    with ledger({"tool_attempts": limit}, accounts_class=RaceProbe) as acc:
        assert isinstance(acc, RaceProbe)
        try:
            for rid in ("p0", "p1"):
                reserve(acc, "r1", rid, {"tool_attempts": 1})
        except Exception as exc:  # noqa: BLE001
            return [f"[{prop}] reserving 2 of {limit} attempts raised {_fmt(exc)}"]
        jobs = ([lambda: settle(acc, "r1", "p0", {"tool_attempts": 1})] * 4
                + [lambda: settle(acc, "r1", "p1", {})] * 4
                + [(lambda i=i: reserve(acc, "r1", f"n{i}", {"tool_attempts": 1}))
                   for i in range(8)])
        won, errors = _race(jobs, acc)
        if errors:
            return [f"[{prop}] racing settles and reservations raised {_fmt(errors[0])}"]
        held, used = state(acc)
        new = sum(1 for i in won if i >= 8)
        h, u = held.get("tool_attempts", 0), used.get("tool_attempts", 0)
        if u != 1:
            return [f"[{prop}] 4 threads settled one reservation (1 attempt used) at once, "
                    f"and 4 released another: the account shows {u:g} used, not 1"]
        if h + u > limit or h != new:
            return [f"[{prop}] settles raced {new} new reservations: {h:g} held + {u:g} "
                    f"used against a limit of {limit}"]
        if new < limit - 2:
            return [f"[{prop}] with {limit - 2} attempts free all along, only {new} of 8 "
                    "racing reservations succeeded"]
        problems = audit(Accounts(acc.store), "r1", finished=False)
        if problems:
            return [f"[{prop}] after the race the ledger does not balance: {problems[0][1]}"]
    return []


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


def _replay_tokens() -> int:
    """Tokens on the parent's account after the prediction's crash and recovery (run here)."""
    from minirt.faults import crash_once

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
    actual = _replay_tokens()
    if guess != actual:
        return [f"[predict] you predicted {guess} tokens; the run disagrees — rerun it and "
                "look at which positions were replayed"]
    return []
