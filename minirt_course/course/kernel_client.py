"""A kernel client that never waits a whole cell timeout for a reply that already arrived.

Why it exists (nbclient issue #312, open): nbclient's stand-in for an ipywidgets ``Output``
widget answers the kernel's comm messages by *sending* on the shell socket, from the task that
reads IOPub, while the task waiting for the cell's ``execute_reply`` is awaiting ``poll`` on that
same socket. pyzmq's asyncio ``poll`` waits on the socket's edge-triggered ``ZMQ_FD``; the send
can consume the edge, and then the waiting ``poll`` wakes only when its timeout ends (the cell
timeout: 120 s for the course's tests and nbgrader, 300 s for the release check), checks once
more, and finds the reply that had been there all along. Seen in CI: lesson 01's first widget
cell took 120.08 s and 300.1 s, lesson 03's 120 s, while every other cell took under 0.6 s.

Invariant: :meth:`SlicedPollChannel.get_msg` never awaits a single ``poll`` longer than
:data:`POLL_SLICE_S`; it keeps polling in slices until a message is ready or the caller's timeout
has passed. A lost wake-up therefore costs at most one slice, and ``Empty`` is still raised only
after the whole timeout (so nbclient's cell timeout, the infinite-loop guard, is unchanged).

Guarantees: the same messages, in the same order, as jupyter_client's ``AsyncZMQSocketChannel``
(only the waiting is split); every channel of :class:`SlicedPollClient` behaves this way; the
kernel, its process and its ``python3`` kernelspec are jupyter_client's own.
Not guaranteed: anything about the kernel's side; a fix for other frontends (JupyterLab talks to
kernels through the server's own channels, which this does not touch).

Use :func:`notebook_client` where the course runs a notebook with nbclient, and
:data:`KERNEL_MANAGER` as ``kernel_manager_class`` in an nbgrader configuration.
"""

from __future__ import annotations

import time
from queue import Empty
from typing import Any

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from traitlets import DottedObjectName, Type

#: The longest single ``poll`` a channel awaits, in seconds.
POLL_SLICE_S = 0.5
#: Dotted name of :class:`SlicedKernelManager`, for traitlets configuration (nbgrader).
KERNEL_MANAGER = f"{__name__}.SlicedKernelManager"


class SlicedPollChannel(AsyncZMQSocketChannel):
    """An async ZMQ channel whose ``get_msg`` waits in slices of :data:`POLL_SLICE_S`."""

    async def get_msg(self, timeout: float | None = None) -> dict[str, Any]:  # type: ignore[override]
        """The next message; ``Empty`` once `timeout` seconds (None: never) pass without one."""
        assert self.socket is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = POLL_SLICE_S if deadline is None else deadline - time.monotonic()
            wait = max(0.0, min(POLL_SLICE_S, left))
            if await self.socket.poll(int(wait * 1000)):
                return await self._recv()
            if deadline is not None and time.monotonic() >= deadline:
                raise Empty


class SlicedPollClient(AsyncKernelClient):
    """jupyter_client's async kernel client with :class:`SlicedPollChannel` on every channel."""

    shell_channel_class = Type(SlicedPollChannel)  # type: ignore[assignment]
    iopub_channel_class = Type(SlicedPollChannel)  # type: ignore[assignment]
    stdin_channel_class = Type(SlicedPollChannel)  # type: ignore[assignment]
    control_channel_class = Type(SlicedPollChannel)  # type: ignore[assignment]


class SlicedKernelManager(AsyncKernelManager):
    """jupyter_client's async kernel manager, handing out :class:`SlicedPollClient` clients."""

    client_class = DottedObjectName(f"{__name__}.SlicedPollClient")
    client_factory = Type(SlicedPollClient, klass=AsyncKernelClient)  # what ``client()`` makes


def notebook_client(nb: Any, **kwargs: Any) -> Any:
    """An ``nbclient.NotebookClient`` for `nb` (same keyword arguments) whose kernel client is
    :class:`SlicedPollClient`."""
    from nbclient import NotebookClient

    kwargs.setdefault("kernel_manager_class", SlicedKernelManager)
    return NotebookClient(nb, **kwargs)
