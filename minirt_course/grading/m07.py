"""Hidden-test logic for drill 07 (concurrent tools). Course tooling, not runtime core.

The learner writes ``conflict(a, b)``, ``schedule(calls, max_in_flight)`` and
``join(arrivals)``. Each ``check_*`` returns a list of failure messages (empty = the property
holds); a message starts with the property's name in brackets, names the case, and never states
the expected plan. Learner code is never trusted: every call is wrapped (an exception becomes a
message), a returned plan is rebuilt into lists of ``str`` before it is read, a returned verdict
is read with ``bool``, and the reference rules come from :mod:`minirt.scheduler`, imported here.

The cases are random fan-outs from fixed seeds: up to 8 calls with steps that are not 0..n-1,
listed in a shuffled order, with resources drawn from a small pool (so conflicts are frequent)
and data dependencies on earlier steps only.

:func:`check_crash_sweep` plugs the learner's ``schedule`` and ``join`` into the module's
fan-out scenario (:mod:`minirt_course.scenarios.m07_fanout`) and crashes it at every boundary.
"""

from __future__ import annotations

import copy
import itertools
import os
import random
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from minirt.canonical import canonical_json
from minirt.faults import crash_once
from minirt.scheduler import Node, conflicts, plan_waves

from ..scenarios.m07_fanout import LATENCY, READS, ShopProvider, fanout
from .differential import falsify

ConflictFn = Callable[[Node, Node], Any]
ScheduleFn = Callable[[list[Node], int], Any]
JoinFn = Callable[[list[tuple[int, Any]]], Any]
#: What the drill's answer and plain cells may use (the out-of-kernel run allows nothing else).
LEARNER_API = ("node", "plan_of", "wave_of", "rebuild", "learner_scenario", "latency_table")
SEEDS = (3, 17, 41, 59, 83, 97)
RESOURCES = ("orders:A-42", "customers:cus_42", "stock:lamp")
#: The boundaries of the fan-out scenario with the reference plan (a test checks this against
#: a fresh probe). Fixed here so a broken planner cannot shrink the sweep.
BOUNDARIES = (
    [("after_claim", 1)]
    + [("before_intent", n) for n in (1, 2, 3)] + [("inside_commit", 1)]
    + [("after_intent", n) for n in (1, 2, 3)]
    + [(p, n) for n in (1, 2, 3) for p in ("after_provider_commit", "before_result",
                                           "after_result")]
    + [("before_intent", n) for n in (4, 5)] + [("inside_commit", 2)]
    + [("after_intent", n) for n in (4, 5)]
    + [(p, n) for n in (4, 5) for p in ("after_provider_commit", "before_result", "after_result")]
    + [("before_intent", 6), ("inside_commit", 3), ("after_intent", 6)]
    + [(p, 6) for p in ("after_provider_commit", "before_result", "after_result")]
    + [("before_decision_record", 1), ("after_decision_record", 1), ("before_complete", 1)])
PREDICTION_POINT = ("after_provider_commit", 3)


class LearnerAnswerInvalid(Exception):
    """What the learner returned cannot be read as a plan (internal to grading)."""


def _repr(value: Any) -> str:
    try:
        return repr(value)[:80]
    except Exception:
        return f"<{type(value).__name__}>"


def _call(fn: Callable[..., Any], *args: Any) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args), None
    except Exception as exc:  # a learner's bug becomes a failure message, not a crashed cell
        return None, exc


def plan_of(schedule: ScheduleFn, calls: Sequence[Node], max_in_flight: int) -> list[list[str]]:
    """The learner's plan, rebuilt (for visible tests: raises what the learner's code raises,
    so an unfinished answer says NotImplementedError)."""
    return rebuild(schedule(list(calls), max_in_flight))


def rebuild(value: Any) -> list[list[str]]:
    try:
        plan = [[str(name) for name in wave] for wave in value]
    except Exception:
        raise LearnerAnswerInvalid(f"the plan is {_repr(value)}, not a list of lists of "
                                   "names") from None
    if isinstance(value, (str, bytes)) or any(isinstance(w, (str, bytes)) for w in value):
        raise LearnerAnswerInvalid("a wave must be a list of names, not a string")
    return plan


def wave_of(plan: list[list[str]]) -> dict[str, int]:
    return {name: k for k, wave in enumerate(plan) for name in wave}


def node(name: str, step: int, after: Sequence[str] = (), reads: Sequence[str] = (),
         writes: Sequence[str] = ()) -> Node:
    """A call for a test case."""
    return Node(name, step, frozenset(after), frozenset(reads), frozenset(writes))


def cases(seed: int) -> list[tuple[list[Node], int]]:
    """Random fan-outs (listing shuffled) with their bounds."""
    rng = random.Random(seed)
    out = []
    for _ in range(12):
        n = rng.randint(2, 8)
        steps = sorted(rng.sample(range(3, 60), n))
        nodes: list[Node] = []
        for i, step in enumerate(steps):
            earlier = [x.name for x in nodes]
            after = rng.sample(earlier, rng.randint(0, min(2, len(earlier)))) if earlier and \
                rng.random() < 0.35 else []
            reads = [r for r in RESOURCES if rng.random() < 0.3]
            writes = [r for r in RESOURCES if rng.random() < 0.2]
            nodes.append(node(f"c{i}", step, after, reads, writes))
        rng.shuffle(nodes)
        out.append((nodes, rng.randint(1, 4)))
    return out


@st.composite
def fanouts(draw: Any) -> tuple[list[Node], int]:
    """A generated fan-out: 0-7 calls with gapped steps, data dependencies on earlier calls,
    reads/writes from a two-resource pool (conflicts everywhere, a read and a write of one
    resource by the same call too), listed in any order, and a bound from 1 to past the size."""
    n = draw(st.integers(0, 7))
    gaps = draw(st.lists(st.integers(1, 5), min_size=n, max_size=n))
    steps = list(itertools.accumulate(gaps))
    pool = RESOURCES[:2]
    nodes: list[Node] = []
    for i, step in enumerate(steps):
        earlier = [x.name for x in nodes]
        after = draw(st.sets(st.sampled_from(earlier), max_size=2)) if earlier else set()
        reads = draw(st.sets(st.sampled_from(pool), max_size=2))
        writes = draw(st.sets(st.sampled_from(pool), max_size=1))
        nodes.append(node(f"c{i}", step, sorted(after), sorted(reads), sorted(writes)))
    listed = draw(st.permutations(nodes)) if nodes else []
    bound = draw(st.integers(1, max(1, n + 1)))
    return list(listed), bound


def _show_fanout(ex: tuple[list[Node], int]) -> str:
    nodes, bound = ex
    calls = "; ".join(f"{x.name}@{x.step} after={sorted(x.after)} r={sorted(x.reads)} "
                      f"w={sorted(x.writes)}" for x in nodes)
    return f"max_in_flight={bound}: [{calls}]"


def _generated(prop: str, schedule: ScheduleFn, test: Callable[..., str | None],
               max_examples: int = 40) -> list[str]:
    """The property over hypothesis' fan-outs; also: the plan equals the reference's (so every
    property is differential) and the listing handed in is left as it was."""
    def check(ex: tuple[list[Node], int]) -> str | None:
        nodes, bound = ex
        given = list(nodes)
        plan, why = _learner_plan(prop, schedule, given, bound, "a generated fan-out")
        if why:
            return why.split(": ", 1)[-1]
        if given != nodes:
            return "schedule reordered or changed the list of calls it was given"
        problem = test(nodes, bound, plan, "a generated fan-out")
        if problem:
            return problem.split(": ", 1)[-1]
        return None
    return falsify(prop, fanouts(), check, max_examples=max_examples, show=_show_fanout)


def _learner_plan(prop: str, schedule: ScheduleFn, nodes: list[Node], bound: int, label: str
                  ) -> tuple[list[list[str]] | None, str | None]:
    value, exc = _call(schedule, nodes if isinstance(nodes, list) else list(nodes), bound)
    if exc is not None:
        return None, f"[{prop}] {label}: schedule raised {type(exc).__name__}: {exc}"
    try:
        plan = rebuild(value)
    except LearnerAnswerInvalid as why:
        return None, f"[{prop}] {label}: {why}"
    names = sorted(n.name for n in nodes)
    if sorted(name for wave in plan for name in wave) != names:
        return None, f"[{prop}] {label}: the plan does not hold every call exactly once"
    return plan, None


def _each_case(prop: str, schedule: ScheduleFn, test: Callable[..., str | None],
               seeds: Sequence[int]) -> list[str]:
    for seed in seeds:
        for i, (nodes, bound) in enumerate(cases(seed)):
            label = f"case {seed}/{i} ({len(nodes)} calls, max_in_flight={bound})"
            plan, why = _learner_plan(prop, schedule, nodes, bound, label)
            problem = why or test(nodes, bound, plan, label)
            if problem:
                return [problem]
    return _generated(prop, schedule, test)


# -- the properties ----------------------------------------------------------------------------

def check_conflict(conflict: ConflictFn, seeds: Sequence[int] = SEEDS) -> list[str]:
    """[conflict-rule] the learner's rule agrees with minirt's on every pair, both ways round."""
    for seed in seeds:
        for nodes, _ in cases(seed):
            for a in nodes:
                for b in nodes:
                    if a is b:
                        continue
                    got, exc = _call(conflict, a, b)
                    if exc is not None:
                        return [f"[conflict-rule] conflict raised {type(exc).__name__}: {exc}"]
                    try:
                        verdict = bool(got)
                    except Exception:
                        return [f"[conflict-rule] conflict returned {_repr(got)}, not a bool"]
                    if verdict != conflicts(a, b):
                        return [f"[conflict-rule] reads {sorted(a.reads)} writes "
                                f"{sorted(a.writes)} vs reads {sorted(b.reads)} writes "
                                f"{sorted(b.writes)}: your rule says {verdict}"]
    return exhaustive_conflict(conflict)


def exhaustive_conflict(conflict: ConflictFn) -> list[str]:
    """[conflict-rule] every pair of calls whose reads and writes are subsets of two resources
    (256 pairs, both ways round): the verdict equals minirt's."""
    subsets = [frozenset(c) for n in range(3) for c in itertools.combinations(RESOURCES[:2], n)]
    for ra, wa, rb, wb in itertools.product(subsets, repeat=4):
        a = Node("a", 1, frozenset(), ra, wa)
        b = Node("b", 2, frozenset(), rb, wb)
        got, exc = _call(conflict, a, b)
        if exc is not None:
            return [f"[conflict-rule] conflict raised {type(exc).__name__}: {exc}"]
        try:
            verdict = bool(got)
        except Exception:
            return [f"[conflict-rule] conflict returned {_repr(got)}, not a bool"]
        if verdict != conflicts(a, b):
            return [f"[conflict-rule] a reads {sorted(ra)} writes {sorted(wa)}, b reads "
                    f"{sorted(rb)} writes {sorted(wb)}: your rule says {verdict}, expected "
                    f"{conflicts(a, b)} (the smallest pair that differs)"]
    return []


def check_dependencies(schedule: ScheduleFn, seeds: Sequence[int] = SEEDS) -> list[str]:
    """[dependencies] every call is in a later wave than each call in its ``after``."""
    def test(nodes: list[Node], bound: int, plan: list[list[str]], label: str) -> str | None:
        w = wave_of(plan)
        for n in sorted(nodes, key=lambda n: n.step):
            for dep in sorted(n.after):
                if w[dep] >= w[n.name]:
                    return (f"[dependencies] {label}: {n.name} needs the result of {dep} but "
                            f"is in wave {w[n.name]}, not after wave {w[dep]}")
        return None
    return _each_case("dependencies", schedule, test, seeds)


def check_conflicts(schedule: ScheduleFn, seeds: Sequence[int] = SEEDS) -> list[str]:
    """[no-conflict-in-wave] conflicting calls never share a wave; the earlier step goes first."""
    def test(nodes: list[Node], bound: int, plan: list[list[str]], label: str) -> str | None:
        w = wave_of(plan)
        for a in sorted(nodes, key=lambda n: n.step):
            for b in sorted(nodes, key=lambda n: n.step):
                if a.step < b.step and conflicts(a, b) and w[a.name] >= w[b.name]:
                    where = "share" if w[a.name] == w[b.name] else "are out of step order in"
                    return (f"[no-conflict-in-wave] {label}: {a.name} (reads {sorted(a.reads)},"
                            f" writes {sorted(a.writes)}) and {b.name} (reads {sorted(b.reads)},"
                            f" writes {sorted(b.writes)}) {where} waves {w[a.name]}/"
                            f"{w[b.name]}")
        return None
    return _each_case("no-conflict-in-wave", schedule, test, seeds)


def check_bound(schedule: ScheduleFn, seeds: Sequence[int] = SEEDS) -> list[str]:
    """[bound] no wave holds more than ``max_in_flight`` calls, and none is empty."""
    def test(nodes: list[Node], bound: int, plan: list[list[str]], label: str) -> str | None:
        for k, wave in enumerate(plan):
            if not wave or len(wave) > bound:
                return f"[bound] {label}: wave {k} holds {len(wave)} calls"
        return None
    return _each_case("bound", schedule, test, seeds)


def check_minimal(schedule: ScheduleFn, seeds: Sequence[int] = SEEDS) -> list[str]:
    """[minimal] every call is in the first wave it can take: ready (its dependencies and the
    earlier conflicting calls are in earlier waves) and not displaced by a ready call with an
    earlier step."""
    def test(nodes: list[Node], bound: int, plan: list[list[str]], label: str) -> str | None:
        mine, ref = wave_of(plan), wave_of(plan_waves(nodes, bound))
        for n in sorted(nodes, key=lambda n: n.step):
            if mine[n.name] > ref[n.name]:
                return (f"[minimal] {label}: {n.name} (step {n.step}) waits until wave "
                        f"{mine[n.name]} although an earlier wave had room for it")
            if mine[n.name] < ref[n.name]:
                return (f"[minimal] {label}: {n.name} (step {n.step}) goes in wave "
                        f"{mine[n.name]}, ahead of a ready call with an earlier step or before "
                        "a call it must follow")
        return None
    return _each_case("minimal", schedule, test, seeds)


def check_deterministic(schedule: ScheduleFn, seeds: Sequence[int] = SEEDS) -> list[str]:
    """[deterministic] the same fan-out gives the same plan, however it is listed, each wave in
    step order."""
    for seed in seeds:
        rng = random.Random(seed * 7 + 1)
        for i, (nodes, bound) in enumerate(cases(seed)):
            label = f"case {seed}/{i}"
            plan, why = _learner_plan("deterministic", schedule, nodes, bound, label)
            if why:
                return [why]
            assert plan is not None
            steps = {n.name: n.step for n in nodes}
            for k, wave in enumerate(plan):
                if [steps[x] for x in wave] != sorted(steps[x] for x in wave):
                    return [f"[deterministic] {label}: wave {k} is not listed in step order"]
            for _ in range(3):
                shuffled = nodes[:]
                rng.shuffle(shuffled)
                again, why = _learner_plan("deterministic", schedule, shuffled, bound, label)
                if why:
                    return [why]
                if again != plan:
                    return [f"[deterministic] {label}: the same calls listed in another order "
                            "got another plan"]
    return []


def check_join(join: JoinFn, seeds: Sequence[int] = SEEDS) -> list[str]:
    """[join-order] any arrival order of the same results gives the same joined list, in step
    order (a property over many random permutations)."""
    for seed in seeds:
        rng = random.Random(seed)
        for _ in range(25):
            steps = sorted(rng.sample(range(0, 40), rng.randint(1, 7)))
            values = [{"step": s, "tool": rng.choice(("lookup", "charge", "email"))}
                      for s in steps]
            arrivals = list(zip(steps, values, strict=True))
            rng.shuffle(arrivals)
            got, exc = _call(join, [(s, dict(v)) for s, v in arrivals])
            if exc is not None:
                return [f"[join-order] join raised {type(exc).__name__}: {exc}"]
            try:
                text = canonical_json(list(got))
            except Exception:
                return [f"[join-order] join returned {_repr(got)}, not a list of results"]
            if text != canonical_json(values):
                order = [s for s, _ in arrivals]
                return [f"[join-order] results that arrived in step order {order} were joined "
                        "in another order than a different arrival order would give"]

    def check(arrivals: list[tuple[int, Any]]) -> str | None:
        given = copy.deepcopy(arrivals)
        got, exc = _call(join, given)
        if exc is not None:
            return f"join raised {type(exc).__name__}: {exc}"
        if given != arrivals:
            return "join changed the list of arrivals it was given"
        try:
            text = canonical_json(list(got))
        except Exception:
            return f"join returned {_repr(got)}, not a list of results"
        want = [v for _, v in sorted(arrivals, key=lambda p: p[0])]
        if text != canonical_json(want):
            return f"joined {_repr(list(got))}, expected the results by step"
        return None
    # results that sort differently from their steps (nested, equal, None), steps with gaps
    result = st.one_of(st.none(), st.integers(-3, 3), st.text("ab", max_size=2),
                       st.lists(st.integers(0, 2), max_size=2).map(lambda x: {"rows": x}))
    arrivals = st.lists(st.tuples(st.integers(0, 40), result), max_size=6,
                        unique_by=lambda p: p[0]).flatmap(st.permutations)
    return falsify("join-order", arrivals, check, max_examples=80)


# -- the crash drill and the prediction --------------------------------------------------------

def scratch() -> tempfile.TemporaryDirectory[str]:
    """In memory (``/dev/shm``) when possible: simulated crashes need no real fsync."""
    shm = "/dev/shm"
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        return tempfile.TemporaryDirectory(prefix="m07-", dir=shm)
    return tempfile.TemporaryDirectory(prefix="m07-")


def learner_scenario(schedule: ScheduleFn, join: JoinFn) -> Any:
    """The fan-out scenario with the learner's planner and join (for a scratch cell)."""
    def planner(nodes: Sequence[Node], bound: int) -> list[list[str]]:
        return rebuild(schedule(list(nodes), bound))
    return replace(fanout, name="m07-fanout (yours)", ref="", planner=planner, join=join)


def check_crash_sweep(schedule: ScheduleFn, join: JoinFn,
                      points: Sequence[tuple[str, int]] = BOUNDARIES) -> list[str]:
    """[crash-sweep] with the learner's plan and join, every crash point recovers clean."""
    sc = learner_scenario(schedule, join)
    for point, n in points:
        with scratch() as tmp:
            verdict = crash_once(sc, point, occurrence=n, workdir=Path(tmp))
        if not verdict.ok:
            return [f"[crash-sweep] crash at {point}#{n}: {verdict.outcome.value}: "
                    f"{verdict.detail}"]
    return []


def _observe_prediction() -> dict[str, int]:
    """Crash the reference fan-out at PREDICTION_POINT, recover, and count the look-ups the shop
    served (each op's executions)."""
    point, n = PREDICTION_POINT
    with scratch() as tmp:
        wd = Path(tmp)
        crash_once(fanout, point, occurrence=n, workdir=wd)
        with ShopProvider(wd / "shop.sqlite") as shop, shop.ledger.transaction() as db:
            rows = db.execute("SELECT op, COUNT(*) FROM executions GROUP BY op").fetchall()
    counts = dict(rows)
    return {op: int(counts.get(op, 0)) for op in READS}


def check_prediction(predicted: Any) -> list[str]:
    """[prediction] the learner's counts match what the shop counted."""
    try:
        guess = {str(k): int(v) for k, v in dict(predicted).items()}
    except Exception:
        return ["[prediction] predicted_runs must map each look-up to a whole number"]
    if sorted(guess) != sorted(READS):
        return [f"[prediction] predicted_runs must name exactly the look-ups {list(READS)}"]
    seen = _observe_prediction()
    wrong = [op for op in READS if guess[op] != seen[op]]
    if wrong:
        return [f"[prediction] your counts for {wrong} do not match the shop's ledger"]
    return []


def latency_table() -> list[tuple[str, float]]:
    """The simulated latencies, for the drill's text."""
    return sorted(LATENCY.items(), key=lambda kv: kv[1])


def probe() -> list[tuple[str, int]]:
    """The scenario's boundaries, probed afresh (tests compare them with BOUNDARIES)."""
    from minirt.faults import boundaries

    return boundaries(fanout)

