"""Pictures of the run state machine, drawn from :data:`minirt.run.TRANSITIONS` itself.

- :func:`state_diagram`: one node per :class:`~minirt.run.RunState` (terminal states
  double-circled, ``UNCERTAIN`` drawn as an amber octagon), one edge per entry of the transition
  table labelled with its event; a state's self-loops share one loop per style (fenced ones
  below the state, the others above), one event per line, so their labels never overlap (solid when the event is fenced by the incarnation, dashed when
  not). A run's path is highlighted: the edges it took in colour and bold, numbered in the order
  it took them, the states it visited filled, the state it is in now outlined.
- :class:`RunStepper`: a plain object holding a run's history as (event, run after it) pairs,
  built by applying the events with :func:`minirt.run.apply`; refused events are kept, with the
  error, and leave the run unchanged. ``stepper.at(i)`` gives the run and the diagram at step i.
- :func:`run_explorer`: a thin ipywidgets layer (Play + IntSlider + Output) over a RunStepper.

Guarantees: the diagram can never disagree with the table, because it is the table; the DOT text
is deterministic (tests assert on it). Not guaranteed: a pretty layout, which is graphviz's job.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import graphviz

from ..errors import MinirtError
from ..run import FENCED_EVENTS, TERMINAL, TRANSITIONS, Run, RunEvent, RunState, apply
from . import Diagram, render

PATH_COLOUR = "#2563eb"
UNCERTAIN_FILL = "#fde68a"
VISITED_FILL = "#dbeafe"
REFUSED_COLOUR = "#dc2626"


def _node_attrs(state: RunState, visited: bool, current: bool) -> dict[str, str]:
    attrs = {"shape": "doublecircle" if state in TERMINAL else "ellipse", "style": "filled",
             "fillcolor": VISITED_FILL if visited else "white", "color": "black"}
    if state is RunState.UNCERTAIN:
        attrs.update(shape="octagon", fillcolor=UNCERTAIN_FILL, color="#b45309",
                     style="filled,bold")
    if current:
        attrs.update(color=PATH_COLOUR, penwidth="3")
    return attrs


def state_diagram(path: Sequence[RunState] | None = None, *, highlight_run: Run | None = None,
                  events: Sequence[str] | None = None, numbers: Sequence[int] | None = None,
                  refused: str | None = None) -> Diagram:
    """The state diagram of :data:`TRANSITIONS`, with ``path`` (states in visit order) drawn.

    ``events`` (one event kind per step of the path, ``len(path) - 1`` of them) picks the exact
    edge of each step; without it every edge between two consecutive states of the path is
    highlighted. ``highlight_run`` marks the state that run is in (and its revision and
    incarnation) as the current one; by default the last state of the path is current.
    ``numbers`` renames the steps (default 1, 2, 3, ...), e.g. to a history's event indices;
    ``refused`` names an error to show on the current state (an event that was just refused).
    """
    states = list(path or [])
    steps = max(len(states) - 1, 0)
    if events is not None and len(events) != steps:
        raise PathMismatch(states=len(states), events=len(events))
    if numbers is not None and len(numbers) != steps:
        raise PathMismatch(states=len(states), events=len(numbers))
    taken: dict[tuple[RunState, str], list[int]] = {}
    for i, (a, b) in enumerate(zip(states, states[1:], strict=False), start=1):
        kinds = [events[i - 1]] if events is not None else [
            k for (s, k), t in TRANSITIONS.items() if s is a and t is b]
        if not any(TRANSITIONS.get((a, k)) is b for k in kinds):
            raise NotATransition(source=a.value, target=b.value, step=i)
        for k in kinds:
            taken.setdefault((a, k), []).append(numbers[i - 1] if numbers is not None else i)
    current = highlight_run.state if highlight_run is not None else (
        states[-1] if states else None)

    g = graphviz.Digraph("run_states", graph_attr={
        "rankdir": "LR", "fontname": "Helvetica", "fontsize": "11", "labelloc": "b",
        "label": "solid edge: fenced by the incarnation  ·  dashed: not fenced  ·  "
                 "double circle: terminal"})
    g.attr("node", fontname="Helvetica", fontsize="11")
    g.attr("edge", fontname="Helvetica", fontsize="9")
    for state in RunState:
        label = state.name
        attrs = _node_attrs(state, state in states, state is current)
        if highlight_run is not None and state is current:
            label += f"\\nrev {highlight_run.revision} · inc {highlight_run.incarnation}"
        if refused and state is current:
            label += f"\\nrefused: {refused}"
            attrs.update(color=REFUSED_COLOUR, penwidth="3")
        g.node(state.name, label, **attrs)
    loops: dict[tuple[RunState, bool], list[str]] = {}
    for (source, kind), target in TRANSITIONS.items():
        if source is target:  # drawn below: one loop per (state, fenced), on its own side
            loops.setdefault((source, kind in FENCED_EVENTS), []).append(kind)
            continue
        attrs = {"label": kind, "style": "solid" if kind in FENCED_EVENTS else "dashed"}
        steps = taken.get((source, kind))
        if steps:
            attrs.update(label=f"{kind} ({', '.join(map(str, steps))})", color=PATH_COLOUR,
                         fontcolor=PATH_COLOUR, penwidth="2.5")
        g.edge(source.name, target.name, **attrs)
    for (state, fenced), kinds in loops.items():
        # A state's self-loops share one edge per style (its events one per line), fenced ones
        # below the state and the others above: labels never sit on top of each other.
        lines = [f"{k} ({', '.join(map(str, taken[(state, k)]))})" if (state, k) in taken
                 else k for k in kinds]
        side = "s" if fenced else "n"
        attrs = {"label": "\\n".join(lines), "style": "solid" if fenced else "dashed",
                 "tailport": side, "headport": side}
        if any((state, k) in taken for k in kinds):
            attrs.update(color=PATH_COLOUR, fontcolor=PATH_COLOUR, penwidth="2.5")
        g.edge(state.name, state.name, **attrs)
    return render(g)


class PathMismatch(MinirtError):
    """``events`` does not have one event per step of ``path`` (not :class:`NotATransition`)."""

    fields = ("states", "events")
    template = "a path of {states} states needs {states} - 1 events, got {events}"


class NotATransition(MinirtError):
    """Two consecutive states of a path that no entry of TRANSITIONS connects."""

    fields = ("source", "target", "step")
    template = "step {step} of the path goes {source} -> {target}, which TRANSITIONS does not allow"


@dataclass(frozen=True)
class Step:
    """One step of a run's history: the event (None for the start), the run after it, and the
    name and message of the error if the event was refused (then ``run`` is unchanged)."""

    index: int  # Invariant: the position in RunStepper.steps
    event: RunEvent | None  # Invariant: None exactly for step 0
    run: Run  # Invariant: equal to the previous step's run when error is set
    error: str | None = None  # the refusing error's class name
    message: str = ""

    @property
    def accepted(self) -> bool:
        return self.error is None

    def describe(self) -> str:
        if self.event is None:
            return f"step 0: run {self.run.run_id} created ({self.run.state.value}, rev 0)"
        who = f" from incarnation {self.event.incarnation}" if self.event.incarnation else ""
        head = f"step {self.index}: {self.event.kind!r}{who} at t={self.event.at:g}"
        if self.error:
            return f"{head} -> REFUSED ({self.error}): {self.message}"
        return (f"{head} -> {self.run.state.value}, rev {self.run.revision}, "
                f"inc {self.run.incarnation}, worker {self.run.worker_id}")


@dataclass(frozen=True)
class StepView:
    """What :meth:`RunStepper.at` returns: the step and the diagram of the path up to it."""

    step: Step
    diagram: Diagram

    @property
    def run(self) -> Run:
        return self.step.run


class RunStepper:
    """A run's history built by applying ``events`` to ``run`` one by one (step 0 = ``run``).

    A refused event (any :class:`~minirt.errors.MinirtError` from :func:`apply`) becomes a step
    with ``error`` set and the run unchanged, so a zombie's rejected completion shows up.
    """

    def __init__(self, events: Sequence[RunEvent], run: Run | None = None) -> None:
        run = run if run is not None else Run("run-1")
        self.steps: list[Step] = [Step(0, None, run)]  # Invariant: steps[i].index == i
        for i, event in enumerate(events, start=1):
            try:
                run = apply(run, event)
            except MinirtError as exc:
                self.steps.append(Step(i, event, run, type(exc).__name__, str(exc)))
            else:
                self.steps.append(Step(i, event, run))

    def __len__(self) -> int:
        return len(self.steps)

    def path(self, i: int) -> tuple[list[RunState], list[str], list[int]]:
        """Up to step ``i``, accepted steps only: the states visited, the events that moved the
        run, and those events' step numbers."""
        states, kinds, numbers = [self.steps[0].run.state], [], []
        for step in self.steps[1 : i + 1]:
            if step.accepted and step.event is not None:
                states.append(step.run.state)
                kinds.append(step.event.kind)
                numbers.append(step.index)
        return states, kinds, numbers

    def at(self, i: int) -> StepView:
        """The run after step ``i`` and the diagram with the path so far highlighted."""
        if not 0 <= i < len(self.steps):
            raise StepOutOfRange(index=i, steps=len(self.steps))
        states, kinds, numbers = self.path(i)
        step = self.steps[i]
        return StepView(step, state_diagram(states, events=kinds, numbers=numbers,
                                            highlight_run=step.run, refused=step.error))


class StepOutOfRange(MinirtError):
    """:meth:`RunStepper.at` was asked for a step the history does not have (not a run error)."""

    fields = ("index", "steps")
    template = "step {index} does not exist: the history has steps 0..{steps} - 1"


def run_explorer(events: Sequence[RunEvent], run: Run | None = None,
                 interval_ms: int = 900) -> Any:
    """An ipywidgets explorer: Play and a slider step through a :class:`RunStepper`; the step's
    description and the diagram follow. Returns the widget (display it as a cell's value)."""
    import ipywidgets as widgets
    from IPython.display import display

    stepper = RunStepper(events, run)
    last = len(stepper) - 1
    play = widgets.Play(min=0, max=last, step=1, value=0, interval=interval_ms,
                        description="play")
    slider = widgets.IntSlider(min=0, max=last, step=1, value=0, description="step")
    widgets.jslink((play, "value"), (slider, "value"))
    out = widgets.Output()

    def render_step(change: dict[str, Any]) -> None:
        view = stepper.at(int(change["new"]))
        out.clear_output(wait=True)
        with out:
            print(view.step.describe())
            display(view.diagram)

    slider.observe(render_step, names="value")
    render_step({"new": 0})
    box = widgets.VBox([widgets.HBox([play, slider]), out])
    box.stepper = stepper  # the plain object underneath, for tests and curious learners
    return box
