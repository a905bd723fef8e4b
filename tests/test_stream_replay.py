"""Streamed journals: the store's paged read and the bounded-window Journal.stream.

The stream must verify what read() verifies (a tampered row is refused even right after a claim
that verified the journal), return the same events, and the streamed Journal must answer
``at``/``unresolved``/``recorded_steps`` exactly as the in-memory one does.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from minirt import journal as journal_mod
from minirt.journal import Journal
from minirt.run import RunEvent
from minirt.store.base import JournalCorrupted, NewEvent, StoreArgumentInvalid
from minirt.store.sqlite import SQLiteStore

T0 = 1_700_000_000.0


def _ev(kind: str, step: int | None, **payload: object) -> NewEvent:
    return NewEvent(kind, step, json.dumps(payload, sort_keys=True), T0)


def _claimed_store(tmp_path, n: int = 50) -> SQLiteStore:
    """A run with ``n`` tool positions (intent then result), the last one left open, claimed
    again afterwards (as a resume does), so the claim has verified the whole journal."""
    store = SQLiteStore(tmp_path / "runs.sqlite")
    store.create_run("r", "wf", "{}", T0)
    store.transition("r", RunEvent("claim", at=T0, worker_id="w1", lease_for=30))
    for i in range(n):
        rows = [_ev("intent", i, tool="t", i=i)]
        if i < n - 1:
            rows.append(_ev("tool_result", i, value=i))
        store.append("r", 1, rows)
    store.transition("r", RunEvent("claim", at=T0 + 60, worker_id="w2", lease_for=30))
    return store


def test_iter_events_in_small_pages_equals_read(tmp_path):
    store = _claimed_store(tmp_path)
    full = store.read("r")
    assert list(store.iter_events("r", page_size=7)) == full
    assert list(store.iter_events("r", after_seq=40, page_size=3)) == full[40:]
    with pytest.raises(StoreArgumentInvalid):
        list(store.iter_events("r", page_size=0))


def test_a_row_changed_through_another_connection_after_the_claim_is_refused(tmp_path):
    store = _claimed_store(tmp_path)
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    db.execute("UPDATE events SET payload_json='{\"value\":99}' WHERE run_id='r' AND seq=10")
    db.commit()
    db.close()
    with pytest.raises(JournalCorrupted) as err:
        list(store.iter_events("r", page_size=4))
    assert err.value.seq == 10


def test_a_row_changed_in_a_callers_transaction_after_the_claim_is_refused(tmp_path):
    store = _claimed_store(tmp_path)
    with store.transaction() as db:
        db.execute("UPDATE events SET payload_json='{\"value\":99}' WHERE run_id='r' AND seq=10")
    with pytest.raises(JournalCorrupted) as err:
        store.read("r")
    assert err.value.seq == 10


def test_a_deleted_last_row_is_refused_by_the_stream(tmp_path):
    store = _claimed_store(tmp_path)
    last = store.read("r")[-1].seq
    with store.transaction() as db:
        db.execute(f"DELETE FROM events WHERE run_id='r' AND seq={last}")
    with pytest.raises(JournalCorrupted) as err:
        list(store.iter_events("r", page_size=5))
    assert err.value.seq == last


def test_stream_answers_every_position_as_load_does(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_mod, "WINDOW", 4)  # force the window to drop old positions
    store = _claimed_store(tmp_path)
    loaded = Journal.load(store, "r")
    streamed = Journal.stream(store, "r")
    assert streamed.recorded_steps == loaded.recorded_steps == 50
    assert streamed.has_recorded_at_or_after(49) and not streamed.has_recorded_at_or_after(50)
    for step in range(52):
        assert streamed.at(step) == loaded.at(step), step
    assert streamed.at(3) == loaded.at(3)  # behind the window: re-read from the store
    assert [p.step for p in streamed.unresolved()] == [p.step for p in loaded.unresolved()] \
        == [49]
    assert list(streamed.events) == list(loaded.events)


def test_stream_notes_this_incarnations_writes_once(tmp_path):
    store = _claimed_store(tmp_path, n=3)
    streamed = Journal.stream(store, "r")
    assert streamed.at(0) is not None
    rows = store.append("r", 2, [_ev("tool_result", 2, value=2), _ev("step", 3, name="s")])
    streamed.note(rows)
    pos2, pos3 = streamed.at(2), streamed.at(3)
    assert pos2.outcome == rows[0] and pos2.extra == ()
    assert pos3.opening == rows[1] and streamed.recorded_steps == 4
    assert streamed.at(4) is None


def test_the_claims_step_index_equals_the_one_read_from_the_rows(tmp_path):
    store = _claimed_store(tmp_path)
    fresh = SQLiteStore(tmp_path / "runs.sqlite")  # never claimed: reads the index with SQL
    from_rows = list(fresh.step_index("r"))
    assert list(store.step_index("r")) == from_rows  # the claim's, built while verifying
    assert from_rows[0] == 2 and from_rows[49] == store.read("r")[-1].seq == 99
    store.transition("r", RunEvent("claim", at=T0 + 200, worker_id="w3", lease_for=30))
    store.append("r", 3, [_ev("tool_result", 49, value=49)])  # a position recorded after it
    assert list(store.step_index("r")) == list(fresh.step_index("r"))
    assert store.step_index("r")[49] == store.read("r")[-1].seq


def test_sparse_positions_give_a_dict_index(tmp_path):
    store = SQLiteStore(tmp_path / "runs.sqlite")
    store.create_run("r", "wf", "{}", T0)
    store.transition("r", RunEvent("claim", at=T0, worker_id="w1", lease_for=30))
    store.append("r", 1, [_ev("step", 0), _ev("step", 10**9)])
    assert store.step_index("r") == {0: 1, 10**9: 2}
