"""A private, throwaway PostgreSQL cluster on 127.0.0.1, for tests, benchmarks and the appendix.

:func:`start_local_cluster` runs the server binaries already installed on this machine (Debian's
``postgresql`` package puts them in ``/usr/lib/postgresql/<version>/bin``): ``initdb`` into a fresh
temporary folder, then ``pg_ctl start`` on a free port of 127.0.0.1 with its socket in that folder.
Nothing is shared with a system cluster; :meth:`LocalCluster.stop` stops the server and deletes the
folder. Authentication is ``trust`` on loopback only: this is a cluster for one machine's tests,
never one to keep data in.

``initdb`` refuses to run as root. When the current user is root, the cluster is owned by and run
as the ``postgres`` system user (created by the Debian package), or the user named by
``$MINIRT_PG_OS_USER``.

The server keeps PostgreSQL's durable defaults (``fsync=on``, ``synchronous_commit=on``), so what
tests and benchmarks measure is a real commit.

When the cluster cannot be started, :class:`PostgresUnavailable` says why in one sentence (no
binaries, no user to run them as, the server did not come up and its log's last lines).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..errors import MinirtError


class PostgresUnavailable(MinirtError):
    """A PostgreSQL server cannot be started or reached here; ``reason`` says why and what to do.

    Raised by :func:`start_local_cluster` and :func:`check_reachable`. Not a
    :class:`minirt.store.postgres.StoreUnavailable` (a store that lost its server mid-work).
    """

    fields = ("reason",)
    template = "PostgreSQL is not available: {reason}"


def find_bindir() -> Path | None:
    """The folder with ``initdb`` and ``pg_ctl``: ``$MINIRT_PG_BINDIR``, Debian's newest
    ``/usr/lib/postgresql/*/bin``, ``pg_config --bindir``, or ``initdb`` on ``PATH``."""
    candidates: list[Path] = []
    if os.environ.get("MINIRT_PG_BINDIR"):
        candidates.append(Path(os.environ["MINIRT_PG_BINDIR"]))
    debian = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                    key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0)
    candidates += [Path(p) for p in reversed(debian)]
    if shutil.which("pg_config"):
        try:
            out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                                 timeout=10).stdout.strip()
            candidates.append(Path(out))
        except (OSError, subprocess.SubprocessError):
            pass
    if shutil.which("initdb"):
        candidates.append(Path(shutil.which("initdb") or "").parent)
    for c in candidates:
        if (c / "initdb").exists() and (c / "pg_ctl").exists():
            return c
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def with_database(url: str, dbname: str) -> str:
    """``url`` with its database name replaced by ``dbname``."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + dbname, parts.query, parts.fragment))


def check_reachable(url: str, *, timeout_s: int = 5) -> str:
    """Connect once and return the server version; raise PostgresUnavailable if that fails."""
    try:
        import psycopg
    except ImportError:
        raise PostgresUnavailable(
            reason="the Python driver psycopg is not installed (pip install 'minirt[postgres]')"
        ) from None
    try:
        with psycopg.connect(url, connect_timeout=timeout_s, autocommit=True) as conn:
            return str(conn.execute("SHOW server_version").fetchone()[0])
    except psycopg.Error as exc:
        raise PostgresUnavailable(reason=f"cannot connect to {redact(url)}: "
                                         f"{str(exc).strip().splitlines()[0]}") from None


def redact(url: str) -> str:
    """``url`` with any password replaced by ``***`` (for messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(":" + parts.password + "@", ":***@", 1)
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


@dataclass
class LocalCluster:
    """A running private cluster. ``url`` reaches its ``postgres`` database as the superuser."""

    base_dir: Path
    bindir: Path
    port: int
    user: str  # Invariant: the database superuser's name (also used in ``url``)
    run_as: str | None  # OS user the server runs as (None: the current user)
    url: str
    databases: list[str] = field(default_factory=list)

    @property
    def data_dir(self) -> Path:
        return self.base_dir / "data"

    @property
    def log_path(self) -> Path:
        return self.base_dir / "server.log"

    def create_database(self, name: str) -> str:
        """Create database ``name`` (dropping an old one of that name) and return its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        self.databases.append(name)
        return with_database(self.url, name)

    def stop(self) -> None:
        """Stop the server (fast shutdown) and delete its folder. Idempotent."""
        if self.data_dir.exists():
            _run_pg([str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w",
                     "-t", "60", "stop"], self.run_as, check=False)
        shutil.rmtree(self.base_dir, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _os_user() -> str | None:
    """Who runs initdb: None for the current (non-root) user, else a non-root system user."""
    if os.geteuid() != 0:
        return None
    name = os.environ.get("MINIRT_PG_OS_USER", "postgres")
    try:
        pwd.getpwnam(name)
    except KeyError:
        raise PostgresUnavailable(
            reason=f"running as root and there is no {name!r} user to run initdb as (initdb "
                   "refuses root); install Debian's postgresql package, set MINIRT_PG_OS_USER, "
                   "or point MINIRT_TEST_PG_URL at a running server") from None
    return name


def _run_pg(cmd: list[str], run_as: str | None, *, check: bool = True,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    kwargs: dict[str, Any] = {}
    if run_as is not None:
        pw = pwd.getpwnam(run_as)
        kwargs.update(user=pw.pw_uid, group=pw.pw_gid, extra_groups=[])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, cwd="/", **kwargs)
    if check and proc.returncode != 0:
        raise PostgresUnavailable(reason=f"{Path(cmd[0]).name} exited with {proc.returncode}: "
                                         f"{(proc.stdout + proc.stderr).strip()[-600:]}")
    return proc


def start_local_cluster(*, user: str = "minirt", port: int | None = None,
                        settings: dict[str, str] | None = None) -> LocalCluster:
    """initdb + start a private cluster on 127.0.0.1 and return it (see the module docstring).

    ``settings`` are extra server settings (``-c name=value``), e.g. ``{"max_connections": "200"}``.
    """
    bindir = find_bindir()
    if bindir is None:
        raise PostgresUnavailable(
            reason="no PostgreSQL server binaries (initdb, pg_ctl) found: install them "
                   "(apt-get install postgresql) or set MINIRT_PG_BINDIR")
    run_as = _os_user()
    base = Path(tempfile.mkdtemp(prefix="minirt-pg-"))
    if run_as is not None:
        pw = pwd.getpwnam(run_as)
        os.chown(base, pw.pw_uid, pw.pw_gid)
    try:
        _run_pg([str(bindir / "initdb"), "-D", str(base / "data"), "-U", user, "-A", "trust",
                 "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"], run_as)
        opts = {"listen_addresses": "127.0.0.1", "unix_socket_directories": str(base),
                "fsync": "on", "synchronous_commit": "on", "max_connections": "100",
                **(settings or {})}
        last = ""
        for _attempt in range(3):  # a free port can be taken between the probe and the bind
            chosen = port or free_port()
            optstr = " ".join([f"-p {chosen}"] + [f"-c {k}={v}" for k, v in opts.items()])
            proc = _run_pg([str(bindir / "pg_ctl"), "-D", str(base / "data"), "-l",
                            str(base / "server.log"), "-w", "-t", "60", "-o", optstr, "start"],
                           run_as, check=False)
            if proc.returncode == 0:
                url = f"postgresql://{user}@127.0.0.1:{chosen}/postgres"
                return LocalCluster(base, bindir, chosen, user, run_as, url)
            last = _tail(base / "server.log") or (proc.stdout + proc.stderr)
            if port is not None:
                break
            time.sleep(0.2)
        raise PostgresUnavailable(reason=f"the server did not start: {last.strip()[-600:]}")
    except BaseException:
        shutil.rmtree(base, ignore_errors=True)
        raise


def _tail(path: Path, lines: int = 5) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
