"""The vocabulary is closed: event kinds, fault points and resolution kinds are enums whose
values are the strings on disk, and nothing outside them is written or accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import minirt_course.scenarios
from minirt.faults import boundaries, discover_scenarios
from minirt.journal import OPENING_KINDS, OUTCOME_KINDS, SELF_CLOSING_KINDS
from minirt.kinds import EventKind
from minirt.resolution import Kind, Resolution, ResolutionInvalid
from minirt.store.sqlite import SQLiteStore

SCENARIOS = [ref for ref in discover_scenarios(minirt_course.scenarios)
             if "pg_chaos" not in ref and "http" not in ref]


def test_the_replay_rules_speak_the_event_vocabulary():
    assert set(OPENING_KINDS) | set(OUTCOME_KINDS) | set(SELF_CLOSING_KINDS) <= set(EventKind)


@pytest.mark.parametrize("ref", SCENARIOS)
def test_every_event_a_scenario_journals_is_an_event_kind(ref, tmp_path: Path):
    boundaries(ref, workdir=tmp_path)
    store = SQLiteStore(tmp_path / "runs.sqlite")
    try:
        kinds = {e.kind for rec in store.list_runs() for e in store.read(rec.run.run_id)}
        notes = [json.loads(e.payload_json).get("resolution") for rec in store.list_runs()
                 for e in store.read(rec.run.run_id) if e.kind == EventKind.RECONCILED]
    finally:
        store.close()
    assert kinds and kinds <= set(EventKind), sorted(kinds - set(EventKind))
    assert set(notes) <= set(Kind)


def test_a_resolution_kind_is_an_enum_built_from_its_string():
    assert Resolution("result", 1).kind is Kind.RESULT
    assert Resolution(Kind.NOT_FOUND).kind == "not_found"  # the string on disk
    with pytest.raises(ResolutionInvalid) as err:
        Resolution("redispach")
    assert "redispach" in str(err.value)


def test_minirt_cancel_is_the_module_on_a_fresh_import_and_after_importing_it():
    import subprocess
    import sys

    code = ("import types, minirt\n"
            "from minirt import cancel\n"
            "a = isinstance(cancel, types.ModuleType)\n"
            "import minirt.cancel\n"
            "from minirt import cancel as again, cancel_run\n"
            "print(a, isinstance(again, types.ModuleType), again is minirt.cancel,\n"
            "      cancel_run is minirt.cancel.cancel)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True", "True", "True", "True"]


# -- run events --------------------------------------------------------------------------------

def test_the_transition_table_speaks_the_run_event_vocabulary():
    from minirt.run import FENCED_EVENTS, RUN_EVENT_KINDS, TRANSITIONS, RunEventKind

    assert {kind for _, kind in TRANSITIONS} == set(RunEventKind) == RUN_EVENT_KINDS
    assert FENCED_EVENTS <= RUN_EVENT_KINDS
    assert RunEventKind.CLAIM == "claim" and json.dumps(RunEventKind.WAKE) == '"wake"'


def test_an_unknown_run_event_is_refused_by_name_before_the_store_writes(tmp_path: Path):
    from minirt.run import (
        IllegalTransition,
        Run,
        RunEvent,
        RunEventKind,
        UnknownRunEvent,
        check_transition,
    )

    # the pure function (module 01's drill) refuses it as any pair outside the table
    with pytest.raises(IllegalTransition) as plain:
        check_transition(Run("r1"), RunEvent("clam"))
    assert type(plain.value) is IllegalTransition

    store = SQLiteStore(tmp_path / "runs.sqlite")
    try:
        store.create_run("r1", "wf", "{}", at=0.0)
        before = store.get_run("r1").run
        with pytest.raises(UnknownRunEvent) as err:
            store.transition("r1", RunEvent("clam", at=1.0, worker_id="w"))
        assert isinstance(err.value, IllegalTransition) and "'clam'" in str(err.value)
        after = store.get_run("r1").run
        assert after == before  # no revision spent, no state moved
        claimed = store.transition("r1", RunEvent(RunEventKind.CLAIM, at=1.0, worker_id="w"))
        assert claimed.incarnation == 1
    finally:
        store.close()


# -- journal event kinds: closed, extended only by registration ---------------------------------

@pytest.fixture
def registry():
    from minirt.kinds import KNOWN_EVENT_KINDS

    saved = set(KNOWN_EVENT_KINDS)
    yield KNOWN_EVENT_KINDS
    KNOWN_EVENT_KINDS.clear()
    KNOWN_EVENT_KINDS.update(saved)


def test_an_application_kind_is_accepted_once_registered(registry, tmp_path: Path):
    from minirt.kinds import register_event_kinds
    from minirt.run import RunEvent
    from minirt.store.base import NewEvent, UnknownEventKind

    store = SQLiteStore(tmp_path / "runs.sqlite")
    try:
        store.create_run("r1", "wf", "{}", at=0.0)
        inc = store.transition("r1", RunEvent("claim", at=0.0, worker_id="w")).incarnation
        note = NewEvent("shipping_note", None, "{}", 1.0)
        with pytest.raises(UnknownEventKind):
            store.append("r1", inc, [note])
        assert "shipping_note" in register_event_kinds("shipping_note")
        assert [e.kind for e in store.append("r1", inc, [note])] == ["shipping_note"]
    finally:
        store.close()


@pytest.mark.parametrize("bad", ["", "Tool_Result", "a b", "1st", 7])
def test_a_kind_that_is_not_snake_case_text_cannot_be_registered(registry, bad):
    from minirt.kinds import register_event_kinds

    with pytest.raises(ValueError, match="snake_case"):
        register_event_kinds(bad)
    assert bad not in registry


def test_the_registry_holds_all_of_minirts_vocabulary():
    from minirt.kinds import KNOWN_EVENT_KINDS

    assert set(EventKind) <= KNOWN_EVENT_KINDS
