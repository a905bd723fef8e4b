"""Racing first of N: start N tool calls, keep the first ``want`` that succeed, journal who won.

An agent that asks three mirrors for the same quote, or two search providers for the same
answer, wants whichever answers first. The winner is decided by *timing*, so it is exactly what
a replay cannot recompute: run the race again after a crash and another entrant may win, the
workflow takes another branch, and the journal no longer matches (lesson 07 shows it).

:func:`race` makes the winner a recorded fact. Positions: one per entrant (in list order), then
one **decision** (kind ``decision``, name ``race`` by default) whose output is the completion
order, the winners and every entrant's fate. Restate's combinators do the same: they "log the
order of completion" and replay it (``RestatePromise.any``, the first success, is this race;
``RestatePromise.race`` takes the first to settle, success or failure); Temporal's
``workflow.wait`` is a deterministic ``asyncio.wait`` (``FIRST_COMPLETED``) over its history.

How a race runs (first execution):

1. every entrant's intent is committed in ONE transaction (a ``wave`` event with them, as for a
   wave of :func:`minirt.scheduler.parallel`), before any is sent;
2. the entrants run as child threads owned by a :class:`~minirt.scheduler.ChildScope`; the
   parent journals each answer as it arrives (a result, or an answered error: a race does not
   retry an entrant, the other entrants are its retry);
3. as soon as the ``want``-th success is in hand the scope is cancelled (before that result is
   journaled, so a sibling that has not started its tool yet never does); the losers stop at
   their next cancellation point, and the race waits for every one of them (no orphan thread);
4. ONE write: a terminal record for every entrant that ended without an answer, and the
   decision. A loser the race cancelled is a **cancellation**, not an error: its record says
   ``"outcome": "cancelled"``, with ``cancelled_at`` (when the race cancelled the scope, the
   instant the ``want``-th success came in) and ``stopped_at`` (when the loser came back from
   its cancellation point); one whose answer was lost says ``"outcome": "unknown"``. The
   decision's payload holds ``cancelled_at`` too (None: the race cancelled nothing). A loser
   that answered before it saw the cancel keeps its journaled result (status ``finished``): its
   effect happened and is not lost.

The journal has no position-closing kind for a cancellation (``tool_result`` is a value,
``wait_result`` a wait; ``cancel_*`` are the run's own stages, with no position), so the record's
kind is ``tool_error`` and it still carries an error record (:class:`EntrantCancelled`,
:class:`EntrantUnknown`) for readers that know nothing of races; the race, its replay and
:func:`minirt.viz.scheduler.timeline` read the named ``outcome`` (:func:`recorded_fate`). A
journal written before these fields (main at a14dc0a) replays unchanged: its fates are read
from the error's type and its decision, and its bars end at the records' own times.

Invariant: after a race returns (or raises :class:`RaceLost`), every entrant's position holds a
terminal record (a result, an error, a cancellation or an unknown outcome) and the decision
position holds the winners; a replay returns the recorded winners and values and sends nothing.

Crash points: a crash before the decision is durable leaves intents and some outcomes; the
resumed race keeps every recorded outcome (in its journaled completion order, so a recorded
success still wins), resends each open intent with **the same effect key** (an ``attempt``
event; a keyed provider deduplicates), and decides. If the recorded successes already make the
winners, nothing is resent and the open intents are recorded as :class:`EntrantUnknown` (the
crashed worker may have sent them). A crash after the decision: replay returns the record.

Which calls may race: :data:`RACEABLE` effect classes only, pure and keyed-idempotent ones. A
race is *meant* to leave losers behind; an irreversible or compensatable loser may have done
its effect and nothing here undoes it, so such a race is refused (:class:`RaceInvalid`) before
anything is journaled. Entrants have no dependencies on each other (no ``Ref``, no ``after``).

Not guaranteed: that a loser did not reach its provider (cancellation is cooperative: a thread
cannot be killed, a child blocked outside a cancellation point is waited for, and its answer is
journaled); that an unknown loser is reconciled (the race records it as unknown with its effect
key and does not look it up or resend it once the race is won); that the fastest entrant wins
when the parent is slow (the winner is the first *journaled* success, in the order the parent
took the answers); the async runtime (:mod:`minirt.aio`) has no race yet.

``from minirt import race`` is always this module (as ``minirt.cancel`` is); the function is
``minirt.race.race``, also exported as ``minirt.race_calls``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import dispatch, steps
from .canonical import digest, normalise
from .errors import MinirtError, RecordedError, safe_str
from .journal import new_event
from .kinds import KIND
from .scheduler import Call, ChildScope, Ref, completion_order, names_of, run_child
from .tools import EffectClass, Tool, ToolCall

if TYPE_CHECKING:
    from .runtime import Context

#: The effect classes an entrant may have: a loser of these is harmless (pure) or deduplicated
#: by its effect key if anyone sends it again (keyed-idempotent).
RACEABLE = (EffectClass.PURE, EffectClass.KEYED)

#: An entrant's fate, as the decision records it.
WON, FINISHED, FAILED, CANCELLED, UNKNOWN = "won", "finished", "failed", "cancelled", "unknown"


class RaceInvalid(MinirtError):
    """A race that may not run: refused before anything of it is journaled or sent."""

    fields = ("reason",)
    template = "invalid race: {reason}"


class RaceLost(MinirtError):
    """Fewer than ``want`` entrants succeeded. Recorded: a replay raises it again."""

    fields = ("want", "succeeded", "outcomes")
    template = "the race wanted {want} success(es) and got {succeeded}: {outcomes}"


class EntrantCancelled(MinirtError):
    """The terminal record of a loser that stopped at a cancellation point before answering."""

    fields = ("tool", "effect_key")
    template = "{tool} ({effect_key}) lost the race and was cancelled before it answered"


class EntrantUnknown(MinirtError):
    """The terminal record of a loser whose answer never came: its effect may have happened
    (the effect key is here for an operator or a provider lookup)."""

    fields = ("tool", "effect_key", "reason")
    template = "{tool} ({effect_key}) lost the race with an unknown outcome: {reason}"


_FATE_OF_ERROR = {"EntrantCancelled": CANCELLED, "EntrantUnknown": UNKNOWN}


@dataclass(frozen=True)
class Raced:
    """What :func:`race` returns: the winners (in completion order) and every entrant's fate."""

    winners: tuple[str, ...]  # entrant names, first success first
    values: tuple[Any, ...]  # the winners' results, same order
    order: tuple[str, ...]  # every entrant that answered, in the order its answer was journaled
    outcomes: Mapping[str, str]  # name -> won | finished | failed | cancelled | unknown
    replayed: bool  # a fact: this came from a recorded decision; nothing was sent

    @property
    def value(self) -> Any:
        """The first winner's result."""
        return self.values[0]


def race(ctx: Context, calls: Sequence[Call], *, want: int = 1, name: str = "race") -> Raced:
    """Race ``calls``; return the first ``want`` successes, journaled (see the module docstring).

    Raises :class:`RaceInvalid` (bad input, before anything is journaled) or :class:`RaceLost`
    (fewer than ``want`` successes; recorded, raised again on replay)."""
    calls = list(calls)
    tools = _check(ctx, calls, want)
    names = names_of(calls)
    args = [normalise(dict(c.args)) for c in calls]
    digests = [digest(a) for a in args]
    slots = [ctx.claim_position() for _ in calls]  # the entrants' positions, in list order
    dp, dpos = ctx.claim_position()  # the decision's
    prompt_digest = digest({"race": names, "want": int(want),
                            "calls": [[t.name, d] for t, d in zip(tools, digests, strict=True)]})
    for (p, pos), tool, d in zip(slots, tools, digests, strict=True):
        if pos is not None:
            _check_recorded(ctx, p, pos, tool, d)
    if dpos is not None:
        return _replay(ctx, dp, dpos, name, prompt_digest, names, slots, tools)
    return _Race(ctx, calls, tools, names, args, digests, slots, int(want)).run(
        dp, name, prompt_digest)


def _check(ctx: Context, calls: list[Call], want: int) -> list[Tool]:
    if not calls:
        raise RaceInvalid(reason="a race needs at least one call")
    if isinstance(want, bool) or not isinstance(want, int) or not 1 <= want <= len(calls):
        raise RaceInvalid(reason=f"want must be a whole number from 1 to {len(calls)}, "
                                 f"not {want!r}")
    tools = []
    for i, c in enumerate(calls):
        if not isinstance(c, Call):
            raise RaceInvalid(reason=f"entrant {i} is {type(c).__name__}, not a Call")
        if not isinstance(c.args, Mapping):
            raise RaceInvalid(reason=f"entrant {i} ({c.tool}) has {type(c.args).__name__} "
                                     "arguments, not a mapping")
        if list(c.after) or _has_ref(c.args):
            raise RaceInvalid(reason=f"entrant {i} ({c.tool}) depends on another call; "
                                     "entrants of a race are independent")
        tool = ctx.runtime.tool(c.tool)
        if tool.effect not in RACEABLE:
            raise RaceInvalid(reason=f"{c.tool} is {tool.effect.value}: a loser may already have "
                                     "done its effect and nothing would undo it; race pure or "
                                     "keyed-idempotent calls only")
        tools.append(tool)
    if len(set(names_of(calls))) != len(calls):
        raise RaceInvalid(reason="two entrants have the same name")
    return tools


def _has_ref(value: Any) -> bool:
    if isinstance(value, Ref):
        return True
    if isinstance(value, Mapping):
        return any(_has_ref(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_ref(v) for v in value)
    return False


def _check_recorded(ctx: Context, p: int, pos: Any, tool: Tool, raw_digest: str) -> None:
    """A recorded entrant position must hold this tool with these arguments."""
    opening = pos.opening
    rec = ctx.journal.payload(opening) if opening is not None else {}
    if (opening is None or opening.kind not in (KIND.INTENT, KIND.TOOL_REJECTED)
            or rec.get("tool") != tool.name or rec.get("args_digest") != raw_digest):
        raise ctx.diverged(p, opening, f"tool {tool.name!r} with args digest {raw_digest[:19]}")


def _replay(ctx: Context, dp: int, dpos: Any, name: str, prompt_digest: str, names: list[str],
            slots: list[tuple[int, Any]], tools: list[Tool]) -> Raced:
    """A recorded decision: the same winners and values, nothing sent."""
    out = steps.replay_decision(ctx, dp, dpos, name, prompt_digest)
    index = {n: i for i, n in enumerate(names)}
    for (p, pos), tool in zip(slots, tools, strict=True):
        if pos is None or pos.outcome is None:  # the decision is written after every record
            raise ctx.diverged(p, None if pos is None else pos.opening,
                               f"a terminal record of race entrant {tool.name!r}")
        ctx.positioned(p, "tool", tool.name, True)
    winners = tuple(out["winners"])
    values = tuple(ctx.journal.payload(slots[index[w]][1].outcome)["value"] for w in winners)
    raced = Raced(winners, values, tuple(out["order"]), dict(out["outcomes"]), True)
    if len(winners) < int(out["want"]):
        raise _lost(int(out["want"]), raced)
    return raced


def _lost(want: int, raced: Raced) -> RaceLost:
    return RaceLost(want=want, succeeded=len(raced.winners),
                    outcomes=", ".join(f"{n}: {f}" for n, f in raced.outcomes.items()))


class _Race:
    """The parent's bookkeeping for one race. Only this (parent) thread writes the journal."""

    def __init__(self, ctx: Context, calls: list[Call], tools: list[Tool], names: list[str],
                 args: list[Any], digests: list[str], slots: list[tuple[int, Any]],
                 want: int) -> None:
        self.ctx, self.calls, self.tools, self.names = ctx, calls, tools, names
        self.args, self.digests, self.slots, self.want = args, digests, slots, want
        self.fate: dict[int, str] = {}  # entrant index -> fate, once known
        self.open: dict[int, ToolCall] = {}  # intents without a terminal record (index -> call)
        self.why: dict[int, str] = {}  # unknown entrants: why
        self.winners: list[int] = []
        self.values: dict[int, Any] = {}
        self.cancelled_at: float | None = None  # when the race cancelled its scope
        self.stopped_at: dict[int, float] = {}  # cancelled entrants: when each came back

    def run(self, dp: int, name: str, prompt_digest: str) -> Raced:
        ctx = self.ctx
        steps_of = {p: i for i, (p, _) in enumerate(self.slots)}
        self._recorded()
        for p in completion_order(ctx, steps_of):  # recorded successes win in their seq order
            i = steps_of[p]
            if self.fate.get(i) == FINISHED and len(self.winners) < self.want:
                self.fate[i] = WON
                self.winners.append(i)
        if len(self.winners) < self.want:
            self._run_children(self._commit())
        for i in self.open:  # ended without an answer: cancelled or unknown
            self.fate.setdefault(i, UNKNOWN)
            if self.fate[i] == UNKNOWN:
                self.why.setdefault(i, "sent by a crashed worker; the race was already won")
        return self._decide(dp, name, prompt_digest)

    # -- what the journal already holds (a resumed race) ---------------------------------------

    def _recorded(self) -> None:
        for i, (_, pos) in enumerate(self.slots):
            if pos is None:
                continue
            if pos.opening.kind == KIND.TOOL_REJECTED:
                self.fate[i] = FAILED
            elif pos.outcome is not None and pos.outcome.kind == KIND.TOOL_RESULT:
                self.fate[i] = FINISHED  # a success; whether it won is decided by the order
                self.values[i] = self.ctx.journal.payload(pos.outcome)["value"]
            elif pos.outcome is not None:
                self.fate[i] = recorded_fate(self.ctx.journal.payload(pos.outcome))
            else:  # an intent without an outcome: resent with its key, or recorded as unknown
                self.open[i] = dispatch.recorded_call(self.ctx, pos, self.tools[i])

    # -- one transaction: the wave, every fresh intent, every refusal, every resend ------------

    def _commit(self) -> list[tuple[int, ToolCall]]:
        ctx, rt = self.ctx, self.ctx.runtime
        fresh: list[tuple[int, ToolCall]] = []
        refusals = []
        staged: dict[str, str | None] = {}
        for i, (p, pos) in enumerate(self.slots):
            if pos is not None:
                continue
            try:
                call, kv = dispatch.prepare(ctx, self.tools[i], p, self.args[i])
            except MinirtError as exc:
                refusals.append(dispatch.rejection(ctx, p, self.tools[i].name,
                                                   self.digests[i], exc))
                self.fate[i] = FAILED
                continue
            staged.update(kv)
            fresh.append((i, call))
        resends = []
        for i, call in sorted(self.open.items()):
            resend = dispatch.resend_of(ctx, call, call.attempt + 1)
            for hook in rt.hooks:
                hook.before_redispatch(ctx, self.tools[i], resend)
            resends.append((i, resend))
        if not fresh and not resends and not refusals:
            return []
        for _, call in fresh:
            rt.faults.hit("before_intent", step=call.step, tool=call.tool)
        checks = dispatch.has_commit_checks(ctx)
        sent: list[tuple[int, ToolCall]] = []
        with rt.store.transaction():
            now = ctx.now_raw()
            events = [new_event(rt.store, KIND.WAVE, None,
                                {"fanout": self.slots[0][0], "wave": 0, "race": True,
                                 "steps": sorted(self.slots[i][0] for i, _ in fresh + resends)},
                                now)]
            for i, call in fresh:
                try:
                    if checks:
                        dispatch.check_at_commit(ctx, self.tools[i], call)
                except dispatch.CommitRefused as refused:
                    refusals.append(dispatch.rejection(ctx, call.step, call.tool,
                                                       self.digests[i], refused.error))
                    self.fate[i] = FAILED
                    continue
                events.append(dispatch.intent_event(ctx, self.tools[i], call, self.digests[i]))
                sent.append((i, call))
            for i, call in resends:
                events.append(new_event(rt.store, KIND.ATTEMPT, call.step,
                                        {"effect_key": call.effect_key, "attempt": call.attempt,
                                         "race": True}, now))
                self.open.pop(i)
                sent.append((i, call))
            ctx.append(*events, *refusals, kv=staged or None)
            rt.faults.hit("inside_commit", step=self.slots[0][0], tool="race")
        for _, call in sent:
            rt.faults.hit("after_intent", step=call.step, tool=call.tool)
        return sent

    # -- the children --------------------------------------------------------------------------

    def _run_children(self, sent: list[tuple[int, ToolCall]]) -> None:
        if not sent:
            return
        ctx = self.ctx
        scope = ChildScope()
        running = ctx.children_in_flight
        with ThreadPoolExecutor(max_workers=len(sent), thread_name_prefix="minirt-race") as pool:
            running.update(call.step for _, call in sent)
            owned: dict[Future[tuple[str, Any]], tuple[int, ToolCall]] = {
                pool.submit(run_child, scope, self.tools[i], call): (i, call) for i, call in sent}
            try:
                pending = set(owned)
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in sorted(done, key=lambda f: owned[f][1].step):
                        i, call = owned[fut]
                        kind, value = fut.result()
                        running.discard(call.step)
                        self._answer(scope, i, call, kind, value)
            except BaseException:
                scope.cancel()  # a crash: children at a cancellation point stop; the pool joins
                raise
            finally:
                running.difference_update(call.step for _, call in sent)

    def _answer(self, scope: ChildScope, i: int, call: ToolCall, kind: str, value: Any) -> None:
        """Journal one entrant's answer as it arrives (or keep it for the final write)."""
        ctx, tool, faults = self.ctx, self.tools[i], self.ctx.runtime.faults
        if kind == "cancelled":
            self.fate[i], self.open[i] = CANCELLED, call
            self.stopped_at[i] = ctx.now_raw()
            return
        if dispatch.is_unknown(tool, kind, value):
            self.fate[i], self.open[i] = UNKNOWN, call
            self.why[i] = dispatch.why_unknown(kind, value)
            return
        if kind == dispatch.VALUE:
            won = len(self.winners) < self.want
            if won and len(self.winners) + 1 == self.want:
                self.cancelled_at = ctx.now_raw()
                scope.cancel()  # before the winner's result is journaled: no sibling starts now
            self.values[i] = dispatch.settle(ctx, tool, call, kind, value)
            self.fate[i] = WON if won else FINISHED
            if won:
                self.winners.append(i)
            return
        err = value if kind == dispatch.ERROR else RecordedError(
            type_name=type(value).__name__, detail=safe_str(value))
        faults.hit("after_provider_commit", step=call.step, tool=call.tool)
        faults.hit("before_result", step=call.step, tool=call.tool)
        try:  # no retry inside a race: the other entrants are its retry
            dispatch.record_outcome(ctx, call, KIND.TOOL_ERROR,
                                    {"effect_key": call.effect_key, "error": err.to_record()}, err)
        except MinirtError:
            pass
        self.fate[i] = FAILED

    # -- ONE write: the open entrants' terminal records and the decision -----------------------

    def _decide(self, dp: int, name: str, prompt_digest: str) -> Raced:
        ctx, rt = self.ctx, self.ctx.runtime
        events = []
        now = ctx.now_raw()
        for i, call in sorted(self.open.items()):
            record: dict[str, Any] = {"effect_key": call.effect_key}
            if self.fate[i] == CANCELLED:
                record.update(outcome=CANCELLED, cancelled_at=self.cancelled_at,
                              stopped_at=self.stopped_at.get(i))
                err: MinirtError = EntrantCancelled(tool=call.tool, effect_key=call.effect_key)
            else:
                record["outcome"] = UNKNOWN
                err = EntrantUnknown(tool=call.tool, effect_key=call.effect_key,
                                     reason=self.why.get(i, "no answer"))
            record["error"] = err.to_record()  # for readers that know nothing of races
            events.append(new_event(rt.store, KIND.TOOL_ERROR, call.step, record, now))
        steps_of = {p: i for i, (p, _) in enumerate(self.slots)}
        answered = [self.names[steps_of[p]] for p in completion_order(ctx, steps_of)]
        outcomes = {self.names[i]: self.fate.get(i, UNKNOWN) for i in range(len(self.names))}
        output = normalise({"winners": [self.names[i] for i in self.winners],
                            "order": answered, "outcomes": outcomes, "want": self.want})
        events.append(new_event(rt.store, KIND.DECISION, dp,
                                {"name": name, "prompt_digest": prompt_digest, "output": output,
                                 "cancelled_at": self.cancelled_at}, now))
        rt.faults.hit("before_decision_record", step=dp)
        ctx.append(*events)
        rt.faults.hit("after_decision_record", step=dp)
        for _, call in sorted(self.open.items()):
            ctx.positioned(call.step, "tool", call.tool, False)
        ctx.positioned(dp, "decision", name, False)
        raced = Raced(tuple(output["winners"]), tuple(self.values[i] for i in self.winners),
                      tuple(answered), dict(outcomes), False)
        if len(self.winners) < self.want:
            raise _lost(self.want, raced)
        return raced


def recorded_fate(record: Mapping[str, Any]) -> str:
    """The fate an entrant's recorded ``tool_error`` stands for (cancelled, unknown, failed).

    ``record`` is the outcome's payload: its named ``outcome`` when it has one, else (a journal
    written before it had one) the type of its error record. An error record on its own (what
    this function took before) is read the same way."""
    if record.get("outcome") in (CANCELLED, UNKNOWN):
        return str(record["outcome"])
    err = record.get("error", record)
    return _FATE_OF_ERROR.get(str(err.get("type")) if isinstance(err, Mapping) else "", FAILED)


#: ``race`` under a name that is not its module's: ``from minirt import race_calls``.
race_calls = race

__all__ = ["CANCELLED", "FAILED", "FINISHED", "RACEABLE", "UNKNOWN", "WON", "EntrantCancelled",
           "EntrantUnknown", "RaceInvalid", "RaceLost", "Raced", "race", "race_calls",
           "recorded_fate"]
