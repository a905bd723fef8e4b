"""Hostile input reaches a named error before anything is journaled (issue 19, items 1 and 5).

Run ids that are empty, blank, padded, too long, or hold a control character or a lone
surrogate; tool arguments and step values holding a lone surrogate, a 5,000-digit integer, NaN or
deep nesting. Each must give a named :class:`~minirt.errors.MinirtError`, never a raw
``ValueError``/``UnicodeEncodeError``/``RecursionError``, and must not create a run or a
journal row it cannot read back.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minirt.canonical import MAX_DEPTH, WRAP_DEPTH, NotCanonical, canonical_json, digest, normalise
from minirt.clock import FakeClock
from minirt.errors import MinirtError, RecordedError
from minirt.ids import MAX_RUN_ID_LENGTH, InvalidRunId, check_run_id
from minirt.run import RunState
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.tools import EffectClass, FunctionTool, ToolCall


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


HOSTILE_VALUES = {
    "lone surrogate": "\ud800",
    "surrogate in a key": {"\udcffname": 1},
    "surrogate after non-ascii": "caf\u00e9\udc80",
    "5000-digit integer": 10**5000,
    "negative 5000-digit integer": -(10**5000),
    "NaN": float("nan"),
    "infinity": float("inf"),
    "100000-deep nesting": nested(100_000),
    "too deep even for a payload": nested(MAX_DEPTH + WRAP_DEPTH + 1),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_VALUES))
def test_canonical_json_of_hostile_values_is_a_named_error(name):
    value = HOSTILE_VALUES[name]
    with pytest.raises(NotCanonical) as err:
        canonical_json(value)
    str(err.value).encode("utf-8")  # the message itself is printable
    with pytest.raises(NotCanonical):
        digest({"args": value})


def test_limits_are_inclusive_of_what_json_can_really_carry():
    assert canonical_json(nested(MAX_DEPTH)).count("[") == MAX_DEPTH
    assert normalise(nested(MAX_DEPTH)) == nested(MAX_DEPTH)
    with pytest.raises(NotCanonical, match=f"deeper than {MAX_DEPTH} levels"):
        normalise(nested(MAX_DEPTH + 1))  # what the runtime records: at most MAX_DEPTH
    wrapped: Any = nested(MAX_DEPTH)  # ...and an accepted value stays accepted once wrapped
    for _ in range(WRAP_DEPTH):
        wrapped = {"result": wrapped}
    assert digest(wrapped) and canonical_json(wrapped)
    assert canonical_json(10**4299) == "1" + "0" * 4299
    assert canonical_json("caf\u00e9") == '"caf\u00e9"'


@pytest.fixture
def rt(tmp_path):
    seen: list[dict[str, Any]] = []

    def pay(call: ToolCall, **args: Any) -> Any:
        seen.append(args)
        return {"ok": True}

    def charge(ctx, inp):
        return ctx.call_tool("pay", inp)

    def remember(ctx, inp):
        return ctx.step("value", lambda: inp["hostile"])

    runtime = Runtime(SQLiteStore(tmp_path / "runs.sqlite"), clock=FakeClock(1000.0),
                      tools=[FunctionTool(pay, name="pay", effect=EffectClass.PURE)],
                      workflows={"charge": charge, "remember": remember})
    runtime.seen = seen  # type: ignore[attr-defined]
    yield runtime
    runtime.close()


@pytest.mark.parametrize("run_id, reason", [
    ("", "empty"), ("   ", "empty"), ("\t\n", "empty"), (" ticket-42", "whitespace"),
    ("ticket-42 ", "whitespace"), ("tick\x00et", "control"), ("tick\x1bet", "control"),
    ("ticket\u2028\x7f", "control"), ("ticket-\ud800", "surrogate"),
    ("x" * (MAX_RUN_ID_LENGTH + 1), "characters"), (42, "str"),
])
def test_unusable_run_ids_are_refused_before_anything_is_written(rt, run_id, reason):
    with pytest.raises(InvalidRunId) as err:
        rt.start("charge", {"amount": 1}, run_id=run_id)
    assert reason in str(err.value)
    str(err.value).encode("utf-8")
    assert rt.store.list_runs() == []


def test_empty_run_id_is_never_replaced_by_a_generated_one(rt):
    """A retried submission whose id went missing must not start a second, fresh run."""
    for _ in range(2):
        with pytest.raises(InvalidRunId):
            rt.run_workflow("charge", {"amount": 3000}, run_id="")
    assert rt.store.list_runs() == [] and rt.seen == []


def test_none_still_generates_an_id_and_usable_ids_pass(rt):
    generated = rt.start("charge", {"amount": 1})
    assert generated.startswith("run-")
    assert check_run_id("x" * MAX_RUN_ID_LENGTH) == "x" * MAX_RUN_ID_LENGTH
    assert rt.start("charge", {"amount": 1}, run_id="ticket caf\u00e9 42") == "ticket caf\u00e9 42"


@pytest.mark.parametrize("name", sorted(HOSTILE_VALUES))
def test_hostile_run_input_is_refused_before_the_run_exists(rt, name):
    with pytest.raises(NotCanonical):
        rt.start("charge", {"hostile": HOSTILE_VALUES[name]}, run_id="r1")
    assert rt.store.list_runs() == []


@pytest.mark.parametrize("name", sorted(HOSTILE_VALUES))
def test_hostile_tool_arguments_fail_the_run_with_a_named_error_and_send_nothing(rt, name):
    def hostile_call(ctx, inp):
        return ctx.call_tool("pay", {"amount": HOSTILE_VALUES[name]})

    rt.workflows["hostile"] = hostile_call
    out = rt.run_workflow("hostile", {}, run_id="r1")
    assert out.state is RunState.FAILED
    assert type(out.error) is NotCanonical, out.error
    assert rt.seen == []
    kinds = [e.kind for e in rt.store.read("r1")]  # the journal still reads back, verified
    assert "intent" not in kinds and kinds[-1] == "transition"


@pytest.mark.parametrize("name", ["lone surrogate", "5000-digit integer", "one level too deep"])
def test_hostile_step_values_fail_the_run_with_a_named_error(rt, name):
    value = nested(MAX_DEPTH + 1) if name == "one level too deep" else HOSTILE_VALUES[name]

    def hostile_step(ctx, inp):
        return ctx.step("value", lambda: value)

    rt.workflows["hostile"] = hostile_step
    out = rt.run_workflow("hostile", {}, run_id="r1")
    assert out.state is RunState.FAILED and type(out.error) is NotCanonical
    steps = [e.payload for e in rt.store.read("r1") if e.kind == "step"]
    assert [s["error"]["type"] for s in steps] == ["NotCanonical"]  # the refusal, not the value


# -- workflow results that are not JSON, exceptions that cannot be printed (items 2 and 3) -----

class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ is broken")


def test_a_result_that_is_not_json_fails_the_run_named_and_never_jams_the_worker(rt):
    def returns_a_set(ctx, inp):
        return {1, 2}

    def healthy(ctx, inp):
        return ctx.step("ok", lambda: "fine")

    rt.workflows.update(bad=returns_a_set, healthy=healthy)
    rt.start("bad", {}, run_id="a-bad")
    rt.start("healthy", {}, run_id="b-healthy")
    outs = {o.run_id: o for o in rt.work()}
    assert outs["a-bad"].state is RunState.FAILED
    assert type(outs["a-bad"].error) is NotCanonical
    assert "value at result is not canonical JSON" in str(outs["a-bad"].error)
    assert outs["b-healthy"].result() == "fine"
    assert rt.outcome("a-bad").state is RunState.FAILED  # recorded, and replayed the same
    assert type(rt.outcome("a-bad").error) is NotCanonical


def test_an_exception_whose_str_raises_is_recorded_with_a_safe_description(rt):
    def broken(ctx, inp):
        raise Unprintable()

    rt.workflows["broken"] = broken
    out = rt.run_workflow("broken", {}, run_id="r1")
    assert out.state is RunState.FAILED
    assert out.error.type_name == "Unprintable"
    assert "str() failed with RuntimeError" in out.error.detail
    assert rt.outcome("r1").error.detail == out.error.detail


def test_a_keyed_tool_raising_an_unprintable_error_never_fails_with_its_intent_open(tmp_path):
    from minirt.journal import Journal

    sent: list[int] = []

    def flaky(call: ToolCall, amount: int) -> Any:
        sent.append(amount)
        raise Unprintable()

    def pay(ctx, inp):
        return ctx.call_tool("flaky", {"amount": 3000})

    runtime = Runtime(SQLiteStore(tmp_path / "runs.sqlite"), clock=FakeClock(1000.0),
                      tools=[FunctionTool(flaky, name="flaky", effect=EffectClass.KEYED)],
                      workflows={"pay": pay})
    out = runtime.run_workflow("pay", {}, run_id="r1")
    open_intents = Journal.load(runtime.store, "r1").unresolved()
    # the outcome stays unknown (UNCERTAIN, for reconciliation) or is recorded: never FAILED
    # with a real effect that nobody will ever reconcile
    assert not (out.state is RunState.FAILED and open_intents), out
    assert sent, "the tool was called"
    runtime.close()


# -- a fuzzer: whatever the code passes, minirt answers with a named error or the value --------



ODD_LEAVES = {  # built on demand, by name (hypothesis cannot even repr some of them)
    "huge int": lambda: 10**5000, "huge negative int": lambda: -(10**5000),
    "4299-digit int": lambda: 10**4299, "bytes": lambda: b"bytes", "set": lambda: {1},
    "object": object, "deepest allowed": lambda: nested(MAX_DEPTH),
    "one too deep": lambda: nested(MAX_DEPTH + 1), "5000 deep": lambda: nested(5000),
    "at the tool bound": lambda: nested(MAX_DEPTH - 1),
}
leaves = (st.none() | st.booleans() | st.integers() | st.floats()
          | st.text(st.characters(exclude_categories=()), max_size=8)  # surrogates included
          | st.sampled_from(sorted(ODD_LEAVES)).map(lambda name: ODD_LEAVES[name]()))
values = st.recursive(
    leaves,
    lambda inner: (st.lists(inner, max_size=3) | st.tuples(inner)
                   | st.dictionaries(st.text(st.characters(exclude_categories=()), max_size=4)
                                     | st.integers(), inner, max_size=3)),
    max_leaves=8)


def fuzz_runtime() -> Runtime:
    def echo(call: ToolCall, **args: Any) -> Any:
        return args

    def via_tool(ctx, inp):
        return ctx.call_tool("echo", {"v": ctx.runtime.fuzz_value})["v"]

    def via_result(ctx, inp):
        return ctx.runtime.fuzz_value

    def via_step(ctx, inp):
        return ctx.step("v", lambda: ctx.runtime.fuzz_value)

    return Runtime(SQLiteStore(":memory:"), clock=FakeClock(1000.0),
                   tools=[FunctionTool(echo, name="echo", effect=EffectClass.PURE)],
                   workflows={"tool": via_tool, "result": via_result, "step": via_step})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=values, path=st.sampled_from(["tool", "result", "step"]))
def test_fuzzed_arguments_and_results_only_ever_give_named_errors(value, path):
    rt = fuzz_runtime()
    rt.fuzz_value = value  # type: ignore[attr-defined]
    try:  # what the runtime records: the tool's arguments {"v": value}, or the value itself
        expected: Any = normalise({"v": value})["v"] if path == "tool" else normalise(value)
    except NotCanonical:
        expected = NotCanonical
    out = rt.run_workflow(path, {}, run_id="fuzz")  # raises only if minirt lets a raw error out
    if expected is NotCanonical:
        assert out.state is RunState.FAILED
        assert isinstance(out.error, MinirtError) and not isinstance(out.error, RecordedError), \
            out.error
    else:
        assert out.state is RunState.SUCCEEDED, out.error
        assert out.result() == expected
        assert rt.outcome("fuzz").value == expected  # served back from the verified journal
    rt.store.read("fuzz")
    rt.close()


def test_lookups_with_an_unencodable_id_or_key_are_named_errors(rt, capsys):
    from minirt.cli import main
    from minirt.run import RunNotFound
    from minirt.store.base import NotStorable

    rt.start("charge", {"amount": 1}, run_id="ok")
    for call, error in [(lambda: rt.run("\ud800"), RunNotFound),
                        (lambda: rt.outcome("\ud800"), RunNotFound),
                        (lambda: rt.signal("\ud800", "go"), NotStorable),
                        (lambda: rt.signal("ok", "go\ud800"), NotStorable),
                        (lambda: rt.store.read("\ud800"), NotStorable),
                        (lambda: rt.store.kv_items("\ud800"), NotStorable),
                        (lambda: rt.store.set_kv("ok", {"\ud800": "v"}), NotStorable)]:
        with pytest.raises(error):
            call()
    assert rt.store.kv_items("ok") == {}
    # a command line that is not UTF-8 reaches argv as lone surrogates
    assert main(["show", "--store", rt.store.path, "\udcff"]) == 2
    assert "invalid run id '\\udcff'" in capsys.readouterr().err
