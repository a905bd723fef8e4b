"""One lesson in JupyterLab's dark theme: it runs clean, and every picture's text is legible.

The lesson is 10 (recovery traces): its waterfall and heat map are drawn by hand as SVG, the
pictures most at risk of dark text on the dark page. The theme is set the way a learner sets it
(the ``themes`` setting, here written to the test server's own user-settings folder before the
page opens, and removed afterwards). The page's output background is read from the page itself
(``getComputedStyle``), and every SVG output (an ``<img>`` data URL or an inline ``<svg>``) is
checked by :func:`contrast.text_problems`: each text against the shape it is drawn on, or against
that background where the picture paints nothing.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from contrast import parse_colour, text_problems, texts_and_grounds
from driver import NotebookRun
from harness import SHOTS, discover, shot_name

pytestmark = [pytest.mark.browser, pytest.mark.slow]

THEME_SETTINGS = Path("@jupyterlab") / "apputils-extension" / "themes.jupyterlab-settings"

PICTURES_JS = """() => {
  const area = document.querySelector('.jp-OutputArea-output') || document.body;
  let el = area, bg = 'rgba(0, 0, 0, 0)';
  while (el) {
    const c = getComputedStyle(el).backgroundColor;
    if (c && !/rgba\\(.*,\\s*0\\)$/.test(c) && c !== 'transparent') { bg = c; break; }
    el = el.parentElement;
  }
  const svgs = [];
  for (const o of document.querySelectorAll('.jp-Notebook [data-mime-type="image/svg+xml"]')) {
    const img = o.querySelector('img'), svg = o.querySelector('svg');
    if (img) svgs.push(img.getAttribute('src') || '');
    else if (svg) svgs.push(svg.outerHTML);
  }
  return {light: document.body.dataset.jpThemeLight, name: document.body.dataset.jpThemeName,
          bg, svgs};
}"""


def svg_source(src: str) -> str:
    """The SVG text of an ``<img>`` data URL (base64 or URL-encoded) or of inline markup."""
    if not src.startswith("data:"):
        return src
    head, _, body = src.partition(",")
    return base64.b64decode(body).decode("utf-8") if ";base64" in head else unquote(body)


class DarkRun(NotebookRun):
    """A NotebookRun that, before the page closes, reads the theme and every picture."""

    pictures: dict[str, Any] = {}

    def interact(self, cells: list[dict[str, Any]]) -> None:
        self.pictures = self.page.evaluate(PICTURES_JS)
        super().interact(cells)


def _lesson() -> Path | None:
    found = [p for p in discover() if p.parts[0] == "lessons" and p.name.startswith("10-")]
    return found[0] if found else None


LESSON = _lesson()


@pytest.mark.skipif(LESSON is None, reason="lesson 10 not found")
def test_a_lesson_in_the_dark_theme_has_legible_pictures(lab_server, browser, record) -> None:
    assert LESSON is not None
    settings = lab_server.base / "user-settings" / THEME_SETTINGS
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"theme": "JupyterLab Dark"}), encoding="utf-8")
    try:
        run = DarkRun(lab_server, browser, LESSON, "lab", SHOTS, shot_name(LESSON, "dark"))
        result = run.check()
    finally:
        settings.unlink(missing_ok=True)
    record(result)
    assert not result.problems, "\n".join(str(p) for p in result.problems)
    seen = run.pictures
    assert seen.get("light") == "false", f"the page is not in a dark theme: {seen.get('name')}"
    page = parse_colour(seen["bg"])
    assert isinstance(page, str), f"cannot read the output background: {seen['bg']!r}"
    assert seen["svgs"], "no SVG picture on the page"
    bad, checked = [], 0
    for i, src in enumerate(seen["svgs"]):
        checked += len(texts_and_grounds(svg_source(src), page))
        bad += [f"picture {i}: {p}" for p in text_problems(svg_source(src), page)]
    # Not vacuous: the pictures' labels were found and judged (lesson 10 draws dozens).
    assert checked >= len(seen["svgs"]), f"only {checked} text(s) found in {len(seen['svgs'])} SVGs"
    assert not bad, f"{len(bad)} illegible text(s) on {page}:\n" + "\n".join(bad[:20])
