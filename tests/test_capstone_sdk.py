"""The capstone's agent planning through the real openai SDK (minirt_course.capstone.sdk_model)
against the local model server on 127.0.0.1: the same plan and effects as the scripted default,
a decision journaled once and never asked again after a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("openai")

from minirt.clock import FakeClock  # noqa: E402
from minirt.faults import FaultPlan, SimulatedCrash  # noqa: E402
from minirt.run import RunState  # noqa: E402
from minirt.world.ledger import Ledger  # noqa: E402
from minirt_course.capstone import scenario, shop  # noqa: E402
from minirt_course.capstone.sdk_model import LocalModelServer, SdkPlanModel  # noqa: E402


def effects(wd: Path, provider: str, kind: str) -> int:
    led = Ledger(wd / f"{provider}.sqlite")
    try:
        return len(led.effects(kind))
    finally:
        led.close()


@pytest.fixture
def shop_dir(tmp_path: Path) -> Path:
    shop.setup_world(tmp_path)
    return tmp_path


def test_the_sdk_planner_makes_the_scripted_plan(shop_dir: Path) -> None:
    with LocalModelServer() as server:
        rt = shop.build_runtime(shop_dir, model_url=server.base_url)
        assert isinstance(rt.model, SdkPlanModel)
        try:
            run_id = shop.start_ticket(rt)
            assert rt.run(run_id).state is RunState.SUCCEEDED
            assert scenario.judge(shop_dir, rt, run_id).ok
            decision = [e for e in rt.store.read(run_id) if e.kind == "decision"]
        finally:
            rt.close()
        assert server.count == 1 and len(decision) == 1
    assert effects(shop_dir, "payments", "refund") == 2
    assert effects(shop_dir, "booking", "booking") == 1
    assert effects(shop_dir, "email", "email") == 1


def test_a_crash_after_the_decision_never_asks_the_model_again(shop_dir: Path) -> None:
    with LocalModelServer() as server:
        crashing = shop.build_runtime(shop_dir, model_url=server.base_url,
                                      faults=FaultPlan("after_decision_record"))
        run_id = shop.start_ticket(crashing)
        with pytest.raises(SimulatedCrash):
            crashing.run(run_id)
        crashing.close()
        rt = shop.build_runtime(shop_dir, model_url=server.base_url,
                                clock=FakeClock(shop.EPOCH + 3600))
        try:
            assert rt.resume(run_id).state is RunState.SUCCEEDED
            assert scenario.judge(shop_dir, rt, run_id).ok
        finally:
            rt.close()
        assert server.count == 1


def test_the_default_stays_scripted(shop_dir: Path) -> None:
    from minirt.runtime import ScriptedModel

    rt = shop.build_runtime(shop_dir)
    try:
        assert isinstance(rt.model, ScriptedModel)
    finally:
        rt.close()
