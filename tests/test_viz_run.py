"""The run state diagram and the stepper (minirt/viz/run.py): asserts on DOT text and plain objects."""

from __future__ import annotations

import re

import pytest

from minirt.run import FENCED_EVENTS, TERMINAL, TRANSITIONS, Run, RunEvent, RunState
from minirt.viz.run import (
    PATH_COLOUR,
    REFUSED_COLOUR,
    NotATransition,
    PathMismatch,
    RunStepper,
    StepOutOfRange,
    state_diagram,
)

S = RunState
ZOMBIE_STORY = [
    RunEvent("claim", at=0.0, worker_id="A", lease_for=30.0),
    RunEvent("heartbeat", at=10.0, incarnation=1, lease_for=30.0),
    RunEvent("claim", at=45.0, worker_id="B", lease_for=30.0),
    RunEvent("complete", at=50.0, incarnation=1, detail={"result": "by A"}),
    RunEvent("complete", at=51.0, incarnation=2, detail={"result": "by B"}),
]


def edges(dot: str) -> list[str]:
    return [line.strip() for line in dot.splitlines() if "->" in line]


def edge_line(dot: str, source: RunState, kind: str) -> str:
    """The edge drawing (source, kind); a self-loop's label lists its events one per line."""
    target = TRANSITIONS[(source, kind)]
    [line] = [e for e in edges(dot) if e.startswith(f"{source.name} -> {target.name} ")
              and re.search(rf'label="?(?:[^"]*\\n)?{kind}\b', e)]
    return line


def test_every_transition_of_the_table_is_an_edge_labelled_with_its_event() -> None:
    dot = state_diagram().source
    loops = {(s, k in FENCED_EVENTS) for (s, k), t in TRANSITIONS.items() if s is t}
    straight = [pair for pair, t in TRANSITIONS.items() if pair[0] is not t]
    assert len(edges(dot)) == len(straight) + len(loops)
    for source, kind in TRANSITIONS:
        assert edge_line(dot, source, kind)


def test_a_states_self_loops_are_on_separate_sides_one_label_line_per_event() -> None:
    dot = state_diagram().source
    line = edge_line(dot, S.CANCELLING, "cancel_request")
    assert line == edge_line(dot, S.CANCELLING, "claim") and "headport=n" in line
    assert "claim\\ncancel_request" in line
    assert "headport=s" in edge_line(dot, S.CANCELLING, "heartbeat")


def test_every_state_is_a_node_and_terminal_states_are_double_circled() -> None:
    dot = state_diagram().source
    for state in RunState:
        [line] = [ln for ln in dot.splitlines() if ln.strip().startswith(f"{state.name} [")]
        assert ("doublecircle" in line) == (state in TERMINAL)


def test_uncertain_is_drawn_differently_from_every_other_state() -> None:
    lines = {s: next(ln for ln in state_diagram().source.splitlines()
                     if ln.strip().startswith(f"{s.name} [")) for s in RunState}
    assert "octagon" in lines[S.UNCERTAIN]
    assert all("octagon" not in line for s, line in lines.items() if s is not S.UNCERTAIN)


def test_fenced_events_are_solid_edges_and_the_others_dashed() -> None:
    dot = state_diagram().source
    for source, kind in TRANSITIONS:
        line = edge_line(dot, source, kind)
        assert ("dashed" in line) == (kind not in FENCED_EVENTS)


def test_a_diagram_without_a_path_highlights_nothing() -> None:
    assert PATH_COLOUR not in state_diagram().source


def test_the_path_is_highlighted_with_colour_width_and_visit_order() -> None:
    path = [S.PENDING, S.RUNNING, S.RUNNING, S.SUCCEEDED]
    dot = state_diagram(path, events=["claim", "claim", "complete"]).source
    claim = edge_line(dot, S.RUNNING, "claim")
    assert PATH_COLOUR in claim and "penwidth=2.5" in claim and "claim (2)" in claim
    assert "claim (1)" in edge_line(dot, S.PENDING, "claim")
    assert "complete (3)" in edge_line(dot, S.RUNNING, "complete")
    assert PATH_COLOUR not in edge_line(dot, S.RUNNING, "heartbeat")


def test_without_events_every_edge_between_two_path_states_is_highlighted() -> None:
    dot = state_diagram([S.RUNNING, S.RUNNING]).source
    assert "claim (1)" in edge_line(dot, S.RUNNING, "claim")
    assert "heartbeat (1)" in edge_line(dot, S.RUNNING, "heartbeat")


def test_highlight_run_marks_its_state_with_revision_and_incarnation() -> None:
    run = Run("r", S.UNCERTAIN, revision=4, incarnation=2)
    dot = state_diagram(highlight_run=run).source
    line = next(ln for ln in dot.splitlines() if ln.strip().startswith("UNCERTAIN ["))
    assert "rev 4 · inc 2" in line and PATH_COLOUR in line


def test_a_path_the_table_does_not_allow_is_refused_by_name() -> None:
    with pytest.raises(NotATransition):
        state_diagram([S.SUCCEEDED, S.RUNNING])


def test_a_path_with_the_wrong_number_of_events_is_refused_by_name() -> None:
    with pytest.raises(PathMismatch):
        state_diagram([S.PENDING, S.RUNNING], events=[])


def test_the_dot_text_is_deterministic() -> None:
    assert state_diagram([S.PENDING, S.RUNNING]).source == state_diagram(
        [S.PENDING, S.RUNNING]).source


def test_the_stepper_has_one_step_per_event_plus_the_start() -> None:
    assert len(RunStepper(ZOMBIE_STORY)) == len(ZOMBIE_STORY) + 1


def test_the_stepper_applies_events_in_order() -> None:
    stepper = RunStepper(ZOMBIE_STORY)
    assert [(s.run.state, s.run.revision, s.run.incarnation) for s in stepper.steps] == [
        (S.PENDING, 0, 0), (S.RUNNING, 1, 1), (S.RUNNING, 2, 1), (S.RUNNING, 3, 2),
        (S.RUNNING, 3, 2), (S.SUCCEEDED, 4, 2)]


def test_a_refused_event_is_a_step_with_its_error_and_an_unchanged_run() -> None:
    stepper = RunStepper(ZOMBIE_STORY)
    zombie = stepper.steps[4]
    assert (zombie.error, zombie.accepted) == ("StaleIncarnation", False)
    assert zombie.run == stepper.steps[3].run
    assert "REFUSED (StaleIncarnation)" in zombie.describe()


def test_at_gives_the_run_and_a_diagram_of_the_accepted_path_so_far() -> None:
    view = RunStepper(ZOMBIE_STORY).at(5)
    assert view.run.detail["result"] == "by B"
    dot = view.diagram.source
    assert "heartbeat (2)" in edge_line(dot, S.RUNNING, "heartbeat")
    assert "claim (3)" in edge_line(dot, S.RUNNING, "claim")
    assert "complete (5)" in edge_line(dot, S.RUNNING, "complete")  # step 4 was refused


def test_a_refused_step_is_shown_on_the_current_state() -> None:
    dot = RunStepper(ZOMBIE_STORY).at(4).diagram.source
    line = next(ln for ln in dot.splitlines() if ln.strip().startswith("RUNNING ["))
    assert "refused: StaleIncarnation" in line and REFUSED_COLOUR in line


def test_at_step_zero_highlights_only_the_start() -> None:
    dot = RunStepper(ZOMBIE_STORY).at(0).diagram.source
    assert not any(PATH_COLOUR in e for e in edges(dot))
    assert "rev 0 · inc 0" in dot


def test_at_outside_the_history_is_refused_by_name() -> None:
    with pytest.raises(StepOutOfRange):
        RunStepper(ZOMBIE_STORY).at(6)
