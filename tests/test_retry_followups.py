"""Issue 19 follow-ups: fan-out wave children follow the same rules as sequential calls (answered
errors vs unknown outcomes classified by one function, the RetryPolicy with a durable wait, the
approval gate's at_intent_commit inside the wave's transaction); a cumulative reservation is
given back when the provider answered no; ``ToolContract(retry=...)``. Real runs on SQLite (and
PostgreSQL where the store matters), counting what the providers received."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from minirt import FakeClock, Runtime
from minirt.contracts import Limits, ToolContract
from minirt.errors import ToolError
from minirt.retry import RetryPolicy
from minirt.run import RunState
from minirt.store import open_store
from minirt.tools import EffectClass, ToolDeclarationInvalid

pytest_plugins = ["pg_fixture"]
T0 = 1_000_000.0


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: Any, tmp_path: Path) -> str:
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return str(tmp_path / "runs.sqlite")


# -- 3. ToolContract(retry=...) ------------------------------------------------------------------

class Charge(BaseModel):
    amount: int


def test_a_tool_contract_passes_its_retry_policy_to_the_tool(tmp_path: Path) -> None:
    sent: list[int] = []

    def handler(args: Charge, inv: Any) -> dict[str, int]:
        sent.append(inv.call.attempt)
        if len(sent) < 3:
            raise ToolError(tool="charge", reason=f"declined ({len(sent)})")
        return {"charged": args.amount}

    policy = RetryPolicy(attempts=3, initial_interval=5, backoff=1, max_interval=5)
    contract = ToolContract("charge", input_model=Charge, handler=handler,
                            effect=EffectClass.KEYED, retry=policy)
    assert contract.retry is policy
    clock = FakeClock(T0)
    rt = Runtime(open_store(str(tmp_path / "r.sqlite")), tools=[contract],
                 workflows={"pay": lambda ctx, inp: ctx.call_tool("charge", {"amount": 4})},
                 clock=clock)
    # before: ToolContract took no retry= (TypeError), and its answered error was recorded at once
    assert rt.run_workflow("pay", {}, run_id="r1").state is RunState.WAITING
    clock.advance(5)
    assert [o.state for o in rt.work()] == [RunState.WAITING]
    clock.advance(5)
    (done,) = rt.work()
    assert done.result() == {"charged": 4} and sent == [1, 2, 3]
    rt.close()


def test_a_tool_contract_refuses_a_bad_retry_policy_by_name() -> None:
    with pytest.raises(ToolDeclarationInvalid, match="retry"):
        ToolContract("charge", input_model=Charge, handler=lambda a, inv: {}, retry=3)
    # more attempts than the contract's transport limit would end in reconciliation, not in
    # the last error: refused when the contract is built
    with pytest.raises(ToolDeclarationInvalid, match="max_attempts=3"):
        ToolContract("charge", input_model=Charge, handler=lambda a, inv: {},
                     retry=RetryPolicy(attempts=5))
    ok = ToolContract("charge", input_model=Charge, handler=lambda a, inv: {},
                      limits=Limits(max_attempts=5), retry=RetryPolicy(attempts=5))
    assert ok.retry.attempts == 5
