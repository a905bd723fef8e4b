"""minirt_course.course.kernel_client: a lost wake-up costs one poll slice, not a cell timeout.

The lost wake-up itself (nbclient #312) depends on thread timing and cannot be provoked on
demand, so the channel is tested with a socket stand-in whose ``poll`` misses its wake-up the way
pyzmq's does after a send consumed the edge: it returns 0 when its timeout ends although a message
is ready. The same stand-in, given jupyter_client's own channel, shows the cell-long wait this
module exists to prevent. Then a real kernel: every course path that runs notebooks uses the
sliced client (visible tests, the notebook tests, nbgrader in the checkout and in the release).
"""

from __future__ import annotations

import asyncio
import runpy
import time
from pathlib import Path
from queue import Empty
from typing import Any

import nbformat
import pytest
import zmq
import zmq.asyncio
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.session import Session

from minirt_course.course import kernel_client
from minirt_course.course.kernel_client import (
    KERNEL_MANAGER,
    POLL_SLICE_S,
    SlicedKernelManager,
    SlicedPollChannel,
    SlicedPollClient,
    notebook_client,
)

ROOT = Path(__file__).resolve().parents[1]


class MissedWakeup:
    """A socket stand-in: the first `missed` polls report nothing (after sleeping their timeout,
    capped at 50 ms so the test stays fast); later polls see the real socket. Every requested
    timeout is recorded."""

    def __init__(self, real: zmq.asyncio.Socket, missed: int) -> None:
        self.real, self.missed, self.asked = real, missed, []

    async def poll(self, timeout: int | None = None) -> int:
        self.asked.append(timeout)
        if self.missed:
            self.missed -= 1
            await asyncio.sleep(min(timeout or 0, 50) / 1000)
            return 0
        return await self.real.poll(0)

    async def recv_multipart(self, **kwargs: Any) -> list[bytes]:
        return await self.real.recv_multipart(**kwargs)


async def _one_message(channel_class: type, *, timeout: float, missed: int,
                       send: bool = True) -> tuple[Any, list]:
    ctx = zmq.asyncio.Context()
    a, b = ctx.socket(zmq.PAIR), ctx.socket(zmq.PAIR)
    a.bind("inproc://kc-test")
    b.connect("inproc://kc-test")
    session = Session()
    try:
        channel = channel_class(b, session)
        if send:
            session.send(a, "execute_reply", {"status": "ok"})
            await asyncio.sleep(0.01)
        fake = MissedWakeup(b, missed)
        channel.socket = fake
        try:
            got = await channel.get_msg(timeout=timeout)
        except Empty as e:
            got = e
        return got, fake.asked
    finally:
        a.close(0)
        b.close(0)
        ctx.term()


def test_a_missed_wakeup_costs_one_slice_not_the_timeout() -> None:
    msg, asked = asyncio.run(_one_message(SlicedPollChannel, timeout=120, missed=1))
    assert msg["msg_type"] == "execute_reply"
    assert len(asked) == 2, asked
    assert max(asked) <= POLL_SLICE_S * 1000, f"a single poll waited {max(asked)} ms"


def test_the_harness_sees_jupyter_clients_cell_long_wait() -> None:
    """Without the slices, the one poll asks for the whole 120 s; the message is lost (Empty)
    although it was ready all along. This is the stall seen in CI, and it shows that the test
    above can fail."""
    got, asked = asyncio.run(_one_message(AsyncZMQSocketChannel, timeout=120, missed=1))
    assert asked == [120_000]
    assert isinstance(got, Empty)


def test_empty_only_after_the_whole_timeout() -> None:
    started = time.monotonic()
    got, asked = asyncio.run(_one_message(SlicedPollChannel, timeout=0.3, missed=10_000,
                                          send=False))
    assert isinstance(got, Empty)
    assert time.monotonic() - started >= 0.3
    assert len(asked) >= 0.3 / 0.05  # the stand-in sleeps at most 50 ms per poll


def test_no_timeout_keeps_polling_until_a_message() -> None:
    msg, asked = asyncio.run(_one_message(SlicedPollChannel, timeout=None, missed=3))
    assert msg["msg_type"] == "execute_reply"
    assert asked == [int(POLL_SLICE_S * 1000)] * 4


def test_the_manager_hands_out_the_sliced_client_on_every_channel() -> None:
    km = SlicedKernelManager(kernel_name="python3")
    kc = km.client()
    assert isinstance(kc, SlicedPollClient)
    for name in ("shell", "iopub", "stdin", "control"):
        assert getattr(kc, f"{name}_channel_class") is SlicedPollChannel, name


@pytest.mark.parametrize("config", ["nbgrader_config.py", "release"])
def test_nbgrader_runs_drills_with_the_sliced_manager(config: str, tmp_path: Path) -> None:
    from nbconvert.preprocessors import ExecutePreprocessor
    from traitlets.config import Config

    if config == "release":
        release = runpy.run_path(str(ROOT / "tools" / "release.py"))
        path = tmp_path / "nbgrader_config.py"
        path.write_text(release["RELEASE_NBGRADER_CONFIG"])
    else:
        path = ROOT / config
    cfg = Config()
    runpy.run_path(str(path), init_globals={"get_config": lambda: cfg})
    assert cfg.ExecutePreprocessor.kernel_manager_class == KERNEL_MANAGER
    assert ExecutePreprocessor(config=cfg).kernel_manager_class is SlicedKernelManager


def test_a_widget_notebook_runs_through_the_sliced_client() -> None:
    """A real kernel and the widget pattern that lost replies in CI (an Output widget cleared and
    written from a slider's observer): every cell runs, the client is the sliced one."""
    cell = ("import ipywidgets as w\nfrom IPython.display import display\nout = w.Output()\n"
            "s = w.IntSlider()\ndef r(c):\n    out.clear_output(wait=True)\n    with out:\n"
            "        print('step', c['new'])\ns.observe(r, names='value')\nr({'new': 0})\n"
            "w.VBox([s, out])")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for _ in range(5)])
    client = notebook_client(nb, timeout=120, kernel_name="python3")
    seen = []
    client.on_cell_executed = lambda **kw: seen.append(type(client.kc).__name__)
    client.execute()
    assert seen == ["SlicedPollClient"] * 5
    assert all(c.outputs for c in nb.cells)
    assert kernel_client.KERNEL_MANAGER.endswith("SlicedKernelManager")
