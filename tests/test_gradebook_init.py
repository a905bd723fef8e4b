"""The gradebook minirt_course creates for a first grading is the one nbgrader would have made.

nbgrader's ``Gradebook`` runs ``alembic heads`` in a subprocess for every new database (2-4 s of a
first grading); :mod:`minirt_course.course.gradebook` reads the head from the migration files
instead. These tests compare the two databases' schemas and versions, and the head with alembic's.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import pytest

from minirt_course.course import gradebook


def _schema(db: Path) -> tuple[list[tuple[str, str]], list[tuple[str]]]:
    with sqlite3.connect(db) as conn:
        tables = sorted(conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall())
        version = conn.execute("SELECT version_num FROM alembic_version").fetchall()
    return tables, version


def test_the_head_is_alembics_and_the_gradebook_is_nbgraders(tmp_path: Path, monkeypatch) -> None:
    from nbgrader.api import Gradebook, get_alembic_version

    # nbgrader runs `alembic` from PATH: this interpreter's bin/ first (as nbgrade.nbgrader_env)
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])

    head = gradebook.alembic_head()
    assert head is not None and head == get_alembic_version()  # alembic's own answer
    ours, theirs = tmp_path / "ours" / "gradebook.db", tmp_path / "theirs.db"
    assert gradebook.ensure(f"sqlite:///{ours}")
    assert not gradebook.ensure(f"sqlite:///{ours}")  # an existing gradebook is left alone
    assert not list(ours.parent.glob(".gradebook-*"))
    Gradebook(f"sqlite:///{theirs}", "c").close()
    assert _schema(ours)[0] == _schema(theirs)[0]
    assert _schema(ours)[1] == _schema(theirs)[1] == [(head,)]
    with Gradebook(f"sqlite:///{ours}", "c") as gb:  # nbgrader opens it as its own
        gb.add_student("ada")
        assert [s.id for s in gb.students] == ["ada"]


def test_migration_files_that_are_not_one_chain_give_no_head(tmp_path: Path) -> None:
    def rev(name: str, down: str | None) -> None:
        (tmp_path / f"{name}.py").write_text(
            f"revision = '{name}'\ndown_revision = {down and repr(down)}\n", encoding="utf-8")

    rev("a1", None)
    rev("b2", "a1")
    assert gradebook.alembic_head(tmp_path) == "b2"
    rev("c3", "a1")  # a branch: two heads
    assert gradebook.alembic_head(tmp_path) is None
    (tmp_path / "c3.py").write_text("revision = make()\n", encoding="utf-8")
    assert gradebook.alembic_head(tmp_path) is None
    assert not gradebook.ensure("postgresql://nowhere/db")


def test_the_warm_templates_fork_makes_the_same_gradebook(tmp_path: Path) -> None:
    """A first grading makes the gradebook in a fork of the warm nbgrader template
    (nbrun.Runner.ensure_gradebook): the same schema and version as ensure() here, the template
    still serving commands afterwards, an existing gradebook left alone."""
    from minirt_course.course import nbgrade, nbrun

    if not nbrun.available():
        pytest.skip("needs os.fork")
    here, forked = tmp_path / "here.db", tmp_path / "forked" / "gradebook.db"
    assert gradebook.ensure(f"sqlite:///{here}")
    with nbrun.Runner(tmp_path, nbgrade.nbgrader_env()) as runner:
        assert runner.ensure_gradebook(f"sqlite:///{forked}")
        before = forked.read_bytes()
        assert runner.ensure_gradebook(f"sqlite:///{forked}")  # exists: untouched
        assert forked.read_bytes() == before
        assert runner.run(["--version"], tmp_path / "v.log") == 0
    assert _schema(forked) == _schema(here)
