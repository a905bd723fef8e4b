"""The journal cursor owns the step position and the writes; the context is a facade over it."""

from __future__ import annotations

import pytest

from minirt import FakeClock, Runtime, SQLiteStore
from minirt.cursor import PositionInvalid
from minirt.tools import tool


@tool()
def echo(x: int) -> int:
    return x


def test_the_position_moves_forward_only_and_only_through_the_cursor(tmp_path):
    seen: list = []

    def agent(ctx, _):
        ctx.call_tool("echo", x=1)
        seen.append(ctx.position)
        ctx.skip_to(5)
        seen.append(ctx.cursor.position)
        with pytest.raises(PositionInvalid):
            ctx.skip_to(2)
        return ctx.call_tool("echo", x=2)

    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=[echo], workflows={"a": agent},
                 clock=FakeClock(1.0))
    assert rt.run_workflow("a", None, run_id="r").result() == 2
    assert seen == [1, 5]
    steps = sorted({e.step for e in rt.store.read("r") if e.step is not None})
    assert steps == [0, 5]  # the second call was journaled where the cursor stood


def test_every_write_of_an_execution_is_in_its_replay_index(tmp_path):
    holder: list = []

    def agent(ctx, _):
        ctx.call_tool("echo", x=1)
        ctx.step("s", lambda: 3)
        holder.append(ctx)
        return None

    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=[echo], workflows={"a": agent},
                 clock=FakeClock(1.0))
    rt.run_workflow("a", None, run_id="r").result()
    ctx = holder[0]
    on_disk = {e.seq for e in rt.store.read("r") if e.step is not None}
    assert on_disk and on_disk <= {e.seq for e in ctx.cursor.journal.events}
