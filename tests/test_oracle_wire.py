"""The codec and the channel between the checker and the learner's process.

Codec: round trips of nested values with aliasing (hypothesis, derandomised), exact types for
lying subclasses, minirt classes rebuilt by path and nothing else, copy-back of in-place changes.
Channel: re-entrant callbacks, 8 threads racing inside the callee, timeouts, peer death.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minirt.faults import SimulatedCrash
from minirt.run import Run, RunState, StaleIncarnation
from minirt_course.course import wire
from minirt_course.course.channel import Peer, PeerDied
from minirt_course.course.sandbox import LearnerProcess

ROOT = Path(__file__).resolve().parents[1]


def _codec() -> tuple[wire.Encoder, wire.Decoder]:
    handles: dict[int, Any] = {}

    def export(obj: Any) -> tuple[int, str, str]:
        handles[len(handles)] = obj
        return len(handles) - 1, "object", type(obj).__name__

    return (wire.Encoder(export, lambda o: None),
            wire.Decoder(lambda h: handles[h], lambda h, k, n: ("handle", h)))


def roundtrip(v: Any) -> Any:
    enc, dec = _codec()
    import json

    return dec.decode(json.loads(json.dumps(enc.encode(v), allow_nan=False)))


scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8) \
    | st.binary(max_size=8)
values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=4) | st.tuples(kids, kids)
    | st.dictionaries(st.text(max_size=4) | st.integers(), kids, max_size=4)
    | st.frozensets(st.integers(), max_size=4),
    max_leaves=20,
)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and a != a:
        return isinstance(b, float) and b != b
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


@settings(derandomize=True, max_examples=200, deadline=None)
@given(values)
def test_nested_values_round_trip_with_exact_types(v: Any) -> None:
    assert _same(roundtrip(v), v)


@settings(derandomize=True, max_examples=50, deadline=None)
@given(st.lists(st.integers(), max_size=3))
def test_aliasing_inside_one_message_is_kept(inner: list[int]) -> None:
    shared = {"x": inner}
    out = roundtrip([shared, shared, inner])
    assert out[0] is out[1] and out[0]["x"] is out[2]


def test_lying_subclasses_cross_as_plain_values() -> None:
    class Liar(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    class LyingInt(int):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = int.__hash__

    s, n = roundtrip(Liar("no")), roundtrip(LyingInt(7))
    assert type(s) is str and s == "no" and s != "yes"
    assert type(n) is int and n == 7 and n != 2


def test_minirt_values_are_rebuilt_by_class_and_others_are_handles() -> None:
    run = Run("r", RunState.RUNNING, detail={"k": [1]})
    out = roundtrip(run)
    assert type(out) is Run and out == run and out.state is RunState.RUNNING
    assert roundtrip(StaleIncarnation(run_id="r", event="complete", incarnation=1, current=2)) \
        .current == 2

    class Mine:
        pass

    assert roundtrip(Mine()) == ("handle", 0)
    assert roundtrip(lambda: 1) == ("handle", 0)


def test_a_class_path_outside_minirt_is_refused() -> None:
    _, dec = _codec()
    for path in ("os:system", "minirt_course.grading.m01:LearnerStore", "minirt.run:replace",
                 "builtins:eval"):
        with pytest.raises(wire.WireError):
            dec.decode({"t": "dc", "c": path, "i": 1, "v": []})


def test_too_deep_is_a_named_error() -> None:
    v: Any = []
    for _ in range(wire.MAX_DEPTH + 5):
        v = [v]
    with pytest.raises(wire.WireError):
        roundtrip(v)


# --------------------------------------------------------------------------- channel


class Callee:
    def __init__(self) -> None:
        self.inside = 0
        self.most = 0
        self.lock = threading.Lock()

    def mutate(self, run: Run, d: dict[str, Any], items: list[int]) -> Run:
        d["added"] = True
        items.append(99)
        object.__setattr__(run, "revision", 41)
        return run

    def bounce(self, f: Any, n: int) -> int:
        return 0 if n == 0 else f(n - 1) + 1

    def slow(self) -> int:
        with self.lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
        time.sleep(0.3)
        with self.lock:
            self.inside -= 1
        return self.most

    def sleep(self, s: float) -> None:
        time.sleep(s)

    def crash(self, f: Any) -> Any:
        return f()

    def exits(self) -> None:
        raise SystemExit(3)


@pytest.fixture
def pair() -> Any:
    a_r, b_w = os.pipe()
    b_r, a_w = os.pipe()
    callee = Callee()
    a = Peer(a_r, a_w, object(), name="checker", call_timeout=5.0).start()
    b = Peer(b_r, b_w, callee, name="learner").start()
    yield a, b, callee
    a.close()
    b.close()


def test_in_place_changes_are_copied_back(pair: Any) -> None:
    a, _, _ = pair
    run, d, items = Run("r", detail={"a": 1}), {"k": 1}, [1]
    out = a.root.mutate(run, d, items)
    assert out is run and run.revision == 41 and d == {"k": 1, "added": True} and items == [1, 99]


def test_callbacks_are_re_entrant(pair: Any) -> None:
    a, _, _ = pair
    root = a.root

    def f(n: int) -> int:
        return root.bounce(f, n)

    assert root.bounce(f, 6) == 6


def test_eight_threads_race_inside_the_callee(pair: Any) -> None:
    a, _, callee = pair
    threads = [threading.Thread(target=a.root.slow) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert callee.most == 8


def test_a_call_over_its_limit_is_a_named_timeout(pair: Any) -> None:
    a, _, _ = pair
    a.call_timeout = 0.2
    with pytest.raises(wire.LearnerTimeout):
        a.root.sleep(2.0)


def test_control_flow_and_exits_cross_as_what_they_are(pair: Any) -> None:
    a, _, _ = pair

    def crash() -> None:
        raise SimulatedCrash("before_complete", 1)

    with pytest.raises(SimulatedCrash) as info:
        a.root.crash(crash)
    assert info.value.point == "before_complete"
    with pytest.raises(wire.LearnerError, match="SystemExit"):
        a.root.exits()


def test_private_names_and_dunders_are_not_forwarded(pair: Any) -> None:
    a, _, _ = pair
    with pytest.raises(AttributeError):
        a.root.__dict__  # noqa: B018
    with pytest.raises(AttributeError):
        a.root._secret  # noqa: B018
    assert a.root != a.root.bounce and str(a.root).startswith("<remote")
    with pytest.raises(AttributeError):
        a.root.lock = None  # the owner never lets the other side set attributes


def test_peer_death_fails_the_call_with_the_exit_code(tmp_path: Path) -> None:
    with LearnerProcess(ROOT / "build") as lp:
        lp.root.load([["answer", "answer_x", "import os\ndef f():\n    os._exit(7)\n"]])
        f = lp.root.run_until("answer_x", ["f"])["values"]["f"]
        with pytest.raises(PeerDied, match="exited with code 7"):
            f()


def test_the_learner_process_cannot_reach_the_grading_code() -> None:
    probe = '''import minirt, sys
from minirt_course.grading import m01
found = {"file": minirt.__file__, "api": sorted(n for n in vars(m01) if not n.startswith("_"))}
for name in ("minirt_course.course", "minirt_course.course.oracle"):
    try:
        __import__(name)
        found[name] = "imported"
    except ImportError:
        found[name] = "absent"
try:
    m01.check_table
    found["check"] = "reachable"
except AttributeError:
    found["check"] = "absent"
'''
    with LearnerProcess(ROOT / "build") as lp:
        lp.root.load([["answer", "answer_x", probe]])
        found = lp.root.run_until("answer_x", ["found"])["values"]["found"]
    assert "build/sandbox" in found["file"]
    assert found["minirt_course.course"] == found["minirt_course.course.oracle"] == "absent"
    assert found["check"] == "absent"
    assert not any(n.startswith("check_") for n in found["api"])


def _counted_gets(peer: Any) -> list[str]:
    """The attribute names `peer` asks its other side for, as it asks them."""
    asked: list[str] = []
    send = peer._send

    def counting(msg: dict[str, Any]) -> None:
        if msg.get("op") == "get":
            asked.append(str(msg.get("n")))
        send(msg)

    peer._send = counting
    return asked


class Owner:
    """The checker's side of the method-handle test."""

    def __init__(self) -> None:
        self.calls = 0
        self.value = 7
        self.shadowed = lambda: "instance"

    def ping(self, n: int) -> int:
        self.calls += 1
        return n + 1

    def shadowed(self) -> str:  # noqa: F811 - the instance attribute above hides it
        return "class"


def test_the_learner_side_asks_for_a_plain_method_once() -> None:
    a_r, b_w = os.pipe()
    b_r, a_w = os.pipe()
    owner = Owner()
    checker = Peer(b_r, b_w, owner, name="checker").start()
    learner = Peer(a_r, a_w, object(), name="learner", cache_methods=True).start()
    try:
        asked = _counted_gets(learner)
        root = learner.root
        assert [root.ping(i) for i in range(5)] == [1, 2, 3, 4, 5] and owner.calls == 5
        assert asked == ["ping"]  # one round trip per call, not two
        # what is not the class's own method is asked every time: data, and an instance
        # attribute in front of a method
        assert root.value == 7 and root.value == 7
        assert root.shadowed() == "instance" and root.shadowed() == "instance"
        assert asked == ["ping", "value", "value", "shadowed", "shadowed"]
    finally:
        learner.close()
        checker.close()


def test_the_checker_side_never_keeps_a_learner_method(pair: Any) -> None:
    a, _, callee = pair  # a: the checker's end (no cache_methods), calling the learner's object
    asked = _counted_gets(a)
    for _ in range(3):
        assert a.root.sleep(0) is None
    assert asked == ["sleep", "sleep", "sleep"]
