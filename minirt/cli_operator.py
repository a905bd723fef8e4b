"""``minirt approve|deny|revoke|signal|cancel|resolve|retry|fork|resume|pending|console``:
operators' commands.

::

    minirt approve --store URL --app M:A RUN_ID REQUEST_ID --reason WHY [--by WHO]
                   [--effect-digest D] [--expires-for S] [--run]
    minirt deny    --store URL --app M:A RUN_ID REQUEST_ID --reason WHY [--by WHO] [--run]
    minirt revoke  --store URL --app M:A RUN_ID WHAT --reason WHY [--by WHO]
    minirt signal  --store URL RUN_ID NAME [PAYLOAD_JSON] --reason WHY [--by WHO] [--app M:A --run]
    minirt cancel  --store URL RUN_ID --reason WHY [--by WHO] [--app M:A --run]
    minirt resolve --store URL RUN_ID (--happened RESULT_JSON | --did-not-happen) --reason WHY
                   [--by WHO] [--effect-key K] [--evidence JSON] [--app M:A --run]
    minirt retry   --store URL RUN_ID --reason WHY [--by WHO] [--new-run-id ID] [--app M:A --run]
    minirt fork    --store URL RUN_ID POSITION --reason WHY [--by WHO] [--new-run-id ID]
                   [--app M:A --run]
    minirt resume  --store URL --app M:A RUN_ID [--wait] [--timeout S]
    minirt console --store URL [--app M:A] [--host H] [--port P] [--user NAME]
    minirt pending --store URL [RUN_ID] [--json]

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


def _forked(op: Operator, args: argparse.Namespace, made: Any, action: str) -> int:
    done = {"action": action, "run_id": made.run_id, "from_run": made.from_run,
            "position": made.position, "copied": made.copied}
    args.run_id = made.run_id  # --run executes the new run
    return _finish(op, args, done)


def cmd_retry(args: argparse.Namespace) -> int:
    op = _operator(args)
    made = op.retry(args.run_id, by=args.by, reason=args.reason, new_run_id=args.new_run_id,
                    timeout=args.timeout)
    return _forked(op, args, made, "resumed (parked)" if made.resumed else "retried")


def cmd_fork(args: argparse.Namespace) -> int:
    op = _operator(args)
    made = op.fork(args.run_id, args.position, by=args.by, reason=args.reason,
                   new_run_id=args.new_run_id)
    return _forked(op, args, made, "forked")


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


def pending(store: Any, run_ids: list[str] | None = None) -> list[dict[str, Any]]:
    """What awaits an operator in each unfinished run: its wait (and timer), a divergence it is
    parked for (``diverged``: :func:`minirt.operator.diverged`), its undecided approval requests
    (the exact effect under review) and its unresolved effects."""
    from .approvals import K_REQUEST
    from .operator import diverged, unresolved
    from .run import RunState
    from .timers import K_TIMER

    recs = ([store.get_run(r) for r in run_ids] if run_ids else
            [r for r in store.list_runs() if not r.run.is_terminal])
    out = []
    for rec in recs:
        run, kv = rec.run, store.kv_items(rec.run.run_id)
        item: dict[str, Any] = {"run_id": run.run_id, "workflow": rec.workflow,
                                "state": run.state.value}
        if run.state is RunState.WAITING:
            name = run.detail.get("waiting_for")
            if name is not None:  # None: parked for a divergence, nothing wakes it
                item["waiting_for"] = str(name)
                if K_TIMER + str(name) in kv:
                    item["due_at"] = json.loads(kv[K_TIMER + str(name)])
            found = diverged(store, run.run_id)
            if found is not None:
                item["diverged"] = found
        item["approvals"] = [
            {"request_id": k[len(K_REQUEST):], "tool": req["effect"]["tool"],
             "args": req["effect"]["args"], "effect_digest": req["effect_digest"]}
            for k, v in sorted(kv.items()) if k.startswith(K_REQUEST)
            for req in [json.loads(v)] if f"signal:approval:{k[len(K_REQUEST):]}" not in kv]
        item["unresolved"] = ([{"step": u.step, "tool": u.tool, "effect_key": u.effect_key,
                                "args": u.args, "attempt": u.attempt}
                               for u in unresolved(store, run.run_id)]
                              if run.state is RunState.UNCERTAIN else [])
        out.append(item)
    return out


def diverged_line(found: dict[str, Any]) -> str:
    """One line for a parked divergence (``minirt pending`` and ``minirt show``)."""
    return (f"DIVERGED at step {found['step']}: recorded {found['recorded']}, the code now asks "
            f"for {found['requested']}; {found['hint']}")


def cmd_pending(args: argparse.Namespace) -> int:
    store = open_store(args.store)
    try:
        items = pending(store, [args.run_id] if args.run_id else None)
    finally:
        store.close()
    if args.json:
        for item in items:
            print(json.dumps(item, sort_keys=True, default=str))
        return 0
    for item in items:
        line = f"{item['run_id']}  {item['workflow']}  {item['state']}"
        if item.get("waiting_for"):
            line += f"  waiting for {item['waiting_for']}"
        if "due_at" in item:
            line += f" (timer due {when(item['due_at'])})"
        print(line)
        if "diverged" in item:
            print("    " + diverged_line(item["diverged"]))
        for a in item["approvals"]:
            print(f"    approval {a['request_id']}: {a['tool']} "
                  f"{json.dumps(a['args'], sort_keys=True)}  effect {a['effect_digest']}")
        for u in item["unresolved"]:
            print(f"    uncertain step {u['step']}: {u['tool']} "
                  f"{json.dumps(u['args'], sort_keys=True)}  key {u['effect_key']} "
                  f"(attempt {u['attempt']})")
    print(f"{len(items)} run(s) not finished")
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

    q = sub.add_parser("pending", help="what awaits an operator: approvals, UNCERTAIN effects")
    q.add_argument("--store", required=True)
    q.add_argument("--json", action="store_true", help="one JSON object per run (epoch times)")
    q.add_argument("run_id", nargs="?", default=None)
    q.set_defaults(fn=cmd_pending)

    t = sub.add_parser("retry", help="re-run a failed or parked run from its last consistent "
                                     "step")
    _common(t)
    t.add_argument("--new-run-id", default=None, help="id of the new run (failed runs)")
    t.set_defaults(fn=cmd_retry)

    f = sub.add_parser("fork", help="copy a run's journal up to a step position into a new run")
    _common(f)
    f.add_argument("position", type=int, help="step position N: positions 0..N-1 are copied")
    f.add_argument("--new-run-id", default=None, help="id of the new run")
    f.set_defaults(fn=cmd_fork)

    from .console.cli import register as register_console

    register_console(sub)

    m = sub.add_parser("resume", help="execute a run now (after a crash: --wait)")
    _common(m, app_required=True, who=False, run=False)
    m.add_argument("--wait", action="store_true",
                   help="wait until a dead worker's lease lapses instead of raising LeaseHeld")
    m.add_argument("--timeout", type=float, default=None, help="give up waiting after S s")
    m.set_defaults(fn=cmd_resume)
