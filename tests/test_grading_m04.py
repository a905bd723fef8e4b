"""The hidden-test logic of drill 04 passes the reference answer and catches each wrong one."""

from __future__ import annotations

import hashlib
import uuid

import pytest

from minirt.canonical import canonical_json, digest
from minirt.idempotency import first_sent_at
from minirt.runtime import Resolution
from minirt_course.grading import m04


def derive_key(run_id, step, tool, args):
    material = canonical_json([run_id, step, tool, digest(args)])
    return "ek_" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]


def reconcile(ctx, tool, call):
    found = tool.lookup(call)
    if found.found:
        return Resolution("result", found.result, "found at the provider")
    elapsed = ctx.runtime.clock.now() - first_sent_at(ctx, call)
    if tool.retention_for is not None and elapsed >= tool.retention_for:
        return Resolution("unknown", reason="past retention: the key may have been pruned")
    return Resolution("redispatch", reason="not found within retention")


def uuid_key(run_id, step, tool, args):
    return "ek_" + uuid.uuid4().hex


def key_without_payload(run_id, step, tool, args):
    return "ek_" + hashlib.sha256(f"{run_id}|{step}|{tool}".encode()).hexdigest()[:32]


def str_key(run_id, step, tool, args):
    return f"{run_id}:{step}:{tool}:{args}"  # dict order leaks into the key


def resend_without_lookup(ctx, tool, call):
    return Resolution("redispatch", reason="retry")


def not_found_means_resend(ctx, tool, call):
    found = tool.lookup(call)
    return (Resolution("result", found.result, "found") if found.found
            else Resolution("redispatch", reason="not found"))


def never_resend(ctx, tool, call):
    found = tool.lookup(call)
    return Resolution("result", found.result) if found.found else Resolution("unknown")


def blank(*args):
    raise NotImplementedError()


def test_reference_answer_passes_every_check() -> None:
    assert m04.check_key_stable(derive_key) == []
    assert m04.check_key_bound(derive_key) == []
    assert m04.check_lookup_before_resend(reconcile) == []
    assert m04.check_no_blind_resend(reconcile) == []
    assert m04.check_one_charge(reconcile, derive_key) == []


def test_minirt_effect_key_passes_the_key_checks() -> None:
    from minirt.idempotency import effect_key

    assert m04.check_key_stable(effect_key) == m04.check_key_bound(effect_key) == []


def test_a_random_key_is_not_stable() -> None:
    assert m04.check_key_stable(uuid_key)[0].startswith("[key-stable]")


def test_a_key_without_the_payload_is_not_bound() -> None:
    assert "another amount" in m04.check_key_bound(key_without_payload)[0]


def test_a_key_from_str_of_the_dict_depends_on_key_order() -> None:
    assert "key order" in m04.check_key_bound(str_key)[0]


def test_a_non_string_key_is_refused() -> None:
    failures = m04.check_key_stable(lambda *a: 42)
    assert failures and "not a str" in failures[0]


def test_resend_without_lookup_fails_lookup_and_retention() -> None:
    assert m04.check_lookup_before_resend(resend_without_lookup)[0].startswith(
        "[lookup-before-resend]")
    assert "charged again" in m04.check_no_blind_resend(resend_without_lookup)[0]


def test_resend_when_not_found_past_retention_fails_only_retention() -> None:
    assert m04.check_lookup_before_resend(not_found_means_resend) == []
    assert m04.check_no_blind_resend(not_found_means_resend)[0].startswith("[no-blind-resend]")


def test_never_resending_fails_lookup_and_the_sweep() -> None:
    assert m04.check_lookup_before_resend(never_resend)
    assert "W2 charge" in m04.check_one_charge(never_resend, derive_key)[0]


def test_a_reconcile_returning_a_bad_kind_is_a_failure_not_a_crash() -> None:
    class Evil:
        kind = "maybe"
        value = None
        reason = ""

    assert m04.check_lookup_before_resend(lambda *a: Evil())


@pytest.mark.parametrize("check", [m04.check_key_stable, m04.check_key_bound])
def test_blank_key_fails(check) -> None:
    assert check(blank)


@pytest.mark.parametrize("check", [m04.check_lookup_before_resend, m04.check_no_blind_resend])
def test_blank_reconcile_fails(check) -> None:
    assert check(blank)


def test_blank_answers_fail_the_sweep() -> None:
    assert m04.check_one_charge(blank, blank)


def test_the_prediction_is_checked_against_a_real_sweep() -> None:
    assert m04.duplicate_windows() == {"W3", "W4"}
    assert m04.check_prediction({"W3", "w4"}) == []
    assert m04.check_prediction({"W2", "W3", "W4"})
    assert "not windows" in m04.check_prediction("W3")[0]
    assert m04.check_prediction(None)


def test_learner_api_lists_only_helpers_that_exist_and_not_the_answer() -> None:
    assert m04.LEARNER_API and all(hasattr(m04, name) for name in m04.LEARNER_API)
    assert not [n for n in m04.LEARNER_API if n.startswith(("check_", "_", "expected"))]
    assert "duplicate_windows" not in m04.LEARNER_API  # it returns the prediction's answer


def test_the_key_property_finds_a_separator_collision_and_a_shallow_digest() -> None:
    def concat(run_id, step, tool, args):
        return f"{run_id}{step}{tool}" + derive_key("r", 1, "t", args)

    failures = m04.check_key_properties(concat)
    assert failures and failures[0].startswith("[key-bound]") and "smallest failing" in failures[0]
    assert m04.check_key_properties(lambda r, s, t, a: derive_key(r, s, t, {
        k: v for k, v in a.items() if not isinstance(v, dict | list)}))


def test_the_retention_property_probes_the_exact_end_of_the_window() -> None:
    from minirt.idempotency import first_sent_at
    from minirt.runtime import Resolution

    def strict(ctx, tool, call):
        found = tool.lookup(call)
        if found.found:
            return Resolution("result", found.result, "found")
        elapsed = ctx.runtime.clock.now() - first_sent_at(ctx, call)
        if tool.retention_for is not None and elapsed > tool.retention_for:
            return Resolution("unknown", reason="past retention")
        return Resolution("redispatch", reason="resend")

    assert m04.check_reconcile_properties(strict, "lookup-before-resend") == []
    failures = m04.check_reconcile_properties(strict, "no-blind-resend", retention_only=True)
    assert failures and "'elapsed_minus_retention': 0.0" in failures[0]
