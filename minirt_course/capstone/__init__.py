"""The capstone: a durable tool-using support agent built from every module of the course.

- :mod:`~minirt_course.capstone.shop` — the world (orders, providers), the tools, :class:`Policies`,
  :func:`build_runtime`
- :mod:`~minirt_course.capstone.agent` — the reference agent :func:`support_agent`
- :mod:`~minirt_course.capstone.scenario` — the crash-sweep scenario and its ledger oracle
- :mod:`~minirt_course.capstone.measure` — latency, durable overhead, recovery time, journal size
- :mod:`~minirt_course.capstone.note` — the architecture note's sections and quoted figures
- :mod:`~minirt_course.capstone.openai_model` — an optional model over an OpenAI-compatible endpoint
- :mod:`~minirt_course.capstone.sdk_model` — the same planner on the ``openai`` SDK, and a local model
  server for it (``build_runtime(workdir, model_url=...)``)
"""

from __future__ import annotations

from .agent import PlanRejected, support_agent, support_model
from .shop import (
    APPROVAL_THRESHOLD_CENTS,
    ORDERS,
    REFERENCE,
    TICKET,
    CapstoneRuntime,
    Options,
    Policies,
    approve_all,
    build_runtime,
    setup_world,
    start_ticket,
)

__all__ = [
    "APPROVAL_THRESHOLD_CENTS", "ORDERS", "REFERENCE", "TICKET", "CapstoneRuntime", "Options",
    "PlanRejected", "Policies", "approve_all", "build_runtime", "setup_world", "start_ticket",
    "support_agent", "support_model",
]
