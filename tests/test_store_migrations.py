"""Schema versions and forward migrations, on both stores: a database written by the code on
``main`` before the SQL core (the exact DDL and rows it wrote, frozen below) opens unchanged and
keeps working; a database newer than this code is refused by name; migrations apply in order,
once, each in the same transaction as the version it records (a failing one leaves the database
as it was); several openers of a new database create the schema once.
"""

from __future__ import annotations

import re
import sqlite3
import threading

import pytest

import minirt.store.postgres as pg_mod
import minirt.store.sqlite as sqlite_mod
from minirt.run import RunEvent
from minirt.store.base import GENESIS, NewEvent, event_digest
from minirt.store.sqlcore import Migration, SchemaTooNew, pending, split_statements
from minirt.store.sqlite import SQLiteStore, StoreUnreadable

pytest_plugins = ["pg_fixture"]

T0 = 1_000.0

# The DDL minirt/store/sqlite.py on main ran (PRAGMA user_version 2), verbatim.
MAIN_SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id           TEXT PRIMARY KEY,
    workflow         TEXT NOT NULL,
    input_json       TEXT NOT NULL,
    state            TEXT NOT NULL,
    revision         INTEGER NOT NULL,
    incarnation      INTEGER NOT NULL,   -- the fencing token
    worker_id        TEXT,
    lease_expires_at REAL,
    detail_json      TEXT NOT NULL DEFAULT '{}',
    last_seq         INTEGER NOT NULL DEFAULT 0,
    last_digest      TEXT NOT NULL,
    created_at       REAL NOT NULL,
    updated_at       REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_claimable ON runs(state, lease_expires_at);
CREATE TABLE IF NOT EXISTS events (
    run_id       TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    kind         TEXT NOT NULL,
    step         INTEGER,
    payload_json TEXT NOT NULL,
    incarnation  INTEGER NOT NULL,
    at           REAL NOT NULL,
    -- the 32 raw bytes of the sha256 chain digest; the previous event's digest is the previous
    -- row's, so it is not stored twice (see read())
    digest       BLOB NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS artifacts (
    digest TEXT PRIMARY KEY,
    size   INTEGER NOT NULL,
    data   BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS kv (
    run_id TEXT NOT NULL,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
"""

# The DDL minirt/store/postgres.py on main ran (minirt_schema.version 1), verbatim.
MAIN_PG_SCHEMA = """
CREATE SEQUENCE IF NOT EXISTS minirt_write_order;
CREATE TABLE IF NOT EXISTS runs (
    run_id           TEXT PRIMARY KEY,
    workflow         TEXT NOT NULL,
    input_json       TEXT NOT NULL,
    state            TEXT NOT NULL,
    revision         BIGINT NOT NULL,
    incarnation      BIGINT NOT NULL,   -- the fencing token
    worker_id        TEXT,
    lease_expires_at DOUBLE PRECISION,
    detail_json      TEXT NOT NULL DEFAULT '{}',
    last_seq         BIGINT NOT NULL DEFAULT 0,
    last_digest      TEXT NOT NULL,
    created_at       DOUBLE PRECISION NOT NULL,
    updated_at       DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_claimable ON runs (state, lease_expires_at);
CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at, run_id COLLATE "C");
CREATE TABLE IF NOT EXISTS events (
    run_id       TEXT NOT NULL,
    seq          BIGINT NOT NULL,
    kind         TEXT NOT NULL,
    step         BIGINT,
    payload_json TEXT NOT NULL,
    incarnation  BIGINT NOT NULL,
    at           DOUBLE PRECISION NOT NULL,
    prev_digest  TEXT NOT NULL,
    digest       TEXT NOT NULL,
    write_order  BIGINT NOT NULL DEFAULT nextval('minirt_write_order'),  -- for fencing_audit
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS artifacts (
    digest TEXT PRIMARY KEY,
    size   BIGINT NOT NULL,
    data   BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS kv (
    run_id TEXT NOT NULL,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
);
CREATE TABLE IF NOT EXISTS incarnations (
    run_id      TEXT NOT NULL,
    incarnation BIGINT NOT NULL,
    worker_id   TEXT,
    claimed_at  DOUBLE PRECISION NOT NULL,
    claim_order BIGINT NOT NULL DEFAULT nextval('minirt_write_order'),
    PRIMARY KEY (run_id, incarnation)
);
CREATE TABLE IF NOT EXISTS stale_writes (
    id                  BIGSERIAL PRIMARY KEY,
    run_id              TEXT NOT NULL,
    op                  TEXT NOT NULL,
    incarnation         BIGINT,
    current_incarnation BIGINT NOT NULL,
    error               TEXT NOT NULL,
    noted_at            TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS minirt_schema (version INTEGER NOT NULL);
"""


def _events(run_id: str, n: int, incarnation: int = 1) -> list[tuple]:
    """n chained journal rows as main computed them: (seq, kind, step, payload, inc, at, prev,
    digest)."""
    out, prev = [], GENESIS
    for seq in range(1, n + 1):
        payload = f'{{"n":{seq}}}'
        d = event_digest(run_id, seq, "step", seq - 1, payload, incarnation, T0, prev)
        out.append((seq, "step", seq - 1, payload, incarnation, T0, prev, d))
        prev = d
    return out


def _main_sqlite_file(path) -> list[tuple]:
    """A file exactly as main's SQLiteStore left it: a claimed run with three events."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(MAIN_SQLITE_SCHEMA)
    db.execute("PRAGMA user_version=2")
    rows = _events("r1", 3)
    db.execute("INSERT INTO runs (run_id, workflow, input_json, state, revision, incarnation,"
               " worker_id, lease_expires_at, detail_json, last_seq, last_digest, created_at,"
               " updated_at) VALUES ('r1','wf','{}','running',1,1,'w1',?,'{}',3,?,?,?)",
               (T0 + 30, rows[-1][7], T0, T0))
    db.executemany("INSERT INTO events (run_id, seq, kind, step, payload_json, incarnation, at,"
                   " digest) VALUES ('r1',?,?,?,?,?,?,?)",
                   [(s, k, st, p, i, at, bytes.fromhex(d[7:])) for s, k, st, p, i, at, _, d
                    in rows])
    db.close()
    return rows


def _schema_of(path) -> list[tuple]:
    """Every table and index with its DDL, comments dropped and white space folded (SQLite
    keeps a statement's text as it was sent)."""
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    finally:
        db.close()
    return [(t, n, sql and " ".join(re.sub(r"--[^\n]*", "", sql).split())) for t, n, sql in rows]


def _user_version(path) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()


# -- SQLite -----------------------------------------------------------------------------------

def test_a_file_written_by_main_opens_unchanged_and_keeps_working(tmp_path):
    path = tmp_path / "runs.sqlite"
    rows = _main_sqlite_file(path)
    before = _schema_of(path)
    store = SQLiteStore(path)
    assert _schema_of(path) == before and _user_version(path) == 2
    assert [(e.seq, e.digest, e.prev_digest) for e in store.read("r1")] == [
        (s, d, p) for s, _, _, _, _, _, p, d in rows]
    assert store.get_run("r1").run.incarnation == 1
    new = store.append("r1", 1, [NewEvent("step", 3, '{"n":4}', T0)], lease_until=T0 + 60)
    assert new[0].prev_digest == rows[-1][7] and new[0].seq == 4
    rec = store.claim_next("w2", T0 + 61, 30)
    assert rec is not None and rec.run.incarnation == 2
    assert [e.seq for e in store.read("r1")] == [1, 2, 3, 4]
    store.close()


def test_a_new_file_gets_the_schema_main_writes(tmp_path):
    old, new = tmp_path / "main.sqlite", tmp_path / "new.sqlite"
    db = sqlite3.connect(old)
    db.executescript(MAIN_SQLITE_SCHEMA)
    db.close()
    SQLiteStore(new).close()
    assert _schema_of(new) == _schema_of(old) and _user_version(new) == 2


def test_a_file_newer_than_this_code_is_refused_by_name_and_left_alone(tmp_path):
    path = tmp_path / "runs.sqlite"
    _main_sqlite_file(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=7")
    db.close()
    before = _schema_of(path)
    with pytest.raises(SchemaTooNew) as err:
        SQLiteStore(path)
    assert (err.value.found, err.value.supported) == (7, sqlite_mod.SCHEMA_VERSION)
    assert _schema_of(path) == before and _user_version(path) == 7


def test_a_version_older_than_the_first_migration_is_unreadable(tmp_path):
    path = tmp_path / "runs.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE runs (run_id TEXT)")
    db.execute("PRAGMA user_version=1")
    db.close()
    with pytest.raises(StoreUnreadable, match="schema version 1"):
        SQLiteStore(path)


def test_migrations_apply_in_order_once_with_the_version(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite"
    _main_sqlite_file(path)
    extra = (*sqlite_mod.MIGRATIONS,
             Migration(3, ("CREATE TABLE notes (run_id TEXT, note TEXT)",)),
             Migration(4, ("INSERT INTO notes VALUES ('r1', 'applied once')",)))
    monkeypatch.setattr(sqlite_mod, "MIGRATIONS", extra)
    monkeypatch.setattr(sqlite_mod, "SCHEMA_VERSION", 4)
    SQLiteStore(path).close()
    SQLiteStore(path).close()  # at version 4: nothing applied again
    db = sqlite3.connect(path)
    assert db.execute("SELECT * FROM notes").fetchall() == [("r1", "applied once")]
    db.close()
    assert _user_version(path) == 4
    assert [e.seq for e in SQLiteStore(path).read("r1")] == [1, 2, 3]


def test_a_failing_migration_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite"
    _main_sqlite_file(path)
    before = _schema_of(path)
    broken = (*sqlite_mod.MIGRATIONS,
              Migration(3, ("CREATE TABLE notes (run_id TEXT)", "CREATE TABLE broken (")))
    monkeypatch.setattr(sqlite_mod, "MIGRATIONS", broken)
    monkeypatch.setattr(sqlite_mod, "SCHEMA_VERSION", 3)
    with pytest.raises(StoreUnreadable):
        SQLiteStore(path)
    assert _schema_of(path) == before and _user_version(path) == 2


def test_threads_opening_a_new_file_at_once_create_the_schema_once(tmp_path):
    # Switching a new file to WAL is answered SQLITE_BUSY at once (no busy handler) for about
    # one opener in ten when six race; 20 fresh files make a missing retry fail nearly always.
    for round_ in range(20):
        path = tmp_path / f"runs{round_}.sqlite"
        errors: list[BaseException] = []

        def open_one(path=path, errors=errors) -> None:
            try:
                SQLiteStore(path).close()
            except BaseException as exc:  # collected and asserted below
                errors.append(exc)

        threads = [threading.Thread(target=open_one) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert errors == [] and _user_version(path) == 2, (round_, errors)


def test_pending_refuses_a_bad_list_and_a_newer_database():
    ms = (Migration(1, ("a",)), Migration(2, ("b",)))
    assert [m.version for m in pending(ms, 0, "x")] == [1, 2]
    assert [m.version for m in pending(ms, 1, "x")] == [2]
    assert pending(ms, 2, "x") == []
    with pytest.raises(SchemaTooNew):
        pending(ms, 3, "x")
    from minirt.store.base import StoreArgumentInvalid
    with pytest.raises(StoreArgumentInvalid):
        pending((Migration(2, ()), Migration(1, ())), 0, "x")


def test_split_statements_drops_comments_and_keeps_every_statement():
    assert split_statements("CREATE TABLE a (x -- a comment; with a semicolon\n);\n"
                            "CREATE INDEX i ON a(x);") == ("CREATE TABLE a (x \n)",
                                                           "CREATE INDEX i ON a(x)")


# -- PostgreSQL -------------------------------------------------------------------------------

def _main_pg_database(url: str) -> list[tuple]:
    import psycopg

    rows = _events("r1", 3)
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(MAIN_PG_SCHEMA)
        db.execute("INSERT INTO minirt_schema (version) VALUES (1)")
        db.execute("INSERT INTO runs (run_id, workflow, input_json, state, revision,"
                   " incarnation, worker_id, lease_expires_at, detail_json, last_seq,"
                   " last_digest, created_at, updated_at) VALUES ('r1','wf','{}','running',"
                   " 1,1,'w1',%s,'{}',3,%s,%s,%s)", (T0 + 30, rows[-1][7], T0, T0))
        db.execute("INSERT INTO incarnations (run_id, incarnation, worker_id, claimed_at)"
                   " VALUES ('r1', 1, 'w1', %s)", (T0,))
        with db.cursor() as cur:
            cur.executemany("INSERT INTO events (run_id, seq, kind, step, payload_json,"
                            " incarnation, at, prev_digest, digest) VALUES"
                            " ('r1',%s,%s,%s,%s,%s,%s,%s,%s)", rows)
    return rows


def _pg_catalog(url: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        return db.execute("SELECT table_name, column_name, data_type FROM"
                          " information_schema.columns WHERE table_schema='public'"
                          " ORDER BY 1, 2").fetchall() + db.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname='public'"
            " ORDER BY 1").fetchall()


@pytest.mark.postgres
def test_a_postgres_database_written_by_main_opens_unchanged_and_keeps_working(pg_url):
    rows = _main_pg_database(pg_url)
    before = _pg_catalog(pg_url)
    store = pg_mod.PostgresStore(pg_url)
    assert _pg_catalog(pg_url) == before
    assert [(e.seq, e.digest, e.prev_digest) for e in store.read("r1")] == [
        (s, d, p) for s, _, _, _, _, _, p, d in rows]
    new = store.append("r1", 1, [NewEvent("step", 3, '{"n":4}', T0)], lease_until=T0 + 60)
    assert new[0].prev_digest == rows[-1][7]
    assert store.claim_next("w2", T0 + 61, 30).run.incarnation == 2
    assert [e.seq for e in store.read("r1")] == [1, 2, 3, 4] and store.fencing_audit() == []
    store.close()


@pytest.mark.postgres
def test_a_postgres_database_newer_than_this_code_is_refused_by_name(pg_url):
    import psycopg

    _main_pg_database(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("UPDATE minirt_schema SET version = 9")
    with pytest.raises(SchemaTooNew) as err:
        pg_mod.PostgresStore(pg_url)
    assert (err.value.found, err.value.supported) == (9, pg_mod.SCHEMA_VERSION)


@pytest.mark.postgres
def test_a_failing_postgres_migration_leaves_the_database_as_it_was(pg_url, monkeypatch):
    import psycopg

    _main_pg_database(pg_url)
    before = _pg_catalog(pg_url)
    broken = (*pg_mod.MIGRATIONS,
              Migration(2, ("CREATE TABLE notes (run_id TEXT)", "CREATE TABLE broken (")))
    monkeypatch.setattr(pg_mod, "MIGRATIONS", broken)
    monkeypatch.setattr(pg_mod, "SCHEMA_VERSION", 2)
    with pytest.raises(pg_mod.StoreUnavailable, match="syntax error"):
        pg_mod.PostgresStore(pg_url)
    assert _pg_catalog(pg_url) == before
    with psycopg.connect(pg_url, autocommit=True) as db:
        assert db.execute("SELECT version FROM minirt_schema").fetchall() == [(1,)]
    monkeypatch.setattr(pg_mod, "MIGRATIONS", broken[:1] + (
        Migration(2, ("CREATE TABLE notes (run_id TEXT)",)),))
    pg_mod.PostgresStore(pg_url).close()
    pg_mod.PostgresStore(pg_url).close()  # applied once: CREATE TABLE would fail twice
    with psycopg.connect(pg_url, autocommit=True) as db:
        assert db.execute("SELECT version FROM minirt_schema").fetchall() == [(2,)]


def test_claim_after_opening_a_main_file_verifies_its_journal(tmp_path):
    path = tmp_path / "runs.sqlite"
    _main_sqlite_file(path)
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET payload_json='{\"n\":9}' WHERE seq=2")
    db.commit()
    db.close()
    store = SQLiteStore(path)
    with pytest.raises(Exception, match="corrupted at seq 2"):
        store.transition("r1", RunEvent("claim", at=T0 + 61, worker_id="w2", lease_for=30))
    store.close()
