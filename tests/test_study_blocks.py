"""Every lesson ends with the same study block, so the course reads as one course.

The block (CONTRIBUTING.md, lesson skeleton step 7; the study method of lessons/00-start-here):

- a markdown heading whose text is exactly ``Study block`` (level 2 or 3, optionally numbered:
  ``## Study block``, ``### Study block``, ``## 10. Study block``); the block runs from there to
  the next level-2 heading (``## Exercises``) or the end of the notebook;
- inside it, markdown cells carrying these bold labels, in this order (case-insensitive; the
  label may be longer, e.g. ``**When it is the right choice.**``):
  ``**Restate it first`` (the study method's first step: the learner restates the idea before
  reading the mental model), ``**Mental model``, ``**State it reads and changes`` (``**The state ...`` is fine),
  a label containing ``right choice``, then one saying when it is not
  (``**When it is not`` or ``**Not the right choice``), ``**Predict, then run``,
  ``**Neighbours`` (a comparison with both neighbouring subjects of the seed outline,
  "Browser & Computer-use Agents" and "Agent Permissions & Sandboxing", named in it),
  ``**Explain it without jargon``, then
  ``**Primary sources`` followed by at least one http(s) link;
- the primary sources of the seed outline are cited where they inform the module
  (:data:`SEED_SOURCES`: Tornow's talk in 01, Durable Functions/Netherite in 03 and 07, Atomix in
  05 and 07, Temporal in 03, 04 and 08), by their link;
- after the "Predict, then run" markdown: a code cell that assigns ``prediction`` (shipped as
  ``None``: tests/test_lesson_predictions.py), and the next code cell checks it against what the
  run showed with ``check_prediction(prediction, ...)`` (minirt_course.course.predict: "make a
  prediction first" while it is None), or with a ``==``/``!=`` involving the name ``prediction``,
  not inside an ``assert``, that prints "match"/"mismatch".

Lessons 00 (start here) and appendices (``lessons/appendix-*``) are exempt. A lesson that lacks
a part fails with the list of what is missing.

**Runnable contrasts** (issue 22: "a neighbour comparison: one paragraph and one runnable contrast
where it fits"). A lesson of :data:`CONTRASTS` runs the neighbour's way beside its own, inside the
study block, between **Neighbours** and **Explain it without jargon**: one or two code cells whose
first line starts with ``# contrast:``, at most :data:`MAX_CONTRAST_LINES` learner lines together
(counted as tests/test_lesson_density.py counts them), with a ``print`` (the comparison, a row per
way) and an ``assert`` (what the comparison shows, so a contrast that stops contrasting fails when
the lesson runs), and at most :data:`MAX_CONTRAST_WORDS` words of prose in the markdown between
those two labels. Every lesson with a ``# contrast:`` cell must be listed, and every listed one
must have one. tests/test_notebooks.py runs each lesson and checks that its contrast cells ran
without an error or stderr and printed at least two rows. Where the others stand: 01-05 and 08
were at their minute budget (26.7-28.0 of 27-28 min) when the contrasts were added; 07 was being
extended by another change; the rest are listed in :data:`NO_CONTRAST` with the reason.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tests") not in sys.path:  # the density counts, when run outside pytest
    sys.path.insert(0, str(ROOT / "tests"))

from test_lesson_density import code_lines, prose_words  # noqa: E402

HEADING = re.compile(r"^#{2,3}\s+(?:\d+\.\s*)?Study block\s*$", re.M | re.I)
LEVEL2 = re.compile(r"^##\s+\S", re.M)
# (name reported when missing, pattern over the block's markdown)
LABELS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("**Restate it first**", re.compile(r"\*\*\s*Restate it first", re.I)),
    ("**Mental model**", re.compile(r"\*\*\s*Mental model", re.I)),
    (
        "**State it reads and changes**",
        re.compile(r"\*\*\s*(?:The\s+)?state it reads and changes", re.I),
    ),
    ("**... right choice** (when it is)", re.compile(r"\*\*[^*]*(?<!not the )right choice", re.I)),
    (
        "**When it is not** / **Not the right choice**",
        re.compile(r"\*\*\s*(?:When it is not|Not the right choice)", re.I),
    ),
    ("**Predict, then run**", re.compile(r"\*\*\s*Predict, then run", re.I)),
    ("**Neighbours**", re.compile(r"\*\*\s*Neighbou?rs", re.I)),
    ("**Explain it without jargon**", re.compile(r"\*\*\s*Explain it without jargon", re.I)),
    ("**Primary sources**", re.compile(r"\*\*\s*Primary sources", re.I)),
)
PREDICT = 5  # index of "Predict, then run" in LABELS
NEIGHBOURS = ("Browser & Computer-use", "Agent Permissions & Sandboxing")
LINK = re.compile(r"\]\(https?://")

#: The seed outline's primary sources (a link fragment each) and the modules they inform.
SEED_LINKS = {
    "Tornow, Workflows (Strange Loop 2022)": "thestrangeloop.com/2022/workflows-a-new-abstraction",
    "Durable Functions and Netherite": "arxiv.org/abs/2103.00033",
    "Atomix": "arxiv.org/abs/2602.14849",
    "Temporal": "docs.temporal.io",
}
SEED_SOURCES: dict[str, tuple[str, ...]] = {
    "01": ("Tornow, Workflows (Strange Loop 2022)",),
    "03": ("Durable Functions and Netherite", "Temporal"),
    "04": ("Temporal",),
    "05": ("Atomix",),
    "07": ("Durable Functions and Netherite", "Atomix"),
    "08": ("Temporal",),
}


#: The modules whose lesson runs a neighbour contrast (see the module docstring).
CONTRASTS: tuple[str, ...] = ("05b", "06", "09", "10")
#: Modules with room in their minutes where no contrast was added, and why.
NO_CONTRAST: dict[str, str] = {
    "11": "its neighbour contrast would repeat lesson 10's (a keyless click reconciled by reading "
          "the page) on a bigger world; its Neighbours paragraph points there",
}
CONTRAST_MARK = "# contrast:"
MAX_CONTRAST_LINES = 25
MAX_CONTRAST_WORDS = 150


def lessons(root: Path = ROOT) -> list[Path]:
    """The lessons that must carry a study block: all but 00 and the appendices."""
    return [
        p
        for p in sorted((root / "lessons").glob("*.ipynb"))
        if not p.name.startswith(("00-", "appendix"))
    ]


def _assigns_prediction(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == "prediction" for t in targets):
            return True
    return False


def _compares_prediction(source: str) -> bool:
    """``check_prediction(prediction, ...)``, or a ==/!= comparison that involves `prediction`,
    outside any assert, and a match message."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "check_prediction" and node.args
                and isinstance(node.args[0], ast.Name) and node.args[0].id == "prediction"):
            return True
    in_assert = {id(n) for a in ast.walk(tree) if isinstance(a, ast.Assert) for n in ast.walk(a)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or id(node) in in_assert:
            continue
        if not all(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops):
            continue
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if "prediction" in names:
            return "match" in source
    return False


def study_block_problems(nb: nbformat.NotebookNode) -> list[str]:
    """What the notebook's study block lacks (empty when it is complete)."""
    cells = nb.cells
    start = next(
        (i for i, c in enumerate(cells) if c.cell_type == "markdown" and HEADING.search(c.source)),
        None,
    )
    if start is None:
        return ["a markdown heading 'Study block' (e.g. '## Study block')"]
    end = len(cells)
    for j in range(start + 1, len(cells)):
        if cells[j].cell_type == "markdown" and LEVEL2.search(cells[j].source):
            end = j
            break
    block = cells[start:end]
    problems: list[str] = []
    md = "\n\n".join(c.source for c in block if c.cell_type == "markdown")
    pos = 0
    for name, pattern in LABELS:
        found = pattern.search(md, pos)
        if found is None:
            anywhere = pattern.search(md)
            problems.append(f"{name}" + (" (out of order)" if anywhere else ""))
        else:
            pos = found.end()
    sources = LABELS[-1][1].search(md)
    if sources is not None and not LINK.search(md, sources.end()):
        problems.append("a link (https://...) under **Primary sources**")
    neighbours = LABELS[PREDICT + 1][1].search(md)
    if neighbours is not None:
        para = md[neighbours.end():neighbours.end() + 2000].split("\n\n**", 1)[0]
        problems += [f"the neighbour {name!r} named under **Neighbours**"
                     for name in NEIGHBOURS if name not in para]

    predict = next(
        (
            k
            for k, c in enumerate(block)
            if c.cell_type == "markdown" and LABELS[PREDICT][1].search(c.source)
        ),
        None,
    )
    if predict is not None:
        code = [c.source for c in block[predict + 1 :] if c.cell_type == "code"]
        which = next((k for k, src in enumerate(code) if _assigns_prediction(src)), None)
        if which is None:
            problems.append("a code cell after **Predict, then run** that sets `prediction`")
        elif which + 1 >= len(code) or not _compares_prediction(code[which + 1]):
            problems.append(
                "a code cell right after the prediction cell that compares `prediction` with "
                "the run (check_prediction(prediction, ...), or ==/!= outside an assert "
                "printing match/mismatch)"
            )
    return problems


def seed_sources_missing(module_id: str, nb: nbformat.NotebookNode) -> list[str]:
    """The seed sources that inform ``module_id`` but are not linked in its lesson."""
    md = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return [name for name in SEED_SOURCES.get(module_id, ()) if SEED_LINKS[name] not in md]


def _block(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The study block's cells (from its heading to the next level-2 heading), or []."""
    cells = nb.cells
    start = next((i for i, c in enumerate(cells)
                  if c.cell_type == "markdown" and HEADING.search(c.source)), None)
    if start is None:
        return []
    end = next((j for j in range(start + 1, len(cells))
                if cells[j].cell_type == "markdown" and LEVEL2.search(cells[j].source)),
               len(cells))
    return cells[start:end]


def is_contrast(cell: nbformat.NotebookNode) -> bool:
    return cell.cell_type == "code" and cell.source.lstrip().startswith(CONTRAST_MARK)


def contrast_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """Every ``# contrast:`` code cell of the notebook, wherever it is."""
    return [c for c in nb.cells if is_contrast(c)]


def _calls(source: str, name: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
               for n in ast.walk(tree))


def _asserts(source: str) -> bool:
    try:
        return any(isinstance(n, ast.Assert) for n in ast.walk(ast.parse(source)))
    except SyntaxError:
        return False


def contrast_problems(nb: nbformat.NotebookNode) -> list[str]:
    """What the lesson's runnable contrast lacks (empty when it is complete)."""
    block = _block(nb)
    neighbours = LABELS[PREDICT + 1][1]
    jargon = LABELS[PREDICT + 2][1]
    k = next((i for i, c in enumerate(block)
              if c.cell_type == "markdown" and neighbours.search(c.source)), None)
    j = next((i for i, c in enumerate(block)
              if c.cell_type == "markdown" and jargon.search(c.source)), None)
    where = ("between **Neighbours** and **Explain it without jargon** (separate markdown "
             "cells) in the study block")
    if k is None or j is None or j <= k:
        return [f"code cells opening with {CONTRAST_MARK!r} {where}"]
    between = block[k + 1:j]
    code = [c for c in between if is_contrast(c)]
    if not code:
        return [f"code cells opening with {CONTRAST_MARK!r} {where}"]
    problems = []
    if len(code) != len(contrast_cells(nb)):
        problems.append(f"every {CONTRAST_MARK!r} cell {where}")
    if any(c.cell_type == "code" and not is_contrast(c) for c in between):
        problems.append(f"only {CONTRAST_MARK!r} code cells {where}")
    if len(code) > 2:
        problems.append(f"one or two {CONTRAST_MARK!r} cells (it has {len(code)})")
    lines = sum(code_lines(c.source) for c in code)
    if lines > MAX_CONTRAST_LINES:
        problems.append(f"a contrast of at most {MAX_CONTRAST_LINES} learner lines "
                        f"(it has {lines})")
    words = sum(prose_words(c.source) for c in between if c.cell_type == "markdown")
    if words > MAX_CONTRAST_WORDS:
        problems.append(f"at most {MAX_CONTRAST_WORDS} words of prose for the contrast "
                        f"(it has {words})")
    if not any(_calls(c.source, "print") for c in code):
        problems.append("a contrast that prints its comparison (print(...))")
    if not any(_asserts(c.source) for c in code):
        problems.append("a contrast that asserts what its comparison shows (assert ...)")
    return problems


def _lesson_of(module_id: str) -> Path:
    (path,) = [p for p in lessons() if p.name.startswith(module_id + "-")]
    return path


def test_every_lesson_carries_the_study_block() -> None:
    found = lessons()
    if not found:
        pytest.skip("no lessons yet")
    missing = {p.name: study_block_problems(nbformat.read(str(p), as_version=4)) for p in found}
    missing = {name: probs for name, probs in missing.items() if probs}
    assert not missing, "lessons without a complete study block:\n" + "\n".join(
        f"  {name}: " + "; ".join(probs) for name, probs in sorted(missing.items())
    )


@pytest.mark.parametrize("module_id", sorted(SEED_SOURCES))
def test_seed_sources_are_used_where_they_inform_the_module(module_id: str) -> None:
    (path,) = [p for p in lessons() if p.name.startswith(module_id + "-")]
    assert seed_sources_missing(module_id, nbformat.read(str(path), as_version=4)) == []


@pytest.mark.parametrize("module_id", CONTRASTS)
def test_the_lesson_runs_its_neighbour_contrast(module_id: str) -> None:
    path = _lesson_of(module_id)
    assert contrast_problems(nbformat.read(str(path), as_version=4)) == [], path.name


def test_every_contrast_is_listed() -> None:
    found = {p.name.split("-", 1)[0] for p in lessons()
             if contrast_cells(nbformat.read(str(p), as_version=4))}
    assert found == set(CONTRASTS), "a lesson has a contrast cell but is not in CONTRASTS (or " \
        "the reverse)"
    assert not set(NO_CONTRAST) & set(CONTRASTS)
    assert set(NO_CONTRAST) <= {p.name.split("-", 1)[0] for p in lessons()}


def contrast_output_problems(nb: nbformat.NotebookNode) -> list[str]:
    """For an EXECUTED lesson: its contrast cells raised nothing, wrote nothing to stderr, and
    printed at least two rows (one per way). `tests/test_notebooks.py` calls this on every lesson
    it runs, so the contrasts are checked without executing the lessons a second time."""
    cells = contrast_cells(nb)
    if not cells:
        return []
    rows, problems = 0, []
    for cell in cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"contrast {cell.get('id')}: {out.get('ename')}: "
                                f"{out.get('evalue')}")
            elif out.get("output_type") == "stream" and out.get("name") == "stderr":
                problems.append(f"contrast {cell.get('id')}: wrote to stderr")
            elif out.get("output_type") == "stream":
                rows += sum(1 for line in str(out.get("text", "")).splitlines() if line.strip())
    if rows < 2:
        problems.append(f"the contrast printed {rows} row(s), not a comparison")
    return problems


def test_contrast_output_check_can_fail() -> None:
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    nb = new_notebook()
    cell = new_code_cell("# contrast: x\nprint('a')")
    cell.outputs = [new_output("stream", name="stdout", text="only one row\n")]
    nb.cells = [new_markdown_cell("**Run the contrast.**"), cell]
    assert contrast_output_problems(nb) == ["the contrast printed 1 row(s), not a comparison"]
    cell.outputs.append(new_output("error", ename="ValueError", evalue="boom", traceback=[]))
    assert any("ValueError" in p for p in contrast_output_problems(nb))


# --------------------------------------------------------------------------- the checker itself


def _nb(*cells: tuple[str, str]) -> nbformat.NotebookNode:
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nb = new_notebook()
    nb.cells = [new_markdown_cell(s) if kind == "md" else new_code_cell(s) for kind, s in cells]
    return nb


COMPLETE = (
    ("md", "## Study block\n\n**Restate it first.** r\n\n**Mental model.** x\n\n**State it reads and changes.** y\n\n"
           "**When it is the right choice.** a. **When it is not:** b."),
    ("md", "**Predict, then run.** How many?"),
    ("code", "prediction = 1"),
    ("code", 'observed = 1\nprint("match" if prediction == observed else "mismatch")'),
    ("md", "**Neighbours.** Browser & Computer-use Agents vs Agent Permissions & Sandboxing.\n\n"
           "**Explain it without jargon.** e"),
    ("md", "**Primary sources**\n\n- [Sagas](https://doi.org/10.1145/38713.38742)"),
    ("md", "## Exercises"),
)  # fmt: skip


def test_checker_accepts_a_complete_block() -> None:
    assert study_block_problems(_nb(*COMPLETE)) == []


def test_checker_names_each_missing_part() -> None:
    no_heading = _nb(("md", "## Study\n\n" + COMPLETE[0][1].split("\n", 1)[1]), *COMPLETE[1:])
    assert study_block_problems(no_heading) == [
        "a markdown heading 'Study block' (e.g. '## Study block')"
    ]
    no_wrong = _nb(("md", COMPLETE[0][1].replace("**When it is not:**", "Else")), *COMPLETE[1:])
    assert study_block_problems(no_wrong) == ["**When it is not** / **Not the right choice**"]
    no_link = _nb(*COMPLETE[:5], ("md", "**Primary sources**\n\n- a book"), COMPLETE[6])
    assert study_block_problems(no_link) == ["a link (https://...) under **Primary sources**"]


def test_checker_accepts_check_prediction() -> None:
    checked = _nb(*COMPLETE[:2], ("code", "prediction = None"),
                  ("code", "check_prediction(prediction, 1)"), *COMPLETE[4:])
    assert study_block_problems(checked) == []
    other = _nb(*COMPLETE[:2], ("code", "prediction = None"),
                ("code", "check_prediction(1, 1)"), *COMPLETE[4:])
    assert len(study_block_problems(other)) == 1


def test_checker_wants_a_comparison_not_an_assert() -> None:
    asserting = _nb(*COMPLETE[:3], ("code", "assert prediction == 1"), *COMPLETE[4:])
    problems = study_block_problems(asserting)
    assert len(problems) == 1 and "compares `prediction`" in problems[0]
    unset = _nb(*COMPLETE[:2], ("code", "guess = 1"), *COMPLETE[3:])
    assert study_block_problems(unset)[0].startswith("a code cell after **Predict, then run**")


def test_checker_ignores_parts_after_the_next_section() -> None:
    moved = _nb(COMPLETE[0], ("md", "## Exercises"), *COMPLETE[1:6])
    problems = study_block_problems(moved)
    assert "**Predict, then run**" in problems and "**Primary sources**" in problems


def test_checker_wants_both_neighbours_and_restating_first() -> None:
    one = _nb(*COMPLETE[:4], ("md", COMPLETE[4][1].replace("Agent Permissions & Sandboxing", "x")),
              *COMPLETE[5:])
    assert study_block_problems(one) == [
        "the neighbour 'Agent Permissions & Sandboxing' named under **Neighbours**"]
    late = COMPLETE[0][1].replace("**Restate it first.** r\n\n", "") + "\n\n**Restate it first.**"
    # restating after the model is read is not the study method: what follows it is out of order
    assert study_block_problems(_nb(("md", late), *COMPLETE[1:]))[0] == (
        "**Mental model** (out of order)")


def test_seed_sources_missing_names_the_source() -> None:
    nb = _nb(("md", "[talk](https://thestrangeloop.com/2022/workflows-a-new-abstraction-x)"))
    assert seed_sources_missing("01", nb) == []
    assert seed_sources_missing("07", nb) == ["Durable Functions and Netherite", "Atomix"]


CONTRAST = (
    ("md", "## Study block\n\n**Neighbours.** Browser & Computer-use and Agent Permissions & "
           "Sandboxing."),
    ("md", "**Run the contrast.** Two ways, side by side."),
    ("code", "# contrast: the two ways\nrows = [1, 2]\nprint(rows)\nassert rows[0] != rows[1]"),
    ("md", "**Explain it without jargon.** e"),
    ("md", "## Exercises"),
)  # fmt: skip


def test_contrast_checker_accepts_a_complete_contrast() -> None:
    assert contrast_problems(_nb(*CONTRAST)) == []


def test_contrast_checker_names_what_is_missing() -> None:
    assert contrast_problems(_nb(CONTRAST[0], CONTRAST[3]))[0].startswith("code cells opening")
    # in the same cell as **Neighbours**, there is no room between the labels
    same = _nb(("md", CONTRAST[0][1] + "\n\n**Explain it without jargon.** e"), CONTRAST[2])
    assert contrast_problems(same)[0].startswith("code cells opening")
    silent = _nb(*CONTRAST[:2], ("code", "# contrast: x\nassert 1 != 2"), *CONTRAST[3:])
    assert contrast_problems(silent) == ["a contrast that prints its comparison (print(...))"]
    unchecked = _nb(*CONTRAST[:2], ("code", "# contrast: x\nprint(1, 2)"), *CONTRAST[3:])
    assert contrast_problems(unchecked) == [
        "a contrast that asserts what its comparison shows (assert ...)"]
    long = "# contrast: long\n" + "x = 1\n" * 25 + "print(x)\nassert x"
    assert contrast_problems(_nb(*CONTRAST[:2], ("code", long), *CONTRAST[3:])) == [
        "a contrast of at most 25 learner lines (it has 27)"]
    wordy = _nb(CONTRAST[0], ("md", "word " * 151), *CONTRAST[2:])
    assert contrast_problems(wordy) == [
        "at most 150 words of prose for the contrast (it has 151)"]
    three = _nb(*CONTRAST[:3], CONTRAST[2], *CONTRAST[2:])
    assert contrast_problems(three) == ["one or two '# contrast:' cells (it has 3)"]
    stray = _nb(*CONTRAST, ("code", "# contrast: after the block\nprint(1)\nassert 1"))
    assert contrast_problems(stray) == [
        "every '# contrast:' cell between **Neighbours** and **Explain it without jargon** "
        "(separate markdown cells) in the study block"]
