"""Builders the store-backed tests share: an operator's application module written where an
``--app module:attr`` reference (and a child process) can import it.

The ``store_url`` fixture (tests/conftest.py) gives the store each such test runs on: a SQLite
file under ``tmp_path``, and a fresh PostgreSQL database (``-m postgres``; the test module loads
``pytest_plugins = ["pg_fixture"]``).

Guarantees: a module name unique per test (from ``tmp_path``), removed from ``sys.modules`` when
the test ends, so two tests never share an application's state. Not here: the runtime itself
(each test builds the one it is about).
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest


@contextmanager
def app_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefix: str,
               source: str) -> Iterator[ModuleType]:
    """``source`` (dedented) as the module ``<prefix>_<tmp_path name>`` in ``tmp_path``,
    importable by name for the duration of the ``with`` block, then forgotten."""
    name = f"{prefix}_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        yield __import__(name)
    finally:
        sys.modules.pop(name, None)
