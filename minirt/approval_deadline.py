"""An approval **or** a deadline: what happens to a request nobody answers in time.

:func:`request_approval_until` is :func:`minirt.approvals.request_approval` with a durable
deadline (:mod:`minirt.timers`): the run waits for the reviewer's decision or ``timeout``
seconds, whichever comes first (both race for the same first-wins signal, so exactly one is the
outcome, journaled). When the deadline wins, the declared :class:`OnExpiry` policy decides:

- ``deny``: the request is refused as if a reviewer had said no (approver ``"deadline"``): the
  call is journaled as ``tool_rejected`` (:class:`~minirt.approvals.ApprovalRejected`) and that
  error reaches the workflow; nothing is sent;
- ``escalate``: a new request for the same effect is published (a new request id, at the next
  position) and waited for without a deadline: someone with more authority answers it
  (``minirt approve RUN_ID NEW_REQUEST_ID``);
- ``proceed_without``: the function returns None and the workflow goes on without the effect.

Invariant: the policy is applied at the position where the deadline fired, and replays from the
journal identically after any restart (the timeout, the refusal, the escalated request are all
journaled). Guarantees: an expired request never yields a receipt; nothing is dispatched for it
unless an escalated request is approved. Not guaranteed: that the deadline fires on time (at the
first due-timer query after it: :func:`minirt.timers.fire_due`).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from .approvals import (
    ApprovalForged,
    ApprovalRejected,
    ApprovalRequest,
    Receipt,
    gate_of,
    publish_request,
    request_approval,
)
from .errors import ToolError
from .timers import WaitTimedOut

if TYPE_CHECKING:
    from .runtime import Context


class OnExpiry(StrEnum):
    DENY = "deny"
    ESCALATE = "escalate"
    PROCEED_WITHOUT = "proceed_without"


def _refuse(ctx: Context, tool: str, args: Mapping[str, Any], rejected: ApprovalRejected) -> None:
    """Journal the call as refused by the gate (``tool_rejected``) and raise the refusal."""
    gate = gate_of(ctx)
    gate.stage(ctx, rejected)
    try:
        ctx.call_tool(tool, dict(args))
    finally:
        gate.take(ctx)
    raise ToolError(tool=tool, reason="the rejection was not enforced")  # not reached


def request_approval_until(ctx: Context, tool: str, args: Mapping[str, Any], *,
                           timeout: float, on_expiry: OnExpiry | str = OnExpiry.DENY,
                           artifact: str | None = None) -> Receipt | None:
    """Ask for approval of one exact call, waiting at most ``timeout`` seconds (durably).

    Returns the receipt (pass it to :func:`~minirt.approvals.call_approved`), or None when the
    deadline passed and ``on_expiry`` is ``proceed_without``. A rejection, or an expiry under
    ``deny``, raises :class:`~minirt.approvals.ApprovalRejected` (journaled as the refusal)."""
    policy = OnExpiry(on_expiry)
    gate = gate_of(ctx)
    p = ctx.position
    req = ApprovalRequest.from_dict(
        ctx.step("approval_request", gate.new_request, ctx, p, tool, dict(args), artifact))
    publish_request(ctx, req)
    try:
        decision = ctx.wait_for("approval:" + req.request_id, timeout=timeout)
    except WaitTimedOut as expired:
        if policy is OnExpiry.PROCEED_WITHOUT:
            return None
        if policy is OnExpiry.ESCALATE:
            return request_approval(ctx, tool, args, artifact=artifact)
        _refuse(ctx, tool, args, ApprovalRejected(
            request_id=req.request_id, approver="deadline",
            reason=f"no decision within {timeout:g} s (expired at {expired.fired_at:.3f})"))
    if not isinstance(decision, Mapping) or decision.get("decision") not in ("granted",
                                                                              "rejected"):
        raise ApprovalForged(request_id=req.request_id, receipt_id="?",
                             reason="the decision delivered is neither granted nor rejected")
    if decision["decision"] == "rejected":
        _refuse(ctx, tool, args, ApprovalRejected(request_id=req.request_id,
                                                  approver=str(decision.get("approver")),
                                                  reason=str(decision.get("reason"))))
    return Receipt.from_dict(decision.get("receipt"))
