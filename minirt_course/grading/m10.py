"""Hidden-test logic for drill 10 (recovery traces). Course tooling, not runtime core.

The learner writes ``attempts_per_effect(spans) -> {effect_key: attempts}`` and the oracle
``judge(state, report) -> outcome`` over :class:`minirt.trace.EffectReport`, then uses the sweep
to find the bug planted in :data:`MYSTERY`. Each ``check_*`` returns failure messages (empty: the
property holds), starting with the property's name in brackets and never giving the answer.
Learner code is never trusted: calls are wrapped, answers rebuilt (``{str: int}``, a stripped
lower-case ``str`` that must be one of :data:`OUTCOMES`), and every expected value is computed
here from real runs (the journal, the spans as written, the providers' ledgers).
"""

from __future__ import annotations

import copy
import itertools
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from minirt.faults import Faults, Outcome, crash_once, scratch_root, sweep_all
from minirt.trace import (
    EffectReport,
    EffectRow,
    SpanRecord,
    attempts_by_key,
    journal_spans,
    read_jsonl,
)

from ..scenarios import m10_trace
from .differential import falsify

#: What the drill's answer and plain cells may use (the out-of-kernel run allows nothing else).
LEARNER_API = ("OUTCOMES", "REFERENCE", "JOURNALS_BEFORE_COMMIT", "MYSTERY", "traced_recovery",
               "example_report", "sweep_with", "sweep_mystery")
OUTCOMES = tuple(o.value for o in Outcome)
REFERENCE = m10_trace.reference
JOURNALS_BEFORE_COMMIT = m10_trace.journals_before_commit
#: The runtime with a planted bug the drill asks the learner to find with the sweep.
MYSTERY = m10_trace.unknown_as_failure
Fn = Callable[..., Any]


def _fmt(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:200]


# -- real runs -------------------------------------------------------------------------------------

def traced_recovery(point: str, occurrence: int = 1, scenario: Any = m10_trace.reference
                    ) -> tuple[list[SpanRecord], EffectReport, str]:
    """Crash the pay-then-book run at ``point``, recover it; return every span reported (as the
    hook wrote them, replays included, followed by the journal's projection: work spans appear
    twice), the effect report and the run's final state."""
    with tempfile.TemporaryDirectory(prefix="m10-", dir=scratch_root()) as tmp:
        wd = Path(tmp)
        crash_once(scenario, point, occurrence=occurrence, workdir=wd)
        rt = scenario.make_runtime(wd, faults=Faults(), clock_offset=0.0, worker_id="w-grader")
        try:
            spans = read_jsonl(wd / m10_trace.SPANS) + journal_spans(rt.store, scenario.run_id)
            return spans, scenario.report(wd, rt, scenario.run_id), \
                rt.store.get_run(scenario.run_id).run.state.value
        finally:
            rt.close()


def example_report(kind: str) -> EffectReport:
    """A small report: ``clean``, ``lost`` (a receipt, no execution), ``duplicate`` (executed
    twice), ``orphan`` (an effect no intent owns) or ``unknown`` (executed, no receipt)."""
    rows = {"clean": [(1, 1), (1, 1)], "lost": [(0, 1), (1, 1)], "duplicate": [(2, 1), (1, 1)],
            "orphan": [(1, 1), (1, 1)], "unknown": [(1, 1), (1, 0)]}[kind]
    return EffectReport(tuple(EffectRow(i + 1, ("charge", "book")[i], f"ek_{kind}_{i}", 1, e, r,
                                        f"{i + 1:016x}") for i, (e, r) in enumerate(rows)),
                        ({"effect_id": "ch_000002", "kind": "charge", "effect_key": "rk_x"},)
                        if kind == "orphan" else ())


def _attempts(fn: Fn, spans: list[SpanRecord]) -> dict[str, int]:
    got = fn(list(spans))
    return {str(k): int(v) for k, v in dict(got).items() if int(v)}


def _said(judge: Fn, state: str, report: EffectReport) -> str:
    said = str(judge(str(state), report)).strip().lower()
    if said not in OUTCOMES:
        raise ValueError(f"judge returned {said!r}, not one of {OUTCOMES}")
    return said


# -- the checks ------------------------------------------------------------------------------------

def check_attempts(fn: Fn) -> list[str]:
    """Attempts per effect key: new work only, each attempt once, whoever reported it."""
    for point, occurrence, what in (("before_complete", 1, "every position was replayed"),
                                    ("after_intent", 1, "the charge was resent after W2"),
                                    ("after_result", 2, "the booking was replayed")):
        spans, _, _ = traced_recovery(point, occurrence)
        want = attempts_by_key(spans)
        try:
            got = _attempts(fn, spans)
        except Exception as exc:
            return [f"[attempts] on the spans of a recovery ({what}) it raised {_fmt(exc)}"]
        if got != want:
            diff = sorted(k[:12] for k in set(got) | set(want) if got.get(k) != want.get(k))
            return [f"[attempts] after a crash at {point} ({what}) the counts differ for "
                    f"{len(diff)} effect(s) ({', '.join(diff)}): replayed spans are not new work "
                    "and one attempt may be reported more than once"]
    return differential_attempts(fn)


_KEYS = ("ek_charge_0001", "ek_book_0002", "ek_email_0003")
#: one attempt: (effect key, attempt number, span id, live copies, replayed copies)
_attempt = st.tuples(st.sampled_from(_KEYS), st.integers(1, 3), st.integers(1, 6),
                     st.integers(0, 2), st.integers(0, 2))
_noise = st.lists(st.tuples(st.sampled_from(_KEYS), st.integers(1, 6), st.booleans()),
                  max_size=3)


def _spans(example: Any) -> list[SpanRecord]:
    attempts, noise, order = example
    out = []
    for key, n, sid, live, replayed in attempts:
        for copy_no in range(live + replayed):
            attrs: dict[str, Any] = {"minirt.effect_key": key, "minirt.attempt": n,
                                     "minirt.tool": key.split("_")[1]}
            if copy_no >= live:
                attrs["minirt.replayed"] = True
            out.append(SpanRecord(f"tool {key.split('_')[1]}", 7, sid, 1, 1.0 + copy_no,
                                  2.0 + copy_no, attrs))
    for key, sid, replayed in noise:  # the operation's span: an effect key, no attempt
        out.append(SpanRecord("step", 7, 100 + sid, None, 0.0, 3.0,
                              {"minirt.effect_key": key, "minirt.replayed": replayed}))
    if out:
        k = order % len(out)
        out = out[k:] + out[:k][::-1]
    return out


def differential_attempts(fn: Fn, max_examples: int = 80) -> list[str]:
    """[attempts] generated span lists (several reporters: an attempt's span 0-2 times live and
    0-2 times replayed, under the same span id; several attempts per key, sometimes under one id;
    operation spans with a key and no attempt; any order): the counts equal
    :func:`minirt.trace.attempts_by_key`'s, and the list handed in is left as it was."""
    def check(example: Any) -> str | None:
        spans = _spans(example)
        given = copy.deepcopy(spans)
        want = {k: v for k, v in attempts_by_key(spans).items() if v}
        try:
            got = _attempts(fn, given)
        except Exception as exc:  # noqa: BLE001 - learner code
            return f"attempts_per_effect raised {_fmt(exc)}"
        if given != spans:
            return "attempts_per_effect changed the spans it was given"
        if got != want:
            return f"you counted {got}, expected {want}"
        return None
    def show(ex: Any) -> list[tuple[Any, ...]]:
        return [(s.attributes.get("minirt.effect_key"), s.span_id,
                 s.attributes.get("minirt.attempt"), s.replayed) for s in _spans(ex)]
    return falsify("attempts", st.tuples(st.lists(_attempt, max_size=5), _noise,
                                         st.integers(0, 20)),
                   check, max_examples=max_examples, show=show)


def check_ledger_judge(judge: Fn) -> list[str]:
    """The providers' ledgers decide: a receipt is not an execution."""
    cases = [("clean", "clean"), ("lost", "lost effect"), ("duplicate", "duplicate effect"),
             ("orphan", "duplicate effect")]
    for kind, want in cases:
        try:
            said = _said(judge, "succeeded", example_report(kind))
        except Exception as exc:
            return [f"[oracle-reads-ledger] on a '{kind}' report it raised {_fmt(exc)}"]
        if said != want:
            return [f"[oracle-reads-ledger] a succeeded run whose report is "
                    f"{_describe(example_report(kind))} was judged {said!r}"]
    return exhaustive_judge("oracle-reads-ledger", judge, FINAL)


#: rows of a report, as (executions, receipts, attempts): every combination that matters to an
#: oracle (once, lost, twice, executed without a receipt, never happened, no ledger, resent)
ROWS = ((1, 1, 1), (0, 1, 1), (2, 1, 2), (1, 0, 1), (0, 0, 1), (None, 1, 1), (1, 1, 2),
        (2, 0, 1))
FINAL = ("succeeded", "failed", "cancelled")
NOT_FINAL = ("pending", "running", "waiting", "uncertain", "cancelling")


def _reports() -> Iterator[EffectReport]:
    """Every report of up to two rows drawn from :data:`ROWS`, with and without an orphan,
    smallest first."""
    for n in range(3):
        for combo in itertools.product(ROWS, repeat=n):
            rows = tuple(EffectRow(i + 1, ("charge", "book")[i], f"ek_{i}_{e}_{r}_{a}", a, e, r,
                                   f"{i + 1:016x}") for i, (e, r, a) in enumerate(combo))
            for orphans in ((), ({"effect_id": "ch_9", "kind": "charge", "effect_key": "rk"},)):
                yield EffectReport(rows, orphans)


def exhaustive_judge(prop: str, judge: Fn, states: tuple[str, ...]) -> list[str]:
    """[prop] every state of ``states`` x every report of :func:`_reports`: the outcome the
    drill's order of precedence gives (minirt's reference oracle), the first case that differs
    shown. Two bad outcomes at once are the point: which one wins."""
    for state in states:
        for report in _reports():
            want = m10_trace.judge(state, report)
            try:
                said = _said(judge, state, report)
            except Exception as exc:  # noqa: BLE001 - learner code
                return [f"[{prop}] a {state} run with {_describe(report)}: "
                        f"judge raised {_fmt(exc)}"]
            if said != want:
                return [f"[{prop}] a {state} run with {_describe(report)}: "
                        f"you said {said!r}, expected {want!r} (the smallest case that "
                        "differs)"]
    return []


def _describe(report: EffectReport) -> str:
    rows = "; ".join(f"{r.tool}: ledger {r.executions}, receipts {r.receipts}, attempts "
                     f"{r.attempts}" for r in report.rows)
    orphans = f"{len(report.orphans)} ledger effect no intent owns" if report.orphans else ""
    return "; ".join(x for x in (rows, orphans) if x) or "no effects"


def check_stuck(judge: Fn) -> list[str]:
    """A run that did not end is stuck, whatever its effects look like."""
    for state, kind, want in (("uncertain", "unknown", "stuck"), ("running", "clean", "stuck"),
                              ("waiting", "clean", "stuck"), ("failed", "unknown",
                                                              "wrong result")):
        try:
            said = _said(judge, state, example_report(kind))
        except Exception as exc:
            return [f"[oracle-stuck] a {state} run made it raise {_fmt(exc)}"]
        if said != want:
            return [f"[oracle-stuck] a run left {state!r} with {_describe(example_report(kind))}"
                    f" was judged {said!r}"]
    return exhaustive_judge("oracle-stuck", judge, NOT_FINAL)


@cache
def reference_matrix() -> tuple[tuple[str, str, int, str], ...]:
    """(scenario, point, occurrence, outcome) of the three runtimes with the reference judge."""
    matrix = sweep_all([sc.ref for sc in m10_trace.VARIANTS], modes=("simulate",))
    return tuple((c.ref, c.point, c.occurrence, c.verdict.outcome.value) for c in matrix.cells)


def sweep_with(judge: Fn, scenarios: tuple[Any, ...] = m10_trace.VARIANTS) -> Any:
    """The three runtimes (or ``scenarios``) swept with ``judge`` as their oracle."""
    return sweep_all([replace(sc, judge=judge) for sc in scenarios], modes=("simulate",))


def sweep_mystery(judge: Fn) -> Any:
    """The runtime with the planted bug, swept with ``judge`` (your oracle)."""
    return sweep_with(judge, (MYSTERY,))


def check_under_sweep(judge: Fn) -> list[str]:
    """Your judge as the sweep's oracle agrees with the reference on every crash point of the
    three runtimes (the reference, journals-before-commit and the mystery)."""
    matrix = sweep_with(judge)
    errors = matrix.errors()
    if errors:
        return [f"[oracle-sweep] your judge raised during the sweep: {errors[0].error[:160]}"]
    want = {(r, p, n): o for r, p, n, o in reference_matrix()}
    for c in matrix.cells:
        expected = want.get((c.ref, c.point, c.occurrence))
        if expected is not None and c.verdict.outcome.value != expected:
            return [f"[oracle-sweep] {c.scenario}, crash at {c.point} #{c.occurrence}: your "
                    f"oracle said {c.verdict.outcome.value!r} ({c.verdict.detail[:120]})"]
    return []


@cache
def planted_bug_points() -> frozenset[str]:
    """The fault points where the mystery runtime is not clean (reference judge, run here)."""
    return frozenset(p for r, p, _, o in reference_matrix() if r == MYSTERY.ref and o != "clean")


def check_planted(points: Any) -> list[str]:
    try:
        got = {str(p).strip() for p in points}
    except TypeError:
        return ["[planted-bug] give a set of fault point names, such as {'before_intent'}"]
    actual = planted_bug_points()
    if got != actual:
        return [f"[planted-bug] your set differs from the sweep in {len(got ^ actual)} point(s): "
                "sweep the mystery runtime again and read every failing cell"]
    return []


def _w2_trace() -> tuple[int, int]:
    """(attempts of the charge in the trace, charges in the ledger) after a crash in W2 of the
    charge and a recovery, with the reference runtime (run here)."""
    spans, report, _ = traced_recovery("after_intent", 1)
    charge = next(r for r in report.rows if r.tool == "charge")
    return attempts_by_key(spans)[charge.effect_key], int(charge.executions or 0)


def check_prediction(predicted: Any) -> list[str]:
    try:
        attempts, executions = (int(x) for x in predicted)
    except (TypeError, ValueError):
        return ["[predict] write the prediction as a pair of whole numbers: (attempts, charges)"]
    if (attempts, executions) != _w2_trace():
        return [f"[predict] you predicted {attempts} attempt(s) and {executions} charge(s); the "
                "run disagrees — look at its trace and the payment ledger"]
    return []
