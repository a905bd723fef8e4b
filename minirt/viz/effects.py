"""The saga as a graph, drawn from the run's journal and the providers' ledgers.

- :func:`saga_rows`: plain data, one :class:`SagaRow` per forward step of a saga: its status
  (from the journal: a receipt, an unknown outbox row, a refusal, a lookup's answer, or "never
  sent"), its registered compensation and what became of it, and how many effects the ledgers
  hold under its effect key and its compensation key.
- :func:`saga_graph`: the forward edges (start -> charge -> book -> ...) coloured by the forward
  status, and one compensating edge per step coloured by what compensation did: compensated,
  unknown (sent, no answer yet), failed, not compensable, nothing to undo, or registered and not
  needed (the saga completed).

Guarantees: every colour comes from a journal row or a ledger count, never from the code's
intentions; the DOT text is deterministic (tests assert on it). Not guaranteed: a pretty layout.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import graphviz

from ..effects import EffectStatus, compensation_key, forward_status, when
from ..idempotency import EffectLedger
from ..journal import Journal
from . import Diagram, render

COLOURS = {
    "receipted": "#2e7d32",  # green: the provider's receipt is in the journal
    "unknown": "#ef6c00",  # orange: an outbox row (or a compensation) without an answer
    "compensated": "#1565c0",  # blue: the compensation's receipt is in the journal
    "not compensable": "#c62828",  # red: it happened and nothing undoes it
    "never happened": "#757575",  # grey (4.6:1 on white): refused, never sent, or not found
    "failed": "#6a1b9a",  # purple: the provider refused the compensation
    "kept": "#757575",  # grey dotted: registered, not needed (the saga completed)
    "waiting": "#ef6c00",  # orange: compensation waits for the forward outcome
}
NEVER = (EffectStatus.DECLINED.value, EffectStatus.NEVER_SENT.value,
         EffectStatus.NEVER_HAPPENED.value)


@dataclass(frozen=True)
class SagaRow:
    saga: str
    step: int
    tool: str
    effect_key: str | None
    status: str  # an EffectStatus value, with a journaled lookup applied
    compensation: str | None  # the registered compensating tool
    compensation_key: str | None
    compensation_status: str  # compensated | unknown | failed | not compensable | skipped |
    #                           waiting | kept | pending (no decision recorded yet)
    ledger_count: int | None = None  # effects under effect_key in the ledgers (None: not read,
    #                                   or the provider keeps no key for this kind of effect)
    compensation_count: int | None = None  # effects under compensation_key in the ledgers
    looked_up: bool = False  # the status comes from a provider lookup, not from a receipt
    receipt_at: float | None = None  # when the receipt was journaled


def saga_rows(journal: Journal, ledgers: Sequence[EffectLedger] = (),
              saga: str | None = None) -> list[SagaRow]:
    """The forward steps of the run's sagas (or of ``saga``), in step order."""
    payloads = [(e, journal.payload(e)) for e in journal.events]
    intents = {e.step: p for e, p in payloads if e.kind == "intent" and "outbox" in p
               and (saga is None or p["outbox"].get("saga") == saga)}
    lookups = {p["effect_key"]: p["found"] for e, p in payloads if e.kind == "forward_reconciled"}
    comp: dict[str, str] = {}
    for e, p in payloads:
        if e.kind in ("compensation_intent", "compensation_result", "compensation_error"):
            done = comp.get(p["forward_key"])
            if done not in ("compensated", "failed"):
                comp[p["forward_key"]] = {"compensation_intent": "unknown",
                                          "compensation_result": "compensated",
                                          "compensation_error": "failed"}[e.kind]
    reports = {p["saga"]: p["report"] for e, p in payloads if e.kind == "saga_compensated"}
    completed = {p["saga"] for e, p in payloads if e.kind == "saga_completed"}
    planned = {item["step"]: (name, item) for name, r in reports.items() for item in r["items"]}
    rows = []
    for step in sorted(set(intents) | set(planned)):
        if step in intents:
            p = intents[step]
            name, key, comp_tool = p["outbox"].get("saga"), p["effect_key"], \
                p["outbox"].get("compensation")
            fstatus, _, receipt_at = forward_status(journal, step)
            status = fstatus.value
            keyed = p.get("effect") != "irreversible"  # the world keeps no key for those
            looked_up = status == EffectStatus.UNKNOWN.value and key in lookups
            if looked_up:
                status = "receipted" if lookups[key] else EffectStatus.NEVER_HAPPENED.value
        else:
            name, item = planned[step]
            key, comp_tool, status = item["effect_key"], item["compensation"], item["status"]
            keyed, looked_up, receipt_at = True, False, None
        item = planned.get(step, (None, None))[1]
        ck = compensation_key(key, comp_tool) if key and comp_tool else None
        if key in comp:
            cstatus = comp[key]
        elif item is not None:
            cstatus = {"skipped": "skipped", "not compensable": "not compensable",
                       "unresolved": "waiting"}.get(item["outcome"], item["outcome"])
        elif name in completed:
            cstatus = "kept"
        else:
            cstatus = "pending"
        rows.append(SagaRow(str(name), step, p["tool"] if step in intents else item["tool"],
                            key, status, comp_tool, ck, cstatus,
                            _count(ledgers, key) if keyed else None, _count(ledgers, ck),
                            looked_up, receipt_at))
    return rows


def _count(ledgers: Sequence[EffectLedger], key: str | None) -> int | None:
    if not ledgers or key is None:
        return None
    return sum(ledger.count(key) for ledger in ledgers)


def _edge_colour(status: str) -> tuple[str, str]:
    if status in NEVER:
        return COLOURS["never happened"], "dashed"
    return COLOURS.get(status, "black"), "solid"


def saga_graph(journal: Journal, ledgers: Sequence[EffectLedger] | Mapping[str, Any] = (),
               saga: str | None = None, *, title: str = "") -> Diagram:
    """The saga as a graph (see the module docstring); ``ledgers`` adds the ledger counts."""
    ledger_list = list(ledgers.values()) if isinstance(ledgers, Mapping) else list(ledgers)
    rows = saga_rows(journal, ledger_list, saga)
    g = graphviz.Digraph("saga", graph_attr={
        "rankdir": "LR", "fontname": "Helvetica", "fontsize": "11", "labelloc": "t",
        "nodesep": "0.5"})
    g.attr("node", fontname="Helvetica", fontsize="10", shape="box", style="rounded")
    g.attr("edge", fontname="Helvetica", fontsize="9")
    g.node("start", "start", shape="circle", width="0.3")
    prev = "start"
    for r in rows:
        fwd = f"s{r.step}"
        counted = "" if r.ledger_count is None else f"\nledger: {r.ledger_count}"
        how = " (by lookup)" if r.looked_up else ""
        g.node(fwd, f"{r.step}: {r.tool}\n{r.status}{how}{counted}")
        colour, style = _edge_colour(r.status)
        g.edge(prev, fwd, label=r.status, color=colour, fontcolor=colour, style=style,
               penwidth="2")
        prev = fwd
        _compensation_edge(g, r, fwd)
    legend = " · ".join(f'<font color="{COLOURS[n]}">{n}</font>' for n in (
        "receipted", "unknown", "compensated", "not compensable", "never happened", "failed"))
    g.attr(label=f"<{html.escape(title or 'saga of run ' + journal.run_id)}<br/>"
                 f'<font point-size="9">edges: {legend}</font>>')
    return render(g)


def _compensation_edge(g: graphviz.Digraph, r: SagaRow, fwd: str) -> None:
    target = f"c{r.step}"
    status = r.compensation_status
    if r.compensation is None:
        if status in ("not compensable", "kept", "pending") and r.status not in NEVER:
            at = f"\nhappened at {when(r.receipt_at)}" if r.receipt_at else "\nmay have happened"
            g.node(target, f"not compensable{at}", shape="note", color=COLOURS["not compensable"],
                   fontcolor=COLOURS["not compensable"])
            g.edge(fwd, target, label="cannot undo", color=COLOURS["not compensable"],
                   style="dashed", fontcolor=COLOURS["not compensable"])
        return
    counted = "" if r.compensation_count in (None, 0) else f"\nledger: {r.compensation_count}"
    g.node(target, f"{r.compensation}{counted}", shape="box", style="rounded,dashed")
    colour = COLOURS.get(status, COLOURS["never happened"])
    style = {"kept": "dotted", "skipped": "dotted", "pending": "dotted"}.get(status, "bold")
    label = {"skipped": "nothing to undo", "kept": "not needed",
             "pending": "registered"}.get(status, status)
    g.edge(fwd, target, label=label, color=colour, fontcolor=colour, style=style,
           constraint="false" if status in ("kept", "pending") else "true")
