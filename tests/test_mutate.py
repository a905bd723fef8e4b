"""tools/mutate.py on a tiny synthetic drill: which mutants are made, and how they are classified."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutate", ROOT / "tools" / "mutate.py")
mutate = importlib.util.module_from_spec(_spec)
sys.modules["mutate"] = mutate
_spec.loader.exec_module(mutate)

ANSWER = '''def is_expired(at, expires_at):
    """True once the lease is over."""
    helper = 0
    ### BEGIN SOLUTION
    if expires_at is None:
        return True
    return at >= expires_at
    ### END SOLUTION
'''


def _cell(source: str, meta: dict | None = None) -> dict:
    return {"cell_type": "code", "id": f"c{abs(hash(source)) % 10**6}", "metadata":
            {"nbgrader": meta} if meta else {}, "source": source, "outputs": [],
            "execution_count": None}


def _notebook(tmp_path: Path, tests: list[str], answer: str = ANSWER) -> Path:
    cells = [_cell("%xmode Minimal\nimport math", {"grade_id": "setup", "solution": False,
                                                    "grade": False, "locked": True}),
             _cell(answer, {"grade_id": "answer_expired", "solution": True, "grade": False}),
             _cell("print('a plain cell')")]
    cells += [_cell(t, {"grade_id": f"test_{i}", "grade": True, "solution": False, "points": 1})
              for i, t in enumerate(tests)]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "toy-drill" / "drill.ipynb"
    path.parent.mkdir()
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_mutants_stay_inside_the_solution_region():
    cell = mutate.Cell("answer", "answer_expired", ANSWER)
    found = mutate.mutants_of(cell)
    assert found, "no mutants generated"
    assert all(5 <= m.line <= 7 for m in found), [m.id for m in found]  # never `helper = 0`
    kinds = {m.kind for m in found}
    assert {"cmp", "return-none", "if-forced", "not", "const"} <= kinds, kinds
    assert len({m.id for m in found}) == len(found), "mutant ids must be unique"
    assert [m.id for m in mutate.mutants_of(cell)] == [m.id for m in found], "not deterministic"
    ge = [m for m in found if m.id.endswith("cmp:GtE>Gt")]
    assert len(ge) == 1 and "return at > expires_at" in ge[0].source


def test_boundary_mutant_survives_weak_tests_and_dies_under_a_boundary_test(tmp_path):
    weak = ["assert is_expired(10, 5) and not is_expired(1, 5)"]
    nb = _notebook(tmp_path, weak)
    report = mutate.mutate_drill(str(nb), jobs=2, equivalents_dir=tmp_path, echo=lambda s: None)
    by_id = {m["id"]: m for m in report.mutants}
    boundary = next(k for k in by_id if k.endswith("cmp:GtE>Gt"))
    assert by_id[boundary]["status"] == "survived"
    assert report.generated == len(report.mutants)
    assert report.killed + report.survived + report.stillborn + report.equivalent == \
        report.generated

    strong = weak + ["assert is_expired(5, 5), '[expiry] exactly at expiry the lease is over'",
                     "assert is_expired(0, None)"]
    (tmp_path / "s").mkdir()
    nb2 = _notebook(tmp_path / "s", strong)
    report2 = mutate.mutate_drill(str(nb2), jobs=2, equivalents_dir=tmp_path,
                                  echo=lambda s: None)
    by_id2 = {m["id"]: m for m in report2.mutants}
    assert by_id2[boundary]["status"] == "killed"
    assert "test_1" in by_id2[boundary]["failed"]
    assert report2.score is not None and report2.score > report.score


def test_equivalents_file_excludes_listed_survivors(tmp_path):
    nb = _notebook(tmp_path, ["assert is_expired(10, 5) and not is_expired(1, 5)"])
    first = mutate.mutate_drill(str(nb), equivalents_dir=tmp_path, echo=lambda s: None)
    survivor = next(m["id"] for m in first.mutants if m["status"] == "survived")
    (tmp_path / "toy-drill.txt").write_text(f"{survivor}  # same for every tested input\n")
    again = mutate.mutate_drill(str(nb), equivalents_dir=tmp_path, echo=lambda s: None)
    assert again.equivalent == 1 and again.survived == first.survived - 1
    (tmp_path / "toy-drill.txt").write_text(f"{survivor}\n")
    with pytest.raises(mutate.MutateError, match="reason"):
        mutate.read_equivalents("toy-drill", tmp_path)


def test_stillborn_hang_and_exit_are_classified(tmp_path):
    answer = ANSWER.replace("    return at >= expires_at\n",
                            "    while at < 0:\n        pass\n    return at >= expires_at\n")
    tests = ["assert is_expired(5, 5) and not is_expired(1, 5) and is_expired(0, 0)"]
    nb = _notebook(tmp_path, tests, answer)
    cells = mutate.read_cells(nb)
    assert [c.kind for c in cells] == ["setup", "answer", "plain", "graded"]
    # a mutant whose answer cell raises is stillborn; one that kills the process is killed
    bad = mutate.Mutant("x", "answer_expired", 1, 0, "t", "t", "", "raise ValueError('boom')")
    raw = mutate.run_cells(mutate.with_mutant(cells, bad), "answer_expired", 20)
    assert raw.status == "stillborn" and "boom" in raw.detail
    exits = mutate.Mutant("y", "answer_expired", 1, 0, "t", "t", "",
                          "import os\ndef is_expired(at, e):\n    os._exit(3)")
    out = mutate.classify(mutate.run_cells(mutate.with_mutant(cells, exits), "answer_expired",
                                           20), exits, {})
    assert out.status == "killed" and "died" in out.detail
    # `at < 0` -> `at <= 0` loops for ever at at=0: a hang past the timeout is killed
    hang = next(m for m in mutate.mutants_of(cells[1]) if m.id.endswith("cmp:Lt>LtE"))
    out = mutate.classify(mutate.run_cells(mutate.with_mutant(cells, hang), "answer_expired",
                                           3), hang, {})
    assert out.status == "killed" and "hung" in out.detail


def test_failing_reference_is_refused(tmp_path):
    nb = _notebook(tmp_path, ["assert not is_expired(5, 5)"])
    with pytest.raises(mutate.MutateError, match="reference answer fails"):
        mutate.mutate_drill(str(nb), equivalents_dir=tmp_path, echo=lambda s: None)


def test_stderr_in_a_graded_cell_fails_it(tmp_path):
    nb = _notebook(tmp_path, ["import sys; sys.stderr.write('noise')"])
    with pytest.raises(mutate.MutateError, match="stderr"):
        mutate.mutate_drill(str(nb), equivalents_dir=tmp_path, echo=lambda s: None)


def test_cli_limit_runs_a_real_drill(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert mutate.main(["01", "--limit", "3", "--json", str(out), "--jobs", "2"]) == 0
    data = json.loads(out.read_text())
    assert data[0]["slug"] == "01-run-state-machines" and data[0]["generated"] == 3
    printed = capsys.readouterr().out
    assert "3/3" in printed and "score" in printed
