"""``minirt approve|deny|revoke|signal|cancel|resolve|resume``: operator actions from a shell.

::

    minirt approve --store URL --app M:A RUN_ID REQUEST_ID --reason WHY [--by WHO]
                   [--effect-digest D] [--expires-for S] [--run]
    minirt deny    --store URL --app M:A RUN_ID REQUEST_ID --reason WHY [--by WHO] [--run]
    minirt revoke  --store URL --app M:A RUN_ID WHAT --reason WHY [--by WHO]
    minirt signal  --store URL RUN_ID NAME [PAYLOAD_JSON] --reason WHY [--by WHO] [--app M:A --run]
    minirt cancel  --store URL RUN_ID --reason WHY [--by WHO] [--app M:A --run]
    minirt resolve --store URL RUN_ID (--happened RESULT_JSON | --did-not-happen) --reason WHY
                   [--by WHO] [--effect-key K] [--evidence JSON] [--app M:A --run]
    minirt resume  --store URL --app M:A RUN_ID [--wait] [--timeout S]

Each action is :class:`minirt.operator.Operator`'s, journaled as an ``operator`` event with
``--by`` (default: the login name of the shell's user) and ``--reason`` (required). ``--run``
executes the run right after the action with the application's runtime (``--app``), waiting
out a dead worker's lease first; without it, a worker (``minirt worker``) picks the run up.
Approvals need ``--app``: the ApprovalGate holds the signing key. Prints one line saying what
was done (``--json``: one JSON object). Errors are named and exit 2, like every ``minirt``
command (:mod:`minirt.cli`).

Guarantees and limits are the operator API's (:mod:`minirt.operator`); ``--by`` is not
authenticated.
"""

from __future__ import annotations

import argparse
import getpass
import json
from typing import Any

from .errors import MinirtError
from .humantime import when
from .operator import DID_NOT_HAPPEN, HAPPENED, Operator, attach
from .store import open_store


class OperatorArgumentInvalid(MinirtError):
    """A command-line argument of an operator command is not usable. Nothing is written."""

    fields = ("argument", "reason")
    template = "{argument}: {reason}"


def _json_arg(name: str, text: str | None) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise OperatorArgumentInvalid(argument=name, reason=f"not JSON: {exc}") from None


def _operator(args: argparse.Namespace) -> Operator:
    from .cli import build_runtime, load_app

    if args.app:
        rt = attach(build_runtime(load_app(args.app), open_store(args.store)))
        return Operator.for_runtime(rt)
    return Operator(open_store(args.store))


def _finish(op: Operator, args: argparse.Namespace, done: dict[str, Any]) -> int:
    try:
        if getattr(args, "run", False):
            out = op.resume(args.run_id, wait=True, timeout=getattr(args, "timeout", None))
            done["run"] = {"state": out.state.value}
            if out.state.value == "succeeded":
                done["run"]["result"] = out.value
        run = op.store.get_run(args.run_id).run
        done["state"] = run.state.value
    finally:
        (op.runtime or op.store).close()
    if args.json:
        print(json.dumps(done, sort_keys=True, default=str))
    else:
        what = ", ".join(f"{k}={v}" for k, v in done.items() if k not in ("action", "run_id"))
        print(f"{done['action']} {args.run_id}: {what}")
    return 0


def cmd_approve(args: argparse.Namespace) -> int:
    op = _operator(args)
    receipt = op.approve(args.run_id, args.request_id, by=args.by, reason=args.reason,
                         effect_digest=args.effect_digest, expires_for=args.expires_for)
    return _finish(op, args, {"action": "approved", "run_id": args.run_id,
                              "receipt": receipt.receipt_id,
                              "expires": when(receipt.expires_at)})


def cmd_deny(args: argparse.Namespace) -> int:
    op = _operator(args)
    op.deny(args.run_id, args.request_id, by=args.by, reason=args.reason)
    return _finish(op, args, {"action": "denied", "run_id": args.run_id,
                              "request": args.request_id})


def cmd_revoke(args: argparse.Namespace) -> int:
    op = _operator(args)
    op.revoke(args.run_id, args.what, by=args.by, reason=args.reason)
    return _finish(op, args, {"action": "revoked", "run_id": args.run_id, "what": args.what})


def cmd_signal(args: argparse.Namespace) -> int:
    payload = _json_arg("PAYLOAD_JSON", args.payload_json)
    op = _operator(args)
    op.signal(args.run_id, args.name, payload, by=args.by, reason=args.reason)
    return _finish(op, args, {"action": "signalled", "run_id": args.run_id, "name": args.name})


def cmd_cancel(args: argparse.Namespace) -> int:
    op = _operator(args)
    changed = op.cancel(args.run_id, by=args.by, reason=args.reason)
    return _finish(op, args, {"action": "cancel requested" if changed else "cancel (no change)",
                              "run_id": args.run_id})


def cmd_resolve(args: argparse.Namespace) -> int:
    if (args.happened is None) == (not args.did_not_happen):
        raise OperatorArgumentInvalid(argument="resolve",
                                      reason="give exactly one of --happened RESULT_JSON and "
                                             "--did-not-happen")
    value = _json_arg("--happened", args.happened)
    evidence = _json_arg("--evidence", args.evidence) or {}
    if not isinstance(evidence, dict):
        raise OperatorArgumentInvalid(argument="--evidence", reason="must be a JSON object")
    op = _operator(args)
    target = op.resolve(args.run_id, outcome=HAPPENED if args.happened is not None
                        else DID_NOT_HAPPEN, by=args.by, reason=args.reason,
                        effect_key=args.effect_key, value=value, evidence=evidence)
    return _finish(op, args, {"action": "resolved", "run_id": args.run_id,
                              "step": target.step, "tool": target.tool,
                              "effect_key": target.effect_key,
                              "outcome": HAPPENED if args.happened is not None
                              else DID_NOT_HAPPEN})


def cmd_resume(args: argparse.Namespace) -> int:
    op = _operator(args)
    try:
        out = op.resume(args.run_id, wait=args.wait, timeout=args.timeout)
    finally:
        (op.runtime or op.store).close()
    done = {"action": "resumed", "run_id": args.run_id, "state": out.state.value}
    if out.state.value == "succeeded":
        done["result"] = out.value
    print(json.dumps(done, sort_keys=True, default=str) if args.json
          else f"resumed {args.run_id}: state={out.state.value}")
    return 0


def _common(p: argparse.ArgumentParser, *, app_required: bool = False,
            who: bool = True, run: bool = True) -> None:
    p.add_argument("--store", required=True, help="postgresql://... or a SQLite path")
    p.add_argument("--app", required=app_required, default=None,
                   help="module:attr, a function store -> Runtime (the application)")
    if who:
        p.add_argument("--by", default=getpass.getuser(),
                       help="who acts (journaled; default: your login name)")
        p.add_argument("--reason", required=True, help="why (journaled)")
    if run:
        p.add_argument("--run", action="store_true",
                       help="then execute the run now with --app (waits out a dead lease)")
        p.add_argument("--timeout", type=float, default=None,
                       help="with --run: give up waiting for a lease after S seconds")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("run_id")


def register(sub: Any) -> None:
    """Add the operator subcommands to ``minirt``'s subparsers (:func:`minirt.cli.parser`)."""
    a = sub.add_parser("approve", help="sign a receipt for a pending approval request")
    _common(a, app_required=True)
    a.add_argument("request_id")
    a.add_argument("--effect-digest", default=None, help="the digest the reviewer saw")
    a.add_argument("--expires-for", type=float, default=3600.0, help="receipt lifetime (s)")
    a.set_defaults(fn=cmd_approve)

    d = sub.add_parser("deny", help="refuse a pending approval request")
    _common(d, app_required=True)
    d.add_argument("request_id")
    d.set_defaults(fn=cmd_deny)

    r = sub.add_parser("revoke", help="revoke a receipt, approver, capability or credential")
    _common(r, app_required=True, run=False)
    r.add_argument("what", help="receipt:<id> | approver:<name> | capability:<id> | "
                                "credential:<name>")
    r.set_defaults(fn=cmd_revoke)

    s = sub.add_parser("signal", help="deliver a signal to a run")
    _common(s)
    s.add_argument("name")
    s.add_argument("payload_json", nargs="?", default=None)
    s.set_defaults(fn=cmd_signal)

    c = sub.add_parser("cancel", help="request a run's cancellation")
    _common(c)
    c.set_defaults(fn=cmd_cancel)

    v = sub.add_parser("resolve", help="settle an UNCERTAIN effect with evidence")
    _common(v)
    v.add_argument("--happened", default=None, metavar="RESULT_JSON",
                   help="it happened: the provider's record, used as the step's result")
    v.add_argument("--did-not-happen", action="store_true",
                   help="a lookup found nothing: send it again with the same effect key")
    v.add_argument("--effect-key", default=None, help="which effect (if several are open)")
    v.add_argument("--evidence", default=None, help="JSON object journaled with it")
    v.set_defaults(fn=cmd_resolve)

    m = sub.add_parser("resume", help="execute a run now (after a crash: --wait)")
    _common(m, app_required=True, who=False, run=False)
    m.add_argument("--wait", action="store_true",
                   help="wait until a dead worker's lease lapses instead of raising LeaseHeld")
    m.add_argument("--timeout", type=float, default=None, help="give up waiting after S s")
    m.set_defaults(fn=cmd_resume)
