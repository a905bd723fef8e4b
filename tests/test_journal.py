"""The journal's replay index: positions, unresolved intents, artifacts, descriptions."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from minirt.canonical import canonical_json
from minirt.journal import ARTIFACT_THRESHOLD, Journal, describe, new_event
from minirt.run import RunEvent
from minirt.store.base import JournalCorrupted, NewEvent
from minirt.store.sqlite import SQLiteStore

RUN = "run-1"


def _store(tmp_path: Path) -> SQLiteStore:
    store = SQLiteStore(tmp_path / "runs.sqlite")
    store.create_run(RUN, "wf", "null", 0.0, events=[NewEvent("run_started", None, "{}", 0.0)])
    store.transition(RUN, RunEvent("claim", at=0.0, worker_id="w1"))
    return store


def _append(store: SQLiteStore, kind: str, step: int | None, payload: object) -> None:
    store.append(RUN, 1, [new_event(store, kind, step, payload, 1.0)])


def _intent(store: SQLiteStore, step: int, tool: str = "charge") -> None:
    _append(store, "intent", step, {"tool": tool, "args": {"amount": 5},
                                    "args_digest": "sha256:abc", "effect_key": "ek_1"})


# -- positions ----------------------------------------------------------------------------------

def test_nothing_recorded_at_a_position_gives_none(tmp_path):
    store = _store(tmp_path)
    assert Journal.load(store, RUN).at(0) is None


def test_step_event_is_its_own_outcome(tmp_path):
    store = _store(tmp_path)
    _append(store, "step", 0, {"name": "now", "value": 12.5})
    pos = Journal.load(store, RUN).at(0)
    assert pos.opening is pos.outcome and not pos.is_unresolved


def test_decision_event_is_its_own_outcome(tmp_path):
    store = _store(tmp_path)
    _append(store, "decision", 0, {"name": "plan", "prompt_digest": "d", "output": {"a": 1}})
    assert Journal.load(store, RUN).at(0).outcome.kind == "decision"


def test_intent_without_result_is_unresolved(tmp_path):
    store = _store(tmp_path)
    _intent(store, 0)
    pos = Journal.load(store, RUN).at(0)
    assert (pos.opening.kind, pos.outcome, pos.is_unresolved) == ("intent", None, True)


def test_intent_with_result_is_resolved(tmp_path):
    store = _store(tmp_path)
    _intent(store, 0)
    _append(store, "tool_result", 0, {"effect_key": "ek_1", "value": {"id": "ch_1"}})
    pos = Journal.load(store, RUN).at(0)
    assert (pos.outcome.kind, pos.is_unresolved) == ("tool_result", False)


def test_notes_between_intent_and_result_are_extra(tmp_path):
    store = _store(tmp_path)
    _intent(store, 0)
    _append(store, "reconciled", 0, {"effect_key": "ek_1", "resolution": "redispatch"})
    _append(store, "attempt", 0, {"effect_key": "ek_1", "attempt": 2})
    _append(store, "tool_result", 0, {"effect_key": "ek_1", "value": 1})
    pos = Journal.load(store, RUN).at(0)
    assert [e.kind for e in pos.extra] == ["reconciled", "attempt"]


def test_events_without_a_step_are_not_positions(tmp_path):
    store = _store(tmp_path)
    _append(store, "transition", None, {"event": "heartbeat"})
    journal = Journal.load(store, RUN)
    assert (journal.at(0), journal.recorded_steps) == (None, 0)


def test_outcome_without_opening_is_corruption(tmp_path):
    store = _store(tmp_path)
    _append(store, "tool_result", 3, {"effect_key": "ek_1", "value": 1})
    with pytest.raises(JournalCorrupted) as err:
        Journal.load(store, RUN).at(3)
    assert err.value.run_id == RUN


def test_recorded_steps_counts_positions(tmp_path):
    store = _store(tmp_path)
    for i in range(3):
        _append(store, "step", i, {"name": f"s{i}", "value": i})
    assert Journal.load(store, RUN).recorded_steps == 3


# -- unresolved intents (what recovery must reconcile) ----------------------------------------

def test_unresolved_lists_only_intents_without_outcome(tmp_path):
    store = _store(tmp_path)
    _intent(store, 0)
    _append(store, "tool_result", 0, {"effect_key": "ek_1", "value": 1})
    _append(store, "step", 1, {"name": "s", "value": 1})
    _intent(store, 2)
    assert [p.step for p in Journal.load(store, RUN).unresolved()] == [2]


def test_an_open_wait_is_not_an_unresolved_intent(tmp_path):
    store = _store(tmp_path)
    _append(store, "wait", 0, {"name": "approval"})
    assert Journal.load(store, RUN).unresolved() == []


def test_unresolved_survives_reopen(tmp_path):
    store = _store(tmp_path)
    _intent(store, 0)
    store.close()
    reopened = SQLiteStore(tmp_path / "runs.sqlite")
    assert [p.step for p in Journal.load(reopened, RUN).unresolved()] == [0]


def test_note_adds_appended_events_to_the_index(tmp_path):
    store = _store(tmp_path)
    journal = Journal.load(store, RUN)
    rows = store.append(RUN, 1, [new_event(store, "step", 0, {"name": "a", "value": 1}, 1.0)])
    journal.note(rows)
    assert journal.at(0).opening.seq == rows[0].seq


def test_load_refuses_a_corrupted_journal(tmp_path):
    store = _store(tmp_path)
    _append(store, "step", 0, {"name": "a", "value": 1})
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    db.execute("UPDATE events SET payload_json='{\"name\":\"a\",\"value\":2}' WHERE seq=2")
    db.commit()
    db.close()
    with pytest.raises(JournalCorrupted) as err:
        Journal.load(store, RUN)
    assert err.value.seq == 2


# -- artifacts ----------------------------------------------------------------------------------

def test_small_payload_stays_inline(tmp_path):
    store = _store(tmp_path)
    ev = new_event(store, "step", 0, {"name": "a", "value": "x"}, 1.0)
    assert json.loads(ev.payload_json) == {"name": "a", "value": "x"}


def test_payload_at_the_threshold_stays_inline(tmp_path):
    store = _store(tmp_path)
    pad = ARTIFACT_THRESHOLD - len(canonical_json({"v": ""}))
    ev = new_event(store, "step", 0, {"v": "x" * pad}, 1.0)
    assert "$artifact" not in json.loads(ev.payload_json)


def test_payload_over_the_threshold_becomes_an_artifact_reference(tmp_path):
    store = _store(tmp_path)
    ev = new_event(store, "step", 0, {"v": "x" * ARTIFACT_THRESHOLD}, 1.0)
    ref = json.loads(ev.payload_json)
    assert set(ref) == {"$artifact", "size"} and ref["size"] > ARTIFACT_THRESHOLD


def test_threshold_counts_utf8_bytes_not_characters(tmp_path):
    """'é' is one character and two bytes: a payload of 0.6 x threshold characters is over."""
    store = _store(tmp_path)
    ev = new_event(store, "step", 0, {"v": "é" * int(ARTIFACT_THRESHOLD * 0.6)}, 1.0)
    ref = json.loads(ev.payload_json)
    assert "$artifact" in ref
    assert ref["size"] == len(store.get_artifact(ref["$artifact"]))


def test_artifact_payload_reads_back_through_the_journal(tmp_path):
    store = _store(tmp_path)
    big = {"name": "fetch", "value": [f"row {i}" for i in range(5000)]}
    store.append(RUN, 1, [new_event(store, "step", 0, big, 1.0)])
    journal = Journal.load(store, RUN)
    assert journal.payload(journal.at(0).opening) == big


def test_same_large_payload_is_stored_once(tmp_path):
    store = _store(tmp_path)
    big = {"value": "y" * (2 * ARTIFACT_THRESHOLD)}
    first = new_event(store, "step", 0, big, 1.0)
    second = new_event(store, "step", 1, big, 2.0)
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    (count,) = db.execute("SELECT count(*) FROM artifacts").fetchone()
    db.close()
    assert (first.payload_json == second.payload_json, count) == (True, 1)


def test_artifact_reference_keeps_the_journal_row_small(tmp_path):
    store = _store(tmp_path)
    ev = new_event(store, "step", 0, {"value": "z" * (50 * ARTIFACT_THRESHOLD)}, 1.0)
    assert len(ev.payload_json) < 200


# -- descriptions used in NonDeterminism messages ----------------------------------------------

def test_describe_names_the_recorded_call(tmp_path):
    store = _store(tmp_path)
    _intent(store, 0, tool="refund")
    _append(store, "step", 1, {"name": "now", "value": 1.0})
    _append(store, "wait", 2, {"name": "approval"})
    journal = Journal.load(store, RUN)
    texts = [describe(journal.at(i).opening) for i in range(3)]
    assert texts[0].startswith("tool 'refund'")
    assert texts[1:] == ["step 'now'", "wait for 'approval'"]


def test_describe_of_nothing_says_nothing():
    assert describe(None) == "nothing"
