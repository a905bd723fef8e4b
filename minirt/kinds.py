"""The journal's vocabulary: every kind of event a run's journal may hold.

Invariant: these string values are the ones on disk (the ``kind`` column of both stores, the
journal's replay rules in :mod:`minirt.journal`); a :class:`EventKind` compares equal to its
string, so code and SQL written with bare strings keep working. New code writes the enum
member, so a typo is a NameError at import time instead of an event nobody reads.

Guarantees: the list is complete for minirt itself (a test runs every scenario and checks each
journal against it), and it is closed: both stores refuse to append an event whose kind is not
known (:func:`minirt.store.base.check_event_kinds`, raising ``UnknownEventKind`` before anything
is written). An application or a course scenario with events of its own (written with
:func:`minirt.journal.new_event`) registers their kinds once, at import, with
:func:`register_event_kinds`. Not guaranteed: that a registered kind means anything to replay
(the journal's replay rules know only the kinds listed here); registration is process-wide and
cannot be undone, and a registered kind may not shadow one of minirt's.

Imports nothing of minirt.
"""

from __future__ import annotations

import re
from enum import StrEnum
from types import SimpleNamespace


class EventKind(StrEnum):
    # the run (minirt.runtime)
    RUN_STARTED = "run_started"
    TRANSITION = "transition"
    OPERATOR = "operator"  # an operator's action, with who and why (minirt.operator)
    # positions: openings (minirt.journal.OPENING_KINDS) and outcomes (OUTCOME_KINDS)
    STEP = "step"
    DECISION = "decision"
    INTENT = "intent"
    WAIT = "wait"
    TOOL_REJECTED = "tool_rejected"
    TOOL_RESULT = "tool_result"
    TOOL_ERROR = "tool_error"
    WAIT_RESULT = "wait_result"
    # reconciliation (minirt.dispatch)
    RECONCILED = "reconciled"
    ATTEMPT = "attempt"
    # retries of answered errors (minirt.retry)
    RETRY_SCHEDULED = "retry_scheduled"
    # intended code changes (minirt.divergence: ctx.patched)
    PATCHED = "patched"
    # fan-out (minirt.scheduler)
    WAVE = "wave"
    # sagas (minirt.effects)
    COMPENSATION_INTENT = "compensation_intent"
    COMPENSATION_RESULT = "compensation_result"
    COMPENSATION_ERROR = "compensation_error"
    FORWARD_RECONCILED = "forward_reconciled"
    SAGA_ABORT = "saga_abort"
    SAGA_COMPENSATED = "saga_compensated"
    SAGA_COMPLETED = "saga_completed"
    # cancellation (minirt.cancel)
    CANCEL_REQUESTED = "cancel_requested"
    CANCEL_QUIESCED = "cancel_quiesced"
    CANCEL_CLEANED_UP = "cancel_cleaned_up"
    CANCEL_RECONCILED = "cancel_reconciled"
    # budgets (minirt.budget)
    BUDGET = "budget"


#: The same vocabulary as plain ``str`` values (``KIND.INTENT == "intent"``), for the hot path:
#: an enum member costs a Python-level ``__format__`` each time the store chains an event
#: (about 0.4 µs), and the events it comes back in are compared at every replayed position.
KIND = SimpleNamespace(**{member.name: member.value for member in EventKind})


#: Every kind a store accepts: minirt's own and those registered by applications. Read by
#: :func:`minirt.store.base.check_event_kinds` on every append (one set membership per event);
#: changed only by :func:`register_event_kinds`.
KNOWN_EVENT_KINDS: set[str] = {member.value for member in EventKind}

_KIND_TEXT = re.compile(r"[a-z][a-z0-9_]*\Z")


def register_event_kinds(*kinds: str) -> frozenset[str]:
    """Let the stores accept journal events of ``kinds`` (an application's own). Idempotent.

    A kind is lower-case ``snake_case`` text; anything else raises :class:`ValueError` naming it.
    Returns the kinds now known.
    """
    for kind in kinds:
        if not isinstance(kind, str) or not _KIND_TEXT.match(kind):
            raise ValueError(f"event kind {kind!r}: not lower-case snake_case text")
    KNOWN_EVENT_KINDS.update(kinds)
    return frozenset(KNOWN_EVENT_KINDS)
