"""Pictures of a run's journal, drawn from its rows (course tooling; the core never imports this).

- :func:`timeline`: one node per event in seq order, grouped in a box per step position, coloured
  by kind; the arrows are the hash chain (each labelled with the first hex digits of the digest it
  links); an arrow where the writing incarnation changes is drawn thick and labelled; an intent
  without an outcome is drawn red and marked UNRESOLVED.
- :func:`journal_table`: the rows as a plain text table (seq, step, kind, incarnation, payload,
  digest, previous digest).
- :class:`JournalTrace`: a plain object over a run's events; ``trace.at(i)`` gives the events so
  far, the run's state after them (folded from the ``transition`` events with
  :func:`minirt.run.apply`), the incarnation, the current step position and the open intents.
- :func:`journal_explorer`: a thin ipywidgets layer (Play + IntSlider + Output) over a trace, with
  the run state diagram of :mod:`minirt.viz.run` beside the journal.

Guarantees: every picture is computed from the rows alone, so it shows what is on disk; the DOT
text is deterministic (tests assert on it). Not guaranteed: a pretty layout (graphviz's job); the
state shown is the journal's account (the ``runs`` row is the authority if they ever disagree).
Every claim is journaled as a ``transition`` event; for a journal written without one (an older
minirt, or a store used directly), the trace infers the claim from the first row of a new
incarnation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import graphviz

from ..errors import MinirtError
from ..journal import Journal
from ..run import Run, RunEvent, RunState, apply
from ..store.base import Event, Store
from . import Diagram, render

#: Width of the diagram pane of :func:`journal_explorer`: an output area of JupyterLab at its
#: default width (848 px with the file browser open) less the 420 px journal text beside it.
PANE_WIDTH_PX = 400

KIND_COLOURS = {"run_started": "#e5e7eb", "transition": "#f3f4f6", "step": "#dbeafe",
                "decision": "#ede9fe", "intent": "#fef3c7", "tool_result": "#dcfce7",
                "tool_error": "#fee2e2", "tool_rejected": "#fee2e2", "reconciled": "#fde68a",
                "attempt": "#fed7aa", "wait": "#cffafe", "wait_result": "#a5f3fc"}
UNRESOLVED_COLOUR = "#dc2626"
INCARNATION_COLOUR = "#2563eb"


def _short(value: Any, width: int = 28) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= width else text[: width - 1] + "…"


def summary(event: Event) -> str:
    """One line about what the event records (artifact references shown as such)."""
    p = json.loads(event.payload_json)
    if isinstance(p, dict) and set(p) == {"$artifact", "size"}:
        return f"artifact {p['$artifact'][7:19]}… ({p['size']} bytes)"
    kind = event.kind
    if kind == "transition":
        return str(p.get("event"))
    if kind == "run_started":
        return f"{p.get('workflow')}({_short(p.get('input'), 20)})"
    if kind == "step":
        return f"{p.get('name')} = {_short(p.get('value', p.get('error')), 20)}"
    if kind == "decision":
        return f"{p.get('name')} -> {_short(p.get('output'), 20)}"
    if kind in ("intent", "tool_rejected"):
        return f"{p.get('tool')}({_short(p.get('args', ''), 20)})"
    if kind in ("tool_result", "tool_error"):
        return _short(p.get("value", p.get("error")))
    if kind == "reconciled":
        return f"{p.get('resolution')}: {_short(p.get('reason', ''), 20)}"
    if kind == "attempt":
        return f"attempt {p.get('attempt')}"
    if kind in ("wait", "wait_result"):
        return f"{p.get('name')} {_short(p.get('payload', ''), 16)}".strip()
    return _short(p)


def _open_intents(events: Sequence[Event]) -> set[int]:
    """Seq numbers of intents that have no outcome in ``events``."""
    journal = Journal(None, events[0].run_id if events else "", events)  # type: ignore[arg-type]
    return {p.opening.seq for p in journal.unresolved() if p.opening is not None}


def timeline(events: Sequence[Event], *, title: str | None = None) -> Diagram:
    """The journal as a graph: seq order, step boxes, kind colours, chain links, incarnations."""
    g = graphviz.Digraph("journal", graph_attr={"rankdir": "TB", "fontname": "Helvetica",
                                                "label": title or "", "labelloc": "t"},
                         node_attr={"shape": "box", "style": "rounded,filled",
                                    "fontname": "Helvetica", "fontsize": "10"},
                         edge_attr={"fontname": "Helvetica", "fontsize": "8"})
    unresolved = _open_intents(events)
    by_step: dict[int, list[Event]] = {}
    for e in events:
        if e.step is not None:
            by_step.setdefault(e.step, []).append(e)

    def node(parent: Any, e: Event) -> None:
        attrs = {"fillcolor": KIND_COLOURS.get(e.kind, "white")}
        label = f"#{e.seq} {e.kind}\n{summary(e)}\ninc {e.incarnation}"
        if e.seq in unresolved:
            label += "\nUNRESOLVED: no outcome"
            attrs.update(color=UNRESOLVED_COLOUR, penwidth="3", fontcolor=UNRESOLVED_COLOUR)
        parent.node(f"e{e.seq}", label, **attrs)

    for step, rows in sorted(by_step.items()):
        with g.subgraph(name=f"cluster_step_{step}") as box:
            box.attr(label=f"step {step}", style="rounded,dashed", color="#9ca3af")
            for e in rows:
                node(box, e)
    for e in events:
        if e.step is None:
            node(g, e)
    for a, b in zip(events, events[1:], strict=False):
        attrs = {"label": b.prev_digest[7:15]}
        if b.incarnation != a.incarnation:
            attrs.update(label=f"{b.prev_digest[7:15]}\nincarnation {a.incarnation} → "
                               f"{b.incarnation}", color=INCARNATION_COLOUR, penwidth="3",
                         fontcolor=INCARNATION_COLOUR)
        g.edge(f"e{a.seq}", f"e{b.seq}", **attrs)
    return render(g)


def journal_table(events: Sequence[Event], *, width: int = 44) -> str:
    """The rows as a fixed-width text table (what ``SELECT * FROM events`` would show)."""
    head = f"{'seq':>3} {'step':>4} {'kind':<13} {'inc':>3}  {'payload':<{width}} digest       prev"
    lines = [head, "-" * len(head)]
    for e in events:
        step = "" if e.step is None else str(e.step)
        lines.append(f"{e.seq:>3} {step:>4} {e.kind:<13} {e.incarnation:>3}  "
                     f"{_short(e.payload_json, width):<{width}} {e.digest[7:19]} "
                     f"{e.prev_digest[7:19]}")
    return "\n".join(lines)


# -- the trace --------------------------------------------------------------------------------

@dataclass(frozen=True)
class TraceStep:
    """The journal after its first ``index`` events (index 0: before any)."""

    index: int
    event: Event | None  # the index-th event (None at index 0)
    run: Run  # the run folded from the transition events so far
    step: int | None  # the step position of the latest event that has one
    unresolved: tuple[int, ...]  # step positions whose intent has no outcome yet

    @property
    def state(self) -> RunState:
        return self.run.state

    def describe(self) -> str:
        if self.event is None:
            return "index 0: nothing journaled yet"
        e = self.event
        where = "" if e.step is None else f" at step {e.step}"
        open_ = f"; open intents at steps {list(self.unresolved)}" if self.unresolved else ""
        return (f"index {self.index}: #{e.seq} {e.kind}{where} ({summary(e)}), incarnation "
                f"{e.incarnation} -> run {self.run.state.value}{open_}")


class TraceOutOfRange(MinirtError):
    fields = ("index", "size")
    template = "index {index} is outside the trace (0..{size})"


class JournalTrace:
    """A run's events and, for every prefix of them, the run state and the current step."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.events: list[Event] = list(events)
        self.run_id = self.events[0].run_id if self.events else ""
        run = Run(self.run_id)
        self.runs: list[Run] = [run]  # Invariant: runs[i] is the state after events[:i]
        self.inferred: list[int] = []  # seq numbers where a claim was inferred, not journaled
        #: every accepted transition: (index of the event that made it, event kind, run after)
        self.moves: list[tuple[int, str, Run]] = []
        for i, e in enumerate(self.events, start=1):
            run = self._fold(i, run, e)
            self.runs.append(run)

    @classmethod
    def from_store(cls, store: Store, run_id: str) -> JournalTrace:
        """Read (and so verify) the run's journal and build its trace."""
        return cls(store.read(run_id))

    def _fold(self, i: int, run: Run, e: Event) -> Run:
        payload = json.loads(e.payload_json) if e.kind == "transition" else {}
        kind = payload.get("event")
        if e.incarnation > run.incarnation and kind != "claim":
            self.inferred.append(e.seq)
            run = self._apply(i, run, RunEvent("claim", at=e.at, lease_for=0.0))
        if kind is None:
            return run
        return self._apply(i, run, RunEvent(kind, at=e.at, incarnation=e.incarnation,
                                            worker_id=payload.get("worker_id"), lease_for=0.0))

    def _apply(self, i: int, run: Run, event: RunEvent) -> Run:
        try:
            new = apply(run, event)
        except MinirtError:  # the journal's account disagrees with the table: keep the state
            return run
        self.moves.append((i, event.kind, new))
        return new

    def __len__(self) -> int:
        return len(self.events) + 1

    def so_far(self, i: int) -> list[Event]:
        """The events journaled up to index ``i``."""
        self._check(i)
        return self.events[:i]

    def at(self, i: int) -> TraceStep:
        self._check(i)
        seen = self.events[:i]
        step = next((e.step for e in reversed(seen) if e.step is not None), None)
        opened = _open_intents(seen)
        unresolved = tuple(e.step for e in seen if e.seq in opened and e.step is not None)
        return TraceStep(i, seen[-1] if seen else None, self.runs[i], step, unresolved)

    def path(self, i: int) -> tuple[list[RunState], list[str]]:
        """The states the run went through up to index ``i`` and the events that moved it."""
        self._check(i)
        done = [(kind, run) for index, kind, run in self.moves if index <= i]
        return [self.runs[0].state] + [run.state for _, run in done], [k for k, _ in done]

    def _check(self, i: int) -> None:
        if not 0 <= i < len(self):
            raise TraceOutOfRange(index=i, size=len(self) - 1)


def state_text(run: Run) -> str:
    """The run's state as text (used where the state diagram cannot be drawn)."""
    return (f"run {run.run_id}: {run.state.value} (revision {run.revision}, incarnation "
            f"{run.incarnation}, worker {run.worker_id})")


def journal_explorer(trace: JournalTrace, interval_ms: int = 700) -> Any:
    """Play and a slider step through ``trace``: the journal so far on the left, the run's state
    diagram (with its path) on the right. Returns the widget; ``widget.trace`` is the trace."""
    import ipywidgets as widgets
    from IPython.display import SVG, display

    from . import dot_available
    from .run import state_diagram

    last = len(trace) - 1
    play = widgets.Play(min=0, max=last, step=1, value=0, interval=interval_ms,
                        description="play")
    slider = widgets.IntSlider(min=0, max=last, step=1, value=0, description="event")
    widgets.jslink((play, "value"), (slider, "value"))
    # The journal text keeps a readable width; the (wide) diagram scrolls inside its own box
    # instead of squeezing the text into a one-character column.
    left = widgets.Output(layout=widgets.Layout(min_width="420px", flex="0 0 auto"))
    right = widgets.Output(layout=widgets.Layout(flex="1 1 auto", overflow="auto"))

    def show(change: dict[str, Any]) -> None:
        i = int(change["new"])
        view = trace.at(i)
        states, kinds = trace.path(i)
        left.clear_output(wait=True)
        right.clear_output(wait=True)
        with left:
            print(view.describe())
            print(journal_table(trace.so_far(i)[-8:], width=30))
        with right:
            print(state_text(view.run))
            diagram = state_diagram(states, events=kinds, highlight_run=view.run)
            # the pane beside the journal text is narrower than an output area: fit the
            # picture to it instead of letting it run off the right edge
            display(SVG(diagram.svg(max_width_px=PANE_WIDTH_PX)) if dot_available() else diagram)

    slider.observe(show, names="value")
    show({"new": 0})
    box = widgets.VBox([widgets.HBox([play, slider]),
                        widgets.HBox([left, right], layout=widgets.Layout(width="100%"))])
    box.trace = trace  # the plain object underneath, for tests and curious learners
    return box
