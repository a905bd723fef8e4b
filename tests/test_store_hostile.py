"""Both stores answer hostile arguments with named errors (issue 19, item 5): an id or kv key
with a lone surrogate, which no driver can encode, is NotStorable (RunNotFound for a run lookup),
never a raw UnicodeEncodeError; the store-fault family is one base class."""

from __future__ import annotations

import pytest

from minirt.clock import FakeClock
from minirt.run import RunNotFound
from minirt.runtime import Runtime
from minirt.store import StoreFault, StoreFull, StoreUnreadable, open_store
from minirt.store.base import NotStorable
from minirt.store.postgres import StoreUnavailable

pytest_plugins = ["pg_fixture"]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path):
    url = (str(tmp_path / "runs.sqlite") if request.param == "sqlite"
           else request.getfixturevalue("pg_url"))
    s = open_store(url)
    yield s
    s.close()


def test_unencodable_ids_and_keys_are_named_errors_and_write_nothing(store):
    rt = Runtime(store, clock=FakeClock(1000.0), workflows={"w": lambda ctx, inp: 1})
    rt.start("w", {}, run_id="ok")
    for call, error in [(lambda: store.get_run("r\ud800"), RunNotFound),
                        (lambda: rt.run("r\ud800"), RunNotFound),
                        (lambda: store.read("r\ud800"), NotStorable),
                        (lambda: store.kv_items("r\ud800"), NotStorable),
                        (lambda: store.kv_get("ok", "k\udcff"), NotStorable),
                        (lambda: store.set_kv("ok", {"k\udcff": "v"}), NotStorable),
                        (lambda: rt.signal("ok", "go\ud800"), NotStorable)]:
        with pytest.raises(error):
            call()
    assert store.kv_items("ok") == {}
    assert rt.run("ok").result() == 1  # the store goes on


def test_store_faults_are_one_family():
    for cls in (StoreFull, StoreUnreadable, StoreUnavailable):
        assert issubclass(cls, StoreFault)
