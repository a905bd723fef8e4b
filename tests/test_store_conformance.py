"""One conformance suite for every store: the same tests, unchanged, on SQLite and on PostgreSQL.

The ``store`` fixture yields a :class:`SQLiteStore` on a fresh file and a :class:`PostgresStore`
on a fresh database of a real server (``tests/pg_fixture.py``: skipped with the reason where no
server can be started, failed under ``CI=true``). Raw SQL in these tests (to corrupt a row) is
written so that both engines accept it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter

import pytest

from minirt.clock import FakeClock
from minirt.faults import FaultPlan, SimulatedCrash
from minirt.run import (
    DuplicateRun,
    IllegalTransition,
    LeaseHeld,
    RevisionConflict,
    RunEvent,
    RunIsTerminal,
    RunNotFound,
    RunState,
    StaleIncarnation,
)
from minirt.runtime import Runtime, ScriptedModel
from minirt.store import open_store
from minirt.store.base import GENESIS, ArtifactMissing, JournalCorrupted, NewEvent
from minirt.tools import EffectClass, tool

pytest_plugins = ["pg_fixture"]

T0 = 1_000.0


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'runs.sqlite'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture
def store(store_url):
    s = open_store(store_url)
    yield s
    s.close()


def ev(kind: str = "step", step: int | None = 0, payload: object = None, at: float = T0
       ) -> NewEvent:
    return NewEvent(kind, step, json.dumps(payload if payload is not None else {"n": step}), at)


def claimed(store, run_id: str = "r1", *, worker: str = "w1", at: float = T0,
            lease_for: float = 30.0, workflow: str = "wf"):
    """Create ``run_id`` and claim it; return the claimed Run (incarnation 1)."""
    store.create_run(run_id, workflow, "{}", at)
    return store.transition(run_id, RunEvent("claim", at=at, worker_id=worker,
                                             lease_for=lease_for))


def raw(store, sql: str) -> None:
    """Run one SQL statement inside the store's own transaction (both engines take this SQL)."""
    with store.transaction() as db:
        db.execute(sql)


# -- runs: create, get, list ----------------------------------------------------------------------

def test_created_run_is_pending_at_revision_zero(store):
    rec = store.create_run("r1", "wf", '{"a":1}', T0)
    got = store.get_run("r1")
    assert (got.run.state, got.run.revision, got.run.incarnation) == (RunState.PENDING, 0, 0)
    assert (got.workflow, got.input_json, got.created_at) == ("wf", '{"a":1}', T0)
    assert rec.run == got.run


def test_creating_an_existing_run_raises_duplicate_run_and_keeps_the_first(store):
    store.create_run("r1", "wf", '{"a":1}', T0)
    with pytest.raises(DuplicateRun) as err:
        store.create_run("r1", "other", '{"a":2}', T0 + 1)
    assert err.value.run_id == "r1"
    assert store.get_run("r1").input_json == '{"a":1}'


def test_getting_an_unknown_run_raises_run_not_found(store):
    with pytest.raises(RunNotFound) as err:
        store.get_run("nope")
    assert err.value.run_id == "nope"


def test_list_runs_is_in_creation_order_and_filters_by_state(store):
    store.create_run("b", "wf", "{}", T0 + 2)
    store.create_run("a", "wf", "{}", T0 + 1)
    claimed(store, "c", at=T0 + 3)
    assert [r.run.run_id for r in store.list_runs()] == ["a", "b", "c"]
    assert [r.run.run_id for r in store.list_runs(["running"])] == ["c"]
    assert [r.run.run_id for r in store.list_runs(["pending", "running"])] == ["a", "b", "c"]


def test_create_run_with_events_starts_the_journal(store):
    store.create_run("r1", "wf", "{}", T0, events=[ev("run_started", None)])
    (first,) = store.read("r1")
    assert (first.seq, first.kind, first.incarnation, first.prev_digest) == (
        1, "run_started", 0, GENESIS)


# -- compare-and-set and fencing ------------------------------------------------------------------

def test_transition_with_the_current_revision_applies_and_bumps_it(store):
    run = claimed(store)
    assert (run.state, run.revision, run.incarnation, run.worker_id) == (
        RunState.RUNNING, 1, 1, "w1")
    done = store.transition("r1", RunEvent("complete", at=T0 + 1, incarnation=1,
                                           detail={"result": 7}), expected_revision=1)
    assert store.get_run("r1").run == done
    assert done.state is RunState.SUCCEEDED and done.detail == {"result": 7}


def test_transition_with_a_stale_revision_raises_revision_conflict_and_writes_nothing(store):
    claimed(store)
    with pytest.raises(RevisionConflict) as err:
        store.transition("r1", RunEvent("heartbeat", at=T0 + 1, incarnation=1),
                         expected_revision=0, events=[ev()])
    assert (err.value.expected, err.value.actual) == (0, 1)
    assert store.get_run("r1").run.revision == 1
    assert store.read("r1") == []


def test_transition_of_an_unknown_run_raises_run_not_found(store):
    with pytest.raises(RunNotFound):
        store.transition("nope", RunEvent("claim", at=T0, worker_id="w"))


def test_an_event_the_table_forbids_raises_illegal_transition(store):
    store.create_run("r1", "wf", "{}", T0)
    with pytest.raises(IllegalTransition):
        store.transition("r1", RunEvent("complete", at=T0, incarnation=0))
    assert store.get_run("r1").run.state is RunState.PENDING


def test_a_fenced_event_from_an_old_incarnation_raises_stale_incarnation(store):
    claimed(store, lease_for=10)
    store.transition("r1", RunEvent("claim", at=T0 + 11, worker_id="w2", lease_for=10))
    with pytest.raises(StaleIncarnation) as err:
        store.transition("r1", RunEvent("complete", at=T0 + 12, incarnation=1),
                         events=[ev("transition", None)])
    assert (err.value.incarnation, err.value.current) == (1, 2)
    run = store.get_run("r1").run
    assert (run.state, run.incarnation, run.worker_id) == (RunState.RUNNING, 2, "w2")
    assert store.read("r1") == []


def test_a_claim_while_the_lease_is_held_raises_lease_held(store):
    claimed(store, lease_for=30)
    with pytest.raises(LeaseHeld) as err:
        store.transition("r1", RunEvent("claim", at=T0 + 5, worker_id="w2"))
    assert err.value.holder == "w1"
    assert store.get_run("r1").run.incarnation == 1


def test_a_terminal_run_accepts_no_event(store):
    claimed(store)
    store.transition("r1", RunEvent("complete", at=T0 + 1, incarnation=1))
    with pytest.raises(RunIsTerminal):
        store.transition("r1", RunEvent("cancel_request", at=T0 + 2))
    with pytest.raises(RunIsTerminal):
        store.append("r1", 1, [ev()])


# -- claim_next -----------------------------------------------------------------------------------

def test_claim_next_on_an_empty_store_returns_none(store):
    assert store.claim_next("w1", T0, 30) is None


def test_claim_next_takes_the_oldest_pending_run_with_a_new_incarnation(store):
    store.create_run("young", "wf", '{"x":2}', T0 + 2)
    store.create_run("old", "wf", '{"x":1}', T0 + 1)
    rec = store.claim_next("w1", T0 + 5, 30)
    assert rec.run.run_id == "old" and rec.input_json == '{"x":1}'
    assert (rec.run.state, rec.run.incarnation, rec.run.worker_id, rec.run.lease_expires_at) == (
        RunState.RUNNING, 1, "w1", T0 + 35)
    assert store.get_run("old").run == rec.run


def test_claim_next_skips_a_run_whose_lease_is_still_held(store):
    claimed(store, "held", lease_for=30)
    assert store.claim_next("w2", T0 + 29, 30) is None
    assert store.get_run("held").run.worker_id == "w1"


def test_claim_next_takes_over_a_run_whose_lease_expired(store):
    claimed(store, "r1", lease_for=30)
    rec = store.claim_next("w2", T0 + 31, 30)
    assert (rec.run.run_id, rec.run.incarnation, rec.run.worker_id) == ("r1", 2, "w2")
    with pytest.raises(StaleIncarnation):
        store.append("r1", 1, [ev()])


def test_claim_next_prefers_the_oldest_runnable_run_whatever_its_state(store):
    claimed(store, "expired", at=T0, lease_for=10)
    store.create_run("pending", "wf", "{}", T0 + 1)
    assert store.claim_next("w2", T0 + 20, 30).run.run_id == "expired"
    assert store.claim_next("w2", T0 + 20, 30).run.run_id == "pending"


def test_claim_next_never_takes_waiting_or_terminal_runs(store):
    claimed(store, "waits")
    store.transition("waits", RunEvent("wait", at=T0, incarnation=1))
    claimed(store, "done")
    store.transition("done", RunEvent("complete", at=T0, incarnation=1))
    assert store.claim_next("w2", T0 + 10_000, 30) is None


def test_claim_next_only_takes_the_named_workflows(store):
    store.create_run("a1", "alpha", "{}", T0)
    store.create_run("b1", "beta", "{}", T0 + 1)
    assert store.claim_next("w1", T0, 30, workflows=["beta"]).run.run_id == "b1"
    assert store.claim_next("w1", T0, 30, workflows=["beta"]) is None
    assert store.claim_next("w1", T0, 30, workflows=None).run.run_id == "a1"


def test_concurrent_claimers_on_separate_connections_never_share_a_run(store, store_url):
    for i in range(24):
        store.create_run(f"r{i:02d}", "wf", "{}", T0 + i)
    got: list[str] = []
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        s = open_store(store_url)
        try:
            while (rec := s.claim_next(f"w{n}", T0 + 100, 30)) is not None:
                got.append(rec.run.run_id)
        except BaseException as exc:  # reported below, with the thread's error
            errors.append(exc)
        finally:
            s.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert Counter(got) == Counter(f"r{i:02d}" for i in range(24))


# -- the journal: append, chain, verify -----------------------------------------------------------

def test_append_assigns_consecutive_seqs_chained_by_digest(store):
    claimed(store)
    first = store.append("r1", 1, [ev(step=0), ev(step=1)])
    second = store.append("r1", 1, [ev(step=2)])
    rows = store.read("r1")
    assert [e.seq for e in rows] == [1, 2, 3]
    assert rows == first + second
    assert rows[0].prev_digest == GENESIS
    assert all(b.prev_digest == a.digest for a, b in zip(rows, rows[1:], strict=False))
    assert all(e.incarnation == 1 for e in rows)


def test_read_after_seq_returns_only_the_later_events(store):
    claimed(store)
    store.append("r1", 1, [ev(step=i) for i in range(4)])
    assert [e.seq for e in store.read("r1", after_seq=2)] == [3, 4]


def test_append_from_a_stale_incarnation_writes_nothing(store):
    claimed(store, lease_for=10)
    store.append("r1", 1, [ev(step=0)])
    store.claim_next("w2", T0 + 11, 30)
    lease = store.get_run("r1").run.lease_expires_at
    with pytest.raises(StaleIncarnation) as err:
        store.append("r1", 1, [ev(step=1)], lease_until=T0 + 999, kv={"k": "zombie"})
    assert (err.value.incarnation, err.value.current) == (1, 2)
    assert [e.seq for e in store.read("r1")] == [1]
    assert store.get_run("r1").run.lease_expires_at == lease
    assert store.kv_get("r1", "k") is None


def test_append_to_an_unknown_run_raises_run_not_found(store):
    with pytest.raises(RunNotFound):
        store.append("nope", 1, [ev()])


def test_append_extends_the_lease_and_writes_kv_in_the_same_transaction(store):
    claimed(store, lease_for=10)
    store.append("r1", 1, [ev()], lease_until=T0 + 50, kv={"outbox:1": "x"})
    assert store.get_run("r1").run.lease_expires_at == T0 + 50
    assert store.kv_get("r1", "outbox:1") == "x"


def test_a_changed_payload_is_reported_as_journal_corrupted_with_its_seq(store):
    claimed(store)
    store.append("r1", 1, [ev(step=i) for i in range(3)])
    raw(store, "UPDATE events SET payload_json = '{\"n\":99}' WHERE run_id = 'r1' AND seq = 2")
    with pytest.raises(JournalCorrupted) as err:
        store.read("r1")
    assert (err.value.run_id, err.value.seq) == ("r1", 2)


def test_a_deleted_row_is_reported_as_journal_corrupted(store):
    claimed(store)
    store.append("r1", 1, [ev(step=i) for i in range(3)])
    raw(store, "DELETE FROM events WHERE run_id = 'r1' AND seq = 2")
    with pytest.raises(JournalCorrupted) as err:
        store.read("r1")
    assert err.value.seq == 2


def test_a_deleted_last_row_is_reported_as_journal_corrupted(store):
    claimed(store)
    store.append("r1", 1, [ev(step=i) for i in range(3)])
    raw(store, "DELETE FROM events WHERE run_id = 'r1' AND seq = 3")
    with pytest.raises(JournalCorrupted) as err:
        store.read("r1")
    assert err.value.seq == 3


def test_a_rewritten_incarnation_is_reported_as_journal_corrupted(store):
    claimed(store)
    store.append("r1", 1, [ev(step=i) for i in range(3)])
    raw(store, "UPDATE events SET incarnation = 7 WHERE run_id = 'r1' AND seq = 3")
    with pytest.raises(JournalCorrupted) as err:
        store.read("r1")
    assert err.value.seq == 3


def test_transition_appends_its_events_with_the_new_incarnation(store):
    store.create_run("r1", "wf", "{}", T0, events=[ev("run_started", None)])
    store.transition("r1", RunEvent("claim", at=T0, worker_id="w1"),
                     events=[ev("transition", None)])
    assert [(e.seq, e.incarnation) for e in store.read("r1")] == [(1, 0), (2, 1)]


# -- artifacts and kv -----------------------------------------------------------------------------

def test_put_artifact_is_idempotent_and_content_addressed(store):
    d1 = store.put_artifact(b"\x00big output\xff")
    d2 = store.put_artifact(b"\x00big output\xff")
    assert d1 == d2 and d1.startswith("sha256:")
    assert store.get_artifact(d1) == b"\x00big output\xff"


def test_getting_a_missing_artifact_raises_artifact_missing(store):
    with pytest.raises(ArtifactMissing):
        store.get_artifact("sha256:" + "1" * 64)


def test_kv_set_get_items_and_delete(store):
    claimed(store)
    store.append("r1", 1, [], kv={"b": "2", "a": "1"})
    assert store.kv_items("r1") == {"a": "1", "b": "2"}
    store.append("r1", 1, [], kv={"a": None})
    assert store.kv_get("r1", "a") is None and store.kv_items("r1") == {"b": "2"}


def test_set_kv_is_idempotent_and_needs_an_existing_run(store):
    store.create_run("r1", "wf", "{}", T0)
    store.set_kv("r1", {"signal:go": '"yes"'})
    store.set_kv("r1", {"signal:go": '"yes"'})
    assert store.kv_items("r1") == {"signal:go": '"yes"'}
    with pytest.raises(RunNotFound):
        store.set_kv("nope", {"k": "v"})


def test_set_kv_is_not_fenced(store):
    claimed(store, lease_for=10)
    store.claim_next("w2", T0 + 11, 30)
    store.set_kv("r1", {"signal:approve": "true"})
    assert store.kv_get("r1", "signal:approve") == "true"


# -- transactions and durability ------------------------------------------------------------------

def test_an_exception_in_a_transaction_rolls_back_every_write_in_it(store):
    class Boom(Exception):
        pass

    with pytest.raises(Boom):
        with store.transaction():
            claimed(store, "r1")
            store.append("r1", 1, [ev()], kv={"k": "v"})
            raise Boom
    with pytest.raises(RunNotFound):
        store.get_run("r1")
    assert store.read("r1") == [] and store.kv_items("r1") == {}


def test_nested_transactions_commit_together(store):
    with store.transaction():
        store.create_run("r1", "wf", "{}", T0)
        with store.transaction():
            store.create_run("r2", "wf", "{}", T0)
    assert [r.run.run_id for r in store.list_runs()] == ["r1", "r2"]


def test_a_run_read_inside_a_transaction_cannot_change_until_it_commits(store, store_url):
    claimed(store)
    other = open_store(store_url)
    order: list[str] = []

    def other_writer() -> None:
        other.append("r1", 1, [ev(step=9)])
        order.append("other")

    try:
        with store.transaction():
            assert store.kv_get("r1", "signal:go") is None  # look ...
            writer = threading.Thread(target=other_writer)
            writer.start()
            writer.join(0.5)  # ... the other connection must wait, however long we take
            order.append("mine")
            store.append("r1", 1, [ev(step=0)])  # ... then write
        writer.join(30)
        assert order == ["mine", "other"]
        assert [e.step for e in store.read("r1")] == [0, 9]
    finally:
        other.close()


def test_a_second_connection_sees_committed_writes(store, store_url):
    claimed(store)
    store.append("r1", 1, [ev(step=0)])
    other = open_store(store_url)
    try:
        assert [e.seq for e in other.read("r1")] == [1]
        assert other.get_run("r1").run.incarnation == 1
    finally:
        other.close()


CHILD = """
import os, signal, sys
from minirt.store import open_store
s = open_store(sys.argv[1])
s.create_run("kept", "wf", "{}", 1.0)
with s.transaction():
    s.create_run("lost", "wf", "{}", 2.0)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_committed_run_survives_sigkill_and_an_open_transaction_does_not(store, store_url):
    proc = subprocess.run([sys.executable, "-c", CHILD, store_url], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == -9, proc.stderr
    assert [r.run.run_id for r in store.list_runs()] == ["kept"]


def test_a_runtime_resumes_a_crashed_run_on_a_reopened_store(store_url):
    charges: list[str] = []

    @tool(EffectClass.KEYED)
    def charge(amount: int, call=None):
        charges.append(call.effect_key)
        return {"charge_id": "ch_" + call.effect_key[-6:], "amount": amount}

    def agent(ctx, inp):
        plan = ctx.decide({"order": inp})
        got = ctx.call_tool("charge", amount=plan["amount"])
        return {"charged": got["amount"], "n": ctx.step("n", lambda: 42)}

    clock = FakeClock()
    rt = Runtime(open_store(store_url), tools=[charge], workflows={"agent": agent},
                 model=ScriptedModel([{"amount": 30}]), clock=clock,
                 faults=FaultPlan(crash_at="before_result"))
    rid = rt.start("agent", "o-1", run_id="r1")
    with pytest.raises(SimulatedCrash):
        rt.run(rid)
    rt.close()
    clock.advance(60)
    rt2 = Runtime(open_store(store_url), tools=[charge], workflows={"agent": agent},
                  model=ScriptedModel([{"amount": 999}]), clock=clock)
    try:
        assert rt2.resume(rid).result() == {"charged": 30, "n": 42}
        assert len(set(charges)) == 1
        assert [e.incarnation for e in rt2.store.read(rid)][-1] == 2
    finally:
        rt2.close()


# -- the journal's vocabulary is closed (minirt.kinds) -------------------------------------------

def test_an_unknown_event_kind_is_refused_by_every_write_before_anything_is_written(store):
    from minirt.run import UnknownRunEvent
    from minirt.store.base import UnknownEventKind

    typo = ev("tool_reslt")
    with pytest.raises(UnknownEventKind) as err:
        store.create_run("r0", "wf", "{}", T0, events=[ev("run_started", None), typo])
    assert "tool_reslt" in str(err.value)
    with pytest.raises(RunNotFound):
        store.get_run("r0")  # the run itself was not created either
    run = claimed(store)
    with pytest.raises(UnknownEventKind):
        store.append("r1", run.incarnation, [ev(), typo], kv={"k": "v"})
    with pytest.raises(UnknownEventKind):
        store.transition("r1", RunEvent("heartbeat", at=T0 + 1, incarnation=run.incarnation),
                         events=[typo])
    with pytest.raises(UnknownRunEvent) as unknown:  # a run event's kind, too (minirt.run)
        store.transition("r1", RunEvent("hartbeat", at=T0 + 1, incarnation=run.incarnation))
    assert "'hartbeat'" in str(unknown.value)
    store.create_run("r2", "wf", "{}", T0)
    with pytest.raises(UnknownEventKind):
        store.claim_next("w2", T0, 30.0, events=[typo])
    assert store.read("r1") == [] and store.kv_get("r1", "k") is None
    assert store.get_run("r1").run == run  # no revision spent
    assert store.get_run("r2").run.state is RunState.PENDING  # not claimed
    assert [e.kind for e in store.append("r1", run.incarnation, [ev()])] == ["step"]
