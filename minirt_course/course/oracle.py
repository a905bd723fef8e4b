"""The out-of-kernel score: the drill's own tests, run where the learner's code cannot touch them.

Invariant: the checks and reference values live only in this process (a fresh interpreter with
the real minirt, grading included); the submission's cells run in a :class:`LearnerProcess`
(:mod:`minirt_course.course.sandbox`); only JSON crosses (:mod:`minirt_course.course.wire`). This process reads
the drill's **source** notebook (``solutions/<slug>/drill.ipynb``, hidden tests included), runs
its setup cell (``%`` lines dropped) and walks its cells in order:

- an answer cell: the learner's process runs the submission's cells up to that one; the names the
  *source's* version of the cell defines are bound here from the learner's values (functions and
  objects as handles, plain data decoded). No other name is taken, so an answer cell that rebinds
  ``m01`` or ``AssertionError`` changes nothing here;
- a plain cell: the source's version runs here, unless nothing a later check runs can read what
  it leaves behind (:func:`unread_plain_cells`: the drill's demonstration cells that only print a
  run, a measurement or a table; in drill 11 about 0.5 s of CPU per grading). Such a cell is
  still run by the learner's process (its submission's version, in order, as always), so what
  the learner's own later cells see is unchanged; only this process's copy is skipped, and a
  plain cell here never scores (its error is only a note);
- a graded test cell: the source's version (visible and hidden asserts) runs here; it passes when
  it raises nothing.

The learner processes run the submission's cells up to each answer cell at the same time (one
thread each; each has its own channel, and the checker functions their cells may call through
``LEARNER_API`` build their own scratch worlds), and their results are then read in the same
order as before: a process that died or timed out in either decides the answer as it did when
they ran one after the other.

Names listed in :data:`STABLE` must be the same across processes: they are bound to a
:class:`Stable` that calls two learner processes with different ``PYTHONHASHSEED`` (and pids) and
fails with ``AssertionError("[cross-process] ...")`` when their answers differ.

Guarantees: a failing cell's message is its error's first line (never test source); a cell that
fails only because an answer cell did not run says so first ("depends on answer_x, which did not
run: SyntaxError ..."); a learner's process that dies gives its cells a one-line reason. Not
guaranteed: partial credit (a test cell scores all of its points or none), nor grading of manually
graded cells (left to nbgrader).

Run as ``python -m minirt_course.course.oracle MODULE NOTEBOOK [--root R] [--cell ID] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import io
import json
import re
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from minirt_course.course import wire
from minirt_course.course.channel import PeerDied
from minirt_course.course.sandbox import LearnerProcess

__all__ = ["STABLE", "CellVerdict", "OracleResult", "Stable", "main", "read_notebook", "run_oracle",
           "unread_plain_cells"]

#: module id -> answer names whose results must not depend on the process that computes them.
STABLE: dict[str, tuple[str, ...]] = {
    "04": ("derive_key",),
    "05": ("compensation_key",),
    "11": ("refund_key",),
}
CALL_LIMIT = 20.0  # seconds one call into the learner's process may take
CELL_LIMIT = 90.0  # seconds one graded cell may take in all
ANSWER_LIMIT = 30.0  # seconds the learner's process may take to run its cells up to an answer
SEEDS = (0, 1)
CPU_LIMIT = 60.0  # CPU seconds one learner's process may use in all (the reference: under 3 s)
MEMORY_LIMIT = 2 * 2**30  # bytes of address space of one learner's process


@dataclass
class CellVerdict:
    grade_id: str
    points: float
    passed: bool
    message: str | None = None
    seconds: float = 0.0


@dataclass
class OracleResult:
    module_id: str
    cells: list[CellVerdict]
    answers: dict[str, str | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> OracleResult:
        return cls(d["module_id"], [CellVerdict(**c) for c in d["cells"]],
                   dict(d.get("answers", {})), list(d.get("notes", [])),
                   float(d.get("seconds", 0.0)))

    def cell(self, grade_id: str) -> CellVerdict:
        for c in self.cells:
            if c.grade_id == grade_id:
                return c
        raise KeyError(grade_id)


# --------------------------------------------------------------------------- cross-process


def _fingerprint(value: Any) -> str:
    enc = wire.Encoder(lambda o: (0, type(o).__name__, type(o).__qualname__), lambda o: None)
    try:
        return json.dumps(enc.encode(value), sort_keys=True)
    except wire.WireError as exc:
        return f"<{exc}>"


class Stable:
    """An answer that must not depend on the process: each call runs in two learner processes
    (different PYTHONHASHSEED and pid) and must give the same answer in both."""

    def __init__(self, name: str, first: Any, second: Any, seeds: tuple[int, int]) -> None:
        self._name, self._first, self._second, self._seeds = name, first, second, seeds

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            spare = copy.deepcopy((args, kwargs))
        except Exception:  # noqa: BLE001 - handles cannot be copied; pass them as they are
            spare = (args, kwargs)
        results = []
        for fn, (a, k) in ((self._first, (args, kwargs)), (self._second, spare)):
            try:
                results.append((True, fn(*a, **k)))
            except Exception as exc:  # noqa: BLE001 - compared below, raised again
                results.append((False, exc))
        (ok1, v1), (ok2, v2) = results
        f1 = _fingerprint(v1) if ok1 else f"raise {type(v1).__name__}"
        f2 = _fingerprint(v2) if ok2 else f"raise {type(v2).__name__}"
        if f1 != f2:
            raise AssertionError(
                f"[cross-process] {self._name} gave different answers for the same input in two "
                f"fresh interpreters (PYTHONHASHSEED={self._seeds[0]} and {self._seeds[1]}): "
                f"{f1[:60]} vs {f2[:60]}"
            )
        if not ok1:
            raise v1
        return v1

    def __repr__(self) -> str:
        return f"<{self._name}, checked in two processes>"


# --------------------------------------------------------------------------- notebooks


class _Node(dict):  # type: ignore[type-arg]
    """A notebook's JSON object with attribute access (what nbformat's NotebookNode gives)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def read_notebook(path: Path) -> Any:
    """A format-4 notebook's cells, read as JSON (sources joined, as nbformat reads them), or
    nbformat's own reading for any other format.

    Not nbformat itself for format 4: importing it costs 1-2 s of CPU per grading (jsonschema
    compiles its IRI grammars), about a fifth of this process's work. Nothing is lost: the
    notebook's schema is checked before any grading starts (``nbgrade.check_submission``), and
    this process only reads cell types, sources and metadata."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(raw, dict) or raw.get("nbformat") != 4 or not isinstance(
            raw.get("cells"), list):
        import nbformat

        return nbformat.read(str(path), as_version=4)
    cells = []
    for cell in raw["cells"]:
        if not isinstance(cell, dict):
            raise ValueError(f"{path}: a cell is not a JSON object")
        node = _Node(cell)
        src = cell.get("source", "")
        node["source"] = "".join(src) if isinstance(src, list) else str(src)
        meta = cell.get("metadata")
        node["metadata"] = meta if isinstance(meta, dict) else {}
        cells.append(node)
    nb = _Node(raw)
    nb["cells"] = cells
    return nb


def _meta(cell: Any) -> dict[str, Any]:
    m = cell.get("metadata", {}).get("nbgrader", {})
    return m if isinstance(m, dict) else {}


def _drop_magics(source: str) -> str:
    return "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln
                     for ln in source.splitlines())


def _strip_solution(source: str) -> str:
    return "\n".join(ln for ln in source.splitlines()
                     if ln.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))


def defined_names(source: str) -> tuple[list[str], list[ast.stmt]]:
    """The top-level names a cell defines, and its top-level import statements."""
    try:
        tree = ast.parse(_drop_magics(source))
    except SyntaxError:
        return [], []
    names: list[str] = []
    imports: list[ast.stmt] = []

    def targets(node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            names.append(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                targets(elt)
        elif isinstance(node, ast.Starred):
            targets(node.value)

    def walk(body: list[ast.stmt]) -> None:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.append(st.name)
            elif isinstance(st, ast.Assign):
                for t in st.targets:
                    targets(t)
            elif isinstance(st, (ast.AnnAssign, ast.AugAssign)):
                targets(st.target)
            elif isinstance(st, (ast.Import, ast.ImportFrom)):
                imports.append(st)
            elif isinstance(st, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                for part in ("body", "orelse", "finalbody"):
                    walk(getattr(st, part, []) or [])
                for h in getattr(st, "handlers", []) or []:
                    walk(h.body)

    walk(tree.body)
    return list(dict.fromkeys(names)), imports


def _first_line(exc: BaseException) -> str:
    text = wire.safe_str(exc).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {line}" if line else type(exc).__name__


#: Calls that read or change a namespace by name: a cell that makes one reads "everything".
_DYNAMIC = frozenset({"globals", "locals", "vars", "eval", "exec", "dir", "__import__",
                      "setattr", "delattr", "getattr"})


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(_drop_magics(source))
    except SyntaxError:
        return None


def _stored(tree: ast.AST) -> set[str] | None:
    """Every name `tree` may bind (anywhere: a superset of what it binds at top level), or None
    when it changes state in a way names do not show (an attribute or item stored or deleted,
    ``global``/``nonlocal``, ``del``, a namespace call of :data:`_DYNAMIC`)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Delete)):
            return None
        if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            return None
        if isinstance(node, ast.Name):
            if node.id in _DYNAMIC:
                return None
            if not isinstance(node.ctx, ast.Load):
                out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return None
                out.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.arg):
            out.add(node.arg)
    return out


def _reads(tree: ast.AST) -> set[str] | None:
    """Every name `tree` reads (an augmented assignment's target too), None if it reads the
    namespace dynamically."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id in _DYNAMIC:
                return None
            if not isinstance(node.ctx, ast.Store):
                out.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def _rebinds(st: ast.stmt) -> set[str]:
    """Names a top-level statement binds unconditionally (so an earlier binding is dead after)."""
    if isinstance(st, ast.Assign) and all(isinstance(t, ast.Name) for t in st.targets):
        return {t.id for t in st.targets if isinstance(t, ast.Name)}
    if isinstance(st, ast.AnnAssign) and st.value is not None and isinstance(st.target, ast.Name):
        return {st.target.id}
    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {st.name}
    if isinstance(st, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in st.names}
    return set()


def unread_plain_cells(source_nb: Any) -> set[int]:
    """Indices (into ``source_nb.cells``) of the plain cells this process may skip: cells whose
    every effect is a name binding (:func:`_stored` is not None) and none of whose names is read
    by a later test or plain cell before that cell rebinds it, nor by any function body of any
    cell (a function reads its globals when called, whenever it was defined). Answer cells do
    not read here (the learner's process runs them) and rebind their names (bound from the
    learner's values). Conservative: any doubt (a syntax error, a dynamic namespace call, a
    function that reads the name) keeps the cell.

    Relies on the drill's checker functions that a plain cell calls not keeping state that a
    later check reads (they build fresh worlds in scratch folders); the setup cell always runs."""
    parsed: list[tuple[str, ast.Module | None]] = []
    for i, c in enumerate(source_nb.cells):
        if c.cell_type != "code":
            parsed.append(("", None))
            continue
        m = _meta(c)
        gid = str(m.get("grade_id") or f"cell {i + 1}")
        kind = ("setup" if gid == "setup" else "answer" if m.get("solution") else
                "test" if m.get("grade") else "plain")
        src = _strip_solution(c.source) if kind == "answer" else c.source
        parsed.append((kind, _parse(src)))
    in_functions: set[str] = set()
    for kind, tree in parsed:
        if tree is None or kind == "answer":
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                got = _reads(node)
                if got is None:
                    return set()
                in_functions |= got
    out: set[int] = set()
    for i, (kind, tree) in enumerate(parsed):
        if kind != "plain" or tree is None:
            continue
        live = _stored(tree)
        if live is None or live & in_functions:
            continue
        for later_kind, later in parsed[i + 1:]:
            if not live or live is None:
                break
            if later_kind == "answer":
                if later is None:
                    live = None  # an answer this process cannot read: keep the cell
                    break
                names, imports = defined_names(ast.unparse(later))
                live = live - set(names) - set().union(*(_rebinds(s) for s in imports))
                continue
            if later_kind not in ("plain", "test", "setup"):
                continue
            if later is None:
                live = None
                break
            for st in later.body:
                got = _reads(st)
                if got is None or live & got:
                    live = None
                    break
                live = live - _rebinds(st)
            if live is None:
                break
        if live is not None:
            out.add(i)
    return out


# --------------------------------------------------------------------------- the walk


class _Walk:
    def __init__(self, module_id: str, source_nb: Any, submission: Any, build: Path,
                 root: Path | None = None) -> None:
        self.module_id = module_id
        self.source_nb = source_nb
        self.stable = STABLE.get(module_id, ())
        seeds = SEEDS if self.stable else SEEDS[:1]
        self.procs = [LearnerProcess(build, hash_seed=s, call_timeout=CALL_LIMIT,
                                     label=f"learner-{s}", cpu_seconds=CPU_LIMIT,
                                     memory_bytes=MEMORY_LIMIT,
                                     hide=[root] if root is not None else None)
                      for s in seeds]
        cells = []
        for i, cell in enumerate(submission.cells):
            if cell.cell_type != "code":
                continue
            m = _meta(cell)
            if m.get("grade") and not m.get("solution"):
                continue  # test cells never run in the learner's process
            gid = str(m.get("grade_id") or f"cell {i + 1}")
            kind = "setup" if gid == "setup" else "answer" if m.get("solution") else "plain"
            cells.append([kind, gid, str(cell.source)])
        self.ns: dict[str, Any] = {"__name__": "__main__"}
        self.answers: dict[str, str | None] = {}
        self.origin: dict[str, str] = {}
        self.notes: list[str] = []
        self.dead: str | None = None
        for p in self.procs:
            p.peer.deadline = time.monotonic() + ANSWER_LIMIT
            p.root.load(cells)
        self.notes.append("learner process: " + ", ".join(self.procs[0].confinement()))

    def close(self) -> None:
        for p in self.procs:
            p.close()

    def _exec(self, source: str, label: str) -> None:
        code = compile(source, f"<{label}>", "exec")
        exec(code, self.ns)  # noqa: S102 - the drill's own source, in the checker

    def answer(self, gid: str, source: str) -> None:
        names, imports = defined_names(_strip_solution(source))
        for st in imports:
            with contextlib.suppress(Exception):
                self._exec(ast.unparse(st), gid)
        for n in names:
            self.origin[n] = gid
            self.ns.pop(n, None)
        results = []
        outcomes: list[tuple[str, Any]] = [("skipped", None)] * len(self.procs)

        def run(k: int, p: LearnerProcess) -> None:
            try:
                outcomes[k] = ("ok", p.root.run_until(gid, names))
            except PeerDied as exc:
                outcomes[k] = ("died", exc)
            except wire.LearnerTimeout as exc:
                outcomes[k] = ("timeout", exc)
            except BaseException as exc:  # noqa: BLE001 - raised again in this thread below
                outcomes[k] = ("error", exc)

        if not self.dead:
            for p in self.procs:
                p.peer.deadline = time.monotonic() + ANSWER_LIMIT
            threads = [threading.Thread(target=run, args=(k, p), daemon=True,
                                        name=f"answer-{p.hash_seed}")
                       for k, p in enumerate(self.procs[1:], start=1)]
            for t in threads:
                t.start()
            run(0, self.procs[0])
            for t in threads:
                t.join()
        for p, (how, value) in zip(self.procs, outcomes, strict=True):
            if self.dead or how == "skipped":
                break
            if how == "ok":
                results.append(value)
            elif how == "died":
                self.dead = re.sub(r" while running `[^`]*`$", f" while running {gid}",
                                   str(value))
            elif how == "timeout":
                p.close()
                self.dead = (f"the submission's process was stopped: {gid} (or a cell before it) "
                             f"ran longer than {ANSWER_LIMIT:g} s")
            else:
                raise value
        if self.dead or not results:
            self.answers[gid] = self.dead or "did not run"
            return
        first = results[0]
        own = None
        for where, _kind, ename, msg, line in first.get("errors", []):
            text = f"{ename}: {msg}" if msg else str(ename)
            at = f" ({where}, line {line})" if line else f" ({where})"
            if where == gid:
                own = text + at
            else:
                self.notes.append(f"{where} raised {text}{at}")
        self.answers[gid] = own
        values = [r.get("values", {}) for r in results]
        for n in names:
            if n not in values[0]:
                continue
            v = values[0][n]
            if n in self.stable and len(values) > 1 and n in values[1]:
                v = Stable(n, v, values[1][n], SEEDS)
            self.ns[n] = v

    def plain(self, label: str, source: str) -> None:
        try:
            self._exec(_drop_magics(source), label)
        except BaseException as exc:  # noqa: BLE001 - noted, like an ungraded cell's error
            self.notes.append(f"{label} (source) raised {_first_line(exc)}")

    def test(self, gid: str, source: str, points: float) -> CellVerdict:
        started = time.monotonic()
        for p in self.procs:
            p.peer.deadline = started + CELL_LIMIT
        try:
            self._exec(source, gid)
            return CellVerdict(gid, points, True, None, time.monotonic() - started)
        except BaseException as exc:  # noqa: BLE001 - every failure is this cell's verdict
            return CellVerdict(gid, points, False, self._explain(exc),
                               time.monotonic() - started)

    def _explain(self, exc: BaseException) -> str:
        if isinstance(exc, NameError) and getattr(exc, "name", None) in self.origin:
            name = exc.name
            gid = self.origin[str(name)]
            why = self.answers.get(gid)
            if why:
                return f"depends on {gid}, which did not run: {why}"
            return f"depends on {gid}, which does not define `{name}`"
        if isinstance(exc, PeerDied):
            return str(exc)
        if isinstance(exc, wire.LearnerTimeout):
            return f"LearnerTimeout: {exc}"
        return _first_line(exc)


def run_oracle(
    module_id: str,
    notebook: str | Path,
    course_root: str | Path,
    *,
    cell: str | None = None,
) -> OracleResult:
    """Grade `notebook` against the drill's source out of the learner's reach (in this process
    and learner processes it starts); `cell` stops after that graded cell and reports only it."""
    from minirt_course.course import catalog

    started = time.monotonic()
    module = catalog.get(module_id)
    root = Path(course_root).resolve()
    source_nb = read_notebook(root / "solutions" / module.slug / "drill.ipynb")
    submission = read_notebook(Path(notebook))
    walk = _Walk(module.id, source_nb, submission, root / "build", root)
    skip = unread_plain_cells(source_nb)
    verdicts: list[CellVerdict] = []
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for i, c in enumerate(source_nb.cells):
                if c.cell_type != "code":
                    continue
                m = _meta(c)
                gid = str(m.get("grade_id") or f"cell {i + 1}")
                if gid == "setup":
                    walk.plain("setup", c.source)
                elif m.get("solution"):  # manually graded code answers are answers too
                    walk.answer(gid, c.source)
                elif m.get("grade") and not m.get("solution"):
                    if cell is None or gid == cell:
                        verdicts.append(walk.test(gid, c.source, float(m.get("points", 0))))
                    else:
                        walk.test(gid, c.source, float(m.get("points", 0)))
                    if gid == cell:
                        break
                elif not m.get("grade") and i not in skip:
                    walk.plain(gid, c.source)
    finally:
        walk.close()
    return OracleResult(module.id, verdicts, walk.answers, walk.notes,
                        time.monotonic() - started)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m minirt_course.course.oracle")
    ap.add_argument("module")
    ap.add_argument("notebook")
    ap.add_argument("--root", default=".")
    ap.add_argument("--cell")
    ap.add_argument("--out", help="write the JSON result here (default: stdout)")
    args = ap.parse_args(argv)
    result = run_oracle(args.module, args.notebook, args.root, cell=args.cell)
    text = json.dumps(result.as_dict(), indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    else:
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
