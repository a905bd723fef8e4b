"""pytest plugin: a real PostgreSQL server for the tests that need one.

Load it from a test module with ``pytest_plugins = ["pg_fixture"]``. Fixtures:

- ``postgres_server`` (session): ``$MINIRT_TEST_PG_URL`` if set (a superuser URL, or a user with
  CREATEDB, e.g. ``postgresql://minirt:secret@127.0.0.1:5432/postgres``), else a throwaway cluster
  started on 127.0.0.1 on a free port (:func:`minirt.store.pg_local.start_local_cluster`, initdb
  as a non-root user) and stopped at the end of the session.
- ``pg_url`` (function): the URL of a fresh, empty database on that server.

Where no server can be used the tests are SKIPPED with the reason (``-ra`` prints it in the
summary); with ``CI=true`` in the environment they FAIL instead, because in CI they must run.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import pytest

from minirt.store.pg_local import (
    LocalCluster,
    PostgresUnavailable,
    check_reachable,
    start_local_cluster,
    with_database,
)


def unavailable(reason: str) -> None:
    """Skip loudly, or fail under CI=true."""
    msg = f"PostgreSQL tests need a server and none could be used: {reason}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(msg + " (CI=true: these tests must run in CI, so this is a failure)",
                    pytrace=False)
    pytest.skip(msg)


class PgServer:
    """A reachable server: ``url`` is its admin URL; ``fresh_database`` makes empty databases."""

    def __init__(self, url: str, cluster: LocalCluster | None) -> None:
        self.url = url
        self.cluster = cluster  # None when the server came from $MINIRT_TEST_PG_URL
        self._names = itertools.count(1)
        self.created: list[str] = []

    def fresh_database(self, prefix: str = "t") -> str:
        import psycopg

        name = f"minirt_{prefix}_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        self.created.append(name)
        return with_database(self.url, name)

    def drop(self, url: str) -> None:
        import psycopg

        name = url.rsplit("/", 1)[1].split("?", 1)[0]
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if name in self.created:
            self.created.remove(name)

    def drop_all(self) -> None:
        for name in list(self.created):
            try:
                self.drop(with_database(self.url, name))
            except Exception:  # best effort at teardown
                pass


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PgServer]:
    url = os.environ.get("MINIRT_TEST_PG_URL")
    if url:
        try:
            check_reachable(url)
        except PostgresUnavailable as exc:
            unavailable(f"MINIRT_TEST_PG_URL is set, but {exc}")
        server = PgServer(url, None)
        yield server
        server.drop_all()
        return
    try:
        cluster = start_local_cluster()
    except PostgresUnavailable as exc:
        unavailable(f"{exc} (or set MINIRT_TEST_PG_URL to a running server)")
    try:
        yield PgServer(cluster.url, cluster)
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(postgres_server: PgServer) -> Iterator[str]:
    url = postgres_server.fresh_database()
    yield url
    try:
        postgres_server.drop(url)
    except Exception:  # a test that broke its database still ends
        pass
