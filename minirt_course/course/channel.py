"""The protocol between the checker process and the learner's process: JSON lines over two pipes.

Invariant: each side owns its objects; the other side only holds numbered handles to them, and
every call or public attribute read on a handle is a request to the owner. Requests and results
are multiplexed by request id in both directions.

Guarantees:

- **re-entrant**: a request made while serving one of the peer's requests carries that request's
  id as its parent; the peer runs it in the very thread that is waiting for that parent's result
  (so A waiting for B serves B's callbacks, and thread-bound things such as an RLock held around
  the call still work);
- **concurrent**: top-level requests are served by one local thread per sending thread, so a check
  that calls the learner's function from 8 threads really races inside the learner's code, and a
  lock one request takes (a transaction's ``__enter__``) is released by the same thread in the
  next (its ``__exit__``);
- **bounded**: a call that gets no result within its limit (time spent serving the peer's
  callbacks does not count) raises :class:`~minirt_course.course.wire.LearnerTimeout`; past the
  channel's overall deadline every call does; a line longer than ``wire.MAX_MESSAGE`` kills the
  channel;
- **peer death** (EOF, a malformed line) fails every waiting and later call with
  :class:`PeerDied`, a ``BaseException`` (so a grader's ``except Exception`` around a learner
  call cannot turn a dead submission into a mere wrong answer), whose message says what was
  running.

- **method handles** (``cache_methods``, the learner's side only): reading an attribute that the
  owner reports as a plain method of the object's class (a bound method whose function is the
  class's own, not shadowed by an instance attribute) is asked once per handle and name; later
  reads reuse that handle, so ``ctx.call_tool(...)`` costs one round trip instead of two. The
  checker's side never caches what the learner's side reports: a learner's attribute read there
  is always asked afresh. This relies on the checker's classes not being changed while grading.

Not guaranteed: that a call the peer is still running stops when its caller times out (the
thread keeps running there; the learner's process is killed by its owner at the end). Stdlib only:
the learner's process loads this file from outside the ``minirt`` package.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
import types
from collections.abc import Callable
from typing import Any

try:  # the checker imports it as part of minirt_course.course; the learner's process as a plain module
    from minirt_course.course import wire
except ImportError:  # pragma: no cover - exercised in the learner's process
    import wire  # type: ignore[no-redef]

__all__ = ["Peer", "PeerDied"]

_DIED = object()
WORKER_IDLE = 5.0  # seconds a serving thread waits for its remote thread's next request


class PeerDied(BaseException):  # noqa: N818 - like SimulatedCrash: the other process is gone
    """The other process exited or broke the protocol; no result will come."""


class _Waiter:
    __slots__ = ("q",)

    def __init__(self) -> None:
        self.q: queue.Queue[Any] = queue.Queue()


def _class_method(obj: Any, name: str, value: Any) -> bool:
    """True when `value` (just read as ``obj.name``) is a plain method of ``type(obj)`` bound to
    `obj`: the class's own function, with no instance attribute of that name in front of it."""
    if type(value) is not types.MethodType or value.__self__ is not obj:
        return False
    own = getattr(obj, "__dict__", None)
    if isinstance(own, dict) and name in own:
        return False
    for klass in type(obj).__mro__:
        if name in vars(klass):
            return vars(klass)[name] is value.__func__
    return False


class Peer:
    """One end of the channel. `root` is this side's handle 0 (what the peer may call first);
    `policy(obj)` may raise ``wire.WireError`` to refuse exporting an object as a handle;
    `private_ok(obj, name)` says whether the peer may read ``obj._name`` (default: never); `set_ok(obj, name)` whether
    it may set ``obj.name`` (default: never); `cache_methods`: keep the handles of the peer's
    plain methods (see the module docstring; only for the learner's side)."""

    def __init__(
        self,
        rfd: int,
        wfd: int,
        root: Any,
        *,
        name: str = "peer",
        policy: Callable[[Any], None] | None = None,
        call_timeout: float = 30.0,
        death_reason: Callable[[], str] | None = None,
        private_ok: Callable[[Any, str], bool] | None = None,
        set_ok: Callable[[Any, str], bool] | None = None,
        cache_methods: bool = False,
    ) -> None:
        self.name = name
        self._r = os.fdopen(rfd, "rb", buffering=1 << 16)
        self._wfd = wfd
        self._wlock = threading.Lock()
        self._lock = threading.Lock()
        self._handles: dict[int, Any] = {0: root}
        self._hids: dict[int, int] = {id(root): 0}
        self._proxies: dict[int, wire.Remote] = {}
        self._pending: dict[int, _Waiter] = {}
        self._workers: dict[Any, queue.Queue[Any]] = {}
        self._next = 0
        self._local = threading.local()
        self._policy = policy
        self._private_ok = private_ok or (lambda obj, name: False)
        self._set_ok = set_ok or (lambda obj, name: False)
        self.call_timeout = call_timeout
        self._cache_methods = cache_methods
        self._methods: dict[tuple[int, str], wire.Remote] = {}  # (hid, name) -> method handle
        self.deadline: float | None = None
        self._death_reason = death_reason
        self.dead: str | None = None
        self.root = self._proxy(0, "object", "root")
        self._reader = threading.Thread(target=self._read_loop, name=f"{name}-reader", daemon=True)

    def start(self) -> Peer:
        self._reader.start()
        return self

    # ------------------------------------------------------------------ handles

    def _export(self, obj: Any) -> tuple[int, str, str]:
        kind = "class" if isinstance(obj, type) else "function" if callable(obj) else "object"
        label = str(getattr(obj, "__qualname__", None) or type(obj).__qualname__)[:80]
        with self._lock:
            hid = self._hids.get(id(obj))
            if hid is not None:
                return hid, kind, label
        if self._policy is not None:
            self._policy(obj)
        with self._lock:
            hid = self._hids.get(id(obj))
            if hid is None:
                hid = len(self._handles)
                self._handles[hid] = obj
                self._hids[id(obj)] = hid
        return hid, kind, label

    def owns(self, obj: Any) -> bool:
        """True when `obj` is one of this side's objects that the peer was given as a handle."""
        with self._lock:
            return self._hids.get(id(obj)) is not None and id(obj) != id(self._handles[0])

    def _remote_id(self, obj: Any) -> int | None:
        if type(obj) is wire.Remote and object.__getattribute__(obj, "_peer") is self:
            return int(object.__getattribute__(obj, "_hid"))
        return None

    def _local_obj(self, hid: int) -> Any:
        with self._lock:
            if hid not in self._handles:
                raise wire.WireError(f"unknown handle {hid}")
            return self._handles[hid]

    def _proxy(self, hid: int, kind: str, label: str) -> wire.Remote:
        with self._lock:
            p = self._proxies.get(hid)
            if p is None:
                p = self._proxies[hid] = wire.Remote(self, hid, kind, label)
            return p

    def encoder(self, seed: dict[int, Any] | None = None) -> wire.Encoder:
        return wire.Encoder(self._export, self._remote_id, seed=seed)

    def decoder(self, seed: dict[int, Any] | None = None) -> wire.Decoder:
        return wire.Decoder(self._local_obj, self._proxy, seed=seed)

    # ------------------------------------------------------------------ sending and waiting

    def _send(self, msg: dict[str, Any]) -> None:
        data = (json.dumps(msg, separators=(",", ":"), allow_nan=False) + "\n").encode()
        if len(data) > wire.MAX_MESSAGE:
            raise wire.WireError(f"message of {len(data)} bytes is over the limit")
        with self._wlock:
            view = memoryview(data)
            while view:
                try:
                    n = os.write(self._wfd, view)
                except OSError:
                    self._die("closed its end of the channel")
                    raise PeerDied(self._died_message("?")) from None
                view = view[n:]

    def _died_message(self, label: str) -> str:
        reason = self.dead or "stopped answering"
        return f"the submission's process {reason} while running `{label}`"

    def _request(self, msg: dict[str, Any], label: str, timeout: float | None = None) -> Any:
        if self.dead:
            raise PeerDied(self._died_message(label))
        waiter = _Waiter()
        with self._lock:
            self._next += 1
            rid = self._next
            self._pending[rid] = waiter
        stack = getattr(self._local, "stack", None)
        msg["id"] = rid
        msg["th"] = threading.get_ident()
        if stack:
            msg["p"] = stack[-1]
        limit = self.call_timeout if timeout is None else timeout
        ends = time.monotonic() + limit
        try:
            self._send(msg)
            while True:
                now = time.monotonic()
                left = ends - now
                if self.deadline is not None:
                    left = min(left, self.deadline - now)
                if left <= 0:
                    raise wire.LearnerTimeout(f"`{label}` gave no answer within {limit:g} s")
                try:
                    item = waiter.q.get(timeout=left)
                except queue.Empty:
                    continue
                if item is _DIED:
                    raise PeerDied(self._died_message(label))
                if "r" in item:
                    return item
                started = time.monotonic()
                self._serve(item)  # a callback nested in this call: served in this thread
                ends += time.monotonic() - started
        finally:
            with self._lock:
                self._pending.pop(rid, None)

    def wait_closed(self) -> None:
        """Block until the peer's side of the channel is closed (its reader thread ends)."""
        self._reader.join()

    def call_remote(self, hid: int, args: tuple[Any, ...], kwargs: dict[str, Any],
                    label: str = "?", timeout: float | None = None,
                    method: str | None = None) -> Any:
        """Call the peer's object `hid`; in-place changes to the arguments are copied back."""
        enc = self.encoder()
        payload = {"op": "call", "h": hid, "a": [enc.encode(a) for a in args],
                   "k": [[str(k), enc.encode(v)] for k, v in kwargs.items()]}
        if method is not None:
            payload["m"] = method
        reply = self._request(payload, label, timeout)
        dec = self.decoder(seed=enc.objects)
        try:
            for ref, body in reply.get("cb", []):
                if ref in enc.objects:
                    wire.apply_copy_back(enc.objects[ref], body, dec)
            if reply.get("ok"):
                return dec.decode(reply.get("v"))
        except wire.WireError as exc:
            raise wire.LearnerError("WireError", f"`{label}` answered {exc}") from None
        raise dec.decode_exc(reply.get("e", {}))

    def call_dunder(self, hid: int, name: str, args: tuple[Any, ...], label: str = "?") -> Any:
        """Call one of the forwarded protocol methods (``wire.DUNDERS``) of the peer's object."""
        return self.call_remote(hid, args, {}, f"{label}.{name}", method=name)

    def set_remote(self, hid: int, name: str, value: Any, label: str = "?") -> None:
        enc = self.encoder()
        msg = {"op": "set", "h": hid, "n": name, "v": enc.encode(value)}
        reply = self._request(msg, f"{label}.{name} =")
        if not reply.get("ok"):
            raise self.decoder().decode_exc(reply.get("e", {}))

    def get_remote(self, hid: int, name: str, label: str = "?") -> Any:
        if self._cache_methods:
            with self._lock:
                known = self._methods.get((hid, name))
            if known is not None:
                return known
        reply = self._request({"op": "get", "h": hid, "n": name}, f"{label}.{name}")
        dec = self.decoder()
        if reply.get("ok"):
            try:
                value = dec.decode(reply.get("v"))
            except wire.WireError as exc:
                raise wire.LearnerError("WireError", str(exc)) from None
            if self._cache_methods and reply.get("m") is True and type(value) is wire.Remote:
                with self._lock:
                    self._methods[(hid, name)] = value
            return value
        raise dec.decode_exc(reply.get("e", {}))

    # ------------------------------------------------------------------ serving

    def _serve(self, msg: dict[str, Any]) -> None:
        rid = msg.get("id")
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        stack.append(rid)
        reply: dict[str, Any] = {"r": rid}
        dec: wire.Decoder | None = None
        try:
            dec = self.decoder()
            obj = self._local_obj(int(msg["h"]))
            if msg.get("op") == "get":
                name = msg.get("n")
                if type(name) is not str or not name or name.startswith("__") or (
                        name.startswith("_") and not self._private_ok(obj, name)):
                    raise AttributeError(f"{name!r} is not a public attribute")
                value = getattr(obj, name)
                reply.update(ok=True, v=self.encoder().encode(value))
                if _class_method(obj, name, value):
                    reply["m"] = True
            elif msg.get("op") == "set":
                name = msg.get("n")
                if type(name) is not str or name.startswith("__") or not self._set_ok(obj, name):
                    raise AttributeError(f"cannot set {name!r} from the other process")
                setattr(obj, name, dec.decode(msg.get("v")))
                reply.update(ok=True, v=None)
            elif msg.get("op") == "call":
                args = [dec.decode(a) for a in msg["a"]]
                kwargs = {str(k): dec.decode(v) for k, v in msg["k"]}
                method = msg.get("m")
                if method is None:
                    value = obj(*args, **kwargs)
                elif method == "__exit__":
                    ev = args[0] if args and isinstance(args[0], BaseException) else None
                    value = type(obj).__exit__(obj, None if ev is None else type(ev), ev, None)
                elif method in wire.DUNDERS:
                    value = getattr(type(obj), method)(obj, *args, **kwargs)
                else:
                    raise AttributeError(f"{method!r} is not forwarded")
                enc = self.encoder(seed=dec.refs)
                reply["v"] = enc.encode(value)
                reply.update(ok=True, cb=self._copy_back(dec, enc))
            else:
                raise wire.WireError(f"unknown op {msg.get('op')!r}")
        except PeerDied:
            return
        except BaseException as exc:  # noqa: BLE001 - every outcome, exits included, is a reply
            reply = {"r": rid, "ok": False, "e": self.encoder().encode_exc(exc)}
            if msg.get("op") == "call" and dec is not None:
                # what the callee changed in its arguments before it raised is kept too (a tool
                # handler records a sub-effect, then fails: the caller must see the record)
                try:
                    reply["cb"] = self._copy_back(dec, self.encoder(seed=dec.refs))
                except BaseException:  # noqa: BLE001 - an unencodable change is dropped
                    pass
        finally:
            stack.pop()
        try:
            self._send(reply)
        except (PeerDied, wire.WireError) as exc:
            if not isinstance(exc, PeerDied):
                err = wire.LearnerError("WireError", str(exc))
                self._send({"r": rid, "ok": False, "e": self.encoder().encode_exc(err)})

    @staticmethod
    def _copy_back(dec: wire.Decoder, enc: wire.Encoder) -> list[list[Any]]:
        """The bodies of the containers an incoming call received, as they are now."""
        cb = []
        for ref, o in dec.refs.items():
            body = enc.body(o)
            if body is not None:
                cb.append([ref, body])
        return cb

    def _to_worker(self, msg: dict[str, Any]) -> None:
        """A top-level request goes to the thread paired with the sender's thread (one local
        thread per remote thread: concurrent across threads, and a lock taken in one request is
        released by the same thread in a later one)."""
        key = msg.get("th")
        with self._lock:
            q = self._workers.get(key)
            if q is None:
                q = self._workers[key] = queue.Queue()
                threading.Thread(target=self._work, args=(key, q), daemon=True,
                                 name=f"{self.name}-serve").start()
            q.put(msg)

    def _work(self, key: Any, q: queue.Queue[Any]) -> None:
        while True:
            try:
                msg = q.get(timeout=WORKER_IDLE)
            except queue.Empty:
                with self._lock:
                    if q.empty():
                        del self._workers[key]
                        return
                continue
            if msg is _DIED:
                return
            self._serve(msg)

    def _read_loop(self) -> None:
        try:
            while True:
                line = self._r.readline(wire.MAX_MESSAGE + 1)
                if not line:
                    self._die(None)
                    return
                if not line.endswith(b"\n"):
                    self._die("sent a message over the size limit")
                    return
                try:
                    msg = json.loads(line)
                    if type(msg) is not dict:
                        raise ValueError("not an object")
                except (ValueError, RecursionError):
                    self._die("broke the grading protocol")
                    return
                if "r" in msg:
                    with self._lock:
                        waiter = self._pending.get(msg["r"])
                    if waiter is not None:
                        waiter.q.put(msg)
                    continue
                with self._lock:
                    parent = self._pending.get(msg.get("p")) if "p" in msg else None
                if parent is not None:
                    parent.q.put(msg)
                else:
                    self._to_worker(msg)
        except Exception:  # noqa: BLE001 - a broken pipe ends the channel, never the process
            self._die("broke the grading protocol")

    def _die(self, reason: str | None) -> None:
        if self.dead:
            return
        if reason is None and self._death_reason is not None:
            try:
                reason = self._death_reason()
            except Exception:  # noqa: BLE001
                reason = None
        self.dead = reason or "closed the channel"
        with self._lock:
            waiters = list(self._pending.values())
        for w in waiters:
            w.q.put(_DIED)
        with self._lock:
            workers = list(self._workers.values())
        for q in workers:
            q.put(_DIED)

    def close(self) -> None:
        import contextlib

        with contextlib.suppress(OSError):
            os.close(self._wfd)
