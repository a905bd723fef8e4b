"""Retry policies (issue 19, item 4): an answered tool error follows the tool's RetryPolicy with a
durable, journaled wait; an unknown outcome keeps the reconcile path. FakeClock on SQLite and
PostgreSQL, a simulated crash during the wait, and a real SIGKILL during backoff."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from typing import Any

import pytest

from minirt import FakeClock, Runtime
from minirt.dispatch import DispatchPolicy
from minirt.errors import RecordedError, ToolError
from minirt.faults import SimulatedCrash
from minirt.journal import UnresolvedIntent
from minirt.retry import RetryPolicy, RetryPolicyInvalid
from minirt.run import RunState
from minirt.store import open_store
from minirt.timers import due_at
from minirt.tools import (
    EffectClass,
    FunctionTool,
    OutcomeUnknown,
    ToolCall,
    ToolDeclarationInvalid,
)

pytest_plugins = ["pg_fixture"]
T0 = 1_000_000.0


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request, tmp_path):
    if request.param == "postgres":
        return request.getfixturevalue("pg_url")
    return str(tmp_path / "runs.sqlite")


class Provider:
    """A keyed provider that refuses the first ``failures`` requests with a ValueError."""

    def __init__(self, failures: int, exc: type[Exception] = ValueError) -> None:
        self.failures = failures
        self.exc = exc
        self.sent: list[tuple[str, int]] = []  # (effect key, attempt) of every request

    def charge(self, amount: int, call: ToolCall) -> dict[str, Any]:
        self.sent.append((call.effect_key, call.attempt))
        if len(self.sent) <= self.failures:
            raise self.exc(f"card declined (request {len(self.sent)})")
        return {"charged": amount}


def pay(ctx, inp):
    return ctx.call_tool("charge", {"amount": inp["amount"]})


def runtime(url, clock, provider, retry=None, **kw):
    tool = FunctionTool(provider.charge, name="charge", effect=EffectClass.KEYED, retry=retry)
    return Runtime(open_store(url), tools=[tool], workflows={"pay": pay}, clock=clock, **kw)


def kinds(rt, run_id, *wanted):
    return [(e.kind, e.payload) for e in rt.store.read(run_id) if e.kind in wanted]


def test_an_answered_error_from_a_keyed_tool_is_recorded_once_without_a_policy(tmp_path):
    provider = Provider(failures=99)
    rt = runtime(str(tmp_path / "r.sqlite"), FakeClock(T0), provider)
    out = rt.run_workflow("pay", {"amount": 5}, run_id="r1")
    # before: five back-to-back resends, then UNCERTAIN with UnresolvedIntent
    assert out.state is RunState.FAILED, out
    assert isinstance(out.error, RecordedError) and out.error.type_name == "ValueError"
    assert len(provider.sent) == 1
    assert kinds(rt, "r1", "attempt", "reconciled", "retry_scheduled") == []
    assert [k for k, _ in kinds(rt, "r1", "tool_error")] == ["tool_error"]


def test_retries_wait_durably_with_backoff_and_one_effect_key(url):
    clock = FakeClock(T0)
    provider = Provider(failures=2)
    policy = RetryPolicy(attempts=4, initial_interval=10, backoff=3, max_interval=25)
    rt = runtime(url, clock, provider, retry=policy)
    assert rt.run_workflow("pay", {"amount": 7}, run_id="r1").state is RunState.WAITING
    run = rt.store.get_run("r1").run
    assert run.worker_id is None and run.lease_expires_at is None  # the run left the worker
    assert due_at(rt, "r1") == T0 + 10
    clock.advance(9)
    assert rt.work() == [] and len(provider.sent) == 1  # not due: nothing sent
    clock.advance(1)
    (second,) = rt.work()
    assert second.state is RunState.WAITING and len(provider.sent) == 2
    assert due_at(rt, "r1") == T0 + 10 + 25  # 10 * 3 = 30, capped at max_interval 25
    clock.advance(25)
    (third,) = rt.work()
    assert third.result() == {"charged": 7}
    assert len({key for key, _ in provider.sent}) == 1  # every attempt: the same effect key
    assert [a for _, a in provider.sent] == [1, 2, 3]
    scheduled = [p for _, p in kinds(rt, "r1", "retry_scheduled")]
    assert [(p["attempt"], p["delay"]) for p in scheduled] == [(1, 10.0), (2, 25.0)]
    assert all(p["error"]["attrs"]["type_name"] == "ValueError" for p in scheduled)
    assert [p["attempt"] for _, p in kinds(rt, "r1", "attempt")] == [2, 3]
    # a replay of the finished run changes nothing and sends nothing
    assert rt.run("r1").result() == {"charged": 7} and len(provider.sent) == 3
    rt.close()


def test_the_last_attempt_fails_with_the_last_error(tmp_path):
    clock = FakeClock(T0)
    provider = Provider(failures=99)
    rt = runtime(str(tmp_path / "r.sqlite"), clock, provider,
                 retry=RetryPolicy(attempts=3, initial_interval=1))
    rt.run_workflow("pay", {"amount": 1}, run_id="r1")
    for _ in range(5):
        clock.advance(100)
        rt.work()
    out = rt.outcome("r1")
    assert out.state is RunState.FAILED and "request 3" in out.error.detail
    assert len(provider.sent) == 3
    assert len(kinds(rt, "r1", "retry_scheduled")) == 2


def test_a_non_retryable_error_is_recorded_at_its_first_answer(tmp_path):
    def book(item: str) -> Any:
        sent.append(item)
        raise ToolError(tool="book", reason="sold out")

    sent: list[str] = []
    policy = RetryPolicy(attempts=5, initial_interval=1, non_retryable=(ToolError,))
    rt = Runtime(open_store(str(tmp_path / "r.sqlite")), clock=FakeClock(T0),
                 tools=[FunctionTool(book, effect=EffectClass.KEYED, retry=policy)],
                 workflows={"w": lambda ctx, inp: ctx.call_tool("book", {"item": "x"})})
    out = rt.run_workflow("w", {}, run_id="r1")
    assert out.state is RunState.FAILED and isinstance(out.error, ToolError)
    assert sent == ["x"] and kinds(rt, "r1", "retry_scheduled") == []
    # by name too (an error read back from a journal names its type)
    assert not RetryPolicy(non_retryable=("ValueError",)).retryable(ValueError("x"))
    assert RetryPolicy(non_retryable=("KeyError",)).retryable(ValueError("x"))


def test_the_runtime_default_applies_to_tools_without_their_own(tmp_path):
    clock = FakeClock(T0)
    provider = Provider(failures=1)
    tool = FunctionTool(provider.charge, name="charge", effect=EffectClass.KEYED)
    rt = Runtime(open_store(str(tmp_path / "r.sqlite")), tools=[tool], workflows={"pay": pay},
                 clock=clock, retry=RetryPolicy(attempts=2, initial_interval=5))
    assert rt.run_workflow("pay", {"amount": 2}, run_id="r1").state is RunState.WAITING
    clock.advance(5)
    assert rt.work()[0].result() == {"charged": 2}


def test_an_unknown_outcome_keeps_the_reconcile_path_not_the_retry_policy(tmp_path):
    provider = Provider(failures=99, exc=TimeoutError)
    rt = runtime(str(tmp_path / "r.sqlite"), FakeClock(T0), provider,
                 retry=RetryPolicy(attempts=10, initial_interval=60), max_attempts=3)
    out = rt.run_workflow("pay", {"amount": 5}, run_id="r1")
    assert out.state is RunState.UNCERTAIN and isinstance(out.error, UnresolvedIntent)
    assert len(provider.sent) == 3  # the reconciliation policy's resends, no backoff
    assert kinds(rt, "r1", "retry_scheduled") == []

    def lost(amount: int, call: ToolCall) -> Any:
        raise OutcomeUnknown(tool="charge", effect_key=call.effect_key, reason="reset")

    rt2 = Runtime(open_store(str(tmp_path / "r2.sqlite")), clock=FakeClock(T0),
                  tools=[FunctionTool(lost, name="charge", effect=EffectClass.IRREVERSIBLE,
                                      retry=RetryPolicy(attempts=10))],
                  workflows={"pay": pay})
    assert rt2.run_workflow("pay", {"amount": 5}, run_id="r1").state is RunState.UNCERTAIN
    assert kinds(rt2, "r1", "retry_scheduled") == []


class CrashAfterRetryScheduled(DispatchPolicy):
    """Dies (a simulated crash) right after a retry's wait is journaled, before the run parks."""

    def append(self, ctx, events, kv):
        rows = ctx.write_journal(events, kv)
        if any(e.kind == "retry_scheduled" for e in events):
            raise SimulatedCrash("after_retry_scheduled", 1)
        return rows


def test_a_crash_during_the_wait_resumes_that_wait_with_the_journaled_jitter(url):
    clock = FakeClock(T0)
    provider = Provider(failures=1)
    policy = RetryPolicy(attempts=3, initial_interval=40, jitter=0.5)
    rt = runtime(url, clock, provider, retry=policy, policy=CrashAfterRetryScheduled(),
                 lease_for=5)
    with pytest.raises(SimulatedCrash):
        rt.run_workflow("pay", {"amount": 3}, run_id="r1")
    assert rt.store.get_run("r1").run.state is RunState.RUNNING  # died holding the lease
    (scheduled,) = [p for _, p in kinds(rt, "r1", "retry_scheduled")]
    assert 20.0 <= scheduled["delay"] <= 40.0 and scheduled["retry_at"] == T0 + scheduled["delay"]
    clock.advance(6)  # the dead worker's lease lapsed; the retry is not due yet
    rt2 = runtime(url, clock, provider, retry=RetryPolicy(attempts=3, initial_interval=40,
                                                          jitter=0.9))  # a redeploy
    (out,) = rt2.work()
    assert out.state is RunState.WAITING and len(provider.sent) == 1
    assert due_at(rt2, "r1") == scheduled["retry_at"]  # the same wait, not a new draw
    assert len(kinds(rt2, "r1", "retry_scheduled")) == 1  # and not a new attempt count
    clock.set(scheduled["retry_at"])
    (out,) = rt2.work()
    assert out.result() == {"charged": 3} and [a for _, a in provider.sent] == [1, 2]
    rt.close()
    rt2.close()


def test_a_bad_policy_is_refused_by_name(tmp_path):
    for bad in ({"attempts": 0}, {"attempts": 1.5}, {"initial_interval": -1},
                {"backoff": 0.5}, {"jitter": 2}, {"max_interval": float("inf")},
                {"initial_interval": 10, "max_interval": 1}, {"non_retryable": (42,)},
                {"non_retryable": ValueError}):
        with pytest.raises(RetryPolicyInvalid):
            RetryPolicy(**bad)
    with pytest.raises(ToolDeclarationInvalid):
        FunctionTool(lambda: 1, name="t", retry={"attempts": 3})
    with pytest.raises(RetryPolicyInvalid):
        Runtime(open_store(str(tmp_path / "x.sqlite")), retry=3)


CHILD = textwrap.dedent("""
    import json, os, sys, time
    from minirt import Runtime
    from minirt.retry import RetryPolicy
    from minirt.store import open_store
    from minirt.tools import EffectClass, FunctionTool

    db, ledger = sys.argv[1], sys.argv[2]

    def charge(amount, call):
        with open(ledger, "a") as f:  # the provider's own ledger, durable before it answers
            f.write(json.dumps([call.effect_key, call.attempt]) + "\\n")
            f.flush(); os.fsync(f.fileno())
        with open(ledger) as f:
            n = sum(1 for _ in f)
        if n <= 3:
            raise ValueError(f"declined {n}")
        return {"charged": amount, "requests": n}

    tool = FunctionTool(charge, name="charge", effect=EffectClass.KEYED,
                        retry=RetryPolicy(attempts=5, initial_interval=0.4, backoff=1.5))
    rt = Runtime(open_store(db), tools=[tool], lease_for=1.0,
                 workflows={"pay": lambda ctx, inp: ctx.call_tool("charge", inp)})
    rt.start("pay", {"amount": 9}, run_id="r1")
    while True:
        rt.work()
        time.sleep(0.02)
""")


def test_a_sigkill_during_backoff_resumes_the_wait_and_sends_nothing_twice(tmp_path):
    db, ledger = str(tmp_path / "r.sqlite"), tmp_path / "ledger.jsonl"
    ledger.touch()
    proc = subprocess.Popen([sys.executable, "-c", CHILD, db, str(ledger)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while len(ledger.read_text().splitlines()) < 2:  # the second attempt failed: backoff
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the child never made a second attempt"
            time.sleep(0.01)
        time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    sent_before = len(ledger.read_text().splitlines())
    rt = Runtime(open_store(db), lease_for=1.0,
                 tools=[FunctionTool(lambda amount, call: None, name="charge",
                                     effect=EffectClass.KEYED)],
                 workflows={"pay": lambda ctx, inp: None})
    scheduled = [p for _, p in kinds(rt, "r1", "retry_scheduled")]
    assert len(scheduled) == sent_before  # every failed attempt was journaled before the kill
    rt.close()
    # a fresh worker (the same code) finishes it: the recorded wait, then attempts 3 and 4
    proc = subprocess.Popen([sys.executable, "-c", CHILD, db, str(ledger)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        rt = Runtime(open_store(db), workflows={"pay": lambda ctx, inp: None})
        while rt.store.get_run("r1").run.state is not RunState.SUCCEEDED:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the resumed run never finished"
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    lines = [json.loads(x) for x in ledger.read_text().splitlines()]
    assert len(lines) == 4 and len({k for k, _ in lines}) == 1  # 3 refusals, 1 charge, one key
    assert [a for _, a in lines] == [1, 2, 3, 4]  # the attempt count never restarted
    assert rt.outcome("r1").result() == {"charged": 9, "requests": 4}
    assert [p["attempt"] for _, p in kinds(rt, "r1", "retry_scheduled")] == [1, 2, 3]
    rt.close()


def test_answered_retries_do_not_use_up_the_resend_budget_of_unknown_outcomes(tmp_path):
    answers = iter([ValueError("busy")] * 6 + [TimeoutError("lost")])

    def charge(amount: int, call: ToolCall) -> Any:
        sent.append(call.attempt)
        answer = next(answers, None)
        if answer is not None:
            raise answer
        return {"charged": amount}

    sent: list[int] = []
    tool = FunctionTool(charge, effect=EffectClass.KEYED,
                        retry=RetryPolicy(attempts=10, initial_interval=0))
    rt = Runtime(open_store(str(tmp_path / "r.sqlite")), tools=[tool], workflows={"pay": pay},
                 clock=FakeClock(T0), max_attempts=3)
    out = rt.run_workflow("pay", {"amount": 4}, run_id="r1")
    assert out.result() == {"charged": 4}, out  # before: UnresolvedIntent after 6 retries
    assert sent == [1, 2, 3, 4, 5, 6, 7, 8]
    assert [p["resolution"] for _, p in kinds(rt, "r1", "reconciled")] == ["redispatch"]
