"""The program inside the learner's process: runs a submission's non-test cells, answers calls.

Invariant: this process never holds the grading code. It is started by
:class:`minirt_course.course.sandbox.LearnerProcess` with a ``sys.path`` made of a filtered copy of the
``minirt`` and ``minirt_course`` packages (no ``minirt_course.grading``, no
``minirt_course.course``), this file, ``wire.py`` and
``channel.py`` beside it, the standard library and site-packages (without their ``.pth`` files, so
an editable install of the real minirt is not reachable). ``minirt_course.grading`` and its modules are
placeholders whose only attributes are the names each real module lists in ``LEARNER_API``: remote
handles to the objects in the checker process.

Guarantees: cells run in order in one IPython ``InteractiveShell`` on the main thread (magics
work; whatever an input transformer rewrites stays here); a cell's ``SystemExit`` /
``KeyboardInterrupt`` is an error of that cell; the outcome of each cell (error type, message,
line) is reported by grade id. Not guaranteed: anything about what the learner's code does to this
process (it may exit, hang or lie); the checker treats every answer from here as untrusted data.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import queue
import sys
import threading
import traceback
import types
from typing import Any

import channel  # type: ignore[import-not-found]  # beside this file in the sandbox
import wire  # type: ignore[import-not-found]

_BLOCKED = ("minirt_course.course",)
CONFINEMENT: list[str] = []  # set by the boot code: what minirt_course.course.confine put in force
_PLACEHOLDER = "minirt_course.grading"


class _Placeholders(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`minirt_course.grading[.mNN]` as placeholder modules; `minirt_course.course` absent."""

    def __init__(self, peer: Any) -> None:
        self._peer = peer

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if any(fullname == b or fullname.startswith(b + ".") for b in _BLOCKED):
            raise ModuleNotFoundError(f"No module named {fullname!r} (not available while grading)")
        if fullname == _PLACEHOLDER or fullname.startswith(_PLACEHOLDER + "."):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=fullname == _PLACEHOLDER)
        return None

    def create_module(self, spec: Any) -> types.ModuleType:
        api = self._peer.root.learner_api(spec.name)
        if api is None:
            raise ModuleNotFoundError(f"No module named {spec.name!r}")
        mod = types.ModuleType(spec.name, f"placeholder for {spec.name} while grading")
        for name, value in dict(api).items():
            if type(value) is dict and value.get("minirt-error") == name:
                from minirt.errors import MinirtError

                value = type(str(name), (MinirtError,), {
                    "__module__": spec.name, "__qualname__": str(name),
                    "fields": tuple(str(f) for f in value.get("fields", ())),
                    "template": str(value.get("template", "{detail}"))})
            setattr(mod, str(name), value)
        mod.LEARNER_API = tuple(str(n) for n in dict(api))
        if spec.name == _PLACEHOLDER:
            mod.__path__ = []
        return mod

    def exec_module(self, module: types.ModuleType) -> None:
        return None


class _RuntimeForwarding(importlib.abc.MetaPathFinder):
    """minirt's own modules load from the filtered copy as usual; afterwards each public function
    and plain class defined there forwards a call whose arguments include a handle (the checker's
    context, store, ...) to the same function or class in the checker process, so minirt's
    library code (``parallel(ctx, ...)``, ``Saga(ctx, ...)``) runs next to the objects it uses."""

    def __init__(self, peer: Any) -> None:
        self._peer = peer

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not wire.ours(fullname):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        loader, peer = spec.loader, self._peer

        class _Loader(importlib.abc.Loader):
            def create_module(self, s: Any) -> Any:
                return loader.create_module(s)

            def exec_module(self, module: types.ModuleType) -> None:
                loader.exec_module(module)
                _forward_module(module, peer)

        spec.loader = _Loader()
        return spec


def _has_remote(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    return any(type(a) is wire.Remote for a in (*args, *kwargs.values()))


def _forward_module(module: types.ModuleType, peer: Any) -> None:
    import dataclasses
    import enum
    import functools

    name = module.__name__
    for attr, obj in list(vars(module).items()):
        if attr.startswith("_") or getattr(obj, "__module__", None) != name:
            continue
        if isinstance(obj, types.FunctionType):
            def wrapper(*a: Any, __f: Any = obj, __n: str = attr, **k: Any) -> Any:
                if _has_remote(a, k):
                    return peer.root.runtime_call(name, __n, list(a), k)
                return __f(*a, **k)

            setattr(module, attr, functools.wraps(obj)(wrapper))
        elif (isinstance(obj, type) and obj.__new__ is object.__new__
              and not issubclass(obj, (BaseException, enum.Enum))
              and not dataclasses.is_dataclass(obj) and not hasattr(obj, "model_fields")):
            def new(cls: Any, *a: Any, __n: str = attr, **k: Any) -> Any:
                if _has_remote(a, k):
                    return peer.root.runtime_call(name, __n, list(a), k)
                return object.__new__(cls)

            obj.__new__ = new  # type: ignore[method-assign]


class Controller:
    """Handle 0 of the learner's side: what the checker may ask."""

    def __init__(self, jobs: queue.Queue[Any]) -> None:
        self._jobs = jobs
        self._cells: list[list[str]] = []
        self._done = 0

    def confinement(self) -> list[str]:
        """The confinement layers in force in this process (limits, hidden folders, user)."""
        return list(CONFINEMENT)

    def load(self, cells: list[list[str]]) -> int:
        """Keep the submission's non-test cells: [kind, grade id or label, source] each."""
        self._cells = [[str(k), str(g), str(s)] for k, g, s in cells]
        self._done = 0
        return len(self._cells)

    def run_until(self, grade_id: str, names: list[str]) -> dict[str, Any]:
        """Run every cell not run yet up to and including `grade_id` (on the main thread); return
        the cells' outcomes and the values of `names` (absent ones listed as missing)."""
        reply: queue.Queue[Any] = queue.Queue()
        self._jobs.put((grade_id, reply))
        errors = reply.get()
        ns = _shell().user_ns
        values = {n: ns[n] for n in names if n in ns}
        return {"errors": errors, "values": values,
                "missing": [n for n in names if n not in ns]}

    def _run_pending(self, grade_id: str) -> list[list[Any]]:
        errors: list[list[Any]] = []
        while self._done < len(self._cells):
            kind, gid, source = self._cells[self._done]
            self._done += 1
            err = _run_cell(source)
            if err is not None:
                errors.append([gid, kind, *err])
            if gid == grade_id:
                break
        return errors


_SHELL: Any = None


def _shell() -> Any:
    global _SHELL
    if _SHELL is None:
        from IPython.core.interactiveshell import InteractiveShell

        _SHELL = InteractiveShell.instance(colors="NoColor")
    return _SHELL


def _cell_line(exc: BaseException) -> int | None:
    if isinstance(exc, SyntaxError):
        return exc.lineno
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        name = frame.f_code.co_filename
        if name.startswith("<ipython-input") or "/ipykernel_" in name or name.startswith("<cell"):
            line = lineno
            break
    return line


def _run_cell(source: str) -> list[Any] | None:
    """[type name, first line of the message, line in the cell] of the cell's error, or None."""
    try:
        res = _shell().run_cell(source, store_history=True)
        exc = res.error_before_exec or res.error_in_exec
    except BaseException as e:  # noqa: BLE001 - whatever the cell does is its own outcome
        exc = e
    if exc is None:
        return None
    text = exc.msg if isinstance(exc, SyntaxError) and exc.msg else wire.safe_str(exc)
    msg = str(text).strip().splitlines()
    return [type(exc).__name__, msg[0][:300] if msg else "", _cell_line(exc)]


def main(rfd: int, wfd: int) -> None:
    import faulthandler
    import signal

    faulthandler.register(signal.SIGUSR1, all_threads=True)  # stacks into the capture file
    jobs: queue.Queue[Any] = queue.Queue()
    controller = Controller(jobs)
    peer = channel.Peer(rfd, wfd, controller, name="learner", call_timeout=3600.0,
                        cache_methods=True)
    sys.meta_path.insert(0, _RuntimeForwarding(peer))
    sys.meta_path.insert(0, _Placeholders(peer))
    for name in list(sys.modules):
        if wire.ours(name):
            del sys.modules[name]

    def watch() -> None:
        peer.wait_closed()
        os._exit(0)  # the checker went away: nothing left to answer

    peer.start()
    threading.Thread(target=watch, daemon=True).start()
    while True:  # cells run on the main thread, as in a kernel
        grade_id, reply = jobs.get()
        try:
            reply.put(controller._run_pending(grade_id))
        except BaseException as e:  # noqa: BLE001
            reply.put([[grade_id, "runner", type(e).__name__, wire.safe_str(e), None]])
