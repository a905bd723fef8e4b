"""Time one drill grading end to end, split into its steps (issue 24).

Invariant: each measurement grades the drill's reference answers (the release with every answer
cell filled back in from the source, as tests/test_drills_honesty.py does) with the real
`nbgrade.grade` path, in a fresh temporary copy of the course (its own gradebook), so the first
grading pays `generate_assignment` and later gradings do not. It reports, per step, the wall time
and the CPU time of the child processes (nbgrader, the out-of-kernel grader and its learner
processes), plus the load average before and after, because the machine may be shared. A step's
CPU is its nbgrader command's with its kernel (reported by the warm template); "rest" is the child
CPU no step accounts for: the template's imports, the out-of-kernel grader and its learner
processes.
With ``--cli`` each grading is instead what a learner runs, ``minirt-course grade`` in a fresh
interpreter (``python -m minirt_course.course.cli grade ID --notebook ... -q``, from the copy's
root), so the figures include what the in-process run has already paid before its clock starts:
the interpreter, the imports of nbformat (for the notebook check) and nbgrader.api (for the
gradebook) in the grading process. Only the total wall, the child CPU and the out-of-kernel
grader's seconds are reported then (no per-step split).

Guarantees: the grading really runs and must score full marks (a failed grading is an error, not
a figure). Not guaranteed: quiet-machine absolutes; compare shares and interleaved runs.

Run: python benchmarks/grade_time.py 01 09 11 [--repeat 2] [--cli] [--json out.json]
To time another tree with this venv, run it from that tree with ``PYTHONPATH=<tree>`` (the
child processes inherit it).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from conftest import copy_course  # noqa: E402
from test_drills_honesty import answer_sources, filled  # noqa: E402

from minirt_course.course import catalog, nbgrade  # noqa: E402


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


class _Steps:
    """Wraps nbgrade's subprocess runner to time each nbgrader step (wall, child CPU)."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float]] = []
        self._orig = nbgrade._run_nbgrader

    def __enter__(self) -> _Steps:
        def timed(lay: Any, args: list[str], log_name: str, **kw: Any) -> Any:
            t0, c0 = time.perf_counter(), _child_cpu()
            runner = kw.get("runner")
            if runner is not None:
                runner.last_cpu = None
            try:
                return self._orig(lay, args, log_name, **kw)
            finally:
                # a forked command's CPU (its kernel's included) as the warm template measured
                # it (os.wait4); a plain `python -m nbgrader` is this process's child
                forked = getattr(runner, "last_cpu", None)
                self.rows.append((f"nbgrader {args[0]}", time.perf_counter() - t0,
                                  forked if forked is not None else _child_cpu() - c0))

        nbgrade._run_nbgrader = timed
        return self

    def __exit__(self, *exc: object) -> None:
        nbgrade._run_nbgrader = self._orig


def grade_once(slug: str, root: Path, nb: Path) -> dict[str, Any]:
    module = catalog.get(slug)
    load0 = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), _child_cpu()
    with _Steps() as steps:
        report = nbgrade.grade(module.id, nb, "bench", course_root=root, record=False)
    wall, cpu = time.perf_counter() - t0, _child_cpu() - c0
    if not report.full_marks:
        raise SystemExit(f"{slug}: the reference did not score full marks: {report.failing}")
    oracle = json.loads((root / "build" / "oracle" / slug / "bench.json").read_text())
    return {"slug": slug, "wall": wall, "child_cpu": cpu, "load": [load0, os.getloadavg()[0]],
            "steps": steps.rows, "oracle_seconds": oracle.get("seconds", 0.0),
            "kernel": _kernel_cells(root / "build" / "autograded" / "bench" / slug / "drill.ipynb")}


def grade_cli(slug: str, root: Path, nb: Path) -> dict[str, Any]:
    """One grading as `minirt-course grade` in a fresh interpreter (see the module docstring)."""
    module = catalog.get(slug)
    load0 = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), _child_cpu()
    proc = subprocess.run(
        [sys.executable, "-m", "minirt_course.course.cli", "grade", module.id, "--notebook",
         str(nb), "--learner", "bench", "-q"],
        cwd=root, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, _child_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{slug}: the CLI grading failed ({proc.returncode}): "
                         f"{(proc.stdout + proc.stderr)[-600:]}")
    # the report's table: every autograded cell "ok" (a manually graded one waits)
    rows = [ln.split() for ln in proc.stdout.splitlines() if ln.startswith("  ")]
    bad = [r for r in rows if len(r) >= 2 and "/" in r[1] and r[0] != "total"
           and r[-1] != "ok" and "manual" not in r]
    if bad or not rows:
        raise SystemExit(f"{slug}: the reference did not score full marks: {proc.stdout[-600:]}")
    oracle = json.loads((root / "build" / "oracle" / slug / "bench.json").read_text())
    return {"slug": slug, "wall": wall, "child_cpu": cpu, "load": [load0, os.getloadavg()[0]],
            "steps": [], "oracle_seconds": oracle.get("seconds", 0.0), "kernel": {},
            "mode": "cli"}


def _kernel_cells(path: Path) -> dict[str, float]:
    """Seconds the nbgrader kernel spent in the setup cell, the answer cells and the test cells
    (from the execution timestamps nbclient records in the autograded notebook)."""
    from datetime import datetime

    out = {"setup": 0.0, "answers": 0.0, "tests": 0.0}
    for cell in nbformat.read(str(path), as_version=4).cells:
        ex = cell.get("metadata", {}).get("execution")
        if not ex or "iopub.execute_input" not in ex or "shell.execute_reply" not in ex:
            continue
        a, b = (datetime.fromisoformat(ex[k].replace("Z", "+00:00"))
                for k in ("iopub.execute_input", "shell.execute_reply"))
        meta = cell.metadata.get("nbgrader", {})
        key = ("setup" if meta.get("grade_id") == "setup" else
               "tests" if meta.get("grade") and not meta.get("solution") else "answers")
        out[key] += (b - a).total_seconds()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="+")
    ap.add_argument("--repeat", type=int, default=2, help="gradings per copy (1st, then later)")
    ap.add_argument("--cli", action="store_true",
                    help="grade with `minirt-course grade` in a fresh interpreter each time")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", action="store_true", help="keep the course copies (their logs)")
    args = ap.parse_args(argv)
    out = []
    for mid in args.modules:
        slug = catalog.get(mid).slug
        tmp = Path(tempfile.mkdtemp(prefix=f"gradetime-{mid}-"))
        try:
            root = copy_course(tmp / "course", [slug])
            src = nbformat.read(str(root / "solutions" / slug / "drill.ipynb"), as_version=4)
            rel = nbformat.read(str(root / "drills" / slug / "drill.ipynb"), as_version=4)
            nb = tmp / "ref.ipynb"
            nbformat.write(filled(rel, answer_sources(src), {}), str(nb))
            for i in range(args.repeat):
                r = (grade_cli if args.cli else grade_once)(slug, root, nb)
                r["run"] = "first" if i == 0 else "later"
                out.append(r)
                steps = "  ".join(f"{n.split()[1]} {w:.1f}s/{c:.1f}cpu" for n, w, c in r["steps"])
                steps += f"  rest {r['child_cpu'] - sum(c for _, _, c in r['steps']):.1f}cpu"
                print(f"{mid} {r['run']:5s} wall {r['wall']:5.1f}s child-cpu {r['child_cpu']:5.1f}s"
                      f" oracle {r['oracle_seconds']:4.1f}s load {r['load'][0]:.1f}->"
                      f"{r['load'][1]:.1f} | {steps} | kernel "
                      + " ".join(f"{k} {v:.1f}s" for k, v in r["kernel"].items())
                      + (" (cli)" if args.cli else ""), flush=True)
        finally:
            if args.keep:
                print(f"kept {tmp}")
            else:
                shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
