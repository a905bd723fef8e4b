"""Module 05b: designOutline() is graded by running the design.

The corpus (tests/design_corpus.py) fixes the verdict of 30+ outlines written as learners write
them; the rest checks the runtime variants each choice builds, the trust rules of the grader, and
the drill's helpers.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest
from design_corpus import CORPUS, RIGHT, good

from minirt.faults import FaultPlan, Faults, Outcome, SimulatedCrash
from minirt.world.ledger import Ledger
from minirt_course.grading import DesignGrade, grade_design_outline
from minirt_course.grading import design as g
from minirt_course.scenarios import design_payment as dp

CP, ID, RS = dp.Checkpoint, dp.Idempotency, dp.Resume
RIGHT_DESIGN = dp.Design(CP.INTENT_AND_RESULT, ID.DERIVED_KEY, RS.REPLAY_AND_LOOKUP)


def chosen(grade: DesignGrade) -> tuple[str, str, str] | None:
    d = grade.design
    return None if d is None else (d.checkpoint.value, d.idempotency.value, d.resume.value)


# -- the corpus ---------------------------------------------------------------------------------

def test_the_corpus_has_30_outlines_good_and_bad() -> None:
    verdicts = [e.get("passed") for _, _, e in CORPUS]
    assert len(CORPUS) >= 30 and verdicts.count(True) >= 8 and verdicts.count(False) >= 15
    assert len({name for name, _, _ in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("name,outline,expected", CORPUS, ids=[c[0] for c in CORPUS])
def test_the_grader_agrees_with_the_corpus(name: str, outline, expected: dict) -> None:
    grade = grade_design_outline(outline)
    got = {**grade.properties, "passed": grade.passed, "design": chosen(grade),
           "contradiction": bool(grade.contradictions)}
    wrong = {k: (v, got[k]) for k, v in expected.items() if got[k] != v}
    assert not wrong, f"{name}: (expected, got) {wrong}\n" + "\n".join(grade.feedback)


def test_the_corpus_runs_the_sweep_once_per_distinct_design() -> None:
    g.design_matrix.cache_clear()
    designs = {grade_design_outline(o).design for _, o, _ in CORPUS} - {None}
    assert g.design_matrix.cache_info().misses == len(designs) >= 10


def test_one_outline_grades_in_under_10_s_without_the_cache() -> None:
    g.design_matrix.cache_clear()
    started = time.perf_counter()
    grade_design_outline(good())
    assert time.perf_counter() - started < 10.0


# -- the grade ----------------------------------------------------------------------------------

def test_grading_twice_gives_the_same_grade() -> None:
    first, second = grade_design_outline(good()), grade_design_outline(good())
    assert (first.passed, first.score, first.feedback) == (second.passed, second.score,
                                                          second.feedback)


def test_score_is_the_mean_of_four_properties_in_0_1() -> None:
    for _, outline, _ in CORPUS[:12]:
        grade = grade_design_outline(outline)
        assert grade.score == sum(grade.properties.values()) / 4 and 0 <= grade.score <= 1


def test_the_right_design_is_clean_at_once_and_escalates_past_retention() -> None:
    grade = grade_design_outline(good())
    assert grade.passed and grade.score == 1.0
    assert {c.outcome for c in grade.cells if c.recovery == "at once"} == {"clean"}
    assert grade.windows("escalated", recovery="after 25 h") == {"W2", "W3", "W4"}
    assert len([c for c in grade.cell("W3 charge", "after 25 h").charges if " charge " in c]) == 1


def test_feedback_names_the_window_and_shows_the_ledger() -> None:
    grade = grade_design_outline(good(idempotency="a fresh random UUID for every attempt"))
    line = next(f for f in grade.feedback if f.startswith("[sweep] crash in W3 charge"))
    assert "duplicate effect" in line and "payments ledger: ch_000001 charge 42.00 EUR" in line
    assert "ch_000002 charge 42.00 EUR key rk_" in line


def test_vague_answers_are_told_what_a_concrete_one_names() -> None:
    grade = grade_design_outline({"checkpoint": "save the state", "idempotency": GOODS["key"],
                                  "resumeProtocol": "retry on failure", "failureMode": "x"})
    text = "\n".join(grade.feedback)
    assert "'save the state' says what, not how" in text and "'retry on failure'" in text
    assert "'intent journaled before dispatch, result after'" in text
    assert "'blind retry of unfinished steps'" in text and grade.design is None


GOODS = {"key": good()["idempotency"]}


def test_negations_are_read() -> None:
    assert g.read_field("idempotency", "No idempotency key at all.").choice == "none"
    assert g.read_field("checkpoint", "Without a journal; we keep it in RAM.").choice == "none"
    assert g.read_field("resumeProtocol", "Do not look it up, resend every unfinished call."
                        ).choice == "blind-retry"
    assert g.read_field("idempotency", "Instead of a random key per attempt, a key derived from "
                        "run + step + payload digest").choice == "derived-key"


def test_contradictions_are_reported_as_such() -> None:
    clash = g.contradictions(dp.Design(CP.NONE, ID.DERIVED_KEY, RS.REPLAY_AND_LOOKUP))
    assert clash and "replay without a journal" in clash[0]
    clash = g.contradictions(dp.Design(CP.INTENT_AND_RESULT, ID.NONE, RS.REPLAY_AND_LOOKUP))
    assert clash and "lookup-based resume without any key or client reference" in clash[0]
    assert g.contradictions(RIGHT_DESIGN) == []


def test_a_contradictory_design_never_passes_even_when_its_sweep_is_clean(monkeypatch) -> None:
    design = dp.Design(CP.RESULT_ONLY, ID.DERIVED_KEY, RS.REPLAY_AND_LOOKUP)
    clean = tuple(dp.DesignCell(c.point, c.occurrence, c.recovery, "clean", "", (), ())
                  for c in g.design_matrix(RIGHT_DESIGN))
    monkeypatch.setattr(g, "design_matrix", lambda d: clean if d == design else None)
    grade = grade_design_outline(good(checkpoint="result saved only after the call returns",
                                      failureMode="two writes: extra latency"))
    assert grade.design == design and all(grade.properties.values()) and not grade.passed


# -- trust: nothing the learner returns is trusted ------------------------------------------------

class EvilStr(str):
    def __eq__(self, other):  # pragma: no cover - must never be called
        return True

    __hash__ = str.__hash__

    def lower(self):  # pragma: no cover - must never be called
        return "intent derived key look up"

    def __str__(self):  # pragma: no cover - must never be called
        return "intent"


def test_str_subclasses_are_rebuilt_as_plain_str() -> None:
    vague = {k: EvilStr("save the state") for k in ("checkpoint", "idempotency",
                                                    "resumeProtocol", "failureMode")}
    grade = grade_design_outline(vague)
    assert grade.design is None and not grade.properties["level1"]
    assert all(type(r.text) is str for r in grade.readings.values())


def test_a_dict_subclass_is_read_through_dict_itself() -> None:
    class EvilDict(dict):
        def items(self):  # pragma: no cover - must never be called
            return good().items()

    assert grade_design_outline(EvilDict(checkpoint="save the state")).design is None


@pytest.mark.parametrize("outline,words", [
    ("journal it", "returned 'str'"), (["a", "b"], "returned 'list'"), (None, "'NoneType'")])
def test_an_outline_that_is_not_a_mapping_is_refused_naming_its_type(outline, words) -> None:
    grade = grade_design_outline(outline)
    assert not grade.passed and words in grade.feedback[0]


def test_a_value_of_another_type_is_refused_naming_the_field_and_type() -> None:
    grade = grade_design_outline(good(checkpoint=3.5, idempotency={"mechanism": 1}))
    text = "\n".join(grade.feedback)
    assert "checkpoint is a float, not a str" in text
    assert "idempotency must be a str or a mapping" in text and grade.design is None


def test_the_structured_model_is_accepted_and_a_subclass_is_not() -> None:
    outline = g.DesignOutline(
        checkpoint=g.CheckpointChoice(mechanism="intent-and-result", detail="intent row first"),
        idempotency=g.IdempotencyChoice(mechanism="derived-key", detail="sha256 of run, step, "
                                        "payload"),
        resumeProtocol=g.ResumeChoice(mechanism="replay-and-lookup", detail="ask by key"),
        tradeOff="two fsyncs per call")
    assert chosen(grade_design_outline(outline)) == RIGHT

    class Sneaky(g.DesignOutline):
        pass

    sneaky = Sneaky(**{k: getattr(outline, k) for k in type(outline).model_fields})
    assert grade_design_outline(sneaky).design is None


def test_the_grader_never_calls_what_the_outline_holds() -> None:
    called = []
    grade = grade_design_outline(good(checkpoint=lambda: called.append(1)))
    assert called == [] and "checkpoint is a function" in grade.feedback[0]


# -- the runtime variants -------------------------------------------------------------------------

def crash(design: dp.Design, point: str, workdir: Path, occurrence: int = 1):
    sc = dp.DesignScenario(design=design)
    sc.setup(workdir)
    rt = sc.make_runtime(workdir, faults=FaultPlan(crash_at=point, occurrence=occurrence),
                         clock_offset=0.0, worker_id="w-crash")
    run_id = sc.start(rt)
    with pytest.raises(SimulatedCrash):
        rt.run(run_id)
    kinds = [e.kind for e in rt.store.read(run_id)]
    rt.close()
    return sc, run_id, kinds


def test_result_only_leaves_no_intent_after_a_crash_in_w3(tmp_path: Path) -> None:
    design = dp.Design(CP.RESULT_ONLY, ID.DERIVED_KEY, RS.REPLAY_AND_LOOKUP)
    _, _, kinds = crash(design, "after_provider_commit", tmp_path)
    assert "decision" in kinds and "intent" not in kinds


def test_result_only_writes_intent_and_result_in_one_append(tmp_path: Path) -> None:
    design = dp.Design(CP.RESULT_ONLY, ID.DERIVED_KEY, RS.REPLAY_AND_LOOKUP)
    _, _, kinds = crash(design, "after_result", tmp_path)
    assert kinds[-2:] == ["intent", "tool_result"]


def test_intent_and_result_journals_the_intent_before_the_call(tmp_path: Path) -> None:
    _, _, kinds = crash(RIGHT_DESIGN, "after_intent", tmp_path)
    assert kinds[-1] == "intent"


def test_a_snapshot_loses_the_decision_so_the_model_answers_again(tmp_path: Path) -> None:
    design = dp.Design(CP.SNAPSHOT, ID.DERIVED_KEY, RS.REPLAY_AND_LOOKUP)
    sc, run_id, kinds = crash(design, "after_result", tmp_path)
    assert "decision" not in kinds
    rt = sc.make_runtime(tmp_path, faults=Faults(), clock_offset=3600.0, worker_id="w-2")
    rt.resume(run_id)
    rt.close()
    charges = Ledger(tmp_path / "payments.sqlite").effects("charge")
    assert (tmp_path / "model-asks.txt").read_text() == "2"
    assert [c["params"]["amount_cents"] for c in charges] == [4200, 4250]
    assert charges[0]["effect_key"] != charges[1]["effect_key"]


def test_no_checkpoint_journals_nothing(tmp_path: Path) -> None:
    design = dp.Design(CP.NONE, ID.DERIVED_KEY, RS.BLIND_RETRY)
    _, _, kinds = crash(design, "after_result", tmp_path)
    assert set(kinds) <= {"run_started", "transition"}


def test_a_client_reference_is_searchable_but_not_deduplicated(tmp_path: Path) -> None:
    pay = dp.ReferencePayments(tmp_path / "p.sqlite")
    first = pay.charge_with_reference("ref-1", 4200, "eur", "cus_ada")
    pay.charge_with_reference("ref-1", 4200, "eur", "cus_ada")
    assert len(pay.effects("charge")) == 2
    assert pay.find_by_reference("ref-1")["charge_id"] == first["charge_id"]
    assert pay.find_by_reference("ref-2") is None
    pay.close()


def test_fail_and_compensate_refunds_a_charge_with_a_receipt(tmp_path: Path) -> None:
    cell = dp.run_cell(dp.Design(CP.INTENT_AND_RESULT, ID.DERIVED_KEY, RS.FAIL_AND_COMPENSATE),
                       "after_intent", 2)
    assert cell.outcome == "lost effect" and "refunded" in cell.charges[0]
    assert any(" refund " in c for c in cell.charges)


def test_fail_and_compensate_cannot_refund_a_charge_without_a_receipt() -> None:
    cell = dp.run_cell(dp.Design(CP.INTENT_AND_RESULT, ID.DERIVED_KEY, RS.FAIL_AND_COMPENSATE),
                       "after_provider_commit", 1)
    assert cell.outcome == "wrong result" and "stands" in cell.detail


def test_a_cell_is_deterministic() -> None:
    design = dp.Design(CP.INTENT_AND_RESULT, ID.RANDOM_PER_ATTEMPT, RS.REPLAY_AND_LOOKUP)
    a, b = (dp.run_cell(design, "before_result", 1) for _ in range(2))
    assert (a.outcome, a.detail[:30]) == (b.outcome, b.detail[:30]) == (
        "duplicate effect", "2 charges for one payment (key")


def test_an_unknown_cell_is_refused_by_name_before_anything_runs() -> None:
    with pytest.raises(dp.UnknownCrashCell, match="recovery 'tomorrow'"):
        dp.run_cell(RIGHT_DESIGN, "after_provider_commit", 1, "tomorrow")
    with pytest.raises(dp.UnknownCrashCell):
        dp.run_cell(RIGHT_DESIGN, "after_claim", 1)


def test_escalated_is_accepted_only_past_retention() -> None:
    escalate = dp.Design(CP.INTENT_AND_RESULT, ID.DERIVED_KEY, RS.ESCALATE)
    now = dp.run_cell(escalate, "after_provider_commit", 1)
    late = dp.run_cell(escalate, "after_provider_commit", 1, "after 25 h")
    assert (now.outcome, now.ok) == ("stuck", False) and (late.outcome, late.ok) == (
        "escalated", True)
    assert late.verdict().outcome is Outcome.STUCK and len(late.charges) == 1


# -- the drill's helpers --------------------------------------------------------------------------

def blank():
    raise NotImplementedError()


@pytest.mark.parametrize("check", [g.check_level1, g.check_no_duplicate,
                                   g.check_no_lost_or_stuck, g.check_failure_mode])
def test_a_blank_answer_fails_every_check_with_a_message(check) -> None:
    failures = check(blank)
    assert failures and "raised NotImplementedError" in failures[0]


@pytest.mark.parametrize("check", [g.check_level1, g.check_no_duplicate,
                                   g.check_no_lost_or_stuck, g.check_failure_mode])
def test_the_reference_answer_passes_every_check(check) -> None:
    assert check(good) == []


def test_an_outline_that_changes_between_calls_fails() -> None:
    answers = iter([good(), good(resumeProtocol="retry every unfinished call")])
    assert "different design" in g.check_no_duplicate(lambda: next(answers))[0]


def test_the_prediction_is_checked_against_the_sweep() -> None:
    assert g.duplicate_windows() == {"W3", "W4", "W5"}
    assert g.check_prediction({"w3", "W4", "W5"}) == []
    assert "disagrees in 1 window" in g.check_prediction({"W3", "W4"})[0]
    assert "not windows" in g.check_prediction({"W3", "W9"})[0]
    assert g.check_prediction("W3") and g.check_prediction(None) and g.check_prediction({3})


def test_the_vocabulary_table_lists_every_choice() -> None:
    table = g.vocabulary_table()
    assert len(table.rows) == sum(len(t) for t in g.VOCABULARY.values()) == 14
    assert json.dumps(table.rows)  # plain data


def test_sweep_cells_feed_the_module_04_pictures() -> None:
    from minirt.viz.idempotency import crash_windows, sweep_table

    grade = grade_design_outline(good(idempotency="a fresh random UUID for every attempt"))
    assert "duplicate effect" in str(sweep_table({"design": grade.sweep_cells()}))
    assert "W3" in crash_windows(grade.sweep_cells()).source


# -- issue 17: the reader reads sentences; corpora written as learners write ----------------------

from design_corpus_attacks12 import ATTACKS12  # noqa: E402
from design_corpus_heldout import HELDOUT  # noqa: E402
from design_corpus_heldout2 import HELDOUT2  # noqa: E402
from design_corpus_heldout3 import HELDOUT3  # noqa: E402
from design_corpus_heldout4 import HELDOUT4  # noqa: E402
from design_corpus_heldout5 import HELDOUT5  # noqa: E402
from design_corpus_heldout6 import HELDOUT6  # noqa: E402
from design_corpus_heldout7 import HELDOUT7  # noqa: E402
from design_corpus_heldout8 import HELDOUT8  # noqa: E402
from design_corpus_heldout9 import HELDOUT9  # noqa: E402
from design_corpus_heldout10 import HELDOUT10  # noqa: E402
from design_corpus_heldout11b import HELDOUT11B  # noqa: E402
from design_corpus_heldout11c import HELDOUT11C  # noqa: E402
from design_corpus_heldout12a import HELDOUT12A  # noqa: E402
from design_corpus_heldout12b import HELDOUT12B  # noqa: E402
from design_corpus_heldout13 import HELDOUT13  # noqa: E402
from design_corpus_heldout14 import HELDOUT14  # noqa: E402
from design_corpus_heldout15 import HELDOUT15  # noqa: E402
from design_corpus_heldout16 import HELDOUT16  # noqa: E402
from design_corpus_heldout17 import HELDOUT17  # noqa: E402
from design_corpus_heldout18 import HELDOUT18  # noqa: E402
from design_corpus_heldout19 import HELDOUT19  # noqa: E402
from design_corpus_heldout20 import HELDOUT20  # noqa: E402
from design_corpus_heldout21 import HELDOUT21  # noqa: E402
from design_corpus_tuning import TUNING  # noqa: E402


def _fold(name: str) -> int:
    """HELDOUT6 + HELDOUT7 in five folds by name hash (benchmarks/design_reader_folds.py)."""
    return int(hashlib.sha256(name.encode()).hexdigest(), 16) % 5


#: The fold of HELDOUT6 + HELDOUT7 kept out of the reader's tuning on those sets until it was
#: measured once (after the tuning on the other four folds and the t13-t20 batches).
HELD_FOLD = 3
HELD_OUT = [e for e in HELDOUT6 + HELDOUT7 if _fold(e[0]) == HELD_FOLD]

#: The reader was tuned on these, each held-out set after its one untuned measurement: HELDOUT6
#: and HELDOUT7 on the four folds other than HELD_FOLD first, then HELD_FOLD after its one
#: measurement (its figure stays in UNTUNED_FIGURES as measured); HELDOUT8 after its one
#: untuned measurement (29/50, 46/50), its misses fixed by class (stop s4, reader2); HELDOUT9
#: after its one untuned measurement (24/50, 46/50), fixed by class at stops s6 and s7 (the last
#: class: a same-key resend said to depend on the intent's age, a runtime variant of its own);
#: HELDOUT11 after its one untuned measurement (22/34, 30/34), its 16 disagreements fixed by
#: class at stop s11 (variants t22-* in design_corpus_tuning.py): 34/34 both ways; HELDOUT12B
#: after its one untuned measurement (13/18, 16/18), its 7 disagreements fixed by class at
#: stop s12 (variants t23-*); HELDOUT13 after its one untuned measurement (10/21, 19/21), its
#: disagreements fixed by class at stop s12 (variants t24-*); ATTACKS12, a white-box attack's
#: 21 outlines the reader got wrong, fixed by class at stop s12; HELDOUT14 after its one untuned
#: measurement (15/21, 21/21), fixed by class at stop s12 (variants t25-*); HELDOUT15 after its
#: one untuned measurement (15/21, 19/21), its 8 disagreements fixed by class at stop s13
#: (variants t26-*, and a stranger's attack on the result, t26-attack-*): 21/21 both ways;
#: HELDOUT16 and HELDOUT17 after their one untuned measurement (14/21, 16/21 and 12/21, 18/21),
#: their 25 disagreements fixed by class at stop s13 (variants t27-*, attacks t27-attack-*);
#: HELDOUT18 and HELDOUT19 after their one untuned measurement (15/21, 21/21 and 18/21, 18/21),
#: their 13 disagreements (3 bad outlines passing) fixed by class at stop s13 (variants t28-*,
#: a stranger's attack on the result, t28-attack-*): 42/42 each.
FITTED = (TUNING + HELDOUT + HELDOUT2 + HELDOUT3 + HELDOUT4 + HELDOUT5 + HELDOUT6 + HELDOUT7
          + HELDOUT8 + HELDOUT9 + HELDOUT11B + HELDOUT11C + HELDOUT12B + HELDOUT13 + ATTACKS12
          + HELDOUT14 + HELDOUT15 + HELDOUT16 + HELDOUT17 + HELDOUT18 + HELDOUT19)

#: Each held-out set's ONE untuned measurement (good passed, good, bad failed, bad), taken before
#: the reader was fixed for what it showed. HELDOUT6 (written blind, measured by the coordinator)
#: takes the untuned slot: add its file and its measured figure here and to UNTUNED below.
UNTUNED_FIGURES = {"HELDOUT4": (10, 12, 13, 13), "HELDOUT5": (10, 12, 11, 12),
                   "HELDOUT6": (23, 30, 23, 30), "HELDOUT7": (27, 40, 33, 40),
                   # fold 3 of HELDOUT6+7, measured once after the tuning on folds 0,1,2,4 (at
                   # d6a29f4; the reader before that tuning, a14dc0a, scored 7/11 and 8/13)
                   "FOLD3": (7, 11, 9, 13),
                   # written blind (the writer read neither the reader, the drill's tests nor any
                   # earlier corpus), measured once by the coordinator on the reader of 7d2d917
                   # (a14dc0a's reader scored 25/50 and 41/50 on it); not tuned on since
                   "HELDOUT8": (29, 50, 46, 50),
                   # written blind like HELDOUT8 (stop s5), measured once by the coordinator on
                   # the reader of b2da476 with /work/briefs/s5/measure9.py; not tuned on
                   "HELDOUT9": (24, 50, 46, 50),
                   # written blind at stop s7 (30 of the 100 asked for: the writer's deadline
                   # cut it), measured once by the coordinator on the reader of f918dae
                   "HELDOUT10": (14, 15, 14, 15),
                   # written blind at stop s8 by two writers (68 of the 102 asked for: a third
                   # writer started after its deadline), measured once by the coordinator on the
                   # reader of 7c53922 with /work/briefs/s8/measure11.py; tuned on since
                   # (stop s11: fitted, 34/34 and 34/34); this floor stays its one measurement
                   "HELDOUT11": (22, 34, 30, 34),
                   # written blind at stop s10 (36 of the 72 asked for: the second writer was
                   # lost to an API outage), measured once by the coordinator on the reader of
                   # 96439f8 (unchanged since 7c53922); not tuned on
                   "HELDOUT12A": (8, 18, 18, 18),
                   # written blind at stop s12 (one writer, 36 outlines, who read the lessons
                   # and the sweep, never the grader), measured once by the coordinator on the
                   # reader of 01b7442 with /work/briefs/s12/measure12b.py; fitted since (stop
                   # s12: its 7 disagreements fixed by class, variants t23-*); this floor stays
                   "HELDOUT12B": (13, 18, 16, 18),
                   # written blind at stop s12 (one writer, 42 outlines, seven voices), measured
                   # once by the coordinator on the reader of 076fa47 (after HELDOUT12B's fixes)
                   # with /work/briefs/s12/measure13.py; fitted since (stop s12, variants t24-*)
                   "HELDOUT13": (10, 21, 19, 21),
                   # written blind at stop s12 (one writer, 42 outlines, seven voices), measured
                   # once by the coordinator on the reader of 4283bf8 (after HELDOUT13's fixes),
                   # and again, counts only, on 2d87209 (after ATTACKS12's fixes): the same
                   # 15/21 and 21/21; fitted since (stop s12, variants t25-*)
                   "HELDOUT14": (15, 21, 21, 21),
                   # written blind at stop s12 (one writer, 42 outlines, seven voices), measured
                   # once by the coordinator on the final reader of stop s12 (fadc536) with
                   # /work/briefs/s12/measure15.py; fitted since (stop s13: its 8
                   # disagreements fixed by class, variants t26-*); this floor stays
                   "HELDOUT15": (15, 21, 19, 21),
                   # written blind at stop s13 (two writers, 42 outlines each, seven voices
                   # each, none of them an earlier set's), measured once by the coordinator on
                   # the reader of ea89349 (stop s12's final) with /work/briefs/s13/measure16.py
                   # and measure17.py, before anything was tuned at s13; tuned on since (stop
                   # s13: fitted, 42/42 each, variants t27-*); these floors stay
                   "HELDOUT16": (14, 21, 16, 21), "HELDOUT17": (12, 21, 18, 21),
                   # written blind at stop s13 (two more writers, 42 outlines each, fourteen
                   # voices new to the corpora), measured once by the coordinator on the reader
                   # of 6a10838 (after HELDOUT15/16/17's fixes) with measure18.py, measure19.py
                   "HELDOUT18": (15, 21, 21, 21), "HELDOUT19": (18, 21, 18, 21),
                   # written blind at stop s13 (two more writers, fourteen more voices),
                   # measured once by the coordinator on the final reader of stop s13 (b7ba9ad,
                   # after HELDOUT18/19's fixes) with measure20.py, measure21.py; not tuned on
                   "HELDOUT20": (20, 21, 19, 21), "HELDOUT21": (18, 21, 19, 21)}
#: The held-out sets not yet used to tune the reader: HELDOUT6 and HELDOUT7, each written blind
#: (HELDOUT7 by a writer who had read neither the reader nor any earlier corpus); HELDOUT7's
#: figure is its one measurement, by benchmarks/design_reader_nlp.py before anything was tuned.
UNTUNED: list = HELDOUT6
UNTUNED7: list = HELDOUT7
#: HELDOUT8 (100 outlines, 50 good, 50 bad): tuned on since its one measurement; its floor
#: stays (UNTUNED_FIGURES).
UNTUNED8: list = HELDOUT8
#: HELDOUT9 (100 outlines, 50 good, 50 bad, written blind at stop s5): fitted since (FITTED);
#: its one untuned measurement stays its floor.
UNTUNED9: list = HELDOUT9
#: HELDOUT10 (30 outlines, 15 good, 15 bad, written blind at stop s7): one fix since its one
#: measurement (a safety claimed of the subject, "no run ever needs a human").
UNTUNED10: list = HELDOUT10
#: HELDOUT11 (68 outlines, 34 good, 34 bad, written blind at stop s8): tuned on at stop s11
#: (fitted, FITTED); its one untuned measurement stays its floor.
UNTUNED11: list = HELDOUT11B + HELDOUT11C
#: HELDOUT12A (36 outlines, 18 good, 18 bad, written blind at stop s10): not tuned on; its one
#: measurement is its floor.
UNTUNED12A: list = HELDOUT12A
#: HELDOUT12B (36 outlines, 18 good, 18 bad, written blind at stop s12): fitted at stop s12
#: (FITTED); its one untuned measurement stays its floor.
UNTUNED12B: list = HELDOUT12B
#: HELDOUT13 (42 outlines, 21 good, 21 bad, written blind at stop s12): fitted at stop s12
#: (FITTED); its one untuned measurement stays its floor.
UNTUNED13: list = HELDOUT13
#: HELDOUT14 (42 outlines, 21 good, 21 bad, written blind at stop s12): fitted at stop s12
#: (FITTED); its one untuned measurement stays its floor.
UNTUNED14: list = HELDOUT14
#: HELDOUT15 (42 outlines, 21 good, 21 bad, written blind at stop s12): fitted at stop s13
#: (FITTED); its one untuned measurement, on the reader of fadc536, stays its floor.
UNTUNED15: list = HELDOUT15
#: HELDOUT16 and HELDOUT17 (42 outlines each, 21 good, 21 bad, written blind at stop s13): tuned
#: on at stop s13 (fitted, FITTED); their one measurement, on the reader of ea89349, stays their
#: floor.
UNTUNED16: list = HELDOUT16
UNTUNED17: list = HELDOUT17
#: HELDOUT18 and HELDOUT19 (42 outlines each, 21 good, 21 bad, written blind at stop s13): tuned
#: on at stop s13 (fitted, FITTED); their one measurement, on the reader of 6a10838, stays their
#: floor.
UNTUNED18: list = HELDOUT18
UNTUNED19: list = HELDOUT19
#: HELDOUT20 and HELDOUT21 (42 outlines each, 21 good, 21 bad, written blind at stop s13): not
#: tuned on; their one measurement, on the reader of b7ba9ad, is their floor.
UNTUNED20: list = HELDOUT20
UNTUNED21: list = HELDOUT21


def _agrees(grade: DesignGrade, expected: dict) -> bool:
    named = any("contradict" in line for line in grade.feedback)
    return grade.passed == expected["passed"] and (not expected.get("contradiction") or named)


def test_the_corpora_hold_at_least_150_outlines_with_verdict_and_reason() -> None:
    entries = (TUNING + HELDOUT + HELDOUT2 + HELDOUT3 + HELDOUT4 + HELDOUT5 + UNTUNED + UNTUNED7
               + UNTUNED8 + UNTUNED9 + UNTUNED10 + UNTUNED11 + UNTUNED12A + UNTUNED12B
               + UNTUNED13 + UNTUNED14 + UNTUNED15 + UNTUNED16 + UNTUNED17 + UNTUNED18
               + UNTUNED19 + UNTUNED20 + UNTUNED21)
    assert len(entries) + len(CORPUS) >= 150
    names = [n for n, _, _ in entries] + [n for n, _, _ in CORPUS]
    assert len(set(names)) == len(names)
    assert all({"passed", "why", "voice"} <= set(e) for _, _, e in entries)
    voices = {e["voice"] for _, _, e in entries}
    assert {"terse", "verbose", "non-native", "outbox", "event-log", "queue", "stuffed",
            "contradicting", "content-free"} <= voices


@pytest.mark.parametrize("name,outline,expected", FITTED, ids=[c[0] for c in FITTED])
def test_the_reader_agrees_with_the_fitted_corpora(name: str, outline, expected: dict) -> None:
    grade = grade_design_outline(outline)
    assert _agrees(grade, expected), (f"{name}: expected passed={expected['passed']} "
                                      f"({expected['why']})\n" + "\n".join(grade.feedback))


def test_agreement_on_the_untuned_held_out_set_does_not_regress() -> None:
    """Each held-out set, once fitted, agrees at least as well as its untuned measurement.

    HELDOUT5 was measured once untuned: good outlines passed 10/12 (83%), bad ones failed 11/12
    (92%); issue 17 asks for 95% both ways on unseen wording. It is now fitted (its misses were
    fixed by class, with variants in design_corpus_tuning.py). The untuned slot is for HELDOUT6:
    put it in UNTUNED and its figure in UNTUNED_FIGURES, and this keeps that floor too."""
    sets = {"HELDOUT4": HELDOUT4, "HELDOUT5": HELDOUT5, "HELDOUT6": UNTUNED,
            "HELDOUT7": UNTUNED7, "FOLD3": HELD_OUT, "HELDOUT8": UNTUNED8,
            "HELDOUT9": UNTUNED9, "HELDOUT10": UNTUNED10, "HELDOUT11": UNTUNED11,
            "HELDOUT12A": UNTUNED12A, "HELDOUT12B": UNTUNED12B, "HELDOUT13": UNTUNED13,
            "HELDOUT14": UNTUNED14, "HELDOUT15": UNTUNED15,
            "HELDOUT16": UNTUNED16, "HELDOUT17": UNTUNED17,
            "HELDOUT18": UNTUNED18, "HELDOUT19": UNTUNED19,
            "HELDOUT20": UNTUNED20, "HELDOUT21": UNTUNED21}
    for name, entries in sets.items():
        good_pass = sum(grade_design_outline(o).passed for _, o, e in entries if e["passed"])
        bad_fail = sum(not grade_design_outline(o).passed for _, o, e in entries
                       if not e["passed"])
        floor = UNTUNED_FIGURES.get(name)
        assert floor is not None, f"{name}: record its untuned figure in UNTUNED_FIGURES"
        assert good_pass >= floor[0] and bad_fail >= floor[2], (name, good_pass, bad_fail)


#: Bad outlines in a stuffed voice that describe one coherent design in jargon, wrong by the
#: sweep rather than self-contradicting (the feedback names the sweep's finding instead).
COHERENT_BUT_WRONG = {"h13-bad-stuffed-escalate-all", "h14-bad-stuffed-saga",
                      # HELDOUT17 (stop s13): a blind redelivery and an outbox with no key,
                      # each one design under the jargon; their writer's "why" is the sweep's
                      "h17-bad-keywords-exactly-once-blind", "h17-bad-keywords-outbox-no-key"}
#: The voices the corpora's writers used for keyword-stuffed and self-contradicting outlines.
STUFFED_OR_CONTRADICTING = ("stuffed", "contradicting", "keyword-stuffed", "self-contradicting")


def test_a_coherent_but_wrong_jargon_outline_fails_on_the_sweep() -> None:
    for name, outline, _ in (e for e in FITTED if e[0] in COHERENT_BUT_WRONG):
        grade = grade_design_outline(outline)
        assert not grade.passed and any(x.startswith("[sweep]") for x in grade.feedback), name


def test_every_stuffed_or_self_contradicting_outline_fails_naming_the_contradiction() -> None:
    """On the fitted corpora (HELDOUT5 included since its untuned measurement). A good outline
    in those voices (HELDOUT12B: jargon-heavy, or one that names wrong options to reject them,
    but one consistent safe design) is not one of them."""
    entries = [e for e in FITTED if e[2]["voice"] in STUFFED_OR_CONTRADICTING
               and not e[2]["passed"] and e[0] not in COHERENT_BUT_WRONG]
    assert len(entries) >= 12
    for name, outline, _ in entries:
        grade = grade_design_outline(outline)
        assert not grade.passed and grade.contradictions, name
        assert any("[contradiction]" in line for line in grade.feedback), name


def test_a_qualifier_that_undoes_a_mechanism_is_named() -> None:
    grade = grade_design_outline(good(checkpoint="We write the intent to the journal, but only "
                                                 "after the provider has answered."))
    assert chosen(grade)[0] == "result-only" and not grade.passed
    assert any("only after" in c and "undoes" in c for c in grade.contradictions)
    key = grade_design_outline(good(idempotency="Derived from run and step, plus a fresh random "
                                                "suffix on every retry."))
    assert chosen(key)[1] == "random-per-attempt"


def test_negation_scope_ends_with_its_noun_phrase() -> None:
    grade = grade_design_outline(good(resumeProtocol="Rows with no reply are reconciled with the "
                                                     "provider by key before any resend."))
    assert chosen(grade)[2] == "replay-and-lookup"
    blind = grade_design_outline(good(resumeProtocol="Resend what has no result; nobody asks "
                                                     "the provider."))
    assert chosen(blind)[2] == "blind-retry"


def test_a_label_is_not_a_design_and_the_reader_asks_for_what_is_missing() -> None:
    grade = grade_design_outline(good(resumeProtocol="lookup"))
    assert grade.design is None and not grade.passed
    assert any("what a resumed run DOES" in line for line in grade.feedback)


def test_a_same_key_resend_within_retention_escalating_past_it_is_its_own_design() -> None:
    within = ("For an intent with no result we resend with the same key while the intent is "
              "under 24 h old; past that we do not resend and open a ticket for an operator.")
    grade = grade_design_outline(good(resumeProtocol=within))
    assert chosen(grade)[2] == "retry-within-retention" and grade.passed, grade.feedback
    assert {c.outcome for c in grade.cells if c.recovery == "after 25 h"} >= {"escalated"}
    blind = grade_design_outline(good(resumeProtocol="For an intent with no result we resend "
                                                     "with the same key; the provider dedups "
                                                     "within 24 h."))
    assert chosen(blind)[2] == "blind-retry" and not blind.passed


def test_any_true_cost_passes_and_a_claimed_safety_does_not() -> None:
    assert grade_design_outline(good(failureMode="One more synchronous write per call.")).passed
    assert not grade_design_outline(good(failureMode="None: this design is perfectly safe.")
                                    ).passed
    for denial in ("None: every crash recovers on its own and no run ever needs a human.",
                   "Not a single payment ever ends up with an operator."):
        grade = grade_design_outline(good(failureMode=denial))
        assert not grade.passed and any("no run is left for a human" in f
                                        for f in grade.feedback), denial


def test_grading_one_outline_takes_under_a_second_once_its_design_ran() -> None:
    grade_design_outline(good())
    for _, outline, _ in HELDOUT5:
        grade_design_outline(outline)  # each design runs its sweep once
    started = time.perf_counter()
    for _, outline, _ in HELDOUT5:
        grade_design_outline(outline)
    per = (time.perf_counter() - started) / len(HELDOUT5)
    assert per < 1.0, per


def test_check_passed_names_the_contradiction() -> None:
    stuffed = HELDOUT[[n for n, _, _ in HELDOUT].index("h-bad-stuffed-1")][1]
    failures = g.check_passed(lambda: stuffed)
    assert failures and failures[0].startswith("[design] your outline contradicts itself")
    assert g.check_passed(lambda: good()) == []


def test_learner_api_gives_no_prediction_and_no_checks() -> None:
    assert all(hasattr(g, n) for n in g.LEARNER_API)
    assert not [n for n in g.LEARNER_API if n.startswith(("check_", "_"))
                or n in ("grade_design_outline", "duplicate_windows", "design_matrix")]
    withheld = g.learner_grade(g.PREDICT_OUTLINE)
    assert withheld.cells == () and not any(f.startswith("[failure-mode]") or "duplicate effect"
                                            in f for f in withheld.feedback)
    assert g.learner_grade(good()).cells == grade_design_outline(good()).cells


def test_for_review_shows_the_free_text_for_manual_grading() -> None:
    text = g.for_review(good())
    assert good()["resumeProtocol"] in text and good()["failureMode"] in text
    assert "for review" in text and g.for_review(42).count("(missing)") == 4


def test_a_field_or_failure_mode_that_denies_its_own_mechanism_is_a_contradiction() -> None:
    grade = grade_design_outline(good(checkpoint="We journal every intent before the call. We "
                                                 "keep no database, though."))
    assert not grade.passed and grade.contradictions
    resume = g.read_field("resumeProtocol", "Reconcile open intents by key. The provider is "
                                            "never contacted on resume.")
    assert resume.choice is None and resume.problem.startswith("[contradiction]")
    denied = grade_design_outline(good(failureMode="Because no intent is ever recorded, a "
                                                   "restart cannot tell what was paid."))
    assert not denied.passed and any("no intent is ever recorded" in c
                                     for c in denied.contradictions)


def test_a_double_negation_and_a_described_crash_are_not_denials() -> None:
    assert g.read_field("resumeProtocol", "Never resend without asking the provider about the "
                                          "key first.").choice == "replay-and-lookup"
    grade = grade_design_outline(good(failureMode="A crash before the intent is written: nothing "
                                                  "is written yet; the cost is one extra write."))
    assert grade.passed, grade.feedback


def test_a_wish_or_a_rejected_mechanism_is_not_the_design() -> None:
    assert g.read_field("checkpoint", "Ideally we would journal an intent before the call, but "
                                      "for now we only journal the result.").choice == "result-only"
    assert g.read_field("resumeProtocol", "Open intents are resent; checking with the provider "
                                          "would be too slow.").choice == "blind-retry"
    assert g.read_field("resumeProtocol", "We would look up the key, but in this version we just "
                                          "resend.").choice == "blind-retry"


def test_one_letter_misspellings_are_mended_and_real_words_are_not() -> None:
    assert g.normalise("intnet writen to the jounral befor the call") == (
        "intent written to the journal before the call")
    assert g.normalise("the key does not change; we never invent one") == (
        "the key does not change; we never invent one")
    assert g.read_field("checkpoint", "Intent journalled before the call, result after."
                        ).choice == "intent-and-result"


# -- the classes HELDOUT6/7's misses showed (issue 17, stop s4) ---------------------------------

@pytest.mark.parametrize("field,text", [
    ("checkpoint", "Write-ahead log, intent journal, outbox, event sourcing, fsync, snapshot."),
    ("idempotency", "Idempotency is guaranteed through deterministic, collision-resistant, "
                    "retry-stable keys aligned with exactly-once semantics."),
    ("resumeProtocol", "@reconcile @lookup @retry(same_key=True) @escalate"),
    ("checkpoint", "@durable @wal def charge(): ...  # journaled"),
])
def test_a_list_of_mechanism_words_is_stuffing_and_named(field: str, text: str) -> None:
    reading = g.read_field(field, text)
    assert reading.choice is None and reading.problem.startswith("[contradiction]")
    assert "decorators" in reading.problem or "without a predicate" in reading.problem
    grade = grade_design_outline(good(**{field: text}))
    assert not grade.passed and grade.contradictions


@pytest.mark.parametrize("field,text", [
    ("resumeProtocol", "Replay; reconcile open intents via provider lookup."),
    ("resumeProtocol", "Mark the run failed and refund the charge (saga compensation)."),
    ("idempotency", "Derived key (run id, step, args digest), unchanged across retries."),
    ("checkpoint", "intent -> fsync -> POST /charges -> result -> fsync"),
])
def test_a_terse_design_with_a_predicate_is_not_stuffing(field: str, text: str) -> None:
    assert g.read_field(field, text).choice is not None


def test_mechanisms_done_in_code_are_read() -> None:
    assert g.read_field("checkpoint", "put(run, step, 'sending', token); fsync; call; put(run, "
                                      "step, 'sent', receipt)").choice == "intent-and-result"
    assert g.read_field("idempotency", "k = hashlib.sha256(f'{run_id}:charge'.encode())"
                        ).choice == "derived-key"
    assert g.read_field("resumeProtocol", "c = pay.search(reference=row.run_id); save(c) if c "
                                          "else pay.charge(row.amount, key=row.token)"
                        ).choice == "replay-and-lookup"
    assert g.read_field("idempotency", "key = str(hash((run_id, step))), the same on each retry"
                        ).choice == "random-per-attempt"  # salted per process


def test_a_qualifier_is_read_in_its_own_clause_and_sentence() -> None:
    ack = g.read_field("checkpoint", "Before publishing we persist a 'charging' record; the worker"
                                     " acks only after it has written the result.")
    assert ack.choice == "intent-and-result" and not ack.notes
    trace = g.read_field("idempotency", "sha256 of run and step. The trace id is not the key, "
                                        "because the trace id is new per attempt.")
    assert trace.choice == "derived-key" and not trace.notes
    salt = g.read_field("idempotency", "Derived from run and step, plus a random nonce.")
    assert salt.choice == "random-per-attempt" and salt.notes


def test_a_claim_in_another_field_that_undoes_the_design_is_a_contradiction() -> None:
    resume = grade_design_outline(good(resumeProtocol="Because nothing is written until the "
                                                      "charge returns, it sends it again."))
    assert not resume.passed and any("resume protocol says" in c for c in resume.contradictions)
    failure = grade_design_outline(good(failureMode="On restart the charge is re-sent straight "
                                                    "away; the cost is one extra request."))
    assert not failure.passed and any("failure mode says" in c for c in failure.contradictions)


def test_a_timeless_dedup_claim_is_refuted_by_the_late_recoveries() -> None:
    grade = grade_design_outline(good(failureMode="Even days later the provider still "
                                                  "recognises the key; the cost is one write."))
    assert not grade.passed and not grade.properties["failure_consistent"]
    assert any("24 h key retention" in line for line in grade.feedback)


def test_a_passing_outcome_is_a_cost_not_a_claimed_failure() -> None:
    grade = grade_design_outline(good(failureMode="A customer can briefly see a charge for a "
                                                  "room never booked, and refunds take days."))
    assert grade.passed, grade.feedback


# -- the classes HELDOUT8's misses showed (issue 17, stop s4, reader2); wording not HELDOUT8's --

@pytest.mark.parametrize("text", [
    "token = workflow_id + ':pay', kept in the row",
    "k = hmac(secret, rid + '/book') on the first attempt; retries re-dispatch carry the same k",
    "Every replica computes the same value from the order's run id.",
    "The id is hashed from run and operation; the same run always yields the same id.",
])
def test_a_key_written_as_an_expression_of_the_run_is_read(text: str) -> None:
    assert g.read_field("idempotency", text).choice in g.KEYS, text


@pytest.mark.parametrize("text,undo", [
    ("key = run_id + str(os.getpid())", "worker"),
    ("key = workflowId + ctx.attempt", "attempt number"),
    ("The key is the run id plus the minute of the moment of the send.", "time of the call"),
    ("sha256(run + digest(price)); on a retry we load a new price and recompute it", "changed"),
])
def test_a_key_that_changes_between_attempts_in_other_words_is_read(text: str, undo: str
                                                                   ) -> None:
    reading = g.read_field("idempotency", text)
    assert reading.choice == "random-per-attempt", (text, reading)
    assert undo in g.qualifier("idempotency", text)[2]


@pytest.mark.parametrize("text", [
    "ledger.insert({'op': 'pay', 'state': 'open'})\nreceipt = psp.charge(amount, key)",
    "UPDATE ops SET state='open'; COMMIT; then, and only then, we charge the card",
    "A relay picks up committed rows and calls the provider for each one.",
])
def test_the_write_then_call_order_in_code_or_a_relay_is_an_intent(text: str) -> None:
    assert g.read_field("checkpoint", text).choice == "intent-and-result", text


@pytest.mark.parametrize("text", [
    "An intent row goes in before the call. The only write is the response, after it returns.",
    "The pending row precedes the call: we call the provider, then insert the pending row.",
])
def test_a_checkpoint_that_says_the_write_comes_after_the_call_is_a_contradiction(text: str
                                                                                 ) -> None:
    reading = g.read_field("checkpoint", text)
    assert reading.choice == "result-only" and reading.notes, reading


def test_an_undoer_that_is_rejected_or_contrasted_does_not_undo() -> None:
    for text in ("sha256 of run and step. We thought about the request id but it changes per "
                 "retry, so no.", "Derived from run and step, stable on every retry, unlike "
                 "the retry count.", "| part | in key |\n| run id | yes |\n| hostname | no |\nDerived from the "
                 "yes rows, reused."):
        assert g.read_field("idempotency", text).choice in g.KEYS, text


def test_a_conditional_failure_mitigated_by_escalation_is_not_claimed() -> None:
    grade = grade_design_outline(good(failureMode="If a restart comes after two days, the "
                                                  "provider has dropped the key, so a resend "
                                                  "can bill twice; we hand those to support."))
    assert grade.passed, grade.feedback


def test_a_failure_mode_that_denies_a_stored_key_or_a_never_resend_is_a_contradiction() -> None:
    stored = grade_design_outline(good(
        idempotency="Derived from run id and step and saved in the intent row.",
        failureMode="We never persist the key, so a changed step name after a deploy breaks it."))
    assert not stored.passed and any("key is stored" in c for c in stored.contradictions)
    never = grade_design_outline(good(
        resumeProtocol="Open intents: look up the key at the provider; past 24 h we never "
                       "resend and page an operator.",
        failureMode="After 24 h the worker simply resends it with the same key; the cost is a "
                    "lookup."))
    assert not never.passed and any("resume protocol says" in c for c in never.contradictions)


# -- a mechanism one field names and another field denies (issue 17, stop s8, reader11) ---------
# HELDOUT9's last three unnamed contradictions showed the class: a lookup said not to exist, a
# crash after the call left said to find nothing written, a write said to wait for the reply.
# These outlines are in other words than HELDOUT9's; before the fix none of the eight was named.

@pytest.mark.parametrize("change,denied", [
    ({"failureMode": "The PSP gives no means of querying a past payment, so after a crash we "
                     "just resubmit and hope; the cost is an extra write."}, "no means of quer"),
    ({"idempotency": "The key is sha256 of run id and step, the same on every retry; sadly "
                     "there is no way to look a charge up by it."}, "no way to look"),
    ({"failureMode": "A crash after the provider has captured the payment, with the reply "
                     "lost: nothing for that charge was recorded yet, so the restart pays "
                     "again."}, "nothing for that charge was recorded"),
    ({"resumeProtocol": "Unfinished steps are looked up at the provider by key; since the "
                        "worker commits its row only once the provider has replied, a missing "
                        "row means it was never sent, and then we send it."}, "only once"),
    ({"idempotency": "The key comes from the run id and the step and never changes; we never "
                     "write anything down ourselves, the provider keeps it."},
     "never write anything"),
    ({"failureMode": "The key never leaves our own database, so in W3 the provider cannot spot "
                     "the resend and charges twice."}, "never leaves our own database"),
    ({"resumeProtocol": "Open intents are looked up at the provider; the key itself is never "
                        "handed to the provider, we keep it for our own records."},
     "never handed to the provider"),
    ({"checkpoint": "The intent row, with the key, is committed before the call and the result "
                    "after; the key is not passed along to the PSP."}, "not passed along"),
])
def test_a_field_that_denies_what_another_field_asserts_is_named(change: dict, denied: str
                                                                ) -> None:
    grade = grade_design_outline(good(**change))
    assert not grade.passed
    named = [line for line in grade.feedback if "contradict" in line]
    assert named and any(denied in line for line in named), grade.feedback


@pytest.mark.parametrize("change", [
    {"failureMode": "A crash in W1, before the intent is written: nothing about the call has "
                    "been written yet, so the step just runs again; the cost is an extra write "
                    "per call."},
    {"resumeProtocol": "For an intent with no result, ask the provider by its key: a found "
                       "charge is recorded; if the provider has no record, resend with the same "
                       "key; past 24 h never resend, escalate to an operator."},
    {"failureMode": "After a crash in W3 the provider has charged and our reply is lost, but "
                    "the intent is never lost: it was committed before the call, so the lookup "
                    "finds the charge. The cost is one lookup per unfinished call."},
    {"idempotency": "Derived from run id and step, never random and never regenerated, so "
                    "every retry sends the same key."},
    {"checkpoint": "The intent row is committed before the call and the result after; no call "
                   "is ever made without that row."},
    {"checkpoint": "The intent row, with the key we pass to the provider, is committed before "
                   "the call and the result after; we never send anything before that commit."},
    {"failureMode": "In W3 the provider charged and the reply is lost: the intent is on disk, "
                    "nothing else is written yet, so the resume looks the key up. It costs one "
                    "lookup per unfinished call."},
])
def test_a_harmless_never_or_no_is_not_called_a_contradiction(change: dict) -> None:
    grade = grade_design_outline(good(**change))
    assert grade.passed and not grade.contradictions, grade.feedback
    assert not any("contradict" in line for line in grade.feedback)


def test_a_denial_after_the_send_is_read_only_after_the_send() -> None:
    after = "Between the PSP committing the charge and our write, nothing has been written yet."
    assert g.denied_after_the_send(after) == "nothing has been written"
    assert g.denied_after_the_send("In W1 nothing has been written yet.") == ""
    assert g.denied_after_the_send("If the reply is lost, we would have nothing written.") == ""


def test_retry_within_retention_is_minirts_reconcile_without_its_lookup() -> None:
    """The design's policy is ReconcileByLookup(ask_lookup=False): minirt's 60 s margin and
    EffectKeyMayBePruned, never the lookup; an unkeyed call is resent as a new effect."""
    from types import SimpleNamespace

    from minirt.idempotency import EffectKeyMayBePruned
    from minirt.tools import EffectClass, ToolCall

    def never(call):  # pragma: no cover - must never be called
        raise AssertionError("the lookup was asked")

    def ctx(elapsed: float) -> SimpleNamespace:
        intent = SimpleNamespace(opening=SimpleNamespace(kind="intent", at=1000.0))
        return SimpleNamespace(runtime=SimpleNamespace(clock=SimpleNamespace(
            now=lambda: 1000.0 + elapsed)), journal=SimpleNamespace(at=lambda step: intent))

    keyed = SimpleNamespace(effect=EffectClass.KEYED, retention_for=3600.0, lookup=never)
    call = ToolCall("r1", 1, "charge", {"amount_cents": 1}, "ek_x")
    assert dp.resend_within_retention(ctx(60.0), keyed, call).kind == "redispatch"
    with pytest.raises(EffectKeyMayBePruned):  # inside minirt's margin, not past retention
        dp.resend_within_retention(ctx(3600.0 - 30), keyed, call)
    unkeyed = SimpleNamespace(effect=EffectClass.IRREVERSIBLE, retention_for=None, lookup=never)
    assert dp.resend_within_retention(ctx(90_000.0), unkeyed, call).kind == "redispatch"
