"""Who owns which key of a run's kv: every key minirt writes, by prefix, with its owning module.

A run's kv (:meth:`minirt.store.base.Store.set_kv`, ``kv=`` on ``append``/``transition``) is
small per-run state committed with the journal. Several modules keep state there; this registry
says, for each key or key prefix minirt writes, which module owns it (defines its format and is
the one that writes it) and what it holds.

Invariant: every kv key that code in ``minirt/`` writes falls under exactly one entry of
:data:`KV_KEYS` (the longest matching one), and is written only by that entry's ``owner`` or a
module listed in its ``writers`` (each with the reason). ``tests/test_kvkeys.py`` reads the source
of ``minirt/`` and checks every write it finds: a new key, or a module that starts writing a
neighbour's key, fails the test until it is registered here.

Guarantees: the documentation of each key in one place, and a named owner to ask before changing
a key's format. Not guaranteed: anything at run time. Stores do not consult this registry (a write
costs nothing more), and keys an application passes through minirt (a saga step's ``state``, a
tool call's ``kv``) are the application's own and are not listed; an application should not use
a prefix listed here.

Imports nothing of minirt.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KvKey:
    """One key (``exact``) or key prefix of a run's kv, the module that owns it, and what it holds.

    ``writers`` are the other modules that write it, each as ``(module, why)``.
    """

    prefix: str
    owner: str
    doc: str
    exact: bool = False
    writers: tuple[tuple[str, str], ...] = ()

    def covers(self, key: str, *, is_prefix: bool = False) -> bool:
        """Whether ``key`` (a whole key, or with ``is_prefix`` the known start of one) is under
        this entry."""
        if self.exact:
            return not is_prefix and key == self.prefix
        return key.startswith(self.prefix)

    def may_write(self, module: str) -> bool:
        return module == self.owner or module in {m for m, _ in self.writers}


KV_KEYS: tuple[KvKey, ...] = (
    KvKey("signal:", "minirt.runtime",
          "signal:<name> -> the signal's payload (canonical JSON). Runtime.signal writes it once "
          "(the first payload wins) and wakes a waiting run; waits, timers and approvals read "
          "it (approval decisions arrive as signal:approval:<request_id>)."),
    KvKey("timer:", "minirt.timers",
          "timer:<signal name> -> due time (epoch seconds, JSON number) of a durable timer; the "
          "due-timer sweep delivers the signal when it is due.",
          writers=(("minirt.retry", "a scheduled retry parks on a timer of its own name"),)),
    KvKey("cancel", "minirt.cancel",
          "the run's cancel record (JSON: reason, phase, deadline), written with every cancel "
          "event in the same transaction.", exact=True,
          writers=(("minirt_course.grading.m08",
                    "the drill-08 grader's reference request path runs cancel's protocol"),)),
    KvKey("deadline", "minirt.cancel",
          "the run's own deadline_at (JSON number): when the runtime cancels it.", exact=True),
    KvKey("approval:request:", "minirt.approvals",
          "approval:request:<request_id> -> the published ApprovalRequest (JSON).",
          writers=(("minirt.approval_deadline",
                    "a request with a deadline is published with its timer"),)),
    KvKey("approval:used:", "minirt.approvals",
          "approval:used:<receipt_id> -> the single-use mark of a receipt (JSON, with its step), "
          "committed with the intent of the call that used it (ctx.pending_kv)."),
    KvKey("approval:spent:", "minirt.approval_commit",
          "approval:spent:capability:<cap_id> | approval:spent:run -> the amount counted so far "
          "against a cumulative limit (JSON int)."),
    KvKey("approval:reserved:", "minirt.approval_commit",
          "approval:reserved:<step> -> the amount a call at <step> reserved and the totals it "
          "counted in (JSON), given back if the call ends in an answered error."),
    KvKey("capability:", "minirt.approvals",
          "capability:<tool> -> the run's capability for <tool> (JSON), minted by the gate."),
    KvKey("revoked:", "minirt.approvals",
          "revoked:<capability id | receipt id | request id> -> when it was revoked (epoch "
          "seconds, JSON)."),
    KvKey("budget:account", "minirt.budget",
          "the run's budget account (JSON: limits and spend per dimension).", exact=True),
    KvKey("budget:res:", "minirt.budget",
          "budget:res:<reservation_id> -> an open or closed reservation against the account."),
    KvKey("budget:closed", "minirt.budget",
          "the account's closing record (JSON: the reservations released when the run ended).",
          exact=True),
    KvKey("operator:resolution:", "minirt.operator",
          "operator:resolution:<effect_key> -> an operator's resolution of an uncertain effect "
          "(JSON, with who and why)."),
)


class KvKeyUnregistered(LookupError):
    """A kv key (or key prefix) that no entry of :data:`KV_KEYS` covers."""


def owner_of(key: str, *, is_prefix: bool = False) -> KvKey:
    """The entry covering ``key`` (the longest prefix wins), or :class:`KvKeyUnregistered`."""
    best: KvKey | None = None
    for entry in KV_KEYS:
        if entry.covers(key, is_prefix=is_prefix) and (
                best is None or len(entry.prefix) > len(best.prefix)):
            best = entry
    if best is None:
        raise KvKeyUnregistered(f"kv key {'prefix ' if is_prefix else ''}{key!r}: no entry of "
                                "minirt.kvkeys.KV_KEYS covers it; register it with its owner")
    return best
