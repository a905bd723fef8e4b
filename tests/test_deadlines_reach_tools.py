"""A tool called inside a deadline scope is handed the scope's absolute deadline."""

from __future__ import annotations

from minirt import FakeClock, SQLiteStore
from minirt.cancel import CancellableRuntime, fail_after
from minirt.tools import tool


def test_a_sequential_tool_call_sees_the_innermost_deadline(tmp_path):
    seen: list = []

    @tool()
    def probe(call=None):
        seen.append(call.deadline_at)
        return None

    def agent(ctx, _):
        ctx.call_tool("probe")
        with fail_after(ctx, 60, name="outer"):
            ctx.call_tool("probe")
            with fail_after(ctx, 10, name="inner"):
                ctx.call_tool("probe")
        return None

    clock = FakeClock(1000.0)
    rt = CancellableRuntime(SQLiteStore(tmp_path / "r.sqlite"), tools=[probe],
                            workflows={"agent": agent}, clock=clock)
    rt.run_workflow("agent", None, run_id="r1").result()
    assert seen == [None, 1060.0, 1010.0]
