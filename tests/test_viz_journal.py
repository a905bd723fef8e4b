"""The journal timeline (DOT text), the text table, and JournalTrace over real journals."""

from __future__ import annotations

from pathlib import Path

import pytest

from minirt.faults import FaultPlan, SimulatedCrash, recover
from minirt.run import RunState
from minirt.store.base import Event
from minirt.viz.journal import (
    INCARNATION_COLOUR,
    KIND_COLOURS,
    UNRESOLVED_COLOUR,
    JournalTrace,
    TraceOutOfRange,
    journal_explorer,
    journal_table,
    state_text,
    timeline,
)
from minirt_course.scenarios.m03_journal import SCENARIO


def _crashed(tmp_path: Path, point: str = "after_intent", occurrence: int = 2,
             recovered: bool = False) -> list[Event]:
    SCENARIO.setup(tmp_path)
    rt = SCENARIO.make_runtime(tmp_path, faults=FaultPlan(crash_at=point, occurrence=occurrence),
                               clock_offset=0.0, worker_id="w-1")
    run_id = SCENARIO.start(rt)
    with pytest.raises(SimulatedCrash):
        rt.run(run_id)
    rt.close()
    if recovered:
        rt = recover(SCENARIO, tmp_path, run_id)
    else:
        rt = SCENARIO.make_runtime(tmp_path, faults=FaultPlan(), clock_offset=0.0,
                                   worker_id="reader")
    events = rt.store.read(run_id)
    rt.close()
    return events


# -- timeline -----------------------------------------------------------------------------------

def test_timeline_has_one_node_per_event_in_seq_order(tmp_path):
    events = _crashed(tmp_path)
    src = timeline(events).source
    positions = [src.index(f"\te{e.seq} [") for e in events]
    assert len(positions) == len(events)
    chain = [src.index(f"e{a.seq} -> e{b.seq}") for a, b in zip(events, events[1:], strict=False)]
    assert chain == sorted(chain)


def test_timeline_groups_events_by_step_position(tmp_path):
    src = timeline(_crashed(tmp_path, recovered=True)).source
    assert [f"cluster_step_{i}" in src for i in range(7)] == [True] * 7
    box = src[src.index("cluster_step_4"):src.index("cluster_step_5")]
    assert all(k in box for k in ("intent", "reconciled", "attempt", "tool_result"))


def test_timeline_colours_events_by_kind(tmp_path):
    src = timeline(_crashed(tmp_path, recovered=True)).source
    for kind in ("intent", "tool_result", "decision", "step", "reconciled", "attempt"):
        assert f'fillcolor="{KIND_COLOURS[kind]}"' in src


def test_timeline_labels_chain_links_with_the_linked_digest(tmp_path):
    events = _crashed(tmp_path)
    src = timeline(events).source
    a, b = events[3], events[4]
    edge = next(line for line in src.splitlines() if f"e{a.seq} -> e{b.seq} " in line)
    assert a.digest[7:15] in edge


def test_timeline_flags_an_unresolved_intent(tmp_path):
    events = _crashed(tmp_path, "after_intent", 2)
    src = timeline(events).source
    node = src[src.index(f"\te{events[-1].seq} ["):]
    assert "UNRESOLVED" in node.split("]")[0] and UNRESOLVED_COLOUR in node.split("]")[0]
    assert src.count("UNRESOLVED") == 1


def test_timeline_does_not_flag_intents_with_an_outcome(tmp_path):
    assert "UNRESOLVED" not in timeline(_crashed(tmp_path, recovered=True)).source


def test_timeline_marks_the_incarnation_change(tmp_path):
    events = _crashed(tmp_path, recovered=True)
    src = timeline(events).source
    assert "incarnation 1 → 2" in src
    assert src.count(f'fontcolor="{INCARNATION_COLOUR}"') == 2  # 0 -> 1 (first claim), 1 -> 2


def test_timeline_shows_an_artifact_reference_as_such(tmp_path):
    from minirt.journal import ARTIFACT_THRESHOLD, new_event
    from minirt.run import RunEvent
    from minirt.store.base import NewEvent
    from minirt.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "a.sqlite")
    store.create_run("r", "wf", "null", 0.0, events=[NewEvent("run_started", None, "{}", 0.0)])
    store.transition("r", RunEvent("claim", at=0.0, worker_id="w"))
    store.append("r", 1, [new_event(store, "step", 0, {"name": "big",
                                                        "value": "x" * ARTIFACT_THRESHOLD}, 1.0)])
    assert "artifact " in timeline(store.read("r")).source


def test_timeline_is_deterministic(tmp_path):
    events = _crashed(tmp_path)
    assert timeline(events).source == timeline(list(events)).source


# -- table --------------------------------------------------------------------------------------

def test_table_has_a_header_and_one_line_per_event(tmp_path):
    events = _crashed(tmp_path)
    lines = journal_table(events).splitlines()
    assert lines[0].split()[:4] == ["seq", "step", "kind", "inc"]
    assert len(lines) == 2 + len(events)
    assert lines[2].split()[0] == "1" and events[0].digest[7:19] in lines[2]


# -- JournalTrace -------------------------------------------------------------------------------

def test_trace_has_one_index_per_prefix(tmp_path):
    events = _crashed(tmp_path)
    trace = JournalTrace(events)
    assert len(trace) == len(events) + 1
    assert trace.so_far(0) == [] and trace.so_far(len(events)) == events


def test_trace_state_follows_the_transition_events(tmp_path):
    trace = JournalTrace(_crashed(tmp_path, recovered=True))
    states = [trace.at(i).state for i in range(len(trace))]
    assert states[:3] == [RunState.PENDING, RunState.PENDING, RunState.RUNNING]
    assert states[-1] is RunState.SUCCEEDED and states[-2] is RunState.RUNNING


def test_trace_incarnation_changes_at_the_takeover(tmp_path):
    events = _crashed(tmp_path, recovered=True)
    trace = JournalTrace(events)
    second = next(e.seq for e in events if e.incarnation == 2)
    assert (trace.at(second - 1).run.incarnation, trace.at(second).run.incarnation) == (1, 2)


def test_trace_current_step_is_the_latest_position(tmp_path):
    trace = JournalTrace(_crashed(tmp_path, "after_intent", 2))
    assert (trace.at(1).step, trace.at(len(trace) - 1).step) == (None, 4)


def test_trace_lists_open_intents_until_their_outcome(tmp_path):
    events = _crashed(tmp_path, "after_provider_commit", 2, recovered=True)
    trace = JournalTrace(events)
    intent = next(e.seq for e in events if e.kind == "intent" and e.step == 4)
    result = next(e.seq for e in events if e.kind == "tool_result" and e.step == 4)
    assert trace.at(intent).unresolved == (4,)
    assert trace.at(result - 1).unresolved == (4,) and trace.at(result).unresolved == ()


def test_trace_path_lists_the_run_transitions(tmp_path):
    trace = JournalTrace(_crashed(tmp_path, recovered=True))
    states, kinds = trace.path(len(trace) - 1)
    assert kinds == ["claim", "claim", "complete"]
    assert states == [RunState.PENDING, RunState.RUNNING, RunState.RUNNING, RunState.SUCCEEDED]


def test_trace_needs_no_inference_for_a_worker_loop_claim(tmp_path):
    events = _crashed(tmp_path, "after_intent", 2)
    rt = SCENARIO.make_runtime(tmp_path, faults=FaultPlan(), clock_offset=3600.0,
                               worker_id="loop")
    rt.work()  # claim_next journals its claim in the claiming transaction
    events = rt.store.read(SCENARIO.run_id)
    rt.close()
    trace = JournalTrace(events)
    assert not trace.inferred and trace.at(len(trace) - 1).state is RunState.SUCCEEDED


def test_trace_infers_a_claim_missing_from_an_older_journal(tmp_path):
    events = _crashed(tmp_path, "after_intent", 2)
    rt = SCENARIO.make_runtime(tmp_path, faults=FaultPlan(), clock_offset=3600.0,
                               worker_id="loop")
    rt.work()
    events = [e for e in rt.store.read(SCENARIO.run_id)
              if not (e.kind == "transition" and e.incarnation == 2
                      and '"claim"' in e.payload_json)]
    rt.close()
    trace = JournalTrace(events)
    assert trace.inferred and trace.at(len(trace) - 1).state is RunState.SUCCEEDED


def test_trace_index_out_of_range_is_a_named_error(tmp_path):
    trace = JournalTrace(_crashed(tmp_path))
    with pytest.raises(TraceOutOfRange):
        trace.at(len(trace))


def test_trace_from_store_verifies_the_journal(tmp_path):
    import sqlite3

    from minirt.store.base import JournalCorrupted
    from minirt.store.sqlite import SQLiteStore

    _crashed(tmp_path)
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    db.execute("UPDATE events SET payload_json='{}' WHERE seq=3")
    db.commit()
    db.close()
    with pytest.raises(JournalCorrupted):
        JournalTrace.from_store(SQLiteStore(tmp_path / "runs.sqlite"), SCENARIO.run_id)


def test_state_text_names_state_revision_and_incarnation(tmp_path):
    run = JournalTrace(_crashed(tmp_path)).at(2).run
    assert state_text(run) == (f"run {SCENARIO.run_id}: running (revision 1, incarnation 1, "
                               "worker w-1)")


def test_explorer_is_a_thin_layer_over_the_trace(tmp_path):
    trace = JournalTrace(_crashed(tmp_path))
    box = journal_explorer(trace)
    slider = box.children[0].children[1]
    slider.value = len(trace) - 1
    assert box.trace is trace and slider.max == len(trace) - 1
