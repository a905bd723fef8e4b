"""One headless Chromium (Playwright) that opens a notebook, runs it from the menu and reads it back.

Invariant: requests to any host but 127.0.0.1/localhost are aborted and recorded per notebook.
Each notebook gets its own tab; the tab is closed from File > Close and Shut Down Notebook, and
the kernel is checked gone through the server's REST API (shut down there if the menu failed).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import nbformat
from checks import problems_in
from harness import (
    CHROMIUM_ARGS,
    KERNEL_READY_TIMEOUT_S,
    LOCAL_HOSTS,
    MAX_SHOT_HEIGHT,
    RUN_TIMEOUT_S,
    VIEWPORT,
    Problem,
    Result,
    expectations,
    first_line,
)
from labserver import LabServer
from pagejs import HEIGHT_JS, SHOWN_JS, SNAPSHOT_JS, STATE_JS


def foreign(url: str) -> bool:
    """True for an http(s)/ws(s) URL whose host is not 127.0.0.1 or localhost."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https", "ws", "wss") and \
        (parts.hostname or "") not in LOCAL_HOSTS


class Browser:
    """Headless Chromium with a fresh profile; every non-local request is aborted and counted."""

    def __init__(self, chromium: str, profile: Path) -> None:
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self.context = self._pw.chromium.launch_persistent_context(
            str(profile), executable_path=chromium, headless=True, args=CHROMIUM_ARGS,
            viewport=dict(VIEWPORT))
        self.blocked: list[str] = []
        self.context.route(foreign, self._abort)
        self.context.route_web_socket(foreign, self._refuse)

    def _abort(self, route: Any) -> None:
        self.blocked.append(route.request.url)
        route.abort()

    def _refuse(self, ws: Any) -> None:
        self.blocked.append(ws.url)
        ws.close()

    def close(self) -> None:
        try:
            self.context.close()
        finally:
            self._pw.stop()


class NotebookRun:
    """Open one notebook in one tab, Run All Cells from the menu, check it, close it."""

    def __init__(self, server: LabServer, browser: Browser, rel: Path, ui: str = "lab",
                 shots: Path | None = None, shot: str | None = None) -> None:
        self.server, self.browser, self.rel, self.ui = server, browser, rel, ui
        self.rel_posix = rel.as_posix()
        self.nb = nbformat.read(str(server.root / rel), as_version=4)
        self.result = Result(notebook=self.rel_posix, ui=ui, cells=len(self.nb.cells))
        self.shot_path = (shots / f"{shot}.png") if shots and shot else None
        self.page: Any = None

    # -- helpers ---------------------------------------------------------------------------
    def problem(self, what: str, cell: int | None = None) -> None:
        line = first_line(self.nb.cells[cell].source) if cell is not None else ""
        self.result.problems.append(Problem(self.rel_posix, cell, line, what))

    def state(self) -> dict[str, Any]:
        return self.page.evaluate(STATE_JS)

    def menu(self, top: str, item: str) -> None:
        self.page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{re.escape(top)}$")).click()
        self.page.locator(".lm-Menu-itemLabel",
                          has_text=re.compile(f"^{re.escape(item)}")).first.click()

    def kernel_state(self) -> tuple[str | None, int]:
        s = self.server.session_for(self.rel_posix)
        if not s or not s.get("kernel"):
            return None, 0
        k = self.server.api("GET", f"/api/kernels/{s['kernel']['id']}")
        return k.get("execution_state"), int(k.get("connections", 0))

    def url(self) -> str:
        path = quote(self.rel_posix)
        if self.ui == "lab":
            return f"{self.server.url}/lab/tree/{path}?reset&token={self.server.token}"
        return f"{self.server.url}/notebooks/{path}?token={self.server.token}"

    # -- steps -----------------------------------------------------------------------------
    def open(self, page: Any = None) -> None:
        self.page = page or self.browser.context.new_page()
        self.page.on("pageerror", lambda e: self.result.page_errors.append(str(e)[:200]))
        if page is None:
            self.page.goto(self.url())
        self.page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60000)
        deadline = time.monotonic() + KERNEL_READY_TIMEOUT_S
        while True:
            st = self.state()
            status, connections = self.kernel_state()
            if (st["indicator"] == "idle" and status == "idle" and connections > 0
                    and st["cells"] == len(self.nb.cells) and not st["dialog"]):
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"kernel not ready after "
                                     f"{KERNEL_READY_TIMEOUT_S:.0f} s (indicator {st['indicator']},"
                                     f" kernel {status}, {connections} connection(s), dialog "
                                     f"{st['dialog']!r}, {st['cells']} cells on the page)")
            self.page.wait_for_timeout(250)
        for close in self.page.locator(".jp-Notification-Toast-Close").all():
            close.click()  # "Would you like to get notified about official Jupyter news?"

    def run_all(self) -> None:
        self.menu("Run", "Run All Cells")
        started, stable = not self.state()["prompts"], 0  # no code cell: nothing to wait for
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(250)
            st = self.state()
            if st["dialog"]:
                self.problem(f"a dialog appeared while running: {st['dialog']}")
                return
            busy = sum("*" in p for p in st["prompts"])
            ran = any(any(ch.isdigit() for ch in p) for p in st["prompts"])
            started = started or busy > 0 or ran
            idle = st["indicator"] == "idle" and self.kernel_state()[0] == "idle"
            stable = stable + 1 if (started and busy == 0 and idle) else 0
            if stable >= 3:
                return
        self.problem(f"Run All Cells did not finish within {RUN_TIMEOUT_S:.0f} s")

    def save(self) -> nbformat.NotebookNode | None:
        """File > Save; returns the saved notebook (to name an error output precisely)."""
        path = self.server.root / self.rel
        before = path.stat().st_mtime_ns
        self.menu("File", "Save")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(250)
            if path.stat().st_mtime_ns != before:
                try:
                    return nbformat.read(str(path), as_version=4)
                except Exception:  # half-written: read again
                    continue
        self.problem("File > Save did not write the notebook within 20 s")
        return None

    def screenshot(self) -> None:
        """Grow the viewport to the notebook's full height, then a full-page screenshot."""
        if self.ui == "lab":  # fold the file browser away so the notebook gets the width
            tab = self.page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
            if tab.count():
                tab.first.click()
        height = VIEWPORT["height"]
        for _ in range(4):  # offscreen cells have estimated heights until they are on screen
            want = min(max(int(self.page.evaluate(HEIGHT_JS)), VIEWPORT["height"]),
                       MAX_SHOT_HEIGHT)
            if want == height:
                break
            if want == MAX_SHOT_HEIGHT:
                self.result.notes.append(f"screenshot cut at {MAX_SHOT_HEIGHT}px")
            height = want
            self.page.set_viewport_size({"width": VIEWPORT["width"], "height": height})
            self.page.wait_for_timeout(500)
        self.page.evaluate(HEIGHT_JS)
        if self.shot_path:
            self.shot_path.parent.mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(self.shot_path), full_page=True)
            self.result.screenshot = str(self.shot_path)

    def _wait_shown(self, cell: Any, before: str, handle: Any, value: str,
                    timeout: float = 15.0) -> tuple[str, str]:
        deadline = time.monotonic() + timeout
        now, shown = value, before
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(250)
            now = handle.get_attribute("aria-valuenow") or ""
            shown = cell.evaluate(SHOWN_JS)
            if now != value and shown != before:
                break
        return now, shown

    def interact(self, cells: list[dict[str, Any]]) -> None:
        """For every cell with a slider: End by keyboard, then Home, then Play; each must change
        what the widget shows."""
        locs = self.page.locator(".jp-Notebook .jp-Cell")
        for i, rec in enumerate(cells):
            if not rec.get("sliders"):
                continue
            cell = locs.nth(i)
            handle = cell.locator('.widget-slider [role="slider"]').first
            v0 = handle.get_attribute("aria-valuenow") or ""
            before = cell.evaluate(SHOWN_JS)
            handle.focus()
            self.page.keyboard.press("End")
            v1, after = self._wait_shown(cell, before, handle, v0)
            if v1 == v0 or after == before:
                self.problem(f"pressing End on the slider (value {v0}) changed "
                             f"{'nothing' if v1 == v0 else 'the value to ' + v1 + ' but not the output'}",
                             i)
                continue
            self.result.interactions.append(
                f"cell {i}: slider {v0} -> {v1} by keyboard: '{first_line(before)}' -> "
                f"'{first_line(after)}'")
            self.page.keyboard.press("Home")
            home, at_home = self._wait_shown(cell, after, handle, v1)
            if not rec.get("plays"):
                continue
            play = cell.locator(".widget-play button").first
            play.click()
            v2, played = self._wait_shown(cell, at_home, handle, home)
            cell.locator(".widget-play button:has(.fa-stop)").first.click()
            if v2 == home or played == at_home:
                self.problem(f"pressing Play (slider at {home}) changed nothing within 15 s", i)
            else:
                self.result.interactions.append(
                    f"cell {i}: Play moved the slider {home} -> {v2}: '{first_line(played)}'")

    def notes(self, cells: list[dict[str, Any]]) -> list[str]:
        """Things worth a look that are not failures: clipped diagrams, nothing to interact with."""
        out = []
        for i, rec in enumerate(cells):
            clipped = [s for s in rec["svgs"] if s["ok"] and s["clip"] > 2]
            for s in clipped:
                out.append(f"cell {i} `{first_line(self.nb.cells[i].source)}`: a {s['w']}px-wide "
                           f"diagram overflows the output area by {s['clip']}px "
                           f"(cut off, scroll sideways to see it)")
        if any(c["widgets"] for c in cells) and not any(c["sliders"] for c in cells):
            bars = sum(c["progress"] for c in cells)
            out.append(f"widgets but nothing to interact with ({bars} progress bar(s))")
        return out

    def more_checks(self, cells: list[dict[str, Any]]) -> None:
        """Checks a subclass adds after the ones above, on the same open page (none here)."""

    def close(self) -> None:
        """File > Close and Shut Down Notebook; the kernel must be gone afterwards."""
        if self.page.is_closed():
            return self._kernel_gone()
        try:
            self.menu("File", "Close and Shut Down Notebook")
            self.page.locator(".jp-Dialog .jp-mod-accept").click(timeout=10000)
        except Exception as e:  # the page may close itself (Notebook 7 closes its window)
            if not self.page.is_closed():
                self.problem(f"File > Close and Shut Down Notebook failed: {str(e)[:120]}")
        self._kernel_gone()
        if not self.page.is_closed():
            self.page.close()

    def _kernel_gone(self) -> None:
        # A bound on liveness, not a measured time: a kernel that stops a private PostgreSQL
        # cluster on exit (the appendix) took more than 15 s to go on a loaded 2-core machine.
        deadline = time.monotonic() + 60
        while self.server.session_for(self.rel_posix) and time.monotonic() < deadline:
            time.sleep(0.25)
        s = self.server.session_for(self.rel_posix)
        if s:
            self.problem("the kernel was still running after Close and Shut Down Notebook")
            self.server.api("DELETE", f"/api/sessions/{s['id']}")

    # -- the whole thing -------------------------------------------------------------------
    def check(self, page: Any = None, interact: bool = True) -> Result:
        t0 = time.monotonic()
        blocked_before = len(self.browser.blocked)
        try:
            self.open(page)
            t1 = time.monotonic()
            self.result.seconds_open = round(t1 - t0, 2)
            self.run_all()
            self.result.seconds_run = round(time.monotonic() - t1, 2)
            saved = self.save()
            try:  # widgets render after the kernel went idle; give them a moment
                self.page.wait_for_function(
                    "() => !document.body.textContent.includes('Loading widget')", timeout=10000)
            except Exception:
                pass  # reported by the checks as "widget not rendered"
            self.screenshot()
            cells = self.page.evaluate(SNAPSHOT_JS)
            self.result.svgs = sum(len([s for s in c["svgs"] if s["ok"]]) for c in cells)
            self.result.widgets = sum(c["widgets"] for c in cells)
            self.result.notes.extend(self.notes(cells))
            self.result.problems.extend(
                problems_in(self.rel_posix, self.nb, cells, expectations(self.nb), saved))
            if interact:
                self.interact(cells)
            self.more_checks(cells)
        except Exception as e:  # a step the browser could not do: a problem, not a crash
            self.problem(f"the browser step failed: {type(e).__name__}: {first_line(str(e))}")
        finally:
            if self.page is not None:
                self.close()
            self.result.blocked = self.browser.blocked[blocked_before:]
            self.result.problems.sort(key=lambda p: -1 if p.cell is None else p.cell)
            self.result.seconds_total = round(time.monotonic() - t0, 2)
        return self.result
