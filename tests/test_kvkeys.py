"""Every kv key minirt writes is registered in minirt.kvkeys, and only its owner writes it.

The test reads the source of ``minirt/`` (not the stores, which write whatever they are given)
and finds every kv write: ``set_kv(run_id, {...})``, a ``kv=`` argument, a ``pending_kv[...]``
assignment. It follows the written mapping back to where its keys are made (a dict literal, item
assignments, ``update``, a helper's parameter filled by a caller in the same module) and resolves
each key to a literal or a known prefix (``K_TIMER + name``, ``f"signal:{name}"``) through the
module's constants and its ``from .x import K_...`` imports. A mapping that is a parameter of a
public function is the caller's (an application's keys passed through): those functions are
listed in :data:`PASS_THROUGH`, so a new one is looked at before it is accepted.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from minirt.kvkeys import KV_KEYS, KvKeyUnregistered, owner_of

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "minirt"
COURSE = ROOT / "minirt_course"  # the course writes runtime keys too (the drill-08 grader)
SKIP = {"minirt.kvkeys"}  # the registry itself
SKIP_UNDER = ("minirt.store",)  # the stores write what they are given

#: Functions whose kv parameter is the caller's mapping, written as given (module, function).
PASS_THROUGH = {
    ("minirt.dispatch", "write_intent"),  # a call's intent commits the caller's kv with it
    ("minirt.cursor", "write"),  # the journal cursor's fenced append (Context.append's kv)
    ("minirt.effects", "compensate"),  # the saga's state, committed with saga_compensated
    # an async fan-out's one write: the children's prepared kv (dispatch.prepare's pending_kv,
    # gathered as `staged`) committed with their intents; called through the replay sequencer
    ("minirt.aio.context", "_group_commit"),
}

#: Calls whose result is a mapping of keys the scan finds where they are made:
#: ``dispatch.prepare`` returns ``ctx.pending_kv``, whose ``pending_kv[...] =`` writes it reads.
PREPARED = {"prepare"}


@dataclass(frozen=True)
class Key:
    module: str
    line: int
    text: str
    is_prefix: bool


@dataclass(frozen=True)
class Unresolved:
    module: str
    line: int
    what: str


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def path_of(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.exists():
            return p
    return None


@cache
def parsed(module: str) -> ast.Module | None:
    p = path_of(module)
    return ast.parse(p.read_text(encoding="utf-8")) if p else None


def absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    pkg = module.split(".")
    if path_of(module) and path_of(module).name != "__init__.py":  # type: ignore[union-attr]
        pkg = pkg[:-1]
    pkg = pkg[:len(pkg) - (node.level - 1)]
    return ".".join([*pkg, node.module] if node.module else pkg)


@cache
def own_constants(module: str) -> dict[str, str]:
    """The module's string constants assigned at top level."""
    tree = parsed(module)
    out: dict[str, str] = {}
    if tree is None:
        return out
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and isinstance(node.value, ast.Constant) \
                        and isinstance(node.value.value, str):
                    out[t.id] = node.value.value
                elif isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for n, v in zip(t.elts, node.value.elts, strict=False):
                        if isinstance(n, ast.Name) and isinstance(v, ast.Constant) \
                                and isinstance(v.value, str):
                            out[n.id] = v.value
    return out


@cache
def constants(module: str) -> dict[str, str]:
    """The module's own string constants and those it imports (``from .x import K``) from the
    minirt module that assigns them."""
    tree = parsed(module)
    out = dict(own_constants(module))
    if tree is None:
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = absolute(module, node)
            if source.startswith("minirt") and source != module:
                theirs = own_constants(source)
                for alias in node.names:
                    if alias.name in theirs:
                        out.setdefault(alias.asname or alias.name, theirs[alias.name])
    return out


#: Maker functions being followed (a recursive maker is left unresolved, not followed forever).
MAKING: set[tuple[str, ast.FunctionDef]] = set()


class Finder:
    """The kv writes of one module, each key resolved to a literal or a prefix."""

    def __init__(self, module: str, tree: ast.Module) -> None:
        self.module = module
        self.tree = tree
        self.consts = constants(module)
        self.keys: list[Key] = []
        self.unresolved: list[Unresolved] = []
        self.passed: set[tuple[str, str]] = set()
        self.made_by: list[tuple[str, str]] = []  # a neighbour's kv makers this module calls
        self.parents: dict[ast.AST, ast.AST] = {}
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent

    def function_of(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                return node
        return None

    def run(self) -> Finder:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Attribute) and f.attr == "set_kv" and len(node.args) > 1:
                    self.mapping(node.args[1], node, set())
                for kw in node.keywords:
                    if kw.arg == "kv":
                        self.mapping(kw.value, node, set())
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute) \
                            and t.value.attr == "pending_kv":
                        self.key(t.slice, node)
        return self

    def mapping(self, expr: ast.AST, at: ast.AST, seen: set[str]) -> None:
        """Resolve the keys of the mapping ``expr`` (written at ``at``)."""
        if isinstance(expr, ast.Constant) and expr.value is None:
            return
        if isinstance(expr, ast.Dict):
            for k, v in zip(expr.keys, expr.values, strict=True):
                if k is None:
                    self.mapping(v, at, seen)  # {**other}
                else:
                    self.key(k, at)
            return
        if isinstance(expr, ast.IfExp):
            self.mapping(expr.body, at, seen)
            self.mapping(expr.orelse, at, seen)
            return
        if isinstance(expr, ast.BoolOp):
            for v in expr.values:
                self.mapping(v, at, seen)
            return
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
                and expr.func.id == "dict" and len(expr.args) <= 1:
            for a in expr.args:
                self.mapping(a, at, seen)
            for kw in expr.keywords:
                if kw.arg is None:
                    self.mapping(kw.value, at, seen)
                else:
                    self.keys.append(Key(self.module, at.lineno, kw.arg, False))
            return
        if isinstance(expr, ast.Name):
            self.name(expr.id, at, seen)
            return
        if isinstance(expr, ast.Call):
            maker = self.maker(expr)
            if maker is not None and maker not in MAKING:
                self.made(*maker)
                return
        self.unresolved.append(Unresolved(self.module, at.lineno, ast.unparse(expr)))

    def maker(self, call: ast.Call) -> tuple[str, ast.FunctionDef] | None:
        """The module and top-level function that ``call`` calls (``f(..)`` defined here or
        imported with ``from .x import f``; ``x.f(..)`` with ``from . import x``), or None."""
        f = call.func
        if isinstance(f, ast.Name):
            target = (self.module, f.id)
            for node in ast.walk(self.tree):
                if isinstance(node, ast.ImportFrom):
                    for alias in node.names:
                        if (alias.asname or alias.name) == f.id:
                            target = (absolute(self.module, node), alias.name)
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            target = None
            for node in ast.walk(self.tree):
                if isinstance(node, ast.ImportFrom):
                    for alias in node.names:
                        if (alias.asname or alias.name) == f.value.id:
                            target = (f"{absolute(self.module, node)}.{alias.name}", f.attr)
            if target is None:
                return None
        else:
            return None
        module, name = target
        tree = parsed(module) if module.startswith("minirt") else None
        fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name),
                  None) if tree is not None else None
        return None if fn is None else (module, fn)

    def made(self, module: str, fn: ast.FunctionDef) -> None:
        """The keys of the mapping(s) ``fn`` returns, written by its caller but made (and
        owned) by ``module``: a key's format stays with the module that defines it."""
        MAKING.add((module, fn))
        try:
            inner = self if module == self.module else Finder(module, parsed(module))
            for node in ast.walk(fn):
                if isinstance(node, ast.Return) and node.value is not None:
                    inner.mapping(node.value, node, set())
            if inner is not self:
                self.keys += inner.keys
                self.unresolved += inner.unresolved
                self.passed |= inner.passed
                self.made_by.append((module, fn.name))
        finally:
            MAKING.discard((module, fn))

    def name(self, name: str, at: ast.AST, seen: set[str]) -> None:
        fn = self.function_of(at)
        if fn is None or f"{fn.name}.{name}" in seen:
            self.unresolved.append(Unresolved(self.module, at.lineno, name))
            return
        seen = seen | {f"{fn.name}.{name}"}
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
        if name in params:
            self.parameter(fn, params, name, at, seen)
            return
        found = False
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and t.id == name:
                        found = True
                        self.mapping(node.value, node, seen)
                    elif isinstance(t, ast.Tuple) and any(
                            isinstance(e, ast.Name) and e.id == name for e in t.elts) \
                            and isinstance(node.value, ast.Call) \
                            and isinstance(node.value.func, ast.Attribute | ast.Name) \
                            and getattr(node.value.func, "attr",
                                        getattr(node.value.func, "id", None)) in PREPARED:
                        found = True  # the pipeline's pending_kv (scanned where it is written)
                    elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) \
                            and t.value.id == name:
                        found = True
                        self.key(t.slice, node)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "update" and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id == name:
                found = True
                for a in node.args:
                    self.mapping(a, node, seen)
        if not found:
            self.unresolved.append(Unresolved(self.module, at.lineno, name))

    def parameter(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, params: list[str],
                  name: str, at: ast.AST, seen: set[str]) -> None:
        """``name`` is a parameter of ``fn``: resolve it at the calls of ``fn`` in this module,
        or, with none, accept it as the caller's mapping if ``fn`` is listed in PASS_THROUGH."""
        index = params.index(name) - (1 if params and params[0] in {"self", "cls"} else 0)
        calls = [n for n in ast.walk(self.tree) if isinstance(n, ast.Call)
                 and ((isinstance(n.func, ast.Attribute) and n.func.attr == fn.name)
                      or (isinstance(n.func, ast.Name) and n.func.id == fn.name))]
        resolved = False
        for call in calls:
            arg = next((kw.value for kw in call.keywords if kw.arg == name), None)
            if arg is None and 0 <= index < len(call.args):
                arg = call.args[index]
            if arg is not None:
                resolved = True
                self.mapping(arg, call, seen)
        if resolved:
            return
        self.passed.add((self.module, fn.name))
        if (self.module, fn.name) not in PASS_THROUGH:
            self.unresolved.append(Unresolved(
                self.module, at.lineno, f"parameter {name!r} of {fn.name}() (not in PASS_THROUGH)"))

    def key(self, expr: ast.AST, at: ast.AST) -> None:
        text = self.text(expr, at)
        if text is None:
            self.unresolved.append(Unresolved(self.module, at.lineno, ast.unparse(expr)))
        else:
            self.keys.append(Key(self.module, at.lineno, *text))

    def text(self, expr: ast.AST, at: ast.AST) -> tuple[str, bool] | None:
        """``(literal, False)``, ``(prefix, True)``, or None when the key is unknown."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return expr.value, False
        if isinstance(expr, ast.Name):
            if expr.id in self.consts:
                return self.consts[expr.id], False
            local = self.local(expr.id, at)
            return None if local is None else self.text(local, at)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            left = self.text(expr.left, at)
            return None if left is None else (left[0], True)
        if isinstance(expr, ast.JoinedStr) and expr.values \
                and isinstance(expr.values[0], ast.Constant):
            whole = all(isinstance(v, ast.Constant) for v in expr.values)
            return "".join(str(v.value) for v in expr.values if isinstance(v, ast.Constant)) \
                if whole else str(expr.values[0].value), not whole
        return None

    def local(self, name: str, at: ast.AST) -> ast.AST | None:
        """The value of a local variable assigned once in the function around ``at``."""
        fn = self.function_of(at)
        if fn is None:
            return None
        values = [n.value for n in ast.walk(fn) if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
        return values[0] if len(values) == 1 else None


def modules() -> list[str]:
    out = []
    for p in sorted([*PACKAGE.rglob("*.py"), *COURSE.rglob("*.py")]):
        m = module_name(p)
        if m not in SKIP and not m.startswith(SKIP_UNDER):
            out.append(m)
    return out


@cache
def scan() -> tuple[list[Key], list[Unresolved], set[tuple[str, str]]]:
    keys: list[Key] = []
    unresolved: list[Unresolved] = []
    passed: set[tuple[str, str]] = set()
    for m in modules():
        tree = parsed(m)
        assert tree is not None
        f = Finder(m, tree).run()
        keys += f.keys
        unresolved += f.unresolved
        passed |= f.passed
    return keys, unresolved, passed


def test_the_scan_finds_the_kv_writes_it_knows_of():
    """The scanner is not blind: known writes of several kinds are among what it found."""
    keys, _, _ = scan()
    found = {(k.module, k.text, k.is_prefix) for k in keys}
    assert {("minirt.runtime", "signal:", True),  # key = f"signal:{name}"; {key: text}
            ("minirt.timers", "timer:", True),  # kv={K_TIMER + name: ...}
            ("minirt.cancel", "cancel", False),  # kv={CANCEL_KEY: ...}
            ("minirt.approvals", "approval:used:", True),  # ctx.pending_kv[K_USED + id] = ...
            ("minirt.approval_commit", "approval:spent:", True),  # updates[K_SPENT + key] = ...
            ("minirt.budget", "budget:res:", True),  # own = {...}; self._journal(.., own)
            } <= found
    assert len(keys) >= 20


def test_every_kv_key_minirt_writes_is_resolved():
    _, unresolved, _ = scan()
    assert not unresolved, "\n".join(f"{u.module}:{u.line}: {u.what}" for u in unresolved)


def ownership_problems(keys: list[Key]) -> list[str]:
    problems = []
    for k in keys:
        try:
            entry = owner_of(k.text, is_prefix=k.is_prefix)
        except KvKeyUnregistered as exc:
            problems.append(f"{k.module}:{k.line}: {exc}")
            continue
        if not entry.may_write(k.module):
            problems.append(f"{k.module}:{k.line}: writes {k.text!r}, owned by {entry.owner} "
                            f"({entry.prefix!r}), and is not one of its writers")
    return problems


def test_every_kv_key_minirt_writes_is_registered_and_written_by_its_owner():
    keys, _, _ = scan()
    problems = ownership_problems(keys)
    assert not problems, "\n".join(problems)


def test_the_check_fails_on_an_unregistered_key_a_neighbours_key_and_an_unknown_one():
    source = (
        "def f(store, run_id, name, other):\n"
        "    store.set_kv(run_id, {'orders:' + name: '1'})\n"
        "    updates = {}\n"
        "    updates[f'timer:{name}'] = '2'\n"
        "    store.append(run_id, 1, [], kv=updates)\n"
        "    store.transition(run_id, None, kv={other: '3'})\n"
        "    store.transition(run_id, None, kv=other)\n")
    found = Finder("minirt.fake", ast.parse(source)).run()
    assert {(k.text, k.is_prefix) for k in found.keys} == {("orders:", True), ("timer:", True)}
    problems = ownership_problems(found.keys)
    assert len(problems) == 2 and "'orders:'" in problems[0] and "minirt.timers" in problems[1]
    assert [u.what for u in found.unresolved] == [
        "other", "parameter 'other' of f() (not in PASS_THROUGH)"]


def test_every_registered_key_is_written_and_every_listed_writer_writes_it():
    """No stale entries: each prefix, and each extra writer, is seen writing."""
    keys, _, _ = scan()
    seen: dict[str, set[str]] = {}
    for k in keys:
        seen.setdefault(owner_of(k.text, is_prefix=k.is_prefix).prefix, set()).add(k.module)
    for entry in KV_KEYS:
        assert entry.owner in seen.get(entry.prefix, set()), entry.prefix
        for writer, why in entry.writers:
            assert writer in seen[entry.prefix], (entry.prefix, writer, why)


def test_the_pass_through_list_is_exactly_the_functions_that_pass_a_callers_kv_through():
    _, _, passed = scan()
    assert passed == PASS_THROUGH, (sorted(passed - PASS_THROUGH), sorted(PASS_THROUGH - passed))


def test_registered_prefixes_do_not_overlap_ambiguously():
    prefixes = [e.prefix for e in KV_KEYS]
    assert len(prefixes) == len(set(prefixes))
    for e in KV_KEYS:
        assert e.owner.startswith("minirt.") and e.doc


@pytest.mark.parametrize(("key", "owner"), [("signal:approval:r1", "minirt.runtime"),
                                            ("timer:wake", "minirt.timers"),
                                            ("cancel", "minirt.cancel"),
                                            ("budget:res:abc", "minirt.budget")])
def test_owner_of_a_key(key, owner):
    assert owner_of(key).owner == owner


def test_an_unregistered_key_is_refused_by_name():
    with pytest.raises(KvKeyUnregistered, match="'orders:42'"):
        owner_of("orders:42")
    with pytest.raises(KvKeyUnregistered):
        owner_of("cancel", is_prefix=True)  # "cancel" is one exact key, not a prefix


def test_a_neighbour_commits_an_owners_key_through_the_owners_maker():
    """retry, approval_deadline and the m08 grader make no key of a neighbour's themselves: the
    scan follows their calls to the owner's public function and credits the owner."""
    keys, _, _ = scan()
    makers = {}
    for m in ("minirt.retry", "minirt.approval_deadline", "minirt_course.grading.m08"):
        if path_of(m) is None:  # the course tooling may live in its own package
            continue
        f = Finder(m, parsed(m)).run()
        assert not f.unresolved, f.unresolved
        assert all(k.module != m for k in f.keys), [k for k in f.keys if k.module == m]
        makers[m] = set(f.made_by)
    assert ("minirt.timers", "timer_kv") in makers["minirt.retry"]
    assert "minirt.approval_deadline" not in {k.module for k in keys}
    if "minirt_course.grading.m08" in makers:
        assert ("minirt.cancel", "cancel_kv") in makers["minirt_course.grading.m08"]
    assert all(not entry.writers for entry in KV_KEYS)


def test_a_call_to_a_makers_function_is_credited_to_the_maker():
    source = ("from minirt.timers import timer_kv\n"
              "def f(ctx, name):\n"
              "    ctx.append(None, kv=timer_kv(name, 1.0))\n"
              "    ctx.append(None, kv=unknown_helper(name))\n")
    found = Finder("minirt.fake", ast.parse(source)).run()
    assert {(k.module, k.text, k.is_prefix) for k in found.keys} == {
        ("minirt.timers", "timer:", True)}
    assert found.made_by == [("minirt.timers", "timer_kv")]
    assert [u.what for u in found.unresolved] == ["unknown_helper(name)"]


def test_each_kv_key_constant_is_defined_once():
    """A key prefix is assigned to a constant in one module; the others import it."""
    where: dict[str, list[str]] = {}
    for m in modules():
        for name, value in own_constants(m).items():
            if name.startswith("K_") and ":" in value:
                where.setdefault(value, []).append(f"{m}.{name}")
    twice = {v: ms for v, ms in where.items() if len(ms) > 1}
    assert not twice, twice
