"""Recovery traces: spans whose identities derive from the run's durable identities.

A trace a resumed run can continue, and that a crash sweep can be read against:

- **trace id** = a digest of the run id: every incarnation of a run, in any process, writes into
  the same trace;
- **span ids** come from durable identities too: an operation's span from (run, step, effect
  key); each of its attempts from (run, step, effect key, attempt); a step or decision from
  (run, step, name); an incarnation from (run, incarnation). The same work gets the same id
  whoever reports it, so reporting it twice is harmless;
- a **replayed** position (read back from the journal by a later incarnation, not executed) is
  its own span with ``minirt.replayed = true`` and ``minirt.replay_of`` naming the work span:
  visible, and never counted as new work.

Two producers of :class:`SpanRecord` (plain data, no OpenTelemetry needed):

- :class:`TraceHook`, a :class:`~minirt.runtime.RuntimeHook`: spans as the worker runs, replays
  included. A crashed incarnation never ends its open spans, as with any tracer;
- :func:`journal_spans`: the journal's projection, complete for every incarnation (crashed ones
  included) but blind to replays (reading the journal writes nothing).

:class:`OTelSink` exports records through the OpenTelemetry SDK (imported lazily: ``import
minirt`` stays light) with the ids above, to any span exporter: the SDK's in-memory one in tests,
:class:`JsonLinesExporter` for learners, OTLP in production.

The effect-count oracle (:func:`effect_report`) joins the journal and the trace to the providers'
own ledgers (:class:`~minirt.idempotency.EffectLedger`): per logical effect, attempts sent
(trace), executions (ledger, authoritative) and receipts (journal). Not guaranteed: a provider
that records no key (email) cannot be joined; it is reported as such, never guessed.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .idempotency import EffectLedger
from .journal import OPENING_KINDS, OUTCOME_KINDS
from .run import TERMINAL, RunState
from .runtime import Context, RuntimeHook
from .store.base import Event, Store

# -- identities -----------------------------------------------------------------------------------


def _digest(*parts: Any) -> bytes:
    material = "\x1f".join(str(p) for p in parts)
    return hashlib.sha256(material.encode("utf-8")).digest()


def trace_id_for(run_id: str) -> int:
    """The 128-bit trace id of a run (never 0)."""
    return int.from_bytes(_digest("trace", run_id)[:16], "big") or 1


def span_id_for(run_id: str, *parts: Any) -> int:
    """A 64-bit span id from the run and durable parts (never 0)."""
    return int.from_bytes(_digest("span", run_id, *parts)[:8], "big") or 1


def run_span_id(run_id: str) -> int:
    return span_id_for(run_id, "run")


def incarnation_span_id(run_id: str, incarnation: int) -> int:
    return span_id_for(run_id, "incarnation", incarnation)


def work_span_id(run_id: str, step: int, key: str) -> int:
    """A position's span: ``key`` is the effect key of a tool call, else the step's name."""
    return span_id_for(run_id, "work", step, key)


def attempt_span_id(run_id: str, step: int, effect_key: str, attempt: int) -> int:
    """One attempt of a tool call: (run, step, effect key, attempt)."""
    return span_id_for(run_id, "attempt", step, effect_key, attempt)


def replay_span_id(run_id: str, incarnation: int, step: int) -> int:
    return span_id_for(run_id, "replay", incarnation, step)


@dataclass(frozen=True)
class SpanRecord:
    """One span as plain data. Times in seconds; ids as ints (``hex`` gives the OTel form)."""

    name: str
    trace_id: int
    span_id: int
    parent_id: int | None
    start_at: float
    end_at: float
    attributes: dict[str, Any] = field(default_factory=dict)
    events: tuple[tuple[str, float, dict[str, Any]], ...] = ()
    status: str = "ok"  # "ok", "error" or "unset"

    @property
    def replayed(self) -> bool:
        return bool(self.attributes.get("minirt.replayed", False))

    @property
    def hex_id(self) -> str:
        return f"{self.span_id:016x}"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "trace_id": f"{self.trace_id:032x}", "span_id": self.hex_id,
                "parent_id": None if self.parent_id is None else f"{self.parent_id:016x}",
                "start_at": self.start_at, "end_at": self.end_at,
                "attributes": self.attributes, "status": self.status,
                "events": [{"name": n, "at": at, "attributes": a} for n, at, a in self.events]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SpanRecord:
        return cls(d["name"], int(d["trace_id"], 16), int(d["span_id"], 16),
                   None if d.get("parent_id") is None else int(d["parent_id"], 16),
                   float(d["start_at"]), float(d["end_at"]), dict(d.get("attributes", {})),
                   tuple((e["name"], float(e["at"]), dict(e.get("attributes", {})))
                         for e in d.get("events", [])), d.get("status", "ok"))


# -- the journal's projection ---------------------------------------------------------------------

def _transitions(events: Sequence[Event]) -> list[tuple[Event, dict[str, Any]]]:
    return [(e, e.payload) for e in events if e.kind == "transition"]


def journal_spans(store: Store, run_id: str) -> list[SpanRecord]:
    """Every span of the run's work, rebuilt from its journal (see the module docstring)."""
    events = store.read(run_id)
    if not events:
        return []
    tid, rec = trace_id_for(run_id), store.get_run(run_id)
    claims = [(e, p) for e, p in _transitions(events) if p.get("event") == "claim"]
    ends = {e.incarnation: p.get("event") for e, p in _transitions(events)
            if p.get("event") in ("complete", "fail", "wait", "effect_unknown", "cancelled")}
    last = {e.incarnation: e for e in events}
    out = [SpanRecord(f"run {run_id}", tid, run_span_id(run_id), None, events[0].at,
                      events[-1].at, {"minirt.run_id": run_id, "minirt.workflow": rec.workflow,
                                      "minirt.state": rec.run.state.value, "minirt.seq": 1,
                                      "minirt.seq.end": events[-1].seq})]
    for e, p in claims:
        n = e.incarnation
        out.append(SpanRecord(f"incarnation {n}", tid, incarnation_span_id(run_id, n),
                              run_span_id(run_id), e.at, last[n].at,
                              {"minirt.incarnation": n, "minirt.worker_id": p.get("worker_id", ""),
                               "minirt.ended": ends.get(n, "abandoned"), "minirt.seq": e.seq,
                               "minirt.seq.end": last[n].seq},
                              status="ok" if n in ends else "error"))
    by_step: dict[int, list[Event]] = {}
    for e in events:
        if e.step is not None:
            by_step.setdefault(e.step, []).append(e)
    for step in sorted(by_step):
        out += _position_spans(run_id, step, by_step[step])
    return out


def _outcome_name(outcome: Event | None) -> str:
    """The span's ``minirt.outcome``: the outcome's kind, or ``cancelled`` for an error record a
    race wrote for an entrant it cancelled (:mod:`minirt.race` names it in the payload)."""
    if outcome is None:
        return "unresolved"
    if outcome.kind == "tool_error" and outcome.payload.get("outcome") == "cancelled":
        return "cancelled"
    return outcome.kind


def _status(outcome: Event | None) -> str:
    """OpenTelemetry's status: unset while unresolved or when cancelled (a cancellation is not
    the tool's error), error for a tool error, ok otherwise."""
    name = _outcome_name(outcome)
    if name in ("unresolved", "cancelled"):
        return "unset"
    return "error" if name == "tool_error" else "ok"


def _position_spans(run_id: str, step: int, rows: list[Event]) -> list[SpanRecord]:
    tid = trace_id_for(run_id)
    opening = next((e for e in rows if e.kind in OPENING_KINDS), None)
    if opening is None:
        return []
    p = opening.payload
    outcome = next((e for e in reversed(rows) if e.kind in OUTCOME_KINDS), None)
    parent = incarnation_span_id(run_id, opening.incarnation)
    attrs: dict[str, Any] = {"minirt.step": step, "minirt.kind": opening.kind,
                             "minirt.incarnation": opening.incarnation,
                             "minirt.seq": opening.seq}
    if opening.kind != "intent":
        closed = outcome or opening
        name = p.get("name") or p.get("tool") or opening.kind
        return [SpanRecord(f"{opening.kind} {name}", tid, work_span_id(run_id, step, name), parent,
                           opening.at, closed.at,
                           {**attrs, "minirt.name": name, "minirt.seq.end": closed.seq},
                           status="error" if "error" in p else "ok")]
    key = p["effect_key"]
    last_row = outcome if outcome is not None else rows[-1]
    end = last_row.at
    attrs["minirt.seq.end"] = last_row.seq
    notes = tuple(("reconciled", e.at, {"resolution": e.payload.get("resolution", ""),
                                        "reason": str(e.payload.get("reason", ""))})
                  for e in rows if e.kind == "reconciled")
    op = SpanRecord(f"tool {p['tool']}", tid, work_span_id(run_id, step, key), parent, opening.at,
                    end, {**attrs, "minirt.tool": p["tool"], "minirt.effect_key": key,
                          "minirt.effect": p.get("effect", ""),
                          "minirt.outcome": _outcome_name(outcome)},
                    notes, _status(outcome))
    sends = [(1, opening)] + [(int(e.payload["attempt"]), e) for e in rows if e.kind == "attempt"]
    spans = [op]
    for i, (n, sent) in enumerate(sends):
        until = sends[i + 1][1] if i + 1 < len(sends) else last_row
        spans.append(SpanRecord(f"attempt {n}", tid, attempt_span_id(run_id, step, key, n),
                                op.span_id, sent.at, until.at,
                                {"minirt.step": step, "minirt.tool": p["tool"],
                                 "minirt.effect_key": key, "minirt.attempt": n,
                                 "minirt.incarnation": sent.incarnation, "minirt.seq": sent.seq,
                                 "minirt.seq.end": until.seq}))
    return spans


# -- live spans: the runtime hook ---------------------------------------------------------------

class TraceHook(RuntimeHook):
    """Report spans as the worker runs them, to ``sink`` (anything with ``emit(SpanRecord)``:
    an :class:`OTelSink`, or a list's ``append``). Replayed positions are reported as replayed.

    The incarnation span ends at :meth:`on_run_end`; the run span when the run is terminal."""

    def __init__(self, sink: Any) -> None:
        self.emit = sink.emit if hasattr(sink, "emit") else sink
        self._lock = threading.Lock()

    def _started(self, ctx: Context) -> dict[int, float]:
        """step -> when its position was claimed, for this execution (per-run state)."""
        return ctx.state_for(self, dict)

    def _now(self, ctx: Context) -> float:
        return ctx.runtime.clock.now()

    def at_checkpoint(self, ctx: Context) -> None:
        with self._lock:
            self._started(ctx)[ctx.position] = self._now(ctx)

    def on_position(self, ctx: Context, step: int, kind: str, name: str, replayed: bool) -> None:
        start = self._started(ctx).get(step, self._now(ctx))
        pos = ctx.journal.at(step)
        if pos is None or pos.opening is None:
            return
        if replayed:
            self.emit(self._replay_span(ctx, step, kind, name, start, pos))
            return
        rows = sorted({e.seq: e for e in (pos.opening, pos.outcome, *pos.extra)
                       if e is not None}.values(), key=lambda e: e.seq)
        for span in _position_spans(ctx.run_id, step, rows):
            self.emit(span)

    def _replay_span(self, ctx: Context, step: int, kind: str, name: str, start: float,
                     pos: Any) -> SpanRecord:
        payload = pos.opening.payload
        key = payload.get("effect_key") if pos.opening.kind == "intent" else None
        attrs: dict[str, Any] = {"minirt.step": step, "minirt.kind": kind, "minirt.name": name,
                                 "minirt.incarnation": ctx.incarnation, "minirt.replayed": True,
                                 "minirt.replay_of":
                                     f"{work_span_id(ctx.run_id, step, key or name):016x}"}
        if key is not None:
            attrs.update({"minirt.tool": name, "minirt.effect_key": key,
                          "minirt.attempt": 1 + sum(1 for e in pos.extra if e.kind == "attempt")})
        return SpanRecord(f"{kind} {name} (replayed)", trace_id_for(ctx.run_id),
                          replay_span_id(ctx.run_id, ctx.incarnation, step),
                          incarnation_span_id(ctx.run_id, ctx.incarnation), start,
                          self._now(ctx), attrs)

    def on_run_end(self, ctx: Context, state: RunState) -> None:
        store, run_id, now = ctx.runtime.store, ctx.run_id, self._now(ctx)
        events = store.read(run_id)
        claim = next((e for e in events if e.kind == "transition" and e.incarnation ==
                      ctx.incarnation and e.payload.get("event") == "claim"), events[0])
        ended = {RunState.SUCCEEDED: "complete", RunState.FAILED: "fail",
                 RunState.WAITING: "wait", RunState.UNCERTAIN: "effect_unknown"}
        tid = trace_id_for(run_id)
        self.emit(SpanRecord(f"incarnation {ctx.incarnation}", tid,
                             incarnation_span_id(run_id, ctx.incarnation), run_span_id(run_id),
                             claim.at, now, {"minirt.incarnation": ctx.incarnation,
                                             "minirt.worker_id": ctx.runtime.worker_id,
                                             "minirt.ended": ended.get(state, state.value)}))
        if state in TERMINAL:
            rec = store.get_run(run_id)
            self.emit(SpanRecord(f"run {run_id}", tid, run_span_id(run_id), None, events[0].at,
                                 now, {"minirt.run_id": run_id, "minirt.workflow": rec.workflow,
                                       "minirt.state": state.value},
                                 status="ok" if state is RunState.SUCCEEDED else "error"))


def merge(*groups: Iterable[SpanRecord]) -> list[SpanRecord]:
    """One span per id (the first one given wins), ordered by start time then id."""
    seen: dict[int, SpanRecord] = {}
    for group in groups:
        for span in group:
            seen.setdefault(span.span_id, span)
    return sorted(seen.values(), key=lambda s: (s.start_at, s.attributes.get("minirt.seq", 0),
                                                s.span_id))


# -- OpenTelemetry export (lazy import) ------------------------------------------------------------

def _ns(seconds: float) -> int:
    return int(round(seconds * 1e9))


class OTelSink:
    """Emit :class:`SpanRecord` s through the OpenTelemetry SDK, keeping their ids, to
    ``exporter`` (any SpanExporter). Needs ``opentelemetry-sdk`` (``pip install minirt[trace]``)."""

    def __init__(self, exporter: Any, *, service_name: str = "minirt") -> None:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.id_generator import IdGenerator

        class DurableIds(IdGenerator):
            """Hands out the ids :meth:`OTelSink.emit` set for the span being started."""

            def __init__(self) -> None:
                self.next = (1, 1)

            def generate_trace_id(self) -> int:
                return self.next[0]

            def generate_span_id(self) -> int:
                return self.next[1]

        self._ids = DurableIds()
        self._lock = threading.Lock()
        self.exporter = exporter
        self.provider = TracerProvider(id_generator=self._ids, shutdown_on_exit=False,
                                       resource=Resource({"service.name": service_name}))
        self.provider.add_span_processor(SimpleSpanProcessor(exporter))
        self.tracer = self.provider.get_tracer("minirt.trace")

    def emit(self, rec: SpanRecord) -> None:
        from opentelemetry import trace
        from opentelemetry.trace import Status, StatusCode

        context = None
        if rec.parent_id is not None:
            parent = trace.SpanContext(rec.trace_id, rec.parent_id, is_remote=False,
                                       trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED))
            context = trace.set_span_in_context(trace.NonRecordingSpan(parent))
        with self._lock:
            self._ids.next = (rec.trace_id, rec.span_id)
            span = self.tracer.start_span(rec.name, context=context,
                                          start_time=_ns(rec.start_at),
                                          attributes=_otel_attrs(rec.attributes))
        for name, at, attrs in rec.events:
            span.add_event(name, _otel_attrs(attrs), timestamp=_ns(at))
        if rec.status != "unset":
            span.set_status(Status(StatusCode.OK if rec.status == "ok" else StatusCode.ERROR))
        span.end(end_time=_ns(max(rec.end_at, rec.start_at)))

    def emit_all(self, records: Iterable[SpanRecord]) -> None:
        for rec in records:
            self.emit(rec)

    def shutdown(self) -> None:
        self.provider.shutdown()


def _otel_attrs(attrs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v if isinstance(v, str | bool | int | float) else json.dumps(v, sort_keys=True)
            for k, v in attrs.items() if v is not None}


def from_otel(spans: Iterable[Any]) -> list[SpanRecord]:
    """SDK spans (e.g. ``InMemorySpanExporter().get_finished_spans()``) back to records."""
    out = []
    for s in spans:
        ctx = s.get_span_context()
        status = {"OK": "ok", "ERROR": "error"}.get(s.status.status_code.name, "unset")
        out.append(SpanRecord(s.name, ctx.trace_id, ctx.span_id,
                              s.parent.span_id if s.parent is not None else None,
                              s.start_time / 1e9, s.end_time / 1e9, dict(s.attributes or {}),
                              tuple((e.name, e.timestamp / 1e9, dict(e.attributes or {}))
                                    for e in s.events), status))
    return out


class JsonLinesExporter:
    """A span exporter that appends one JSON object per span to a file (flushed per batch).
    Works as an OpenTelemetry ``SpanExporter``; :func:`read_jsonl` reads the file back."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        lines = [json.dumps(r.to_dict(), sort_keys=True) for r in from_otel(spans)]
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


class JsonLinesSink:
    """The same JSON-lines file without OpenTelemetry: ``emit`` appends one record per line
    (a scenario's hook uses it in crash sweeps; what was emitted survives SIGKILL)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def emit(self, rec: SpanRecord) -> None:
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(rec.to_dict(), sort_keys=True) + "\n")


def read_jsonl(path: str | Path) -> list[SpanRecord]:
    """The spans a :class:`JsonLinesExporter` wrote (empty if the file does not exist)."""
    p = Path(path)
    if not p.exists():
        return []
    return [SpanRecord.from_dict(json.loads(line)) for line in p.read_text().splitlines()
            if line.strip()]


# -- the effect-count oracle -----------------------------------------------------------------------

@dataclass(frozen=True)
class EffectRow:
    """One logical effect (a tool intent) joined to its trace and its provider's ledger."""

    step: int
    tool: str
    effect_key: str
    attempts: int  # attempts sent: new-work attempt spans (replays excluded), or journal sends
    executions: int | None  # the provider's ledger count under the key (None: no ledger)
    receipts: int  # outcomes the journal recorded for it (0 or 1)
    span_id: str  # the operation's span, to find it in the trace

    @property
    def verdict(self) -> str:
        if self.executions is None:
            return "not joinable"
        if self.executions > 1:
            return "duplicate"
        if self.executions == 1:
            return "exactly once" if self.receipts else "unknown (no receipt)"
        return "lost (receipt without execution)" if self.receipts else "not executed"


@dataclass(frozen=True)
class EffectReport:
    rows: tuple[EffectRow, ...]
    orphans: tuple[dict[str, Any], ...]  # ledger effects whose key no intent of the run owns

    @property
    def ok(self) -> bool:
        return not self.orphans and all(r.verdict in ("exactly once", "not joinable")
                                        for r in self.rows)


def attempts_by_key(spans: Iterable[SpanRecord]) -> dict[str, int]:
    """Attempts sent per effect key: distinct attempt spans of new work (replays excluded)."""
    seen: dict[str, set[int]] = {}
    for s in spans:
        if "minirt.attempt" in s.attributes and not s.replayed:
            seen.setdefault(str(s.attributes["minirt.effect_key"]), set()).add(s.span_id)
    return {k: len(v) for k, v in seen.items()}


def effect_report(store: Store, run_id: str, ledgers: Mapping[str, EffectLedger],
                  spans: Iterable[SpanRecord] | None = None) -> EffectReport:
    """Per logical effect of the run: attempts (from ``spans``, else the journal), executions
    (the ledger of its tool, by effect key), receipts (the journal). ``ledgers``: tool name ->
    its provider's ledger."""
    events = store.read(run_id)
    attempts = attempts_by_key(spans if spans is not None else journal_spans(store, run_id))
    rows, keys = [], set()
    for e in events:
        if e.kind != "intent":
            continue
        p = e.payload
        key, tool = p["effect_key"], p["tool"]
        keys.add(key)
        outcome = [o for o in events if o.step == e.step and o.kind in ("tool_result",
                                                                        "tool_error")]
        ledger = ledgers.get(tool)
        rows.append(EffectRow(e.step, tool, key, attempts.get(key, 0),
                              None if ledger is None else ledger.count(key),
                              1 if any(o.kind == "tool_result" for o in outcome) else 0,
                              f"{work_span_id(run_id, e.step, key):016x}"))
    orphans = []
    for ledger in {id(v): v for v in ledgers.values()}.values():
        orphans += [fx for fx in ledger.effects() if fx.get("effect_key") not in keys]
    return EffectReport(tuple(rows), tuple(orphans))
