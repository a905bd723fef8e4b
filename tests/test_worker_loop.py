"""The worker loop: a claim made by Runtime.work() is journaled in the same transaction."""

from __future__ import annotations

import json

from minirt import FakeClock, Runtime, SQLiteStore


def agent(ctx, n):
    return ctx.step("double", lambda: n * 2)


def test_a_worker_loop_claim_is_journaled_like_a_direct_run(tmp_path):
    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), workflows={"agent": agent},
                 clock=FakeClock(), worker_id="w-loop")
    rt.start("agent", 21, run_id="r1")
    [outcome] = rt.work()
    assert outcome.result() == 42
    claims = [json.loads(e.payload_json) for e in rt.store.read("r1")
              if e.kind == "transition" and json.loads(e.payload_json)["event"] == "claim"]
    assert claims == [{"event": "claim", "worker_id": "w-loop"}]


def test_a_claim_with_nothing_runnable_writes_nothing(tmp_path):
    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), workflows={"agent": agent},
                 clock=FakeClock())
    assert rt.work() == []
