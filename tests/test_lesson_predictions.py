"""Predict, then run makes the learner predict, and no lesson prints its drill's answer.

- Every lesson's prediction cell ships empty (``prediction = None``), and the first cell after it
  that reads it goes through :func:`minirt_course.course.predict.check_prediction`, which says "make a prediction first"
  and shows nothing of the run while the prediction is None.
- No lesson ``show()``s (or ``show_folded()``s: the fold holds the whole source) the source of a
  function its drill asks the learner to write: the names
  come from the drill's answer cells (``def``/``class`` in cells with ``"solution": true``), plus
  the runtime names of the same functions where the drill renames them (``ALSO_NAMED``). A lesson
  uses ``show_contract`` for those: signature and docstring, no body.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from minirt_course.course.predict import ASK_FIRST, check_prediction
from minirt_course.course.show import contract_of, source_of

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "lessons").glob("*.ipynb"))

#: Runtime functions whose body a drill asks for under another name (drill name -> runtime name).
ALSO_NAMED: dict[str, dict[str, str]] = {
    "01": {"check": "check_transition"},
    "04": {"derive_key": "effect_key", "reconcile": "ReconcileByLookup"},
    "05": {"plan": "plan_compensations"},
    "07": {"conflict": "conflicts", "schedule": "plan_waves"},
    "08": {"request_record": "cancel"},
}

PREDICTION = re.compile(r"^prediction\s*=\s*(?P<value>[^#\n]*)", re.M)
SHOW = re.compile(r"\b(?P<how>show(?:_folded)?)\(\s*(?P<target>[\w.]+)\s*[,)]")


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def module_id(lesson: Path) -> str:
    return lesson.name.split("-", 1)[0]


def prefilled_predictions(cells: list[dict]) -> list[str]:
    """'cell N: prediction = X' for every code cell that assigns a prediction other than None."""
    found = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        for m in PREDICTION.finditer(_source(cell)):
            if m["value"].strip() != "None":
                found.append(f"cell {i}: prediction = {m['value'].strip()}")
    return found


def unchecked_predictions(cells: list[dict]) -> list[str]:
    """'cell N' for every prediction cell whose first later use of ``prediction`` is not a
    ``check_prediction(prediction, ...)`` call."""
    code = [(i, _source(c)) for i, c in enumerate(cells) if c["cell_type"] == "code"]
    bad = []
    for k, (i, src) in enumerate(code):
        if not PREDICTION.search(src):
            continue
        uses = [s for _, s in code[k + 1:] if re.search(r"\bprediction\b", s)]
        if not uses or "check_prediction(prediction" not in uses[0]:
            bad.append(f"cell {i}")
    return bad


def drill_answer_names(mid: str) -> set[str]:
    """The functions and classes drill ``mid``'s answer cells define, and their runtime names."""
    names: set[str] = set()
    for drill in (ROOT / "solutions").glob(f"{mid}-*/drill.ipynb"):
        for cell in _cells(drill):
            nbg = cell.get("metadata", {}).get("nbgrader", {})
            if cell["cell_type"] == "code" and nbg.get("solution"):
                names |= set(re.findall(r"^(?:def|class)\s+(\w+)", _source(cell), re.M))
    for drill_name, runtime_name in ALSO_NAMED.get(mid, {}).items():
        if drill_name in names:
            names.add(runtime_name)
    return names


def shown_answers(cells: list[dict], answers: set[str]) -> list[str]:
    """'cell N: show(X)' for every show() of a drill answer (by last name; ``X.__call__`` -> X)."""
    found = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        for m in SHOW.finditer(_source(cell)):
            parts = [p for p in m["target"].split(".") if p != "__call__"]
            if parts and parts[-1] in answers:
                found.append(f"cell {i}: {m['how']}({m['target']})")
    return found


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_prediction_cells_ship_empty_and_are_checked_by_check_prediction(lesson: Path) -> None:
    cells = _cells(lesson)
    assert prefilled_predictions(cells) == [], f"{lesson.name}: a prediction is pre-filled"
    assert unchecked_predictions(cells) == [], f"{lesson.name}: a prediction is not checked"


def test_every_lesson_with_a_study_block_has_a_prediction_cell() -> None:
    without = [p.name for p in LESSONS if not any(
        c["cell_type"] == "code" and PREDICTION.search(_source(c)) for c in _cells(p))]
    assert without == []


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_no_lesson_shows_the_source_of_its_drill_answers(lesson: Path) -> None:
    answers = drill_answer_names(module_id(lesson))
    assert shown_answers(_cells(lesson), answers) == []


def test_the_answer_names_are_read_from_the_drills() -> None:
    assert {"check", "apply", "check_transition"} <= drill_answer_names("01")
    assert {"conflict", "schedule", "conflicts", "plan_waves"} <= drill_answer_names("07")


def test_the_checks_find_what_they_look_for() -> None:
    cells = [{"cell_type": "code", "source": ["prediction = 2  # a guess"]},
             {"cell_type": "code", "source": ["print(prediction == 2)"]},
             {"cell_type": "code", "source": ["show(minirt.run.apply)\n", "show(Node)\n",
                                              "show_folded(apply, {'x': 'y'})"]}]
    assert prefilled_predictions(cells) == ["cell 0: prediction = 2"]
    assert unchecked_predictions(cells) == ["cell 0"]
    assert shown_answers(cells, {"apply"}) == ["cell 2: show(minirt.run.apply)",
                                               "cell 2: show_folded(apply)"]


def test_check_prediction_without_a_prediction_shows_nothing_of_the_run(capsys) -> None:
    assert check_prediction(None, "SECRET-OBSERVED", why="SECRET-WHY") is None
    out = capsys.readouterr()
    assert out.out.strip() == ASK_FIRST and out.err == ""
    assert "SECRET" not in out.out


def test_check_prediction_says_whether_the_run_agreed(capsys) -> None:
    check_prediction(2, 2)
    check_prediction("refused", "accepted", why="because")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "observed: 2; you predicted 2: as you predicted."
    assert out[1] == "observed: 'accepted'; you predicted 'refused': not what you predicted."
    assert out[2] == "because"


def test_contract_of_shows_the_signature_and_docstring_but_no_line_of_the_body() -> None:
    from minirt.run import check_transition

    full = source_of(check_transition).text
    contract = contract_of(check_transition, drill="01").text
    body = full.split('"""')[-1]
    body_lines = [line.strip() for line in body.splitlines() if line.strip()]
    assert body_lines and not [line for line in body_lines if line in contract]
    assert contract.startswith("def check_transition(") and "drill 01" in contract
