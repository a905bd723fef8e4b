"""Hidden-test logic for drill 05 (effect commit and compensation). Course tooling, not core.

The learner writes two functions: ``compensation_key(forward_key, tool)`` and the compensation
planner ``plan(effects, lookup)`` (the job of :func:`minirt.effects.plan_compensations`). Each
``check_*`` returns a list of failure messages (empty = the property holds); a message starts with
the property's name in brackets and never states the expected answer. Learner code is never
trusted: every call is wrapped (an exception becomes a message), every returned action is rebuilt
into a fresh :class:`~minirt.effects.PlannedAction` and compared by value, and the expected plans
come from :func:`minirt.effects.plan_compensations`, imported here.

:func:`check_crash_drill` plugs both functions into the module's saga
(:mod:`minirt_course.scenarios.m05_saga`) and crashes it at every boundary of every variant.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from minirt.canonical import canonical_json
from minirt.effects import Action, EffectStatus, ForwardEffect, plan_compensations
from minirt.faults import boundaries, crash_once
from minirt.tools import Lookup, OutcomeUnknown
from minirt.world.ledger import Ledger

from ..scenarios.m05_saga import VARIANTS, operator_aborts, scratch_dir
from .differential import falsify, plain_equal

#: The only names of this module the learner's answer and plain cells may use (the out-of-kernel
#: run refuses the others). ``observe_money`` (the prediction's answer) is not one of them.
LEARNER_API = ("fx", "actions", "Provider", "TOOLS", "MONEY", "PREDICTION_POINTS")

PlanFn = Callable[[Sequence[ForwardEffect], Callable[[ForwardEffect], Lookup]], Any]
KeyFn = Callable[[str, str], Any]
TOOLS = (("charge", "refund"), ("book", "cancel_booking"), ("send_email", None),
         ("hold_seat", "release_seat"), ("notify_sms", None))
SEEDS = (3, 11, 29, 101)
PREDICTION_POINTS = ("after_intent", "after_provider_commit")
MONEY = ("never charged", "refunded", "charged, not refunded")


class LearnerAnswerInvalid(Exception):
    """What the learner's planner returned cannot be read as a plan (internal to grading)."""


# -- building inputs and reading answers -------------------------------------------------------

def fx(step: int, tool: str, status: str, compensation: str | None = None,
       receipt: Any = None) -> ForwardEffect:
    """A forward effect for a test case (``status`` as the EffectStatus value, e.g. "unknown")."""
    st = EffectStatus(status)
    if st is EffectStatus.RECEIPTED and receipt is None:
        receipt = {"id": f"r{step}"}
    return ForwardEffect(step, tool, f"ek_{step:032d}", st, compensation,
                         receipt if st is EffectStatus.RECEIPTED else None,
                         1_700_000_000.0 + step if st is EffectStatus.RECEIPTED else None)


class Provider:
    """A lookup that answers from ``answers`` (effect_key -> "found" | "missing" | "down") and
    remembers who asked."""

    def __init__(self, answers: dict[str, str] | None = None) -> None:
        self.answers = dict(answers or {})
        self.asked: list[str] = []

    def __call__(self, effect: ForwardEffect) -> Lookup:
        key = str(effect.effect_key)
        self.asked.append(key)
        answer = self.answers.get(key, "missing")
        if answer == "down":
            raise OutcomeUnknown(tool=str(effect.tool), effect_key=key, reason="provider down")
        if answer == "found":
            return Lookup(True, {"found": key})
        return Lookup(False, detail="no effect under this key")


def _repr(value: Any) -> str:
    try:
        return repr(value)[:80]
    except Exception:
        return f"<{type(value).__name__}>"


def rebuild(answer: Any, effects: Sequence[ForwardEffect]) -> list[tuple[int, Action, str]]:
    """``[(step, action, canonical receipt)]`` from the learner's plan, or LearnerAnswerInvalid."""
    steps = {e.step for e in effects}
    out = []
    try:
        items = list(answer)
    except Exception:
        raise LearnerAnswerInvalid(f"the plan is {_repr(answer)}, not a list") from None
    for item in items:
        try:
            action = Action(str(getattr(item.action, "value", item.action)))
            step = int(item.effect.step)
            receipt = canonical_json(item.effect.receipt)
        except Exception:
            raise LearnerAnswerInvalid(f"{_repr(item)} is not a PlannedAction") from None
        if step not in steps:
            raise LearnerAnswerInvalid(f"the plan names step {step}, which is not an input")
        out.append((step, action, receipt))
    return out


def _expected(effects: Sequence[ForwardEffect], answers: dict[str, str]
              ) -> list[tuple[int, Action, str]]:
    plan = plan_compensations(effects, Provider(answers))
    return [(p.effect.step, p.action, canonical_json(p.effect.receipt)) for p in plan]


def actions(plan: PlanFn, effects: Sequence[ForwardEffect],
            answers: dict[str, str] | None = None) -> list[tuple[int, str]]:
    """``[(step, action value)]`` of the learner's plan, for visible tests (raises what the
    learner's code raises, so an unfinished answer says NotImplementedError)."""
    return [(s, a.value) for s, a, _ in rebuild(plan(list(effects), Provider(answers)), effects)]


def _compare(prop: str, plan: PlanFn, effects: list[ForwardEffect], answers: dict[str, str],
             *, receipts: bool = False) -> str | None:
    provider = Provider(answers)
    try:
        got = rebuild(plan(list(effects), provider), effects)
    except LearnerAnswerInvalid as exc:
        return f"[{prop}] {exc}"
    except Exception as exc:
        return f"[{prop}] the planner raised {type(exc).__name__}: {exc}"
    want = _expected(effects, answers)
    case = ", ".join(f"{e.step}:{e.tool}={e.status.value}" for e in effects)
    if sorted(s for s, _, _ in got) != sorted(s for s, _, _ in want):
        return f"[{prop}] for effects ({case}) the plan does not list every effect exactly once"
    mine = {s: (a, r) for s, a, r in got}
    for step, action, receipt in want:
        if mine[step][0] is not action:
            e = next(x for x in effects if x.step == step)
            return (f"[{prop}] for effects ({case}) step {step} ({e.tool}, {e.status.value}) "
                    f"was planned as {mine[step][0].value!r}")
        if receipts and action is Action.COMPENSATE and mine[step][1] != receipt:
            return (f"[{prop}] for effects ({case}) the compensation of step {step} does not "
                    f"carry the receipt the provider gave")
    if [s for s, _, _ in got] != [s for s, _, _ in want]:
        return f"[{prop}] for effects ({case}) the plan is not in reverse step order"
    return None


def _random_cases(statuses: Sequence[str], seeds: Sequence[int], *, compensable: bool | None,
                  answers: Sequence[str] = ("found", "missing", "down")
                  ) -> list[tuple[list[ForwardEffect], dict[str, str]]]:
    cases = []
    for seed in seeds:
        rng = random.Random(seed)
        effects, ans = [], {}
        for step in range(rng.randint(2, 5)):
            tool, comp = rng.choice(TOOLS)
            if compensable is not None:
                comp = (comp or "undo_" + tool) if compensable else None
            e = fx(step, tool, rng.choice(list(statuses)), comp)
            effects.append(e)
            ans[str(e.effect_key)] = rng.choice(list(answers))
        cases.append((effects, ans))
    return cases


# -- the plan, differentially: generated effect sets against minirt.effects.plan_compensations ----

_receipts = st.one_of(st.none(), st.fixed_dictionaries(
    {"id": st.sampled_from(["r1", "r2"]), "lines": st.lists(st.fixed_dictionaries(
        {"sku": st.sampled_from(["a", "b"]), "qty": st.integers(1, 2)}), max_size=2)}))


@st.composite
def effect_sets(draw: Any, statuses: tuple[str, ...], compensable: bool | None
                ) -> tuple[list[ForwardEffect], dict[str, str]]:
    """2..5 forward effects with distinct steps in any order (gaps allowed), nested receipts and
    args, and the provider's answer for each (found, missing or down)."""
    steps = draw(st.lists(st.integers(0, 7), min_size=1, max_size=5, unique=True))
    effects, answers = [], {}
    for step in steps:
        tool, comp = draw(st.sampled_from(TOOLS))
        if compensable is not None:
            comp = (comp or "undo_" + tool) if compensable else None
        status = EffectStatus(draw(st.sampled_from(statuses)))
        receipt = draw(_receipts) if status is EffectStatus.RECEIPTED else None
        if status is EffectStatus.RECEIPTED and receipt is None:
            receipt = {"id": f"r{step}"}
        e = ForwardEffect(step, tool, f"ek_{step:032d}", status, comp, receipt,
                          1_700_000_000.0 + step if receipt is not None else None,
                          {"order": "o-1", "items": [{"sku": "a", "qty": step}]})
        effects.append(e)
        answers[str(e.effect_key)] = draw(st.sampled_from(["found", "missing", "down"]))
    return effects, answers


def _effect_fields(e: Any) -> dict[str, Any]:
    out = {}
    for name in ("step", "tool", "effect_key", "status", "compensation", "receipt", "args"):
        value = getattr(e, name, "<missing>")
        out[name] = getattr(value, "value", value) if name == "status" else value
    return out


def _plan_property(plan: PlanFn) -> Callable[[tuple[list[ForwardEffect], dict[str, str]]],
                                              str | None]:
    def prop(case: tuple[list[ForwardEffect], dict[str, str]]) -> str | None:
        effects, answers = case
        given = list(effects)
        before = copy.deepcopy(given)
        provider = Provider(answers)
        try:
            got = list(plan(given, provider))
        except Exception as exc:  # learner code
            return f"the planner raised {type(exc).__name__}: {exc}"
        if given != before or [_effect_fields(e) for e in given] != \
                [_effect_fields(e) for e in before]:
            return "the planner changed the list of effects it was given (sorted it in place?)"
        unknown = [str(e.effect_key) for e in effects if e.status is EffectStatus.UNKNOWN]
        if any(k not in provider.asked for k in unknown):
            return "an effect with an unknown outcome was decided without asking its provider"
        want = plan_compensations(copy.deepcopy(effects), Provider(answers))
        if len(got) != len(want):
            return f"the plan has {len(got)} entries for {len(want)} effects"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            action = getattr(getattr(g, "action", None), "value", getattr(g, "action", None))
            if not plain_equal(action, w.action.value):
                return (f"entry {i} (step {w.effect.step}) is {action!r}, expected "
                        f"{w.action.value!r} (last step first)")
            mine, ref = _effect_fields(getattr(g, "effect", None)), _effect_fields(w.effect)
            for name, value in ref.items():
                if not plain_equal(mine[name], value):
                    return (f"entry {i} (step {w.effect.step}): its effect's {name} is "
                            f"{_repr(mine[name])}, expected {_repr(value)} (the effect as the "
                            "plan settled it)")
        return None
    return prop


def _show_effects(case: tuple[list[ForwardEffect], dict[str, str]]) -> str:
    effects, answers = case
    return "; ".join(f"step {e.step} {e.tool} {e.status.value} comp={e.compensation} "
                     f"provider={answers[str(e.effect_key)]}" for e in effects)


def check_plan_properties(plan: PlanFn, prop: str, statuses: tuple[str, ...],
                          compensable: bool | None) -> list[str]:
    """[prop] differential against minirt's planner on generated effect sets: every entry's
    action and every field of its settled effect, last step first, inputs untouched, each unknown
    outcome looked up. ``[]`` or one message with the shrunk counterexample."""
    return falsify(prop, effect_sets(statuses, compensable), _plan_property(plan),
                   max_examples=80, show=_show_effects)


def check_key_properties(key: KeyFn) -> list[str]:
    """[key-stable] differential: over generated pairs of (forward key, tool), including keys
    that share a prefix with the tool name, the keys are equal exactly when the pairs are."""
    parts = st.sampled_from(["ek_1", "ek_1r", "ek_" + "a" * 32, "", "refund", "r"])
    tools = st.sampled_from(["refund", "efund", "cancel_booking", "r", ""])
    pairs = st.tuples(st.tuples(parts, tools), st.tuples(parts, tools))

    def prop(pair: tuple[tuple[str, str], tuple[str, str]]) -> str | None:
        (fa, ta), (fb, tb) = pair
        try:
            ka, kb = str(key(fa, ta)), str(key(fb, tb))
        except Exception as exc:  # learner code
            return f"compensation_key raised {type(exc).__name__}: {exc}"
        if (fa, ta) == (fb, tb) and ka != kb:
            return "the same forward key and tool gave two different keys"
        if (fa, ta) != (fb, tb) and ka == kb:
            return "two different (forward key, tool) pairs gave the same key"
        return None

    return falsify("key-stable", pairs, prop, max_examples=80,
                   examples=[(("ek_1", "refund"), ("ek_1r", "efund"))])


# -- the properties -----------------------------------------------------------------------------

def check_key(key: KeyFn, hidden: bool = False) -> list[str]:
    """[key-stable] a function of the forward key and the tool only: the same inputs give the
    same key (called again, in another order), other inputs give another key, never the forward
    key itself, a string of at most 255 characters (a provider's key limit), also for a forward
    key of 253 characters."""
    pairs = [(f"ek_{i:032x}", tool) for i in range(4 if hidden else 2)
             for tool in ("refund", "cancel_booking")]
    if hidden:  # a forward key near the limit: the compensation key must still fit in 255
        pairs += [("ek_" + "f" * 250, tool) for tool in ("refund", "cancel_booking")]
    try:
        first = [str(key(k, t)) for k, t in pairs]
        again = [str(key(k, t)) for k, t in reversed(pairs)][::-1]
    except Exception as exc:
        return [f"[key-stable] compensation_key raised {type(exc).__name__}: {exc}"]
    if first != again:
        return ["[key-stable] the same forward key and tool gave two different keys"]
    if len(set(first)) != len(first):
        return ["[key-stable] two different (forward key, tool) pairs gave the same key"]
    for (k, _), ck in zip(pairs, first, strict=True):
        if ck == k:
            return ["[key-stable] a compensation reuses its forward effect's key"]
        if not 0 < len(ck) <= 255:
            return [f"[key-stable] a key of {len(ck)} characters does not fit a provider"]
    return check_key_properties(key) if hidden else []


def check_only_receipts(plan: PlanFn, hidden: bool = False) -> list[str]:
    """[only-receipts] what has a receipt is compensated; what was refused, never sent or never
    happened is not; last step first."""
    statuses = ("receipted", "declined", "never sent", "never happened")
    cases = _random_cases(statuses, SEEDS if hidden else SEEDS[:1], compensable=True)
    return [m for effects, ans in cases
            if (m := _compare("only-receipts", plan, effects, ans))][:1] or (
        check_plan_properties(plan, "only-receipts", statuses, True) if hidden else [])


def check_unknown_first(plan: PlanFn, hidden: bool = False) -> list[str]:
    """[unknown-reconciled-first] every unknown effect is looked up before a decision; found ->
    compensated with the found receipt; not found -> not compensated; no answer -> unresolved."""
    cases = _random_cases(("unknown", "receipted"), SEEDS if hidden else SEEDS[:1],
                          compensable=True)
    for effects, ans in cases:
        provider = Provider(ans)
        try:
            plan(list(effects), provider)
        except Exception as exc:
            return [f"[unknown-reconciled-first] the planner raised {type(exc).__name__}: {exc}"]
        unknown = {str(e.effect_key) for e in effects if e.status is EffectStatus.UNKNOWN}
        if not unknown <= set(provider.asked):
            return ["[unknown-reconciled-first] an effect with an unknown outcome was decided "
                    "without asking its provider"]
        msg = _compare("unknown-reconciled-first", plan, effects, ans, receipts=True)
        if msg:
            return [msg]
    if hidden:
        return check_plan_properties(plan, "unknown-reconciled-first",
                                     ("unknown", "receipted"), True)
    return []


def check_not_compensable(plan: PlanFn, hidden: bool = False) -> list[str]:
    """[not-compensable-reported] an effect without a compensation that happened (or may have)
    is planned as not compensable, never dropped; one that never happened is skipped."""
    statuses = ("receipted", "unknown", "declined", "never sent")
    cases = _random_cases(statuses, SEEDS if hidden else SEEDS[:1], compensable=None)
    return [m for effects, ans in cases
            if (m := _compare("not-compensable-reported", plan, effects, ans))][:1] or (
        check_plan_properties(plan, "not-compensable-reported", statuses, None) if hidden
        else [])


def check_crash_drill(plan: PlanFn, key: KeyFn) -> list[str]:
    """[crash-drill] the order saga with the learner's planner and key, crashed at every
    boundary of every variant (simulated crashes), judged by the providers' ledgers."""
    for variant in VARIANTS:
        learner = replace(variant, planner=plan, key=key)
        with scratch_dir() as tmp:  # the reference's boundaries: a broken answer cannot
            points = boundaries(variant, Path(tmp))  # shrink the list
        for point, n in points:
            with scratch_dir() as tmp:
                verdict = crash_once(learner, point, occurrence=n, workdir=Path(tmp))
            if not verdict.ok:
                return [f"[crash-drill] {variant.name}: crash at {point} (#{n}): "
                        f"{verdict.outcome.value}: {verdict.detail}"]
    return []


def observe_money(point: str) -> str:
    """Crash the operator-aborts variant at ``point`` of the charge, recover, read the ledger."""
    with scratch_dir() as tmp:
        crash_once(operator_aborts, point, occurrence=1, workdir=Path(tmp))
        ledger = Ledger(Path(tmp) / "payments.sqlite")
        try:
            charges, refunds = len(ledger.effects("charge")), len(ledger.effects("refund"))
        finally:
            ledger.close()
    if charges == 0:
        return MONEY[0]
    return MONEY[1] if refunds == charges else MONEY[2]


def check_prediction(prediction: Any) -> list[str]:
    """[predict-then-run] the learner's prediction for each point matches the run."""
    try:
        pred = {str(k): str(v) for k, v in dict(prediction).items()}
    except Exception:
        return ["[predict-then-run] prediction must be a dict"]
    if set(pred) != set(PREDICTION_POINTS) or not set(pred.values()) <= set(MONEY):
        return [f"[predict-then-run] prediction needs the keys {list(PREDICTION_POINTS)} with "
                f"values among {list(MONEY)}"]
    for point in PREDICTION_POINTS:
        if observe_money(point) != pred[point]:
            return [f"[predict-then-run] the run disagrees with your prediction for {point}"]
    return []
