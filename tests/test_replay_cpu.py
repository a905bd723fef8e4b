"""The replay's and the live step's cheaper paths give exactly what the plain ones give.

The one C encoder of :mod:`minirt.canonical` against ``json.JSONEncoder.encode`` with the same
options, the journal's :func:`~minirt.journal.decode` against ``json.loads`` (values and errors),
and a replayed tool position that decodes its intent once.
"""

from __future__ import annotations

import json
import math
import random
import unicodedata
from enum import Enum
from typing import Any

import pytest

from minirt import canonical
from minirt.canonical import _INT_BOUND, MAX_DEPTH, MAX_INT_DIGITS, NotCanonical
from minirt.journal import decode

_PLAIN = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False).encode


def _value(r: random.Random, depth: int = 0):
    t = r.randrange(7 if depth < 4 else 4)
    if t == 0:
        return r.randint(-10**20, 10**20)
    if t == 1:
        return r.random() * 10 ** r.randint(-30, 30) * r.choice([1, -1])
    if t == 2:
        return "".join(chr(r.randrange(0x2ff)) for _ in range(r.randrange(6)))
    if t == 3:
        return r.choice([None, True, False])
    if t == 4:
        return [_value(r, depth + 1) for _ in range(r.randrange(4))]
    return {"".join(chr(r.randrange(32, 0x2ff)) for _ in range(r.randrange(4))):
            _value(r, depth + 1) for _ in range(r.randrange(4))}


def test_the_one_encoder_writes_what_the_plain_encoder_writes():
    r = random.Random(24)
    values = [_value(r) for _ in range(3000)] + ["", "é\u2028\"\\\x00", 5e-324, -0.0, 10**40]
    for v in values:
        assert canonical._encode(v) == _PLAIN(v), v


@pytest.mark.parametrize("bad", [float("nan"), [float("inf")], {"a": {1, 2}}, b"x"])
def test_the_one_encoder_refuses_what_the_plain_encoder_refuses(bad):
    with pytest.raises((ValueError, TypeError)) as plain:
        _PLAIN(bad)
    with pytest.raises(plain.type):
        canonical._encode(bad)


def test_canonical_json_refuses_a_cycle_by_name_before_encoding():
    loop: list = []
    loop.append(loop)
    with pytest.raises(canonical.NotCanonical):
        canonical.canonical_json(loop)


def test_decode_reads_what_json_loads_reads():
    r = random.Random(7)
    for _ in range(2000):
        text = canonical.canonical_json(_value(r))
        assert decode(text) == json.loads(text)
    for text in [' {"a":1}', '{"a":1} ', '{"a": [1, 2]}', "NaN", "[Infinity]", '"x"']:
        assert repr(decode(text)) == repr(json.loads(text))


@pytest.mark.parametrize("text", ["", "{", '{"a":1}x', "[1,]", '{"a":1}{"b":2}', "nul"])
def test_decode_raises_what_json_loads_raises(text):
    with pytest.raises(json.JSONDecodeError) as plain:
        json.loads(text)
    with pytest.raises(json.JSONDecodeError) as ours:
        decode(text)
    assert (ours.value.msg, ours.value.pos) == (plain.value.msg, plain.value.pos)


# -- the live tool step: each payload encoded and hashed once ---------------------------------

def _runtime(tmp_path, tools, hooks=()):
    from minirt.clock import FakeClock
    from minirt.runtime import Runtime
    from minirt.store.sqlite import SQLiteStore

    def wf(ctx, n):
        return [ctx.call_tool("fetch", i=i, s="é" * i) for i in range(n)]

    return Runtime(SQLiteStore(tmp_path / "s.sqlite"), tools=tools, workflows={"wf": wf},
                   clock=FakeClock(1_700_000_000.0), worker_id="w", hooks=hooks)


def _fetch(i: int, s: str) -> dict:
    return {"i": i, "s": s, "note": "ü" * 3}


def test_a_spliced_intent_is_the_intent_encoded_whole(tmp_path):
    from minirt.tools import EffectClass, FunctionTool

    rt = _runtime(tmp_path, [FunctionTool(_fetch, name="fetch", effect=EffectClass.KEYED)])
    out = rt.run_workflow("wf", 4)
    assert out.value == [_fetch(i, "é" * i) for i in range(4)]
    run_id = rt.store.list_runs()[0].run.run_id
    intents = [e for e in rt.store.read(run_id) if e.kind == "intent"]
    assert len(intents) == 4
    for e in intents:
        payload = json.loads(e.payload_json)
        assert e.payload_json == canonical.canonical_json(payload)
        assert payload["args_digest"] == canonical.digest(payload["args"])
    rt.close()


def test_a_gate_that_changes_the_arguments_gets_the_digest_of_what_it_returned(tmp_path):
    from minirt.idempotency import effect_key
    from minirt.tools import EffectClass, FunctionTool

    class Upper(FunctionTool):
        def prepare(self, args, scopes):
            args = super().prepare(args, scopes)
            return {**args, "s": args["s"].upper()}

    rt = _runtime(tmp_path, [Upper(_fetch, name="fetch", effect=EffectClass.KEYED)])
    rt.run_workflow("wf", 3)
    run_id = rt.store.list_runs()[0].run.run_id
    for e in rt.store.read(run_id):
        if e.kind != "intent":
            continue
        p = json.loads(e.payload_json)
        assert p["args"]["s"] == "É" * e.step
        assert p["effect_key"] == effect_key(run_id, e.step, "fetch", p["args"])
        raw = {"i": e.step, "s": "é" * e.step}
        assert p["args_digest"] == canonical.digest(raw)  # the raw args, as the code passed them
        if e.step:
            assert p["args_digest"] != canonical.digest(p["args"])
    rt.close()


def test_a_replayed_tool_position_decodes_its_intent_once_and_still_checks_the_args(
        tmp_path, monkeypatch):
    from minirt import journal as journal_mod
    from minirt.clock import FakeClock
    from minirt.faults import FaultPlan, SimulatedCrash
    from minirt.journal import NonDeterminism
    from minirt.runtime import Runtime
    from minirt.store.sqlite import SQLiteStore
    from minirt.tools import EffectClass, FunctionTool

    def wf(ctx, args):
        return [ctx.call_tool("fetch", i=i, s=args["s"]) for i in range(args["n"])]

    def runtime(faults=None):
        return Runtime(SQLiteStore(tmp_path / "s.sqlite"),
                       tools=[FunctionTool(_fetch, name="fetch", effect=EffectClass.KEYED)],
                       workflows={"wf": wf}, clock=FakeClock(1_700_000_000.0), worker_id="w",
                       faults=faults, lease_for=0)

    for run_id in ("r", "r2"):
        rt = runtime(FaultPlan(crash_at="before_complete"))
        rt.start("wf", {"n": 5, "s": "a"}, run_id=run_id)
        with pytest.raises(SimulatedCrash):
            rt.run(run_id)
        rt.close()

    decoded: list[str] = []
    plain = journal_mod.decode
    monkeypatch.setattr(journal_mod, "decode", lambda text: decoded.append(text) or plain(text))
    rt = runtime()
    out = rt.resume("r")
    assert out.value == [_fetch(i, "a") for i in range(5)]
    intents = [e.payload_json for e in rt.store.read("r") if e.kind == "intent"]
    assert [decoded.count(t) for t in intents] == [1] * 5  # each intent decoded once
    rt.close()

    # the same journal, replayed by code that passes other arguments: still refused
    rt = Runtime(SQLiteStore(tmp_path / "s.sqlite"),
                 tools=[FunctionTool(_fetch, name="fetch", effect=EffectClass.KEYED)],
                 workflows={"wf": lambda ctx, args: ctx.call_tool("fetch", i=0, s="b")},
                 clock=FakeClock(1_700_000_000.0), worker_id="w2", lease_for=0)
    out = rt.resume("r2")  # a diverged run is parked, not failed
    assert type(out.error) is NonDeterminism and out.error.step == 0
    rt.close()


# -- normalise: the leaf fast path against the plain recursion it replaced ----------------------
# (the reference below is the function as it was on main before the fast path, renamed)

def _ref_normalise(value: Any, path: str = "$", _depth: int = 0,
                   _limit: int = MAX_DEPTH) -> Any:
    """(main's normalise before the leaf fast path, kept as the reference.) Return plain JSON data (dict/list/str/int/float/bool/None) with strings in NFC form.

    Subclasses of str, int, float, dict and list come back as the plain base type, so an object
    with an overridden ``__eq__`` or ``__str__`` cannot survive normalisation.
    """
    t = type(value)
    # Exact built-in types first: this function runs on every payload the journal writes.
    if t is str:
        return value if value.isascii() else _ref_nfc(value, path)
    if t is bool or value is None:
        return value
    if t is int:
        if -_INT_BOUND < value < _INT_BOUND:
            return value
        raise NotCanonical(path=path, reason=f"an integer of more than {MAX_INT_DIGITS} digits")
    if t is float:
        if not math.isfinite(value):
            raise NotCanonical(path=path, reason=f"{value!r} has no JSON form")
        return value
    if _depth >= _limit and (t is dict or t is list or t is tuple):
        raise NotCanonical(path=path, reason=f"nested deeper than {_limit} levels")
    if t is dict:
        return _ref_dict(value, path, _depth + 1, _limit)
    if t is list or t is tuple:
        return [_ref_normalise(v, f"{path}[{i}]", _depth + 1, _limit) for i, v in enumerate(value)]
    return _ref_other(value, path, _depth, _limit)


def _ref_nfc(text: str, path: str) -> str:
    """NFC form of a non-ASCII string; a lone surrogate (no UTF-8 form) is refused."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise NotCanonical(path=path, reason=f"a lone surrogate {text[exc.start]!r} at "
                                             f"index {exc.start} has no UTF-8 form") from None
    return unicodedata.normalize("NFC", text)


def _ref_dict(value: dict[Any, Any], path: str, depth: int, limit: int
                    ) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in value.items():
        if not isinstance(k, str):
            raise NotCanonical(path=path, reason=f"object key {k!r} is not a string")
        nk = str.__str__(k)
        if not nk.isascii():
            nk = _ref_nfc(nk, f"{path}.{ascii(nk)}")
        if nk in out:
            raise NotCanonical(path=path, reason=f"two keys normalise to {nk!r}")
        out[nk] = _ref_normalise(v, f"{path}.{nk}", depth, limit)
    return out


def _ref_other(value: Any, path: str, depth: int, limit: int) -> Any:
    if isinstance(value, Enum):
        return _ref_normalise(value.value, path, depth, limit)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return _ref_normalise(int.__index__(value), path, depth, limit)
    if isinstance(value, float):
        return _ref_normalise(float.__float__(value), path, depth, limit)
    if isinstance(value, str):
        return _ref_normalise(str.__str__(value), path, depth, limit)
    if isinstance(value, dict):
        return _ref_normalise(dict(value), path, depth, limit)
    if isinstance(value, (list, tuple)):
        return _ref_normalise(list(value), path, depth, limit)
    dump = getattr(type(value), "model_dump", None)  # pydantic models
    if callable(dump):
        return _ref_normalise(value.model_dump(mode="json"), path, depth, limit)
    raise NotCanonical(path=path, reason=f"type {type(value).__name__} is not JSON data")



class _S(str):
    def __str__(self) -> str:
        return "evil"


class _I(int):
    pass


class _F(float):
    pass


class _E(Enum):
    A = "a"
    B = 2


def _hostile(r: random.Random, depth: int = 0) -> Any:
    t = r.randrange(4 if depth < 5 else 1)
    if t == 0:
        return r.choice([1, -7, 10**5000, 1.5, float("nan"), float("inf"), "abc", "e\u0301",
                         "\ud800", _S("k"), _I(3), _F(2.5), True, None, _E.A, _E.B, b"x", {1, 2},
                         (1, 2)])
    if t == 1:
        return [_hostile(r, depth + 1) for _ in range(r.randrange(4))]
    if t == 2:
        return tuple(_hostile(r, depth + 1) for _ in range(r.randrange(3)))
    keys = [r.choice(["a", "b", "é", "e\u0301", _S("a"), 1, "z"]) for _ in range(r.randrange(4))]
    return {k: _hostile(r, depth + 1) for k in keys}


def _outcome(fn, value):
    try:
        return "ok", repr(fn(value))
    except Exception as exc:  # noqa: BLE001 - the error is what is compared
        return "error", type(exc).__name__, str(exc)


def test_normalise_gives_what_the_plain_recursion_gave_values_and_errors():
    r = random.Random(18)
    for _ in range(5000):
        v = _hostile(r)
        assert _outcome(canonical.normalise, v) == _outcome(_ref_normalise, v), v
    deep: list = []
    x = deep
    for _ in range(150):
        x.append([])
        x = x[0]
    assert _outcome(canonical.normalise, deep) == _outcome(_ref_normalise, deep)
