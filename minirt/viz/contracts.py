"""The contract pipeline as a picture: the gates in order, and which gate stopped which call.

Drawn from data, never by hand: the boxes come from :meth:`minirt.contracts.ToolContract.stages`
(so a new constraint or a changed scope shows up by itself), and the counts from a list of
attempted calls with their outcomes, which can be read straight from a run's journal
(:func:`outcomes_from_journal`). Every call enters at the left; at each gate the calls it refused
leave on a red edge to a "rejected at <gate>" note naming them; the rest flow on to dispatch and
output validation. Failures after dispatch are drawn apart from refusals because the world may
have changed: a partial effect and an invalid output both say "effect happened".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from ..contracts import STAGES, OutputInvalid, PartialEffect, ToolContract, gate_of
from ..errors import from_record
from . import Diagram, render

Attempt = tuple[str, BaseException | None]  # (label of the call, its error or None if it passed)

_REFUSED = "#c0392b"
_AFTER_EFFECT = "#d35400"
_PASSED = "#27ae60"
_MAX_NAMES = 4


def outcomes_from_journal(events: Iterable[Any], tool: str | None = None) -> list[Attempt]:
    """``(label, error or None)`` for every tool call recorded in ``events`` (store rows):
    ``tool_rejected`` and ``tool_error`` rebuild their recorded error, ``tool_result`` is None.
    An intent without an outcome is left out (it has no outcome yet)."""
    tools_at: dict[int | None, str] = {}
    out: list[Attempt] = []
    for e in events:
        payload = json.loads(e.payload_json)
        if e.kind in ("intent", "tool_rejected"):
            tools_at[e.step] = payload.get("tool", "")
        if tool is not None and tools_at.get(e.step) != tool:
            continue
        if e.kind in ("tool_rejected", "tool_error"):
            out.append((f"step {e.step}", from_record(payload["error"])))
        elif e.kind == "tool_result":
            out.append((f"step {e.step}", None))
    return out


def _clean(text: str, width: int = 48) -> str:
    text = str(text).replace("\\", "/").replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _names(labels: Sequence[str]) -> str:
    shown = [_clean(x, 32) for x in labels[:_MAX_NAMES]]
    if len(labels) > _MAX_NAMES:
        shown.append(f"+{len(labels) - _MAX_NAMES} more")
    return "\\n".join(shown)


def pipeline_graph(contract: ToolContract, attempts: Iterable[Attempt] = ()) -> Any:
    """The :class:`graphviz.Digraph` of the pipeline with ``attempts`` counted per gate."""
    import graphviz

    attempts = list(attempts)
    stopped: dict[str, list[str]] = {s: [] for s in (*STAGES, "ok")}
    after_effect: dict[str, list[str]] = {"partial": [], "failed": []}
    for label, err in attempts:
        where = gate_of(err)
        where = where if where in stopped else "dispatch"
        stopped[where].append(label)
        if where == "dispatch":
            after_effect["partial" if isinstance(err, PartialEffect) else "failed"].append(label)

    g = graphviz.Digraph(f"pipeline_{contract.name}")
    g.attr(rankdir="TB", nodesep="0.3", ranksep="0.25", fontname="Helvetica", label=f"tool contract {contract.name!r}",
           labelloc="t")
    g.attr("node", shape="box", style="rounded", fontname="Helvetica", fontsize="10")
    g.attr("edge", fontname="Helvetica", fontsize="9")
    g.node("calls", label=f"calls\\n{len(attempts)}", shape="oval")
    flowing = len(attempts)
    previous = "calls"
    for stage in contract.stages():
        g.node(stage.name, label=f"{stage.name}\\n{_clean(stage.detail)}")
        g.edge(previous, stage.name, label=str(flowing))
        refused = stopped[stage.name]
        if refused and stage.name == "dispatch":
            for kind, labels in after_effect.items():
                if not labels:
                    continue
                text = ("partial effect\\n(some sub-effects happened)" if kind == "partial"
                        else "tool failed after dispatch")
                node = f"dispatch_{kind}"
                with g.subgraph() as row:
                    row.attr(rank="same")
                    row.node("dispatch")
                    row.node(node, label=f"{text}\\n{_names(labels)}", shape="note",
                             color=_AFTER_EFFECT, fontcolor=_AFTER_EFFECT)
                g.edge("dispatch", node, label=str(len(labels)), color=_AFTER_EFFECT)
        elif refused:
            after = stage.name == "output"
            color = _AFTER_EFFECT if after else _REFUSED
            title = ("output invalid\\n(effect happened)" if after
                     else f"rejected at {stage.name}\\n(nothing happened)")
            with g.subgraph() as row:  # the note sits beside its gate, not below it
                row.attr(rank="same")
                row.node(stage.name)
                row.node(f"rejected_{stage.name}", label=f"{title}\\n{_names(refused)}",
                         shape="note", color=color, fontcolor=color)
            g.edge(stage.name, f"rejected_{stage.name}", label=str(len(refused)), color=color)
        flowing -= len(refused)
        previous = stage.name
    g.node("ok", label=f"result journaled\\n{len(stopped['ok'])}", shape="oval", color=_PASSED)
    g.edge(previous, "ok", label=str(flowing), color=_PASSED)
    return g


def pipeline(contract: ToolContract, attempts: Iterable[Attempt] = ()) -> Diagram:
    """The pipeline diagram (SVG in Jupyter, DOT text without ``dot``)."""
    return render(pipeline_graph(contract, attempts))


def gate_table(attempts: Iterable[Attempt]) -> list[tuple[str, str, str]]:
    """``(label, stage that stopped it, error type)`` rows, for a printed table next to the
    picture."""
    rows = []
    for label, err in attempts:
        kind = type(err).__name__ if err is not None else "-"
        if isinstance(err, OutputInvalid):
            kind += " (effect happened)"
        rows.append((label, gate_of(err), kind))
    return rows
