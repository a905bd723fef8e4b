"""The replay's and the live step's cheaper paths give exactly what the plain ones give.

The one C encoder of :mod:`minirt.canonical` against ``json.JSONEncoder.encode`` with the same
options, the journal's :func:`~minirt.journal.decode` against ``json.loads`` (values and errors),
and a replayed tool position that decodes its intent once.
"""

from __future__ import annotations

import json
import random

import pytest

from minirt import canonical
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
