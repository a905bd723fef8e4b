"""The keyed chain, and verification before any write (issue 19, item 7), on both stores.

The attack: someone who can write the store (the SQLite file, the database) but does not hold the
chain key rewrites a recorded model decision (refund 3000 -> 900000) and recomputes the plain
sha256 chain from that row on, head included. Under the plain chain that forgery verifies and the
refund is charged for real (shown below, as the reason the README recommends the keyed chain);
under a keyed chain it is refused with JournalCorrupted naming the run and the seq, before the
resume writes anything and before any tool is called. Also: key rotation, a journal signed with
an unknown key, finished runs served from the verified chain (a rewritten ``detail_json`` is
refused), a corrupted run skipped by the worker loop, and ``minirt show``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from minirt.cli import main
from minirt.clock import FakeClock
from minirt.run import RunEvent, RunState
from minirt.runtime import Runtime, ScriptedModel
from minirt.store import open_store
from minirt.store.base import JournalCorrupted, NewEvent, event_digest
from minirt.store.chainkey import ChainKeyInvalid, ChainKeys, ChainKeyUnknown
from minirt.store.postgres import PostgresStore
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, ToolCall

pytest_plugins = ["pg_fixture"]

KEY = "k1=" + "a" * 32
NEW_KEY = "k2=" + "b" * 32


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "runs.sqlite")
    return request.getfixturevalue("pg_url")


def open_with(url: str, chain_key: str | None):
    if url.startswith("postgresql://"):
        return PostgresStore(url, chain_key=chain_key)
    return SQLiteStore(url, chain_key=chain_key)


class Provider:
    def __init__(self) -> None:
        self.charged: list[int] = []

    def refund(self, call: ToolCall, order_id: str, amount_cents: int) -> Any:
        self.charged.append(amount_cents)
        return {"refund_id": "re_" + call.effect_key[-8:], "amount_cents": amount_cents}


def support(ctx, ticket):
    plan = ctx.decide({"ticket": ticket})
    ctx.wait_for("go")
    receipt = ctx.call_tool("refund", order_id=ticket["order"], amount_cents=plan["amount"])
    return {"refunded": receipt["amount_cents"]}


def runtime(store, provider: Provider, clock: FakeClock) -> Runtime:
    return Runtime(store, clock=clock, model=ScriptedModel([{"amount": 3000}]),
                   tools=[FunctionTool(provider.refund, name="refund", effect=EffectClass.KEYED)],
                   workflows={"support": support})


def waiting_run(store, provider: Provider, clock: FakeClock, run_id: str = "ticket-42") -> Runtime:
    rt = runtime(store, provider, clock)
    assert rt.run_workflow("support", {"order": "ord_42"}, run_id=run_id).state \
        is RunState.WAITING
    rt.signal(run_id, "go")  # PENDING again: the next resume would charge
    return rt


def is_pg(store) -> bool:
    return isinstance(store, PostgresStore)


def forge(store, run_id: str, kind: str, rewrite, *, at_seq: int | None = None) -> int:
    """Rewrite the first ``kind`` row's payload (or the row ``at_seq``) and recompute the plain
    sha256 chain from it on, head included, as someone with write access and no key would.
    Returns the forged seq."""
    ph = "%s" if is_pg(store) else "?"
    with store.transaction() as db:
        rows = db.execute(f"SELECT seq, kind, step, payload_json, incarnation, at, digest FROM"
                          f" events WHERE run_id={ph} ORDER BY seq", (run_id,)).fetchall()
        target = at_seq or next(r[0] for r in rows if r[1] == kind)
        prev = rows[target - 2][6] if target > 1 else "sha256:" + "0" * 64
        prev = prev if isinstance(prev, str) else "sha256:" + bytes(prev).hex()
        for seq, k, step, payload, inc, at, _ in rows[target - 1:]:
            if seq == target:
                payload = json.dumps(rewrite(json.loads(payload)), sort_keys=True,
                                     separators=(",", ":"))
            d = event_digest(run_id, seq, k, step, payload, inc, at, prev)
            if is_pg(store):
                db.execute("UPDATE events SET payload_json=%s, digest=%s, prev_digest=%s"
                           " WHERE run_id=%s AND seq=%s", (payload, d, prev, run_id, seq))
            else:
                db.execute("UPDATE events SET payload_json=?, digest=? WHERE run_id=? AND seq=?",
                           (payload, d, run_id, seq))
            prev = d
        db.execute(f"UPDATE runs SET last_digest={ph} WHERE run_id={ph}", (prev, run_id))
    return target


def to_900000(payload: dict[str, Any]) -> dict[str, Any]:
    return {**payload, "output": {"amount": 900000}}


def event_count(store, run_id: str) -> int:
    ph = "%s" if is_pg(store) else "?"
    with store.transaction() as db:
        return db.execute(f"SELECT count(*) FROM events WHERE run_id={ph}",
                          (run_id,)).fetchone()[0]


# -- the attack --------------------------------------------------------------------------------

def test_plain_chain_accepts_a_recomputed_forgery_which_is_why_production_needs_a_key(store_url):
    provider, clock = Provider(), FakeClock(1000.0)
    store = open_with(store_url, None)
    rt = waiting_run(store, provider, clock)
    forge(store, "ticket-42", "decision", to_900000)
    assert rt.resume("ticket-42").result() == {"refunded": 900000}
    assert provider.charged == [900000]
    store.close()


def test_keyed_chain_refuses_the_forged_decision_before_any_write_or_charge(store_url):
    provider, clock = Provider(), FakeClock(1000.0)
    store = open_with(store_url, KEY)
    rt = waiting_run(store, provider, clock)
    seq = forge(store, "ticket-42", "decision", to_900000)
    before = (event_count(store, "ticket-42"), store.get_run("ticket-42").run)
    with pytest.raises(JournalCorrupted) as err:
        rt.resume("ticket-42")
    assert (err.value.run_id, err.value.seq) == ("ticket-42", seq)
    assert "ticket-42" in str(err.value) and f"seq {seq}" in str(err.value)
    assert "without the chain key" in str(err.value)
    assert provider.charged == []
    # nothing was written: no claim event, the run row untouched
    assert (event_count(store, "ticket-42"), store.get_run("ticket-42").run) == before
    # the worker loop skips it (never jams), names it, and runs the healthy run behind it
    rt.start("support", {"order": "ord_43"}, run_id="ticket-43")
    outs = rt.work()
    assert [o.run_id for o in outs] == ["ticket-43"]
    assert isinstance(store.refused["ticket-42"], JournalCorrupted)
    assert provider.charged == []
    store.close()


def test_a_digest_in_keyed_form_computed_without_the_key_is_refused(store_url):
    provider, clock = Provider(), FakeClock(1000.0)
    store = open_with(store_url, KEY)
    waiting_run(store, provider, clock)
    ph = "%s" if is_pg(store) else "?"
    raw = store.transaction  # rewrite only the payload, keep the keyed digest
    with raw() as db:
        db.execute(f"UPDATE events SET payload_json={ph} WHERE run_id={ph} AND kind='decision'",
                   ('{"name":"decide","output":{"amount":900000},"prompt_digest":"x"}',
                    "ticket-42"))
    with pytest.raises(JournalCorrupted, match="keyed digest"):
        store.read("ticket-42")
    store.close()


def test_an_unkeyed_store_cannot_read_a_keyed_journal(store_url):
    provider, clock = Provider(), FakeClock(1000.0)
    keyed = open_with(store_url, KEY)
    waiting_run(keyed, provider, clock)
    keyed.close()
    plain = open_with(store_url, None)
    with pytest.raises(ChainKeyUnknown) as err:
        plain.read("ticket-42")
    assert (err.value.run_id, err.value.seq, err.value.key_id) == ("ticket-42", 1, "k1")
    plain.close()


# -- rotation ----------------------------------------------------------------------------------

def test_rotation_signs_new_events_with_the_new_key_and_verifies_old_ones_with_the_old(store_url):
    provider, clock = Provider(), FakeClock(1000.0)
    old = open_with(store_url, KEY)
    waiting_run(old, provider, clock)
    n_old = event_count(old, "ticket-42")
    old.close()

    rotated = open_with(store_url, f"{NEW_KEY},{KEY}")  # new key first, old one kept
    rt = runtime(rotated, provider, clock)
    assert rt.resume("ticket-42").result() == {"refunded": 3000}
    events = rotated.read("ticket-42")
    assert {e.digest.split(":")[1] for e in events[:n_old]} == {"k1"}
    assert {e.digest.split(":")[1] for e in events[n_old:]} == {"k2"}
    assert rt.outcome("ticket-42").value == {"refunded": 3000}
    rotated.close()

    new_only = open_with(store_url, NEW_KEY)  # the old key dropped too early
    with pytest.raises(ChainKeyUnknown) as err:
        new_only.read("ticket-42")
    assert (err.value.seq, err.value.key_id) == (1, "k1")
    new_only.close()


def test_chain_keys_are_checked_and_never_shown():
    keys = ChainKeys.parse(f"{NEW_KEY},{KEY}")
    assert keys.current == "k2" and keys.key_ids == ("k2", "k1")
    assert "a" * 32 not in repr(keys) and "b" * 32 not in repr(keys)
    for bad, why in [("k1=short", "bytes"), ("k 1=" + "a" * 32, "key id"), ("nokey", "expected"),
                     (f"{KEY},{KEY}", "twice")]:
        with pytest.raises(ChainKeyInvalid, match=why):
            ChainKeys.parse(bad)
    assert ChainKeys.from_env({}) is None
    assert ChainKeys.from_env({"MINIRT_CHAIN_KEY": KEY}).key_ids == ("k1",)


# -- finished runs are served from the verified chain -----------------------------------------

def finished(store_url: str, chain_key: str | None):
    provider, clock = Provider(), FakeClock(1000.0)
    store = open_with(store_url, chain_key)
    rt = waiting_run(store, provider, clock)
    assert rt.resume("ticket-42").result() == {"refunded": 3000}
    return store, rt


@pytest.mark.parametrize("chain_key", [None, KEY])
def test_a_rewritten_detail_json_of_a_finished_run_is_refused(store_url, chain_key):
    store, rt = finished(store_url, chain_key)
    assert rt.outcome("ticket-42").value == {"refunded": 3000}
    ph = "%s" if is_pg(store) else "?"
    with store.transaction() as db:
        db.execute(f"UPDATE runs SET detail_json={ph} WHERE run_id={ph}",
                   ('{"result": {"refunded": 900000}}', "ticket-42"))
    with pytest.raises(JournalCorrupted, match="detail_json"):
        rt.outcome("ticket-42")
    with pytest.raises(JournalCorrupted):
        rt.resume("ticket-42")  # resume of a finished run serves the same, verified, outcome
    store.close()


def test_a_finished_run_whose_result_was_forged_in_both_places_is_refused_under_a_key(store_url):
    store, rt = finished(store_url, KEY)
    last = store.read("ticket-42")[-1]
    assert json.loads(last.payload_json)["event"] == "complete"
    seq = forge(store, "ticket-42", "transition",
                lambda p: {**p, "result": {"refunded": 900000}}, at_seq=last.seq)
    ph = "%s" if is_pg(store) else "?"
    with store.transaction() as db:
        db.execute(f"UPDATE runs SET detail_json={ph} WHERE run_id={ph}",
                   ('{"result": {"refunded": 900000}}', "ticket-42"))
    with pytest.raises(JournalCorrupted) as err:
        rt.outcome("ticket-42")
    assert (err.value.run_id, err.value.seq) == ("ticket-42", seq)
    store.close()


# -- verify before any write, also on the plain chain ------------------------------------------

def test_resume_of_an_accidentally_corrupted_journal_writes_nothing(store_url):
    provider, clock = Provider(), FakeClock(1000.0)
    store = open_with(store_url, None)
    rt = waiting_run(store, provider, clock)
    with store.transaction() as db:
        db.execute("UPDATE events SET payload_json = '{\"x\":1}' WHERE run_id = 'ticket-42'"
                   " AND seq = 2")
    before = (event_count(store, "ticket-42"), store.get_run("ticket-42").run)
    with pytest.raises(JournalCorrupted) as err:
        rt.resume("ticket-42")
    assert err.value.seq == 2
    assert (event_count(store, "ticket-42"), store.get_run("ticket-42").run) == before
    assert provider.charged == []
    store.close()


# -- minirt show -------------------------------------------------------------------------------

def test_minirt_show_verifies_the_keyed_chain_and_names_a_forged_row(store_url, monkeypatch,
                                                                       capsys):
    monkeypatch.setenv("MINIRT_CHAIN_KEY", KEY)
    store, rt = finished(store_url, None)  # the store took the key from the environment
    assert store.chain_keys is not None and store.chain_keys.key_ids == ("k1",)
    assert main(["show", "--store", store_url, "ticket-42"]) == 0
    out = capsys.readouterr().out
    assert "hash chain verified (keyed: hmac-sha256, keys k1)" in out
    assert 'result {"refunded": 3000}  (from the verified journal)' in out
    seq = forge(store, "ticket-42", "decision", to_900000)
    store.close()
    assert main(["show", "--store", store_url, "ticket-42"]) == 2
    err = capsys.readouterr().err
    assert f"journal of run ticket-42 is corrupted at seq {seq}" in err
    monkeypatch.delenv("MINIRT_CHAIN_KEY")
    s = open_store(store_url)
    assert s.chain_keys is None
    s.close()


@pytest.mark.parametrize("chain_key", [None, KEY])
def test_a_rewritten_input_json_is_refused_before_the_resume_writes_or_charges(store_url,
                                                                              chain_key):
    """The run row's input is outside the chain; its run_started event is inside."""
    provider, clock = Provider(), FakeClock(1000.0)
    store = open_with(store_url, chain_key)
    rt = waiting_run(store, provider, clock)
    ph = "%s" if is_pg(store) else "?"
    with store.transaction() as db:
        db.execute(f"UPDATE runs SET input_json={ph} WHERE run_id={ph}",
                   ('{"order":"ord_666"}', "ticket-42"))
    before = event_count(store, "ticket-42")
    with pytest.raises(JournalCorrupted, match="input_json") as err:
        rt.resume("ticket-42")
    assert (err.value.run_id, err.value.seq) == ("ticket-42", 1)
    assert event_count(store, "ticket-42") == before and provider.charged == []
    store.close()


def test_a_resume_verifies_the_journal_before_it_writes_and_replays_only_verified_rows(
        tmp_path, monkeypatch):
    """Every row a resume acts on was hashed with the chain key: the claim verifies the whole
    journal in its own transaction (before it writes), and the replay's streamed read verifies
    each page again as it reads it (a keyed chain is never trusted from an earlier check; the
    plain-sha256 shortcut of minirt.store.sqlite.iter_events does not apply to it). A row
    another writer appends after the claim is verified when read."""
    import minirt.store.sqlite as sqlite_mod

    checked: list[tuple[str, int]] = []  # (run_id, seq) of every row hashed with the key

    class Counting(sqlite_mod.ChainVerifier):
        __slots__ = ()

        def check(self, row):
            checked.append((row.run_id, row.seq))
            return super().check(row)

        def check_plain(self, seq, *args):
            checked.append((self.run_id, seq))
            return super().check_plain(seq, *args)

        def known(self, events):  # the unkeyed shortcut: must never be taken for a keyed chain
            raise AssertionError("a keyed chain was trusted without hashing")

    provider, clock = Provider(), FakeClock(1000.0)
    store = SQLiteStore(tmp_path / "runs.sqlite", chain_key=KEY)
    rt = waiting_run(store, provider, clock)
    before = event_count(store, "ticket-42")
    monkeypatch.setattr(sqlite_mod, "ChainVerifier", Counting)
    assert rt.resume("ticket-42").result() == {"refunded": 3000}
    seqs = [q for r, q in checked if r == "ticket-42"]
    assert seqs[:before] == list(range(1, before + 1))  # the claim: whole journal, first
    assert set(range(1, before + 1)) <= set(seqs[before:])  # the replay read them verified again
    rt.start("support", {"order": "ord_43"}, run_id="ticket-43")
    claimed = store.transition("ticket-43", RunEvent("claim", at=clock.now(), worker_id="w"))
    other = SQLiteStore(tmp_path / "runs.sqlite", chain_key=KEY)
    other.append("ticket-43", claimed.incarnation, [NewEvent("operator", None, "{}", clock.now())])
    checked.clear()
    assert [e.kind for e in store.read("ticket-43")] == ["run_started", "operator"]
    assert checked == [("ticket-43", 1), ("ticket-43", 2)]
    other.close()
    store.close()


def corrupt_app(store):
    return runtime(store, Provider(), FakeClock(1000.0))


def test_a_worker_process_skips_a_forged_run_says_so_once_and_runs_the_rest(tmp_path, capsys,
                                                                           monkeypatch):
    from minirt.cli import Worker

    monkeypatch.setenv("MINIRT_CHAIN_KEY", KEY)
    path = str(tmp_path / "runs.sqlite")
    store = SQLiteStore(path)
    waiting_run(store, Provider(), FakeClock(1000.0))
    forge(store, "ticket-42", "decision", to_900000)
    runtime(store, Provider(), FakeClock(1000.0)).start("support", {"order": "ord_43"},
                                                        run_id="ticket-43")
    store.close()
    w = Worker(path, corrupt_app, worker_id="w1", idle_exit=True, poll_s=0.01)
    stats = w.run()
    out = capsys.readouterr().out
    assert stats["refused"] == 1 and stats["waiting"] == 1, stats  # ticket-43 waits for "go"
    assert out.count("skipped run ticket-42, its journal does not verify") == 1
