"""minirt: a small, real durable runtime for tool-using agents.

The public API (one concept per module; see each module's docstring for its invariant):

- :mod:`minirt.run` — the run state machine: Run, Incarnation, RunEvent, apply, TRANSITIONS
- :mod:`minirt.store` — SQLiteStore (default), PostgresStore (optional): runs, journals, artifacts
- :mod:`minirt.journal` — replay rules, NonDeterminism, UnresolvedIntent
- :mod:`minirt.runtime` — Runtime, Context, RunOutcome, ScriptedModel
- :mod:`minirt.tools` — EffectClass, ToolCall, FunctionTool, ``@tool``
- :mod:`minirt.idempotency` — effect keys bound to the payload
- :mod:`minirt.faults` — fault points, crash modes, the crash sweep
- :mod:`minirt.canonical` — canonical JSON and digests

Importing minirt never imports course tooling (Jupyter, nbgrader, graphviz, ipywidgets) and never
writes to stderr.
"""

from __future__ import annotations

import logging

from .canonical import canonical_json, digest
from .clock import FakeClock, SystemClock
from .errors import MinirtError, ToolError
from .faults import FaultPlan, SimulatedCrash
from .idempotency import effect_key
from .journal import NonDeterminism, UnresolvedIntent
from .run import (
    IllegalTransition,
    Incarnation,
    Run,
    RunEvent,
    RunIsTerminal,
    RunState,
    StaleIncarnation,
    apply,
)
from .runtime import Context, RunOutcome, Runtime, ScriptedModel
from .store import JournalCorrupted, SQLiteStore, open_store
from .tools import EffectClass, FunctionTool, OutcomeUnknown, ToolCall, tool

# minirt logs nothing unless the application configures logging; never to stderr by default.
logging.getLogger("minirt").addHandler(logging.NullHandler())

__version__ = "0.1.0"

__all__ = [
    "Context", "EffectClass", "FakeClock", "FaultPlan", "FunctionTool", "IllegalTransition",
    "Incarnation", "JournalCorrupted", "MinirtError", "NonDeterminism", "OutcomeUnknown", "Run",
    "RunEvent", "RunIsTerminal", "RunOutcome", "RunState", "Runtime", "SQLiteStore",
    "ScriptedModel", "SimulatedCrash", "StaleIncarnation", "SystemClock", "ToolCall", "ToolError",
    "UnresolvedIntent", "apply", "canonical_json", "digest", "effect_key", "open_store", "tool",
]
