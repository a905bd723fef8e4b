"""After a notebook's light-theme checks, the same open page in JupyterLab Dark, then light again.

Invariant: the notebook is not re-run. On the page the light checks just read, :class:`ThemedRun`
picks Settings > Theme > JupyterLab Dark from the menu (as a learner does), waits for the page to
say so (``document.body.dataset.jpThemeLight == "false"``), then checks

- every SVG picture's text against what it is drawn on, or the page's output background read
  from the page (:func:`contrast.text_problems`): a text under 3:1 is a problem naming the cell,
  the picture and the text (the ground is read per picture: the first opaque background from
  the picture up the page, so a picture inside a red stderr block is judged on red);
- the page again with :func:`checks.problems_in` (overflow, squeezed widgets...): a problem the
  light pass did not already report is reported, marked "in JupyterLab Dark";

takes the dark screenshot (``<name>-dark.png``, beside the light ``<name>.png``), and picks
JupyterLab Light again. The theme is a user setting the page writes into the server's
user-settings folder: that file is put back as it was before the switch (removed if it was not
there), so the next notebook opens in the light theme; a page that does not start light is a
problem too.

Not guaranteed: contrast of anything but SVG ``<text>`` (HTML tables, widgets, plain text are
left to JupyterLab's theme); pictures are judged as :mod:`contrast` states (bounding boxes).
"""

from __future__ import annotations

import base64
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from checks import problems_in
from contrast import parse_colour, text_problems, texts_and_grounds
from driver import NotebookRun
from harness import expectations
from pagejs import PICTURES_JS, SNAPSHOT_JS

DARK, LIGHT = "JupyterLab Dark", "JupyterLab Light"
THEME_SETTINGS = Path("@jupyterlab") / "apputils-extension" / "themes.jupyterlab-settings"
THEME_TIMEOUT_MS = 20000


def svg_source(src: str) -> str:
    """The SVG text of an ``<img>`` data URL (base64 or URL-encoded) or of inline markup."""
    if not src.startswith("data:"):
        return src
    head, _, body = src.partition(",")
    return base64.b64decode(body).decode("utf-8") if ";base64" in head else unquote(body)


class ThemedRun(NotebookRun):
    """A NotebookRun that also checks its page in JupyterLab Dark before the page closes."""

    #: What the dark pass saw: theme name, background, pictures and texts judged, seconds.
    dark: dict[str, Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dark = {}

    def settings_file(self) -> Path:
        return self.server.base / "user-settings" / THEME_SETTINGS

    def pick_theme(self, name: str, light: str) -> None:
        """Settings > Theme > ``name`` from the menu; wait until the page shows that theme."""
        self.page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Settings$")).click()
        self.page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$")).first.click()
        self.page.locator(".lm-Menu-itemLabel",
                          has_text=re.compile(f"^{re.escape(name)}$")).first.click()
        self.page.wait_for_function(
            f"() => document.body.dataset.jpThemeLight === '{light}' && "
            f"document.body.dataset.jpThemeName === '{name}'", timeout=THEME_TIMEOUT_MS)

    def _restore_setting(self, before: str | None) -> None:
        """Wait for the page to write the light theme back, then put the file as it was."""
        path = self.settings_file()
        deadline = time.monotonic() + THEME_TIMEOUT_MS / 1000
        while time.monotonic() < deadline:
            if path.is_file() and LIGHT in path.read_text(encoding="utf-8"):
                break
            time.sleep(0.1)
        else:
            self.problem(f"the page did not write the theme setting back to {LIGHT!r}")
        if before is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(before, encoding="utf-8")

    def more_checks(self, cells: list[dict[str, Any]]) -> None:
        if self.ui != "lab":
            return
        t0 = time.monotonic()
        start = self.page.evaluate(PICTURES_JS)
        if start["light"] != "true":
            self.problem(f"the page opened in {start['name']!r}, not a light theme (a theme "
                         f"setting leaked from an earlier notebook?)")
        path = self.settings_file()
        before = path.read_text(encoding="utf-8") if path.is_file() else None
        light_seen = {str(p) for p in self.result.problems} | \
            {f"cell:{p.cell}" for p in self.result.problems}
        try:  # inside: a switch that half-happened is still undone and its setting restored
            self.pick_theme(DARK, "false")
            self._check_dark(light_seen)
        finally:
            try:
                self.page.keyboard.press("Escape")  # a menu a failed step left open
                self.pick_theme(LIGHT, "true")
            finally:
                self._restore_setting(before)
        self.dark["seconds"] = round(time.monotonic() - t0, 2)
        self.result.notes.append(
            f"{DARK}: {self.dark['pictures']} picture(s), {self.dark['texts']} text(s) judged on "
            f"{self.dark['page']}, lowest contrast {self.dark['lowest']}; "
            f"{self.dark['seconds']} s added")

    def _check_dark(self, light_seen: set[str]) -> None:
        seen = self.page.evaluate(PICTURES_JS)
        self.dark.update(name=seen["name"], page=parse_colour(seen["bg"]), pictures=0, texts=0,
                         lowest=None)
        for i, svgs in enumerate(seen["cells"][:len(self.nb.cells)]):
            for k, pic in enumerate(svgs, start=1):
                ground = parse_colour(pic["bg"])
                if not isinstance(ground, str):
                    self.problem(f"in {DARK}, picture {k} of {len(svgs)}: cannot read the colour "
                                 f"it is drawn on ({pic['bg']!r})", i)
                    continue
                text = svg_source(pic["src"])
                judged = texts_and_grounds(text, ground)
                self.dark["pictures"] += 1
                self.dark["texts"] += len(judged)
                if judged:
                    low = min(t.ratio for t in judged)
                    self.dark["lowest"] = low if self.dark["lowest"] is None \
                        else min(low, self.dark["lowest"])
                for line in text_problems(text, ground):
                    self.problem(f"in {DARK}, picture {k} of {len(svgs)}: {line}", i)
        if self.dark["pictures"] and not self.dark["texts"]:
            self.problem(f"in {DARK}: no text found to judge in {self.dark['pictures']} picture(s)")
        dark_cells = self.page.evaluate(SNAPSHOT_JS)
        # A cell the light pass already reported is not reported again (its errors are named there).
        for p in problems_in(self.rel_posix, self.nb, dark_cells, expectations(self.nb)):
            if str(p) not in light_seen and f"cell:{p.cell}" not in light_seen:
                p.what = f"in {DARK}: {p.what}"
                self.result.problems.append(p)
        if self.shot_path is not None:
            light_shot, light_path = self.result.screenshot, self.shot_path
            self.shot_path = light_path.with_name(f"{light_path.stem}-dark{light_path.suffix}")
            try:
                self.screenshot()
                self.dark["screenshot"] = self.result.screenshot
                self.result.notes.append(f"{DARK} screenshot: {self.result.screenshot}")
            finally:
                self.shot_path, self.result.screenshot = light_path, light_shot
