"""Confinement of the learner's process, applied by that process to itself before any of the
submission's code runs.

Invariant: :func:`apply` runs first thing in the learner's interpreter (from the boot code of
:class:`minirt_course.course.sandbox.LearnerProcess`), while only the standard library, this file,
``wire.py``, ``channel.py`` and ``learner_main.py`` are loaded; nothing it sets up can be undone
by an unprivileged process afterwards.

What it does, in order:

1. **Resource limits** (``resource.setrlimit``, inherited by any child): ``RLIMIT_CPU`` (the
   process is killed by ``SIGXCPU`` past it, then ``SIGKILL`` 2 s later), ``RLIMIT_AS`` (an
   allocation past it raises ``MemoryError`` in the submission), ``RLIMIT_FSIZE`` (no file larger
   than 64 MiB, the capture file included) and ``RLIMIT_CORE`` 0.
2. **Hiding the course from disk**, when the process runs as root on Linux: a private mount
   namespace (``unshare(CLONE_NEWNS)``) in which each *hidden* folder (the course root, the real
   ``minirt`` package) is covered by an empty read-only tmpfs, and only the *kept* folders under
   them (the filtered copy of ``minirt`` on ``sys.path``, the virtualenv's library folders) are
   bound back, read-only. ``solutions/``, ``minirt_course/grading/``, ``tests/``, the gradebook and
   every other file of the course root are then absent for this process and its children. So
   is every top-level folder that is not the system's (:data:`SYSTEM_DIRS`: ``/usr``, ``/etc``,
   ``/dev``, ...) and not an ancestor of the process's own folder: ``/tmp``, ``/home``,
   ``/srv``, ``/opt``, ``/var``, ``/work`` or wherever else other copies of the course may sit
   (the sandbox puts the process's own folder in ``/dev/shm`` when it can, so ``/tmp`` is
   covered too).
3. **Dropping root**: ``setgroups([])``, ``setgid``/``setuid`` to ``nobody`` (65534), after
   giving it its own working folder and an ``RLIMIT_NPROC`` (no fork bomb). It can then neither
   undo the mounts nor write anywhere but its folder and world-writable places, nor signal,
   trace or read ``/proc`` of the checker.
4. **Fallback when not root** (a learner's laptop, an unprivileged CI runner): a
   ``sys.addaudithook`` that refuses ``open``/``os.listdir``/``os.scandir`` of any path under a
   hidden folder (except a kept one) and refuses starting programs (``subprocess``, ``os.exec*``,
   ``os.system``, ``os.posix_spawn``) and loading C functions through ``ctypes``.

Guarantees: with (2) and (3) the kernel enforces that the submission cannot read or write the
course root, whatever Python it runs; :func:`apply` returns a short list saying which layers are
in force (the oracle records it in its notes). Not guaranteed: (4) is **not** a security
boundary (CPython's audit hooks can be bypassed by code that reaches raw memory or a C function
some other way, e.g. ``_posixsubprocess`` already imported by the standard library); and with
(2) a copy of the course under a *system* folder (``/usr``, ``/etc``, ``/dev/shm``, or ``/tmp``
when the process's own folder had to be made there) stays readable by ``nobody`` if its files
are world-readable, unless it is listed in the environment variable ``MINIRT_GRADING_HIDE``
(``os.pathsep``-separated) when grading starts.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["Confinement", "apply"]

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND = 1, 2, 4, 32, 4096
MS_REC, MS_PRIVATE = 16384, 1 << 18
MNT_DETACH = 2
NOBODY = 65534
FILE_LIMIT = 64 * 1024 * 1024
NPROC = 2048
#: Top-level folders left visible by the mount namespace (the system's); every other top-level
#: folder is covered unless it holds the process's own folder (see step 2 above).
SYSTEM_DIRS = frozenset({"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "dev",
                         "proc", "sys", "run"})


class Confinement(dict):
    """What :func:`apply` takes: ``cpu_seconds``, ``memory_bytes`` (0 = no limit), ``hide`` and
    ``keep`` (absolute folders), ``workdir``, ``uid``/``gid`` to drop to when root, ``mount``
    (False: skip the namespace and the user change, use the audit hook; for tests)."""


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _limits(cpu: float, memory: int) -> list[str]:
    import resource

    done = []
    if cpu and cpu > 0:
        soft = max(1, int(cpu))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2))
        done.append(f"cpu {soft} s")
    if memory and memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (int(memory), int(memory)))
        done.append(f"address space {int(memory) // 2**20} MiB")
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return done


def _libc() -> Any:
    import ctypes
    import ctypes.util

    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                           ctypes.c_char_p]
    libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    return libc


def _check(rc: int, what: str) -> None:
    if rc != 0:
        import ctypes

        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _hide(libc: Any, hide: list[str], keep: list[str], workdir: str) -> None:
    def mount(src: str | None, dst: str, fstype: str | None, flags: int, data: str | None
              ) -> None:
        _check(libc.mount(src.encode() if src else None, dst.encode(),
                          fstype.encode() if fstype else None, flags,
                          data.encode() if data else None), f"mount {dst}")

    _check(libc.unshare(CLONE_NEWNS), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    stage = os.path.join(workdir, ".keep")
    os.mkdir(stage, 0o700)
    staged = []
    for i, k in enumerate(keep):
        s = os.path.join(stage, str(i))
        os.mkdir(s)
        mount(k, s, None, MS_BIND | MS_REC, None)
        staged.append((s, k))
    for h in hide:
        mount("tmpfs", h, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    for s, k in staged:
        os.makedirs(k, exist_ok=True)
        mount(s, k, None, MS_BIND | MS_REC, None)
        mount(None, k, None, MS_BIND | MS_REMOUNT | MS_RDONLY, None)
        _check(libc.umount2(s.encode(), MNT_DETACH), f"umount {s}")
        os.rmdir(s)
    os.rmdir(stage)
    for h in hide:
        mount(None, h, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)


def _other_top_level(workdir: str) -> list[str]:
    """Every top-level folder that is not a system folder, a symlink or an ancestor of
    ``workdir``: where other copies of the course (a second clone, another user's home) live."""
    out = []
    for name in sorted(os.listdir("/")):
        path = os.path.join("/", name)
        if name in SYSTEM_DIRS or os.path.islink(path) or not os.path.isdir(path):
            continue
        if _under(os.path.realpath(workdir), os.path.realpath(path)):
            continue
        out.append(os.path.realpath(path))
    return out


def _closed_ancestors(keep: list[str]) -> list[str]:
    """For each kept folder, its topmost ancestor that other users cannot enter (``/root`` when
    Python lives under ``/root/.pyenv``): covered like a hidden folder, so the kept folders can be
    bound back into a world-readable tmpfs and read after dropping root."""
    out = []
    for k in keep:
        parts = k.split(os.sep)
        for i in range(2, len(parts) + 1):
            folder = os.sep.join(parts[:i]) or os.sep
            try:
                mode = os.stat(folder).st_mode
            except OSError:
                break
            if not mode & 0o001 or (folder == k and not mode & 0o004):
                out.append(folder)
                break
    return out


def _drop(uid: int, gid: int, workdir: str) -> None:
    for dirpath, _dirs, files in os.walk(workdir):
        os.chown(dirpath, uid, gid)
        for f in files:
            os.chown(os.path.join(dirpath, f), uid, gid)
    import resource

    # processes and threads of that user, all learners together (not set for an ordinary user:
    # it would count their desktop's threads too)
    resource.setrlimit(resource.RLIMIT_NPROC, (NPROC, NPROC))
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise OSError("could not drop to an unprivileged user")


_PROGRAMS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                       "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle"})
_PATHS = frozenset({"open", "os.listdir", "os.scandir"})


def _audit(hide: list[str], keep: list[str]) -> None:
    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in _PROGRAMS:
            raise PermissionError(f"{event} is not allowed while grading")
        if event in _PATHS and args and isinstance(args[0], (str, bytes, os.PathLike)):
            try:
                p = os.path.realpath(os.fsdecode(args[0]))
            except (TypeError, ValueError):
                return
            if any(_under(p, h) for h in hide) and not any(_under(p, k) for k in keep):
                raise PermissionError(f"{args[0]!s} is not readable while grading")

    sys.addaudithook(hook)


def apply(spec: dict[str, Any]) -> list[str]:
    """Confine this process as `spec` (a :class:`Confinement`) says; the layers in force."""
    done = _limits(float(spec.get("cpu_seconds") or 0), int(spec.get("memory_bytes") or 0))
    workdir = str(spec["workdir"])
    hide = [os.path.realpath(h) for h in spec.get("hide", []) if os.path.isdir(h)]
    keep = [os.path.realpath(k) for k in spec.get("keep", []) if os.path.isdir(k)]
    root = os.geteuid() == 0 and spec.get("uid") is not None and spec.get("mount", True)
    if root and sys.platform.startswith("linux"):
        hide += _closed_ancestors(keep) + _other_top_level(workdir)
    hide = [h for h in dict.fromkeys(hide) if not any(h != o and _under(h, o) for o in hide)]
    keep = [k for k in dict.fromkeys(keep) if any(_under(k, h) for h in hide)]
    keep = [k for k in keep if not any(k != o and _under(k, o) for o in keep)]
    hidden = False
    if hide and sys.platform.startswith("linux") and root:
        try:
            _hide(_libc(), hide, keep, workdir)
            hidden = True
            done.append("course folders hidden (mount namespace)")
        except OSError as exc:
            done.append(f"course folders not hidden ({exc})")
    if root and not hidden:
        done.append("still root (the course could not be hidden, and the library folders may "
                    "not be readable by an unprivileged user)")
    elif root:
        try:
            _drop(int(spec["uid"]), int(spec.get("gid", spec["uid"])), workdir)
            done.append(f"running as uid {os.getuid()}")
        except OSError as exc:
            done.append(f"still root ({exc})")
    if not hidden and hide:
        _audit(hide, keep)
        done.append("audit hook refuses the course folders (best effort)")
    return done
