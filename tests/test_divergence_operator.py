"""Operators see a parked divergence (issue 19 follow-up): ``minirt show`` and ``minirt pending``
print where it diverged, the recorded and the requested call and the hint "roll back and
resume"; the console's run page shows it with a Resume form that resumes it through
:class:`~minirt.operator.Operator` once the bad deploy is rolled back. A real run, a real bad
deploy (the application module's code changes between executions), Starlette's test client."""

from __future__ import annotations

import html
import json
import re
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

from minirt.cli import main
from minirt.operator import NotDiverged, Operator, diverged, operator_events
from minirt.run import RunState
from minirt.store import open_store

pytest.importorskip("starlette")
with warnings.catch_warnings():  # starlette 1.x asks for httpx2; httpx works the same here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from minirt.console.app import ConsoleConfig, create_app  # noqa: E402

APP = '''
from minirt.runtime import Runtime
from minirt.tools import FunctionTool

BAD = False  # the bad deploy: step 0 calls "lookup_v2" instead of "lookup"
SENT = []


def lookup(order: int) -> dict:
    SENT.append(("lookup", order))
    return {"order": order}


def lookup_v2(order: int) -> dict:
    SENT.append(("lookup_v2", order))
    return {"order": order, "v": 2}


def ship(order: int) -> dict:
    SENT.append(("ship", order))
    return {"shipped": order}


def wf(ctx, inp):
    found = ctx.call_tool("lookup_v2" if BAD else "lookup", {"order": inp["order"]})
    ctx.wait_for("go")
    return ctx.call_tool("ship", {"order": found["order"]})


def app(store):
    return Runtime(store, tools=[FunctionTool(lookup), FunctionTool(lookup_v2),
                                 FunctionTool(ship)], workflows={"wf": wf})
'''


@pytest.fixture
def parked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Run d1 recorded ``lookup`` with the good code, then diverged under the bad deploy."""
    name = f"divapp_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(APP))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__(name)
    db = str(tmp_path / "runs.sqlite")
    rt = module.app(open_store(db))
    rt.start("wf", {"order": 7}, run_id="d1")
    assert rt.run("d1").state is RunState.WAITING  # waits for "go"
    module.BAD = True  # the bad deploy
    rt.signal("d1", "go")
    out = rt.run("d1")
    assert out.state is RunState.WAITING and diverged(rt.store, "d1") is not None, out
    assert module.SENT == [("lookup", 7)]  # the bad code sent nothing
    yield module, db, rt
    rt.close()
    sys.modules.pop(name, None)


def test_show_and_pending_print_the_divergence_with_the_hint(parked: Any, capsys: Any) -> None:
    module, db, rt = parked
    found = diverged(rt.store, "d1")
    assert found["step"] == 0 and "lookup" in found["recorded"]
    assert "lookup_v2" in found["requested"] and "roll back and resume" in found["hint"]
    assert main(["show", "--store", db, "d1"]) == 0
    out = capsys.readouterr().out
    # before: show printed the journal only, with nothing saying the run was parked, or why
    assert "DIVERGED at step 0" in out and "roll back and resume" in out
    assert "lookup_v2" in out
    assert main(["pending", "--store", db]) == 0
    out = capsys.readouterr().out
    # before: pending said "waiting for None"
    assert "waiting for None" not in out
    assert "DIVERGED at step 0" in out and "roll back and resume" in out
    assert main(["pending", "--store", db, "--json"]) == 0
    (item,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert item["diverged"]["step"] == 0 and "waiting_for" not in item


def form_fields(page: str, action: str) -> dict[str, str]:
    m = re.search(rf'<form[^>]*action="[^"]*/{action}">(.*?)</form>', page, re.S)
    assert m, f"no {action} form on the page"
    return {html.unescape(n): html.unescape(v) for n, v in
            re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', m.group(1))}


def test_the_console_shows_the_divergence_and_resumes_it_after_the_roll_back(
        parked: Any) -> None:
    module, db, rt = parked
    config = ConsoleConfig(db, "ana", app=module.app)
    client = TestClient(create_app(config), base_url="http://127.0.0.1:8765",
                        follow_redirects=False)
    assert client.get(f"/?token={config.token}").status_code == 303
    assert "diverged at step 0: roll back and resume" in client.get("/").text
    page = client.get("/runs/d1").text
    # before: the page showed "waits for None" and no way to resume the run
    assert 'id="diverged"' in page and "DIVERGED at step 0" in page
    assert "lookup_v2" in html.unescape(page) and "roll back and resume" in page
    fields = form_fields(page, "resume")
    r = client.post("/runs/d1/resume", data={**fields, "reason": "still on the bad deploy"})
    assert r.status_code == 303
    # resumed under the bad code: parked again, nothing sent
    assert "the run is now waiting" in client.get("/runs/d1").text
    assert rt.store.get_run("d1").run.state is RunState.WAITING
    assert module.SENT == [("lookup", 7)]
    module.BAD = False  # the roll-back
    fields = form_fields(client.get("/runs/d1").text, "resume")
    r = client.post("/runs/d1/resume", data={**fields, "reason": "rolled back to v1"})
    assert r.status_code == 303
    assert "the run is now succeeded" in client.get("/runs/d1").text
    assert rt.store.get_run("d1").run.state is RunState.SUCCEEDED
    assert module.SENT == [("lookup", 7), ("ship", 7)]  # lookup never sent twice
    events = operator_events(rt.store, "d1")
    assert [(e["action"], e["by"], e["reason"]) for e in events] == [
        ("resume", "ana", "still on the bad deploy"), ("resume", "ana", "rolled back to v1")]
    assert 'id="diverged"' not in client.get("/runs/d1").text


def test_resume_diverged_refuses_a_run_that_is_not_parked_for_a_divergence(
        parked: Any) -> None:
    module, db, rt = parked
    module.BAD = False
    op = Operator.for_runtime(rt)
    assert op.resume_diverged("d1", by="ana", reason="rolled back").state is RunState.SUCCEEDED
    with pytest.raises(NotDiverged, match="not parked for a divergence"):
        op.resume_diverged("d1", by="ana", reason="again")
    assert len(operator_events(rt.store, "d1")) == 1
