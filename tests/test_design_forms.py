"""Module 05b: the two answer forms of designOutline() and what each is graded on (issue 17).

The text form (the default) is read by :mod:`minirt_course.grading.design_reader`, which misreads some
wordings (measured in :mod:`minirt_course.grading.design`). The typed form, a field given as
``{"mechanism": <choice>, "detail": str}`` or a :class:`~minirt_course.grading.design.DesignOutline`,
is graded exactly: the mechanism is taken as written whatever the detail says, the detail is
exported for the instructor, and the failure mode stays a sentence read as in the text form.
These tests pin that, and that the lesson and the drill tell the learner so.
"""

from __future__ import annotations

import itertools
import json
import typing
from pathlib import Path

import pytest

from minirt_course.grading import design as g

ROOT = Path(__file__).resolve().parents[1]
RIGHT = {"checkpoint": "intent-and-result", "idempotency": "derived-key",
         "resumeProtocol": "replay-and-lookup"}
#: A detail per field that, read as text, names ANOTHER mechanism than any typed choice tested.
MISLEADING = {"checkpoint": "we keep everything in memory only",
              "idempotency": "a fresh random uuid on every retry",
              "resumeProtocol": "resend everything blindly; nobody asks the provider"}


def _choices(model: type) -> tuple[str, ...]:
    return typing.get_args(model.model_fields["mechanism"].annotation)


CHOICES = {"checkpoint": _choices(g.CheckpointChoice),
           "idempotency": _choices(g.IdempotencyChoice),
           "resumeProtocol": _choices(g.ResumeChoice)}


def test_the_typed_choices_are_the_vocabulary() -> None:
    for name, choices in CHOICES.items():
        assert set(choices) == {str(t.choice) for t in g.VOCABULARY[name]}, name


@pytest.mark.parametrize("cp,idem,rs", list(itertools.product(*CHOICES.values())))
def test_every_typed_choice_is_read_exactly_whatever_the_detail_says(cp: str, idem: str,
                                                                     rs: str) -> None:
    outline = {name: {"mechanism": m, "detail": MISLEADING[name]}
               for name, m in zip(CHOICES, (cp, idem, rs), strict=True)}
    readings, _, problems = g.read_outline({**outline, "tradeOff": "one more write per call"})
    assert {n: r.choice for n, r in readings.items()} == dict(zip(CHOICES, (cp, idem, rs),
                                                                  strict=True))
    assert not [p for p in problems if not p.startswith("[note]")]


def test_a_typed_right_design_passes_and_a_detail_naming_another_mechanism_is_a_note() -> None:
    outline = g.DesignOutline(
        checkpoint=g.CheckpointChoice(mechanism="intent-and-result",
                                      detail=MISLEADING["checkpoint"]),
        idempotency=g.IdempotencyChoice(mechanism="derived-key", detail="run id, step, payload"),
        resumeProtocol=g.ResumeChoice(mechanism="replay-and-lookup", detail="ask by key first"),
        tradeOff="one more synchronous journal write per call")
    grade = g.grade_design_outline(outline)
    assert grade.passed, "\n".join(grade.feedback)
    assert any(line.startswith("[note] checkpoint") for line in grade.feedback)
    assert "keep everything in memory only" in g.for_review(outline)


def test_the_typed_form_still_reads_the_failure_mode() -> None:
    typed = {name: {"mechanism": m, "detail": "as chosen"} for name, m in RIGHT.items()}
    assert g.grade_design_outline({**typed, "failureMode": "a lookup round trip per "
                                                           "unresolved intent"}).passed
    false = g.grade_design_outline({**typed, "failureMode": "None: it is perfectly safe."})
    assert not false.passed and not false.properties["failure_consistent"]


def test_an_unknown_typed_mechanism_is_refused_naming_the_choices() -> None:
    grade = g.grade_design_outline({**{n: {"mechanism": m, "detail": "x"}
                                       for n, m in RIGHT.items()},
                                    "checkpoint": {"mechanism": "magic", "detail": "trust me"},
                                    "tradeOff": "one more write per call"})
    assert grade.design is None and not grade.passed
    assert any("mechanism 'magic' is not one of" in line for line in grade.feedback)


def _markdown(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


@pytest.mark.parametrize("path", ["lessons/05b-design-outline.ipynb",
                                  "solutions/05b-design-outline/drill.ipynb",
                                  "drills/05b-design-outline/drill.ipynb"])
def test_the_lesson_and_the_drill_say_what_each_form_is_graded_on(path: str) -> None:
    text = " ".join(_markdown(ROOT / path).split())
    for words in ('{"mechanism":', "DesignOutline", "graded exactly", "for_review",
                  "stays a sentence", "could not read" if "lessons" not in path else
                  "cannot read a field"):
        assert words in text, (path, words)
