"""Where the CPU of one tool step goes: each SQL statement of the fast append, and the rest.

    nice .venv/bin/python benchmarks/step_cpu_split.py --steps 5000

Same workload as ``benchmarks/cpu_path.py`` (a SQLite store on tmpfs, ``synchronous=OFF``, a
keyed tool called ``--steps`` times after a warm-up of 200), in this process: the store's
append cursor is wrapped so that each statement it runs (``BEGIN``, ``UPDATE``, ``INSERT``,
``COMMIT``) is timed with ``time.process_time_ns``; the figure is CPU microseconds per tool step
for each statement kind and for everything else (minirt's Python). The wrapper itself costs a
little, so the parts add up to slightly more than an unwrapped run. Measures only the fast
append (cached head, no kv); an append that takes the core's slow path is counted in "rest".
Not a timed test; it asserts only that the run returned its step count.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from minirt.clock import FakeClock  # noqa: E402
from minirt.runtime import Runtime  # noqa: E402
from minirt.store.sqlite import SQLiteStore  # noqa: E402
from minirt.tools import EffectClass, FunctionTool  # noqa: E402


def _value(i: int) -> dict[str, Any]:
    return {"order_id": f"ord_{i:06d}", "status": "ok", "items": [1, 2, 3], "note": "x" * 120}


def _wf(ctx: Any, n: int) -> int:
    for i in range(n):
        ctx.call_tool("fetch", i=i)
    return n


class _Timed:
    """A cursor whose ``execute`` adds its CPU time to a counter keyed by the SQL's first word."""

    def __init__(self, cur: Any, spent: collections.Counter[str],
                 count: collections.Counter[str]) -> None:
        self.cur, self.spent, self.count = cur, spent, count

    def execute(self, sql: str, args: Any = ()) -> Any:
        t = time.process_time_ns()
        try:
            return self.cur.execute(sql, args)
        finally:
            word = sql.split(None, 1)[0]
            self.spent[word] += time.process_time_ns() - t
            self.count[word] += 1

    def executemany(self, sql: str, seq: Any) -> Any:
        t = time.process_time_ns()
        try:
            return self.cur.executemany(sql, seq)
        finally:
            word = sql.split(None, 1)[0]
            self.spent[word] += time.process_time_ns() - t
            self.count[word] += 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        store = SQLiteStore(tmp + "/s.sqlite", synchronous="OFF")
        rt = Runtime(store, tools=[FunctionTool(_value, name="fetch", effect=EffectClass.KEYED)],
                     workflows={"wf": _wf}, clock=FakeClock(1_700_000_000.0), worker_id="w")
        rt.run_workflow("wf", 200)
        spent: collections.Counter[str] = collections.Counter()
        count: collections.Counter[str] = collections.Counter()
        store._append_cursor = _Timed(store._db.cursor(), spent, count)  # type: ignore[assignment]
        t = time.process_time_ns()
        assert rt.run_workflow("wf", args.steps).value == args.steps
        total = time.process_time_ns() - t
        store.close()
    per = 1000 * args.steps
    print(f"total {total / per:7.1f} us CPU per tool step")
    for word, ns in spent.most_common():
        print(f"  {word:<7} {ns / per:7.1f} us/step  ({count[word] / args.steps:.1f} per step)")
    print(f"  rest    {(total - sum(spent.values())) / per:7.1f} us/step  (minirt's Python)")


if __name__ == "__main__":
    main()
