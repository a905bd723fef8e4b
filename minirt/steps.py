"""The pure halves of a step and of a decision: replay what is recorded, record what is fresh.

``Context.step`` / ``Context.decide`` (synchronous, :mod:`minirt.runtime`) and their ``async``
twins (:mod:`minirt.aio.context`) differ only in how they wait for the work in between (a call,
or an ``await``). Everything else is here, once: checking a recorded position against what the
code asks for now (:func:`replay_step`, :func:`replay_decision`), and journaling a fresh outcome
with its fault points (:func:`record_step`, :func:`record_decision`), and the opening half of a decision (claim,
replay, the ``before_decision`` hooks: :func:`open_decision`). :func:`safe_digest` is the
identity of a tool call's arguments as the code passed them (:func:`args_identity` with the
text it hashed).

Invariant: a position is matched by its kind and name (and a decision by its prompt's digest
too), so replay raises :class:`~minirt.journal.NonDeterminism` instead of returning another
position's value; the fault points are hit in the order ``before_*_record``, write,
``after_*_record`` on every path.

Guarantees: a recorded step error is raised again as the recorded error; the hooks'
``on_position`` runs once per completed position, fresh or replayed. Not guaranteed: that the
work between claim and record ran only once (a crash before the record runs it again: that is
what the record is for).

May import: canonical, errors, journal, kinds. Not runtime (it receives a context).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .canonical import bounded_repr, canonical_json, digest, digest_text, flat_json, normalise
from .errors import MinirtError, from_record
from .journal import Position, new_event
from .kinds import KIND

if TYPE_CHECKING:
    from .runtime import Context


def replay_step(ctx: Context, p: int, pos: Position, name: str) -> Any:
    """The recorded value (or error, raised) of the step ``name`` at position ``p``."""
    rec = ctx.journal.payload(pos.opening) if pos.opening else None
    if pos.opening is None or pos.opening.kind != KIND.STEP or rec.get("name") != name:
        raise ctx.diverged(p, pos.opening, f"step {name!r}")
    ctx.positioned(p, "step", name, True)
    if "error" in rec:
        raise from_record(rec["error"])
    return rec["value"]


def record_step(ctx: Context, p: int, name: str, value: Any = None,
                error: MinirtError | None = None, *, normalised: bool = False) -> Any:
    """Journal the fresh step ``name`` at ``p``: its value (returned, normalised unless it
    already is) or its named ``error`` (journaled, then raised)."""
    rt = ctx.runtime
    if error is not None:
        rt.faults.hit("before_step_record", step=p)
        ctx.append(new_event(rt.store, KIND.STEP, p, {"name": name, "error": error.to_record()},
                             ctx.now_raw()))
        rt.faults.hit("after_step_record", step=p)
        raise error
    if not normalised:
        value = normalise(value)
    rt.faults.hit("before_step_record", step=p)
    ctx.append(new_event(rt.store, KIND.STEP, p, {"name": normalise(name), "value": value},
                         ctx.now_raw(), normalised=True))
    rt.faults.hit("after_step_record", step=p)
    ctx.positioned(p, "step", name, False)
    return value


def replay_decision(ctx: Context, p: int, pos: Position, name: str, prompt_digest: str) -> Any:
    """The recorded output of the decision ``name`` at ``p`` (same prompt, or NonDeterminism)."""
    rec = ctx.journal.payload(pos.opening) if pos.opening else None
    if (pos.opening is None or pos.opening.kind != KIND.DECISION or rec.get("name") != name
            or rec.get("prompt_digest") != prompt_digest):
        raise ctx.diverged(p, pos.opening, f"decision {name!r}")
    ctx.positioned(p, "decision", name, True)
    return rec["output"]


@dataclass(frozen=True)
class FreshDecision:
    """A decision position to ask the model for (:func:`open_decision` found nothing there)."""

    step: int  # the position claimed
    index: int  # the model's script index (replayed decisions count too)
    prompt_digest: str
    model: Any  # the model to ask: the call's, else the runtime's (never None)


def open_decision(ctx: Context, prompt: Any, name: str, model: Any = None
                  ) -> tuple[bool, Any]:
    """The opening half of a decision, shared by ``Context.decide`` and its ``async`` twin:
    claim the position and the decision index, digest the prompt, replay what is recorded.

    Returns ``(True, output)`` for a recorded position (the model is not asked), else
    ``(False, FreshDecision)`` once the ``before_decision`` hooks ran: the caller asks the
    model (calling or awaiting it) and journals the answer with :func:`record_decision`.
    Raises :class:`MinirtError` for a fresh decision without a model, before any hook runs."""
    p, pos = ctx.claim_position()
    index = ctx.cursor.next_decision()
    prompt_digest = digest(prompt)
    if pos is not None:
        return True, replay_decision(ctx, p, pos, name, prompt_digest)
    m = model or ctx.runtime.model
    if m is None:
        raise MinirtError(detail="ctx.decide needs a model: Runtime(model=...)")
    for hook in ctx.runtime.hooks:
        hook.before_decision(ctx, p, name, prompt)
    return False, FreshDecision(p, index, prompt_digest, m)


def record_decision(ctx: Context, p: int, name: str, prompt_digest: str, output: Any) -> Any:
    """Journal the model's fresh ``output`` for the decision at ``p``; return it normalised."""
    rt = ctx.runtime
    output = normalise(output)
    rt.faults.hit("before_decision_record", step=p)
    ctx.append(new_event(rt.store, KIND.DECISION, p,
                         {"name": name, "prompt_digest": prompt_digest, "output": output},
                         ctx.now_raw()))
    rt.faults.hit("after_decision_record", step=p)
    ctx.positioned(p, "decision", name, False)
    return output


def safe_digest(value: Any) -> str:
    """The digest of arguments as the code passed them, even when they are not canonical JSON
    (NaN, a set, a lone surrogate): those still need a stable identity so that replay can check
    the call and re-raise the recorded refusal."""
    return args_identity(value)[0]


def args_identity(value: Any) -> tuple[str, str | None]:
    """:func:`safe_digest` of ``value`` and the canonical JSON text it hashed (None for a value
    that has no canonical form), encoded once: the caller hands the text on
    (:func:`minirt.dispatch.prepare_call`) so that the same arguments are not hashed twice."""
    text = flat_json(value)  # the usual keyword arguments: the same text, without two passes
    if text is not None:
        return "sha256:" + _sha256(text.encode()).hexdigest(), text
    try:
        text = canonical_json(value)
    except (MinirtError, TypeError, ValueError, UnicodeError):
        try:
            raw = repr(value).encode("utf-8", "backslashreplace")
        except (RecursionError, ValueError):  # too deep, or an int too long for repr
            raw = bounded_repr(value).encode("utf-8", "backslashreplace")
        return "sha256-repr:" + hashlib.sha256(raw).hexdigest(), None
    return digest_text(text), text


_sha256 = hashlib.sha256


__all__ = ["FreshDecision", "args_identity", "open_decision", "record_decision", "record_step", "replay_decision", "replay_step",
           "safe_digest"]
