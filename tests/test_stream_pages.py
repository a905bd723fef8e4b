"""The journal read a page at a time: the store's iter_pages, the step index built a page at a
time, and the streamed Journal that takes whole pages into its window.

Each must give exactly what the row-at-a-time form gives: the same events and the same errors
(iter_events), the same index (StepIndexBuilder.add), the same positions (Journal.load).
"""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from minirt import journal as journal_mod
from minirt.journal import Journal, Position
from minirt.run import RunEvent
from minirt.store.base import PAGE_SIZE, JournalCorrupted, NewEvent, StepIndexBuilder
from minirt.store.sqlite import SQLiteStore

T0 = 1_700_000_000.0


def _ev(kind: str, step: int | None, **payload: object) -> NewEvent:
    return NewEvent(kind, step, json.dumps(payload, sort_keys=True), T0)


def _store(tmp_path, n: int, *, claim_again: bool = True) -> SQLiteStore:
    """A run with ``n`` tool positions (intent then result; the last one left open)."""
    store = SQLiteStore(tmp_path / "runs.sqlite")
    store.create_run("r", "wf", "{}", T0)
    store.transition("r", RunEvent("claim", at=T0, worker_id="w1", lease_for=30))
    for i in range(0, n, 50):
        rows = []
        for k in range(i, min(i + 50, n)):
            rows.append(_ev("intent", k, tool="t", i=k))
            if k < n - 1:
                rows.append(_ev("tool_result", k, value=k))
        store.append("r", 1, rows)
    if claim_again:
        store.transition("r", RunEvent("claim", at=T0 + 60, worker_id="w2", lease_for=30))
    return store


@pytest.mark.parametrize("page_size", [1, 7, 1000])
def test_iter_pages_are_the_events_of_iter_events_in_pages(tmp_path, page_size):
    store = _store(tmp_path, 40)
    full = store.read("r")
    pages = list(store.iter_pages("r", page_size=page_size))
    assert [e for page in pages for e in page] == full
    assert all(0 < len(page) <= page_size for page in pages)
    tail = list(store.iter_pages("r", after_seq=30, page_size=page_size))
    assert [e for page in tail for e in page] == full[30:]


def test_iter_pages_refuses_a_changed_row_when_its_page_is_reached(tmp_path):
    store = _store(tmp_path, 40)
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    db.execute("UPDATE events SET payload_json='{\"value\":99}' WHERE run_id='r' AND seq=23")
    db.commit()
    db.close()
    pages = store.iter_pages("r", page_size=10)
    assert [e.seq for e in next(pages)] == list(range(1, 11))
    assert [e.seq for e in next(pages)] == list(range(11, 21))
    with pytest.raises(JournalCorrupted) as err:
        next(pages)  # the page holding seq 23: none of it is handed out
    assert (err.value.run_id, err.value.seq) == ("r", 23)


def test_add_rows_builds_the_index_that_add_builds():
    r = random.Random(24)
    for _ in range(300):
        one, rows = StepIndexBuilder(), []
        seq, step = 0, 0
        for _ in range(r.randrange(60)):
            seq += 1
            pick = r.randrange(10)
            if pick == 0:
                row_step = None
            elif pick == 1:
                row_step = r.choice([-3, 10**9, step + 2000])  # sparse from here on
            elif pick < 5:
                row_step = max(0, step - r.randrange(3))  # a position seen before
            else:
                step += r.randrange(1, 3)
                row_step = step
            rows.append(("r", seq, "k", row_step, "{}", 1, T0, b"\0" * 32))
            if row_step is not None:
                one.add(row_step, seq)
        paged = StepIndexBuilder()
        for i in range(0, len(rows), 7):
            paged.add_rows(rows[i:i + 7])
        assert type(paged.result()) is type(one.result())
        assert list(paged.result()) == list(one.result())
        if isinstance(one.result(), dict):
            assert paged.result() == one.result()


def test_a_stream_answers_as_load_when_this_incarnations_writes_fall_in_a_later_page(tmp_path):
    """The stream takes whole pages: a page fetched after ``note`` holds this incarnation's own
    writes, which are in the window already and must not be added twice."""
    n = PAGE_SIZE  # 2n - 1 recorded events: two pages
    store = _store(tmp_path, n)
    streamed = Journal.stream(store, "r")
    assert streamed.at(0) is not None  # the first page is taken
    rows = store.append("r", 2, [_ev("tool_result", n - 1, value=n - 1),
                                 _ev("step", n, name="s")])
    streamed.note(rows)
    loaded = Journal.load(store, "r")
    for step in range(n + 2):
        assert streamed.at(step) == loaded.at(step), step
    assert streamed.at(n - 1).outcome == rows[0] and streamed.at(n - 1).extra == ()
    assert streamed.recorded_steps == n + 1


def test_a_stream_reads_a_store_without_pages_event_by_event(tmp_path):
    store = _store(tmp_path, 30)

    class EventsOnly:
        def __init__(self, inner):
            self._inner = inner

        def iter_events(self, run_id):
            return self._inner.iter_events(run_id)

        def step_index(self, run_id):
            return self._inner.step_index(run_id)

        def read(self, run_id):
            return self._inner.read(run_id)

    streamed = Journal.stream(EventsOnly(store), "r")
    loaded = Journal.load(store, "r")
    for step in range(32):
        assert streamed.at(step) == loaded.at(step), step


def test_the_replay_fast_position_is_the_position_its_constructor_builds():
    built = Position(3, "opening", "outcome", ())
    fast = journal_mod._position(3, "opening", "outcome")
    assert type(fast) is Position and fast == built and hash(fast) == hash(built)
    assert repr(fast) == repr(built) and fast.is_unresolved is built.is_unresolved
    with pytest.raises(AttributeError):  # still frozen
        fast.step = 4  # type: ignore[misc]
