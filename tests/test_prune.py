"""Retention (issue 19, item 10), on both stores: ``Store.prune`` / ``minirt prune`` delete
finished runs with their journals, kv and the artifacts nothing else names, and never a run that
has not finished; a signal to a finished run is refused instead of stored."""

from __future__ import annotations

import pytest

from minirt.cli import main, parse_duration
from minirt.clock import FakeClock
from minirt.errors import MinirtError
from minirt.journal import ARTIFACT_THRESHOLD
from minirt.run import RunEvent, RunIsTerminal, RunNotFound, RunState
from minirt.runtime import Runtime
from minirt.store import open_store
from minirt.store.base import PruneInvalid

pytest_plugins = ["pg_fixture"]

HOUR = 3600.0
BIG = "x" * (ARTIFACT_THRESHOLD + 10)  # goes to the artifact store


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "runs.sqlite")
    return request.getfixturevalue("pg_url")


def big(ctx, inp):
    return ctx.step("blob", lambda: inp["text"])


def fails(ctx, inp):
    ctx.step("one", lambda: 1)
    raise ValueError("no")


def waits(ctx, inp):
    return ctx.wait_for("go")


@pytest.fixture
def world(store_url):
    clock = FakeClock(1000.0)
    store = open_store(store_url)
    rt = Runtime(store, clock=clock, workflows={"big": big, "fails": fails, "waits": waits})
    # old runs (two hours ago): finished ones, and unfinished ones in every resting state
    assert rt.run_workflow("big", {"text": BIG + "own"}, run_id="old-ok").state \
        is RunState.SUCCEEDED
    assert rt.run_workflow("big", {"text": BIG + "shared"}, run_id="old-shared").state \
        is RunState.SUCCEEDED
    assert rt.run_workflow("fails", {}, run_id="old-failed").state is RunState.FAILED
    assert rt.run_workflow("waits", {}, run_id="old-waiting").state is RunState.WAITING
    rt.store.set_kv("old-ok", {"note": "kept with the run"})
    rt.start("big", {"text": "pending"}, run_id="old-pending")
    rt.start("big", {"text": "running"}, run_id="old-running")
    store.transition("old-running", RunEvent("claim", at=clock.now(), worker_id="dead",
                                             lease_for=30.0))
    clock.advance(2 * HOUR)
    # a recent finished run that shares an artifact with old-shared
    assert rt.run_workflow("big", {"text": BIG + "shared"}, run_id="new-ok").state \
        is RunState.SUCCEEDED
    yield rt, store, clock
    store.close()


def artifact_digests(store, run_id: str) -> set[str]:
    return {e.payload["$artifact"] for e in store.read(run_id) if "$artifact" in e.payload_json}


def test_prune_deletes_finished_runs_with_their_journal_kv_and_unshared_artifacts(world):
    rt, store, clock = world
    own = artifact_digests(store, "old-ok")
    shared = artifact_digests(store, "new-ok")
    assert own and shared and own != shared and shared == artifact_digests(store, "old-shared")
    report = store.prune(HOUR, now=clock.now())
    assert report.runs == ("old-failed", "old-ok", "old-shared")
    assert report.kv == 1 and report.artifacts == 1 and report.events > 6
    for run_id in report.runs:
        with pytest.raises(RunNotFound):
            store.get_run(run_id)
        assert store.read(run_id) == [] and store.kv_items(run_id) == {}
    with pytest.raises(MinirtError):
        store.get_artifact(own.pop())  # nothing names it any more: deleted
    # the shared blob stays, and the recent run still reads back, verified
    assert rt.outcome("new-ok").value == BIG + "shared"
    assert store.get_artifact(shared.pop())
    # never a run that has not finished, however old
    left = {r.run.run_id: r.run.state for r in store.list_runs()}
    assert left == {"old-waiting": RunState.WAITING, "old-pending": RunState.PENDING,
                    "old-running": RunState.RUNNING, "new-ok": RunState.SUCCEEDED}
    assert store.prune(0, now=clock.now() + 10 * HOUR).runs == ("new-ok",)
    assert {r.run.state for r in store.list_runs()} == {RunState.WAITING, RunState.PENDING,
                                                        RunState.RUNNING}


def test_a_dry_run_reports_the_same_and_deletes_nothing(world):
    rt, store, clock = world
    before = {r.run.run_id: len(store.read(r.run.run_id)) for r in store.list_runs()}
    dry = store.prune(HOUR, now=clock.now(), dry_run=True)
    assert dry.dry_run and dry.runs == ("old-failed", "old-ok", "old-shared")
    assert {r.run.run_id: len(store.read(r.run.run_id)) for r in store.list_runs()} == before
    assert store.kv_items("old-ok") == {"note": "kept with the run"}
    real = store.prune(HOUR, now=clock.now())
    assert (real.runs, real.events, real.kv, real.artifacts) == \
        (dry.runs, dry.events, dry.kv, dry.artifacts)


def test_a_pruned_run_id_can_be_used_again_and_the_store_goes_on(world):
    rt, store, clock = world
    store.prune(HOUR, now=clock.now())
    assert rt.run_workflow("big", {"text": "again"}, run_id="old-ok").result() == "again"


def test_a_negative_or_nan_age_is_refused(world):
    rt, store, clock = world
    for bad in (-1.0, float("nan")):
        with pytest.raises(PruneInvalid):
            store.prune(bad, now=clock.now())
    assert len(store.list_runs()) == 7


def test_a_signal_to_a_finished_run_is_refused_and_not_stored(world):
    rt, store, clock = world
    for run_id in ("old-ok", "old-failed"):
        with pytest.raises(RunIsTerminal, match="signal"):
            rt.signal(run_id, "go", {"late": True})
        assert "signal:go" not in store.kv_items(run_id)
    rt.signal("old-waiting", "go", {"ok": 1})  # a live run still takes it
    assert rt.run("old-waiting").result() == {"ok": 1}


def test_minirt_prune_cli(world, store_url, capsys):
    rt, store, clock = world  # FakeClock times are decades before time.time()
    assert main(["prune", "--store", store_url, "--older-than", "1h", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would delete old-ok" in out and "would delete 4 finished run(s)" in out
    assert len(store.list_runs()) == 7
    assert main(["prune", "--store", store_url, "--older-than", "30d"]) == 0
    assert "deleted 4 finished run(s)" in capsys.readouterr().out
    assert len(store.list_runs()) == 3
    assert main(["prune", "--store", store_url, "--older-than", "soon"]) == 2
    assert "--older-than: 'soon' is not a duration" in capsys.readouterr().err


@pytest.mark.parametrize("text, seconds", [("90s", 90), ("45m", 2700), ("12h", 43200),
                                           ("30d", 2592000), ("2w", 1209600), ("15", 15),
                                           ("0", 0), ("1.5h", 5400)])
def test_durations(text, seconds):
    assert parse_duration(text) == seconds
