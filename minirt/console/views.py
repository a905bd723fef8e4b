"""What the console shows, read from the store: runs by state, one run, what awaits an operator.

Plain data (dicts and lists of str/int), computed from the store's rows and the application's
gate when there is one, so the pages (:mod:`minirt.console.pages`) only lay it out and the tests
can check it without HTML. Times are given both as epoch seconds and as words in the local zone
(:mod:`minirt.humantime`).

Reused, not redrawn: the journal timeline is :func:`minirt.viz.journal.timeline` and the approval
timeline :func:`minirt.viz.approvals.timeline_diagram`, rendered to SVG by Graphviz exactly as the
lessons draw them; without ``dot`` the page shows their DOT text and the install hint instead.

Invariant: reading never writes (no view changes a run, its journal or its kv). Guarantees: a
parked divergence is shown with its step, the recorded and the requested call and what to do
(roll back and resume); a pending approval is shown with the effect the gate will check at dispatch (tool, canonical
arguments, resource, the artifact's name and digest, the capability's amount limit and, with the
application's gate, the call's amount) and its effect digest, which the Approve form sends back
so that an approval of anything else is refused. Not guaranteed: that a run shown is still in
that state when a form is posted (the action re-checks, in its own transaction).
"""

from __future__ import annotations

import json
from typing import Any

from ..approvals import K_CAP, ApprovalGate
from ..canonical import canonical_json
from ..humantime import local, when
from ..operator import last_consistent, operator_events
from ..run import RunState
from ..store.base import Store

#: The order of the runs page: what needs a person first.
STATE_ORDER = [RunState.WAITING, RunState.UNCERTAIN, RunState.FAILED, RunState.RUNNING,
               RunState.PENDING, RunState.CANCELLING, RunState.SUCCEEDED, RunState.CANCELLED]
#: How many bytes of a reviewed artifact are shown as text.
ARTIFACT_PREVIEW = 4000


def runs_by_state(store: Store) -> list[dict[str, Any]]:
    """One group per state (in :data:`STATE_ORDER`, empty ones left out), newest run first."""
    from ..cli_operator import pending

    recs = store.list_runs()
    waiting = {p["run_id"]: p for p in pending(store, [r.run.run_id for r in recs
                                                      if not r.run.is_terminal])} if recs else {}
    groups = []
    for state in STATE_ORDER:
        rows = []
        for rec in sorted((r for r in recs if r.run.state is state),
                          key=lambda r: (-r.created_at, r.run.run_id)):
            p = waiting.get(rec.run.run_id, {})
            awaits = []
            if p.get("approvals"):
                awaits.append(f"{len(p['approvals'])} approval(s)")
            if p.get("unresolved"):
                awaits.append(f"{len(p['unresolved'])} uncertain effect(s)")
            if p.get("diverged"):
                awaits.append(f"diverged at step {p['diverged']['step']}: roll back and resume")
            if p.get("waiting_for") and not p.get("approvals"):
                awaits.append(f"waits for {p['waiting_for']}")
            rows.append({"run_id": rec.run.run_id, "workflow": rec.workflow,
                         "created": local(rec.created_at), "created_at": rec.created_at,
                         "awaits": ", ".join(awaits), "incarnation": rec.run.incarnation})
        if rows:
            groups.append({"state": state.value, "runs": rows})
    return groups


def _amount(gate: ApprovalGate | None, tool: str, args: dict[str, Any]) -> int | None:
    guard = gate.guards.get(tool) if gate is not None else None
    if guard is None:
        return None
    try:
        value = guard.amount(args)
    except Exception:  # the gate refuses such a call at dispatch; say so, do not guess
        return None
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _artifact_text(store: Store, artifact: dict[str, Any] | None) -> str | None:
    if not artifact or str(artifact.get("digest", "missing")) == "missing":
        return None
    try:
        data = store.get_artifact(str(artifact["digest"]))
    except Exception:  # not stored (a gate without artifacts): the digest is still shown
        return None
    text = data[:ARTIFACT_PREVIEW].decode("utf-8", errors="replace")
    return text + ("…" if len(data) > ARTIFACT_PREVIEW else "")


def approvals(store: Store, run_id: str, gate: ApprovalGate | None) -> list[dict[str, Any]]:
    """The run's undecided approval requests, each with the exact effect under review."""
    from ..approvals import K_REQUEST

    kv = store.kv_items(run_id)
    out = []
    for key, raw in sorted(kv.items()):
        if not key.startswith(K_REQUEST):
            continue
        rid = key[len(K_REQUEST):]
        if f"signal:approval:{rid}" in kv:
            continue  # decided
        req = json.loads(raw)
        eff = req["effect"]
        cap_raw = kv.get(K_CAP + eff["tool"])
        cap = json.loads(cap_raw) if cap_raw else None
        limit = (eff.get("scope") or {}).get("max_amount")
        amount = _amount(gate, eff["tool"], eff["args"])
        out.append({
            "request_id": rid, "tool": eff["tool"], "resource": eff.get("resource"),
            "args": canonical_json(eff["args"]), "effect_digest": req["effect_digest"],
            "artifact": eff.get("artifact"), "artifact_text": _artifact_text(
                store, eff.get("artifact")),
            "amount": amount, "max_amount": limit,
            "within_limit": None if amount is None or limit is None else amount <= limit,
            "capability": None if cap is None else {
                "cap_id": cap.get("cap_id"), "resource": cap.get("resource"),
                "expires": when(cap["expires_at"]) if isinstance(
                    cap.get("expires_at"), (int, float)) else "?"},
            "requested": when(req["requested_at"]), "requested_at": req["requested_at"],
            "request_step": eff.get("request_step"),
        })
    return out


def diagram_svg(diagram: Any) -> tuple[str | None, str]:
    """``(svg, dot)``: the diagram as the lessons render it, or None and its DOT text."""
    from ..viz import dot_available

    if not dot_available():
        return None, diagram.source
    try:
        svg = diagram.svg()
    except Exception:  # a broken dot install: show the DOT text, as the lessons do
        return None, diagram.source
    return svg[svg.find("<svg"):], diagram.source


def run_view(store: Store, run_id: str, gate: ApprovalGate | None = None) -> dict[str, Any]:
    """Everything the run page shows."""
    from ..cli_operator import pending
    from ..viz.approvals import timeline as approval_moments
    from ..viz.approvals import timeline_diagram
    from ..viz.journal import summary, timeline

    rec = store.get_run(run_id)
    run = rec.run
    events = store.read(run_id)
    p = pending(store, [run_id])[0] if not run.is_terminal else {}
    moments = approval_moments(store, run_id)
    journal_svg, journal_dot = diagram_svg(timeline(events, title=f"journal of {run_id}"))
    appr_svg, appr_dot = (diagram_svg(timeline_diagram(moments)) if moments else (None, ""))
    ops = [{**e, "when": local(e["at"])} for e in operator_events(store, run_id)]
    detail = {k: v for k, v in run.detail.items()
              if k in ("error", "waiting_for", "result") and v is not None}
    return {
        "run_id": run_id, "workflow": rec.workflow, "state": run.state.value,
        "input": rec.input_json, "created": when(rec.created_at),
        "incarnation": run.incarnation, "worker_id": run.worker_id,
        "lease": when(run.lease_expires_at) if run.lease_expires_at else "",
        "detail": canonical_json(detail) if detail else "",
        "terminal": run.is_terminal,
        "waiting_for": p.get("waiting_for"),
        "diverged": p.get("diverged"),
        "due": when(p["due_at"]) if isinstance(p.get("due_at"), (int, float)) else "",
        "approvals": approvals(store, run_id, gate) if not run.is_terminal else [],
        "unresolved": [{**u, "args": canonical_json(u["args"])} for u in p.get("unresolved", [])],
        "operator_events": ops,
        "events": [{"seq": e.seq, "step": e.step, "kind": e.kind, "inc": e.incarnation,
                    "when": local(e.at), "summary": summary(e)} for e in events],
        "journal_svg": journal_svg, "journal_dot": journal_dot,
        "approvals_svg": appr_svg, "approvals_dot": appr_dot,
        "retry_from": last_consistent(store, run_id),
        "can_retry": run.state in (RunState.FAILED, RunState.CANCELLED, RunState.PENDING,
                                   RunState.RUNNING),
        "positions": max((e.step for e in events if e.step is not None), default=-1) + 1,
    }
