"""minirt: a small, real durable runtime for tool-using agents.

The public API, one concept per module (each module's docstring states its invariant, what it
guarantees and what it does not):

- :mod:`minirt.run` — the run state machine: Run, Incarnation, RunEvent, apply, TRANSITIONS
- :mod:`minirt.contracts` — ToolContract: schema -> domain -> authorization -> limits ->
  dispatch -> output, each gate a named error; PartialEffect reports
- :mod:`minirt.store` — SQLiteStore (default), PostgresStore (``[postgres]`` extra): runs,
  fenced hash-chained journals, artifacts, per-run state
- :mod:`minirt.journal` — replay rules, NonDeterminism, UnresolvedIntent
- :mod:`minirt.runtime` — Runtime, Context (step, decide, call_tool, wait_for), RunOutcome,
  ScriptedModel, RuntimeHook
- :mod:`minirt.tools` — EffectClass, ToolCall, FunctionTool, OutcomeUnknown
- :mod:`minirt.schema` — ``@tool`` typed from hints (TypedTool), tool schemas in the OpenAI,
  Anthropic and MCP shapes
- :mod:`minirt.models` — adapters for the ``openai`` and ``anthropic`` SDKs (``[agents]`` extra):
  a decision is the SDK's response, journaled; ``run_tool_calls``
- :mod:`minirt.mcp_tools` — an MCP server's tools as minirt tools (``[agents]`` extra)
- :mod:`minirt.aio` — ``async def`` workflows and tools (AsyncRuntime, AsyncContext): the same
  pipeline awaited, fan-out over a TaskGroup, asyncio cancellation as the run's; async MCP tools
- :mod:`minirt.steps` — the shared replay/record halves of a step and a decision
- :mod:`minirt.idempotency` — effect keys bound to the payload, ReconcileByLookup, KeyRegistry,
  Delivery for tools without keys
- :mod:`minirt.effects` — the local commit boundary (outbox), receipts, Saga with conditional,
  idempotent compensation
- :mod:`minirt.approvals` — Secret, Capability, ApprovalGate: signed single-use receipts bound to
  the digest of the exact effect, re-checked at dispatch
- :mod:`minirt.scheduler` — ``parallel``: dependency- and conflict-aware waves, deterministic joins
- :mod:`minirt.race` — ``race``: first of N succeed, losers cancelled, the winner journaled as a
  decision so a replay returns it (``from minirt import race`` is always this module; the
  function is ``minirt.race.race``, exported as ``race_calls``)
- :mod:`minirt.cancel` — durable cancellation stages, nested deadlines, bounded cleanup
  (``from minirt import cancel`` is always this module; the request function is ``cancel_run``)
- :mod:`minirt.dispatch` — the one tool-call pipeline, the ToolCall factory, DispatchPolicy
- :mod:`minirt.resolution` — Resolution and its Kind (a reconcile policy's answer)
- :mod:`minirt.kinds` — EventKind, every kind of journal event
- :mod:`minirt.budget` — reservations before dispatch across tokens, attempts, time, retries,
  children
- :mod:`minirt.trace` — spans from durable identities, OpenTelemetry export, the effect report
- :mod:`minirt.faults` — fault points, the two crash modes (the hook the runtime calls)
- :mod:`minirt.testing.sweep` — the crash sweep (scenarios, ``crash_once``, ``sweep_all``)
- :mod:`minirt.world` — providers with their own ledgers (payments, email, booking), over HTTP
- :mod:`minirt.canonical` — canonical JSON and digests
- :mod:`minirt.operator` — operator actions (approve, deny, revoke, signal, cancel, resolve),
  each journaled with who and why; ``minirt.cli_operator`` is their command line
- :mod:`minirt.lease_wait` — ``rt.resume(run_id, wait=True)``: wait out a dead worker's lease
- :mod:`minirt.humantime` — times for people (local zone, "in 27 s")
- :mod:`minirt.timers` — durable time: ``ctx.sleep``, ``sleep_until``, ``wait_for(timeout=)``,
  the due-timer query ``fire_due``
- :mod:`minirt.approval_deadline` — an approval or a deadline, with a declared expiry policy

The names below are importable from ``minirt`` directly; those of the later modules are loaded on
first use, so ``import minirt`` stays light. Importing minirt never imports course tooling
(Jupyter, nbgrader, graphviz, ipywidgets) and never writes to stderr.
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
from .tools import EffectClass, FunctionTool, OutcomeUnknown, ToolCall

# minirt logs nothing unless the application configures logging; never to stderr by default.
logging.getLogger("minirt").addHandler(logging.NullHandler())

__version__ = "0.1.0"

# name -> module, imported on first attribute access (PEP 562)
_LAZY = {
    **dict.fromkeys(["ToolContract", "ContractError", "SchemaViolation", "DomainViolation",
                     "NotAuthorized", "LimitExceeded", "OutputInvalid", "PartialEffect",
                     "Limits", "constraint"], "contracts"),
    **dict.fromkeys(["ReconcileByLookup", "reconcile_by_lookup", "KeyRegistry", "Delivery",
                     "EffectKeyConflict", "EffectKeyMayBePruned"], "idempotency"),
    **dict.fromkeys(["Saga", "commit", "deliver", "request_abort"], "effects"),
    **dict.fromkeys(["ApprovalGate", "Secret", "Credentials", "Capability", "Receipt",
                     "GuardedTool", "request_approval", "call_approved"], "approvals"),
    **dict.fromkeys(["parallel", "Call", "ref"], "scheduler"),
    # issue 22: first of N, journaled
    **dict.fromkeys(["race_calls", "Raced", "RaceLost", "RaceInvalid", "EntrantCancelled",
                     "EntrantUnknown"], "race"),
    **dict.fromkeys(["cancel_run", "CancellableRuntime", "Cancelled", "fail_after",
                     "move_on_after", "fail_at", "move_on_at", "Cleanup"], "cancel"),
    **dict.fromkeys(["BudgetHook", "BudgetExceeded", "Dimension"], "budget"),
    **dict.fromkeys(["TraceHook", "journal_spans", "effect_report"], "trace"),
    **dict.fromkeys(["Runtime", "RuntimeHook"], "runtime"),
    **dict.fromkeys(["Resolution"], "resolution"),
    **dict.fromkeys(["DispatchPolicy"], "dispatch"),
    # issue 19: retry policies for answered tool errors
    **dict.fromkeys(["RetryPolicy"], "retry"),
    # issue 21: @tool typed from hints, and tool schemas in the SDKs' shapes
    **dict.fromkeys(["tool", "TypedTool", "json_schema", "tool_schemas", "SchemaUnavailable"],
                    "schema"),
}
#: Submodules whose name is also a function of theirs: ``minirt.cancel`` is always the module
#: (on a fresh import and after ``import minirt.cancel`` alike); the function is ``cancel_run``.
#: The same for ``minirt.race`` (the function is ``race_calls``, or ``minirt.race.race``).
_MODULES = frozenset({"cancel", "race"})
_LAZY.pop("Runtime")  # imported eagerly above


def __getattr__(name: str) -> object:
    import importlib

    if name in _MODULES:
        return importlib.import_module(f"minirt.{name}")  # the import binds it here too
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'minirt' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"minirt.{module}"), name)
    globals()[name] = value
    return value

__all__ = [
    "Context", "EffectClass", "FakeClock", "FaultPlan", "FunctionTool", "IllegalTransition",
    "Incarnation", "JournalCorrupted", "MinirtError", "NonDeterminism", "OutcomeUnknown", "Run",
    "RunEvent", "RunIsTerminal", "RunOutcome", "RunState", "Runtime", "SQLiteStore",
    "ScriptedModel", "SimulatedCrash", "StaleIncarnation", "SystemClock", "ToolCall", "ToolError",
    "UnresolvedIntent", "apply", "canonical_json", "digest", "effect_key", "open_store",
    *sorted(_LAZY),
]
