"""Every lesson and every drill source, run from the menu in real JupyterLab in headless Chromium.

A failure names the notebook, the cell (index and first line) and what the page showed. Every
lesson is also checked in JupyterLab Dark on the same page, without a re-run
(:class:`themes.ThemedRun`: picture contrast, overflow, a ``<name>-dark.png`` screenshot). The
self-test runs a notebook built to fail in known ways, so a check that can no longer fail shows up.

Bounded by default (tests/sampling.py): the start-here lesson, a rotating sample of LESSON_SAMPLE
other lessons and of DRILL_SAMPLE drill sources (chosen from the UTC date or MINIRT_HONESTY_SEED,
so each gets its turn within a few days of CI); every lesson and drill source with
``--full-sweeps``. A notebook here is ~12-28 s (the 14 lessons alone were 292 s of a 35-minute CI
run on 2026-12-03); every one of them still runs top to bottom, errors and stderr checked, in
tests/test_notebooks.py, and its pictures' contrast is checked in tests/test_lesson_contrast.py,
so what the sample leaves out on a given day is only its rendering in the page (pictures,
widgets, overflow, the dark theme), which a sampled notebook still fails on.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from driver import NotebookRun
from harness import SHOTS, discover, expectations, shot_name
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from sampling import sample
from themes import THEME_SETTINGS, ThemedRun

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON_SAMPLE = 2  # lessons besides ALWAYS run in the page per run in the bounded (default) form
DRILL_SAMPLE = 1  # drill sources run in the page per run in the bounded (default) form
ALWAYS = Path("lessons/00-start-here.ipynb")  # a learner's first page: checked in every run
_FOUND = discover()
NOTEBOOKS = [p for p in _FOUND if p == ALWAYS] + sample(
    [p for p in _FOUND if p.parts[0] != "solutions" and p != ALWAYS], LESSON_SAMPLE,
    "browser-lessons", lambda p: p.as_posix()) + sample(
    [p for p in _FOUND if p.parts[0] == "solutions"], DRILL_SAMPLE, "browser-drills",
    lambda p: p.as_posix())


@pytest.mark.parametrize(
    "rel",
    [pytest.param(p, id=p.as_posix()) for p in NOTEBOOKS]
    or [pytest.param(None, id="none", marks=pytest.mark.skip(reason="no notebooks yet"))],
)
def test_notebook_in_jupyterlab(rel: Path, lab_server, browser, record) -> None:
    kind = ThemedRun if rel.parts[0] == "lessons" else NotebookRun
    run = kind(lab_server, browser, rel, "lab", SHOTS, shot_name(rel))
    result = run.check()
    record(result)
    assert not result.problems, "\n".join(str(p) for p in result.problems)


# A cell list of (source, words every problem reported for that cell must include, or None when
# the cell must come out clean).
CANARY = [
    ("import sys\nprint('oops', file=sys.stderr)", "wrote to stderr: oops"),
    ("from minirt.viz.run import state_diagram\nstate_diagram()", None),
    ("import minirt.viz\nminirt.viz.dot_available = lambda: False  # as if dot were missing\n"
     "state_diagram()", "SVG"),
    ("from IPython.display import display\n"
     "display({'text/plain': 'VBox(children=(IntSlider(value=0),))'}, raw=True)",
     "plain text `VBox("),
    ("display({'application/vnd.jupyter.widget-view+json': {'model_id': '0' * 32,\n"
     "         'version_major': 2, 'version_minor': 0}, 'text/plain': 'VBox()'}, raw=True)",
     "widget not rendered"),
    ("import ipywidgets\nipywidgets.IntSlider(max=3)  # moves, but drives nothing",
     "not the output"),
    ("left = ipywidgets.Output()\nwith left:\n    print('a table that needs room to be read')\n"
     "ipywidgets.HBox([left, ipywidgets.HTML('<div style=\"width:3000px\">wide</div>')])",
     "squeezed"),
    ("display({'image/svg+xml': '<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"3000\" '\n"
     "          'height=\"20\"><text x=\"2900\" y=\"15\">cut</text></svg>'}, raw=True)",
     "cut off"),
    ("from minirt.viz.budget import SVG\nSVG('<svg xmlns=\"http://www.w3.org/2000/svg\" '\n"
     "    'width=\"3000\" height=\"20\"><text x=\"2900\" y=\"15\">fits</text></svg>')", None),
    ("display({'image/svg+xml': '<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" '\n"
     "          'height=\"20\"><text x=\"5\" y=\"15\" fill=\"#333333\">dim</text></svg>'}, raw=True)",
     "in JupyterLab Dark, picture 1 of 1: text 'dim'"),
    ("1 / 0", "raised ZeroDivisionError"),
    ("print('never reached')", "did not run"),
]


def test_checks_catch_what_a_learner_would_see(lab_server, browser) -> None:
    cells = [new_markdown_cell("# canary: every code cell but one is broken on purpose\n\n"
                               "![a remote image](https://example.com/canary.png)")]
    cells += [new_code_cell(src) for src, _ in CANARY]
    nb = new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    rel = Path("selftest") / "canary.ipynb"
    (lab_server.root / rel.parent).mkdir(exist_ok=True)
    nbformat.write(nb, str(lab_server.root / rel))

    run = ThemedRun(lab_server, browser, rel, "lab")
    result = run.check()

    by_cell: dict[int | None, list[str]] = {}
    for p in result.problems:
        by_cell.setdefault(p.cell, []).append(p.what)
    for i, (src, words) in enumerate(CANARY, start=1):
        seen = by_cell.get(i, [])
        if words is None:
            assert not seen, f"cell {i} is fine but was reported: {seen}"
        else:
            assert any(words in w for w in seen), \
                f"cell {i} ({src.splitlines()[-1]!r}) should be reported with {words!r}: {seen}" \
                f" (all: {by_cell}; dark pass: {run.dark})"
    assert None not in by_cell, by_cell[None]
    assert result.svgs >= 1 and result.widgets >= 1, (result.svgs, result.widgets)
    assert "https://example.com/canary.png" in result.blocked, result.blocked
    assert run.dark.get("name") == "JupyterLab Dark" and run.dark["texts"] >= 3, run.dark
    assert not (lab_server.base / "user-settings" / THEME_SETTINGS).exists(), \
        "the dark theme setting was left for the next notebook"


def test_expectations_follow_viz_imports_and_values() -> None:
    nb = new_notebook(cells=[
        new_code_cell("%xmode Minimal\nfrom minirt.viz.run import run_explorer, state_diagram\n"
                      "from tqdm.auto import tqdm"),
        new_code_cell("state_diagram()"),
        new_code_cell("picture = state_diagram()\nx = 1"),
        new_code_cell("display(picture)"),
        new_code_cell("explorer = run_explorer([])\nexplorer"),
        new_code_cell("for _ in tqdm(range(2)):\n    pass"),
        new_code_cell("print(state_diagram().source)"),
    ])
    assert expectations(nb) == {1: {"svg"}, 3: {"svg"}, 4: {"widget"}, 5: {"progress"}}
