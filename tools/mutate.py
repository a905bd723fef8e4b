"""Mutation testing of the drills' reference answers: how strong are a drill's graded cells?

    python tools/mutate.py 01 [02 ...] [--limit N] [--jobs 2] [--json out.json] [--timeout S]

For each drill (a module id, a slug, or a path to a drill source notebook) the tool reads
`solutions/<slug>/drill.ipynb`, and in every answer cell (nbgrader `"solution": true`) mutates the
code between `### BEGIN SOLUTION` and `### END SOLUTION` with a small AST mutator: comparison
operators swapped, `and`/`or` swapped, `not` removed or added, constants changed, arithmetic
operators swapped, a statement replaced by `pass`, a return value replaced by `None`, an `if`
condition forced true or false, a call argument dropped. Each mutant runs in a fresh interpreter
that executes, in notebook order and as nbgrader would, the setup cell (without `%` magics), the
answer cells (one of them mutated), the plain cells and every graded cell (visible and hidden
tests). A graded cell fails when it raises or writes to stderr. A mutant is

- **killed** when at least one graded cell fails, or when it hangs past the timeout;
- **stillborn** when it does not compile or its own answer cell raises (excluded from the score);
- **equivalent** when it survives and `tools/mutation_equivalents/<slug>.txt` lists its id with a
  reason (one `<id>  # <reason>` a line; excluded from the score);
- **survived** otherwise.

score = killed / (generated - stillborn - equivalent).

Invariant: the reference itself must pass every graded cell first (the baseline run); a drill whose
reference fails is reported and not mutated, since every mutant would look "killed". Mutant ids
(`<cell>:<line>:<col>:<kind>:<variant>`, line and column within the cell) are deterministic for a
given source, so an equivalents list stays valid until the answer cell is edited.

Guarantees: deterministic mutant set and order; each mutant in its own process (a crash or an
`os._exit` in one cannot affect another); progress lines on stdout. Does not guarantee: that the
mutator's operators cover every plausible learner mistake (hand-written wrong answers live in
`tests/mutants/`), or that a survivor is a weakness (review it, then list it as equivalent or
strengthen the checks).
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENTS_DIR = ROOT / "tools" / "mutation_equivalents"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


class MutateError(Exception):
    """A drill that cannot be mutated as asked (unknown id, no answer cells, failing reference)."""


# --------------------------------------------------------------------------- notebook cells


@dataclass(frozen=True)
class Cell:
    """One code cell of a drill source: kind is setup, answer, graded or plain."""

    kind: str
    name: str  # grade_id, or "cell<N>" for plain cells
    source: str


def _nbgrader(cell: dict[str, Any]) -> dict[str, Any]:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def read_cells(notebook: Path) -> list[Cell]:
    """The code cells of a drill source notebook, classified, in notebook order."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    cells: list[Cell] = []
    for i, raw in enumerate(nb.get("cells", [])):
        if raw.get("cell_type") != "code":
            continue
        src = raw.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        meta = _nbgrader(raw)
        gid = meta.get("grade_id")
        if gid == "setup":
            kind = "setup"
        elif meta.get("grade"):
            kind = "graded"
        elif meta.get("solution"):
            kind = "answer"
        else:
            kind = "plain"
        cells.append(Cell(kind, gid or f"cell{i}", src))
    return cells


def drop_magics(source: str) -> str:
    """`source` without IPython magic lines (`%...`, `!...`), which plain Python cannot run."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()
    )


def resolve(target: str) -> tuple[str, Path]:
    """(slug, source notebook) for a module id, a slug or a notebook path."""
    path = Path(target)
    if path.suffix == ".ipynb":
        if not path.is_file():
            raise MutateError(f"no notebook at {target}")
        return path.parent.name, path
    direct = ROOT / "solutions" / target / "drill.ipynb"
    if direct.is_file():
        return target, direct
    sys.path.insert(0, str(ROOT))
    from minirt_course.course import catalog

    try:
        module = catalog.get(target)
    except Exception as exc:  # catalog raises its own named error for unknown ids
        raise MutateError(f"unknown drill {target!r}: {exc}") from None
    nb = ROOT / "solutions" / module.slug / "drill.ipynb"
    if not nb.is_file():
        raise MutateError(f"drill {target!r} has no source at {nb.relative_to(ROOT)}")
    return module.slug, nb


# --------------------------------------------------------------------------- the mutator


@dataclass(frozen=True)
class Mutant:
    """One mutant: a changed answer cell, with where and what changed."""

    id: str  # <cell>:<line>:<col>:<kind>:<variant>
    cell: str
    line: int
    col: int
    kind: str
    change: str  # human-readable, e.g. "`<` -> `<=`"
    original_line: str
    source: str  # the whole mutated answer cell


CMP_SWAPS: dict[type, tuple[type, ...]] = {
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.GtE),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.LtE),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}
ARITH_SWAPS: dict[type, tuple[type, ...]] = {
    ast.Add: (ast.Sub,),
    ast.Sub: (ast.Add,),
    ast.Mult: (ast.Div,),
    ast.Div: (ast.Mult,),
    ast.FloorDiv: (ast.Div,),
    ast.Mod: (ast.FloorDiv,),
    ast.Pow: (ast.Mult,),
    ast.BitOr: (ast.BitAnd,),
    ast.BitAnd: (ast.BitOr,),
    ast.BitXor: (ast.BitOr,),
}
SYMBOL = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+",
    ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^", ast.And: "and", ast.Or: "or",
}
STMT_LISTS = ("body", "orelse", "finalbody")

# A site: (node, kind, variant, change, apply) where apply mutates the (copied) tree in place.
Site = tuple[ast.AST, str, str, str, Callable[[], None]]


def _token(value: object) -> str:
    text = re.sub(r"[^A-Za-z0-9_.+-]", "_", repr(value))
    return text[:24] or "_"


def _in_region(node: ast.AST, lo: int, hi: int) -> bool:
    line = getattr(node, "lineno", None)
    return line is not None and lo < line < hi


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}


def _is_docstring(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(node))
    if not isinstance(parent, ast.Expr):
        return False
    holder = parents.get(id(parent))
    body = getattr(holder, "body", None)
    return bool(body) and body[0] is parent and isinstance(
        holder, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)
    )


def _constant_variants(value: object) -> list[tuple[object, str]]:
    if isinstance(value, bool):
        return [(not value, "not")]
    if isinstance(value, (int, float)):
        return [(value + 1, "+1"), (value - 1, "-1"), (None, "None")]
    if isinstance(value, str):
        return [("" if value else "x", "empty" if value else "x"), (None, "None")]
    return []


def _sites(tree: ast.Module, lo: int, hi: int) -> Iterator[Site]:
    """Every mutation site of `tree` whose node starts strictly between lines lo and hi."""
    parents = _parents(tree)
    in_fstring = {
        id(n) for j in ast.walk(tree) if isinstance(j, ast.JoinedStr) for n in ast.walk(j)
    }
    for node in ast.walk(tree):
        # statements: each one replaced by `pass` (docstrings kept)
        for fname in STMT_LISTS:
            stmts = getattr(node, fname, None)
            if not isinstance(stmts, list):
                continue
            for i, stmt in enumerate(stmts):
                if not isinstance(stmt, ast.stmt) or not _in_region(stmt, lo, hi):
                    continue
                if isinstance(stmt, (ast.Pass, ast.Return)):
                    continue  # a removed return is the same as `return None`, tried below
                if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                    continue
                kind = "remove-raise" if isinstance(stmt, ast.Raise) else "remove-stmt"

                def _remove(stmts: list[ast.stmt] = stmts, i: int = i) -> None:
                    old = stmts[i]
                    stmts[i] = ast.copy_location(ast.Pass(), old)

                yield stmt, kind, type(stmt).__name__, "statement -> `pass`", _remove
        if not _in_region(node, lo, hi):
            continue
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                for new in CMP_SWAPS.get(type(op), ()):

                    def _cmp(node: ast.Compare = node, i: int = i, new: type = new) -> None:
                        node.ops[i] = new()

                    yield (node, "cmp", f"{type(op).__name__}>{new.__name__}",
                           f"`{SYMBOL[type(op)]}` -> `{SYMBOL[new]}`", _cmp)
        elif isinstance(node, ast.BoolOp):
            new = ast.Or if isinstance(node.op, ast.And) else ast.And

            def _bool(node: ast.BoolOp = node, new: type = new) -> None:
                node.op = new()

            yield (node, "boolop", f"{type(node.op).__name__}>{new.__name__}",
                   f"`{SYMBOL[type(node.op)]}` -> `{SYMBOL[new]}`", _bool)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            parent = parents[id(node)]

            def _unnot(node: ast.UnaryOp = node, parent: ast.AST = parent) -> None:
                _replace_child(parent, node, node.operand)

            yield node, "not", "remove", "`not x` -> `x`", _unnot
        elif isinstance(node, (ast.BinOp, ast.AugAssign)):
            for new in ARITH_SWAPS.get(type(node.op), ()):

                def _arith(node: ast.AST = node, new: type = new) -> None:
                    node.op = new()  # type: ignore[attr-defined]

                yield (node, "arith", f"{type(node.op).__name__}>{new.__name__}",
                       f"`{SYMBOL[type(node.op)]}` -> `{SYMBOL[new]}`", _arith)
        elif isinstance(node, ast.Constant) and id(node) not in in_fstring:
            if _is_docstring(node, parents) or node.value is None:
                continue
            parent = parents[id(node)]
            for value, variant in _constant_variants(node.value):

                def _const(node: ast.Constant = node, value: object = value) -> None:
                    node.value = value

                yield (node, "const", variant, f"`{node.value!r}` -> `{value!r}`", _const)
        elif isinstance(node, ast.Return) and node.value is not None:
            if isinstance(node.value, ast.Constant) and node.value.value is None:
                continue

            def _ret(node: ast.Return = node) -> None:
                node.value = ast.Constant(None)

            yield node, "return-none", "None", "return value -> `None`", _ret
        elif isinstance(node, (ast.If, ast.IfExp)):
            for forced in (True, False):

                def _force(node: ast.AST = node, forced: bool = forced) -> None:
                    node.test = ast.Constant(forced)  # type: ignore[attr-defined]

                yield (node, "if-forced", str(forced), f"condition -> `{forced}`", _force)

            def _negate(node: ast.AST = node) -> None:
                node.test = ast.UnaryOp(ast.Not(), node.test)  # type: ignore[attr-defined]

            yield node, "not", "add", "condition `c` -> `not c`", _negate
        elif isinstance(node, ast.Call):
            for i, arg in enumerate(node.args):
                if isinstance(arg, ast.Starred):
                    continue

                def _drop(node: ast.Call = node, i: int = i) -> None:
                    del node.args[i]

                yield node, "drop-arg", f"arg{i}", f"call argument {i + 1} dropped", _drop
            for i, kw in enumerate(node.keywords):
                if kw.arg is None:
                    continue

                def _dropkw(node: ast.Call = node, i: int = i) -> None:
                    del node.keywords[i]

                yield node, "drop-arg", kw.arg, f"keyword `{kw.arg}=` dropped", _dropkw


def _replace_child(parent: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for fname, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, fname, new)
            return
        if isinstance(value, list):
            for i, item in enumerate(value):
                if item is old:
                    value[i] = new
                    return


def _region(source: str) -> tuple[int, int] | None:
    lines = source.splitlines()
    lo = next((i + 1 for i, line in enumerate(lines) if line.strip() == BEGIN), None)
    hi = next((i + 1 for i, line in enumerate(lines) if line.strip() == END), None)
    if lo is None or hi is None or hi <= lo:
        return None
    return lo, hi


def mutants_of(cell: Cell) -> list[Mutant]:
    """Every mutant of one answer cell's solution region, deduplicated, in a fixed order."""
    region = _region(cell.source)
    if region is None:
        return []
    lo, hi = region
    tree = ast.parse(cell.source)
    baseline = ast.unparse(tree)
    lines = cell.source.splitlines()
    count = sum(1 for _ in _sites(tree, lo, hi))
    seen = {baseline}
    ids: dict[str, int] = {}
    out: list[Mutant] = []
    for k in range(count):
        work = copy.deepcopy(tree)
        node, kind, variant, change, apply = next(
            site for j, site in enumerate(_sites(work, lo, hi)) if j == k
        )
        line, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
        apply()
        ast.fix_missing_locations(work)
        try:
            source = ast.unparse(work)
        except Exception:  # noqa: BLE001 - an unprintable tree is a stillborn mutant
            source = "raise SyntaxError('mutant could not be unparsed')"
        if source in seen:
            continue
        seen.add(source)
        mid = f"{cell.name}:{line}:{col}:{kind}:{variant}"
        ids[mid] = ids.get(mid, 0) + 1
        if ids[mid] > 1:
            mid += f"#{ids[mid]}"
        out.append(Mutant(mid, cell.name, line, col, kind, change,
                          lines[line - 1].strip(), source))
    return sorted(out, key=lambda m: (m.line, m.col))


# --------------------------------------------------------------------------- running


RUNNER = r'''
import contextlib, io, json, sys, traceback
spec = json.load(open(sys.argv[1]))
ns = {"__name__": "__main__", "display": lambda *a, **k: None}
result = {"answer_error": None, "failed": {}, "plain_errors": {}}
for kind, name, source in spec["cells"]:
    out, err = io.StringIO(), io.StringIO()
    problem = None
    try:
        code = compile(source, "<cell " + name + ">", "exec")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            exec(code, ns)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        problem = (type(exc).__name__ + ": " + str(exc)).splitlines()[0][:300] if str(exc) \
            else type(exc).__name__
    if problem is None and err.getvalue() and kind == "graded":
        problem = "wrote to stderr: " + err.getvalue().strip().splitlines()[0][:200]
    if problem is None:
        continue
    if kind == "graded":
        result["failed"][name] = problem
    elif kind == "answer" and name == spec["mutated"]:
        result["answer_error"] = problem
    else:
        result["plain_errors"][name] = problem
with open(sys.argv[2], "w") as fh:
    json.dump(result, fh)
'''


@dataclass
class Outcome:
    """What running one mutant (or the reference) showed."""

    status: str  # killed, survived, stillborn, equivalent, reference
    failed: dict[str, str] = field(default_factory=dict)
    detail: str = ""
    seconds: float = 0.0


def run_cells(cells: Sequence[Cell], mutated: str | None, timeout: float) -> Outcome:
    """Execute the cells in a fresh interpreter; the raw outcome (status 'ran' or 'timeout')."""
    spec = {
        "cells": [
            (c.kind, c.name, drop_magics(c.source) if c.kind == "setup" else c.source)
            for c in cells
        ],
        "mutated": mutated,
    }
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
        spec_path, out_path = Path(tmp) / "spec.json", Path(tmp) / "out.json"
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        env = dict(os.environ, PYTHONHASHSEED="0", MPLBACKEND="Agg")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        try:
            proc = subprocess.run(
                [sys.executable, "-c", RUNNER, str(spec_path), str(out_path)],
                cwd=tmp, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, timeout=timeout, text=True,
            )
        except subprocess.TimeoutExpired:
            return Outcome("timeout", detail=f"hung past {timeout:.0f} s",
                           seconds=time.monotonic() - started)
        seconds = time.monotonic() - started
        if not out_path.exists():
            tail = (proc.stderr or "").strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
            return Outcome("crashed", detail=f"the process died: {tail[0][:200]}",
                           seconds=seconds)
        raw = json.loads(out_path.read_text(encoding="utf-8"))
    if raw["answer_error"]:
        return Outcome("stillborn", detail=raw["answer_error"], seconds=seconds)
    return Outcome("ran", failed=raw["failed"], detail=json.dumps(raw["plain_errors"]),
                   seconds=seconds)


def with_mutant(cells: Sequence[Cell], mutant: Mutant) -> list[Cell]:
    return [Cell(c.kind, c.name, mutant.source) if c.kind == "answer" and c.name == mutant.cell
            else c for c in cells]


def classify(raw: Outcome, mutant: Mutant, equivalents: dict[str, str]) -> Outcome:
    """The final status of a mutant's run."""
    if raw.status == "stillborn":
        return raw
    if raw.status in ("timeout", "crashed"):
        return Outcome("killed", detail=raw.detail, seconds=raw.seconds)
    if raw.failed:
        return Outcome("killed", failed=raw.failed, seconds=raw.seconds)
    if mutant.id in equivalents:
        return Outcome("equivalent", detail=equivalents[mutant.id], seconds=raw.seconds)
    return Outcome("survived", seconds=raw.seconds)


def read_equivalents(slug: str, directory: Path = EQUIVALENTS_DIR) -> dict[str, str]:
    """id -> reason from `<directory>/<slug>.txt` (`<id>  # <reason>` a line; `#` lines skipped)."""
    path = directory / f"{slug}.txt"
    if not path.is_file():
        return {}
    found: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        mid, sep, reason = line.partition("#")
        if not sep or not reason.strip():
            raise MutateError(f"{path.name}:{n}: an equivalent mutant needs a reason after '#'")
        found[mid.strip()] = reason.strip()
    return found


def spread(items: list[Mutant], limit: int | None) -> list[Mutant]:
    """At most `limit` of `items`, evenly spaced over the list (all of them without a limit)."""
    if not limit or limit >= len(items):
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


@dataclass
class DrillReport:
    slug: str
    generated: int
    stillborn: int
    killed: int
    survived: int
    equivalent: int
    score: float | None
    reference_seconds: float
    seconds: float
    mutants: list[dict[str, Any]]
    stale_equivalents: list[str]


def mutate_drill(target: str, limit: int | None = None, jobs: int = 2,
                 timeout: float | None = None, equivalents_dir: Path = EQUIVALENTS_DIR,
                 echo: Callable[[str], None] = print, only: str | None = None,
                 ids: Sequence[str] = ()) -> DrillReport:
    """Generate, run and classify the mutants of one drill (`only`: of that answer cell;
    `ids`: only those mutants, e.g. the survivors of a previous run)."""
    slug, notebook = resolve(target)
    cells = read_cells(notebook)
    answers = [c for c in cells if c.kind == "answer" and (only is None or c.name == only)]
    if not answers:
        raise MutateError(f"{slug}: no answer cells (nbgrader solution cells) in {notebook}")
    mutants = spread([m for c in answers for m in mutants_of(c) if not ids or m.id in ids], limit)
    equivalents = read_equivalents(slug, equivalents_dir)
    echo(f"[{slug}] reference run ...")
    started = time.monotonic()
    ref = run_cells(cells, None, timeout or 300.0)
    if ref.status != "ran" or ref.failed:
        why = ref.detail if ref.status != "ran" else "; ".join(
            f"{k}: {v}" for k, v in ref.failed.items())
        raise MutateError(f"{slug}: the reference answer fails its own graded cells: {why}")
    per_mutant = timeout or max(20.0, 4 * ref.seconds)
    echo(f"[{slug}] reference passes in {ref.seconds:.1f} s; {len(mutants)} mutants, "
         f"timeout {per_mutant:.0f} s each, {jobs} job(s)")
    rows: list[dict[str, Any]] = [{} for _ in mutants]
    done = 0

    def one(i: int) -> None:
        nonlocal done
        m = mutants[i]
        out = classify(run_cells(with_mutant(cells, m), m.cell, per_mutant), m, equivalents)
        rows[i] = {**asdict(m), **asdict(out)}
        done += 1
        killers = ",".join(out.failed) or out.detail[:60]
        echo(f"[{slug}] {done:>4}/{len(mutants)} {out.status:<10} {m.id}  {m.change}"
             + (f"  ({killers})" if out.status == "killed" else ""))

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, range(len(mutants))))
    count = {s: sum(1 for r in rows if r["status"] == s)
             for s in ("killed", "survived", "stillborn", "equivalent")}
    scored = len(mutants) - count["stillborn"] - count["equivalent"]
    killed_ids = {r["id"] for r in rows if r["status"] == "killed"}
    all_ids = {m.id for m in mutants}
    stale = sorted(k for k in equivalents if k in killed_ids or (
        not limit and not only and not ids and k not in all_ids))
    return DrillReport(slug, len(mutants), count["stillborn"], count["killed"], count["survived"],
                       count["equivalent"], (count["killed"] / scored) if scored else None,
                       ref.seconds, time.monotonic() - started, rows, stale)


def check_kept_mutants(target: str, echo: Callable[[str], None] = print) -> list[str]:
    """Run every hand-written wrong answer of ``tests/mutants/<slug>/`` like a generated mutant;
    return the problems (a MUST_FAIL cell that passed), one line each."""
    import importlib.util

    slug, notebook = resolve(target)
    cells = read_cells(notebook)
    problems = []
    for path in sorted((ROOT / "tests" / "mutants" / slug).glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"kept_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        swapped = [Cell(c.kind, c.name, module.ANSWERS.get(c.name, c.source)) for c in cells]
        raw = run_cells(swapped, None, 300.0)
        missed = [c for c in module.MUST_FAIL if c not in raw.failed]
        if raw.status != "ran":
            missed = []  # a hang or a dead process loses every cell
        echo(f"[{slug}] kept mutant {path.stem}: failed {sorted(raw.failed) or raw.status}"
             + (f"; MUST_FAIL cells that passed: {missed}" if missed else ""))
        problems += [f"{slug}/{path.stem}: {c} passed" for c in missed]
    return problems


def format_report(reports: Sequence[DrillReport]) -> str:
    """The summary table, then every survivor with its cell, line and change."""
    head = (f"{'drill':<36} {'generated':>9} {'stillborn':>9} {'killed':>7} {'survived':>8} "
            f"{'equivalent':>10} {'score':>7}")
    lines = [head, "-" * len(head)]
    for r in reports:
        score = f"{100 * r.score:.1f}%" if r.score is not None else "n/a"
        lines.append(f"{r.slug:<36} {r.generated:>9} {r.stillborn:>9} {r.killed:>7} "
                     f"{r.survived:>8} {r.equivalent:>10} {score:>7}")
    for r in reports:
        survivors = [m for m in r.mutants if m["status"] == "survived"]
        if survivors:
            lines += ["", f"survivors of {r.slug} ({len(survivors)}):"]
            lines += [f"  {m['id']}  {m['change']}   | {m['original_line']}" for m in survivors]
        if r.stale_equivalents:
            lines += ["", f"{r.slug}: equivalents list entries that were killed or no longer "
                      f"exist: {', '.join(r.stale_equivalents)}"]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mutate", description=__doc__.split("\n\n")[0])
    parser.add_argument("drills", nargs="+", help="module ids, slugs, or drill notebook paths")
    parser.add_argument("--limit", type=int, default=None,
                        help="at most N mutants per drill, evenly spread")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per mutant (default: max(20, 4 x the reference run))")
    parser.add_argument("--json", type=Path, default=None, help="write the full results here")
    parser.add_argument("--equivalents", type=Path, default=EQUIVALENTS_DIR,
                        help="folder of <slug>.txt equivalent-mutant lists")
    parser.add_argument("--list", action="store_true", help="only list the mutants; run nothing")
    parser.add_argument("--cell", default=None,
                        help="mutate only this answer cell (grade id), e.g. answer_schedule")
    parser.add_argument("--ids", default="",
                        help="comma-separated mutant ids to run (e.g. a previous run's survivors)")
    parser.add_argument("--kept", action="store_true",
                        help="run the hand-written mutants of tests/mutants/<slug>/ instead")
    args = parser.parse_args(argv)

    def echo(line: str) -> None:
        print(line, flush=True)

    try:
        if args.list:
            for target in args.drills:
                slug, nb = resolve(target)
                for c in read_cells(nb):
                    if c.kind == "answer" and args.cell in (None, c.name):
                        for m in mutants_of(c):
                            print(f"{slug} {m.id}  {m.change}")
            return 0
        if args.kept:
            problems = [p for t in args.drills for p in check_kept_mutants(t, echo)]
            print("\n".join(problems) or "every kept mutant lost its MUST_FAIL cells")
            return 1 if problems else 0
        reports = [mutate_drill(t, args.limit, args.jobs, args.timeout, args.equivalents, echo,
                                only=args.cell, ids=[i for i in args.ids.split(",") if i])
                   for t in args.drills]
    except MutateError as exc:
        print(f"mutate: error: {exc}", file=sys.stderr)
        return 2
    print()
    print(format_report(reports))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([asdict(r) for r in reports], indent=1), encoding="utf-8")
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
