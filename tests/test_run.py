"""The run state machine (minirt/run.py) and its enforcement by the SQLite store.

Unit tests name one behaviour each; the property tests drive random event sequences through
``apply``; the store tests use a real SQLite file in tmp_path and reopen it to check what is on
disk. Deterministic: FakeClock times, hypothesis with derandomize, no sleeps.
"""

from __future__ import annotations

import copy
import signal
import subprocess
import sys
import textwrap
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minirt.clock import FakeClock
from minirt.errors import from_record
from minirt.run import (
    FENCED_EVENTS,
    TERMINAL,
    TRANSITIONS,
    IllegalTransition,
    LeaseHeld,
    RevisionConflict,
    Run,
    RunEvent,
    RunIsTerminal,
    RunNotFound,
    RunState,
    StaleIncarnation,
    apply,
    check_transition,
    replay_events,
)
from minirt.store.sqlite import SQLiteStore

S = RunState
KINDS = sorted({kind for _, kind in TRANSITIONS})


def running(incarnation: int = 1, worker: str = "w-a", lease: float = 130.0,
            revision: int = 1) -> Run:
    return Run("run-1", S.RUNNING, revision, incarnation, worker, lease)


def snapshot(run: Run) -> tuple:
    return tuple(copy.deepcopy(getattr(run, f.name)) for f in fields(run))


# -- the table ---------------------------------------------------------------------------------

def test_a_new_run_is_pending_at_revision_zero_never_claimed() -> None:
    run = Run("run-1")
    assert (run.state, run.revision, run.incarnation, run.current_incarnation()) == (
        S.PENDING, 0, 0, None)


@pytest.mark.parametrize(("source", "kind"), list(TRANSITIONS))
def test_every_table_entry_is_accepted_and_goes_where_the_table_says(source: RunState,
                                                                     kind: str) -> None:
    run = Run("run-1", source, 5, 3, None if source is S.PENDING else "w-a",
              None if source is S.PENDING else 100.0)
    event = RunEvent(kind, at=1000.0, incarnation=None if kind == "claim" else 3, worker_id="w-b")
    assert apply(run, event).state is TRANSITIONS[(source, kind)]


@pytest.mark.parametrize("state", sorted(set(RunState) - TERMINAL))
def test_a_pair_not_in_the_table_raises_illegal_transition_not_run_is_terminal(
        state: RunState) -> None:
    for kind in [*KINDS, "retry", ""]:
        if (state, kind) in TRANSITIONS:
            continue
        with pytest.raises(IllegalTransition) as info:
            check_transition(Run("run-1", state, 1, 1, "w-a", 130.0),
                             RunEvent(kind, incarnation=1))
        assert type(info.value) is IllegalTransition


@pytest.mark.parametrize("state", sorted(TERMINAL))
def test_a_terminal_run_refuses_every_event_with_run_is_terminal(state: RunState) -> None:
    run = Run("run-1", state, 7, 2, None, None, {"result": 1})
    for kind in [*KINDS, "retry"]:
        with pytest.raises(RunIsTerminal):
            apply(run, RunEvent(kind, at=1e9, incarnation=2, worker_id="w-b"))


def test_terminal_states_have_no_outgoing_entries_in_the_table() -> None:
    assert not [pair for pair in TRANSITIONS if pair[0] in TERMINAL]


def test_every_fenced_event_kind_appears_in_the_table() -> None:
    assert FENCED_EVENTS <= {kind for _, kind in TRANSITIONS}


# -- apply: revision, purity, leases -------------------------------------------------------------

def test_apply_moves_the_revision_up_by_exactly_one() -> None:
    assert apply(running(revision=4), RunEvent("heartbeat", at=1.0, incarnation=1)).revision == 5


def test_apply_leaves_its_input_unchanged() -> None:
    run = Run("run-1", S.RUNNING, 1, 1, "w-a", 130.0, {"k": [1]})
    before = snapshot(run)
    apply(run, RunEvent("complete", at=1.0, incarnation=1, detail={"k": [2], "result": 3}))
    assert snapshot(run) == before


def test_a_refused_event_leaves_its_input_unchanged() -> None:
    run = running(incarnation=2)
    before = snapshot(run)
    with pytest.raises(StaleIncarnation):
        apply(run, RunEvent("complete", incarnation=1))
    assert snapshot(run) == before


def test_claim_starts_the_next_incarnation_with_a_fresh_lease() -> None:
    run = apply(Run("run-1"), RunEvent("claim", at=100.0, worker_id="w-a", lease_for=30.0))
    assert (run.state, run.incarnation, run.worker_id, run.lease_expires_at) == (
        S.RUNNING, 1, "w-a", 130.0)
    assert run.current_incarnation().number == 1


def test_claim_while_the_lease_is_held_raises_lease_held() -> None:
    with pytest.raises(LeaseHeld) as info:
        apply(running(lease=130.0), RunEvent("claim", at=129.0, worker_id="w-b"))
    assert (info.value.holder, info.value.lease_expires_at) == ("w-a", 130.0)


def test_the_holder_itself_cannot_re_claim_a_held_lease() -> None:
    with pytest.raises(LeaseHeld):
        apply(running(lease=130.0), RunEvent("claim", at=129.0, worker_id="w-a"))


def test_takeover_at_lease_expiry_gives_old_incarnation_plus_one() -> None:
    run = apply(running(incarnation=4, lease=130.0),
                RunEvent("claim", at=130.0, worker_id="w-b", lease_for=10.0))
    assert (run.incarnation, run.worker_id, run.lease_expires_at) == (5, "w-b", 140.0)


def test_takeover_of_an_uncertain_run_keeps_it_uncertain() -> None:
    run = Run("run-1", S.UNCERTAIN, 3, 1, "w-a", 130.0)
    assert apply(run, RunEvent("claim", at=200.0, worker_id="w-b")).state is S.UNCERTAIN


def test_heartbeat_pushes_the_lease_expiry() -> None:
    run = apply(running(lease=130.0), RunEvent("heartbeat", at=125.0, incarnation=1,
                                               lease_for=30.0))
    assert run.lease_expires_at == 155.0
    with pytest.raises(LeaseHeld):
        apply(run, RunEvent("claim", at=140.0, worker_id="w-b"))


@pytest.mark.parametrize("kind", ["release", "wait", "complete", "fail"])
def test_leaving_running_drops_the_worker_and_the_lease(kind: str) -> None:
    run = apply(running(), RunEvent(kind, at=1.0, incarnation=1))
    assert (run.worker_id, run.lease_expires_at) == (None, None)


def test_event_detail_is_merged_into_the_run_detail() -> None:
    run = Run("run-1", S.RUNNING, 1, 1, "w-a", 130.0, {"a": 1})
    out = apply(run, RunEvent("complete", at=1.0, incarnation=1, detail={"result": 2}))
    assert out.detail == {"a": 1, "result": 2}


def test_asking_to_cancel_twice_leaves_the_run_cancelling() -> None:
    once = apply(running(), RunEvent("cancel_request", at=1.0))
    assert apply(once, RunEvent("cancel_request", at=2.0)).state is S.CANCELLING


def test_an_effect_in_flight_moves_the_run_to_uncertain_not_failed() -> None:
    run = apply(running(), RunEvent("effect_unknown", at=1.0, incarnation=1))
    assert run.state is S.UNCERTAIN and not run.is_terminal


def test_an_uncertain_run_cannot_complete_before_it_is_resolved() -> None:
    with pytest.raises(IllegalTransition):
        apply(Run("run-1", S.UNCERTAIN, 3, 1, "w-a", 130.0),
              RunEvent("complete", at=1.0, incarnation=1))


def test_replay_events_folds_to_the_same_run_as_applying_one_by_one() -> None:
    events = [RunEvent("claim", at=0.0, worker_id="w-a"),
              RunEvent("heartbeat", at=10.0, incarnation=1),
              RunEvent("complete", at=20.0, incarnation=1, detail={"result": "ok"})]
    run = Run("r")
    for e in events:
        run = apply(run, e)
    assert replay_events("r", events) == run


# -- fencing ---------------------------------------------------------------------------------------

def test_a_completion_from_an_older_incarnation_raises_stale_incarnation() -> None:
    with pytest.raises(StaleIncarnation) as info:
        apply(running(incarnation=2, worker="w-b"), RunEvent("complete", incarnation=1))
    assert (info.value.incarnation, info.value.current) == (1, 2)


def test_fencing_is_by_incarnation_not_by_worker_id() -> None:
    # w-a lost its lease and claimed the run again: its old thread's completion is still stale.
    with pytest.raises(StaleIncarnation):
        apply(running(incarnation=2, worker="w-a"),
              RunEvent("complete", incarnation=1, worker_id="w-a"))


@pytest.mark.parametrize("kind", sorted(FENCED_EVENTS - {"cancelled", "effect_resolved"}))
def test_a_fenced_event_without_an_incarnation_is_refused(kind: str) -> None:
    with pytest.raises(StaleIncarnation):
        apply(running(), RunEvent(kind, at=1.0, incarnation=None))


def test_unfenced_events_need_no_incarnation() -> None:
    assert apply(running(), RunEvent("cancel_request", at=1.0)).state is S.CANCELLING
    waiting = Run("run-1", S.WAITING, 2, 1)
    assert apply(waiting, RunEvent("wake", at=1.0)).state is S.PENDING


def test_the_check_order_is_terminal_then_table_then_fence_then_lease() -> None:
    done = Run("run-1", S.SUCCEEDED, 4, 2)
    with pytest.raises(RunIsTerminal):  # terminal wins over a stale incarnation
        check_transition(done, RunEvent("complete", incarnation=1))
    with pytest.raises(IllegalTransition) as info:  # the table wins over the fence
        check_transition(Run("run-1", S.WAITING, 2, 2), RunEvent("complete", incarnation=1))
    assert type(info.value) is IllegalTransition


def test_run_errors_round_trip_through_a_record() -> None:
    err = StaleIncarnation(run_id="r", event="complete", incarnation=1, current=2)
    back = from_record(err.to_record())
    assert type(back) is StaleIncarnation and str(back) == str(err)


# -- properties ------------------------------------------------------------------------------------

event_strategy = st.builds(
    lambda kind, inc_shift, dt, worker, lease_for: (kind, inc_shift, dt, worker, lease_for),
    st.sampled_from([*KINDS, "retry"]), st.sampled_from([0, 0, 0, -1, 1, None]),
    st.sampled_from([0.0, 1.0, 10.0, 31.0, 100.0]), st.sampled_from(["w-a", "w-b", "w-c"]),
    st.sampled_from([5.0, 30.0]))


def drive(steps: list[tuple]) -> list[tuple[Run, RunEvent, Run | None, Exception | None]]:
    """Apply a random sequence; return (before, event, after or None, error or None) per step."""
    run, t, out = Run("run-1"), 0.0, []
    for kind, inc_shift, dt, worker, lease_for in steps:
        t += dt
        inc = None if inc_shift is None else run.incarnation + inc_shift
        event = RunEvent(kind, at=t, incarnation=inc, worker_id=worker, lease_for=lease_for)
        before = snapshot(run)
        try:
            after = apply(run, event)
        except (IllegalTransition, StaleIncarnation, LeaseHeld) as exc:
            assert snapshot(run) == before
            out.append((run, event, None, exc))
            continue
        assert snapshot(run) == before  # apply is pure
        out.append((run, event, after, None))
        run = after
    return out


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.lists(event_strategy, max_size=40))
def test_property_no_event_ever_leaves_a_terminal_state(steps: list[tuple]) -> None:
    for before, _, after, exc in drive(steps):
        if before.is_terminal:
            assert after is None and isinstance(exc, RunIsTerminal)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.lists(event_strategy, max_size=40))
def test_property_no_stale_event_is_ever_applied(steps: list[tuple]) -> None:
    for before, event, after, _ in drive(steps):
        if event.kind in FENCED_EVENTS and event.incarnation != before.incarnation:
            assert after is None


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.lists(event_strategy, max_size=40))
def test_property_revision_counts_accepted_events_one_by_one(steps: list[tuple]) -> None:
    accepted = 0
    for before, _, after, _ in drive(steps):
        if after is not None:
            accepted += 1
            assert after.revision == before.revision + 1 == accepted


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.lists(event_strategy, max_size=40))
def test_property_incarnation_moves_only_on_claim_and_by_one(steps: list[tuple]) -> None:
    for before, event, after, _ in drive(steps):
        if after is not None:
            assert after.incarnation == before.incarnation + (event.kind == "claim")


@settings(derandomize=True, max_examples=200, deadline=None)
@given(st.sampled_from(list(RunState)), st.text(max_size=12) | st.sampled_from(KINDS))
def test_property_every_pair_outside_the_table_is_refused(state: RunState, kind: str) -> None:
    run = Run("run-1", state, 3, 1, "w-a", 10.0)
    event = RunEvent(kind, at=100.0, incarnation=1, worker_id="w-b")
    if state in TERMINAL:
        with pytest.raises(RunIsTerminal):
            apply(run, event)
    elif (state, kind) not in TRANSITIONS:
        with pytest.raises(IllegalTransition):
            apply(run, event)
    else:
        assert apply(run, event).state is TRANSITIONS[(state, kind)]


# -- the store enforces it on disk -------------------------------------------------------------------

def new_store(tmp_path: Path, run_id: str = "run-1") -> SQLiteStore:
    store = SQLiteStore(tmp_path / "runs.sqlite")
    store.create_run(run_id, "refund", "{}", 0.0)
    return store


def test_store_compare_and_set_lets_one_of_two_writers_win(tmp_path: Path) -> None:
    one = new_store(tmp_path)
    one.transition("run-1", RunEvent("claim", at=0.0, worker_id="w-a"))
    two = SQLiteStore(tmp_path / "runs.sqlite")
    r = one.get_run("run-1").run.revision
    assert two.get_run("run-1").run.revision == r  # both read revision r
    one.transition("run-1", RunEvent("heartbeat", at=1.0, incarnation=1), expected_revision=r)
    with pytest.raises(RevisionConflict) as info:
        two.transition("run-1", RunEvent("complete", at=2.0, incarnation=1), expected_revision=r)
    assert (info.value.expected, info.value.actual) == (r, r + 1)


def test_store_a_lost_compare_and_set_writes_nothing(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.transition("run-1", RunEvent("claim", at=0.0, worker_id="w-a"))
    with pytest.raises(RevisionConflict):
        store.transition("run-1", RunEvent("complete", at=1.0, incarnation=1),
                         expected_revision=0)
    store.close()
    again = SQLiteStore(tmp_path / "runs.sqlite")
    assert (again.get_run("run-1").run.state, again.get_run("run-1").run.revision) == (
        S.RUNNING, 1)


def test_store_fences_a_zombie_completion_after_takeover(tmp_path: Path) -> None:
    clock = FakeClock(0.0)
    store = new_store(tmp_path)
    a = store.transition("run-1", RunEvent("claim", at=clock.now(), worker_id="A",
                                           lease_for=30.0))
    clock.advance(45.0)  # A pauses past its lease
    b = store.transition("run-1", RunEvent("claim", at=clock.now(), worker_id="B",
                                           lease_for=30.0))
    assert b.incarnation == a.incarnation + 1
    journal_before = len(store.read("run-1"))
    with pytest.raises(StaleIncarnation):
        store.transition("run-1", RunEvent("complete", at=clock.now(), incarnation=a.incarnation,
                                           detail={"result": "refund by A"}))
    store.close()
    disk = SQLiteStore(tmp_path / "runs.sqlite")  # reopen: what is on disk, not in memory
    run = disk.get_run("run-1").run
    assert (run.state, run.revision, run.incarnation, run.worker_id) == (S.RUNNING, 2, 2, "B")
    assert "result" not in run.detail and len(disk.read("run-1")) == journal_before


def test_store_refuses_a_zombie_journal_append_after_takeover(tmp_path: Path) -> None:
    from minirt.store.base import NewEvent

    store = new_store(tmp_path)
    store.transition("run-1", RunEvent("claim", at=0.0, worker_id="A", lease_for=30.0))
    store.transition("run-1", RunEvent("claim", at=31.0, worker_id="B", lease_for=30.0))
    with pytest.raises(StaleIncarnation):
        store.append("run-1", 1, [NewEvent("step", 0, '{"name":"x","value":1}', 32.0)])
    assert store.read("run-1") == []


def test_store_a_zombie_completion_after_the_run_ended_raises_run_is_terminal(
        tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.transition("run-1", RunEvent("claim", at=0.0, worker_id="A", lease_for=30.0))
    store.transition("run-1", RunEvent("claim", at=45.0, worker_id="B", lease_for=30.0))
    store.transition("run-1", RunEvent("complete", at=46.0, incarnation=2,
                                       detail={"result": "by B"}))
    with pytest.raises(RunIsTerminal):
        store.transition("run-1", RunEvent("complete", at=47.0, incarnation=1,
                                           detail={"result": "by A"}))
    assert store.get_run("run-1").run.detail["result"] == "by B"


def test_store_claim_while_the_lease_is_held_raises_lease_held(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.transition("run-1", RunEvent("claim", at=0.0, worker_id="A", lease_for=30.0))
    with pytest.raises(LeaseHeld):
        store.transition("run-1", RunEvent("claim", at=29.0, worker_id="B"))
    assert store.get_run("run-1").run.worker_id == "A"


def test_store_claim_next_skips_a_held_lease_and_takes_over_an_expired_one(
        tmp_path: Path) -> None:
    store = new_store(tmp_path)
    assert store.claim_next("A", at=0.0, lease_for=30.0).run.incarnation == 1
    assert store.claim_next("B", at=29.0, lease_for=30.0) is None
    taken = store.claim_next("B", at=31.0, lease_for=30.0)
    assert (taken.run.incarnation, taken.run.worker_id) == (2, "B")


def test_store_transition_of_an_unknown_run_raises_run_not_found(tmp_path: Path) -> None:
    with pytest.raises(RunNotFound):
        new_store(tmp_path).transition("nope", RunEvent("claim", at=0.0, worker_id="A"))


def test_store_a_committed_transition_survives_close_and_reopen(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.transition("run-1", RunEvent("claim", at=0.0, worker_id="A"))
    store.transition("run-1", RunEvent("complete", at=1.0, incarnation=1,
                                       detail={"result": {"refund_cents": 3000}}))
    store.close()
    run = SQLiteStore(tmp_path / "runs.sqlite").get_run("run-1").run
    assert (run.state, run.revision, run.detail["result"]) == (
        S.SUCCEEDED, 2, {"refund_cents": 3000})


def test_store_a_committed_transition_survives_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    child = textwrap.dedent(f"""
        import os, signal
        from minirt.run import RunEvent
        from minirt.store.sqlite import SQLiteStore
        s = SQLiteStore({str(path)!r})
        s.create_run("run-1", "refund", "{{}}", 0.0)
        s.transition("run-1", RunEvent("claim", at=0.0, worker_id="A"))
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    run = SQLiteStore(path).get_run("run-1").run
    assert (run.state, run.incarnation, run.worker_id) == (S.RUNNING, 1, "A")
