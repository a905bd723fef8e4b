"""The operator's console in real headless Chromium: approve a pending refund at a payment
provider served over HTTP on 127.0.0.1 (minirt.world, its own process and ledger) and resolve a
run that a crash left UNCERTAIN, both from the page; exactly one effect each in the provider's
ledger. The console runs as ``minirt console`` in a child process, as an operator starts it.

Writes build/console-runs.png (the runs by state) and build/console-approval.png (a pending
approval under review).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from harness import ROOT

pytestmark = [pytest.mark.browser]

SHOTS = ROOT / "build"

APP = '''
import json
import os
from pathlib import Path

from minirt import EffectClass, Runtime, ScriptedModel, tool
from minirt.approvals import ApprovalGate, call_approved, request_approval
from minirt.idempotency import reconcile_by_lookup
from minirt.tools import Lookup
from minirt.world.http import PaymentClient

HERE = Path(__file__).parent
SIGNING_KEY = "console-browser-test-signing-key-0123"


def app(store, **kw):
    # A worker that parks a run UNCERTAIN keeps its lease for lease_for, and the console's
    # Resolve waits that out before it continues the run; short here to keep the wait short.
    kw.setdefault("lease_for", float(os.environ.get("CONSOLEB_LEASE_FOR", "30")))
    client = PaymentClient(json.loads((HERE / "world.json").read_text())["payments"])
    gate = ApprovalGate(SIGNING_KEY, {"payments": "sk_test_console_browser"},
                        artifacts=lambda name: (HERE / name).read_bytes())

    def refund(charge_id: str, amount_cents: int, *, credential, call):
        return client.refund(charge_id, call.effect_key)

    def refund_lookup(call):
        found = client.lookup(call.effect_key)
        return Lookup(found is not None, found)

    refund_tool = gate.guarded(refund, credential="payments",
                               resource=lambda a: f"charge:{a['charge_id']}",
                               amount=lambda a: a["amount_cents"], lookup=refund_lookup)

    @tool(EffectClass.IRREVERSIBLE)
    def charge(amount_cents: int, customer: str):
        return client.charge(None, amount_cents, "eur", customer)  # no key: cannot dedupe

    def refund_agent(ctx, inp):
        args = {"charge_id": inp["charge_id"], "amount_cents": inp["amount_cents"]}
        receipt = request_approval(ctx, "refund", args, artifact="refund-note.txt")
        return call_approved(ctx, "refund", args, receipt)

    def pay(ctx, inp):
        r = ctx.call_tool("charge", amount_cents=inp["amount_cents"], customer=inp["customer"])
        return {"charge_id": r["charge_id"]}

    return Runtime(store, tools=[refund_tool, charge], hooks=[gate], model=ScriptedModel([]),
                   workflows={"refund_agent": refund_agent, "pay": pay},
                   reconcile=reconcile_by_lookup, **kw)
'''


NOTE = "Order 42 arrived broken (photo attached). Refund 30.00 EUR in full.\n"


def effects(payments: Path, kind: str, customer: str | None = None) -> list[dict]:
    from minirt.world.ledger import Ledger

    ledger = Ledger(payments)
    try:
        rows = ledger.effects(kind)
    finally:
        ledger.close()
    return [r for r in rows if customer is None or r["params"].get("customer") == customer]


class ConsoleProcess:
    """``minirt console`` in a child process; ``url`` is the line it printed."""

    def __init__(self, cwd: Path, *argv: str) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd), str(ROOT)])}
        self.proc = subprocess.Popen([sys.executable, "-m", "minirt.cli", "console", *argv],
                                     cwd=cwd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(self.proc.stdout.readline()))
        reader.start()
        reader.join(timeout=60)
        if not first or not first[0].startswith("minirt console: http://127.0.0.1:"):
            self.proc.kill()
            raise AssertionError(f"the console did not start: {first} "
                                 f"{self.proc.stderr.read() if self.proc.poll() else ''}")
        self.url = first[0].split(": ", 1)[1].strip()
        self.base = self.url.split("/?token=")[0]

    def stop(self) -> tuple[int, str, str]:
        self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, out, err


@pytest.fixture
def operated(tmp_path, monkeypatch):
    """The provider (own process), a store with a refund WAITING for approval and a payment
    parked UNCERTAIN by a crash, and the console serving that store."""
    from minirt import FakeClock
    from minirt.approvals import ApprovalGate
    from minirt.faults import FaultPlan, SimulatedCrash
    from minirt.run import RunState
    from minirt.store import open_store
    from minirt.world.http import PaymentClient, spawn_world

    mod = f"consoleb_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{mod}.py").write_text(textwrap.dedent(APP))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CONSOLEB_LEASE_FOR", "1.0")
    module = __import__(mod)
    (tmp_path / "refund-note.txt").write_text(NOTE)
    payments = tmp_path / "payments.sqlite"
    world = spawn_world(tmp_path / "world.json", payments=payments)
    db = str(tmp_path / "runs.sqlite")
    console = None
    try:
        paid = PaymentClient(world.urls["payments"]).charge("order-42-paid", 3000, "eur",
                                                             "cus_ada")
        rt = module.app(open_store(db))
        rt.start("refund_agent", {"charge_id": paid["charge_id"], "amount_cents": 3000},
                 run_id="refund-42")
        gate = next(h for h in rt.hooks if isinstance(h, ApprovalGate))
        gate.mint(rt, "refund-42", "refund", resource=f"charge:{paid['charge_id']}",
                  max_amount=5000)
        assert rt.run("refund-42").state is RunState.WAITING
        rt.start("pay", {"amount_cents": 1200, "customer": "cus_bob"}, run_id="pay-1")
        assert rt.run("pay-1").state is RunState.SUCCEEDED
        crashed = module.app(open_store(db), clock=FakeClock(time.time() - 120), worker_id="w-dead",
                             faults=FaultPlan("after_provider_commit"))
        crashed.start("pay", {"amount_cents": 4200, "customer": "cus_eve"}, run_id="pay-7")
        with pytest.raises(SimulatedCrash):
            crashed.run("pay-7")  # W3: the provider charged, the answer was lost
        crashed.close()
        assert rt.resume("pay-7", wait=True).state is RunState.UNCERTAIN
        rt.close()
        console = ConsoleProcess(tmp_path, "--store", db, "--app", f"{mod}:app", "--port", "0",
                                 "--user", "ana")
        yield console, db, payments, paid
    finally:
        if console is not None and console.proc.poll() is None:
            console.stop()
        world.stop()
        sys.modules.pop(mod, None)


def test_console_approves_a_refund_and_resolves_an_uncertain_charge(operated, browser):
    from minirt.operator import operator_events
    from minirt.store import open_store

    console, db, payments, paid = operated
    with pytest.raises(urllib.error.HTTPError) as refused:  # no token, no cookie: refused
        urllib.request.urlopen(console.base + "/runs/refund-42", timeout=10)
    assert refused.value.code == 401

    page = browser.context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(console.url)
    assert page.url == console.base + "/"  # the token left the address bar
    page.wait_for_selector("text=Runs by state")
    for state in ("waiting", "uncertain", "succeeded"):
        assert page.locator(f"#state-{state}").count() == 1, state
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "console-runs.png"), full_page=True)

    page.click("text=refund-42")
    review = page.locator("section.card.review")
    review.wait_for()
    text = review.inner_text()
    assert '{"amount_cents":3000,"charge_id":"' + paid["charge_id"] + '"}' in text
    assert "against the limit 5000" in text and "within the limit" in text
    assert NOTE.strip() in text  # the refund note the reviewer reads, with its digest
    assert review.locator("code.artifact-digest").inner_text().startswith("sha256:")
    digest = review.locator("code.effect-digest").inner_text()
    assert digest.startswith("sha256:")
    assert page.locator("#journal-timeline svg").count() == 1  # minirt.viz's picture, as SVG
    page.screenshot(path=str(SHOTS / "console-approval.png"), full_page=True)

    approve = page.locator('form[action$="/approve"]')
    approve.locator('input[name="reason"]').fill("the customer sent a photo of the damage")
    sent = {name: approve.locator(f'input[name="{name}"]').input_value()
            for name in ("csrf", "form_id", "request_id", "effect_digest", "reason")}
    approve.locator("button", has_text="Approve").click()
    page.wait_for_selector("#run-state:text('succeeded')", timeout=60000)
    assert "the run is now succeeded" in page.inner_text(".notice")
    assert len(effects(payments, "refund")) == 1  # exactly one refund at the provider
    replay = page.request.post(console.base + "/runs/refund-42/approve", form=sent,
                               headers={"origin": console.base}, max_redirects=0)
    assert replay.status == 409  # the same form again, with the session's cookie: refused

    # A form without the console's hidden fields, posted from the console's own origin (an
    # injected form), and the same from a page of no origin (another site): both refused.
    forged_form = (f'<form method="post" action="{console.base}/runs/pay-7/cancel">'
                   f'<input name="reason" value="forged"><button>go</button></form>')
    statuses = []
    for where in (console.base + "/", "about:blank"):
        page.goto(where)
        page.set_content(forged_form)
        with page.expect_response(lambda r: r.url.endswith("/runs/pay-7/cancel")) as forged:
            page.click("button")
        statuses.append((forged.value.status, page.inner_text("body")))
    assert statuses[0][0] == 403 and "CSRF" in statuses[0][1]  # cookie sent, no CSRF token
    assert statuses[1][0] == 401  # SameSite=Strict: the session cookie was not even sent

    page.goto(console.base + "/runs/pay-7")
    card = page.locator("section.card.uncertain")
    card.wait_for()
    (row,) = effects(payments, "charge", "cus_eve")  # the operator's lookup at the provider
    card.locator('select[name="outcome"]').select_option("happened")
    card.locator('textarea[name="value"]').fill(json.dumps({"charge_id": row["effect_id"]}))
    card.locator('textarea[name="evidence"]').fill(json.dumps({"ledger_row": row["effect_id"]}))
    card.locator('input[name="reason"]').fill("found the charge in the provider's ledger")
    card.locator("button", has_text="Resolve").click()
    page.wait_for_selector("#run-state:text('succeeded')", timeout=60000)
    assert len(effects(payments, "charge", "cus_eve")) == 1  # exactly one charge
    page.close()

    store = open_store(db)
    try:
        assert [(e["action"], e["by"], e["effect_digest"]) for e in
                operator_events(store, "refund-42")] == [("approve", "ana", digest)]
        assert [(e["action"], e["by"], e["outcome"]) for e in
                operator_events(store, "pay-7")] == [("resolve", "ana", "happened")]
        assert len(operator_events(store, "refund-42")) == 1
    finally:
        store.close()
    code, out, err = console.stop()
    assert code == 0 and err == "", err  # the console writes nothing to stderr
    assert not errors
