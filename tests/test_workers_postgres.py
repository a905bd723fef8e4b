"""Many workers on a real PostgreSQL server: claiming, heartbeats, draining, fencing, and chaos.

The fast tests check what only the PostgreSQL store offers (SKIP LOCKED, the stale-write count,
the fencing audit, a named error for an unreachable server) and the ``minirt`` command line. The
chaos test runs a few hundred checkout runs (``minirt_course.scenarios.pg_chaos``) through four worker
processes while a seeded loop SIGKILLs and restarts workers and freezes others (SIGSTOP) until
their lease is taken over, then thaws them (SIGCONT) so that their late writes arrive: every run
must end, every payment and receipt must exist exactly once in the providers' own ledgers, and
no stale write may have been accepted.

Where no PostgreSQL server can be used these tests are skipped with the reason; with ``CI=true``
they fail (see ``tests/pg_fixture.py``).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from minirt.run import RunEvent, RunState, StaleIncarnation
from minirt.store.base import NewEvent
from minirt.store.postgres import PostgresStore, StoreUnavailable
from minirt_course.scenarios import pg_chaos

pytest_plugins = ["pg_fixture"]
pytestmark = pytest.mark.postgres

APP = "minirt_course.scenarios.pg_chaos:app"
T0 = 1_000.0


def ev(step: int = 0) -> NewEvent:
    return NewEvent("step", step, json.dumps({"n": step}), T0)


@pytest.fixture
def store(pg_url):
    s = PostgresStore(pg_url)
    yield s
    s.close()


def minirt(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "minirt.cli", *args], capture_output=True,
                          text=True, timeout=120, env=env)


def spawn_worker(store_url: str, worker_id: str, logdir: Path, *extra: str,
                 env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    out = open(logdir / f"{worker_id}.out", "wb")  # noqa: SIM115 - closed by the OS at exit
    err = open(logdir / f"{worker_id}.err", "wb")  # noqa: SIM115
    return subprocess.Popen([sys.executable, "-m", "minirt.cli", "worker", "--store", store_url,
                             "--app", APP, "--worker-id", worker_id, *extra],
                            stdout=out, stderr=err, env=env, stdin=subprocess.DEVNULL)


def summary(logdir: Path, worker_id: str) -> dict:
    for line in (logdir / f"{worker_id}.out").read_text().splitlines():
        if line.startswith("minirt-worker-summary "):
            return json.loads(line.split(" ", 1)[1])
    return {}


def wait_for(predicate, timeout: float, what: str, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


# -- what only the PostgreSQL store offers --------------------------------------------------------

def test_claim_next_skips_a_run_locked_by_another_transaction(store, pg_url):
    store.create_run("r1", "wf", "{}", T0)
    store.create_run("r2", "wf", "{}", T0 + 1)
    other = PostgresStore(pg_url)
    try:
        with other.transaction() as db:
            db.execute("SET lock_timeout = 3000")  # without SKIP LOCKED this claim would fail
        with store.transaction():
            store.set_kv("r1", {"k": "v"})  # holds r1's row lock until the block ends
            rec = other.claim_next("w2", T0, 30)
        assert rec.run.run_id == "r2"
    finally:
        other.close()


def test_rejected_stale_writes_are_counted_with_both_incarnations(store):
    store.create_run("r1", "wf", "{}", T0)
    store.transition("r1", RunEvent("claim", at=T0, worker_id="w1", lease_for=10))
    store.claim_next("w2", T0 + 11, 30)
    with pytest.raises(StaleIncarnation):
        store.append("r1", 1, [ev()])
    with pytest.raises(StaleIncarnation):
        store.transition("r1", RunEvent("complete", at=T0 + 12, incarnation=1))
    with pytest.raises(StaleIncarnation):
        store.append("r1", 1, [], lease_until=T0 + 40)
    assert store.stale_write_count() == 3
    assert [(w["op"], w["incarnation"], w["current_incarnation"])
            for w in store.stale_writes("r1")] == [
        ("append", 1, 2), ("complete", 1, 2), ("heartbeat", 1, 2)]


def test_a_stale_write_in_a_rolled_back_outer_transaction_is_still_counted(store):
    store.create_run("r1", "wf", "{}", T0)
    store.transition("r1", RunEvent("claim", at=T0, worker_id="w1", lease_for=10))
    store.claim_next("w2", T0 + 11, 30)
    with pytest.raises(StaleIncarnation):
        with store.transaction():
            store.append("r1", 1, [ev()])
    assert store.stale_write_count() == 1


def test_the_fencing_audit_is_empty_after_a_takeover_and_finds_an_injected_stale_row(store):
    store.create_run("r1", "wf", "{}", T0)
    store.transition("r1", RunEvent("claim", at=T0, worker_id="w1", lease_for=10))
    store.append("r1", 1, [ev(0)])
    store.claim_next("w2", T0 + 11, 30)
    store.append("r1", 2, [ev(1)])
    assert store.fencing_audit() == []
    assert [c["worker_id"] for c in store.incarnations("r1")] == ["w1", "w2"]
    with store.transaction() as db:  # what a store without fencing would have let through
        db.execute("INSERT INTO events (run_id, seq, kind, step, payload_json, incarnation, at,"
                   " prev_digest, digest) VALUES ('r1', 3, 'step', 2, '{}', 1, 0, 'x', 'y')")
    assert store.fencing_audit() == [
        {"run_id": "r1", "seq": 3, "incarnation": 1, "newer_incarnation": 2}]


def test_stores_opened_at_once_on_an_empty_database_create_the_schema_once(pg_url):
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            PostgresStore(pg_url).close()
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []


def test_an_unreachable_server_raises_store_unavailable_without_the_password():
    with pytest.raises(StoreUnavailable) as err:
        PostgresStore("postgresql://minirt:s3cret@127.0.0.1:1/nothing", connect_timeout_s=2)
    assert "s3cret" not in str(err.value) and "***" in err.value.url


def test_no_server_programs_is_a_named_error_that_says_what_to_install(monkeypatch):
    from minirt.store import pg_local

    monkeypatch.setattr(pg_local, "find_bindir", lambda: None)
    with pytest.raises(pg_local.PostgresUnavailable) as err:
        pg_local.start_local_cluster()
    assert "apt-get install postgresql" in str(err.value)


def test_every_session_commits_synchronously(store):
    assert store.server_settings()["synchronous_commit"] == "on"


# -- the command line -----------------------------------------------------------------------------

def test_submit_runs_and_show_print_the_run_and_its_verified_journal(pg_url):
    inp = json.dumps({"n": 2, "ms": 1})
    sub = minirt("submit", "--store", pg_url, "--app", APP, "slow_count", inp, "--run-id", "r1")
    assert (sub.returncode, sub.stdout.strip(), sub.stderr) == (0, "r1", "")
    again = minirt("submit", "--store", pg_url, "--app", APP, "slow_count", inp, "--run-id", "r1")
    assert again.stdout.strip() == "r1"  # get-or-create: submitting twice starts one run
    work = minirt("worker", "--store", pg_url, "--app", APP, "--idle-exit", "--worker-id", "w1")
    assert work.returncode == 0 and '"succeeded": 1' in work.stdout, work.stdout + work.stderr
    runs = minirt("runs", "--store", pg_url, "--state", "succeeded")
    assert "r1" in runs.stdout and "1 run(s)" in runs.stdout
    show = minirt("show", "--store", pg_url, "r1")
    assert show.returncode == 0 and "hash chain verified" in show.stdout
    kinds = [line.split()[1] for line in show.stdout.splitlines() if line[:1].isdigit() and "event(s)" not in line]
    assert kinds == ["run_started", "transition", "step", "step", "transition"]  # claim, ..., complete


def test_a_worker_with_max_runs_stops_after_that_many(store, pg_url):
    for i in range(3):
        store.create_run(f"r{i}", "slow_count", json.dumps({"n": 1, "ms": 1}), T0 + i)
    work = minirt("worker", "--store", pg_url, "--app", APP, "--max-runs", "2",
                  "--concurrency", "2", "--worker-id", "w1")
    assert work.returncode == 0, work.stdout + work.stderr
    assert Counter(r.run.state.value for r in store.list_runs()) == {"succeeded": 2,
                                                                     "pending": 1}


def test_bad_input_json_is_a_named_error_on_stderr_and_exit_code_2(pg_url):
    bad = minirt("submit", "--store", pg_url, "--app", APP, "slow_count", "{not json")
    assert bad.returncode == 2
    assert bad.stderr.startswith("minirt: INPUT_JSON: not JSON")
    assert minirt("runs", "--store", pg_url).stdout.strip().endswith("0 run(s)")


def test_an_app_that_cannot_be_imported_is_a_named_error(pg_url):
    bad = minirt("worker", "--store", pg_url, "--app", "no.such.module:app", "--idle-exit")
    assert bad.returncode == 2 and "cannot import 'no.such.module:app'" in bad.stderr


@pytest.mark.slow
def test_a_worker_drains_on_sigterm_and_another_finishes_without_redoing_steps(store, pg_url,
                                                                                tmp_path):
    store.create_run("r1", "slow_count", json.dumps({"n": 30, "ms": 100}), T0)
    w1 = spawn_worker(pg_url, "w1", tmp_path, "--lease-for", "30")
    wait_for(lambda: len(store.read("r1")) >= 3, 30, "w1 to journal two steps")
    w1.send_signal(signal.SIGTERM)
    assert w1.wait(30) == 0
    assert summary(tmp_path, "w1").get("released") == 1
    run = store.get_run("r1").run
    assert (run.state, run.worker_id) == (RunState.PENDING, None)  # handed back, not leased
    done_before = sum(1 for e in store.read("r1") if e.kind == "step")
    w2 = spawn_worker(pg_url, "w2", tmp_path, "--idle-exit")
    assert w2.wait(60) == 0
    steps = Counter(e.payload["name"] for e in store.read("r1") if e.kind == "step")
    assert store.get_run("r1").run.state is RunState.SUCCEEDED
    assert 0 < done_before < 30 and len(steps) == 30 and set(steps.values()) == {1}
    assert [c["worker_id"] for c in store.incarnations("r1")] == ["w1", "w2"]


@pytest.mark.slow
def test_a_heartbeat_keeps_the_lease_of_a_step_longer_than_the_lease(store, pg_url, tmp_path):
    store.create_run("r1", "slow_count", json.dumps({"n": 1, "ms": 3000}), time.time())
    w1 = spawn_worker(pg_url, "w1", tmp_path, "--lease-for", "1", "--idle-exit")
    wait_for(lambda: store.get_run("r1").run.state is RunState.RUNNING, 30, "w1 to claim")
    thefts = []
    while w1.poll() is None:
        thefts.append(store.claim_next("thief", time.time(), 1, ["slow_count"]))
        time.sleep(0.1)
    assert w1.returncode == 0
    assert store.get_run("r1").run.state is RunState.SUCCEEDED
    assert len(thefts) > 20 and not any(thefts)
    assert [c["worker_id"] for c in store.incarnations("r1")] == ["w1"]
    assert summary(tmp_path, "w1").get("heartbeats", 0) >= 3


# -- chaos ----------------------------------------------------------------------------------------

CHAOS_RUNS = int(os.environ.get("MINIRT_CHAOS_RUNS", "300"))
CHAOS_SEED = int(os.environ.get("MINIRT_CHAOS_SEED", "20261129"))
CHAOS_SECONDS = float(os.environ.get("MINIRT_CHAOS_SECONDS", "40"))
WORKERS = 4
LEASE = 1.5


class Fleet:
    """The worker processes, each slot restarted under a new id after a kill."""

    def __init__(self, store_url: str, logdir: Path, env: dict[str, str]) -> None:
        self.store_url, self.logdir, self.env = store_url, logdir, env
        self.procs: dict[int, tuple[str, subprocess.Popen[bytes]]] = {}
        self.ids: list[str] = []
        self.generation = Counter[int]()
        self.kills = self.restarts = 0

    def start(self, slot: int) -> None:
        self.generation[slot] += 1
        wid = f"w{slot}-g{self.generation[slot]}"
        self.ids.append(wid)
        self.procs[slot] = (wid, spawn_worker(self.store_url, wid, self.logdir, "--lease-for",
                                              str(LEASE), "--poll", "0.05", env=self.env))

    def kill_and_restart(self, slot: int) -> None:
        _, proc = self.procs[slot]
        proc.send_signal(signal.SIGCONT)  # a frozen process dies too, but say it plainly
        proc.kill()
        proc.wait(30)
        self.kills += 1
        self.start(slot)
        self.restarts += 1

    def stop_all(self) -> None:
        for _, proc in self.procs.values():
            proc.send_signal(signal.SIGCONT)
            proc.send_signal(signal.SIGTERM)
        for _, proc in self.procs.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def held_by(store: PostgresStore, worker_id: str) -> tuple[str, int] | None:
    for rec in store.list_runs(["running"]):
        if rec.run.worker_id == worker_id:
            return rec.run.run_id, rec.run.incarnation
    return None


def chaos(store: PostgresStore, fleet: Fleet, rng: random.Random, total: int) -> dict:
    """SIGKILL+restart workers, or freeze one holding a run until another takes it over."""
    deadline = time.monotonic() + CHAOS_SECONDS
    zombies = confirmed = 0
    protected_until: dict[int, float] = {}  # a thawed zombie gets time to make its late write
    while time.monotonic() < deadline:
        if len(store.list_runs(["succeeded", "failed", "cancelled"])) >= total:
            break
        time.sleep(rng.uniform(0.15, 0.6))
        now = time.monotonic()
        slots = [s for s in fleet.procs if protected_until.get(s, 0) <= now]
        if not slots:
            continue
        slot = rng.choice(slots)
        if rng.random() < 0.75 or zombies >= 8:
            fleet.kill_and_restart(slot)
            continue
        wid, proc = fleet.procs[slot]
        holding = held_by(store, wid)
        if holding is None:
            continue
        zombies += 1
        proc.send_signal(signal.SIGSTOP)
        run_id, inc = holding
        try:
            wait_for(lambda run_id=run_id, inc=inc: store.get_run(run_id).run.incarnation > inc,
                     4 * LEASE, "a takeover")
            confirmed += 1
        except AssertionError:
            pass  # frozen inside a transaction (its row lock blocks takeover): no zombie here
        proc.send_signal(signal.SIGCONT)
        protected_until[slot] = time.monotonic() + 2.0
    return {"zombie_freezes": zombies, "confirmed_takeovers": confirmed}


@pytest.mark.slow
def test_chaos_many_workers_exactly_once_effects_and_no_stale_write_accepted(postgres_server,
                                                                             tmp_path):
    store_url = postgres_server.fresh_database("chaos")
    provider_url = postgres_server.fresh_database("provider")
    pg_chaos.create_ledger(provider_url)
    env = dict(os.environ, MINIRT_PROVIDER_URL=provider_url, MINIRT_LOSE_RESPONSE_ONE_IN="10")
    store = PostgresStore(store_url)
    rt = pg_chaos.app(store)
    inputs = {f"run-{i:04d}": pg_chaos.order_input(i, seed=CHAOS_SEED, think_ms=50)
              for i in range(CHAOS_RUNS)}
    for run_id, inp in inputs.items():
        rt.start("checkout", inp, run_id=run_id)
    rng = random.Random(CHAOS_SEED)
    fleet = Fleet(store_url, tmp_path, env)
    started = time.monotonic()
    for slot in range(WORKERS):
        fleet.start(slot)
    try:
        report = chaos(store, fleet, rng, CHAOS_RUNS)
        wait_for(lambda: len(store.list_runs(["succeeded", "failed", "cancelled"]))
                 >= CHAOS_RUNS, 90, "every run to reach a terminal state", interval=0.2)
    finally:
        fleet.stop_all()
    elapsed = time.monotonic() - started

    recs = store.list_runs()
    states = Counter(r.run.state.value for r in recs)
    ledger = pg_chaos.ledger_report(provider_url)
    stale = store.stale_writes()
    sums = [summary(tmp_path, wid) for wid in fleet.ids]
    report.update(runs=len(recs), states=dict(states), kills=fleet.kills,
                  restarts=fleet.restarts, seconds=round(elapsed, 1), seed=CHAOS_SEED,
                  stale_writes_rejected=len(stale),
                  stale_by_op=dict(Counter(w["op"] for w in stale)),
                  takeovers=sum(len(store.incarnations(r.run.run_id)) - 1 for r in recs),
                  effects=ledger["effects"], provider_requests=ledger["requests"],
                  responses_lost=ledger["responses_lost"],
                  worker_fenced=sum(s.get("fenced", 0) for s in sums),
                  worker_lease_lost=sum(s.get("lease_lost", 0) for s in sums))
    print("\nCHAOS REPORT " + json.dumps(report, sort_keys=True))
    (tmp_path / "chaos-report.json").write_text(json.dumps(report, indent=1, sort_keys=True))

    # every run ended, and ended well, with the result the crash-free agent computes
    assert states == Counter({"succeeded": CHAOS_RUNS}), states
    for rec in recs:
        result = rec.run.detail["result"]
        plan = pg_chaos.plan_for(inputs[rec.run.run_id], 0)
        assert (result["order_id"], result["amount_cents"]) == (
            inputs[rec.run.run_id]["order_id"], plan["amount_cents"])
    # exactly-once effects, by the providers' own ledgers
    orders = {inp["order_id"] for inp in inputs.values()}
    assert ledger["effects"] == {"payments": CHAOS_RUNS, "receipts": CHAOS_RUNS}
    assert ledger["duplicate_keys"] == [] and ledger["duplicate_orders"] == []
    assert ledger["orders"] == {"payments": orders, "receipts": orders}
    # no stale write accepted: the audit is empty and every journal's incarnations only grow
    assert store.fencing_audit() == []
    for rec in recs:
        incs = [e.incarnation for e in store.read(rec.run.run_id)]
        assert incs == sorted(incs), rec.run.run_id
    assert all(w["incarnation"] < w["current_incarnation"] for w in stale)
    # the chaos really happened, and the zombies' late writes really arrived and were refused
    assert fleet.kills >= 3 and fleet.restarts == fleet.kills
    assert report["takeovers"] >= 1
    if report["confirmed_takeovers"]:
        assert len(stale) >= 1
    for wid in fleet.ids:
        assert "Traceback" not in (tmp_path / f"{wid}.err").read_text(), wid
    store.close()
