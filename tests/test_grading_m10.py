"""The hidden-test logic of drill 10 passes the reference answers and catches each wrong one."""

from __future__ import annotations

from typing import Any

import pytest

from minirt.trace import attempts_by_key
from minirt_course.grading import m10
from minirt_course.scenarios.m10_trace import judge

TERMINAL = ("succeeded", "failed", "cancelled")


def counts_replays(spans: Any) -> dict[str, int]:
    seen: dict[str, set[int]] = {}
    for s in spans:
        if "minirt.attempt" in s.attributes:
            seen.setdefault(s.attributes["minirt.effect_key"], set()).add(s.span_id)
    return {k: len(v) for k, v in seen.items()}


def counts_every_report(spans: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in spans:
        if "minirt.attempt" in s.attributes and not s.replayed:
            key = s.attributes["minirt.effect_key"]
            out[key] = out.get(key, 0) + 1
    return out


def judge_by_receipts(state: str, report: Any) -> str:
    if state not in TERMINAL:
        return "stuck"
    if any(r.receipts > 1 for r in report.rows):
        return "duplicate effect"
    if any(r.receipts == 0 for r in report.rows):
        return "lost effect"
    return "clean" if state == "succeeded" else "wrong result"


def judge_ignores_orphans(state: str, report: Any) -> str:
    if any((r.executions or 0) > 1 for r in report.rows):
        return "duplicate effect"
    if state not in TERMINAL:
        return "stuck"
    if any(r.executions == 0 and r.receipts for r in report.rows):
        return "lost effect"
    return "clean" if state == "succeeded" else "wrong result"


def judge_stuck_as_clean(state: str, report: Any) -> str:
    if report.orphans or any((r.executions or 0) > 1 for r in report.rows):
        return "duplicate effect"
    if any(r.executions == 0 and r.receipts for r in report.rows):
        return "lost effect"
    return "wrong result" if state == "failed" else "clean"


def blank(*args: Any) -> Any:
    raise NotImplementedError()


def test_the_reference_answers_pass_every_check() -> None:
    assert m10.check_attempts(attempts_by_key) == []
    assert m10.check_ledger_judge(judge) == []
    assert m10.check_stuck(judge) == []
    assert m10.check_under_sweep(judge) == []
    assert m10.check_planted({"after_intent", "after_provider_commit", "before_result"}) == []
    assert m10.check_prediction((2, 1)) == []


def test_counting_replayed_spans_fails_attempts() -> None:
    assert m10.check_attempts(counts_replays)[0].startswith("[attempts] after a crash at "
                                                            "before_complete")


def test_counting_each_report_of_one_attempt_fails_attempts() -> None:
    assert m10.check_attempts(counts_every_report)[0].startswith("[attempts]")


def test_a_judge_that_counts_journal_receipts_fails_the_ledger_and_the_sweep() -> None:
    assert m10.check_ledger_judge(judge_by_receipts)[0].startswith("[oracle-reads-ledger]")
    assert m10.check_under_sweep(judge_by_receipts)[0].startswith("[oracle-sweep]")


def test_a_judge_blind_to_orphans_fails_the_ledger_check() -> None:
    failure = m10.check_ledger_judge(judge_ignores_orphans)[0]
    assert "no intent owns" in failure


def test_a_judge_that_calls_stuck_clean_fails_stuck() -> None:
    # it also calls a cancelled run clean: the exhaustive ledger check sees that now
    assert "a cancelled run" in m10.check_ledger_judge(judge_stuck_as_clean)[0]
    assert m10.check_stuck(judge_stuck_as_clean)[0].startswith("[oracle-stuck]")


def test_a_judge_returning_something_else_is_a_failure_not_a_crash() -> None:
    assert "not one of" in m10.check_ledger_judge(lambda s, r: 42)[0]
    assert "raised" in m10.check_under_sweep(blank)[0]


@pytest.mark.parametrize("check", [m10.check_attempts, m10.check_ledger_judge, m10.check_stuck,
                                   m10.check_under_sweep])
def test_blank_answers_fail(check: Any) -> None:
    assert check(blank)


def test_the_planted_bug_and_the_prediction_come_from_real_runs() -> None:
    assert m10.planted_bug_points() == {"after_intent", "after_provider_commit",
                                        "before_result"}
    assert m10.check_planted({"after_provider_commit", "before_result"})
    assert m10.check_planted(None)[0].startswith("[planted-bug] give a set")
    assert m10._w2_trace() == (2, 1)
    assert m10.check_prediction((1, 1)) and m10.check_prediction("two")


def test_learner_api_names_no_check_and_no_answer() -> None:
    assert all(hasattr(m10, n) for n in m10.LEARNER_API)
    assert not [n for n in m10.LEARNER_API if n.startswith(("check_", "_", "exhaustive",
                                                             "differential", "reference"))
                or "planted_bug" in n or "w2" in n or "predict" in n]


def test_precedence_between_two_bad_outcomes_is_judged() -> None:
    from minirt_course.scenarios.m10_trace import TERMINAL_STATES, judge

    def stuck_first(state: str, report: Any) -> str:
        return "stuck" if state not in TERMINAL_STATES else judge(state, report)

    msg = m10.check_stuck(stuck_first)[0]
    assert msg.startswith("[oracle-stuck]") and "expected 'duplicate effect'" in msg
    assert m10.exhaustive_judge("x", judge, m10.FINAL + m10.NOT_FINAL) == []


def test_attempts_when_the_replayed_copy_comes_first() -> None:
    def dedupe_first(spans: Any) -> dict[str, int]:
        first: dict[int, Any] = {}
        for s in spans:
            first.setdefault(s.span_id, s)
        out: dict[str, int] = {}
        for s in first.values():
            if "minirt.attempt" in s.attributes and not s.replayed:
                k = s.attributes["minirt.effect_key"]
                out[k] = out.get(k, 0) + 1
        return out

    msg = m10.differential_attempts(dedupe_first)[0]
    assert msg.startswith("[attempts]") and "smallest failing input" in msg
