"""The operator's console (minirt.console) through Starlette's test client: the token, the
session cookie, CSRF and one-time forms, the Host check, and every action journaled with who
and why. The real-browser test is tests/browser/test_console_browser.py."""

from __future__ import annotations

import html
import json
import re
import sys
import textwrap
import warnings

import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():  # starlette 1.x asks for httpx2; httpx works the same here
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from builders import app_module  # noqa: E402

from minirt import FakeClock  # noqa: E402
from minirt.console.app import ConsoleConfig, create_app  # noqa: E402
from minirt.faults import FaultPlan, SimulatedCrash  # noqa: E402
from minirt.operator import operator_events  # noqa: E402
from minirt.run import RunState  # noqa: E402
from minirt.store import open_store  # noqa: E402

APPROVAL_APP = '''
from pathlib import Path

from minirt.runtime import Runtime
from minirt_course.scenarios.m06_approval import M06Approval

HERE = Path(__file__).parent


def app(store):
    return Runtime(store, **M06Approval("waiting").runtime_kwargs(HERE))
'''


pytest_plugins = ["pg_fixture"]


@pytest.fixture
def refund_world(tmp_path, monkeypatch, store_url):
    """A store with run a1 WAITING for the approval of a 30.00 EUR refund (module 06)."""
    from minirt.approvals import ApprovalGate
    from minirt_course.scenarios.m06_approval import ORDER_ID, M06Approval

    with app_module(tmp_path, monkeypatch, "consoleapp", APPROVAL_APP) as module:
        M06Approval("waiting").setup(tmp_path)
        db = store_url
        rt = module.app(open_store(db))
        rt.start("refund_agent", {"order_id": ORDER_ID}, run_id="a1")
        gate = next(h for h in rt.hooks if isinstance(h, ApprovalGate))
        gate.mint(rt, "a1", "refund", resource=f"order:{ORDER_ID}", max_amount=50_000)
        assert rt.run("a1").state is RunState.WAITING
        (req,) = gate.requests(rt.store, "a1")
        yield tmp_path, module, db, rt, req
        rt.close()


def client_for(db, app=None, user="ana", **kw):
    config = ConsoleConfig(db, user, app=app, **kw)
    return TestClient(create_app(config), base_url="http://127.0.0.1:8765",
                      follow_redirects=False), config


def login(client, config):
    r = client.get(f"/?token={config.token}")
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert "httponly" in r.headers["set-cookie"].lower()
    assert "samesite=strict" in r.headers["set-cookie"].lower()
    return client


def form_fields(page: str, action: str) -> dict[str, str]:
    """The hidden fields of the page's first form posting to .../<action>."""
    m = re.search(rf'<form[^>]*action="[^"]*/{action}">(.*?)</form>', page, re.S)
    assert m, f"no {action} form on the page"
    return {html.unescape(n): html.unescape(v) for n, v in
            re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', m.group(1))}


def test_every_request_needs_the_token_then_the_session_cookie(refund_world):
    tmp_path, module, db, rt, req = refund_world
    client, config = client_for(db)
    r = client.get("/")
    assert r.status_code == 401 and "token required" in r.text
    assert client.get("/runs/a1").status_code == 401
    assert client.post("/runs/a1/cancel", data={"reason": "x"}).status_code == 401
    r = client.get("/?token=not-the-token")
    assert r.status_code == 403 and "set-cookie" not in r.headers
    login(client, config)
    r = client.get("/")
    assert r.status_code == 200 and "a1" in r.text and "1 approval(s)" in r.text
    assert r.headers["content-security-policy"].startswith("default-src 'none'")
    assert "<script" not in r.text
    other, _ = client_for(db)  # another console's token does not open this one
    assert other.get(f"/?token={config.token}").status_code == 403


def test_a_request_for_another_host_is_refused(refund_world):
    tmp_path, module, db, rt, req = refund_world
    client, config = client_for(db)
    evil = TestClient(create_app(config), base_url="http://attacker.example",
                      follow_redirects=False)
    r = evil.get(f"/?token={config.token}")
    assert r.status_code == 400  # DNS rebinding: a page of another site cannot reach us
    login(client, config)
    assert client.get("/", headers={"host": "attacker.example"}).status_code == 400
    named = ConsoleConfig(db, "ana", hosts=("127.0.0.1", "localhost", "ops.internal"))
    ops = TestClient(create_app(named), base_url="http://ops.internal", follow_redirects=False)
    assert ops.get(f"/?token={named.token}").status_code == 303  # --allow-host ops.internal


def test_the_pending_approval_shows_the_exact_effect_under_review(refund_world):
    tmp_path, module, db, rt, req = refund_world
    client, config = client_for(db, app=module.app)
    page = login(client, config).get("/runs/a1").text
    assert f"Pending approval {req.request_id}" in page
    assert '{"amount_cents":3000,"order_id":42}' in html.unescape(page)  # canonical arguments
    assert req.effect_digest in page and "order:42" in page
    assert req.effect["artifact"]["digest"] in page and "Order 42 arrived broken" in page
    assert "3000" in page and "against the limit 50000" in page and "within the limit" in page
    fields = form_fields(page, "approve")
    assert fields["effect_digest"] == req.effect_digest and fields["request_id"] == req.request_id
    assert "<svg" in page and 'id="journal-timeline"' in page  # minirt.viz's own picture


def test_approve_from_the_page_finishes_the_refund_once_and_a_replay_is_refused(refund_world):
    from minirt_course.scenarios.m06_approval import Ledger as RefundLedger

    tmp_path, module, db, rt, req = refund_world
    client, config = client_for(db, app=module.app, user="alice")
    fields = form_fields(login(client, config).get("/runs/a1").text, "approve")
    post = {**fields, "reason": "photo shows the damage"}
    r = client.post("/runs/a1/approve", data=post)
    assert r.status_code == 303 and r.headers["location"] == "/runs/a1"
    page = client.get("/runs/a1").text
    assert "approved" in page and "the run is now succeeded" in page
    assert rt.store.get_run("a1").run.state is RunState.SUCCEEDED
    assert len(RefundLedger(tmp_path).refunds()) == 1
    (ev,) = operator_events(rt.store, "a1")
    assert (ev["action"], ev["by"], ev["reason"], ev["effect_digest"]) == (
        "approve", "alice", "photo shows the damage", req.effect_digest)
    r = client.post("/runs/a1/approve", data=post)  # the same form, posted again
    assert r.status_code == 409 and "already submitted" in r.text
    assert len(operator_events(rt.store, "a1")) == 1
    assert len(RefundLedger(tmp_path).refunds()) == 1


def test_forged_form_posts_are_refused_and_write_nothing(refund_world):
    tmp_path, module, db, rt, req = refund_world
    client, config = client_for(db, app=module.app)
    fields = form_fields(login(client, config).get("/runs/a1").text, "approve")
    base = {"request_id": req.request_id, "effect_digest": req.effect_digest, "reason": "x"}
    r = client.post("/runs/a1/approve", data={**base, "form_id": fields["form_id"]})
    assert r.status_code == 403 and "CSRF" in r.text  # no CSRF token
    r = client.post("/runs/a1/approve", data={**base, "csrf": fields["csrf"],
                                               "form_id": "made-up"})
    assert r.status_code == 403 and "unknown form id" in r.text
    r = client.post("/runs/a1/deny", data={**base, **fields})  # an approve form sent to deny
    assert r.status_code == 403 and "issued for approve" in r.text
    r = client.post("/runs/a1/approve", data={**base, **fields},
                    headers={"origin": "http://attacker.example"})
    assert r.status_code == 403 and "cross-origin" in r.text
    second, _ = client_for(db, app=module.app)  # another session of the same console
    second.cookies.clear()
    intruder = TestClient(client.app, base_url="http://127.0.0.1:8765", follow_redirects=False)
    login(intruder, config)
    r = intruder.post("/runs/a1/approve", data={**base, **fields})  # csrf of the first session
    assert r.status_code == 403 and "CSRF" in r.text
    assert operator_events(rt.store, "a1") == []
    assert rt.store.get_run("a1").run.state is RunState.WAITING
    r = client.post("/runs/a1/approve", data={**base, **fields, "effect_digest": "sha256:0"
                                               + "0" * 63, "reason": "looks fine"})
    assert r.status_code == 303  # a real form, but not the effect under review: the gate says no
    assert "approve refused: request " + req.request_id + ": effect_digest was approved as" \
        in html.unescape(client.get("/runs/a1").text)
    assert operator_events(rt.store, "a1") == []
    fields = form_fields(client.get("/runs/a1").text, "approve")
    r = client.post("/runs/a1/approve", data={**base, **fields, "reason": " "})
    assert r.status_code == 303  # a real form without a reason: the operator API refuses it
    assert "say why" in client.get("/runs/a1").text and operator_events(rt.store, "a1") == []


OPS_APP = '''
from pathlib import Path

from minirt import EffectClass, Runtime, ScriptedModel, tool
from minirt.idempotency import reconcile_by_lookup
from minirt.world.payments import PaymentProvider

HERE = Path(__file__).parent


def app(store, **kw):
    kw.setdefault("lease_for", 1.0)
    provider = PaymentProvider(HERE / "payments.sqlite")

    @tool(EffectClass.IRREVERSIBLE)
    def charge(amount_cents: int, customer: str):
        return provider.charge(None, amount_cents, "eur", customer)  # no key, no lookup

    def pay(ctx, inp):
        plan = ctx.decide({"order": inp["order"]})
        r = ctx.call_tool("charge", amount_cents=plan["amount_cents"], customer=inp["customer"])
        return {"charge_id": r["charge_id"]}

    return Runtime(store, tools=[charge], model=ScriptedModel([{"amount_cents": 4200}]),
                   workflows={"pay": pay}, reconcile=reconcile_by_lookup, **kw)
'''


def test_an_uncertain_run_is_resolved_from_the_console_with_one_charge(tmp_path, monkeypatch):
    from minirt.world.ledger import Ledger

    mod = f"consoleops_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{mod}.py").write_text(textwrap.dedent(OPS_APP))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__(mod)
    db = str(tmp_path / "runs.sqlite")
    rt = module.app(open_store(db), clock=FakeClock(1_000_000.0), worker_id="w-crashed",
                    faults=FaultPlan("after_provider_commit"))
    rt.start("pay", {"order": "A-42", "customer": "cus_ada"}, run_id="u1")
    with pytest.raises(SimulatedCrash):
        rt.run("u1")
    rt.close()
    assert module.app(open_store(db)).resume("u1", wait=True).state is RunState.UNCERTAIN
    ledger = Ledger(tmp_path / "payments.sqlite")
    (row,) = ledger.effects("charge")
    client, config = client_for(db, app=module.app, user="ana")
    page = login(client, config).get("/runs/u1").text
    assert "UNCERTAIN: step 1, charge" in page
    fields = form_fields(page, "resolve")
    record = {"charge_id": row["effect_id"], "amount": 4200}
    r = client.post("/runs/u1/resolve", data={
        **fields, "outcome": "happened", "value": json.dumps(record),
        "evidence": json.dumps({"dashboard": row["effect_id"]}),
        "reason": "found it in the payments dashboard"})
    assert r.status_code == 303
    assert "the run is now succeeded" in client.get("/runs/u1").text
    assert len(ledger.effects("charge")) == 1  # exactly one effect
    store = open_store(db)
    (ev,) = operator_events(store, "u1")
    assert (ev["action"], ev["by"], ev["outcome"]) == ("resolve", "ana", "happened")
    assert store.get_run("u1").run.state is RunState.SUCCEEDED
    store.close()
    ledger.close()
    sys.modules.pop(mod, None)


def test_cancel_retry_and_fork_buttons_are_journaled(refund_world):
    tmp_path, module, db, rt, req = refund_world
    client, config = client_for(db, app=module.app, user="bob")
    page = login(client, config).get("/runs/a1").text
    r = client.post("/runs/a1/fork", data={**form_fields(page, "fork"), "position": "2",
                                            "reason": "try it again"})
    assert r.status_code == 303 and r.headers["location"] == "/runs/a1"
    assert "position 1 holds an approval request" in client.get("/runs/a1").text
    page = client.get("/runs/a1").text
    r = client.post("/runs/a1/fork", data={**form_fields(page, "fork"), "position": "1",
                                            "reason": "try it again"})
    assert r.status_code == 303 and r.headers["location"] == "/runs/a1.fork1"
    assert rt.store.get_run("a1.fork1").run.state is RunState.PENDING
    page = client.get("/runs/a1").text
    r = client.post("/runs/a1/cancel", data={**form_fields(page, "cancel"),
                                              "reason": "customer withdrew"})
    assert r.status_code == 303
    page = client.get("/runs/a1").text
    assert "cancel requested" in page
    assert [(e["action"], e["by"]) for e in operator_events(rt.store, "a1")] == [
        ("fork", "bob"), ("cancel", "bob")]
    assert [(e["action"], e["from_run"]) for e in operator_events(rt.store, "a1.fork1")] == [
        ("fork", "a1")]
    assert 'action="/runs/a1/retry"' not in page  # a cancelling run shows no Retry
    page = client.get("/runs/a1.fork1").text  # the fork is PENDING, no worker: parked
    r = client.post("/runs/a1.fork1/retry", data={**form_fields(page, "retry"),
                                                   "reason": "no worker took it"})
    assert r.status_code == 303 and r.headers["location"] == "/runs/a1.fork1"
    assert "executed the parked run again" in client.get("/runs/a1.fork1").text
    assert rt.store.get_run("a1.fork1").run.state is RunState.WAITING  # asks for approval anew
    assert [e["action"] for e in operator_events(rt.store, "a1.fork1")] == ["fork", "retry"]
    assert client.get("/runs/nope").status_code == 404
