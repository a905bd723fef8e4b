"""The warm nbgrader template: each command runs in a fresh fork, with its own log and exit code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from minirt_course.course import nbgrade, nbrun

pytestmark = pytest.mark.skipif(not nbrun.available(), reason="needs os.fork")


def _plain(args: list[str], cwd: Path) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd,
                          env=nbgrade.nbgrader_env(), capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def test_a_forked_command_ends_as_the_plain_command_does(tmp_path: Path) -> None:
    cases = [["autograde", "no-such-drill"], ["--version"], ["autograde", "no-such-drill"]]
    with nbrun.Runner(tmp_path, nbgrade.nbgrader_env()) as runner:
        forked = [runner.run(args, tmp_path / f"{i}.log") for i, args in enumerate(cases)]
        assert runner.last_cpu is not None and runner.last_cpu > 0  # the command's, by wait4
    plain = [_plain(args, tmp_path) for args in cases[:2]]
    assert forked == [plain[0][0], plain[1][0], plain[0][0]] == [1, 0, 1], (
        "each forked command must exit as `python -m nbgrader` does, a failed one leaving the "
        "next command a fresh start"
    )
    assert "No notebooks were matched" in (tmp_path / "0.log").read_text()
    assert "No notebooks were matched" in plain[0][1]
    assert "nbgrader version" in (tmp_path / "1.log").read_text()


def test_a_dead_template_is_a_named_error(tmp_path: Path) -> None:
    runner = nbrun.Runner(tmp_path, nbgrade.nbgrader_env())
    runner.proc.kill()
    runner.proc.wait()
    with pytest.raises(nbrun.RunnerDied):
        runner.run(["--version"], tmp_path / "x.log")
    runner.close()


def test_the_template_skips_only_what_no_nbgrader_check_uses(tmp_path: Path) -> None:
    """rfc3987_syntax (jsonschema's optional IRI format) is skipped in the template; nbformat's
    validation, which nbgrader's commands rely on, still refuses a malformed notebook there."""
    probe = """
import io, sys
from minirt_course.course import nbrun
nbrun.serve(io.StringIO(""), io.StringIO())
assert sys.modules["rfc3987_syntax"] is None and "nbformat" in sys.modules
import nbformat
good = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
nbformat.validate(good)
bad = nbformat.from_dict({**good, "cells": [{"cell_type": "code", "metadata": {}}]})
try:
    nbformat.validate(bad)
except nbformat.ValidationError:
    print("refused")
"""
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                         text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "refused"


def test_warmed_caches_change_no_feedback_page(tmp_path: Path) -> None:
    """What the template warms for generate_feedback (nbrun.warm_feedback) is a cache: the HTML
    nbconvert writes for a notebook with code, markdown, an entity and an image is the same
    byte for byte in a process that warmed them and one that did not."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Title &amp; more\n\n![x](data:image/png;base64,AA==)"),
        nbformat.v4.new_code_cell("def f(x):\n    return x + 1  # é\n%time f(1)"),
    ])
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(path))
    probe = """
import sys
from minirt_course.course import nbrun
nbrun.skip_unused_imports()
if sys.argv[1] == "warm":
    nbrun.warm_feedback()
    from bs4.dammit import EntitySubstitution
    assert EntitySubstitution._CLASS_VARIABLES_POPULATED
from nbconvert import HTMLExporter
body, _ = HTMLExporter().from_filename(sys.argv[2])
sys.stdout.write(body)
"""
    pages = [subprocess.run([sys.executable, "-c", probe, mode, str(path)], capture_output=True,
                            text=True, check=True).stdout for mode in ("warm", "cold")]
    assert "Title" in pages[0] and "tabindex" in pages[0]
    assert pages[0] == pages[1], "a warmed cache changed what nbconvert writes"
