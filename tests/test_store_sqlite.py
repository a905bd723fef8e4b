"""The SQLite store: fenced, append-only, hash-chained journals that survive a crash.

Every test uses a fresh database file under tmp_path. Corruption tests open the file with the
sqlite3 module directly and change rows the way a bad disk, a bad restore or a curious operator
would; the store must name the run and the position on the next read.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from minirt.run import (
    RevisionConflict,
    RunEvent,
    RunIsTerminal,
    RunNotFound,
    RunState,
    StaleIncarnation,
)
from minirt.store.base import GENESIS, JournalCorrupted, NewEvent, event_digest
from minirt.store.sqlite import SQLiteStore, StoreUnreadable

RUN = "run-1"


def _store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "runs.sqlite")


def _claimed(tmp_path: Path, run_id: str = RUN) -> SQLiteStore:
    """A store holding one run, claimed by worker w1 (incarnation 1)."""
    store = _store(tmp_path)
    store.create_run(run_id, "wf", "null", 0.0, events=[NewEvent("run_started", None, "{}", 0.0)])
    store.transition(run_id, RunEvent("claim", at=0.0, worker_id="w1"))
    return store


def _ev(i: int, kind: str = "step") -> NewEvent:
    return NewEvent(kind, i, f'{{"name":"s{i}","value":{i}}}', float(i))


def _fill(store: SQLiteStore, n: int, run_id: str = RUN) -> None:
    for i in range(n):
        store.append(run_id, 1, [_ev(i)])


def _raw(tmp_path: Path, sql: str, *args: object) -> None:
    """Change the database file behind the store's back (another connection, committed)."""
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    try:
        db.execute(sql, args)
        db.commit()
    finally:
        db.close()


# -- the hash chain ---------------------------------------------------------------------------

def test_append_numbers_events_from_one_without_gaps(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 3)
    assert [e.seq for e in store.read(RUN)] == [1, 2, 3, 4]


def test_first_event_links_to_genesis(tmp_path):
    store = _claimed(tmp_path)
    assert store.read(RUN)[0].prev_digest == GENESIS


def test_each_event_links_to_the_previous_digest(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 3)
    events = store.read(RUN)
    assert all(b.prev_digest == a.digest for a, b in zip(events, events[1:], strict=False))


def test_digest_covers_the_payload(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 1)
    e = store.read(RUN)[-1]
    assert e.digest == event_digest(e.run_id, e.seq, e.kind, e.step, e.payload_json,
                                    e.incarnation, e.at, e.prev_digest)
    assert e.digest != event_digest(e.run_id, e.seq, e.kind, e.step, e.payload_json + " ",
                                    e.incarnation, e.at, e.prev_digest)


def test_append_records_the_writing_incarnation(tmp_path):
    store = _claimed(tmp_path)
    (row,) = store.append(RUN, 1, [_ev(0)])
    assert row.incarnation == 1


def test_read_after_seq_trims_the_front(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 3)
    assert [e.seq for e in store.read(RUN, after_seq=2)] == [3, 4]


def test_journals_of_two_runs_are_separate_chains(tmp_path):
    store = _claimed(tmp_path)
    store.create_run("run-2", "wf", "null", 0.0, events=[NewEvent("run_started", None, "{}", 0.0)])
    _fill(store, 2)
    assert [e.seq for e in store.read("run-2")] == [1]
    assert store.read("run-2")[0].prev_digest == GENESIS


# -- corruption on disk is detected on read -----------------------------------------------------

def test_altered_payload_is_reported_with_run_and_seq(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 4)
    _raw(tmp_path, "UPDATE events SET payload_json=? WHERE run_id=? AND seq=3",
         '{"name":"s1","value":1000}', RUN)
    with pytest.raises(JournalCorrupted) as err:
        store.read(RUN)
    assert (err.value.run_id, err.value.seq) == (RUN, 3)


def test_row_rewritten_with_a_fresh_digest_breaks_the_next_link(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 4)
    e = store.read(RUN)[2]
    forged = '{"name":"s1","value":1000}'
    d = event_digest(e.run_id, e.seq, e.kind, e.step, forged, e.incarnation, e.at, e.prev_digest)
    _raw(tmp_path, "UPDATE events SET payload_json=?, digest=? WHERE run_id=? AND seq=3",
         forged, d, RUN)
    with pytest.raises(JournalCorrupted) as err:
        store.read(RUN)
    assert err.value.seq == 4


def test_altered_kind_is_detected(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 2)
    _raw(tmp_path, "UPDATE events SET kind='decision' WHERE run_id=? AND seq=2", RUN)
    with pytest.raises(JournalCorrupted) as err:
        store.read(RUN)
    assert err.value.seq == 2


def test_deleted_middle_row_is_reported_at_the_missing_seq(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 4)
    _raw(tmp_path, "DELETE FROM events WHERE run_id=? AND seq=3", RUN)
    with pytest.raises(JournalCorrupted) as err:
        store.read(RUN)
    assert (err.value.run_id, err.value.seq) == (RUN, 3)


def test_deleted_first_row_is_reported_at_seq_one(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 2)
    _raw(tmp_path, "DELETE FROM events WHERE run_id=? AND seq=1", RUN)
    with pytest.raises(JournalCorrupted) as err:
        store.read(RUN)
    assert err.value.seq == 1


def test_deleted_last_row_is_detected(tmp_path):
    """The tail has no successor to break: the run's recorded head (last seq) catches it."""
    store = _claimed(tmp_path)
    _fill(store, 4)
    _raw(tmp_path, "DELETE FROM events WHERE run_id=? AND seq=5", RUN)
    with pytest.raises(JournalCorrupted) as err:
        store.read(RUN)
    assert (err.value.run_id, err.value.seq) == (RUN, 5)


def test_deleted_whole_journal_is_detected(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 2)
    _raw(tmp_path, "DELETE FROM events WHERE run_id=?", RUN)
    with pytest.raises(JournalCorrupted) as err:
        store.read(RUN)
    assert err.value.seq == 1


def test_last_row_rewritten_with_a_fresh_digest_is_detected(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 2)
    e = store.read(RUN)[-1]
    forged = '{"name":"s1","value":1000}'
    d = event_digest(e.run_id, e.seq, e.kind, e.step, forged, e.incarnation, e.at, e.prev_digest)
    _raw(tmp_path, "UPDATE events SET payload_json=?, digest=? WHERE run_id=? AND seq=?",
         forged, d, RUN, e.seq)
    with pytest.raises(JournalCorrupted) as err:
        store.read(RUN)
    assert err.value.seq == e.seq


def test_swapped_payloads_are_detected_at_the_first_swapped_row(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 4)
    rows = {e.seq: e.payload_json for e in store.read(RUN)}
    _raw(tmp_path, "UPDATE events SET payload_json=? WHERE run_id=? AND seq=2", rows[4], RUN)
    _raw(tmp_path, "UPDATE events SET payload_json=? WHERE run_id=? AND seq=4", rows[2], RUN)
    with pytest.raises(JournalCorrupted) as err:
        store.read(RUN)
    assert err.value.seq == 2


def test_reordered_rows_are_detected(tmp_path):
    """Swap the sequence numbers of rows 2 and 3 (a reorder on disk)."""
    store = _claimed(tmp_path)
    _fill(store, 4)
    _raw(tmp_path, "UPDATE events SET seq=-1 WHERE run_id=? AND seq=2", RUN)
    _raw(tmp_path, "UPDATE events SET seq=2 WHERE run_id=? AND seq=3", RUN)
    _raw(tmp_path, "UPDATE events SET seq=3 WHERE run_id=? AND seq=-1", RUN)
    with pytest.raises(JournalCorrupted) as err:
        store.read(RUN)
    assert (err.value.run_id, err.value.seq) == (RUN, 2)


def test_corruption_message_names_run_and_seq(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 2)
    _raw(tmp_path, "UPDATE events SET at=99 WHERE run_id=? AND seq=2", RUN)
    with pytest.raises(JournalCorrupted, match=r"journal of run run-1 is corrupted at seq 2"):
        store.read(RUN)


def test_corruption_in_one_run_does_not_hide_another_runs_journal(tmp_path):
    store = _claimed(tmp_path)
    store.create_run("run-2", "wf", "null", 0.0, events=[NewEvent("run_started", None, "{}", 0.0)])
    _fill(store, 2)
    _raw(tmp_path, "UPDATE events SET payload_json='{}' WHERE run_id=? AND seq=2", RUN)
    assert len(store.read("run-2")) == 1


# -- unreadable files ---------------------------------------------------------------------------

def test_a_file_that_is_not_a_database_raises_store_unreadable(tmp_path):
    path = tmp_path / "runs.sqlite"
    path.write_bytes(b"this is a text file, not a database\n" * 200)
    with pytest.raises(StoreUnreadable) as err:
        SQLiteStore(path)
    assert err.value.path == str(path)


def test_a_garbled_database_header_raises_store_unreadable(tmp_path):
    store = _claimed(tmp_path)
    store.close()
    path = tmp_path / "runs.sqlite"
    data = bytearray(path.read_bytes())
    data[:16] = b"NOT SQLITE AT AL"
    path.write_bytes(bytes(data))
    with pytest.raises(StoreUnreadable):
        SQLiteStore(path)


# -- artifacts ----------------------------------------------------------------------------------

def test_artifact_round_trips(tmp_path):
    store = _store(tmp_path)
    d = store.put_artifact(b"x" * 100_000)
    assert store.get_artifact(d) == b"x" * 100_000


def test_artifact_is_stored_once_idempotent(tmp_path):
    store = _store(tmp_path)
    first = store.put_artifact(b"same bytes")
    second = store.put_artifact(b"same bytes")
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    (count,) = db.execute("SELECT count(*) FROM artifacts").fetchone()
    db.close()
    assert (first, count) == (second, 1)


def test_artifact_digest_is_content_addressed(tmp_path):
    store = _store(tmp_path)
    assert store.put_artifact(b"a") != store.put_artifact(b"b")


def test_missing_artifact_raises_artifact_missing(tmp_path):
    from minirt.store.base import ArtifactMissing

    with pytest.raises(ArtifactMissing):
        _store(tmp_path).get_artifact("sha256:" + "1" * 64)


def test_altered_artifact_bytes_are_refused(tmp_path):
    from minirt.store.base import ArtifactMissing

    store = _store(tmp_path)
    d = store.put_artifact(b"original")
    _raw(tmp_path, "UPDATE artifacts SET data=? WHERE digest=?", b"tampered", d)
    with pytest.raises(ArtifactMissing):
        store.get_artifact(d)


# -- fencing and compare-and-set ----------------------------------------------------------------

def test_append_from_a_stale_incarnation_raises_and_writes_nothing(tmp_path):
    store = _claimed(tmp_path)
    store.transition(RUN, RunEvent("claim", at=100.0, worker_id="w2"))  # lease (30 s) expired
    before = len(store.read(RUN))
    with pytest.raises(StaleIncarnation) as err:
        store.append(RUN, 1, [_ev(0)])
    assert (err.value.incarnation, err.value.current) == (1, 2)
    assert len(store.read(RUN)) == before


def test_append_after_the_run_ended_raises_run_is_terminal(tmp_path):
    store = _claimed(tmp_path)
    store.transition(RUN, RunEvent("complete", at=1.0, incarnation=1))
    with pytest.raises(RunIsTerminal):
        store.append(RUN, 1, [_ev(0)])


def test_append_to_an_unknown_run_raises_run_not_found(tmp_path):
    with pytest.raises(RunNotFound):
        _store(tmp_path).append("nope", 1, [_ev(0)])


def test_transition_with_a_stale_revision_raises_revision_conflict(tmp_path):
    store = _claimed(tmp_path)
    with pytest.raises(RevisionConflict):
        store.transition(RUN, RunEvent("heartbeat", at=1.0, incarnation=1), expected_revision=0)


def test_transition_and_its_events_commit_together(tmp_path):
    store = _claimed(tmp_path)
    store.transition(RUN, RunEvent("complete", at=1.0, incarnation=1),
                     events=[NewEvent("transition", None, '{"event":"complete"}', 1.0)])
    assert store.get_run(RUN).run.state is RunState.SUCCEEDED
    assert store.read(RUN)[-1].kind == "transition"


def test_a_refused_transition_appends_no_events(tmp_path):
    store = _claimed(tmp_path)
    with pytest.raises(StaleIncarnation):
        store.transition(RUN, RunEvent("complete", at=1.0, incarnation=7),
                         events=[NewEvent("transition", None, "{}", 1.0)])
    assert [e.kind for e in store.read(RUN)] == ["run_started"]


def test_claim_next_skips_a_run_whose_lease_is_live(tmp_path):
    store = _claimed(tmp_path)
    assert store.claim_next("w2", at=10.0, lease_for=30.0) is None


def test_claim_next_takes_over_an_expired_lease(tmp_path):
    store = _claimed(tmp_path)
    rec = store.claim_next("w2", at=31.0, lease_for=30.0)
    assert (rec.run.incarnation, rec.run.worker_id) == (2, "w2")


def test_append_extends_the_lease(tmp_path):
    store = _claimed(tmp_path)
    store.append(RUN, 1, [_ev(0)], lease_until=500.0)
    assert store.get_run(RUN).run.lease_expires_at == 500.0


def test_kv_changes_commit_with_the_append(tmp_path):
    store = _claimed(tmp_path)
    store.append(RUN, 1, [_ev(0)], kv={"outbox": "1"})
    assert store.kv_get(RUN, "outbox") == "1"


def test_kv_is_not_changed_by_a_fenced_out_append(tmp_path):
    store = _claimed(tmp_path)
    with pytest.raises(StaleIncarnation):
        store.append(RUN, 9, [_ev(0)], kv={"outbox": "1"})
    assert store.kv_get(RUN, "outbox") is None


def test_nested_transaction_rolls_back_as_one(tmp_path):
    store = _claimed(tmp_path)
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.append(RUN, 1, [_ev(0)])
            store.set_kv(RUN, {"k": "v"})
            raise RuntimeError("abort")
    assert (len(store.read(RUN)), store.kv_get(RUN, "k")) == (1, None)


def test_create_run_twice_raises_duplicate_run(tmp_path):
    from minirt.run import DuplicateRun

    store = _claimed(tmp_path)
    with pytest.raises(DuplicateRun):
        store.create_run(RUN, "wf", "null", 0.0)


# -- durability ---------------------------------------------------------------------------------

def test_committed_events_survive_close_and_reopen(tmp_path):
    store = _claimed(tmp_path)
    _fill(store, 3)
    written = store.read(RUN)
    store.close()
    assert _store(tmp_path).read(RUN) == written


def test_committed_events_survive_sigkill_and_an_open_transaction_does_not(tmp_path):
    """A child process commits two events, opens a third write, and is SIGKILLed inside it."""
    store = _claimed(tmp_path)
    store.close()
    child = textwrap.dedent(f"""
        import os, signal, sys
        from minirt.store.sqlite import SQLiteStore
        from minirt.store.base import NewEvent
        s = SQLiteStore({str(tmp_path / "runs.sqlite")!r})
        s.append({RUN!r}, 1, [NewEvent("step", 0, '{{"name":"a","value":0}}', 1.0)])
        s.append({RUN!r}, 1, [NewEvent("step", 1, '{{"name":"b","value":1}}', 2.0)])
        with s.transaction():
            s.append({RUN!r}, 1, [NewEvent("step", 2, '{{"name":"c","value":2}}', 3.0)])
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          timeout=60, env={**os.environ})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    events = _store(tmp_path).read(RUN)
    assert [e.kind for e in events] == ["run_started", "step", "step"]
    assert _store(tmp_path).get_run(RUN).run.state is RunState.RUNNING


def test_run_record_survives_reopen(tmp_path):
    store = _claimed(tmp_path)
    store.close()
    run = _store(tmp_path).get_run(RUN).run
    assert (run.state, run.incarnation, run.worker_id) == (RunState.RUNNING, 1, "w1")
