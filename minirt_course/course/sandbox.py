"""The learner's process: a fresh interpreter that cannot reach the grading code.

Invariant: the submission's code runs in a process of its own, started with ``-s -S -P`` (no user
site, no ``site`` and its ``.pth`` files, no unsafe path entry), a temporary working directory, an
environment built from scratch (no PYTHONPATH, an explicit ``PYTHONHASHSEED``; ``-I`` is not used
because it would ignore that seed) and a ``sys.path`` that holds a *filtered copy* of the ``minirt``
and ``minirt_course`` packages (everything but ``minirt_course/grading/`` and
``minirt_course/course/``, cached by content hash under
``build/sandbox/``, byte-compiled there once so each process does not compile what it imports). Its stdout and stderr go to a capture file; the protocol runs over two pipes
of its own (:mod:`minirt_course.course.channel`).

Guarantees: ``import minirt_course.course`` fails there and ``minirt_course.grading.mNN`` is a placeholder
holding only the names listed in the real module's ``LEARNER_API`` (see
:class:`CheckerRoot`); handles the checker exports pass :func:`export_policy`; the learner reads only public
attributes of the checker's objects and sets none; it may have a public function or class of the
runtime called here, only with one of the checker's objects among the arguments
(:meth:`CheckerRoot.runtime_call`: minirt's library code such as ``parallel(ctx, ...)`` then runs
beside the context it drives); a process that dies is reported with its exit code or signal
(one that used up its CPU limit says so). Before any submission code runs, the process confines
itself (:mod:`minirt_course.course.confine`): CPU-time and address-space limits always; when started by
root on Linux, the course root and the real ``minirt`` and ``minirt_course`` packages are hidden behind empty tmpfs
mounts in a private mount namespace and the process drops to ``nobody``, so it can neither read
``solutions/`` or ``minirt_course/grading/`` nor write into the course; otherwise an audit hook refuses
those folders (best effort, not a boundary). Each call has a wall limit (the channel's), each
cell and answer one more (the oracle's).
Not guaranteed: hiding other copies of the course elsewhere on disk (see ``confine``), network
isolation, or (when not started by root) a limit on the threads or processes it starts.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import types
from pathlib import Path
from typing import Any

import minirt
from minirt_course.course import wire
from minirt_course.course.channel import Peer

__all__ = ["CheckerRoot", "LearnerProcess", "export_policy", "filtered_minirt"]

_HERE = Path(__file__).resolve().parent
_COURSE = _HERE.parent  # minirt_course/
_PKG = Path(minirt.__file__).resolve().parent  # the runtime, minirt/
#: The packages copied into the learner's process, each with the subfolders it leaves out.
_COPIED = ((_PKG, ()), (_COURSE, ("grading", "course")))
_HELPERS = ("wire.py", "channel.py", "learner_main.py", "confine.py")
_API_MODULE = re.compile(r"^minirt_course\.grading(\.[a-z][a-z0-9_]*)?$")

_BOOT = """
import sys
sys.path[:] = {path!r}
sys.dont_write_bytecode = True
import confine
_layers = confine.apply({spec!r})
import learner_main
learner_main.CONFINEMENT = _layers
learner_main.main({rfd}, {wfd})
"""
CPU_SECONDS = 60  # CPU time of one learner's process (the reference needs at most ~3 s per drill)
MEMORY_BYTES = 2 * 2**30  # its address space (the reference peaks near 100 MB resident)


def _package_files() -> list[tuple[Path, Path]]:
    """(file, its path inside the copy) for every file copied into the learner's process."""
    out = []
    for pkg, excluded in _COPIED:
        for p in sorted(pkg.rglob("*")):
            rel = p.relative_to(pkg)
            if not p.is_file() or "__pycache__" in rel.parts or p.suffix in (".pyc", ".pyo"):
                continue
            if rel.parts[0] in excluded:
                continue
            out.append((p, pkg.name / rel))
    return out


def filtered_minirt(build: Path) -> Path:
    """The folder to put on the learner's sys.path: ``minirt/``, ``minirt_course/`` without
    grading/ and course/, plus this channel's helper files; built once per content hash."""
    files = _package_files()
    h = hashlib.sha256()
    for p, rel in files:
        h.update(str(rel).encode() + b"\0" + p.read_bytes() + b"\0")
    for name in _HELPERS:
        h.update(name.encode() + (_HERE / name).read_bytes())
    dest = build / "sandbox" / h.hexdigest()[:16]
    if (dest / ".complete").is_file():
        with contextlib.suppress(OSError):
            os.chmod(dest, 0o755)  # readable by the unprivileged user the process drops to
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=dest.parent))
    for p, rel in files:
        target = tmp / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, target)
    for name in _HELPERS:
        shutil.copyfile(_HERE / name, tmp / name)
    _precompile(tmp)
    (tmp / ".complete").write_text("ok\n")
    os.chmod(tmp, 0o755)
    try:
        os.replace(tmp, dest)
    except OSError:  # another grader built it first
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def _precompile(folder: Path) -> None:
    """Byte-compile the copy once, as it is built: the learner's process never writes bytecode
    (``sys.dont_write_bytecode``), so without this every process compiled each module it
    imports, each grading (about 0.3 s of CPU per process). The ``.pyc`` files are checked
    against their source's hash when imported (not its mtime), so one that does not match its
    ``.py`` is never used."""
    import compileall
    import py_compile

    compileall.compile_dir(str(folder), quiet=2, workers=1,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)


def _library_path() -> list[str]:
    """The stdlib and site-packages folders of this interpreter (never the course root)."""
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    paths = sysconfig.get_paths()
    out: list[str] = []
    for entry in sys.path:  # keeps zip and lib-dynload entries in their usual order
        if entry and any(entry.startswith(paths[k]) for k in keys if k in paths) \
                and entry not in out:
            out.append(entry)
    for k in keys:
        if paths.get(k) and paths[k] not in out:
            out.append(paths[k])
    roots = {str(_PKG.parent), str(_COURSE.parent)}
    return [p for p in out if not any(p == root or p.startswith(root + os.sep + "minirt")
                                      for root in roots)]


def _api_names(mod: types.ModuleType) -> tuple[str, ...]:
    api = getattr(mod, "LEARNER_API", ())
    return tuple(str(n) for n in api) if isinstance(api, (tuple, list)) else ()


def export_policy(obj: Any) -> None:
    """Refuse to hand the learner a function or class of the grading code that its module does
    not list in ``LEARNER_API`` (a method counts as its class). Raises ``wire.WireError``."""
    if isinstance(obj, (types.ModuleType, types.FrameType, types.TracebackType, types.CodeType)):
        raise wire.WireError(f"a {type(obj).__name__} cannot cross")  # frames hold the checks
    if isinstance(getattr(obj, "__self__", None), CheckerRoot):
        return
    owner = getattr(obj, "__self__", None)
    if owner is not None and not isinstance(owner, (types.ModuleType, type)):
        return  # a method of an object the learner was given: its public methods are fair game
    if isinstance(owner, type):
        obj = owner
    target = getattr(obj, "__func__", obj)
    if not isinstance(target, (type, types.FunctionType, types.BuiltinFunctionType)):
        return
    module = str(getattr(target, "__module__", "") or "")
    if not (module.startswith("minirt_course.grading") or module.startswith("minirt_course.course")):
        return
    head = str(getattr(target, "__qualname__", "")).split(".")[0]
    mod = sys.modules.get(module)
    if module.startswith("minirt_course.course") or mod is None or head not in _api_names(mod):
        raise wire.WireError(f"{module}.{head} is not part of the learner's API")


def _runtime_module(module: str) -> bool:
    return wire.ours(module) and not (
        module.startswith("minirt_course.grading") or module.startswith("minirt_course.course"))


class CheckerRoot:
    """Handle 0 of the checker's side: the only thing the learner's process can ask first."""

    def runtime_call(self, module: str, name: str, args: list[Any], kwargs: dict[str, Any]
                     ) -> Any:
        """Call minirt's own `module.name` (a public function or class of the runtime, never of
        the grading code) here, where the handles among `args` live."""
        if type(module) is not str or not _runtime_module(module) or type(name) is not str \
                or name.startswith("_"):
            raise wire.WireError(f"{module}.{name} is not a runtime function")
        peer = getattr(self, "peer", None)
        if peer is None or not any(peer.owns(a) for a in (*args, *dict(kwargs).values())):
            raise wire.WireError(f"{module}.{name}: forwarded only with one of the checker's "
                                 "objects among the arguments")
        obj = getattr(importlib.import_module(module), name, None)
        if not isinstance(obj, (type, types.FunctionType)) or obj.__module__ != module:
            raise wire.WireError(f"{module}.{name} is not a runtime function")
        return obj(*args, **dict(kwargs))

    def learner_api(self, module: str) -> dict[str, Any] | None:
        """``{name: object}`` for the names `module` lists in ``LEARNER_API`` (None if it is not
        a grading module)."""
        if type(module) is not str or not _API_MODULE.match(module):
            return None
        try:
            mod = importlib.import_module(module)
        except ImportError:
            return None
        out: dict[str, Any] = {}
        for n in _api_names(mod):
            if not hasattr(mod, n):
                continue
            v = getattr(mod, n)
            if isinstance(v, type) and issubclass(v, Exception) and hasattr(v, "fields") \
                    and v.__module__ == module:
                # a named error the learner raises: rebuilt there as a local class of that name
                out[n] = {"minirt-error": n, "fields": list(v.fields),
                          "template": str(getattr(v, "template", "{detail}"))}
            else:
                out[n] = v
        return out


def _workdir_parent(isolate: bool) -> str | None:
    """Where the learner's own folder goes: ``/dev/shm`` when the process will be confined as
    root on Linux (so the confinement can cover ``/tmp`` too, see minirt_course.course.confine), else
    the default temporary folder."""
    shm = "/dev/shm"
    if (isolate and sys.platform.startswith("linux") and os.geteuid() == 0
            and os.path.isdir(shm) and os.access(shm, os.W_OK)):
        return shm
    return None


class LearnerProcess:
    """One learner's process and the checker's end of its channel."""

    def __init__(self, build: Path, *, hash_seed: int = 0, call_timeout: float = 20.0,
                 label: str = "learner", cpu_seconds: float = CPU_SECONDS,
                 memory_bytes: int = MEMORY_BYTES, hide: list[Path] | None = None,
                 isolate: bool = True) -> None:
        """`hide`: folders the process must not read (the course root); the real minirt and
        minirt_course packages and ``MINIRT_GRADING_HIDE`` are always added. `cpu_seconds`/`memory_bytes` 0: no limit.
        `isolate` False: no mount namespace nor user change, only the audit hook (tests)."""
        self.workdir = Path(tempfile.mkdtemp(prefix="minirt-learner-", dir=_workdir_parent(isolate)))
        self.capture_path = self.workdir / "output.txt"
        self.cpu_seconds = cpu_seconds
        self.cpu_used: float | None = None  # CPU seconds the process used, once it has ended
        root = filtered_minirt(Path(build).resolve())
        c2l_r, c2l_w = os.pipe()
        l2c_r, l2c_w = os.pipe()
        path = [str(root), *_library_path()]
        hidden = [str(Path(h).resolve()) for h in (hide or [])] + [str(_PKG), str(_COURSE)] + [
            h for h in os.environ.get("MINIRT_GRADING_HIDE", "").split(os.pathsep) if h]
        spec = {"cpu_seconds": cpu_seconds, "memory_bytes": memory_bytes, "hide": hidden,
                "keep": path, "workdir": str(self.workdir), "uid": 65534, "gid": 65534,
                "mount": isolate}
        boot = _BOOT.format(path=path, rfd=c2l_r, wfd=l2c_w, spec=spec)
        env = {"PYTHONHASHSEED": str(hash_seed), "PYTHONIOENCODING": "utf-8",
               "MALLOC_ARENA_MAX": "2",
               "PYTHONDONTWRITEBYTECODE": "1", "HOME": str(self.workdir),
               "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
               "MPLBACKEND": "Agg", "TMPDIR": str(self.workdir)}
        self._capture = self.capture_path.open("wb")
        self.hash_seed = hash_seed
        self.proc = subprocess.Popen(
            [sys.executable, "-s", "-S", "-P", "-c", boot],
            cwd=self.workdir, env=env, stdin=subprocess.DEVNULL, stdout=self._capture,
            stderr=subprocess.STDOUT, pass_fds=(c2l_r, l2c_w), close_fds=True,
        )
        os.close(c2l_r)
        os.close(l2c_w)
        checker_root = CheckerRoot()
        self.peer = Peer(l2c_r, c2l_w, checker_root, name=label, policy=export_policy,
                         call_timeout=call_timeout, death_reason=self.exit_reason).start()
        checker_root.peer = self.peer

    @property
    def root(self) -> Any:
        return self.peer.root

    def _reap(self, timeout: float) -> None:
        """Wait up to `timeout` for the process to end, keeping its CPU time (``os.wait4``)."""
        ends = time.monotonic() + timeout
        while self.proc.returncode is None:
            try:
                pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere
                self.proc.poll()
                return
            if pid:
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                self.cpu_used = usage.ru_utime + usage.ru_stime
                return
            if time.monotonic() >= ends:
                return
            time.sleep(0.02)

    def exit_reason(self) -> str:
        self._reap(2.0)
        code = self.proc.returncode
        if code is None:
            return "stopped answering"
        if code < 0:
            import signal

            spent = self.cpu_seconds and (self.cpu_used or 0) >= self.cpu_seconds - 0.5
            if -code == signal.SIGXCPU or (-code == signal.SIGKILL and spent):
                return f"ran out of CPU time (limit {self.cpu_seconds:g} s) and was stopped"
            return f"was killed by signal {-code}"
        return f"exited with code {code}"

    def confinement(self) -> list[str]:
        """The confinement layers the process reports in force (see minirt_course.course.confine)."""
        return [str(x) for x in self.root.confinement()]

    def output(self, limit: int = 4000) -> str:
        with contextlib.suppress(OSError):
            return self.capture_path.read_bytes()[-limit:].decode("utf-8", "replace")
        return ""

    def close(self) -> None:
        self.peer.close()
        if self.proc.poll() is None:
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5.0)
        self._capture.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> LearnerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
