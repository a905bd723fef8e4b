"""The approval timeline: requested, waiting, granted or rejected, revoked, dispatched or refused.

Drawn from data, never by hand: :func:`timeline` reads a run's journal (the ``approval_request``
steps, the WAITING transitions, the ``wait_result`` that delivered each decision, the intents,
refusals and results) and its kv (the decision each reviewer signalled, revocations, and the
single-use marks that tie a receipt to the intent it authorised). :func:`timeline_diagram` draws
the moments left to right on one time axis, coloured by kind.

Nothing here reads a credential: the journal and kv never hold one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..approvals import K_REVOKED, K_USED
from . import Diagram, render

COLOURS = {"requested": "#2c7fb8", "waiting": "#7f8c8d", "granted": "#1e8449",
           "rejected": "#c0392b", "delivered": "#16a085", "revoked": "#8e44ad",
           "dispatched": "#d35400", "refused": "#c0392b", "result": "#1e8449"}


@dataclass(frozen=True)
class Moment:
    """One thing that happened to an approval, at a time (seconds from the run's clock)."""

    at: float
    kind: str  # one of COLOURS
    request_id: str | None
    detail: str


def _short(text: Any, width: int = 44) -> str:
    text = text if isinstance(text, str) else json.dumps(text, sort_keys=True,
                                                           separators=(",", ":"))
    return text if len(text) <= width else text[: width - 1] + "…"


def since(seconds: float) -> str:
    """``t+45s``, ``t+12m``, ``t+8h00m``: how long after the first moment."""
    s = int(round(seconds))
    if s < 120:
        return f"t+{s}s"
    if s < 7200:
        return f"t+{s // 60}m"
    return f"t+{s // 3600}h{s % 3600 // 60:02d}m"


def timeline(store: Any, run_id: str) -> list[Moment]:
    """Every approval moment of a run, in time order (ties keep journal order)."""
    events, kv = store.read(run_id), store.kv_items(run_id)
    out: list[tuple[float, int, Moment]] = []

    def add(at: float, kind: str, rid: str | None, detail: str) -> None:
        out.append((float(at), len(out), Moment(float(at), kind, rid, detail)))

    marks = {json.loads(v)["step"]: (k[len(K_USED):], json.loads(v)) for k, v in kv.items()
             if k.startswith(K_USED)}
    for e in events:
        p = json.loads(e.payload_json)
        if e.kind == "step" and p.get("name") == "approval_request" and "value" in p:
            eff = p["value"]["effect"]
            add(e.at, "requested", p["value"]["request_id"],
                f"{eff['tool']} {_short(eff['args'], 36)} {p['value']['effect_digest'][:15]}")
        elif e.kind == "transition" and str(p.get("waiting_for", "")).startswith("approval:"):
            add(e.at, "waiting", p["waiting_for"][len("approval:"):], "run WAITING, no worker")
        elif e.kind == "wait_result" and str(p.get("name", "")).startswith("approval:"):
            add(e.at, "delivered", p["name"][len("approval:"):],
                f"run saw: {p['payload'].get('decision', '?')}")
        elif e.kind == "intent" and e.step in marks:
            rcp, mark = marks[e.step]
            add(e.at, "dispatched", mark["request_id"], f"{p['tool']} {_short(p['args'], 30)} "
                                                        f"with {rcp}")
        elif e.kind == "tool_rejected":
            err = p["error"]
            add(e.at, "refused", None, f"{p['tool']}: {err['type']} {_short(err['attrs'], 40)}")
        elif e.kind == "tool_result" and e.step in marks:
            add(e.at, "result", marks[e.step][1]["request_id"], _short(p["value"]))
    for k, v in kv.items():
        if k.startswith("signal:approval:"):
            rid, d = k[len("signal:approval:"):], json.loads(v)
            if d.get("decision") == "granted" and isinstance(d.get("receipt"), dict):
                r = d["receipt"]
                add(r.get("granted_at", 0.0), "granted", rid,
                    f"by {r.get('approver')}, expires +{r['expires_at'] - r['granted_at']:.0f}s"
                    if isinstance(r.get("expires_at"), (int, float))
                    and isinstance(r.get("granted_at"), (int, float)) else "malformed receipt")
            elif d.get("decision") == "rejected":
                add(d.get("at", 0.0), "rejected", rid, f"by {d.get('approver')}: {d.get('reason')}")
        elif k.startswith(K_REVOKED):
            add(json.loads(v), "revoked", None, k[len(K_REVOKED):])
    return [m for _, _, m in sorted(out, key=lambda t: (t[0], t[1]))]


def timeline_diagram(moments: list[Moment], title: str = "approval timeline") -> Diagram:
    """The moments left to right; each box says when (seconds after the first), what, and who."""
    import graphviz

    g = graphviz.Digraph("approvals", graph_attr={"rankdir": "TB", "label": title,
                                                  "labelloc": "t", "fontsize": "12"},
                         node_attr={"shape": "box", "style": "rounded,filled",
                                    "fontname": "Helvetica", "fontsize": "10",
                                    "fontcolor": "white"})
    t0 = moments[0].at if moments else 0.0
    for i, m in enumerate(moments):
        label = f"{since(m.at - t0)}\\n{m.kind}\\n{_short(m.detail, 40)}".replace('"', "'")
        g.node(f"m{i}", label, fillcolor=COLOURS.get(m.kind, "#34495e"))
        if i:
            g.edge(f"m{i - 1}", f"m{i}")
    return render(g)
