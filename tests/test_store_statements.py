"""How many statements an append costs, counted at the connection (issue 24): SQLite's fast
append is ``BEGIN IMMEDIATE``, one fenced ``UPDATE`` of the head, one ``INSERT``, ``COMMIT``
(the lease column, and so the claimable index, is left alone when the renewal would not change
it); PostgreSQL's is one statement, one round trip, its own transaction (a CTE). Counted with
SQLite's trace callback and libpq's protocol trace, so a regression to more statements fails.
"""

from __future__ import annotations

import tempfile

import pytest

from minirt.run import RunEvent, StaleIncarnation
from minirt.store import open_store
from minirt.store.base import NewEvent
from minirt.store.sqlite import SQLiteStore

pytest_plugins = ["pg_fixture"]

T0 = 1_000.0


def _ev(step: int) -> NewEvent:
    return NewEvent("step", step, f'{{"n":{step}}}', T0)


def _claimed(store) -> None:
    store.create_run("r", "wf", "{}", T0)
    store.transition("r", RunEvent("claim", at=T0, worker_id="w", lease_for=30))


def _sqlite_statements(store: SQLiteStore, *appends: tuple[int, float | None]) -> list[str]:
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    try:
        for step, lease in appends:
            store.append("r", 1, [_ev(step)], lease_until=lease)
    finally:
        store._db.set_trace_callback(None)
    return seen


def test_a_sqlite_append_is_begin_one_update_one_insert_commit(tmp_path):
    store = SQLiteStore(tmp_path / "s.sqlite")
    _claimed(store)
    store.append("r", 1, [_ev(0)], lease_until=T0 + 30)  # the head is cached from here on
    seen = _sqlite_statements(store, (1, T0 + 40))
    assert [s.split()[0] for s in seen] == ["BEGIN", "UPDATE", "INSERT", "COMMIT"], seen
    assert "lease_expires_at=" in seen[1].split("WHERE")[0]
    seen = _sqlite_statements(store, (2, T0 + 40))  # same lease: not rewritten, fenced on
    assert [s.split()[0] for s in seen] == ["BEGIN", "UPDATE", "INSERT", "COMMIT"], seen
    assert "lease_expires_at" not in seen[1].split("WHERE")[0]
    assert "lease_expires_at=" in seen[1].split("WHERE")[1]
    assert store.get_run("r").run.lease_expires_at == T0 + 40
    assert [e.seq for e in store.read("r")] == [1, 2, 3]
    store.close()


def test_a_skipped_renewal_never_leaves_a_lease_another_writer_changed(tmp_path):
    """The renewal is skipped only while the stored lease is the one this store wrote: another
    connection's change makes the fenced UPDATE miss, and the slow path writes the lease."""
    store = SQLiteStore(tmp_path / "s.sqlite")
    _claimed(store)
    store.append("r", 1, [_ev(0)], lease_until=T0 + 30)
    other = SQLiteStore(tmp_path / "s.sqlite")
    with other.transaction() as db:
        db.execute("UPDATE runs SET lease_expires_at=? WHERE run_id='r'", (T0 + 1,))
    store.append("r", 1, [_ev(1)], lease_until=T0 + 30)
    assert store.get_run("r").run.lease_expires_at == T0 + 30
    other.close()
    store.close()


def _pg_round_trips(store, fn) -> int:
    """Client messages that wait for the server (``Sync`` ends an extended-protocol statement,
    ``Query`` is a simple one: BEGIN, COMMIT), from libpq's trace of the connection."""
    from psycopg import pq

    with tempfile.TemporaryFile("w+") as f:
        store._db.pgconn.trace(f.fileno())
        store._db.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)
        try:
            fn()
        finally:
            store._db.pgconn.untrace()
        f.seek(0)
        lines = f.read().splitlines()
    return sum(1 for line in lines if line.startswith("F")
               and ("\tSync" in line or "\tQuery" in line))


@pytest.mark.postgres
def test_a_postgres_append_is_one_round_trip(pg_url):
    store = open_store(pg_url)
    _claimed(store)
    store.append("r", 1, [_ev(0)], lease_until=T0 + 30)
    assert _pg_round_trips(store, lambda: store.append("r", 1, [_ev(1)],
                                                       lease_until=T0 + 40)) == 1
    assert _pg_round_trips(store, lambda: store.append("r", 1, [_ev(2), _ev(3)],
                                                       lease_until=T0 + 40)) == 1
    assert store.get_run("r").run.lease_expires_at == T0 + 40
    assert [e.seq for e in store.read("r")] == [1, 2, 3, 4]
    store.close()


@pytest.mark.postgres
def test_a_postgres_fused_append_behind_a_takeover_writes_nothing(pg_url):
    """The head this store cached is stale once another worker claimed the run: the fused
    statement matches no row, the slow path sees the newer incarnation and refuses."""
    store, other = open_store(pg_url), open_store(pg_url)
    _claimed(store)
    store.append("r", 1, [_ev(0)], lease_until=T0 + 30)
    assert other.claim_next("w2", T0 + 31, 30).run.incarnation == 2
    with pytest.raises(StaleIncarnation):
        store.append("r", 1, [_ev(1)], lease_until=T0 + 60)
    assert [e.seq for e in other.read("r")] == [1] and other.fencing_audit() == []
    assert [w["op"] for w in other.stale_writes("r")] == ["append"]
    other.close()
    store.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 's.sqlite'}"
    return request.getfixturevalue("pg_url")


def test_a_cached_head_another_connection_moved_is_never_chained_from(store_url):
    """Two stores append to one run in turn: each one's cached head is stale every time, the
    fenced statement misses, and the slow path chains from the stored head, so the journal
    stays one verified chain with no gap and no fork."""
    a, b = open_store(store_url), open_store(store_url)
    _claimed(a)
    for step in range(6):
        (a if step % 2 == 0 else b).append("r", 1, [_ev(step)], lease_until=T0 + 30 + step)
    rows = a.read("r")
    assert [e.seq for e in rows] == [1, 2, 3, 4, 5, 6] == [e.seq for e in b.read("r")]
    assert all(y.prev_digest == x.digest for x, y in zip(rows, rows[1:], strict=False))
    assert a.get_run("r").run.lease_expires_at == T0 + 35
    a.close()
    b.close()
