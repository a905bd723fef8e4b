"""Module 01's crash scenario: a refund run, a worker that dies, a takeover, and a zombie.

The story: a refund agent handles "refund order A-42". The run has two recorded steps (look the
order up, decide the refund) and then completes. Worker A claims the run and dies at one of the
run's fault points (``after_claim``, ``before_step_record`` / ``after_step_record`` of either
step, ``before_complete``). Once A's lease has lapsed, worker B claims the run: B gets incarnation
``A + 1``, replays what A journaled and completes the run.

Then the **zombie**: A was perhaps only paused (a GC pause, a network partition), so the scenario
delivers the completion A would have sent, with A's incarnation number, *while B holds the run*
(:class:`ZombieCompletion`, at B's first checkpoint). The store must reject it with
:class:`~minirt.run.StaleIncarnation` and change nothing. In the kill crash mode A really died, so
the late completion is modelled the same way in both modes; the verdicts must agree.

The oracle (:meth:`RefundScenario.oracle`) says CLEAN only if all of these hold, on disk:

- the run is terminal (else STUCK) and succeeded with the right result (else WRONG);
- exactly one terminal transition is journaled, and the zombie's attempt was refused with
  ``StaleIncarnation`` leaving the run's revision and state as they were (else DUPLICATE);
- every claim got the next incarnation number: 1, 2, 3, ... (else WRONG).

What it does not check: external effects (module 04 does, with provider ledgers), or that B
claimed only after A's lease lapsed (the sweep's recovery always waits an hour; the lease rule
has its own unit tests in tests/test_run.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from minirt.canonical import canonical_json
from minirt.clock import FakeClock
from minirt.errors import MinirtError
from minirt.faults import Faults, Outcome, Verdict
from minirt.run import RunEvent
from minirt.runtime import Context, Runtime, RuntimeHook
from minirt.store.base import NewEvent, Store
from minirt.store.sqlite import SQLiteStore

from . import EPOCH, SQLiteScenario

ORDER = {"order_id": "A-42", "amount_cents": 3000}
EXPECTED = {"order_id": "A-42", "refund_cents": 3000, "reason": "item not delivered"}
#: What the zombie would report: a result computed from a stale view, so accepting it shows.
ZOMBIE_RESULT = {"order_id": "A-42", "refund_cents": 6000, "reason": "stale view (zombie)"}
ZOMBIE_LOG = "zombie.jsonl"
TERMINAL_EVENTS = ("complete", "fail", "cancelled")


def look_up_order(order_id: str, amount_cents: int) -> dict[str, Any]:
    """Step 1: what the shop knows about the order (deterministic, no outside effect)."""
    return {"order_id": order_id, "paid_cents": amount_cents, "delivered": False}


def decide_refund(order: dict[str, Any]) -> dict[str, Any]:
    """Step 2: refund in full an order that was paid and never delivered."""
    refund = order["paid_cents"] if not order["delivered"] else 0
    return {"refund_cents": refund, "reason": "item not delivered"}


def refund_workflow(ctx: Context, order: dict[str, Any]) -> dict[str, Any]:
    """The run's code: two recorded steps, then the result."""
    found = ctx.step("look_up_order", look_up_order, order["order_id"], order["amount_cents"])
    decision = ctx.step("decide_refund", decide_refund, found)
    return {"order_id": found["order_id"], **decision}


class ZombieCompletion(RuntimeHook):
    """Deliver the previous incarnation's late ``complete`` once, while this worker holds the run.

    Writes one JSON line per attempt to ``log`` (which incarnation, accepted or the error's name,
    revision and state before and after), so the oracle can judge after the fact. Idempotent per
    zombie incarnation: a record already in the log is not sent again.
    """

    def __init__(self, log: Path) -> None:
        self.log = Path(log)

    def at_checkpoint(self, ctx: Context) -> None:
        zombie = ctx.incarnation - 1
        if zombie < 1 or zombie in {r["incarnation"] for r in read_zombie_log(self.log)}:
            return
        store = ctx.runtime.store
        before = store.get_run(ctx.run_id).run
        now = ctx.runtime.clock.now()
        event = RunEvent("complete", at=now, incarnation=zombie, worker_id="zombie",
                         detail={"result": ZOMBIE_RESULT})
        record: dict[str, Any] = {"incarnation": zombie, "current": before.incarnation,
                                  "revision_before": before.revision,
                                  "state_before": before.state.value}
        try:
            store.transition(ctx.run_id, event, events=[NewEvent(
                "transition", None,
                canonical_json({"event": "complete", "worker_id": "zombie",
                                "result": ZOMBIE_RESULT}), now)])
        except MinirtError as exc:
            record["accepted"], record["error"] = False, type(exc).__name__
        else:
            record["accepted"], record["error"] = True, None
        after = store.get_run(ctx.run_id).run
        record.update(revision_after=after.revision, state_after=after.state.value)
        with self.log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, sort_keys=True) + "\n")


def read_zombie_log(path: Path) -> list[dict[str, Any]]:
    """The zombie attempts recorded so far (empty if none)."""
    if not Path(path).exists():
        return []
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


class RefundScenario(SQLiteScenario):
    """A two-step refund run on SQLite with a 30 s lease; see the module docstring."""

    name = "m01-refund-lease"
    ref = "minirt_course.scenarios.m01_lease:RefundScenario"
    run_id = "refund-A-42"
    lease_for = 30.0

    def open_store(self, workdir: Path) -> Store:
        """The store the scenario runs on (the grading of module 01 plugs a learner's one in)."""
        return SQLiteStore(Path(workdir) / "runs.sqlite")

    def runtime_kwargs(self, workdir: Path) -> dict[str, Any]:
        return {"workflows": {"refund": refund_workflow}, "lease_for": self.lease_for,
                "hooks": [ZombieCompletion(Path(workdir) / ZOMBIE_LOG)]}

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> Runtime:
        return Runtime(self.open_store(workdir), clock=FakeClock(EPOCH + clock_offset),
                       faults=faults, worker_id=worker_id, **self.runtime_kwargs(Path(workdir)))

    def start(self, rt: Runtime) -> str:
        return rt.start("refund", ORDER, run_id=self.run_id)

    def oracle(self, workdir: Path, rt: Runtime, run_id: str) -> Verdict:
        run = rt.store.get_run(run_id).run
        if not run.is_terminal:
            return Verdict(Outcome.STUCK, f"run is {run.state.value} after recovery")
        transitions = [(e.incarnation, json.loads(e.payload_json))
                       for e in rt.store.read(run_id) if e.kind == "transition"]
        ends = [p for _, p in transitions if p.get("event") in TERMINAL_EVENTS]
        if len(ends) != 1:
            return Verdict(Outcome.DUPLICATE,
                           f"{len(ends)} terminal transitions journaled: "
                           f"{[p.get('event') for p in ends]}")
        claims = [inc for inc, p in transitions if p.get("event") == "claim"]
        if claims != list(range(1, len(claims) + 1)):
            return Verdict(Outcome.WRONG, f"claims got incarnations {claims}, not 1, 2, 3, ...")
        zombies = read_zombie_log(Path(workdir) / ZOMBIE_LOG)
        if len(claims) > 1 and not zombies:
            return Verdict(Outcome.WRONG, "a takeover happened but no zombie completion was sent")
        for z in zombies:
            if z["accepted"] or z["error"] != "StaleIncarnation":
                return Verdict(Outcome.DUPLICATE,
                               f"the zombie's late completion from incarnation {z['incarnation']}"
                               f" was {'accepted' if z['accepted'] else 'refused with ' + str(z['error'])}"
                               f" (run at incarnation {z['current']})")
            if (z["revision_after"], z["state_after"]) != (z["revision_before"],
                                                           z["state_before"]):
                return Verdict(Outcome.DUPLICATE,
                               f"the refused zombie completion still changed the run: revision "
                               f"{z['revision_before']}->{z['revision_after']}")
        if run.state.value != "succeeded" or run.detail.get("result") != EXPECTED:
            return Verdict(Outcome.WRONG,
                           f"run {run.state.value} with result {run.detail.get('result')!r}")
        return Verdict(Outcome.CLEAN, f"succeeded once; incarnations {claims}; "
                                      f"{len(zombies)} zombie completion(s) refused")
