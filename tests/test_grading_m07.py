"""Drill 07's hidden tests: the reference passes every check, each plausible mistake fails its own."""

from __future__ import annotations

from typing import Any

import pytest

from minirt.scheduler import Node, conflicts, plan_waves, predecessors
from minirt_course.grading import m07
from minirt_course.scenarios.m07_fanout import by_step


def rw_only(a: Node, b: Node) -> bool:
    """Ignores write-write conflicts."""
    return bool(a.writes & b.reads or b.writes & a.reads)


def ww_only(a: Node, b: Node) -> bool:
    """Lets a reader and a writer share a wave."""
    return bool(a.writes & b.writes)


def greedy_with(rule: Any, *, bound: bool = True, by_step_order: bool = True) -> Any:
    def schedule(calls: list[Node], max_in_flight: int) -> list[list[str]]:
        order = sorted(calls, key=lambda n: n.step) if by_step_order else list(calls)
        preds = {n.name: set(n.after) for n in order}
        for a in order:
            for b in order:
                if a.step < b.step and rule(a, b):
                    preds[b.name].add(a.name)
        placed: set[str] = set()
        waves = []
        while len(placed) < len(order):
            wave = [n.name for n in order if n.name not in placed and preds[n.name] <= placed]
            wave = wave[:max_in_flight] if bound else wave
            placed |= set(wave)
            waves.append(sorted(wave, key=lambda x: next(n.step for n in order if n.name == x)))
        return waves
    return schedule


def levels_then_chunks(calls: list[Node], max_in_flight: int) -> list[list[str]]:
    """Levels by longest path, then each level cut into chunks of the bound (not greedy)."""
    preds = predecessors(calls)
    level: dict[str, int] = {}
    for n in sorted(calls, key=lambda n: n.step):
        level[n.name] = 1 + max((level[p] for p in preds[n.name]), default=-1)
    waves = []
    for lv in sorted(set(level.values())):
        names = [n.name for n in sorted(calls, key=lambda n: n.step) if level[n.name] == lv]
        waves += [names[i:i + max_in_flight] for i in range(0, len(names), max_in_flight)]
    return waves


def arrival_order(arrivals: Any) -> list[Any]:
    return [v for _, v in arrivals]


def blank(*args: Any) -> Any:
    raise NotImplementedError()


PLAN_CHECKS = (m07.check_dependencies, m07.check_conflicts, m07.check_bound, m07.check_minimal,
               m07.check_deterministic)


def test_the_reference_passes_every_check() -> None:
    assert m07.check_conflict(conflicts) == []
    for check in PLAN_CHECKS:
        assert check(plan_waves) == [], check.__name__
    assert m07.check_join(by_step) == []
    assert m07.check_prediction({"lookup_order": 2, "lookup_customer": 1, "check_stock": 1}) == []


def test_the_boundaries_are_the_scenario_s() -> None:
    assert m07.probe() == m07.BOUNDARIES


@pytest.mark.slow
def test_the_reference_passes_the_crash_sweep() -> None:
    assert m07.check_crash_sweep(plan_waves, by_step) == []


@pytest.mark.parametrize("rule", [rw_only, ww_only], ids=["no-write-write", "no-read-write"])
def test_a_wrong_conflict_rule_fails_the_rule_and_the_waves(rule: Any) -> None:
    assert m07.check_conflict(rule)[0].startswith("[conflict-rule]")
    assert m07.check_conflicts(greedy_with(rule))[0].startswith("[no-conflict-in-wave]")


def test_ignoring_the_bound_fails_the_bound() -> None:
    assert m07.check_bound(greedy_with(conflicts, bound=False))[0].startswith("[bound]")


def test_listing_order_instead_of_step_order_is_not_deterministic() -> None:
    wrong = greedy_with(conflicts, by_step_order=False)
    assert m07.check_deterministic(wrong)[0].startswith("[deterministic]")


def test_levels_cut_into_chunks_are_valid_but_not_minimal() -> None:
    assert m07.check_dependencies(levels_then_chunks) == []
    assert m07.check_conflicts(levels_then_chunks) == []
    assert m07.check_bound(levels_then_chunks) == []
    assert m07.check_minimal(levels_then_chunks)[0].startswith("[minimal]")


def test_a_join_in_arrival_order_fails_the_join_and_the_crash_sweep() -> None:
    assert m07.check_join(arrival_order)[0].startswith("[join-order]")
    assert m07.check_crash_sweep(plan_waves, arrival_order, points=[("before_complete", 1)])


def test_a_plan_with_a_reader_and_a_writer_together_fails_the_crash_sweep() -> None:
    failures = m07.check_crash_sweep(greedy_with(ww_only), by_step, points=[("after_claim", 1)])
    assert failures and "conflicting" in failures[0]


def test_a_blank_answer_fails_every_check_with_a_message() -> None:
    assert m07.check_conflict(blank)
    for check in PLAN_CHECKS:
        assert check(blank)[0].startswith("[")
    assert m07.check_join(blank)
    assert m07.check_crash_sweep(blank, blank, points=[("after_claim", 1)])
    assert m07.check_prediction(None)


def test_a_wrong_prediction_fails() -> None:
    assert m07.check_prediction({"lookup_order": 1, "lookup_customer": 1, "check_stock": 1})


def test_learner_api_names_no_check_and_no_answer() -> None:
    assert all(hasattr(m07, n) for n in m07.LEARNER_API)
    assert not [n for n in m07.LEARNER_API if n.startswith(("check_", "_", "exhaustive"))
                or "observe" in n or "predict" in n]


def test_inputs_must_be_left_alone(capsys: Any) -> None:
    def sorts_in_place(calls: list[Node], bound: int) -> list[list[str]]:
        calls.sort(key=lambda n: n.step)
        return plan_waves(calls, bound)

    def join_in_place(arrivals: list[Any]) -> list[Any]:
        arrivals.sort(key=lambda p: p[0])
        return [v for _, v in arrivals]

    msg = m07.check_dependencies(sorts_in_place)[0]
    assert msg.startswith("[dependencies]") and "changed the list" in msg
    assert "smallest failing input: max_in_flight=" in msg
    assert "changed the list of arrivals" in m07.check_join(join_in_place)[0]
    assert capsys.readouterr() == ("", "")


def test_every_small_pair_of_calls_is_tried() -> None:
    assert m07.exhaustive_conflict(conflicts) == []
    assert "expected True" in m07.exhaustive_conflict(rw_only)[0]


def test_generated_fanouts_include_the_empty_one() -> None:
    def crashes_on_empty(calls: list[Node], bound: int) -> list[list[str]]:
        if not calls:
            raise ValueError("max() arg is an empty sequence")
        return plan_waves(calls, bound)

    assert "ValueError" in m07.check_bound(crashes_on_empty)[0]
