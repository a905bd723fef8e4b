"""One lesson in Notebook 7 (the classic-style interface): found from /tree, opened at /notebooks/...,
run from its Run menu, checked like in JupyterLab (outputs, diagrams, live widgets, a slider)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from driver import NotebookRun
from harness import SHOTS, discover, shot_name

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _lesson() -> Path | None:
    lessons = [p for p in discover() if p.parts[0] == "lessons"]
    preferred = [p for p in lessons if p.name.startswith("01-")]  # it has a Play/slider explorer
    return (preferred or lessons or [None])[0]


LESSON = _lesson()


@pytest.mark.skipif(LESSON is None, reason="no lessons yet")
def test_lesson_in_notebook7(lab_server, browser, record) -> None:
    assert LESSON is not None
    tree = browser.context.new_page()
    tree.goto(f"{lab_server.url}/tree?token={lab_server.token}")
    names = tree.locator(".jp-DirListing-itemText")
    names.filter(has_text=re.compile(r"^lessons$")).first.dblclick(timeout=60000)
    item = names.filter(has_text=re.compile(f"^{re.escape(LESSON.name)}$")).first
    item.wait_for(timeout=30000)
    with browser.context.expect_page(timeout=30000) as opened:
        item.dblclick()
    page = opened.value
    tree.close()
    page.wait_for_load_state()
    assert f"/notebooks/{LESSON.as_posix()}" in page.url, page.url

    run = NotebookRun(lab_server, browser, LESSON, "notebook7", SHOTS, shot_name(LESSON, "notebook7"))
    result = run.check(page=page)
    record(result)
    assert not result.problems, "\n".join(str(p) for p in result.problems)
    assert result.svgs >= 1, "no SVG diagram rendered in Notebook 7"
