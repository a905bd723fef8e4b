"""Pictures of cancellation: the cancel state diagram and a run's deadline tree.

- :func:`cancel_diagram`: the run states a cancel can start from, the CANCELLING state opened
  into its four recorded stages (:class:`minirt.cancel.CancelStage`: requested, quiesced,
  cleaned up, reconciled) and CANCELLED, drawn from :data:`minirt.run.TRANSITIONS` and the
  stage order. A run's journal (``events``) highlights what it went through: the state it was
  in when the request came and every stage event it recorded, with its seq number.
- :func:`deadline_nodes` / :func:`deadline_tree`: plain data and a graph from a journal: the
  run's own deadline at the root, one node per deadline scope the run entered (from its
  ``deadline:<name>`` steps) with the deadline it asked for and the one it got (never later than
  its parent's: *clamped* when they differ), and the scopes that expired (``deadline_expired``).

Guarantees: every node and colour comes from the transition table, the stage enum or journal
rows; the DOT text is deterministic (tests assert on it). Not guaranteed: a pretty layout.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import graphviz

from ..cancel import EXPIRED, CancelStage
from ..run import TRANSITIONS, RunState
from ..store.base import Event
from . import Diagram, render

STAGE_EVENTS = {"cancel_requested": CancelStage.REQUESTED, "cancel_quiesced": CancelStage.QUIESCED,
                "cancel_cleaned_up": CancelStage.CLEANED_UP,
                "cancel_reconciled": CancelStage.RECONCILED}
DONE_FILL, TODO_FILL, PATH = "#dbeafe", "white", "#2563eb"
EXPIRED_COLOUR, CLAMPED_COLOUR = "#dc2626", "#b45309"


def cancel_diagram(events: Sequence[Event] = ()) -> Diagram:
    """The cancellation state diagram; ``events`` (a run's journal) highlight its path."""
    sources = sorted({s for (s, k), t in TRANSITIONS.items()
                      if k == "cancel_request" and s is not RunState.CANCELLING}, key=list(
                          RunState).index)
    seen = {STAGE_EVENTS[e.kind]: e.seq for e in events if e.kind in STAGE_EVENTS}
    came_from = _state_at_request(events)
    g = graphviz.Digraph("cancellation", graph_attr={
        "rankdir": "LR", "fontname": "Helvetica", "fontsize": "11", "labelloc": "b",
        "label": "blue: what this run recorded (#seq of the event)  ·  every stage is a journal "
                 "event + the cancel kv record, in one transaction"})
    g.attr("node", fontname="Helvetica", fontsize="10", style="filled")
    g.attr("edge", fontname="Helvetica", fontsize="9")
    for s in sources:
        g.node(s.value, s.value, shape="ellipse",
               fillcolor=DONE_FILL if s is came_from else TODO_FILL)
    with g.subgraph(name="cluster_cancelling") as c:
        c.attr(label="CANCELLING", style="rounded", color="#64748b")
        for stage in CancelStage:
            label = stage.value.replace("_", " ")
            if stage in seen:
                label += f"\n#{seen[stage]}"
            c.node(stage.value, label, shape="box", style="rounded,filled",
                   fillcolor=DONE_FILL if stage in seen else TODO_FILL)
        for a, b in zip(list(CancelStage), list(CancelStage)[1:], strict=False):
            c.edge(a.value, b.value, color=PATH if b in seen else "black",
                   penwidth="2" if b in seen else "1")
    done = RunState.CANCELLED
    g.node(done.value, done.value, shape="doublecircle",
           fillcolor=DONE_FILL if CancelStage.RECONCILED in seen else TODO_FILL)
    for s in sources:
        taken = s is came_from
        g.edge(s.value, CancelStage.REQUESTED.value, label="cancel_request",
               style="dashed", color=PATH if taken else "black", penwidth="2" if taken else "1")
    g.edge(CancelStage.RECONCILED.value, done.value, label="cancelled (fenced)",
           color=PATH if CancelStage.RECONCILED in seen else "black")
    g.edge(CancelStage.REQUESTED.value, CancelStage.REQUESTED.value,
           label="cancel again: no change", style="dotted")
    return render(g)


def _state_at_request(events: Sequence[Event]) -> RunState | None:
    """The run state just before its ``cancel_request`` transition, replayed from the journal."""
    state: RunState | None = RunState.PENDING if events else None
    for e in events:
        if e.kind != "transition":
            continue
        kind = json.loads(e.payload_json).get("event")
        if kind == "cancel_request":
            return state
        if state is not None and (state, kind) in TRANSITIONS:
            state = TRANSITIONS[(state, kind)]
    return None


@dataclass(frozen=True)
class DeadlineNode:
    name: str
    parent: int | None  # the step of the parent scope; None for the run (the root)
    deadline_at: float | None  # what the scope got (never later than the parent's)
    requested_at: float | None  # what it asked for
    expired: bool  # a fact: the scope's deadline passed at a cancellation point
    step: int | None

    @property
    def clamped(self) -> bool:
        """A fact: the scope asked for more time than its parent had left."""
        return (self.requested_at is not None and self.deadline_at is not None
                and self.requested_at > self.deadline_at)


def deadline_nodes(events: Sequence[Event], run_deadline_at: float | None = None
                   ) -> list[DeadlineNode]:
    """The run's deadline tree as plain data (root first, then scopes in step order)."""
    expired = set()
    scopes = []
    for e in events:
        if e.kind != "step":
            continue
        p = json.loads(e.payload_json)
        name = str(p.get("name", ""))
        if name == EXPIRED:
            v = p.get("value") or {}
            expired.add(v.get("scope") or p.get("error", {}).get("attrs", {}).get("scope"))
        elif name.startswith("deadline:") and "value" in p:
            v = p["value"]
            scopes.append((e.step, v))
    out = [DeadlineNode("run", None, run_deadline_at, run_deadline_at, False, None)]
    for step, v in scopes:
        out.append(DeadlineNode(v["name"], v.get("parent_step", None), v.get("deadline_at"),
                                v.get("requested_at"), v["name"] in expired, step))
    return out


def _id(step: int | None) -> str:
    return "run" if step is None else f"s{step}"


def deadline_tree(nodes: Sequence[DeadlineNode], *, origin: float = 0.0) -> Diagram:
    """The deadline tree; times are shown relative to ``origin`` (e.g. the run's start)."""
    def t(x: float | None) -> str:
        return "none" if x is None else f"+{round(x - origin, 1)} s"

    g = graphviz.Digraph("deadlines", graph_attr={
        "rankdir": "TB", "fontname": "Helvetica", "fontsize": "11", "labelloc": "b",
        "label": "each scope's deadline = min(its own, its parent's)  ·  amber: asked for more "
                 "than the parent had (clamped)  ·  red: expired"})
    g.attr("node", shape="box", style="rounded,filled", fontname="Helvetica", fontsize="10")
    for n in nodes:
        lines = [n.name if n.step is None else f"{n.name} (step {n.step})",
                 f"deadline {t(n.deadline_at)}"]
        colour = "black"
        if n.clamped:
            lines.append(f"asked {t(n.requested_at)}: clamped")
            colour = CLAMPED_COLOUR
        if n.expired:
            lines.append("EXPIRED")
            colour = EXPIRED_COLOUR
        g.node(_id(n.step), "\n".join(lines), color=colour, fillcolor="white",
               penwidth="2" if colour != "black" else "1")
    for n in nodes:
        if n.step is not None:
            g.edge(_id(n.parent), _id(n.step))
    return render(g)
