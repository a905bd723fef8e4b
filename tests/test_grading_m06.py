"""The hidden-test logic of drill 06 grades honestly, without nbgrader (fast).

The reference check passes every attack class, the crash drill and the prediction; a blank
answer, an allow-all and a refuse-all check fail every attack class; each wrong answer kept in
tests/mutants/06-scopes-and-approvals fails the properties its MUST_FAIL names. (The slow
tests/test_drills_honesty.py checks the same with real nbgrader.)
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from minirt import approvals
from minirt.approvals import ApprovalForged, check_receipt
from minirt.canonical import digest
from minirt.faults import boundaries
from minirt_course.grading import m06

MUTANTS = Path(__file__).parent / "mutants" / "06-scopes-and-approvals"
ATTACKS = {"test_forged": m06.check_forged, "test_mismatch": m06.check_mismatch,
           "test_artifact": m06.check_artifact, "test_reused": m06.check_reused,
           "test_expired": m06.check_expired, "test_revoked": m06.check_revoked}


def blank(*args: Any, **kw: Any) -> None:
    raise NotImplementedError()


def allow_all(*args: Any, **kw: Any) -> None:
    return None


def refuse_all(receipt: Any, request: Any, *args: Any, **kw: Any) -> None:
    raise ApprovalForged(request_id=request.request_id, receipt_id="?", reason="no")


def load_mutant(path: Path) -> tuple[Any, list[str]]:
    """The mutant's check_dispatch, defined in the drill's setup namespace."""
    spec = importlib.util.spec_from_file_location(f"m06_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ns: dict[str, Any] = {**vars(approvals), "digest": digest}
    exec(module.ANSWERS["answer_check_dispatch"], ns)  # noqa: S102 - our own fixture file
    return ns["check_dispatch"], list(module.MUST_FAIL)


@pytest.mark.parametrize("cell", sorted(ATTACKS))
def test_reference_check_passes_every_attack_class(cell: str) -> None:
    assert ATTACKS[cell](check_receipt, hidden=True) == []


@pytest.mark.parametrize("fn", [blank, allow_all, refuse_all], ids=lambda f: f.__name__)
@pytest.mark.parametrize("cell", sorted(ATTACKS))
def test_wrong_checks_fail_every_attack_class(cell: str, fn: Any) -> None:
    assert ATTACKS[cell](fn, hidden=False), f"{fn.__name__} passed {cell}"


def test_failure_messages_name_the_property_without_the_answer() -> None:
    msg = m06.check_revoked(allow_all)[0]
    assert msg.startswith("[revocation-at-dispatch]") and "allowed it" in msg
    assert "ApprovalRevoked" not in msg


def test_crash_drill_passes_the_reference_and_fails_blank_and_allow_all() -> None:
    assert m06.check_crash_drill(check_receipt) == []
    assert m06.check_crash_drill(blank)
    assert any("changed the amount" in f for f in m06.check_crash_drill(allow_all))


def test_crash_drill_points_are_real_boundaries() -> None:
    for phase, point in m06.CRASHES:
        assert (point, 1) in boundaries(f"minirt_course.scenarios.m06_approval:{phase}")


def test_prediction_drill_shows_the_committed_intent_is_sent_after_expiry() -> None:
    assert m06._run_prediction_drill() == {"before_intent": "refused", "after_intent": "sent once"}
    assert m06.check_prediction({"before_intent": "refused", "after_intent": "sent once"}) == []
    assert len(m06.check_prediction({"before_intent": "refused",
                                     "after_intent": "refused"})) == 1
    assert m06.check_prediction("refused")[0].startswith("[predict-then-run]")


def test_learner_api_names_no_check_and_no_answer() -> None:
    assert all(hasattr(m06, n) for n in m06.LEARNER_API)
    assert not [n for n in m06.LEARNER_API if n.startswith(("check_", "_")) or "predict" in n
                or n in ("differential", "TWISTS", "check_receipt")]


@pytest.mark.parametrize("prop", sorted(m06.TWISTS))
def test_the_differential_passes_the_reference_and_fails_allow_all(prop: str) -> None:
    assert m06.differential(prop, check_receipt) == []
    failure = m06.differential(prop, allow_all)
    assert failure and failure[0].startswith(f"[{prop}]") and "smallest failing input" in failure[0]


def test_a_check_that_writes_to_used_fails(capsys: Any) -> None:
    def marks_used(receipt: Any, request: Any, current: Any, **kw: Any) -> None:
        check_receipt(receipt, request, current, **kw)
        kw["used"][receipt.receipt_id] = 1
    assert "changed its argument 'used'" in m06.differential("single-use", marks_used)[0]
    assert capsys.readouterr() == ("", "")


def test_there_are_at_least_three_mutants() -> None:
    assert len(list(MUTANTS.glob("*.py"))) >= 3


@pytest.mark.parametrize("path", sorted(MUTANTS.glob("*.py")), ids=lambda p: p.stem)
def test_each_mutant_fails_its_must_fail_properties(path: Path) -> None:
    fn, must_fail = load_mutant(path)
    for cell in must_fail:
        if cell == "test_crash_drill":
            assert m06.check_crash_drill(fn), f"{path.stem} passed the crash drill"
        else:
            assert ATTACKS[cell](fn, hidden=True), f"{path.stem} passed {cell}"
    passed = [c for c, check in ATTACKS.items() if not check(fn, hidden=True)]
    assert len(passed) < len(ATTACKS)
