"""Hidden-test logic for drill 03 (step journals). Course tooling, not runtime core.

The learner writes the heart of replay::

    lookup(rows, step, kind, name, args_digest) -> None | Recorded(value) | UNRESOLVED

given the journal as plain rows (:func:`rows_of`), and raises :class:`Divergence` when the
journal holds another call at ``step``. :class:`LearnerContext` plugs that function into the real
runtime (every position of a run asks it what to do), and :class:`LearnerScenario` runs module 03's
refund agent on it, so the crash sweep of :mod:`minirt_course.scenarios.m03_journal` grades it with the
same ledger oracle as the reference.

Each ``check_*`` returns a list of failure messages (empty = the property holds); a message starts
with the property's name in brackets and never states the expected answer. Learner code is never
trusted: calls are wrapped, rows are deep copies, a returned value must be exactly ``None``, the
``UNRESOLVED`` object itself, or a :class:`Recorded` whose value is rebuilt through canonical JSON.
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from minirt.canonical import canonical_json, digest
from minirt.errors import MinirtError
from minirt.faults import FaultPlan, Faults, Outcome, SimulatedCrash, crash_once
from minirt.journal import NonDeterminism
from minirt.run import RunState
from minirt.runtime import Context, Runtime
from minirt.store.base import Event

from ..scenarios.m03_journal import RefundScenario, RefundWorld, refund_agent
from .differential import falsify, plain_equal

#: The only names of this module the learner's answer and plain cells may use (the out-of-kernel
#: run refuses the others). ``observe_w3_refund`` (the prediction's answer) is not one of them.
LEARNER_API = ("UNRESOLVED", "Divergence", "Recorded", "journal_rows", "LearnerScenario", "same",
               "positions")

LookupFn = Callable[..., Any]

#: The boundaries of the refund scenario (a test checks them against a fresh probe), fixed here so
#: a broken lookup cannot shrink the sweep.
BOUNDARIES = tuple([("after_claim", 1)]
                   + [(p, 1) for p in ("before_intent", "after_intent", "after_provider_commit",
                                       "before_result", "after_result", "before_decision_record",
                                       "after_decision_record", "before_step_record",
                                       "after_step_record")]
                   + [("before_step_record", 2), ("after_step_record", 2)]
                   + [(p, 2) for p in ("before_intent", "after_intent", "after_provider_commit",
                                       "before_result", "after_result", "before_decision_record",
                                       "after_decision_record")]
                   + [(p, 3) for p in ("before_intent", "after_intent", "after_provider_commit",
                                       "before_result", "after_result")]
                   + [("before_complete", 1)])
#: W2, W3, W4 of each of the three tool calls: where an intent has no outcome after the crash.
UNRESOLVED_POINTS = tuple((p, n) for n in (1, 2, 3)
                          for p in ("after_intent", "after_provider_commit", "before_result"))


@dataclass(frozen=True)
class Recorded:
    """The journal holds the outcome of this position: ``value`` is what the call returned."""

    value: Any


class _Unresolved:
    def __repr__(self) -> str:
        return "UNRESOLVED"


#: The journal holds an intent at this position and no outcome: the effect may or may not have
#: happened, so the runtime must reconcile it (never treat it as done, never simply run it again).
UNRESOLVED = _Unresolved()


class Divergence(MinirtError):
    """Raised by the learner's lookup: the journal holds another call at ``step``."""

    fields = ("step", "recorded", "requested")
    template = "step {step}: the journal holds {recorded}, the code asks for {requested}"


class LookupMisbehaved(MinirtError):
    """The learner's lookup raised something other than Divergence, or returned something that
    is not None, UNRESOLVED or Recorded(...). Fails the run it happened in."""

    fields = ("step", "detail")
    template = "lookup at step {step}: {detail}"


# -- the journal as the learner sees it ------------------------------------------------------

def rows_of(events: Sequence[Event]) -> list[dict[str, Any]]:
    """The journal as plain rows: ``{"seq", "step", "kind", "name", "args_digest", "value"}``.

    Kinds: ``step`` (name, value), ``decision`` (name, args_digest = the prompt's digest, value),
    ``intent`` (name = the tool, args_digest), ``result`` (value); notes keep their journal kind
    (``attempt``, ``reconciled``...) with the other fields None. Events without a step are left out.
    """
    rows = []
    for e in events:
        if e.step is None:
            continue
        p = json.loads(e.payload_json)
        row = {"seq": e.seq, "step": e.step, "kind": e.kind, "name": None, "args_digest": None,
               "value": None}
        if e.kind == "step":
            row.update(name=p["name"], value=p.get("value"))
        elif e.kind == "decision":
            row.update(name=p["name"], args_digest=p["prompt_digest"], value=p["output"])
        elif e.kind == "intent":
            row.update(name=p["tool"], args_digest=p["args_digest"])
        elif e.kind == "tool_result":
            row.update(kind="result", value=p["value"])
        rows.append(row)
    return rows


def ask(lookup: LookupFn, rows: list[dict[str, Any]], step: int, kind: str, name: str,
        args_digest: str | None) -> tuple[Any, BaseException | None]:
    """Call the learner's lookup on a deep copy of ``rows``; return (answer, exception)."""
    try:
        return lookup(copy.deepcopy(rows), step, kind, name, args_digest), None
    except Exception as exc:  # a learner's bug becomes a failure message, not a crashed cell
        return None, exc


def describe_answer(answer: Any, exc: BaseException | None) -> str:
    if exc is not None:
        return f"raised {type(exc).__name__}"
    if answer is None or answer is UNRESOLVED:
        return f"returned {answer!r}"
    if type(answer) is Recorded:
        return "returned Recorded(...)"
    return f"returned a {type(answer).__name__}"


# -- the learner's lookup inside the real runtime ----------------------------------------------

class LearnerContext(Context):
    """A Context whose every position asks ``runtime.learner_lookup`` what the journal says.

    ``None`` runs the call for real (and journals it); ``Recorded(v)`` returns ``v`` and touches
    nothing; ``UNRESOLVED`` hands the recorded intent to the runtime's reconciliation; a
    :class:`Divergence` becomes the runtime's :class:`~minirt.journal.NonDeterminism`.
    """

    _mode: str | None = None  # "fresh": hide the journal from the base class for one position

    def claim_position(self) -> Any:
        p, pos = super().claim_position()
        if self._mode == "fresh":
            pos = None
        self._mode = None
        return p, pos

    def _ask(self, kind: str, name: str, args_digest: str | None) -> Any:
        p = self.position
        answer, exc = ask(self.runtime.learner_lookup, rows_of(self.journal.events), p, kind,  # type: ignore[attr-defined]
                          name, args_digest)
        if isinstance(exc, Divergence):
            raise NonDeterminism(run_id=self.run_id, step=p, recorded=str(exc.recorded),
                                 requested=str(exc.requested))
        if exc is not None:
            raise LookupMisbehaved(step=p, detail=f"raised {type(exc).__name__}: {exc}")
        if answer is None or answer is UNRESOLVED:
            return answer
        if type(answer) is Recorded:
            try:
                return Recorded(json.loads(canonical_json(answer.value)))
            except Exception as err:
                raise LookupMisbehaved(step=p, detail=f"Recorded value is not JSON data: {err}"
                                       ) from None
        raise LookupMisbehaved(step=p, detail=describe_answer(answer, None))

    def _follow(self, answer: Any, kind: str, base: Callable[[], Any]) -> Any:
        if answer is None:
            self._mode = "fresh"
            return base()
        if answer is UNRESOLVED:
            pos = self.journal.at(self.position)
            if kind != "intent" or pos is None or not pos.is_unresolved:
                raise LookupMisbehaved(step=self.position,
                                       detail="returned UNRESOLVED where no open intent is")
            return base()
        self.skip_to(self.position + 1)  # the learner's answer stands for this position
        if kind == "decision":
            self.cursor.decisions += 1  # and for the model's next scripted decision
        self.replaying = True
        return answer.value

    def step(self, name: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        answer = self._ask("step", name, None)
        return self._follow(answer, "step", lambda: super(LearnerContext, self).step(
            name, fn, *args, **kwargs))

    def decide(self, prompt: Any, *, name: str = "decide", model: Any = None) -> Any:
        answer = self._ask("decision", name, digest(prompt))
        return self._follow(answer, "decision", lambda: super(LearnerContext, self).decide(
            prompt, name=name, model=model))

    def call_tool(self, tool_name: str, args: Any = None, **kw: Any) -> Any:
        raw = {**(args or {}), **kw}
        answer = self._ask("intent", tool_name, digest(raw))
        return self._follow(answer, "intent", lambda: super(LearnerContext, self).call_tool(
            tool_name, raw))


class LearnerScenario(RefundScenario):
    """Module 03's refund agent replayed through the learner's lookup (simulated crashes only)."""

    ref = ""
    #: Every crash here is simulated (the process never dies), so fsync proves nothing and only
    #: costs the learner's wait; durability is proven by the kill-mode sweep of the reference.
    synchronous = "OFF"

    def __init__(self, lookup: LookupFn, workflow: Callable[..., Any] = refund_agent) -> None:
        self.lookup = lookup
        self.agent = workflow

    def make_runtime(self, workdir: Path, *, faults: Faults, clock_offset: float,
                     worker_id: str) -> Runtime:
        rt = super().make_runtime(workdir, faults=faults, clock_offset=clock_offset,
                                  worker_id=worker_id)
        rt.context_class = LearnerContext
        rt.learner_lookup = self.lookup  # type: ignore[attr-defined]
        rt.workflows[self.workflow] = self.agent
        return rt


# -- reference journals ---------------------------------------------------------------------

_JOURNALS: dict[str, list[dict[str, Any]]] = {}


def journal_rows(*crashes: tuple[str, int], recover: bool = False) -> list[dict[str, Any]]:
    """Rows of the refund agent's journal, written by the reference runtime.

    No ``crashes``: the finished run. Otherwise the first process crashes at ``crashes[0]``, each
    next one (a fresh runtime, an hour later) resumes and crashes at the next; ``recover`` adds a
    last, crash-free resume.
    """
    key = repr((crashes, recover))
    if key not in _JOURNALS:
        sc = RefundScenario()
        with tempfile.TemporaryDirectory() as tmp:
            wd = Path(tmp)
            sc.setup(wd)
            plans: list[Faults] = [FaultPlan(crash_at=p, occurrence=n) for p, n in crashes]
            if recover or not crashes:
                plans.append(Faults())
            run_id = ""
            for i, plan in enumerate(plans):
                rt = sc.make_runtime(wd, faults=plan, clock_offset=3600.0 * i,
                                     worker_id=f"w-ref-{i}")
                run_id = sc.start(rt)
                try:
                    rt.run(run_id)
                except SimulatedCrash:
                    pass
                finally:
                    rows = rows_of(rt.store.read(run_id))
                    rt.close()
        _JOURNALS[key] = rows
    return copy.deepcopy(_JOURNALS[key])


@dataclass(frozen=True)
class Position:
    """One recorded position of a reference journal, as the code would ask for it again."""

    step: int
    kind: str
    name: str
    args_digest: str | None
    value: Any
    done: bool  # an outcome is recorded (always, for steps and decisions)


def positions(rows: list[dict[str, Any]]) -> list[Position]:
    out = []
    for step in sorted({r["step"] for r in rows}):
        here = [r for r in rows if r["step"] == step]
        opening = next(r for r in here if r["kind"] in ("step", "decision", "intent"))
        result = next((r for r in here if r["kind"] == "result"), None)
        if opening["kind"] == "intent":
            out.append(Position(step, "intent", opening["name"], opening["args_digest"],
                                result["value"] if result else None, result is not None))
        else:
            out.append(Position(step, opening["kind"], opening["name"], opening["args_digest"],
                                opening["value"], True))
    return out


def same(a: Any, b: Any) -> bool:
    """Equal as canonical JSON (never through a learner object's own ``__eq__``)."""
    try:
        return canonical_json(a) == canonical_json(b)
    except Exception:  # a value that is not JSON data equals nothing recorded
        return False


# -- the properties -------------------------------------------------------------------------

def check_recorded(lookup: LookupFn) -> list[str]:
    """[recorded-result] every recorded position returns Recorded(the recorded value), notes
    between an intent and its result included; an unrecorded position returns None."""
    out = []
    cases = [("the finished run", journal_rows()),
             ("a run resent after a crash in W4 of the refund",
              journal_rows(("before_result", 2), recover=True)),
             ("a run that crashed before its second step was journaled",
              journal_rows(("before_step_record", 2)))]
    for label, rows in cases:
        known = positions(rows)
        for pos in known:
            if not pos.done:
                continue
            got, exc = ask(lookup, rows, pos.step, pos.kind, pos.name, pos.args_digest)
            if exc is not None or type(got) is not Recorded or not same(got.value, pos.value):
                what = describe_answer(got, exc)
                if exc is None and type(got) is Recorded:
                    what = "returned Recorded with another value"
                out.append(f"[recorded-result] {label}: the {pos.kind} {pos.name!r} at step "
                           f"{pos.step} is recorded, lookup {what}")
        nxt = max(p.step for p in known) + 1
        got, exc = ask(lookup, rows, nxt, "step", "later", None)
        if exc is not None or got is not None:
            out.append(f"[recorded-result] {label}: nothing is recorded at step {nxt}, lookup "
                       f"{describe_answer(got, exc)}")
    got, exc = ask(lookup, [], 0, "intent", "lookup_order", digest({}))
    if exc is not None or got is not None:
        out.append(f"[recorded-result] an empty journal: lookup {describe_answer(got, exc)}")
    return out or check_lookup_properties(lookup, "recorded-result", _answer_is("none",
                                                                                 "recorded"))


# -- lookup, differentially: generated journals against the drill's rule -------------------------

OPENINGS = ("step", "decision", "intent")
NOTES = ("attempt", "reconciled", "lookup_failed")
NAMES = ("plan", "refund", "ref")
DIGESTS = (None, "d1", "d2")


def reference_lookup(rows: list[dict[str, Any]], step: int, kind: str, name: str,
                     args_digest: str | None) -> Any:
    """The drill's rule: None, Recorded(value), UNRESOLVED, or Divergence (texts free)."""
    here = [r for r in rows if r["step"] == step]
    if not here:
        return None
    opening = next((r for r in here if r["kind"] in OPENINGS), None)
    if opening is None:
        raise Divergence(step=step, recorded="no call, only notes", requested=f"{kind} {name!r}")
    if (opening["kind"], opening["name"], opening["args_digest"]) != (kind, name, args_digest):
        raise Divergence(step=step, recorded=f"{opening['kind']} {opening['name']!r}",
                         requested=f"{kind} {name!r}")
    if kind != "intent":
        return Recorded(opening["value"])
    result = next((r for r in here if r["kind"] == "result"), None)
    return UNRESOLVED if result is None else Recorded(result["value"])


_values = st.one_of(st.integers(0, 3), st.sampled_from(["", "ok"]), st.none(),
                    st.fixed_dictionaries({"refund_id": st.sampled_from(["re_1", "re_2"]),
                                           "lines": st.lists(st.integers(0, 2), max_size=2)}))


@st.composite
def journals(draw: Any) -> tuple[list[dict[str, Any]], tuple[int, str, str, str | None]]:
    """A journal of 0..4 positions (step, decision or intent, with or without its result, notes
    before and after, or notes only), then a request: at a recorded position (the same call, or
    one of kind, name, digest changed), or past the end."""
    rows: list[dict[str, Any]] = []
    seq = 0
    calls = {}

    def row(step: int, kind: str, name: Any = None, dg: Any = None, value: Any = None) -> None:
        nonlocal seq
        seq += 1
        rows.append({"seq": seq, "step": step, "kind": kind, "name": name, "args_digest": dg,
                     "value": value})

    for step in range(draw(st.integers(0, 4))):
        shape = draw(st.sampled_from(["call", "call", "call", "notes"]))
        if shape == "notes":
            for _ in range(draw(st.integers(1, 2))):
                row(step, draw(st.sampled_from(NOTES)))
            continue
        kind = draw(st.sampled_from(OPENINGS))
        name = draw(st.sampled_from(NAMES))
        dg = None if kind == "step" else draw(st.sampled_from(DIGESTS[1:]))
        row(step, kind, name, dg, None if kind == "intent" else draw(_values))
        calls[step] = (kind, name, dg)
        if kind == "intent":
            for _ in range(draw(st.integers(0, 2))):
                row(step, draw(st.sampled_from(NOTES)))
            if draw(st.booleans()):
                row(step, "result", value=draw(_values))
                if draw(st.booleans()):
                    row(step, "reconciled")
    where = draw(st.integers(0, 5))
    if where in calls and draw(st.booleans()):
        kind, name, dg = calls[where]
        change = draw(st.sampled_from(["none", "kind", "name", "digest"]))
        if change == "kind":
            kind = draw(st.sampled_from([k for k in OPENINGS if k != kind]))
        elif change == "name":
            name = draw(st.sampled_from([n for n in NAMES if n != name]))
        elif change == "digest":
            dg = draw(st.sampled_from([d for d in DIGESTS if d != dg]))
        return rows, (where, kind, name, dg)
    return rows, (where, draw(st.sampled_from(OPENINGS)), draw(st.sampled_from(NAMES)),
                  draw(st.sampled_from(DIGESTS)))


def _lookup_property(lookup: LookupFn) -> Callable[[Any], str | None]:
    def prop(case: Any) -> str | None:
        rows, (step, kind, name, dg) = case
        given = copy.deepcopy(rows)
        try:
            got, exc = lookup(given, step, kind, name, dg), None
        except Exception as error:  # learner code
            got, exc = None, error
        if canonical_json(given) != canonical_json(rows):
            return "lookup changed the rows it was given"
        try:
            want, want_exc = reference_lookup(copy.deepcopy(rows), step, kind, name, dg), None
        except Divergence as error:
            want, want_exc = None, error
        if want_exc is not None:
            if type(exc).__name__ != "Divergence":
                return f"lookup {describe_answer(got, exc)}, expected Divergence"
            if not plain_equal(getattr(exc, "step", None), step):
                return f"Divergence says step {getattr(exc, 'step', None)!r}, expected {step}"
            rec, req = getattr(exc, "recorded", None), getattr(exc, "requested", None)
            if not (isinstance(rec, str) and rec.strip() and isinstance(req, str)
                    and str(name) in req):
                return ("Divergence must name the recorded call (or say there is none) and the "
                        f"requested one: recorded={rec!r}, requested={req!r}")
            return None
        if exc is not None:
            return f"lookup raised {type(exc).__name__}: {exc}"[:200] + f"; expected {want!r}"[:80]
        if want is None or want is UNRESOLVED:
            return None if got is want else f"lookup {describe_answer(got, None)}, expected {want!r}"
        if type(got) is not Recorded or not same(got.value, want.value):
            return f"lookup {describe_answer(got, None)}, expected Recorded(the recorded value)"
        return None
    return prop


def _show_journal(case: Any) -> str:
    rows, request = case
    short = [(r["step"], r["kind"], r["name"], r["args_digest"], r["value"]) for r in rows]
    return f"rows (step, kind, name, args_digest, value)={short}; request={request}"


def check_lookup_properties(lookup: LookupFn, prop: str,
                            only: Callable[[Any], bool] = lambda case: True) -> list[str]:
    """[prop] differential on generated journals (filtered by ``only``): None past the end,
    Recorded(value) with the exact recorded value, UNRESOLVED for an intent without result,
    Divergence on every kind/name/digest mismatch and on a position of notes only."""
    examples = [case for case in BOUNDARY_CASES if only(case)]
    return falsify(prop, journals().filter(only), _lookup_property(lookup), max_examples=120,
                   show=_show_journal, examples=examples)


def _rows(*spec: tuple[int, str, Any, Any, Any]) -> list[dict[str, Any]]:
    return [{"seq": i + 1, "step": st_, "kind": k, "name": n, "args_digest": d, "value": v}
            for i, (st_, k, n, d, v) in enumerate(spec)]


#: Always tried first: a tool whose result is None, notes between an intent and its result, a
#: position of notes only, an intent with notes and no result, a digest mismatch, past the end.
BOUNDARY_CASES = (
    (_rows((0, "intent", "refund", "d1", None), (0, "result", None, None, None)),
     (0, "intent", "refund", "d1")),
    (_rows((0, "decision", "plan", "d1", None)), (0, "decision", "plan", "d1")),
    (_rows((0, "intent", "refund", "d1", None), (0, "attempt", None, None, None),
           (0, "result", None, None, {"refund_id": "re_1"})), (0, "intent", "refund", "d1")),
    (_rows((0, "step", "plan", None, 1), (1, "attempt", None, None, None)),
     (1, "step", "plan", None)),
    (_rows((0, "intent", "refund", "d1", None), (0, "attempt", None, None, None)),
     (0, "intent", "refund", "d1")),
    (_rows((0, "intent", "refund", "d1", None), (0, "result", None, None, 1)),
     (0, "intent", "refund", "d2")),
    (_rows((0, "step", "plan", None, 1)), (1, "step", "plan", None)),
)


def _answer_is(*kinds: str) -> Callable[[Any], bool]:
    def only(case: Any) -> bool:
        rows, (step, kind, name, dg) = case
        try:
            want = reference_lookup(rows, step, kind, name, dg)
        except Divergence:
            return "divergence" in kinds
        label = ("none" if want is None else "unresolved" if want is UNRESOLVED else "recorded")
        return label in kinds
    return only


def _diverging_requests(rows: list[dict[str, Any]]) -> list[tuple[str, int, str, str, Any]]:
    by_step = {p.step: p for p in positions(rows)}
    other = digest({"something": "else"})
    r = by_step
    return [("other arguments for the refund", 4, "intent", "refund", other),
            ("another step name at the reference step", 3, "step", "ref", None),
            ("another prompt for the plan", 1, "decision", "plan", other),
            ("a tool call where a step is recorded", 2, "intent", "now", r[2].args_digest),
            ("a step where a tool call is recorded", 0, "step", "lookup_order", None),
            ("another tool at the e-mail's step", 6, "intent", "sms", r[6].args_digest)]


def check_divergence(lookup: LookupFn) -> list[str]:
    """[divergence] another call at a recorded step raises Divergence at that step, naming both
    calls; and a changed workflow replayed through the runtime fails before any tool runs."""
    out = []
    rows = journal_rows()
    by_step = {p.step: p for p in positions(rows)}
    for label, step, kind, name, args_digest in _diverging_requests(rows):
        got, exc = ask(lookup, rows, step, kind, name, args_digest)
        if not isinstance(exc, Divergence):
            out.append(f"[divergence] {label} (step {step}): lookup {describe_answer(got, exc)}"
                       ", not Divergence")
            continue
        try:
            at, rec, req = int(exc.step), str(exc.recorded), str(exc.requested)
        except Exception:
            out.append(f"[divergence] {label}: the Divergence's step/recorded/requested are "
                       "unreadable")
            continue
        if at != step:
            out.append(f"[divergence] {label}: Divergence says step {at}; the call was asked "
                       f"at step {step}")
        if by_step[step].name not in rec or name not in req:
            out.append(f"[divergence] {label}: recorded={rec!r} / requested={req!r} must name "
                       "the recorded call and the requested one")
    out += _changed_workflow(lookup)
    return out or check_lookup_properties(lookup, "divergence", _answer_is("divergence"))


def changed_refund_agent(ctx: Context, task: dict[str, Any]) -> dict[str, Any]:
    """The refund agent after an edit: it now refunds one cent more (step 4's arguments)."""
    order = ctx.call_tool("lookup_order", order_id=task["order_id"])
    plan = ctx.decide({"task": task, "order": order}, name="plan")
    ctx.now()
    ref = ctx.step("refund_ref", lambda: "rf_new")
    ctx.call_tool("refund", order_id=order["order_id"], amount_cents=plan["amount_cents"] + 1,
                  ref=ref)
    return {}


def _changed_workflow(lookup: LookupFn) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        wd = Path(tmp)
        ref = RefundScenario()
        ref.setup(wd)
        rt = ref.make_runtime(wd, faults=FaultPlan(crash_at="before_complete"),
                              clock_offset=0.0, worker_id="w-ref")
        run_id = ref.start(rt)
        try:
            rt.run(run_id)
        except SimulatedCrash:
            pass
        finally:
            rt.close()
        sc = LearnerScenario(lookup, workflow=changed_refund_agent)
        rt = sc.make_runtime(wd, faults=Faults(), clock_offset=3600.0, worker_id="w-learner")
        try:
            outcome = rt.resume(run_id)
        except Exception as exc:
            return [f"[divergence] replaying a changed workflow raised {type(exc).__name__}"]
        finally:
            rt.close()
        refunds = RefundWorld(wd).counts().get("refund", 0)
    err = outcome.error
    # the runtime parks a diverged run (WAITING, resumable after a rollback: issue 19)
    if outcome.state not in (RunState.FAILED, RunState.WAITING) \
            or not isinstance(err, NonDeterminism):
        return [f"[divergence] a workflow changed at step 4 replayed to {outcome.state.value} "
                f"({type(err).__name__ if err else 'no error'}), not to a NonDeterminism"]
    if err.step != 4 or refunds != 1:
        return [f"[divergence] a workflow changed at step 4 diverged at step {err.step} after "
                f"{refunds} refund execution(s)"]
    return []


def _sweep(lookup: LookupFn, points: Sequence[tuple[str, int]]) -> list[tuple[str, int, Any]]:
    out = []
    for point, n in points:
        try:
            verdict = crash_once(LearnerScenario(lookup), point, occurrence=n)
        except Exception as exc:
            out.append((point, n, f"the harness stopped: {type(exc).__name__}: {exc}"))
        else:
            out.append((point, n, verdict))
    return out


def crash_free(lookup: LookupFn) -> Any:
    """The learner's lookup on a crash-free run: the oracle's verdict (or an error string)."""
    sc = LearnerScenario(lookup)
    with tempfile.TemporaryDirectory() as tmp:
        wd = Path(tmp)
        sc.setup(wd)
        rt = sc.make_runtime(wd, faults=Faults(), clock_offset=0.0, worker_id="w-learner")
        try:
            rt.run(sc.start(rt))
            return sc.oracle(wd, rt, sc.run_id)
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
        finally:
            rt.close()


def check_not_rerun(lookup: LookupFn) -> list[str]:
    """[tool-not-rerun] crash at every boundary, resume through the learner's lookup: no tool
    executes again once its result is journaled, no recorded step is redrawn."""
    verdict = crash_free(lookup)
    if isinstance(verdict, str) or not verdict.ok:
        detail = verdict if isinstance(verdict, str) else verdict.detail
        return [f"[tool-not-rerun] the crash-free run did not finish cleanly: {detail}"]
    out = []
    for point, n, v in _sweep(lookup, BOUNDARIES):
        if isinstance(v, str) or v.outcome is Outcome.DUPLICATE:
            out.append(f"[tool-not-rerun] crash at {point} #{n}, then resume: "
                       f"{v if isinstance(v, str) else v.detail}")
    return out


def check_unresolved(lookup: LookupFn) -> list[str]:
    """[unresolved-intent] an intent without a result (notes or not) is UNRESOLVED, and the runs
    crashed in W2/W3/W4 of each tool end with every effect applied and the right result."""
    out = []
    cases = [("an intent with no result (crash in W2 of the refund)",
              journal_rows(("after_intent", 2))),
             ("an intent with a resend journaled but no result",
              journal_rows(("after_provider_commit", 2), ("after_provider_commit", 1)))]
    for label, rows in cases:
        pos = next(p for p in positions(rows) if not p.done)
        got, exc = ask(lookup, rows, pos.step, pos.kind, pos.name, pos.args_digest)
        if exc is not None or got is not UNRESOLVED:
            out.append(f"[unresolved-intent] {label}, step {pos.step}: lookup "
                       f"{describe_answer(got, exc)}")
    for point, n, v in _sweep(lookup, UNRESOLVED_POINTS):
        if isinstance(v, str) or v.outcome in (Outcome.LOST, Outcome.WRONG, Outcome.STUCK):
            out.append(f"[unresolved-intent] crash at {point} #{n}, then resume: "
                       f"{v if isinstance(v, str) else v.outcome.value + ': ' + v.detail}")
    return out or check_lookup_properties(lookup, "unresolved-intent",
                                          _answer_is("unresolved", "recorded"))


# -- predict, then run ------------------------------------------------------------------------

def observe_w3_refund() -> dict[str, int]:
    """Crash the reference run in W3 of the refund, recover, and count in the ledger."""
    with tempfile.TemporaryDirectory() as tmp:
        wd = Path(tmp)
        crash_once(RefundScenario(), "after_provider_commit", occurrence=2, workdir=wd)
        world = RefundWorld(wd)
        return {"refund_executions": world.counts().get("refund", 0),
                "refunds_applied": sum(1 for tool, _ in world.effects() if tool == "refund")}


def check_prediction(prediction: Any) -> list[str]:
    """[prediction] the learner's prediction matches what the run shows."""
    observed = observe_w3_refund()
    try:
        guess = {k: int(prediction[k]) for k in observed}
    except Exception:
        return [f"[prediction] prediction must be a dict with integer {sorted(observed)}"]
    wrong = sorted(k for k in observed if guess[k] != observed[k])
    if wrong:
        return [f"[prediction] the run does not show your {', '.join(wrong)}: run the cell after "
                "this one and count in the ledger"]
    return []
