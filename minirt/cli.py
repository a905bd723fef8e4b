"""``minirt``: run workers, submit runs and look at them, on any store (SQLite file or PostgreSQL).

::

    minirt worker --store URL --app module:attr [--concurrency N] [--lease-for S] [--max-runs N]
                  [--idle-exit] [--worker-id ID] [--poll S] [--verbose]
    minirt submit --store URL --app module:attr WORKFLOW INPUT_JSON [--run-id ID]
    minirt runs   --store URL [--state S]
    minirt show   --store URL RUN_ID
    minirt prune  --store URL --older-than DURATION [--dry-run]

``--app module:attr`` names a function ``attr(store) -> Runtime`` that returns a Runtime
configured with the application's tools and workflows on the store it is given. The worker sets
the runtime's ``worker_id`` and ``lease_for`` itself.

A **worker** claims runnable runs (pending, or whose lease expired) with ``Store.claim_next`` and
executes them (``Runtime.work``), ``--concurrency`` runs at a time (one thread and one store
connection each). Leases are extended by every journal write and, during long steps, by a
heartbeat thread (a fenced, empty journal append every ``lease_for / 3`` seconds). A write from
a worker whose lease was taken over is rejected by the store (fencing); the worker drops that
run and goes on with the next. A run whose journal does not verify is skipped by the claim (never
written to) and reported once: ``skipped run ID, its journal does not verify: ...``. SIGTERM or
SIGINT drains: each thread stops at the run's next checkpoint, releases the run (it becomes
pending, claimable at once by another worker) and the process exits 0; a second signal exits at
once (the lease then lapses and another worker takes the run over). On exit the worker prints
one line ``minirt-worker-summary {json}`` with its counts.

``prune`` deletes finished runs (succeeded, failed, cancelled) whose last change is older than
``DURATION`` (``90s``, ``45m``, ``12h``, ``30d``, ``2w``, or seconds), with their journals, kv
and the artifacts nothing else names; it never touches a run that has not finished.
``--dry-run`` prints what it would delete and deletes nothing.

``runs`` and ``show`` print times in the local zone; ``--json`` prints JSON with epoch seconds.
The operators' commands (``approve``, ``deny``, ``revoke``, ``signal``, ``cancel``, ``resolve``,
``resume``, ``pending``) are in :mod:`minirt.cli_operator`.

Errors are named (:class:`~minirt.errors.MinirtError`): the command prints ``minirt: <message>``
on stderr and exits 2. Nothing else is written to stderr.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from .errors import MinirtError
from .ids import check_run_id
from .journal import verified_end
from .run import LeaseHeld, RevisionConflict, RunEvent, RunIsTerminal, RunState, StaleIncarnation
from .runtime import Context, Runtime, RuntimeHook
from .store import open_store
from .store.base import Store
from .store.postgres import StoreUnavailable
from .store.sqlite import StoreUnreadable

#: The fencing family: a write this worker may no longer make. The run belongs to someone else.
FENCED = (StaleIncarnation, RunIsTerminal, LeaseHeld, RevisionConflict)
#: The store cannot be used any more through this connection: reopen it.
LOST_STORE = (StoreUnavailable, StoreUnreadable)


class CliInputInvalid(MinirtError):
    """A command-line argument is not usable (bad JSON input, an app that is not a factory).

    Raised before anything is written. Not a store or run error.
    """

    fields = ("argument", "reason")
    template = "{argument}: {reason}"


class StopRun(BaseException):  # noqa: N818 - control flow, like SimulatedCrash
    """Internal: leave the current run at a checkpoint (drain on SIGTERM, or lease lost)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def load_app(ref: str) -> Callable[[Store], Runtime]:
    """Import ``module:attr`` and return it (a function ``store -> Runtime``)."""
    mod_name, _, attr = ref.partition(":")
    if not mod_name or not attr:
        raise CliInputInvalid(argument="--app", reason=f"{ref!r} is not 'module:attr'")
    try:
        fn = getattr(importlib.import_module(mod_name), attr)
    except (ImportError, AttributeError) as exc:
        raise CliInputInvalid(argument="--app", reason=f"cannot import {ref!r}: {exc}") from None
    if not callable(fn):
        raise CliInputInvalid(argument="--app", reason=f"{ref!r} is not callable")
    return fn


def build_runtime(app: Callable[[Store], Runtime], store: Store) -> Runtime:
    rt = app(store)
    if not isinstance(rt, Runtime):
        raise CliInputInvalid(argument="--app",
                              reason=f"the factory returned {type(rt).__name__}, not a Runtime")
    from .operator import attach  # honour operators' resolutions of UNCERTAIN effects

    return attach(rt)


# -- worker -------------------------------------------------------------------------------------

class Slot(RuntimeHook):
    """One worker thread's view of its current run, shared with the heartbeat thread."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.current: tuple[str, int] | None = None  # (run_id, incarnation) while executing
        self.lease_lost = False  # a fact: the heartbeat was told the run has a newer incarnation

    def at_checkpoint(self, ctx: Context) -> None:
        if self.current != (ctx.run_id, ctx.incarnation):
            self.current, self.lease_lost = (ctx.run_id, ctx.incarnation), False
        if self.lease_lost:
            raise StopRun("lease lost")
        if self.worker.stopping.is_set():
            raise StopRun("draining")

    def on_run_end(self, ctx: Context, state: RunState) -> None:
        self.current = None


class Worker:
    """A worker process: ``concurrency`` executor threads plus one heartbeat thread."""

    def __init__(self, store_url: str, app: Callable[[Store], Runtime], *, worker_id: str,
                 concurrency: int = 1, lease_for: float = 30.0, max_runs: int | None = None,
                 idle_exit: bool = False, poll_s: float = 0.5, verbose: bool = False) -> None:
        self.store_url = store_url
        self.app = app
        self.worker_id = worker_id
        self.concurrency = max(1, int(concurrency))
        self.lease_for = float(lease_for)
        self.max_runs = max_runs
        self.idle_exit = idle_exit
        self.poll_s = poll_s
        self.verbose = verbose
        self.stopping = threading.Event()  # set on SIGTERM/SIGINT: drain and exit
        self.drained = threading.Event()  # set once every executor thread has ended
        self.stats: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._taken = 0  # Invariant: runs claimed or being claimed, never above max_runs
        self.slots: list[Slot] = []
        self._refused_seen: set[str] = set()  # runs already reported as skipped (corrupted)

    def say(self, text: str) -> None:
        print(f"[{self.worker_id}] {text}", flush=True)

    def _reserve(self) -> bool:
        with self._lock:
            if self.max_runs is not None and self._taken >= self.max_runs:
                return False
            self._taken += 1
            return True

    def _unreserve(self) -> None:
        with self._lock:
            self._taken -= 1

    def count(self, key: str, n: int = 1) -> None:
        with self._lock:
            self.stats[key] += n

    def run(self) -> Counter[str]:
        threads = [threading.Thread(target=self._executor, args=(i,), daemon=True,
                                    name=f"minirt-exec-{i}") for i in range(self.concurrency)]
        hb = threading.Thread(target=self._heartbeat, daemon=True, name="minirt-heartbeat")
        hb.start()
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(0.2)
        self.stopping.set()
        self.drained.set()  # the heartbeat runs until here: a draining run keeps its lease
        hb.join(5)
        return self.stats

    def _executor(self, index: int) -> None:
        wid = self.worker_id if self.concurrency == 1 else f"{self.worker_id}/{index}"
        slot = Slot(self)
        self.slots.append(slot)
        rt: Runtime | None = None
        backoff = 0.2
        while not self.stopping.is_set():
            if rt is None:
                try:
                    rt = build_runtime(self.app, open_store(self.store_url))
                except Exception as exc:  # the store is down: wait and try again
                    self.say(f"cannot open the store, retrying: {exc}")
                    self.stopping.wait(backoff)
                    backoff = min(backoff * 2, 5.0)
                    continue
                rt.worker_id, rt.lease_for = wid, self.lease_for
                rt.hooks.append(slot)
                backoff = 0.2
            if not self._reserve():
                break
            try:
                outcomes = rt.work(max_runs=1)
            except StopRun as stop:
                self._left_run(rt, slot, stop.why)
                continue
            except FENCED as exc:
                self.count("fenced")
                if self.verbose:
                    self.say(f"fenced out: {exc}")
                continue
            except LOST_STORE as exc:  # the store went away: reopen it and go on
                self.count("store_lost")
                self.say(f"store lost, reopening: {exc}")
                _close_quietly(rt)
                rt = None
                continue
            except Exception as exc:  # anything else: say it, count it, never die silently
                self.count("errors")
                self.say(f"error: {type(exc).__name__}: {exc}")
                _close_quietly(rt)
                rt = None
                self.stopping.wait(backoff)
                continue
            finally:
                slot.current = None
            self._report_refused(rt)
            if not outcomes:
                self._unreserve()
                if self.idle_exit:
                    break
                self.stopping.wait(self.poll_s)
                continue
            out = outcomes[0]
            self.count(out.state.value)
            if self.verbose:
                self.say(f"run {out.run_id}: {out.state.value}")
        if rt is not None:
            _close_quietly(rt)

    def _report_refused(self, rt: Runtime) -> None:
        """Say once per run that the store skipped it because its journal does not verify
        (``Store.refused``): it stays as it is, for an operator (``minirt show`` names the row)."""
        refused = getattr(rt.store, "refused", None) or {}
        with self._lock:
            new = {k: v for k, v in refused.items() if k not in self._refused_seen}
            self._refused_seen.update(new)
        for run_id, exc in new.items():
            self.count("refused")
            self.say(f"skipped run {run_id}, its journal does not verify: {exc}")

    def _left_run(self, rt: Runtime, slot: Slot, why: str) -> None:
        if slot.current is None:
            return
        run_id, incarnation = slot.current
        if why == "lease lost":
            self.count("lease_lost")
            return
        try:  # hand the run back at once rather than letting its lease lapse
            rt.store.transition(run_id, RunEvent("release", at=rt.clock.now(),
                                                 incarnation=incarnation))
            self.count("released")
        except MinirtError:
            self.count("release_refused")

    def _heartbeat(self) -> None:
        store: Store | None = None
        clock = time.time
        while not self.drained.wait(max(self.lease_for / 3.0, 0.05)):
            for slot in list(self.slots):
                current = slot.current
                if current is None:
                    continue
                try:
                    if store is None:
                        store = open_store(self.store_url)
                    store.append(current[0], current[1], [],
                                 lease_until=clock() + self.lease_for)
                    self.count("heartbeats")
                except (StaleIncarnation, RunIsTerminal):
                    if slot.current == current:
                        slot.lease_lost = True
                except MinirtError:
                    if store is not None:
                        _close_quietly(store)
                    store = None
        if store is not None:
            _close_quietly(store)


def _close_quietly(obj: Any) -> None:
    try:
        obj.close()
    except Exception:  # closing a broken connection may fail; there is nothing left to do
        pass


def cmd_worker(args: argparse.Namespace) -> int:
    app = load_app(args.app)
    worker_id = args.worker_id or f"{socket.gethostname()}-{os.getpid()}"
    _close_quietly(build_runtime(app, open_store(args.store)))  # fail fast, with a named error
    w = Worker(args.store, app, worker_id=worker_id, concurrency=args.concurrency,
               lease_for=args.lease_for, max_runs=args.max_runs, idle_exit=args.idle_exit,
               poll_s=args.poll, verbose=args.verbose)

    def on_signal(signum: int, frame: Any) -> None:
        if w.stopping.is_set():
            os._exit(128 + signum)  # second signal: leave now, the lease will lapse
        w.stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    w.say(f"started: pid={os.getpid()} concurrency={w.concurrency} lease_for={w.lease_for}s")
    stats = w.run()
    print("minirt-worker-summary " + json.dumps({"worker_id": worker_id, **dict(stats)},
                                                 sort_keys=True), flush=True)
    return 0


# -- submit, runs, show -------------------------------------------------------------------------

def cmd_submit(args: argparse.Namespace) -> int:
    try:
        data = json.loads(args.input_json)
    except json.JSONDecodeError as exc:
        raise CliInputInvalid(argument="INPUT_JSON", reason=f"not JSON: {exc}") from None
    rt = build_runtime(load_app(args.app), open_store(args.store))
    try:
        print(rt.start(args.workflow, data, run_id=args.run_id))
    finally:
        rt.close()
    return 0


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Plain text columns, left aligned (numbers too: ids and times read better that way)."""
    cells = [[str(h) for h in headers]] + [["" if v is None else str(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cmd_runs(args: argparse.Namespace) -> int:
    store = open_store(args.store)
    try:
        recs = store.list_runs([args.state] if args.state else None)
    finally:
        store.close()
    if getattr(args, "json", False):  # the epoch, for programs
        for r in recs:
            print(json.dumps({"run_id": r.run.run_id, "workflow": r.workflow,
                              "state": r.run.state.value, "revision": r.run.revision,
                              "incarnation": r.run.incarnation, "worker_id": r.run.worker_id,
                              "lease_expires_at": r.run.lease_expires_at,
                              "created_at": r.created_at}, sort_keys=True))
        return 0
    print(table(["run_id", "workflow", "state", "rev", "inc", "worker", "lease_expires_at"],
                [(r.run.run_id, r.workflow, r.run.state.value, r.run.revision, r.run.incarnation,
                  r.run.worker_id, _t(r.run.lease_expires_at)) for r in recs]))
    print(f"{len(recs)} run(s)")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    check_run_id(args.run_id)  # an argv that is not UTF-8 arrives with lone surrogates
    store = open_store(args.store)
    try:
        rec = store.get_run(args.run_id)
        events = store.read(args.run_id)  # verified (keyed chain with $MINIRT_CHAIN_KEY)
        end = (verified_end(store, args.run_id, rec.run.state.value, rec.run.detail)
               if rec.run.state.value in ("succeeded", "failed") else None)
        keys = getattr(store, "chain_keys", None)
    finally:
        store.close()
    run = rec.run
    if getattr(args, "json", False):  # the epoch, for programs
        print(json.dumps({"run_id": run.run_id, "workflow": rec.workflow,
                          "state": run.state.value, "revision": run.revision,
                          "incarnation": run.incarnation, "worker_id": run.worker_id,
                          "lease_expires_at": run.lease_expires_at, "detail": run.detail,
                          "input": json.loads(rec.input_json),
                          "events": [{"seq": e.seq, "kind": e.kind, "step": e.step,
                                      "incarnation": e.incarnation, "at": e.at,
                                      "payload": json.loads(e.payload_json),
                                      "digest": e.digest} for e in events]}, sort_keys=True))
        return 0
    print(f"run {run.run_id}  workflow={rec.workflow}  state={run.state.value}  "
          f"revision={run.revision}  incarnation={run.incarnation}  worker={run.worker_id}  "
          f"lease_expires_at={_t(run.lease_expires_at)}")
    print(f"input {rec.input_json}")
    found = run.detail.get("diverged") if run.state.value == "waiting" else None
    if isinstance(found, dict):  # parked for a divergence (minirt.divergence)
        from .cli_operator import diverged_line
        from .operator import DIVERGED_HINT

        print(diverged_line({**found, "hint": DIVERGED_HINT}))
    print(table(["seq", "kind", "step", "inc", "at", "payload", "digest"],
                [(e.seq, e.kind, "" if e.step is None else e.step, e.incarnation, _local(e.at),
                  _short(e.payload_json, 60), e.digest[7:19]) for e in events]))
    if end:
        print(f"{next(iter(end))} {json.dumps(next(iter(end.values())), sort_keys=True)}"
              "  (from the verified journal)")
    chain = (f"keyed: hmac-sha256, keys {', '.join(keys.key_ids)}" if keys
             else "plain sha256; set MINIRT_CHAIN_KEY for a keyed chain")
    print(f"{len(events)} event(s), hash chain verified ({chain})")
    return 0


_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}


def parse_duration(text: str) -> float:
    """``"30d"`` -> seconds. Units s, m, h, d, w; a bare number is seconds."""
    t = text.strip().lower()
    unit = _UNITS.get(t[-1:], None) if t else None
    number = t[:-1] if unit is not None else t
    try:
        value = float(number) * (unit or 1.0)
    except ValueError:
        value = float("nan")
    if not value >= 0 or value == float("inf"):
        raise CliInputInvalid(argument="--older-than",
                              reason=f"{text!r} is not a duration (e.g. 90s, 45m, 12h, 30d, 2w)")
    return value


def cmd_prune(args: argparse.Namespace) -> int:
    age = parse_duration(args.older_than)
    store = open_store(args.store)
    try:
        report = store.prune(age, now=time.time(), dry_run=args.dry_run)
    finally:
        store.close()
    verb = "would delete" if report.dry_run else "deleted"
    for run_id in report.runs:
        print(f"{verb} {run_id}")
    print(f"{verb} {len(report.runs)} finished run(s) last changed over {args.older_than} ago:"
          f" {report.events} event(s), {report.kv} kv item(s), {report.artifacts} artifact(s)")
    return 0


def _t(at: float | None) -> str:
    """A time for people: local zone and how far from now (``--json`` keeps the epoch)."""
    from .humantime import when

    return when(at)


def _local(at: float) -> str:
    from .humantime import local

    return local(at)


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="minirt", description="Durable runs on a shared store.")
    sub = p.add_subparsers(dest="command", required=True)
    from .cli_operator import register  # approve, deny, revoke, signal, cancel, resolve, ...

    register(sub)

    w = sub.add_parser("worker", help="claim and execute runs until stopped")
    w.add_argument("--store", required=True, help="postgresql://... or a SQLite path")
    w.add_argument("--app", required=True, help="module:attr, a function store -> Runtime")
    w.add_argument("--concurrency", type=int, default=1)
    w.add_argument("--lease-for", type=float, default=30.0, help="lease length in seconds")
    w.add_argument("--max-runs", type=int, default=None, help="exit after this many runs")
    w.add_argument("--idle-exit", action="store_true", help="exit when nothing is claimable")
    w.add_argument("--worker-id", default=None, help="default: <hostname>-<pid>")
    w.add_argument("--poll", type=float, default=0.5, help="seconds between empty claims")
    w.add_argument("--verbose", action="store_true", help="one line per run")
    w.set_defaults(fn=cmd_worker)

    s = sub.add_parser("submit", help="start a run (prints its id)")
    s.add_argument("--store", required=True)
    s.add_argument("--app", required=True)
    s.add_argument("--run-id", default=None, help="get-or-create with this id")
    s.add_argument("workflow")
    s.add_argument("input_json")
    s.set_defaults(fn=cmd_submit)

    r = sub.add_parser("runs", help="list runs")
    r.add_argument("--store", required=True)
    r.add_argument("--state", default=None, choices=[s.value for s in RunState])
    r.add_argument("--json", action="store_true", help="one JSON object per run (epoch times)")
    r.set_defaults(fn=cmd_runs)

    sh = sub.add_parser("show", help="a run and its journal")
    sh.add_argument("--store", required=True)
    sh.add_argument("run_id")
    sh.add_argument("--json", action="store_true", help="the run and its journal as JSON")
    sh.set_defaults(fn=cmd_show)

    pr = sub.add_parser("prune", help="delete finished runs older than a duration")
    pr.add_argument("--store", required=True)
    pr.add_argument("--older-than", required=True, help="e.g. 30d, 12h, 45m, 90s, 2w")
    pr.add_argument("--dry-run", action="store_true", help="report, delete nothing")
    pr.set_defaults(fn=cmd_prune)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.fn(args))
    except MinirtError as exc:
        print(f"minirt: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
