"""The runtime's seams, checked statically (``ast``, no import):

- no module reaches into another module's private attributes (``obj._name`` where ``_name`` is
  not defined in the module doing it), and no Context/Runtime subclass outside the
  journal/dispatch/context files touches the private attributes those classes own; the few
  exceptions are listed with their reason;
- ``faults``, ``runtime`` and ``idempotency`` are in no import cycle (imports under
  ``if TYPE_CHECKING:`` are for the type checker and do not count; imports inside functions do);
- the layers (:data:`LAYERS`): ``minirt_course`` -> ``minirt.viz`` -> the ``minirt`` runtime ->
  ``minirt.store``; nothing under ``minirt/`` imports ``minirt_course``, neither by an import
  statement (at the top or inside a function) nor by name through ``importlib``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import minirt
import minirt_course

ROOT = Path(minirt.__file__).parent
COURSE_ROOT = Path(minirt_course.__file__).parent
assert COURSE_ROOT.parent == ROOT.parent, "minirt_course lives beside minirt in this repository"
#: The files that own the journal, the dispatch pipeline and the context: they may use each
#: other's private attributes.
SEAM_FILES = {"runtime.py", "dispatch.py", "journal.py"}
#: (file, accessed expression) -> why it is allowed. Files of minirt/ are named relative to it,
#: files of minirt_course/ from the repository root (see :func:`_rel`).
ALLOWED = {
    ("cli.py", "os._exit"): "the standard library's documented exit without cleanup",
    ("minirt_course/course/learner_main.py", "os._exit"):
        "the standard library's documented exit without cleanup (the learner's process, its "
        "checker gone)",
    ("minirt_course/course/nbrun.py", "os._exit"):
        "the standard library's documented exit without cleanup (a forked nbgrader command ends "
        "without running its template's exit handlers)",
}


def _files() -> list[Path]:
    """Every module of the runtime (minirt/) and of the course (minirt_course/)."""
    return sorted([*ROOT.rglob("*.py"), *COURSE_ROOT.rglob("*.py")])


def _rel(path: Path) -> str:
    """``cli.py`` for minirt/cli.py, ``minirt_course/grading/m03.py`` for the course's files."""
    return path.relative_to(ROOT if ROOT in path.parents else ROOT.parent).as_posix()


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _defined_privates(tree: ast.AST) -> set[str]:
    """Private names a module defines: functions, classes, attributes it assigns, class
    attributes and dataclass fields."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) \
                and node.name.startswith("_"):
            names.add(node.name)
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and node.attr.startswith("_"):
            names.add(node.attr)
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                targets = [item.target] if isinstance(item, ast.AnnAssign) else \
                    item.targets if isinstance(item, ast.Assign) else []
                names.update(t.id for t in targets
                             if isinstance(t, ast.Name) and t.id.startswith("_"))
    return names


def _seam_privates() -> set[str]:
    """The private attributes of Context and Runtime (what a subclass must not touch)."""
    tree = _tree(ROOT / "runtime.py")
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name in ("Context", "Runtime"):
            out |= _defined_privates(node)
    return out


def _subclasses_seam(cls: ast.ClassDef) -> bool:
    names = {ast.unparse(b).rsplit(".", 1)[-1] for b in cls.bases}
    return bool(names & {"Context", "Runtime", "CancellableRuntime"})


#: namedtuple's public API, spelled with one underscore so it cannot clash with a field name
#: (https://docs.python.org/3/library/collections.html#collections.namedtuple).
NAMEDTUPLE_API = {"_make", "_fields", "_replace", "_asdict", "_field_defaults"}


def _private_accesses(path: Path, seam: set[str]) -> list[tuple[str, int]]:
    tree = _tree(path)
    own = _defined_privates(tree)
    found: list[tuple[str, int]] = []
    in_seam_subclass: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and _subclasses_seam(node):
            in_seam_subclass |= {id(n) for n in ast.walk(node)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")) or node.attr in NAMEDTUPLE_API:
            continue
        value = node.value
        on_self = isinstance(value, ast.Name) and value.id in ("self", "cls") or (
            isinstance(value, ast.Call) and ast.unparse(value.func) == "super")
        if on_self:
            if id(node) in in_seam_subclass and node.attr in seam and \
                    node.attr not in own - seam:
                found.append((ast.unparse(node), node.lineno))
            continue
        if node.attr not in own or node.attr in seam:
            found.append((ast.unparse(node), node.lineno))
    return found


def test_no_module_touches_another_modules_private_attributes():
    seam = _seam_privates()
    problems = []
    for path in _files():
        rel = _rel(path)
        if rel in SEAM_FILES:
            continue
        for expr, line in _private_accesses(path, seam):
            if (rel, expr) not in ALLOWED:
                problems.append(f"{path.relative_to(ROOT.parent).as_posix()}:{line}: {expr}")
    assert problems == [], "\n".join(problems)


def test_the_allow_list_has_no_stale_entries():
    seam = _seam_privates()
    used = {(_rel(path), expr) for path in _files() for expr, _ in _private_accesses(path, seam)}
    assert set(ALLOWED) <= used, sorted(set(ALLOWED) - used)


def test_the_check_catches_what_it_is_for(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("class Mine(Context):\n"
                   "    def step(self):\n"
                   "        self._position += 1\n"
                   "def f(ctx, gate):\n"
                   "    ctx._append(1)\n"
                   "    gate._stash[ctx] = 2\n")
    found = {expr for expr, _ in _private_accesses(bad, _seam_privates() | {"_append"})}
    assert found == {"self._position", "ctx._append", "gate._stash"}


def _stashes_and_overrides(path: Path, seam: set[str]) -> list[tuple[str, int]]:
    """What the attribute check cannot see: a run's state kept beside the Context (``ctx.__dict__``,
    ``vars(ctx)``, a ``WeakKeyDictionary`` keyed by Context) and a private method of Context or
    Runtime overridden by a subclass (``def _dispatch`` in a Context subclass)."""
    tree = _tree(path)
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "__dict__" \
                and ast.unparse(node.value).split(".")[-1] in ("ctx", "context"):
            found.append((ast.unparse(node), node.lineno))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) == "vars" and node.args \
                and ast.unparse(node.args[0]).split(".")[-1] in ("ctx", "context"):
            found.append((ast.unparse(node), node.lineno))
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith(
                "WeakKeyDictionary") and "Context" in ast.unparse(node.slice):
            found.append((ast.unparse(node), node.lineno))
        elif isinstance(node, ast.ClassDef) and _subclasses_seam(node):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in seam \
                        and not item.name.startswith("__"):
                    found.append((f"{node.name}.{item.name}", item.lineno))
    return found


def test_no_run_state_beside_the_context_and_no_private_override():
    seam = _seam_privates()
    problems = [f"minirt/{path.relative_to(ROOT).as_posix()}:{line}: {expr}"
                for path in sorted(ROOT.rglob("*.py"))
                if path.relative_to(ROOT).as_posix() not in SEAM_FILES
                for expr, line in _stashes_and_overrides(path, seam)]
    assert problems == [], "\n".join(problems)


def test_the_stash_and_override_check_catches_what_it_is_for(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import weakref\n"
                   "SEEN: weakref.WeakKeyDictionary[Context, int] = weakref.WeakKeyDictionary()\n"
                   "class Broken(Context):\n"
                   "    def _dispatch(self, tool, call):\n"
                   "        return 1\n"
                   "def f(ctx):\n"
                   "    ctx.__dict__['mine'] = 1\n"
                   "    return vars(self.ctx)\n")
    found = {expr for expr, _ in _stashes_and_overrides(bad, {"_dispatch"})}
    assert found == {"weakref.WeakKeyDictionary[Context, int]", "Broken._dispatch",
                     "ctx.__dict__", "vars(self.ctx)"}


# -- import cycles --------------------------------------------------------------------------------

def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """minirt modules ``path`` imports at run time (not under ``if TYPE_CHECKING:``)."""
    tree = _tree(path)
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("minirt")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("minirt"):
                continue
            subs = {f"{mod}.{a.name}" for a in node.names} & modules
            out |= subs or {mod}  # "from . import dispatch" needs minirt.dispatch only
    return out


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in _files()}
    return {m: {i for i in _imports(p, set(modules)) if i in modules and i != m}
            for m, p in modules.items()}


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        for n in graph.get(m, ()):
            if n == goal:
                return True
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return False


def test_faults_runtime_and_idempotency_are_in_no_import_cycle():
    graph = _graph()
    assert "minirt.dispatch" in graph["minirt.runtime"]  # the graph sees relative imports
    cyclic = [m for m in ("minirt.faults", "minirt.runtime", "minirt.idempotency",
                          "minirt.resolution", "minirt.dispatch") if _reaches(graph, m, m)]
    assert cyclic == []


#: The course (its own package) and the pictures layer it draws with.
COURSE = ("minirt_course", "minirt.viz")


#: Operator tooling outside the runtime: the console draws with the course's pictures
#: (minirt.viz) and needs the ``console`` extra; ``minirt console`` loads it by name.
TOOLING = ("minirt.console",)


def test_the_runtime_imports_no_course_code():
    graph = _graph()
    runtime = [m for m in graph if not m.startswith(COURSE + TOOLING)]
    reached = {m: {n for n in graph if n.startswith(COURSE) and _reaches(graph, m, n)}
               for m in runtime}
    assert {m: sorted(r) for m, r in reached.items() if r} == {}


def test_the_runtime_reaches_the_console_only_by_name():
    graph = _graph()
    runtime = [m for m in graph if not m.startswith(COURSE + TOOLING)]
    assert "minirt.console.cli" in graph["minirt.cli_operator"]  # the command is registered
    assert [m for m in runtime if _reaches(graph, m, "minirt.console.app")] == []


#: The layers, top to bottom, and the layers each may import (the first prefix that matches
#: names a module's layer; everything else under minirt/ is the runtime). Imports run one way:
#: course -> pictures -> runtime -> stores; the operator's console draws with the pictures.
LAYERS = {
    "course": ("minirt_course", {"course", "pictures", "runtime", "stores"}),
    "console": ("minirt.console", {"console", "pictures", "runtime", "stores"}),
    "pictures": ("minirt.viz", {"pictures", "runtime", "stores"}),
    "stores": ("minirt.store", {"stores"}),
    "runtime": ("minirt", {"runtime", "stores"}),
}
#: The runtime modules the stores build on (the vocabulary they store and check, and the WAL
#: switch every SQLite file of minirt makes: a leaf module that imports nothing of minirt).
STORES_MAY_IMPORT = {"minirt.canonical", "minirt.errors", "minirt.kinds", "minirt.run",
                     "minirt.sqlite_wal"}
#: (importer, imported) across the layers the other way, with the reason.
UPWARD = {("minirt.cli_operator", "minirt.console.cli"):
          "registers the `minirt console` command; the console's app loads only by name"}


def _layer(module: str) -> str:
    return next(name for name, (prefix, _) in LAYERS.items()
                if module == prefix or module.startswith(prefix + "."))


def test_imports_run_one_way_down_the_layers():
    graph = _graph()
    assert {_layer(m) for m in graph} == set(LAYERS)  # every layer has modules: none misnamed
    wrong = sorted(f"{m} -> {n}" for m, deps in graph.items() for n in deps
                   if _layer(n) not in LAYERS[_layer(m)][1]
                   and not (_layer(m) == "stores" and n in STORES_MAY_IMPORT)
                   and (m, n) not in UPWARD)
    assert wrong == []


def test_the_layer_check_catches_an_upward_import():
    assert _layer("minirt_course.grading.m01") == "course"
    assert _layer("minirt.viz.journal") == "pictures" and _layer("minirt.vizier") == "runtime"
    assert "course" not in LAYERS["runtime"][1] and "course" not in LAYERS["pictures"][1]
    assert "pictures" not in LAYERS["runtime"][1] and "runtime" not in LAYERS["stores"][1]


#: Calls that import a module named by a string.
_BY_NAME = ("import_module", "__import__", "find_spec", "import_string", "load_scenario",
            "run_module", "find_module")


def _course_names_imported_by_string(path: Path) -> list[str]:
    """``importlib.import_module("minirt_course...")`` and the like, also through a variable or
    an f-string holding the name: any string constant that starts with ``minirt_course`` and
    is used in a module that imports by name."""
    tree = _tree(path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func).rsplit(".", 1)[-1] in _BY_NAME:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                for sub in ast.walk(arg):
                    if isinstance(sub, ast.Constant) and isinstance(sub.value, str) \
                            and sub.value.startswith("minirt_course"):
                        found.append(f"{path.name}:{sub.lineno}: {sub.value!r}")
    if any(isinstance(n, ast.Call) and ast.unparse(n.func).rsplit(".", 1)[-1] in _BY_NAME
           for n in ast.walk(tree)):
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value.split(":")[0].strip() in _course_modules():
                found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    return sorted(set(found))


def _course_modules() -> set[str]:
    return {_module_name(p) for p in COURSE_ROOT.rglob("*.py")}


def test_the_runtime_imports_the_course_by_no_name():
    found = [f for path in sorted(ROOT.rglob("*.py"))
             for f in _course_names_imported_by_string(path)]
    assert found == []


def test_the_string_check_catches_what_it_is_for(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import importlib\n"
                   "def f():\n"
                   "    return importlib.import_module('minirt_course.grading.m01')\n"
                   "NAME = 'minirt_course.scenarios.m01_lease'\n"
                   "def g():\n"
                   "    return __import__(NAME)\n")
    assert len(_course_names_imported_by_string(bad)) == 2


def test_importing_every_runtime_module_loads_no_course_module():
    """Every module under minirt/ imported (those that need a missing optional dependency left
    out) with minirt_course refused: none of them needs it, and none loads it."""
    import subprocess
    import sys

    code = ("import importlib, importlib.abc, pkgutil, sys\n"
            "class Refuse(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'minirt_course':\n"
            "            raise RuntimeError('the runtime imported ' + name)\n"
            "sys.meta_path.insert(0, Refuse())\n"
            "import minirt\n"
            "n = 0\n"
            "for info in pkgutil.walk_packages(minirt.__path__, 'minirt.'):\n"
            "    if info.name.endswith('__main__'):\n"
            "        continue\n"
            "    try:\n"
            "        importlib.import_module(info.name)\n"
            "    except ImportError:\n"
            "        continue\n"
            "    n += 1\n"
            "from minirt.faults import discover_scenarios\n"
            "assert discover_scenarios() == []\n"
            "print(n, sorted(m for m in sys.modules if m.startswith('minirt_course')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    count, loaded = out.stdout.split(" ", 1)
    assert int(count) > 60 and loaded.strip() == "[]"


def test_the_capstone_agent_and_shop_are_in_no_import_cycle():
    graph = _graph()
    assert [m for m in ("minirt_course.capstone.agent", "minirt_course.capstone.shop")
            if _reaches(graph, m, m)] == []


def test_discover_scenarios_finds_only_registered_packages():
    import subprocess
    import sys

    code = ("from minirt.faults import discover_scenarios\n"
            "before = discover_scenarios()\n"
            "import minirt_course.scenarios\n"
            "print(len(before), len(discover_scenarios()) > 0,\n"
            "      discover_scenarios(minirt_course.scenarios) == discover_scenarios())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["0", "True", "True"]


def test_the_runtime_builds_tool_calls_in_one_place():
    """Every ToolCall of a run comes from minirt.dispatch.new_call (deadline, scopes and
    incarnation always filled in); course code outside a run may build its own."""
    builders = []
    for path in sorted(ROOT.rglob("*.py")):
        if _module_name(path).startswith(COURSE) or path.name == "dispatch.py":
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("ToolCall"):
                builders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert builders == []


#: What the core's lower layers may import (minirt modules, at run time). The upper layers
#: (runtime, effects, scheduler, cancel, approvals, budget, trace) build on these.
MAY_IMPORT = {
    "kinds": set(),
    "sqlite_wal": set(),
    "resolution": {"errors"},
    "tools": {"errors"},
    "faults": {"errors"},
    "journal": {"canonical", "errors", "store.base"},
    "cursor": {"errors", "journal", "store.base"},
    "idempotency": {"canonical", "errors", "journal", "resolution", "sqlite_wal", "tools"},
    "dispatch": {"canonical", "errors", "idempotency", "journal", "kinds", "resolution",
                 "retry", "store.base", "tools"},
    "retry": {"canonical", "errors", "journal", "kinds", "timers"},
    "testing.sweep": {"errors", "faults"},  # the crash sweep builds on the core's fault points
}


def test_the_lower_layers_import_only_what_they_may():
    graph = _graph()
    extra = {m: sorted({n.removeprefix("minirt.") for n in graph[f"minirt.{m}"]} - allowed)
             for m, allowed in MAY_IMPORT.items()}
    assert {m: e for m, e in extra.items() if e} == {}


def test_the_runtime_imports_nothing_of_the_testing_tools():
    """minirt.testing (the crash sweep) is reached from course code and tests only; the core's
    minirt.faults forwards the sweep's old names on first use, not by an import."""
    graph = _graph()
    assert "minirt.faults" in graph["minirt.testing.sweep"]  # the graph sees the package
    runtime = [m for m in graph if not m.startswith(COURSE + TOOLING + ("minirt.testing",))]
    assert [m for m in runtime if _reaches(graph, m, "minirt.testing.sweep")] == []
