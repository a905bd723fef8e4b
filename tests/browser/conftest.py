"""Fixtures for the browser suite: one JupyterLab server and one headless Chromium per session.

Needs Debian's chromium (or $MINIRT_CHROMIUM) and the playwright package; a downloaded browser is
never used. Without them the suite is skipped, except under CI (CI=true), where it fails.
Writes build/screenshots/<name>.png and build/browser-report.json (timings, blocked requests,
interactions, problems), and prints a summary at the end of the pytest run.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import REPORT, ROOT, SHOTS, Result
from labserver import LabServer

RESULTS: list[Result] = []
SESSION: dict[str, Any] = {"t0": time.monotonic()}


def _chromium() -> str | None:
    for candidate in (os.environ.get("MINIRT_CHROMIUM"), shutil.which("chromium"),
                      shutil.which("chromium-browser"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"browser suite cannot run under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium() -> str:
    path = _chromium()
    if path is None:
        _missing("no chromium found (apt-get install chromium, or set MINIRT_CHROMIUM)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing("the playwright package is not installed (pip install -e '.[dev]')")
    return str(path)


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[LabServer]:
    server = LabServer(tmp_path_factory.mktemp("jupyterlab"))
    t0 = time.monotonic()
    server.start()
    SESSION["server_start_s"] = round(time.monotonic() - t0, 2)
    try:
        yield server
    finally:
        left = server.kernel_ids()
        server.stop()
        SESSION["kernels_left_at_end"] = len(left)


#: The open headless Chromium, if any (see :func:`browser`).
_OPEN: dict[str, Any] = {}
HERE = Path(__file__).resolve().parent


@pytest.fixture
def browser(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Any:
    """The headless Chromium, shared by consecutive browser tests and closed after the last of
    them (:func:`pytest_runtest_teardown`), before any test outside tests/browser/ runs.

    Sync Playwright runs an event loop in the main thread from ``start()`` to ``stop()``; while
    it runs, ``asyncio.run`` (the async runtime's tests, the hub's kernel client) refuses to
    start. A session-wide browser (or pytest's "package" scope, which for a folder without
    ``__init__.py`` is the session) kept it running to the end; closed when the run leaves
    this folder, a later test is safe wherever it comes in the order (a browser test after it
    starts a new Chromium)."""
    if "browser" not in _OPEN:
        from driver import Browser

        _OPEN["browser"] = Browser(chromium, tmp_path_factory.mktemp("chromium-profile"))
    return _OPEN["browser"]


def close_browser() -> None:
    b = _OPEN.pop("browser", None)
    if b is not None:
        SESSION["blocked_total"] = SESSION.get("blocked_total", 0) + len(b.blocked)
        SESSION["browser_starts"] = SESSION.get("browser_starts", 0) + 1
        b.close()


def _in_this_folder(item: pytest.Item | None) -> bool:
    return item is not None and HERE in Path(str(item.path)).resolve().parents


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """After a browser test's own teardown: close Chromium if the next test is not one."""
    try:
        return (yield)
    finally:
        if not _in_this_folder(nextitem):
            close_browser()


def pytest_sessionfinish(session: pytest.Session) -> None:
    close_browser()  # a run stopped early (-x, Ctrl-C) between two browser tests


@pytest.fixture
def record() -> Any:
    """record(result): keep a result for the report, whatever the test's outcome."""
    return RESULTS.append


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not RESULTS:
        return
    wall = round(time.monotonic() - SESSION.get("t0", time.monotonic()), 1)
    report = {"wall_seconds": wall, **{k: v for k, v in SESSION.items() if k != "t0"},
              "notebooks": [r.summary() for r in RESULTS]}
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(json.dumps(report, indent=2) + "\n")
    tr = terminalreporter
    tr.write_sep("-", "browser suite (JupyterLab + headless Chromium)")
    for r in RESULTS:
        tr.write_line(f"{r.ui:9} {r.notebook:52} open {r.seconds_open:5.1f}s  run "
                      f"{r.seconds_run:5.1f}s  total {r.seconds_total:5.1f}s  svg {r.svgs:2}  "
                      f"widgets {r.widgets:3}  blocked {len(r.blocked)}  "
                      f"problems {len(r.problems)}")
        for line in r.interactions:
            tr.write_line(f"{'':10}interaction: {line}")
        for line in r.notes:
            tr.write_line(f"{'':10}note: {line}")
        for line in sorted(set(r.page_errors)):
            tr.write_line(f"{'':10}page error (JavaScript): {line}")
    blocked = sorted({u for r in RESULTS for u in r.blocked})
    tr.write_line(f"blocked non-local requests: {sum(len(r.blocked) for r in RESULTS)}"
                  + (f" ({', '.join(blocked[:5])})" if blocked else ""))
    tr.write_line(f"wall time {wall}s; report {REPORT.relative_to(ROOT)}; "
                  f"screenshots {SHOTS.relative_to(ROOT)}/")
