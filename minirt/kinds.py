"""The journal's vocabulary: every kind of event a run's journal may hold.

Invariant: these string values are the ones on disk (the ``kind`` column of both stores, the
journal's replay rules in :mod:`minirt.journal`); a :class:`EventKind` compares equal to its
string, so code and SQL written with bare strings keep working. New code writes the enum
member, so a typo is a NameError at import time instead of an event nobody reads.

Guarantees: the list is complete for minirt itself (a test runs every scenario and checks each
journal against it). Not guaranteed: that an application's own events (written with
:func:`minirt.journal.new_event`) use it; the store accepts any kind.

Imports nothing of minirt.
"""

from __future__ import annotations

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
