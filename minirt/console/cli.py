"""``minirt console --store URL``: serve the operator's console (uvicorn) and print its URL.

::

    minirt console --store URL [--app M:A] [--user NAME] [--host H] [--port P]

Prints one line, ``minirt console: http://127.0.0.1:PORT/?token=...`` (as JupyterLab does),
then serves until interrupted (Ctrl-C or SIGTERM; exit code 0). It binds 127.0.0.1 unless
``--host`` is given explicitly, and then only answers requests whose ``Host`` is that name
(or 127.0.0.1, localhost and each ``--allow-host NAME``; a wildcard ``--host 0.0.0.0``
needs ``--allow-host``: :class:`ConsoleNeedsHostName`). ``--port 0`` lets the OS pick a free port (the printed URL says which).
``--app`` (a function ``store -> Runtime``, as for ``minirt worker``) lets the console approve
(the gate holds the signing key) and execute runs right after an action.

Invariant: nothing is written to stderr by the console (uvicorn's loggers are silenced; the
URL and a closing line go to stdout). Needs the ``console`` extra (``pip install
'minirt[console]'``); without it the command says so (:class:`ConsoleNeedsExtra`).
"""

from __future__ import annotations

import argparse
import getpass
import importlib
import logging
import signal
import socket
from typing import Any

from ..errors import MinirtError


class ConsoleNeedsExtra(MinirtError):
    """The console's web packages are not installed."""

    fields = ("missing",)
    template = "the console needs {missing}: pip install 'minirt[console]'"


class ConsoleNeedsHostName(MinirtError):
    """``--host`` is a wildcard address, so the Host header a browser sends cannot be guessed."""

    fields = ("host",)
    template = ("--host {host} listens on every address: name the host the browsers will use "
                "with --allow-host NAME (the console answers only requests for its own names)")


#: Addresses that bind every interface (no browser sends them as its Host).
WILDCARDS = ("0.0.0.0", "::", "")


def _quiet_uvicorn() -> None:
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        log = logging.getLogger(name)
        log.handlers[:] = [logging.NullHandler()]
        log.propagate = False


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(64)
    return sock


def cmd_console(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        # By name: the runtime's CLI does not import the console (nor minirt.viz, graphviz,
        # Starlette) until this command runs (tests/test_seams.py).
        web = importlib.import_module("minirt.console.app")
    except ImportError as exc:
        raise ConsoleNeedsExtra(missing=exc.name or "uvicorn") from None
    LOCAL_HOSTS, ConsoleConfig, create_app = web.LOCAL_HOSTS, web.ConsoleConfig, web.create_app

    app_fn = None
    if args.app:
        from ..cli import load_app

        app_fn = load_app(args.app)
    host = args.host or "127.0.0.1"
    if host in WILDCARDS and not args.allow_host:
        raise ConsoleNeedsHostName(host=host)
    hosts = tuple(dict.fromkeys((*LOCAL_HOSTS, *([] if host in WILDCARDS else [host]),
                                 *args.allow_host)))
    config = ConsoleConfig(args.store, args.user, app=app_fn, hosts=hosts,
                           run_timeout=args.run_timeout)
    sock = bind(host, args.port)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"minirt console: http://{shown}:{port}/?token={config.token}", flush=True)
    _quiet_uvicorn()
    server = uvicorn.Server(uvicorn.Config(create_app(config), log_config=None,
                                           log_level="critical", access_log=False,
                                           lifespan="off"))
    previous = signal.signal(signal.SIGTERM, _interrupt)  # uvicorn re-raises it after shutdown
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: uvicorn has shut down gracefully
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        sock.close()
    print("minirt console: stopped", flush=True)
    return 0


def register(sub: Any) -> None:
    """Add ``console`` to ``minirt``'s subcommands."""
    c = sub.add_parser("console", help="serve the operator's console on 127.0.0.1")
    c.add_argument("--store", required=True, help="postgresql://... or a SQLite path")
    c.add_argument("--app", default=None,
                   help="module:attr, a function store -> Runtime (approvals, running runs)")
    c.add_argument("--user", default=getpass.getuser(),
                   help="who acts, journaled with every action (default: your login name)")
    c.add_argument("--host", default=None,
                   help="bind this address instead of 127.0.0.1 (serves beyond this machine)")
    c.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also answer requests for this Host name (repeatable; needed with a "
                        "wildcard --host such as 0.0.0.0)")
    c.add_argument("--port", type=int, default=8765, help="TCP port (0: any free one)")
    c.add_argument("--run-timeout", type=float, default=60.0,
                   help="how long an action's execution waits for a dead worker's lease (s)")
    c.set_defaults(fn=cmd_console)
