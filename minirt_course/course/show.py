"""`show(obj)`: print the real source of a function, class, method or module in a lesson.

Lessons never paste runtime code into markdown: they call `show(minirt.run.apply)`, which reads
the source that Python actually runs (`inspect.getsource`), so what a lesson prints cannot drift
from what executes. In Jupyter the source is displayed as a fenced Markdown code block (JupyterLab
highlights it with the notebook's own theme) with a header naming the file and line; anywhere else
it is printed as plain text.

`show_contract(obj, drill="01")` shows only what a function promises (its signature and
docstring, from the same live object) and withholds the body: a lesson uses it for a function
its drill asks the learner to write, so the lesson teaches the contract without printing the
answer. Invariant: no line of the body (after the docstring) appears in its output.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import textwrap
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Source", "contract_of", "show", "show_contract", "source_of"]


@dataclass(frozen=True)
class Source:
    """The source of one object, ready to display."""

    name: str
    path: str
    first_line: int
    text: str

    @property
    def last_line(self) -> int:
        return self.first_line + max(self.text.count("\n"), 0)

    @property
    def header(self) -> str:
        return f"{self.name} — {self.path}, lines {self.first_line}-{self.last_line}"

    def _repr_markdown_(self) -> str:
        fence = "```"
        while fence in self.text:
            fence += "`"
        return f"**`{self.name}`** — `{self.path}`, lines {self.first_line}-{self.last_line}\n\n{fence}python\n{self.text}\n{fence}\n"

    def __str__(self) -> str:
        return f"# {self.header}\n{self.text}"

    def __repr__(self) -> str:
        return str(self)


def _resolve(obj: Any) -> Any:
    if isinstance(obj, str):
        parts = obj.replace(":", ".").split(".")
        for i in range(len(parts), 0, -1):
            try:
                target: Any = importlib.import_module(".".join(parts[:i]))
            except ModuleNotFoundError:
                continue
            for attr in parts[i:]:
                target = getattr(target, attr)
            return _resolve(target)
        raise TypeError(f"show(): cannot import {obj!r}")
    if isinstance(obj, property):
        return obj.fget
    if isinstance(obj, functools.cached_property):
        return obj.func
    if isinstance(obj, staticmethod | classmethod):
        return obj.__func__
    if isinstance(obj, functools.partial):
        return obj.func
    if isinstance(obj, types.MethodType):
        return obj.__func__
    return obj


def _display_path(file: str) -> str:
    path = Path(file).resolve()
    anchors = []
    try:
        import minirt

        anchors += [Path(p).resolve().parent for p in getattr(minirt, "__path__", [])]
    except ImportError:  # pragma: no cover - minirt is the package this file lives in
        pass
    anchors.append(Path.cwd().resolve())
    for anchor in anchors:
        try:
            return path.relative_to(anchor).as_posix()
        except ValueError:
            continue
    return path.as_posix()


def _name_of(obj: Any) -> str:
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", repr(obj))
    return f"{module}.{qualname}" if module else qualname


def source_of(obj: Any) -> Source:
    """The Source of a function, class, method, property or module (or a dotted name of one).

    Raises TypeError with a readable message for things that have no Python source (instances,
    builtins, objects defined in C).
    """
    target = _resolve(obj)
    if not (
        inspect.isfunction(target)
        or inspect.isclass(target)
        or inspect.ismodule(target)
        or inspect.ismethod(target)
    ):
        raise TypeError(
            f"show() takes a function, class, method, property or module; got {type(target).__name__}"
            f" {target!r:.80}"
        )
    try:
        lines, first = inspect.getsourcelines(target)
        file = inspect.getsourcefile(target) or inspect.getfile(target)
    except (OSError, TypeError) as exc:
        raise TypeError(f"no Python source available for {_name_of(target)}: {exc}") from None
    text = textwrap.dedent("".join(lines)).rstrip("\n")
    return Source(
        name=_name_of(target), path=_display_path(file), first_line=max(first, 1), text=text
    )


def contract_of(obj: Any, drill: str | None = None) -> Source:
    """The Source of `obj`'s contract: its signature and docstring, the body withheld.

    Works for functions and methods (a class gets its signature and docstring too). `drill`
    names the drill that asks for the body, for the placeholder line.
    """
    target = _resolve(obj)
    if not (inspect.isfunction(target) or inspect.isclass(target)):
        raise TypeError(f"show_contract() takes a function, method or class; got "
                        f"{type(target).__name__} {target!r:.80}")
    full = source_of(target)
    # hints are strings under `from __future__ import annotations`: show them as written
    signature = str(inspect.signature(target)).replace("'", "")
    keyword = "class" if inspect.isclass(target) else "def"
    doc = inspect.getdoc(target) or ""
    lines = [f"{keyword} {target.__name__}{signature}:"]
    if doc:
        lines += ['    """' + doc.splitlines()[0]]
        lines += [("    " + line) if line else "" for line in doc.splitlines()[1:]]
        lines[-1] += '"""'
    where = f"drill {drill}" if drill else "the drill"
    lines.append(f"    ...  # the body is withheld: {where} asks you to write it")
    return Source(name=f"{full.name} (contract)", path=full.path, first_line=full.first_line,
                  text="\n".join(lines))


def show_contract(obj: Any, drill: str | None = None) -> None:
    """Render `obj`'s signature and docstring, not its body (see :func:`contract_of`)."""
    _display(contract_of(obj, drill))


def _in_jupyter() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def show(obj: Any) -> None:
    """Render the real source of `obj` (syntax-highlighted in Jupyter, plain text elsewhere)."""
    _display(source_of(obj))


def _display(src: Source) -> None:
    if _in_jupyter() and not os.environ.get("MINIRT_SHOW_PLAIN"):
        from IPython.display import display

        display(src)
    else:
        print(src)
