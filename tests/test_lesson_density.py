"""Each lesson fits the minutes it promises, by a stated reading-speed estimate.

A lesson's reading time is estimated from three counts (what issue 22 calls its density):

- **words**: the words of its Markdown cells (a link counts as its text), without the generated
  navigation cells and without optional reading folded in ``<details>`` blocks;
- **learner lines**: the non-blank, non-comment lines of its code cells (the code the learner
  reads and runs), except the ``show``/``show_contract``/``show_folded`` calls themselves, whose
  output is counted as shown lines;
- **shown lines**: the lines of runtime source it prints: ``show(x)`` counts every line of
  ``x``'s source, ``show_contract(x)`` the lines of its signature and docstring, and
  ``show_folded(x, notes)`` (:mod:`minirt_course.course.fold`) one line per key line, since the rest
  is folded behind "show the source".

The rates, stated once (:data:`RATES`): **200 words a minute** for prose (below the 238 words a
minute Brysbaert (2019) found for silent reading of English non-fiction, because this prose is
technical), **15 lines a minute** for code the learner runs (read, run, look at the output),
**10 lines a minute** for runtime source (read closely, it is what the lesson teaches). They are
an estimate, not a measurement of learners; the point is that the same yardstick applies to
every lesson and that a lesson that grows past its minutes fails here, not in a classroom.

The estimate must not exceed the catalog's minutes for the lesson (the header's "about NN min").
Appendices are not catalog modules and are only reported. ``python tests/test_lesson_density.py``
prints the table (words, learner lines, shown lines, estimate, budget) for every lesson.

Targets of ``show`` are resolved by running only the lesson's import statements; a target whose
import fails here (an optional dependency, e.g. DBOS in 11) is counted as 0 lines, as the lesson
skips it too, and listed in the report.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # when run as a script
    sys.path.insert(0, str(ROOT))

from minirt_course.course import catalog  # noqa: E402
from minirt_course.course.navigation import CONTENTS_ID, NEXT_STEPS_ID  # noqa: E402
from minirt_course.course.show import contract_of, source_of  # noqa: E402

LESSONS = sorted((ROOT / "lessons").glob("*.ipynb"))

#: words a minute of prose; lines a minute of learner code; lines a minute of shown source.
RATES = {"words": 200.0, "learner_lines": 15.0, "shown_lines": 10.0}

SHOWS = ("show", "show_contract", "show_folded")
_DETAILS = re.compile(r"<details>.*?</details>", re.S | re.I)
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_WORD = re.compile(r"[A-Za-z0-9][\w'’.-]*")


@dataclass
class Density:
    """The three counts of one lesson and its estimated minutes."""

    words: int = 0
    learner_lines: int = 0
    shown_lines: int = 0
    unresolved: list[str] = field(default_factory=list)

    @property
    def minutes(self) -> float:
        return (self.words / RATES["words"] + self.learner_lines / RATES["learner_lines"]
                + self.shown_lines / RATES["shown_lines"])


def prose_words(markdown: str) -> int:
    """Words of a Markdown cell: links as their text, ``<details>`` blocks left out."""
    text = _LINK.sub(r"\1", _DETAILS.sub(" ", markdown))
    return len(_WORD.findall(text))


def code_lines(source: str) -> int:
    """Non-blank lines of a code cell that are not only a comment."""
    return sum(1 for line in source.splitlines()
               if line.strip() and not line.strip().startswith("#"))


def _import_into(tree: ast.AST, ns: dict[str, Any]) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            try:
                exec(compile(ast.Module([node], []), "<lesson import>", "exec"), ns)  # noqa: S102
            except Exception:  # noqa: BLE001 - an optional dependency the lesson skips too
                pass


def _shown(call: ast.Call, ns: dict[str, Any]) -> int | None:
    """Lines a show/show_contract/show_folded call prints, or None if its target is unknown."""
    name = call.func.id if isinstance(call.func, ast.Name) else None
    if name not in SHOWS or not call.args:
        return 0
    if name == "show_folded":
        notes = call.args[1] if len(call.args) > 1 else None
        return len(notes.keys) if isinstance(notes, ast.Dict) else None
    try:
        target = eval(compile(ast.Expression(call.args[0]), "<show target>", "eval"), ns)  # noqa: S307
    except Exception:  # noqa: BLE001
        return None
    src = source_of(target) if name == "show" else contract_of(target)
    return len(src.text.splitlines())


def _display_lines(tree: ast.Module, source: str) -> int:
    """Code lines taken by top-level ``show*(...)`` statements (counted as shown, not learner)."""
    lines = source.splitlines()
    taken = 0
    for node in tree.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id in SHOWS):
            taken += code_lines("\n".join(lines[node.lineno - 1:node.end_lineno]))
    return taken


def density(path: Path) -> Density:
    """The counts of one lesson notebook."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    out, ns = Density(), {}
    for cell in cells:
        src = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            if cell.get("id") not in (CONTENTS_ID, NEXT_STEPS_ID):
                out.words += prose_words(src)
            continue
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse(src)
        except SyntaxError:  # a %magic line
            out.learner_lines += code_lines(src)
            continue
        out.learner_lines += code_lines(src) - _display_lines(tree, src)
        _import_into(tree, ns)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                lines = _shown(node, ns)
                if lines is None:
                    out.unresolved.append(ast.unparse(node)[:60])
                else:
                    out.shown_lines += lines
    return out


def budget_of(path: Path) -> int | None:
    """The catalog's minutes for the lesson (None for an appendix)."""
    module = next((m for m in catalog.MODULES if m.slug == path.stem), None)
    return None if module is None else module.minutes


#: Lessons known to be over their minutes, with what it would take (strict: a lesson that comes
#: under its budget fails here until it is taken off this list).
OVER_BUDGET: dict[str, str] = {}


def _lesson_params() -> list[Any]:
    return [pytest.param(p, id=p.stem, marks=pytest.mark.xfail(
                reason=OVER_BUDGET[p.stem], strict=True)) if p.stem in OVER_BUDGET else
            pytest.param(p, id=p.stem) for p in LESSONS]


@pytest.mark.parametrize("path", _lesson_params())
def test_lesson_fits_its_minutes(path: Path) -> None:
    budget = budget_of(path)
    if budget is None:
        pytest.skip("appendices are not catalog modules (reported only)")
    d = density(path)
    assert d.minutes <= budget, (
        f"{path.name}: about {d.minutes:.1f} min by the stated rates ({d.words} words, "
        f"{d.learner_lines} learner lines, {d.shown_lines} shown lines) for a {budget}-minute "
        "lesson: fold long listings with show_folded, move optional reading into <details>, "
        "or cut")


def test_the_counts() -> None:
    md = "A [linked phrase](https://x.org) and `code`.\n<details>not counted here</details>"
    assert prose_words(md) == 5
    assert code_lines("x = 1\n\n# a comment\n  y = 2  # trailing\n") == 2
    nb = {"cells": [
        {"cell_type": "markdown", "id": CONTENTS_ID, "source": ["many words " * 50]},
        {"cell_type": "markdown", "id": "a", "source": ["one two three"]},
        {"cell_type": "code", "id": "b", "source": [
            "from minirt_course.course.show import show\n", "from minirt.run import apply\n",
            "show(apply)\n", "show_folded(apply, {'def apply': 'why'})\n", "show(nowhere)\n"]},
    ]}
    tmp = ROOT / "build" / "density-selftest.ipynb"
    tmp.parent.mkdir(exist_ok=True)
    tmp.write_text(json.dumps(nb), encoding="utf-8")
    try:
        from minirt.run import apply

        d = density(tmp)
    finally:
        tmp.unlink()
    assert (d.words, d.learner_lines) == (3, 2)  # the imports; the show calls are shown lines
    assert d.shown_lines == len(source_of(apply).text.splitlines()) + 1
    assert d.unresolved == ["show(nowhere)"]
    assert Density(200, 15, 10).minutes == pytest.approx(3.0)


def report() -> str:
    rows = ["| lesson | words | learner lines | shown lines | estimate (min) | budget (min) |",
            "|---|--:|--:|--:|--:|--:|"]
    for path in LESSONS:
        d, budget = density(path), budget_of(path)
        rows.append(f"| {path.stem} | {d.words} | {d.learner_lines} | {d.shown_lines} | "
                    f"{d.minutes:.1f} | {budget if budget is not None else '-'} |"
                    + (f" unresolved: {', '.join(d.unresolved)}" if d.unresolved else ""))
    return "\n".join(rows)


if __name__ == "__main__":
    print(report())
