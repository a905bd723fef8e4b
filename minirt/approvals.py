"""Scopes and approvals: bind authority to the exact reviewed effect.

Five things that are easy to blur, kept apart here:

- a **credential** is a secret the provider checks (an API key). Only the gate holds it, as a
  :class:`Secret` whose ``repr``/``str`` never show the value and which canonical JSON refuses; a
  tool receives it inside ``invoke``, the workflow never does, and it is never journaled;
- a **capability** is what one run may do with a credential: tool, resource pattern, amount limit,
  expiry. Minted per run by the operator and signed (HMAC) with the gate's key, so a workflow cannot
  forge or widen one;
- an **effect** is what a call would do: run, request step, tool, canonical arguments, target
  resource, the capability's scope and the content digest of any artifact the reviewer saw. An
  **approval request** carries the effect and its digest (:func:`minirt.canonical.digest`);
- a **receipt** is the gate's signature over one request's effect digest, naming the approver and an
  expiry. It is single use;
- the **gate** (:class:`ApprovalGate`, a :class:`~minirt.runtime.RuntimeHook`) re-checks everything
  at dispatch time, not at approval time: signature, same effect, artifact unchanged, not revoked,
  not expired, not used before.

Invariant: a guarded tool's intent is journaled only if every check passed at that moment, and the
receipt's use is committed in the same transaction as that intent (``ctx.pending_kv``), where
the gate also re-checks revocations and reserves cumulative limits (:mod:`minirt.approval_commit`,
which also states the clock-skew policy, ``max_skew``). A refusal
is a :class:`GateRefused` subclass, journaled as the call's ``tool_rejected`` outcome (replay
raises it again), and nothing is dispatched.

Waiting is the runtime's WAITING state with ``waiting_for = "approval:<request id>"``; a decision
arrives through :meth:`minirt.runtime.Runtime.signal`, however many restarts later. Everything
the gate reads at dispatch lives in the run's kv (capability, requests, decisions, revocations,
used receipts), so a fresh worker after any crash sees exactly what the old one would have.

Not guaranteed: isolation inside one Python process (code that goes looking can reach any object;
the guarantee is that no minirt API hands a secret to the workflow and no minirt write records
it); and a revocation that lands *after* an intent committed does not stop the crash-recovery
re-send of that same intent (the authority was spent when the intent committed; a keyed tool's
provider deduplicates it).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import asdict, dataclass, field, fields
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from .approval_commit import (
    K_REVOKED,
    CommitPlan,
    check_at_commit,
    expiry_now,
    release,
    store_time,
)
from .canonical import canonical_json, digest, digest_bytes
from .errors import MinirtError, ToolError, from_record
from .retry import UNKNOWN_EXCEPTIONS
from .runtime import RuntimeHook
from .tools import EffectClass, FunctionTool, Lookup, OutcomeUnknown, ToolCall

if TYPE_CHECKING:
    from .runtime import Context, Runtime

# -- refusals -----------------------------------------------------------------------------------


class GateRefused(MinirtError):
    """Base of every refusal by the approval gate. Raised before the intent: nothing dispatched."""


class ApprovalRequired(GateRefused):
    """A guarded call that needs approval came without a receipt. Not a forged one."""

    fields = ("run_id", "step", "tool")
    template = "run {run_id} step {step}: {tool} needs an approval receipt and got none"


class ApprovalRejected(GateRefused):
    """The reviewer said no. The call is journaled as rejected; the workflow sees this error."""

    fields = ("request_id", "approver", "reason")
    template = "request {request_id} was rejected by {approver}: {reason}"


class ApprovalForged(GateRefused):
    """A receipt whose signature does not verify with the gate's key (or that is malformed).

    Not an :class:`ApprovalMismatch` (a genuine receipt for another effect)."""

    fields = ("request_id", "receipt_id", "reason")
    template = "receipt {receipt_id} for request {request_id} is not genuine: {reason}"


class ApprovalMismatch(GateRefused):
    """A genuine receipt, but the call differs from the reviewed effect; ``field`` names where.

    Not :class:`ArtifactChanged` (same call, the document behind it changed)."""

    fields = ("request_id", "field", "approved", "requested")
    template = ("request {request_id}: {field} was approved as {approved} but the call has "
                "{requested}")


class ArtifactChanged(GateRefused):
    """The artifact the reviewer saw now has other content (its digest differs)."""

    fields = ("request_id", "artifact", "approved", "current")
    template = "request {request_id}: artifact {artifact!r} was {approved} when reviewed, now {current}"


class ApprovalReused(GateRefused):
    """A receipt that already authorised one dispatch. Receipts are single use."""

    fields = ("request_id", "receipt_id", "used_at_step")
    template = "receipt {receipt_id} for request {request_id} was already used at step {used_at_step}"


class ApprovalExpired(GateRefused):
    """The receipt's expiry passed before dispatch. Not a revocation."""

    fields = ("request_id", "receipt_id", "expires_at", "now")
    template = "receipt {receipt_id} for request {request_id} expired at {expires_at} (now {now})"


class ApprovalRevoked(GateRefused):
    """Something the dispatch relies on was revoked before dispatch: the receipt, its approver,
    the capability or the credential (``revoked`` says which, e.g. ``approver:alice``)."""

    fields = ("request_id", "revoked", "revoked_at")
    template = "request {request_id}: {revoked} was revoked at {revoked_at}"


class OutOfScope(GateRefused):
    """No capability covers this call (none minted, other run or tool, resource outside pattern)."""

    fields = ("run_id", "tool", "resource", "reason")
    template = "run {run_id}: {tool} on {resource!r} is out of scope: {reason}"


class CapabilityExceeded(GateRefused):
    """The call's amount is above the capability's limit. Not :class:`OutOfScope`."""

    fields = ("cap_id", "amount", "limit")
    template = "capability {cap_id} allows at most {limit}, the call asks for {amount}"


class CapabilityForged(GateRefused):
    """A capability whose signature does not verify (forged or widened after minting)."""

    fields = ("cap_id", "reason")
    template = "capability {cap_id} is not genuine: {reason}"


class CapabilityExpired(GateRefused):
    fields = ("cap_id", "expires_at", "now")
    template = "capability {cap_id} expired at {expires_at} (now {now})"


class GateFailedClosed(GateRefused):
    """The check itself crashed (a bug, a missing request): refused, never allowed by default."""

    fields = ("tool", "reason")
    template = "gate check for {tool} failed, so the call is refused: {reason}"


class NoApprovalGate(MinirtError):
    fields = ("run_id",)
    template = "run {run_id}: the runtime has no ApprovalGate hook"


class CredentialInvalid(MinirtError):
    fields = ("name", "reason")
    template = "credential {name!r} cannot be used: {reason}"


class GateConfigInvalid(MinirtError):
    """An ApprovalGate or guard option out of range (checked when it is built)."""

    fields = ("option", "reason")
    template = "approval gate option {option}: {reason}"


# -- credentials --------------------------------------------------------------------------------


class Secret:
    """A secret value that never prints, never serialises and never pickles.

    ``reveal()`` is the one way to read it; call it at the last moment (building the request
    header inside a tool's ``invoke``).
    """

    __slots__ = ("name", "_value")

    def __init__(self, name: str, value: str | bytes) -> None:
        text = value.decode("utf-8") if isinstance(value, bytes) else str(value)
        if len(text) < 8:  # short values would make redaction rewrite ordinary text
            raise CredentialInvalid(name=name, reason="a secret needs at least 8 characters")
        self.name = name  # Invariant: the only part of a secret that may be printed or stored
        self._value = text

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"Secret({self.name!r}, value=<redacted>)"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        raise TypeError(f"secret {self.name!r} cannot be pickled")


class Credentials:
    """The gate's vault: credential name -> :class:`Secret`. Prints names only."""

    def __init__(self, secrets: Mapping[str, str | bytes] | None = None) -> None:
        self._secrets = {n: Secret(n, v) for n, v in (secrets or {}).items()}

    def get(self, name: str) -> Secret:
        if name not in self._secrets:
            raise CredentialInvalid(name=name, reason="no such credential in the vault")
        return self._secrets[name]

    def redact(self, value: Any) -> Any:
        """``value`` (JSON data or text) with every secret replaced by ``<redacted:name>``."""
        if isinstance(value, str):
            for s in self._secrets.values():
                value = value.replace(s.reveal(), f"<redacted:{s.name}>")
            return value
        if isinstance(value, dict):
            return {self.redact(k): self.redact(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.redact(v) for v in value]
        return value

    def __repr__(self) -> str:
        return f"Credentials({sorted(self._secrets)})"


def _sign(key: Secret, kind: str, body: Mapping[str, Any]) -> str:
    msg = f"minirt/{kind}/v1\n{canonical_json(dict(body))}".encode()
    return "hmac-sha256:" + hmac.new(key.reveal().encode(), msg, hashlib.sha256).hexdigest()


class _Signed:
    """Shared by capabilities and receipts: a body, and a signature over it (domain ``KIND``)."""

    KIND = ""
    signature: str

    def body(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)  # type: ignore[arg-type]
                if f.name != "signature"}

    def verify(self, key: Secret) -> bool:
        return hmac.compare_digest(str(self.signature), _sign(key, self.KIND, self.body()))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, data: Any) -> Any:
        """Rebuild from JSON data; anything but the exact fields, as JSON scalars, is refused
        as :class:`ApprovalForged` (a receipt) or :class:`CapabilityForged` (a capability)."""
        names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        ok = (isinstance(data, Mapping) and set(data) == set(names)
              and all(isinstance(data[n], (str, int, float, type(None))) for n in names))
        if not ok:
            ident = str(data.get("cap_id", data.get("receipt_id", "?"))) \
                if isinstance(data, Mapping) else "?"
            if cls.KIND == "capability":
                raise CapabilityForged(cap_id=ident, reason="malformed capability")
            raise ApprovalForged(request_id=str(data.get("request_id", "?"))
                                 if isinstance(data, Mapping) else "?",
                                 receipt_id=ident, reason="malformed receipt")
        return cls(**{n: data[n] for n in names})


@dataclass(frozen=True)
class Capability(_Signed):
    """What one run may do with one credential. Signed; check with :func:`check_capability`."""

    KIND = "capability"
    cap_id: str
    run_id: str
    tool: str
    resource: str  # a glob pattern (fnmatch, case-sensitive): "order:42", "order:*"
    max_amount: int | None  # Invariant: in minor units (cents); None = no amount limit
    expires_at: float
    credential: str  # the vault entry it unlocks: a name, never the value
    signature: str = ""

    def scope(self) -> dict[str, Any]:
        """The part of the capability an approval covers (not its expiry)."""
        return {"cap_id": self.cap_id, "resource": self.resource,
                "max_amount": self.max_amount, "credential": self.credential}


@dataclass(frozen=True)
class Receipt(_Signed):
    """A reviewer's approval of one request's effect digest, signed by the gate. Single use."""

    KIND = "receipt"
    receipt_id: str
    request_id: str
    run_id: str
    effect_digest: str
    approver: str
    granted_at: float
    expires_at: float
    signature: str = ""


@dataclass(frozen=True)
class ApprovalRequest:
    """The effect a reviewer is asked about, and its digest."""

    request_id: str
    effect: dict[str, Any]
    effect_digest: str  # Invariant: digest(effect)
    requested_at: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ApprovalRequest:
        return cls(str(data["request_id"]), dict(data["effect"]), str(data["effect_digest"]),
                   float(data["requested_at"]))


EFFECT_FIELDS = ("run_id", "request_step", "tool", "resource", "args", "scope", "artifact")


def effect_of(run_id: str, request_step: int, tool: str, args: Mapping[str, Any], resource: str,
              scope: Mapping[str, Any] | None, artifact: Mapping[str, str] | None) -> dict[str, Any]:
    """The effect a call would have, as canonical JSON data (``digest(effect)`` identifies it)."""
    return json.loads(canonical_json({
        "run_id": run_id, "request_step": int(request_step), "tool": tool, "resource": resource,
        "args": dict(args), "scope": dict(scope) if scope else None,
        "artifact": dict(artifact) if artifact else None}))


def first_difference(approved: Any, current: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first place two effects differ, as ``(path, approved, current)``, or None.

    Fields in :data:`EFFECT_FIELDS` order, then keys sorted; ``1`` and ``1.0`` differ (canonical)."""
    if isinstance(approved, dict) and isinstance(current, dict):
        keys = [k for k in EFFECT_FIELDS if k in approved or k in current] if not path else []
        keys += sorted(set(approved) | set(current) - set(keys))
        for k in keys:
            sub = f"{path}.{k}" if path else k
            if k not in approved or k not in current:
                return sub, approved.get(k, "<absent>"), current.get(k, "<absent>")
            d = first_difference(approved[k], current[k], sub)
            if d:
                return d
        return None
    if canonical_json(approved) != canonical_json(current):
        return path or "effect", approved, current
    return None


def _short(value: Any) -> str:
    text = canonical_json(value)
    return text if len(text) <= 80 else text[:77] + "..."


# -- the dispatch-time checks (pure) ------------------------------------------------------------

def check_capability(cap: Capability | None, *, run_id: str, tool: str, resource: str,
                     amount: int | None, key: Secret, now: float,
                     revocations: Mapping[str, float]) -> None:
    """Raise the named refusal unless ``cap`` covers this call right now. Order: present,
    genuine, this run and tool, not revoked (capability, credential), not expired, resource in
    pattern, amount within the limit."""
    if cap is None:
        raise OutOfScope(run_id=run_id, tool=tool, resource=resource,
                         reason="no capability was minted for this tool in this run")
    if not cap.verify(key):
        raise CapabilityForged(cap_id=cap.cap_id, reason="signature does not verify")
    if cap.run_id != run_id or cap.tool != tool:
        raise OutOfScope(run_id=run_id, tool=tool, resource=resource,
                         reason=f"capability {cap.cap_id} is for {cap.tool} in run {cap.run_id}")
    for ident in (f"capability:{cap.cap_id}", f"credential:{cap.credential}"):
        if ident in revocations:
            raise ApprovalRevoked(request_id="-", revoked=ident, revoked_at=revocations[ident])
    if now >= cap.expires_at:
        raise CapabilityExpired(cap_id=cap.cap_id, expires_at=cap.expires_at, now=now)
    if not fnmatchcase(resource, cap.resource):
        raise OutOfScope(run_id=run_id, tool=tool, resource=resource,
                         reason=f"capability {cap.cap_id} covers {cap.resource!r} only")
    if cap.max_amount is not None and (amount is None or int(amount) > cap.max_amount):
        raise CapabilityExceeded(cap_id=cap.cap_id, amount=amount, limit=cap.max_amount)


def check_receipt(receipt: Receipt, request: ApprovalRequest, current: dict[str, Any], *,
                  key: Secret, now: float, revocations: Mapping[str, float],
                  used: Collection[str]) -> None:
    """The dispatch-time gate for one receipt: return None to allow, or raise the refusal.

    Order: genuine (signature), for this request, not revoked (receipt or approver: revocations
    are read now, whenever they happened), not expired, not used, and the call's effect equal to
    the reviewed one (field by field; the artifact's content last)."""
    rid = request.request_id
    if not receipt.verify(key):
        raise ApprovalForged(request_id=rid, receipt_id=receipt.receipt_id,
                             reason="signature does not verify")
    if receipt.request_id != rid or receipt.effect_digest != request.effect_digest:
        raise ApprovalMismatch(request_id=rid, field="request", approved=receipt.request_id,
                               requested=rid)
    for ident in (f"receipt:{receipt.receipt_id}", f"approver:{receipt.approver}"):
        if ident in revocations:
            raise ApprovalRevoked(request_id=rid, revoked=ident, revoked_at=revocations[ident])
    if now >= receipt.expires_at:
        raise ApprovalExpired(request_id=rid, receipt_id=receipt.receipt_id,
                              expires_at=receipt.expires_at, now=now)
    if receipt.receipt_id in used:
        step = used.get(receipt.receipt_id, "?") if isinstance(used, Mapping) else "?"
        raise ApprovalReused(request_id=rid, receipt_id=receipt.receipt_id, used_at_step=step)
    if digest(current) != receipt.effect_digest:
        diff = first_difference(request.effect, current) or ("effect", "?", "?")
        if diff[0].startswith("artifact"):
            art = request.effect.get("artifact") or {}
            now_art = current.get("artifact") or {}
            raise ArtifactChanged(request_id=rid, artifact=art.get("name", "?"),
                                  approved=art.get("digest"), current=now_art.get("digest"))
        raise ApprovalMismatch(request_id=rid, field=diff[0], approved=_short(diff[1]),
                               requested=_short(diff[2]))


CheckReceipt = Callable[..., None]


# -- tools that need a credential ---------------------------------------------------------------

@dataclass(frozen=True)
class Guard:
    """How the gate reads a guarded tool's call: its resource, its amount, and whether it needs
    approval. ``credential`` names the vault entry the tool receives inside ``invoke``."""

    credential: str
    resource: Callable[[dict[str, Any]], str]
    amount: Callable[[dict[str, Any]], int | None] = lambda args: None
    needs_approval: Callable[[dict[str, Any]], bool] = lambda args: True
    max_total: int | None = None  # cumulative limit under the run's capability (approval_commit)


class GuardedTool(FunctionTool):
    """A :class:`FunctionTool` whose function takes ``credential=`` (a :class:`Secret`), handed
    over by the gate inside ``invoke`` only. Results and error messages are redacted."""

    def __init__(self, fn: Callable[..., Any], gate: ApprovalGate, guard: Guard, *,
                 name: str | None = None, effect: EffectClass = EffectClass.KEYED,
                 lookup: Callable[[ToolCall], Lookup] | None = None) -> None:
        super().__init__(fn, name=name, effect=effect, lookup=lookup)
        self.gate = gate
        self.guard = guard

    def invoke(self, call: ToolCall) -> Any:
        creds = self.gate.credentials
        extra: dict[str, Any] = {"credential": creds.get(self.guard.credential)}
        if self._wants_call:
            extra["call"] = call
        try:
            return creds.redact(self.fn(**call.args, **extra))
        except MinirtError as exc:
            raise from_record(creds.redact(exc.to_record())) from None
        except UNKNOWN_EXCEPTIONS as exc:  # a lost answer stays unknown (reconciled)
            raise OutcomeUnknown(tool=self.name, effect_key=call.effect_key,
                                 reason=creds.redact(f"{type(exc).__name__}: {exc}")) from None
        except Exception as exc:  # an answered error, redacted (minirt.retry decides)
            raise RuntimeError(creds.redact(f"{type(exc).__name__}: {exc}")) from None

    def __repr__(self) -> str:
        return f"GuardedTool({self.name!r}, credential={self.guard.credential!r})"


# -- the gate -----------------------------------------------------------------------------------

def _hid(*parts: Any) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:16]


#: The run's kv keys the gate owns: published requests, single-use marks (committed with the
#: intent), revocations (``revoked:approver:alice``) and the run's capability per tool.
K_REQUEST, K_USED = "approval:request:", "approval:used:"
K_CAP = "capability:"  # K_REVOKED ("revoked:") is defined in approval_commit


@dataclass
class _Staged:
    """An ApprovalGate's per-run state: what the next call of the run is to be checked with."""

    value: Any = None
    # step -> the CommitPlan of the call checked there (minirt.approval_commit); by step, since
    # a fan-out wave checks all its children before its group commit
    plans: dict[int, Any] = field(default_factory=dict)


class ApprovalGate(RuntimeHook):
    """Holds the signing key and the credentials; mints, approves, revokes; and, as a runtime
    hook, re-checks every guarded call at dispatch time (see the module docstring)."""

    def __init__(self, key: str | bytes, credentials: Credentials | Mapping[str, str] | None = None,
                 *, artifacts: Callable[[str], bytes] | None = None,
                 check: CheckReceipt = check_receipt, run_limit: int | None = None,
                 max_skew: float | None = None,
                 store_clock: Callable[[Any], float | None] = store_time) -> None:
        self._key = Secret("approval-signing-key", key)  # Invariant: never leaves the gate
        self.credentials = credentials if isinstance(credentials, Credentials) \
            else Credentials(credentials)
        self.artifacts = artifacts  # name -> current bytes (what the tool will actually send)
        self.check = check
        self.guards: dict[str, Guard] = {}
        # minirt.approval_commit: the cumulative limit of all guarded calls of a run, and the
        # clock-skew policy (None: expiry judged by the worker's clock)
        self.run_limit = _limit("run_limit", run_limit)
        if max_skew is not None and not (isinstance(max_skew, int | float)
                                         and 0 <= max_skew < float("inf")):
            raise GateConfigInvalid(option="max_skew", reason="must be a finite number >= 0")
        self.max_skew = max_skew
        self.store_clock = store_clock

    def __repr__(self) -> str:
        return f"ApprovalGate(guards={sorted(self.guards)}, credentials={self.credentials!r})"

    def guarded(self, fn: Callable[..., Any], *, credential: str,
                resource: Callable[[dict[str, Any]], str],
                amount: Callable[[dict[str, Any]], int | None] = lambda a: None,
                needs_approval: Callable[[dict[str, Any]], bool] = lambda a: True,
                name: str | None = None, effect: EffectClass = EffectClass.KEYED,
                lookup: Callable[[ToolCall], Lookup] | None = None,
                max_total: int | None = None) -> GuardedTool:
        """Wrap ``fn`` as a guarded tool (register it with the runtime as usual). ``max_total``
        bounds the cumulative amount of its calls under the run's capability."""
        g = Guard(credential, resource, amount, needs_approval, _limit("max_total", max_total))
        t = GuardedTool(fn, self, g, name=name, effect=effect, lookup=lookup)
        self.guards[t.name] = g
        return t

    def verify(self, signed: Capability | Receipt) -> bool:
        """Whether a capability or receipt carries this gate's signature over its fields."""
        return signed.verify(self._key)

    # -- operator side (outside any run: not fenced, idempotent) --------------------------------

    def mint(self, rt: Runtime, run_id: str, tool: str, *, resource: str,
             max_amount: int | None = None, expires_for: float = 86_400.0) -> Capability:
        """Mint (or re-mint, replacing) the run's capability for ``tool``; stored in the run's kv."""
        if tool not in self.guards:
            raise OutOfScope(run_id=run_id, tool=tool, resource=resource,
                             reason="the tool is not guarded by this gate")
        body = dict(cap_id="cap_" + _hid(run_id, tool, resource, max_amount), run_id=run_id,
                    tool=tool, resource=resource, max_amount=max_amount,
                    expires_at=rt.clock.now() + expires_for,
                    credential=self.guards[tool].credential)
        cap = Capability(**body, signature=_sign(self._key, Capability.KIND, body))
        rt.store.set_kv(run_id, {K_CAP + tool: canonical_json(cap.to_dict())})
        return cap

    def requests(self, store: Any, run_id: str) -> list[ApprovalRequest]:
        """The approval requests a run has published, oldest first."""
        items = store.kv_items(run_id)
        reqs = [ApprovalRequest.from_dict(json.loads(v)) for k, v in items.items()
                if k.startswith(K_REQUEST)]
        return sorted(reqs, key=lambda r: r.effect["request_step"])

    def approve(self, rt: Runtime, run_id: str, request_id: str, *, approver: str,
                expires_for: float = 3_600.0, effect_digest: str | None = None) -> Receipt:
        """Sign a receipt for the request and deliver it as the run's signal. Idempotent: the
        first decision wins and is returned again. ``effect_digest``, when given, must be the
        digest the reviewer saw. Authenticating the approver is the caller's job."""
        raw = rt.store.kv_get(run_id, K_REQUEST + request_id)
        if raw is None:
            raise ApprovalMismatch(request_id=request_id, field="request", approved="?",
                                   requested="no such request in this run")
        req = ApprovalRequest.from_dict(json.loads(raw))
        if effect_digest is not None and effect_digest != req.effect_digest:
            raise ApprovalMismatch(request_id=request_id, field="effect_digest",
                                   approved=effect_digest, requested=req.effect_digest)
        now = rt.clock.now()
        body = dict(receipt_id="rcp_" + _hid(request_id, approver, now), request_id=request_id,
                    run_id=run_id, effect_digest=req.effect_digest, approver=approver,
                    granted_at=now, expires_at=now + expires_for)
        receipt = Receipt(**body, signature=_sign(self._key, Receipt.KIND, body))
        rt.signal(run_id, "approval:" + request_id,
                  {"decision": "granted", "receipt": receipt.to_dict()})
        delivered = json.loads(rt.store.kv_get(run_id, "signal:approval:" + request_id) or "{}")
        if delivered.get("decision") != "granted":  # someone decided first: the first one wins
            raise ApprovalRejected(request_id=request_id, approver=delivered.get("approver"),
                                   reason=delivered.get("reason"))
        return Receipt.from_dict(delivered["receipt"])

    def reject(self, rt: Runtime, run_id: str, request_id: str, *, approver: str,
               reason: str) -> None:
        """Deliver a rejection (idempotent: the first decision wins)."""
        rt.signal(run_id, "approval:" + request_id,
                  {"decision": "rejected", "request_id": request_id, "approver": approver,
                   "reason": reason, "at": rt.clock.now()})

    def revoke(self, rt: Runtime, run_id: str, what: str) -> None:
        """Revoke ``receipt:<id>``, ``approver:<name>``, ``capability:<id>`` or
        ``credential:<name>`` for a run; the gate reads it at dispatch. Idempotent (first time
        kept)."""
        if rt.store.kv_get(run_id, K_REVOKED + what) is None:
            rt.store.set_kv(run_id, {K_REVOKED + what: canonical_json(rt.clock.now())})

    def revoke_everywhere(self, rt: Runtime, what: str) -> list[str]:
        """Revoke ``what`` in every run that has not ended (revocations live in each run's kv);
        return those runs. Idempotent."""
        runs = [r.run.run_id for r in rt.store.list_runs() if not r.run.is_terminal]
        for run_id in runs:
            self.revoke(rt, run_id, what)
        return runs

    # -- workflow side ------------------------------------------------------------------------

    def _artifact(self, name: str | None) -> dict[str, str] | None:
        if name is None:
            return None
        try:
            data = self.artifacts(name) if self.artifacts else None
        except (KeyError, OSError):
            data = None
        return {"name": name, "digest": "missing" if data is None else digest_bytes(data)}

    def _resolve(self, run_id: str, store: Any, tool: str, args: dict[str, Any]
                 ) -> tuple[Guard, Capability | None, str]:
        """The guard, the run's capability and the resource a call of ``tool`` targets."""
        guard = self.guards.get(tool)
        if guard is None:
            raise OutOfScope(run_id=run_id, tool=tool, resource="-",
                             reason="the tool is not guarded by this gate")
        try:
            resource = str(guard.resource(args))
        except Exception as exc:  # the args do not name a resource: refuse, do not guess
            raise OutOfScope(run_id=run_id, tool=tool, resource="?",
                             reason=f"cannot read the resource: {exc!r}") from None
        return guard, _load(Capability, store.kv_get(run_id, K_CAP + tool)), resource

    def new_request(self, ctx: Context, step: int, tool: str, args: Mapping[str, Any],
                    artifact: str | None) -> dict[str, Any]:
        """Build the request for a call of ``tool`` (prepared args), storing the artifact's bytes."""
        rt = ctx.runtime
        prepared = json.loads(canonical_json(rt.tool(tool).prepare(dict(args), rt.scopes)))
        _, cap, resource = self._resolve(ctx.run_id, rt.store, tool, prepared)
        art = self._artifact(artifact)
        eff = effect_of(ctx.run_id, step, tool, prepared, resource,
                        cap.scope() if cap else None, art)
        if art is not None and art["digest"] != "missing" and self.artifacts is not None:
            rt.store.put_artifact(self.artifacts(art["name"]))  # what the reviewer is shown
        return ApprovalRequest("apr_" + _hid(ctx.run_id, step), eff, digest(eff),
                               rt.clock.now()).to_dict()

    def stage(self, ctx: Context, pending: Any) -> None:
        """Hand the next call of ``ctx`` a receipt (or the reviewer's rejection) to check."""
        ctx.state_for(self, _Staged).value = pending

    def take(self, ctx: Context) -> Any:
        """The receipt or rejection staged for ``ctx``'s call, once (None if nothing is)."""
        staged = ctx.state_for(self, _Staged)
        pending, staged.value = staged.value, None
        return pending

    def before_dispatch(self, ctx: Context, tool: Any, call: ToolCall) -> None:
        """The dispatch-time gate (a RuntimeHook method): raise a :class:`GateRefused`, or
        stage the receipt's single-use mark so it commits with the intent."""
        pending = self.take(ctx)
        if call.tool not in self.guards:
            return
        if isinstance(pending, ApprovalRejected):  # the reviewer said no: nothing else matters
            raise pending
        store = ctx.runtime.store
        now = expiry_now(store, ctx.runtime.clock.now(), self.max_skew, self.store_clock)
        revocations = {k[len(K_REVOKED):]: json.loads(v)
                       for k, v in store.kv_items(call.run_id).items() if k.startswith(K_REVOKED)}
        guard, cap, resource = self._resolve(call.run_id, store, call.tool, call.args)
        try:
            amount = guard.amount(call.args)
        except Exception as exc:
            raise OutOfScope(run_id=call.run_id, tool=call.tool, resource=resource,
                             reason=f"cannot read the amount: {exc!r}") from None
        check_capability(cap, run_id=call.run_id, tool=call.tool, resource=resource,
                         amount=amount, key=self._key, now=now, revocations=revocations)
        assert cap is not None  # check_capability refused a missing one
        idents = [f"capability:{cap.cap_id}", f"credential:{cap.credential}"]
        limits = [(f"capability:{cap.cap_id}", guard.max_total), ("run", self.run_limit)]
        if pending is None:
            if guard.needs_approval(call.args):
                raise ApprovalRequired(run_id=call.run_id, step=call.step, tool=call.tool)
            ctx.state_for(self, _Staged).plans[call.step] = CommitPlan(call.step, "-", idents,
                                                                       amount, limits)
            return
        receipt: Receipt = pending
        request = self._request_for(store, receipt)
        art = (request.effect.get("artifact") or {}).get("name")
        current = effect_of(call.run_id, request.effect["request_step"], call.tool, call.args,
                            resource, cap.scope() if cap else None, self._artifact(art))
        used = {k[len(K_USED):]: json.loads(v)["step"]
                for k, v in store.kv_items(request.effect["run_id"]).items()
                if k.startswith(K_USED)}
        try:
            self.check(receipt, request, current, key=self._key, now=now,
                       revocations=revocations, used=used)
        except GateRefused:
            raise
        except Exception as exc:  # fail closed, whatever the check did
            raise GateFailedClosed(tool=call.tool, reason=f"{type(exc).__name__}: {exc}") from None
        ctx.state_for(self, _Staged).plans[call.step] = CommitPlan(
            call.step, receipt.request_id,
            [*idents, f"receipt:{receipt.receipt_id}", f"approver:{receipt.approver}"], amount,
            limits)
        ctx.pending_kv[K_USED + receipt.receipt_id] = canonical_json(
            {"step": call.step, "effect_key": call.effect_key, "at": now,
             "request_id": receipt.request_id})

    def at_intent_commit(self, ctx: Context, tool: Any, call: ToolCall) -> None:
        """Inside the intent's transaction (:func:`minirt.dispatch.write_intent`): re-check the
        revocations and reserve the amount under the cumulative limits
        (:mod:`minirt.approval_commit`); refuse with :class:`~minirt.dispatch.CommitRefused`."""
        from .dispatch import CommitRefused

        plan = ctx.state_for(self, _Staged).plans.pop(call.step, None)
        if call.tool not in self.guards:
            return
        if plan is None or plan.step != call.step:  # fail closed: no gate check for this call
            raise CommitRefused(GateFailedClosed(tool=call.tool,
                                                 reason="no gate check preceded this intent"))
        try:
            check_at_commit(ctx.runtime.store, call.run_id, plan, _revoked)
        except MinirtError as exc:
            raise CommitRefused(exc) from None

    def at_outcome_commit(self, ctx: Context, call: ToolCall, kind: str, payload: Any) -> None:
        """Inside the transaction that journals a guarded call's outcome
        (:func:`minirt.dispatch.record_outcome`): an answered error gives the call's cumulative
        reservation back (:func:`minirt.approval_commit.release`); a result, a partial effect or
        an unknown outcome (never recorded here) keeps it."""
        if kind != "tool_error" or call.tool not in self.guards:
            return
        if (payload.get("error") or {}).get("type") == "PartialEffect":
            return  # part of the effect happened: the allowance stays spent
        release(ctx.runtime.store, call.run_id, call.step)

    def _request_for(self, store: Any, receipt: Receipt) -> ApprovalRequest:
        """The request a receipt names, read from the run it names; a receipt naming none is
        forged (bad signature) or for something else (a mismatch on ``request``)."""
        raw = None
        if _run_exists(store, str(receipt.run_id)):
            raw = store.kv_get(str(receipt.run_id), K_REQUEST + str(receipt.request_id))
        if raw is None:
            if not receipt.verify(self._key):
                raise ApprovalForged(request_id=receipt.request_id, receipt_id=receipt.receipt_id,
                                     reason="signature does not verify")
            raise ApprovalMismatch(request_id=receipt.request_id, field="request",
                                   approved=receipt.request_id, requested="no such request")
        return ApprovalRequest.from_dict(json.loads(raw))


def _revoked(request_id: str, ident: str, at: float) -> MinirtError:
    return ApprovalRevoked(request_id=request_id, revoked=ident, revoked_at=at)


def _limit(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise GateConfigInvalid(option=name, reason="a cumulative limit is an int >= 0 or None")
    return value


def _load(cls: Any, raw: str | None) -> Any:
    if raw is None:
        return None
    try:
        return cls.from_dict(json.loads(raw))
    except (ApprovalForged, TypeError, ValueError):
        return cls(**{f.name: "" for f in fields(cls)})  # fails its signature check, by design


def _run_exists(store: Any, run_id: str) -> bool:
    from .run import RunNotFound

    try:
        store.get_run(run_id)
    except RunNotFound:
        return False
    return True


def gate_of(ctx: Context) -> ApprovalGate:
    for hook in ctx.runtime.hooks:
        if isinstance(hook, ApprovalGate):
            return hook
    raise NoApprovalGate(run_id=ctx.run_id)


# -- workflow helpers ---------------------------------------------------------------------------

def publish_request(ctx: Context, req: ApprovalRequest) -> None:
    """Publish ``req`` for reviewers (kv ``approval:request:<id>``): fenced by the run's
    incarnation and idempotent, so a caller repeats it on every replay (a crash may fall between
    the journal write of the request and this one). The one writer of that key."""
    ctx.runtime.store.append(ctx.run_id, ctx.incarnation, [],
                             kv={K_REQUEST + req.request_id: canonical_json(req.to_dict())})


def request_approval(ctx: Context, tool: str, args: Mapping[str, Any], *,
                     artifact: str | None = None) -> Receipt:
    """Ask a reviewer to approve one exact call; wait durably (WAITING, ``approval:<id>``).

    Returns the receipt to pass to :func:`call_approved`. On a rejection, the call is journaled
    as rejected (:class:`ApprovalRejected`) and that error is raised to the workflow.
    """
    gate, rt = gate_of(ctx), ctx.runtime
    p = ctx.position
    req = ApprovalRequest.from_dict(
        ctx.step("approval_request", gate.new_request, ctx, p, tool, dict(args), artifact))
    publish_request(ctx, req)
    rt.faults.hit("approval_requested", run_id=ctx.run_id, request_id=req.request_id)
    decision = ctx.wait_for("approval:" + req.request_id)
    rt.faults.hit("after_approval_recorded", run_id=ctx.run_id, request_id=req.request_id)
    if not isinstance(decision, Mapping) or decision.get("decision") not in ("granted",
                                                                              "rejected"):
        raise ApprovalForged(request_id=req.request_id, receipt_id="?",
                             reason="the decision delivered is neither granted nor rejected")
    if decision["decision"] == "rejected":
        gate.stage(ctx, ApprovalRejected(request_id=req.request_id,
                                         approver=str(decision.get("approver")),
                                         reason=str(decision.get("reason"))))
        try:
            ctx.call_tool(tool, dict(args))  # refused by the gate, journaled as tool_rejected
        finally:
            gate.take(ctx)
        raise ToolError(tool=tool, reason="the rejection was not enforced")  # not reached
    return Receipt.from_dict(decision.get("receipt"))


def call_approved(ctx: Context, tool: str, args: Mapping[str, Any],
                  receipt: Receipt | Mapping[str, Any]) -> Any:
    """``ctx.call_tool`` with a receipt; the gate checks it at dispatch and spends it once."""
    gate = gate_of(ctx)
    if tool not in gate.guards:  # a receipt for an unguarded tool would be silently ignored
        raise OutOfScope(run_id=ctx.run_id, tool=tool, resource="-",
                         reason="the tool is not guarded by this gate")
    gate.stage(ctx, receipt if isinstance(receipt, Receipt) else Receipt.from_dict(receipt))
    try:
        return ctx.call_tool(tool, dict(args))
    finally:
        gate.take(ctx)
