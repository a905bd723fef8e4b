"""Recovery traces: durable span ids, replayed spans, OpenTelemetry export, the effect oracle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from minirt.faults import FaultPlan, Faults, SimulatedCrash, crash_once
from minirt.trace import (
    EffectReport,
    EffectRow,
    JsonLinesExporter,
    OTelSink,
    SpanRecord,
    TraceHook,
    attempt_span_id,
    attempts_by_key,
    effect_report,
    from_otel,
    journal_spans,
    merge,
    read_jsonl,
    run_span_id,
    span_id_for,
    trace_id_for,
    work_span_id,
)
from minirt.world.ledger import Ledger
from minirt_course.scenarios import m04_payment as m04
from minirt_course.scenarios import m10_trace as m10

InMemorySpanExporter = pytest.importorskip(
    "opentelemetry.sdk.trace.export.in_memory_span_exporter").InMemorySpanExporter


def crashed_then_resumed(tmp_path: Path, point: str, scenario: Any = m04.pay_then_book,
                         occurrence: int = 1) -> tuple[list[SpanRecord], Any, str]:
    """Run with a TraceHook, crash at ``point``, resume with a new worker; (live spans, rt, id)."""
    live: list[SpanRecord] = []
    scenario.setup(tmp_path)
    rt = scenario.make_runtime(tmp_path, faults=FaultPlan(crash_at=point, occurrence=occurrence),
                               clock_offset=0.0, worker_id="w-1")
    rt.hooks.append(TraceHook(live.append))
    run_id = scenario.start(rt)
    with pytest.raises(SimulatedCrash):
        rt.run(run_id)
    rt.close()
    rt = scenario.make_runtime(tmp_path, faults=Faults(), clock_offset=3600.0, worker_id="w-2")
    rt.hooks.append(TraceHook(live.append))
    rt.resume(run_id)
    return live, rt, run_id


# -- identities ----------------------------------------------------------------------------------

def test_ids_come_from_durable_identities_only() -> None:
    assert trace_id_for("run-1") == trace_id_for("run-1") != trace_id_for("run-2")
    assert attempt_span_id("run-1", 1, "ek_a", 1) == attempt_span_id("run-1", 1, "ek_a", 1)
    assert len({attempt_span_id("run-1", 1, "ek_a", n) for n in (1, 2, 3)}) == 3
    assert 0 < span_id_for("r", "x") < 2**64 and 0 < trace_id_for("r") < 2**128


def test_a_resumed_run_continues_the_same_trace(tmp_path: Path) -> None:
    live, rt, run_id = crashed_then_resumed(tmp_path, "after_provider_commit")
    assert {s.trace_id for s in live} == {trace_id_for(run_id)}
    assert {s.attributes.get("minirt.incarnation") for s in live} >= {1, 2}


def test_replayed_positions_are_reported_as_replayed_not_as_new_work(tmp_path: Path) -> None:
    live, rt, run_id = crashed_then_resumed(tmp_path, "before_complete")
    replays = [s for s in live if s.replayed]
    assert [s.name for s in replays] == ["decision decide (replayed)",
                                         "tool charge (replayed)", "tool book (replayed)"]
    work = {s.span_id for s in live if not s.replayed}
    assert all(int(s.attributes["minirt.replay_of"], 16) in work for s in replays)
    assert not {s.span_id for s in replays} & work


def test_live_spans_and_the_journal_agree_on_every_id(tmp_path: Path) -> None:
    live, rt, run_id = crashed_then_resumed(tmp_path, "after_provider_commit")
    projected = {s.span_id: s for s in journal_spans(rt.store, run_id)}
    for s in (s for s in live if not s.replayed):
        assert (s.name, s.parent_id) == (projected[s.span_id].name,
                                         projected[s.span_id].parent_id), s.name


def test_the_journal_shows_the_crashed_incarnation_the_live_trace_lost(tmp_path: Path) -> None:
    live, rt, run_id = crashed_then_resumed(tmp_path, "after_provider_commit")
    projected = journal_spans(rt.store, run_id)
    first = next(s for s in projected if s.name == "incarnation 1")
    assert first.attributes["minirt.ended"] == "abandoned" and first.status == "error"
    assert "incarnation 1" not in {s.name for s in live}  # it never ended, so never reported


def test_each_attempt_of_one_operation_is_its_own_span(tmp_path: Path) -> None:
    live, rt, run_id = crashed_then_resumed(tmp_path, "after_intent")  # W2: resent on recovery
    attempts = [s for s in journal_spans(rt.store, run_id) if s.name.startswith("attempt")
                and s.attributes["minirt.tool"] == "charge"]
    assert [(s.attributes["minirt.attempt"], s.attributes["minirt.incarnation"])
            for s in attempts] == [(1, 1), (2, 2)]
    op = {s.span_id for s in journal_spans(rt.store, run_id) if s.name == "tool charge"}
    assert {s.parent_id for s in attempts} == op


def test_attempts_count_new_work_once_and_never_replays() -> None:
    def span(i: int, attempt: int, replayed: bool = False) -> SpanRecord:
        attrs = {"minirt.effect_key": "ek_1", "minirt.attempt": attempt}
        if replayed:
            attrs["minirt.replayed"] = True
        return SpanRecord("s", 1, i, None, 0.0, 0.0, attrs)

    spans = [span(1, 1), span(1, 1), span(2, 2), span(3, 2, replayed=True)]
    assert attempts_by_key(spans) == {"ek_1": 2}


def test_merge_keeps_one_span_per_id() -> None:
    a = SpanRecord("a", 1, 5, None, 1.0, 2.0)
    b = SpanRecord("b", 1, 5, None, 0.0, 2.0)
    assert merge([a], [b]) == [a]


# -- OpenTelemetry --------------------------------------------------------------------------------

def test_the_otel_export_keeps_the_durable_ids(tmp_path: Path, capfd) -> None:
    exporter = InMemorySpanExporter()
    live, rt, run_id = crashed_then_resumed(tmp_path, "before_complete")
    OTelSink(exporter).emit_all(merge(live, journal_spans(rt.store, run_id)))
    got = from_otel(exporter.get_finished_spans())
    assert {s.span_id for s in got} == {s.span_id for s in merge(live, journal_spans(
        rt.store, run_id))}
    root = next(s for s in got if s.span_id == run_span_id(run_id))
    assert root.parent_id is None and root.trace_id == trace_id_for(run_id)
    assert any(s.replayed for s in got)
    assert capfd.readouterr().err == ""


def test_the_json_lines_exporter_round_trips(tmp_path: Path) -> None:
    _, rt, run_id = crashed_then_resumed(tmp_path / "w", "after_result")
    records = journal_spans(rt.store, run_id)
    OTelSink(JsonLinesExporter(tmp_path / "spans.jsonl")).emit_all(records)
    back = {s.span_id: s for s in read_jsonl(tmp_path / "spans.jsonl")}
    for rec in records:
        got = back[rec.span_id]
        assert (got.name, got.parent_id, got.attributes, got.status) == \
            (rec.name, rec.parent_id, rec.attributes, rec.status)
        assert abs(got.start_at - rec.start_at) < 1e-6


def test_importing_minirt_does_not_import_opentelemetry() -> None:
    code = ("import sys, minirt, minirt.trace, minirt.budget, minirt.faults; "
            "print(any(m.startswith('opentelemetry') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False" and out.stderr == ""


@pytest.mark.slow
def test_spans_written_before_a_sigkill_survive_it(tmp_path: Path) -> None:
    crash_once(m10.reference.ref, "after_result", occurrence=2, mode="kill", workdir=tmp_path)
    spans = read_jsonl(tmp_path / m10.SPANS)
    assert {s.name for s in spans if s.attributes.get("minirt.incarnation") == 1} >= \
        {"decision plan", "tool charge", "attempt 1"}


# -- the effect-count oracle ---------------------------------------------------------------------

def ledgers(wd: Path, book: str = "book.sqlite") -> dict[str, Ledger]:
    return {"charge": Ledger(wd / "payments.sqlite"), "book": Ledger(wd / book)}


def test_a_clean_recovery_reports_every_effect_exactly_once(tmp_path: Path) -> None:
    crash_once(m04.pay_then_book, "before_result", workdir=tmp_path)
    rt = m04.pay_then_book.make_runtime(tmp_path, faults=Faults(), clock_offset=0.0,
                                        worker_id="w")
    report = effect_report(rt.store, "run-m04", ledgers(tmp_path))
    assert [(r.tool, r.attempts, r.executions, r.receipts, r.verdict) for r in report.rows] == \
        [("charge", 1, 1, 1, "exactly once"), ("book", 1, 1, 1, "exactly once")]
    assert report.ok and report.rows[0].span_id == \
        f"{work_span_id('run-m04', 1, report.rows[0].effect_key):016x}"


def test_a_receipt_without_an_execution_is_a_lost_effect(tmp_path: Path) -> None:
    verdict = crash_once(m10.journals_before_commit, "after_result", workdir=tmp_path)
    rt = m10.reference.make_runtime(tmp_path, faults=Faults(), clock_offset=0.0, worker_id="w")
    row = effect_report(rt.store, "run-m10", ledgers(tmp_path, "booking.sqlite")).rows[0]
    assert (row.executions, row.receipts, row.verdict) == \
        (0, 1, "lost (receipt without execution)")
    assert verdict.outcome.value == "lost effect"


def test_an_effect_no_intent_owns_is_reported_as_an_orphan(tmp_path: Path) -> None:
    crash_once(m04.pay_then_book_random_keys, "after_provider_commit", workdir=tmp_path)
    rt = m04.pay_then_book.make_runtime(tmp_path, faults=Faults(), clock_offset=0.0,
                                        worker_id="w")
    report = effect_report(rt.store, "run-m04", ledgers(tmp_path))
    assert len(report.orphans) == 2 and not report.ok  # both charges under per-attempt keys


def test_a_tool_without_a_ledger_is_not_joinable(tmp_path: Path) -> None:
    crash_once(m04.pay_then_email_at_most_once, "after_result", workdir=tmp_path)
    rt = m04.pay_then_book.make_runtime(tmp_path, faults=Faults(), clock_offset=0.0,
                                        worker_id="w")
    report = effect_report(rt.store, "run-m04", {"charge": Ledger(tmp_path / "payments.sqlite")})
    assert [r.verdict for r in report.rows] == ["exactly once", "not joinable"]


@pytest.mark.parametrize("state, rows, orphans, outcome", [
    ("succeeded", [(1, 1)], 0, "clean"), ("succeeded", [(2, 1)], 0, "duplicate effect"),
    ("succeeded", [(1, 1)], 1, "duplicate effect"), ("uncertain", [(1, 0)], 0, "stuck"),
    ("succeeded", [(0, 1)], 0, "lost effect"), ("failed", [(1, 0)], 0, "wrong result")])
def test_the_reference_judge(state: str, rows: list[tuple[int, int]], orphans: int,
                             outcome: str) -> None:
    report = EffectReport(tuple(EffectRow(1, "charge", f"ek_{i}", 1, e, r, "0")
                                for i, (e, r) in enumerate(rows)),
                          tuple({"effect_key": "x"} for _ in range(orphans)))
    assert m10.judge(state, report) == outcome


# -- the pictures (course tooling) ---------------------------------------------------------------

def test_the_waterfall_shows_the_abandoned_incarnation_replays_and_the_ledger(tmp_path: Path
                                                                              ) -> None:
    from minirt.viz.trace import waterfall

    crash_once(m10.journals_before_commit, "after_result", workdir=tmp_path)
    rt = m10.reference.make_runtime(tmp_path, faults=Faults(), clock_offset=0.0, worker_id="w")
    report = m10.reference.report(tmp_path, rt, "run-m10")
    svg = waterfall(rt.store, "run-m10", read_jsonl(tmp_path / m10.SPANS), report=report).text
    assert "incarnation 1" in svg and 'stroke="#c0392b"' in svg  # abandoned: red outline
    assert "(replayed)" in svg and "stroke-dasharray" in svg
    assert "ledger 0 · receipt 1 · lost (receipt without execution)" in svg


def test_the_heat_map_colours_each_cell_by_its_worst_outcome() -> None:
    from minirt.faults import sweep_all
    from minirt.viz.trace import COLOURS, heatmap, worst

    matrix = sweep_all([m10.journals_before_commit.ref], modes=("simulate",))
    svg = heatmap(matrix).text
    assert svg.count(f'fill="{COLOURS["lost effect"]}"') == 2  # the cell and the legend
    assert "m10_trace:journals_before_commit at after_result: 2 lost effect" in svg
    assert worst(["clean", "stuck", "lost effect"]) == "lost effect"
