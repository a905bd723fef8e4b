"""Shared pytest fixtures. Keep this file small; fixtures used by one file belong in that file."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest
import sampling

REPO_ROOT = Path(__file__).resolve().parents[1]

#: Set to "1" by `--full-sweeps` (or by the caller). Long sweeps run a bounded, rotating sample by
#: default (tests/sampling.py), so the suite fits CI, and every case with it:
#: `./course test --full-sweeps`.
FULL_SWEEPS_ENV = sampling.FULL_SWEEPS_ENV


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full-sweeps", action="store_true", default=False,
        help="run every case of the bounded sweeps (every drill mutant, every tamper file, "
             "every SIGKILL cell of the crash sweeps), not the rotating sample CI runs",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--full-sweeps"):
        os.environ[FULL_SWEEPS_ENV] = "1"


@pytest.fixture(scope="session")
def full_sweeps() -> bool:
    """True when the bounded sweeps should run every case (see FULL_SWEEPS_ENV)."""
    return sampling.full()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository (course) root: the folder holding nbgrader_config.py."""
    return REPO_ROOT


def copy_course(dest: Path, slugs: Iterable[str] = (), root: Path = REPO_ROOT) -> Path:
    """A minimal copy of the course for grading in isolation (its own build/ and gradebook).

    Copies nbgrader_config.py and, for each slug, solutions/<slug>/ and drills/<slug>/ if present.
    """
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(root / "nbgrader_config.py", dest / "nbgrader_config.py")
    for slug in slugs:
        for part in ("solutions", "drills"):
            src = root / part / slug
            if src.is_dir():
                shutil.copytree(src, dest / part / slug, dirs_exist_ok=True)
    (dest / "build").mkdir(exist_ok=True)
    return dest


@pytest.fixture(scope="session")
def course_copy():
    """`course_copy(dest, slugs)`: see copy_course."""
    return copy_course


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store for the test, on both stores: a SQLite file, and a fresh PostgreSQL database
    (``-m postgres``; the module loads ``pytest_plugins = ["pg_fixture"]``, which gives pg_url)."""
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return str(tmp_path / "runs.sqlite")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """Run the lesson-time checks last: they judge this run's times, so they come after
    tests/test_notebooks.py wrote build/notebook-times.json.

    (The browser suite no longer needs to come last: its Chromium, and the event loop sync
    Playwright runs in the main thread, are closed when the run leaves tests/browser/; see
    tests/browser/conftest.py.)"""
    late = [i for i in items if i.nodeid.startswith("tests/test_lesson_times.py")]
    if late:
        items[:] = [i for i in items if i not in late] + late
