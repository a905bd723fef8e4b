"""The hidden-test logic of drill 03: the reference answer passes, wrong answers fail by name.

Sweep-heavy checks (25 crash cells each) are marked slow; the honesty test in
tests/test_drills_honesty.py grades the same answers through real nbgrader.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from minirt.faults import boundaries, crash_once
from minirt.run import RunState
from minirt_course.grading import m03
from minirt_course.grading.m03 import UNRESOLVED, Divergence, Recorded
from minirt_course.scenarios.m03_journal import SCENARIO

MUTANTS = Path(__file__).parent / "mutants" / "03-step-journals"


def reference(rows, step, kind, name, args_digest):
    here = [r for r in rows if r["step"] == step]
    if not here:
        return None
    opening = next((r for r in here if r["kind"] in ("step", "decision", "intent")), None)
    if opening is None or (opening["kind"], opening["name"], opening["args_digest"]) != (
            kind, name, args_digest):
        raise Divergence(step=step, recorded=f"{opening and opening['kind']} "
                                             f"{opening and opening['name']!r}",
                         requested=f"{kind} {name!r}")
    if kind != "intent":
        return Recorded(opening["value"])
    result = next((r for r in here if r["kind"] == "result"), None)
    return UNRESOLVED if result is None else Recorded(result["value"])


def blank(rows, step, kind, name, args_digest):
    raise NotImplementedError()


def _mutant(name: str) -> tuple[Any, list[str]]:
    spec = importlib.util.spec_from_file_location(f"m03_{name}", MUTANTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ns: dict[str, Any] = {"Recorded": Recorded, "UNRESOLVED": UNRESOLVED,
                          "Divergence": Divergence}
    exec(module.ANSWERS["answer_lookup"], ns)
    return ns["lookup"], module.MUST_FAIL


FAST = {"test_recorded_result": m03.check_recorded, "test_divergence": m03.check_divergence}
SWEEP = {"test_tool_not_rerun": m03.check_not_rerun,
         "test_unresolved_intent": m03.check_unresolved}


# -- the fixed sweep points and the rows ----------------------------------------------------

def test_boundaries_match_a_fresh_probe():
    assert list(m03.BOUNDARIES) == boundaries(SCENARIO)


def test_unresolved_points_are_boundaries():
    assert set(m03.UNRESOLVED_POINTS) <= set(m03.BOUNDARIES) and len(m03.UNRESOLVED_POINTS) == 9


def test_rows_have_the_documented_keys_and_kinds():
    rows = m03.journal_rows()
    assert {tuple(sorted(r)) for r in rows} == {
        ("args_digest", "kind", "name", "seq", "step", "value")}
    assert [r["kind"] for r in rows] == ["intent", "result", "decision", "step", "step", "intent",
                                         "result", "decision", "intent", "result"]


def test_rows_of_a_resent_call_keep_the_notes():
    rows = m03.journal_rows(("before_result", 2), recover=True)
    assert [r["kind"] for r in rows if r["step"] == 4] == ["intent", "reconciled", "attempt",
                                                           "result"]


def test_journal_rows_are_copies():
    m03.journal_rows()[0]["name"] = "tampered"
    assert m03.journal_rows()[0]["name"] == "lookup_order"


# -- the reference passes, the blank fails everything -----------------------------------------

@pytest.mark.parametrize("check", list(FAST.values()), ids=list(FAST))
def test_reference_passes_fast_checks(check):
    assert check(reference) == []


@pytest.mark.slow
@pytest.mark.parametrize("check", list(SWEEP.values()), ids=list(SWEEP))
def test_reference_passes_sweep_checks(check):
    assert check(reference) == []


@pytest.mark.parametrize("check", list({**FAST, **SWEEP}.values()), ids=list({**FAST, **SWEEP}))
def test_blank_fails_every_check(check):
    failures = check(blank)
    assert failures and failures[0].startswith("[")


def test_prediction_matches_the_run():
    assert m03.check_prediction({"refund_executions": 2, "refunds_applied": 1}) == []


@pytest.mark.parametrize("wrong", [{"refund_executions": 1, "refunds_applied": 1},
                                   {"refund_executions": 2, "refunds_applied": 2},
                                   "two", None])
def test_wrong_prediction_fails_without_giving_the_numbers(wrong):
    (message,) = m03.check_prediction(wrong)
    assert message.startswith("[prediction]") and "2" not in message.split("]", 1)[1]


# -- the mutants lose their MUST_FAIL properties --------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.stem for p in MUTANTS.glob("*.py")))
def test_mutant_fails_its_must_fail_properties(name):
    lookup, must_fail = _mutant(name)
    checks = {**FAST, **SWEEP}
    passed = [cell for cell in must_fail if not checks[cell](lookup)]
    assert passed == [], f"{name} passes {passed}"


def test_name_only_mutant_misses_divergence_fast():
    lookup, _ = _mutant("by_name_only")
    assert any("other arguments for the refund" in f for f in m03.check_divergence(lookup))


def test_intent_as_done_mutant_is_caught_on_the_rows():
    lookup, _ = _mutant("intent_as_done")
    assert m03.check_unresolved(lookup)[0].startswith("[unresolved-intent] an intent with no")


# -- learner values are not trusted -------------------------------------------------------------

class AlwaysEqual:
    def __eq__(self, other: object) -> bool:
        return True


def test_an_always_equal_value_is_not_a_recorded_value():
    def sneaky(rows, step, kind, name, args_digest):
        return Recorded(AlwaysEqual()) if any(r["step"] == step for r in rows) else None

    assert m03.check_recorded(sneaky)


def test_a_recorded_look_alike_is_refused():
    class Mine(Recorded):
        pass

    def sneaky(rows, step, kind, name, args_digest):
        answer = reference(rows, step, kind, name, args_digest)
        return Mine(answer.value) if type(answer) is Recorded else answer

    assert m03.check_recorded(sneaky)


def test_an_unresolved_look_alike_is_refused():
    def sneaky(rows, step, kind, name, args_digest):
        answer = reference(rows, step, kind, name, args_digest)
        return "UNRESOLVED" if answer is UNRESOLVED else answer

    assert m03.check_unresolved(sneaky)[0].startswith("[unresolved-intent]")


def test_each_call_gets_its_own_copy_of_the_rows(tmp_path):
    import copy

    seen: list[bool] = []

    def vandal(rows, step, kind, name, args_digest):
        seen.append(any(r["value"] == "vandalised" for r in rows))
        pristine = copy.deepcopy(rows)
        for r in rows:
            r["value"] = "vandalised"
        return reference(pristine, step, kind, name, args_digest)

    verdict = crash_once(m03.LearnerScenario(vandal), "before_complete", workdir=tmp_path)
    assert verdict.ok and seen and not any(seen)


# -- the learner's lookup inside the runtime ----------------------------------------------------

def test_divergence_from_the_lookup_becomes_nondeterminism():
    assert m03._changed_workflow(reference) == []


def test_a_crashing_lookup_fails_the_run_with_a_named_error(tmp_path):
    sc = m03.LearnerScenario(blank)
    sc.setup(tmp_path)
    rt = sc.make_runtime(tmp_path, faults=None, clock_offset=0.0, worker_id="w")
    out = rt.run(sc.start(rt))
    rt.close()
    assert out.state is RunState.FAILED and isinstance(out.error, m03.LookupMisbehaved)
    assert "NotImplementedError" in str(out.error)


def test_a_lookup_that_answers_nonsense_fails_the_run(tmp_path):
    sc = m03.LearnerScenario(lambda *a: "yes")
    sc.setup(tmp_path)
    rt = sc.make_runtime(tmp_path, faults=None, clock_offset=0.0, worker_id="w")
    out = rt.run(sc.start(rt))
    rt.close()
    assert isinstance(out.error, m03.LookupMisbehaved)


def test_reference_lookup_replays_through_the_runtime(tmp_path):
    verdict = crash_once(m03.LearnerScenario(reference), "after_provider_commit", occurrence=2,
                         workdir=tmp_path)
    assert verdict.ok


def test_a_lookup_that_ignores_arguments_lets_a_changed_workflow_through():
    lookup, _ = _mutant("by_name_only")
    failures = m03._changed_workflow(lookup)
    assert failures and failures[0].startswith("[divergence] a workflow changed at step 4")


def test_learner_api_lists_only_helpers_that_exist_and_not_the_answer() -> None:
    from minirt_course.grading import m03 as grading

    assert grading.LEARNER_API and all(hasattr(grading, n) for n in grading.LEARNER_API)
    assert not [n for n in grading.LEARNER_API
                if n.startswith(("check_", "_", "observe", "reference"))]


def test_the_lookup_property_finds_notes_only_and_a_null_result() -> None:
    from minirt_course.grading import m03 as grading

    def notes_only_is_nothing(rows, step, kind, name, dg):
        here = [r for r in rows if r["step"] == step]
        if not any(r["kind"] in grading.OPENINGS for r in here):
            return None
        return grading.reference_lookup(rows, step, kind, name, dg)

    failures = grading.check_lookup_properties(notes_only_is_nothing, "divergence",
                                               grading._answer_is("divergence"))
    assert failures and failures[0].startswith("[divergence]") and "smallest" in failures[0]

    def null_is_unresolved(rows, step, kind, name, dg):
        got = grading.reference_lookup(rows, step, kind, name, dg)
        return grading.UNRESOLVED if type(got) is grading.Recorded and got.value is None else got

    assert grading.check_lookup_properties(null_is_unresolved, "recorded-result")
