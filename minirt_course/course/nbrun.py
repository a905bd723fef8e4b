"""One warm process that runs nbgrader's commands, each in a fresh fork of itself.

Invariant: every nbgrader command of a grading (``generate_assignment``, ``autograde``,
``generate_feedback``) runs in a process of its own, exactly as ``python -m nbgrader ARGS`` would
(same interpreter, working directory, environment, configuration read from ``nbgrader_config.py``
at that moment, its output captured to a log file, its exit code reported), but the process is a
``fork`` of a template that imported nbgrader, nbconvert and jupyter_client once, ahead of time.
Importing nbgrader costs about 2 s of CPU, and a grading runs two or three commands; the template
pays it once and starts importing while the out-of-kernel grader starts. The template makes
:data:`SKIPPED` unimportable first: ``rfc3987_syntax``, which ``jsonschema`` imports only to add an
``iri`` format to its FormatChecker, compiling 39 lark grammars at import (about a third of the
template's import CPU); nbformat, nbconvert, nbclient and nbgrader validate with jsonschema but
never with a FormatChecker, so no check they make changes (tests/test_nbrun.py checks that
nbformat still refuses a malformed notebook there).

Once it has forked its first command, and while it waits for it, the template warms what
``generate_feedback`` (always the last command of a grading) would otherwise compute itself on
first use, about 0.2 s of its CPU on the grading's critical path (:func:`warm_feedback`): the
import of IPython's lexers, bs4's lazily built HTML-entity tables, soupsieve's compiled forms of
the three CSS selectors nbconvert's HTML exporter applies, pygments' token tables of the IPython 3
lexer. Each is a cache whose content is a function of constants (library data, literal
patterns), built by the same library code the command would run, so a command that finds it built
computes exactly what it would have computed; nothing of a grading (no notebook, configuration,
gradebook or path) reaches it. Commands forked before it (the first one) start without it.

Guarantees: the template itself never instantiates an nbgrader application, reads no
configuration, opens no gradebook and starts no kernel, so each forked command begins from the
same state a fresh interpreter would reach after the same imports (and, after the first command,
the warmed caches above); the template forks only while
it has a single thread (otherwise it runs ``python -m nbgrader`` as a plain subprocess); a command
that dies reports its signal as a negative exit code, like :mod:`subprocess`. The learner's code
never runs in this process or its forks other than through the kernel nbgrader starts (a fresh
``ipykernel`` process, as before).
Not guaranteed: isolation between commands beyond what separate processes give; Windows (no
``fork``: :class:`Runner` is unavailable there and the caller runs ``python -m nbgrader``).

Protocol (one JSON object per line): the parent writes ``{"args": [...], "log": "path"}``; the
template answers ``{"rc": N, "cpu": seconds}`` when the command has ended (``cpu``: what the
command and the processes it waited for, its kernel included, used; null when run plainly).
``{"gradebook": db_url}`` runs :func:`minirt_course.course.gradebook.ensure` in a fork the same
way (a first grading's missing gradebook, made before ``generate_assignment``; the fork opens it,
the template never does).
EOF on stdin ends the template (at once: ``os._exit`` after flushing its stdout, no teardown).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

__all__ = ["Runner", "RunnerDied", "available", "serve", "skip_unused_imports", "warm_feedback"]

#: Modules the template imports before it forks (what every nbgrader command needs).
WARM = (
    "nbgrader.apps.nbgraderapp",
    "nbgrader.converters",
    "nbgrader.preprocessors",
    "nbgrader.api",
    "nbconvert.exporters",
    "nbclient",
    "jupyter_client.manager",
    "sqlalchemy.dialects.sqlite",  # every command opens the SQLite gradebook
)

#: Modules the template makes unimportable (``sys.modules[name] = None``) before it imports WARM.
SKIPPED = ("rfc3987_syntax",)


def skip_unused_imports() -> None:
    """Make :data:`SKIPPED` unimportable in this process (``sys.modules[name] = None``), unless
    already imported. For a process whose every jsonschema use is nbformat's or nbgrader's
    validation, which never uses a FormatChecker (the template; ``minirt-course grade``); it
    must run before ``jsonschema`` is first imported to save anything."""
    for name in SKIPPED:
        sys.modules.setdefault(name, None)  # type: ignore[assignment]  # ImportError on import


#: CSS selectors nbconvert's HTMLExporter.from_notebook_node applies to every page it writes.
_HTML_SELECTORS = ("img:not([alt])", ".jp-Notebook div.jp-Cell-inputWrapper",
                   ".jp-Notebook div.jp-OutputArea-output")


def warm_feedback() -> None:
    """Build the caches ``generate_feedback`` fills on first use (see the module docstring).

    Best effort: a library that moved leaves its cache cold (the command then builds it itself),
    and nothing is printed (the template's stdout is the protocol)."""
    import io

    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(Exception):
        from bs4 import BeautifulSoup
        from bs4.dammit import EntitySubstitution

        EntitySubstitution.HTML_ENTITY_TO_CHARACTER  # noqa: B018 - populates the class tables
        soup = BeautifulSoup("<p></p>", features="html.parser")  # as nbconvert parses its page
        for selector in _HTML_SELECTORS:
            soup.select(selector)
        from IPython.lib.lexers import IPython3Lexer
        from pygments import highlight
        from pygments.formatters import HtmlFormatter

        highlight("x = 1\n", IPython3Lexer(), HtmlFormatter())


class RunnerDied(RuntimeError):
    """The template process ended (or answered nonsense) before a command finished."""


def available() -> bool:
    """True where commands can be forked from a template (POSIX with ``os.fork``)."""
    return hasattr(os, "fork") and os.name == "posix"


def _run_child(args: list[str], log: str) -> None:
    """In the forked child: send fd 1/2 to the log and run nbgrader as ``python -m nbgrader``."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    code = 0
    try:
        sys.argv = [sys.executable, *args]
        from nbgrader.apps.nbgraderapp import NbGraderApp

        NbGraderApp.launch_instance(argv=list(args))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - reported as a crash, like an uncaught error would be
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001, S110 - the log may be gone; the code still counts
                pass
    os._exit(code)


_warmed = False


def _one(args: list[str], log: str) -> tuple[int, float | None]:
    """(exit code, CPU seconds of the command and the processes it waited for, e.g. its kernel)."""
    if threading.active_count() > 1:  # forking a threaded process is unsafe: run it plainly
        with open(log, "wb") as fh:
            return subprocess.run([sys.executable, "-m", "nbgrader", *args], stdin=subprocess.DEVNULL,
                                  stdout=fh, stderr=subprocess.STDOUT, check=False).returncode, None
    pid = os.fork()
    if pid == 0:
        _run_child(args, log)
    global _warmed
    if not _warmed:  # while the first command runs; later forks inherit the caches
        _warmed = True
        warm_feedback()
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime


def _ensure_gradebook(db_url: str) -> tuple[int, float | None]:
    """In a fork: :func:`minirt_course.course.gradebook.ensure` (exit 0 whether or not it made the
    file, 1 if it raised), with nbgrader.api and sqlalchemy already imported here."""
    if threading.active_count() > 1:
        return 1, None  # the caller then makes it itself
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # never the protocol's pipe
                os.dup2(devnull, fd)
            from minirt_course.course import gradebook

            gradebook.ensure(db_url)
            code = 0
        finally:
            os._exit(code)
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime


def serve(stdin: IO[str], stdout: IO[str]) -> int:
    """The template's loop: import, then run one command per request line until EOF."""
    import importlib

    skip_unused_imports()
    for name in WARM:
        importlib.import_module(name)
    stdout.write(json.dumps({"ready": True}) + "\n")
    stdout.flush()
    for line in stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        if "gradebook" in req:
            rc, cpu = _ensure_gradebook(str(req["gradebook"]))
        else:
            rc, cpu = _one([str(a) for a in req["args"]], str(req["log"]))
        stdout.write(json.dumps({"rc": rc, "cpu": cpu}) + "\n")
        stdout.flush()
    return 0


class Runner:
    """The parent's handle on a template started in `cwd` with `env`; `run` blocks per command.

    Use as a context manager: leaving it closes the template's stdin and waits for it.
    """

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        if not available():
            raise RunnerDied("forked nbgrader commands need os.fork (POSIX)")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "minirt_course.course.nbrun"], cwd=cwd, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1,
        )
        self._ready = False
        #: CPU seconds of the last command (with the processes it waited for); None if unknown.
        self.last_cpu: float | None = None

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RunnerDied(f"the nbgrader template ended (exit {self.proc.poll()})")
        try:
            return dict(json.loads(line))
        except ValueError as exc:
            raise RunnerDied(f"the nbgrader template answered {line[:80]!r}") from exc

    def run(self, args: list[str], log: Path) -> int:
        """Run ``nbgrader ARGS`` in a fresh fork, its output to `log`; return its exit code."""
        assert self.proc.stdin is not None
        if not self._ready:
            self._read()
            self._ready = True
        try:
            self.proc.stdin.write(json.dumps({"args": list(args), "log": str(log)}) + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise RunnerDied(f"the nbgrader template is gone: {exc}") from exc
        reply = self._read()
        cpu = reply.get("cpu")
        self.last_cpu = float(cpu) if isinstance(cpu, (int, float)) else None
        return int(reply["rc"])

    def close(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def ensure_gradebook(self, db_url: str) -> bool:
        """:func:`minirt_course.course.gradebook.ensure` in a fresh fork of the template, which has
        imported nbgrader.api already (about 0.8-1 s of CPU this process would otherwise spend
        at the start of a first grading, alongside the template's own imports); True if it ran
        to the end (the gradebook then exists, or nbgrader will make it its own way), False if
        the caller should call ``ensure`` itself."""
        assert self.proc.stdin is not None
        if not self._ready:
            self._read()
            self._ready = True
        try:
            self.proc.stdin.write(json.dumps({"gradebook": db_url}) + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise RunnerDied(f"the nbgrader template is gone: {exc}") from exc
        reply = self._read()
        return reply.get("rc") == 0

    def kill(self) -> None:
        """End the template at once, whatever it is doing (a grading refused before its first
        command), and wait for it."""
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.close()

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _main() -> None:
    """Serve, then end without the interpreter's teardown: the template holds nothing to
    flush or close but its stdout (flushed here), and tearing down the modules nbgrader,
    nbconvert and jupyter_client imported took 0.3-0.4 s of wall and CPU at the end of every
    grading, which waits for the template to end (:meth:`Runner.close`)."""
    code = serve(sys.stdin, sys.stdout)
    sys.stdout.flush()
    os._exit(code)


if __name__ == "__main__":
    _main()
