"""Module 04's pictures: the crash windows of a tool call, and attempts vs logical operations.

Drawn from data, never by hand:

- :func:`crash_windows` lays the windows of :data:`minirt.faults.WINDOWS` (W1..W5, keyed by the
  fault points the runtime really hits) on a sequence diagram with three lanes (agent, journal,
  provider); W2..W4 are shaded: a crash there leaves an intent without an outcome. Given a
  sweep's cells, each window is coloured by what the oracle said there.
- :func:`attempts_vs_operations` reads a run's journal (intents, ``attempt`` and ``reconciled``
  events, via :func:`minirt.idempotency.logical_operations`) and the providers' ledgers (through
  :class:`~minirt.idempotency.EffectLedger`), joined by effect key: one box per logical
  operation, one per attempt, one per effect the world recorded. An effect that no operation's
  key owns is drawn red: that is what a per-attempt key looks like from the ledger.
- :func:`sweep_table` puts several sweeps side by side, one row per window.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import graphviz

from ..faults import WINDOWS, SweepCell
from ..idempotency import EffectLedger, logical_operations
from . import OUTCOMES, Diagram, render

LANES = ("agent (minirt)", "journal", "provider")
#: The messages of one tool call, in order: (from lane, to lane, label, fault point hit AFTER it).
MESSAGES = (
    (0, 1, "intent: tool, args, effect key", "after_intent"),
    (0, 2, "request with Idempotency-Key = {key_sent}", None),
    (2, 2, "commit: ledger row + saved response", "after_provider_commit"),
    (2, 0, "response (receipt)", "before_result"),
    (0, 1, "result", "after_result"),
    (0, 1, "release the lease", None),
)
WHAT_IS_LEFT = {
    "W1": "nothing journaled: the call simply runs",
    "W2": "intent, no outcome: UNKNOWN (not sent)",
    "W3": "intent, no outcome: UNKNOWN (provider committed)",
    "W4": "intent, no outcome: UNKNOWN (answer not journaled)",
    "W5": "result journaled: replayed, never resent",
}
COLOURS = {name: style.colour for name, style in OUTCOMES.items()}
UNKNOWN_FILL = "#fdebd0"


def _window_verdicts(cells: Iterable[SweepCell], occurrence: int) -> dict[str, str]:
    return {WINDOWS[c.point]: c.verdict.outcome.value for c in cells
            if c.point in WINDOWS and c.occurrence == occurrence}


def crash_windows(cells: Iterable[SweepCell] = (), *, occurrence: int = 1,
                  title: str = "crash windows of one tool call",
                  key_sent: str = "effect key") -> Diagram:
    """The sequence diagram of one tool call with W1..W5 marked (see the module docstring).

    ``cells``: a sweep's cells; the windows of the ``occurrence``-th tool call are coloured by
    their verdict (and named in the label, with the outcome's glyph, so colour is not the only
    cue). ``key_sent`` says what the request carries as its Idempotency-Key: the design's
    effect key, or for the wrong design "a new random key per attempt"."""
    verdicts = _window_verdicts(cells, occurrence)
    point_window = {p: w for p, w in WINDOWS.items()}
    g = graphviz.Digraph("crash_windows", graph_attr={
        "label": title, "labelloc": "t", "newrank": "true", "ranksep": "0.25", "splines": "false",
        "nodesep": "1.6", "fontname": "Helvetica"},
        node_attr={"fontname": "Helvetica", "fontsize": "10"},
        edge_attr={"fontname": "Helvetica", "fontsize": "9"})
    rows: list[tuple[str, Any]] = [("window", "W1")]
    for msg in MESSAGES:
        rows.append(("message", msg))
        if msg[3] is not None:
            rows.append(("window", point_window[msg[3]]))
    for lane, name in enumerate(LANES):
        g.node(f"h{lane}", name, shape="box", style="filled", fillcolor="#eaecee")
    g.node("hw", "window", shape="plaintext")
    previous = ["h0", "h1", "h2", "hw"]
    for r, (kind, item) in enumerate(rows):
        names = [f"r{r}l{lane}" for lane in range(3)] + [f"r{r}w"]
        with g.subgraph() as s:
            s.attr(rank="same")
            for n in names[:3]:
                s.node(n, "", shape="point", width="0.05")
            if kind == "window":
                verdict = verdicts.get(item)
                glyph = f"{OUTCOMES[verdict].glyph} " if verdict in OUTCOMES else ""
                label = f"{item}: {WHAT_IS_LEFT[item]}" + (
                    f"\\n→ {glyph}{verdict}" if verdict else "")
                fill = UNKNOWN_FILL if item in ("W2", "W3", "W4") else "white"
                s.node(names[3], label, shape="box", style="filled,rounded", fillcolor=fill,
                       color=COLOURS.get(verdict or "", "#7f8c8d"),
                       penwidth="2.5" if verdict else "1")
            else:
                s.node(names[3], "", shape="point", style="invis")
        for a, b in zip(previous, names, strict=True):
            g.edge(a, b, arrowhead="none", style="dashed" if a != previous[3] else "invis",
                   color="#95a5a6", weight="10")
        if kind == "message":
            src, dst, label, _ = item
            label = label.format(key_sent=key_sent)
            if src == dst:
                g.node(names[src], label, shape="box", style="filled", fillcolor="#d6eaf8",
                       width="0", height="0")
            else:
                g.edge(names[src], names[dst], xlabel=label, constraint="false")
        previous = names
    return render(g)


# -- attempts vs logical operations -------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    """One logical operation joined with the ledgers' effects under its key."""

    step: int
    tool: str
    effect_key: str
    attempts: int
    incarnations: tuple[int, ...]
    outcome: str
    effects: tuple[str, ...]  # effect ids in the ledgers under this operation's key


def operations_table(events: Sequence[Any], ledgers: Mapping[str, EffectLedger]
                     ) -> tuple[list[Row], list[dict[str, Any]]]:
    """(one Row per logical operation, the effects no operation's key owns)."""
    effects = [{**e, "ledger": name} for name, led in ledgers.items() for e in led.effects()]
    rows, owned = [], set()
    for op in logical_operations(events):
        mine = [e for e in effects if e["effect_key"] == op.effect_key
                and e["kind"] not in ("cancellation",)]
        owned.update(id(e) for e in mine)
        rows.append(Row(op.step, op.tool, op.effect_key, len(op.attempts),
                        tuple(a.incarnation for a in op.attempts), op.outcome,
                        tuple(e["effect_id"] for e in mine)))
    orphans = [e for e in effects if id(e) not in owned]
    return rows, orphans


def attempts_vs_operations(events: Sequence[Any], ledgers: Mapping[str, EffectLedger], *,
                           title: str = "attempts vs logical operations") -> Diagram:
    """Logical operations (journal) -> their attempts -> the effects the ledgers recorded."""
    g = graphviz.Digraph("attempts", graph_attr={"rankdir": "LR", "label": title,
                                                 "labelloc": "t", "fontname": "Helvetica"},
                         node_attr={"fontname": "Helvetica", "fontsize": "10", "shape": "box"})
    rows, orphans = operations_table(events, ledgers)
    ops = {op.step: op for op in logical_operations(events)}
    with g.subgraph(name="cluster_journal") as j:
        j.attr(label="journal: logical operations and their attempts", color="#95a5a6")
        for row in rows:
            j.node(f"op{row.step}", f"step {row.step} · {row.tool}\\nkey {row.effect_key[:14]}…"
                   f"\\n{row.outcome}", style="filled", fillcolor="#d6eaf8")
            for a in ops[row.step].attempts:
                why = a.why if len(a.why) <= 40 else a.why[:39] + "…"
                j.node(f"a{row.step}_{a.number}",
                       f"attempt {a.number} · incarnation {a.incarnation}\\n{why}",
                       style="rounded")
                j.edge(f"op{row.step}", f"a{row.step}_{a.number}")
    with g.subgraph(name="cluster_world") as w:
        w.attr(label="provider ledgers (authoritative)", color="#95a5a6")
        for row in rows:
            for eid in row.effects:
                w.node(f"e_{eid}", f"{eid}\\nkey {row.effect_key[:14]}…", style="filled",
                       fillcolor="#d5f5e3")
                g.edge(f"op{row.step}", f"e_{eid}", label="same key", color="#27ae60")
        for e in orphans:
            w.node(f"e_{e['effect_id']}", f"{e['effect_id']} ({e['ledger']})\\nkey "
                   f"{str(e['effect_key'])[:14]}…\\nno logical operation owns this key",
                   style="filled", fillcolor="#f5b7b1", color="#c0392b")
    return render(g)


# -- sweeps side by side ------------------------------------------------------------------------

class Table:
    """A small table that shows as Markdown in Jupyter and as text elsewhere."""

    def __init__(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        self.header, self.rows = list(header), [list(r) for r in rows]

    def _repr_markdown_(self) -> str:
        lines = ["| " + " | ".join(self.header) + " |", "|" + "---|" * len(self.header)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in self.rows])

    def __str__(self) -> str:
        widths = [max(len(str(x)) for x in col) for col in zip(self.header, *self.rows,
                                                                 strict=True)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        return "\n".join(fmt.format(*r) for r in [self.header, *self.rows])

    __repr__ = __str__


def sweep_table(columns: Mapping[str, Sequence[SweepCell]],
                label: Any = None) -> Table:
    """One row per (window, tool call), one column per design: the oracle's outcome in each.

    ``label(point, occurrence)`` names a row (default ``"W3 #1"``)."""
    def name(point: str, occurrence: int) -> str:
        return label(point, occurrence) if label else f"{WINDOWS.get(point, point)} #{occurrence}"

    keys: list[tuple[str, int]] = []
    for cells in columns.values():
        for c in cells:
            if (c.point, c.occurrence) not in keys:
                keys.append((c.point, c.occurrence))
    rows = []
    for point, n in keys:
        row = [name(point, n)]
        for cells in columns.values():
            found = [f"{c.verdict.outcome.value} ({c.mode})" if len(
                {x.mode for x in cells}) > 1 else c.verdict.outcome.value
                for c in cells if (c.point, c.occurrence) == (point, n)]
            row.append(", ".join(found) or "-")
        rows.append(row)
    return Table(["window", *columns], rows)
