"""Drive the course's notebooks through real JupyterLab (and Notebook 7) in headless Chromium.

What a learner sees is checked, not what a kernel returns: each notebook is opened in a browser tab,
run from the menu (Run > Run All Cells), and the rendered page is read back. A notebook passes when
every code cell ran, no cell shows an error or a stderr stream, every image/svg output is a decoded
image, a cell that displays a ``minirt.viz`` diagram shows one as SVG (not the DOT fallback text),
every widget is a live widget (not its plain-text repr, not "Error displaying widget", not an
output squeezed to a sliver by its neighbour), and moving a slider or pressing Play changes what
the widget shows.

Files: harness (discovery, what each cell must show, results), labserver (the Jupyter server),
driver + pagejs (the browser), checks (the rules, as pure functions over a page snapshot).

Invariants:
- The server's root_dir is a temporary copy of the course (lessons/, solutions/, drills/,
  nbgrader_config.py): nothing here writes into the checkout.
- Every request the page makes to a host other than 127.0.0.1/localhost is aborted and counted.
- One server, one browser, notebooks serially; each tab is closed and its kernel shut down.

Not guaranteed: pixel-exact rendering, fonts, or behaviour in browsers other than Chromium.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "screenshots"
REPORT = ROOT / "build" / "browser-report.json"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 900}
MAX_SHOT_HEIGHT = 30000  # px; taller notebooks are cut at the bottom of the screenshot
RUN_TIMEOUT_S = 300.0
KERNEL_READY_TIMEOUT_S = 90.0

# What a widget looks like when the page could not render it as a widget.
WIDGET_REPR = re.compile(
    r"^\s*(VBox|HBox|Box|GridBox|IntSlider|FloatSlider|Play|Output|FloatProgress|IntProgress|"
    r"HTML|HTMLMath|Label|Button|Dropdown|Tab|Accordion|Text|Textarea|Checkbox|ToggleButtons|"
    r"SelectionSlider)\(")
WIDGET_ERRORS = ("Error displaying widget", "model not found", "Error rendering widget",
                 "Loading widget...", "Widget Javascript not detected")
# minirt.viz.Diagram's fallback when `dot` is missing, and reprs that mean "not rendered".
DIAGRAM_FALLBACKS = ("program is not installed, so here is the diagram's DOT text",
                     "graphviz.graphs.Digraph object", "graphviz.graphs.Graph object")
DIAGRAM_REPR = re.compile(r"^\s*Diagram\(\d+ bytes of DOT\)\s*$", re.M)


# ----------------------------------------------------------------------------- discovery


def discover(root: Path = ROOT) -> list[Path]:
    """Every lesson and every drill source present now, as paths relative to ``root``."""
    found = sorted(root.glob("lessons/*.ipynb")) + sorted(root.glob("solutions/*/drill.ipynb"))
    return [p.relative_to(root) for p in found]


def shot_name(rel: Path, ui: str = "lab") -> str:
    """build/screenshots/<name>.png: ``01-run-state-machines``, ``drill-01-...``, ``notebook7-...``."""
    stem = rel.parent.name if rel.name == "drill.ipynb" else rel.stem
    prefix = "drill-" if rel.name == "drill.ipynb" else ""
    return ("notebook7-" if ui == "notebook7" else "") + prefix + stem


def first_line(source: str) -> str:
    for line in source.splitlines():
        if line.strip():
            return line.strip()[:80]
    return "(empty)"


# ----------------------------------------------------------------------------- static expectations


def _viz_kinds() -> dict[tuple[str, str], str]:
    """(module, function) -> "svg" for minirt.viz functions returning a Diagram, "widget" for
    the ones that build ipywidgets. Read from the real code, so new modules are picked up."""
    import minirt.viz as viz

    kinds: dict[tuple[str, str], str] = {("minirt.viz", "render"): "svg"}
    for info in pkgutil.iter_modules(viz.__path__):
        name = f"minirt.viz.{info.name}"
        try:
            mod = importlib.import_module(name)
        except Exception:  # a module another engineer is halfway through: no expectation
            continue
        for fname, fn in vars(mod).items():
            if not inspect.isfunction(fn) or fn.__module__ != name or fname.startswith("_"):
                continue
            ret = str(inspect.signature(fn).return_annotation)
            if "Diagram" in ret:
                kinds[(name, fname)] = "svg"
            elif "ipywidgets" in inspect.getsource(fn):
                kinds[(name, fname)] = "widget"
    return kinds


def _python(source: str) -> ast.Module | None:
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def expectations(nb: nbformat.NotebookNode) -> dict[int, set[str]]:
    """cell index -> what it must show: "svg" (a minirt.viz diagram is the cell's value or is
    passed to display() at top level), "widget" (a minirt.viz widget), "progress" (tqdm.auto)."""
    kinds = _viz_kinds()
    names: dict[str, str] = {}      # local name -> kind, for functions
    modules: dict[str, str] = {}    # local name -> minirt.viz module
    values: dict[str, str] = {}     # variable -> kind of the value it holds
    progress_names: set[str] = set()
    out: dict[int, set[str]] = {}

    def kind_of(node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return values.get(node.id)
        if not isinstance(node, ast.Call):
            return None
        f = node.func
        if isinstance(f, ast.Name):
            return names.get(f.id)
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in modules:
            return kinds.get((modules[f.value.id], f.attr))
        return None

    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tree = _python(cell.source)
        if tree is None:
            continue
        want: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    local = a.asname or a.name
                    if node.module.startswith("minirt.viz"):
                        if (node.module, a.name) in kinds:
                            names[local] = kinds[(node.module, a.name)]
                        elif node.module == "minirt.viz":
                            modules[local] = f"minirt.viz.{a.name}"
                    if node.module in ("tqdm.auto", "tqdm.notebook", "tqdm.autonotebook") \
                            and a.name in ("tqdm", "trange"):
                        progress_names.add(local)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("minirt.viz.") and a.asname:
                        modules[a.asname] = a.name
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in progress_names:
                want.add("progress")
        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Name):
                k = kind_of(stmt.value)
                if k:
                    values[stmt.targets[0].id] = k
                else:
                    values.pop(stmt.targets[0].id, None)
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                    and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "display":
                want.update(k for k in map(kind_of, stmt.value.args) if k)
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            k = kind_of(tree.body[-1].value)
            if k:
                want.add(k)
        if want:
            out[i] = want
    return out


# ----------------------------------------------------------------------------- results


@dataclass
class Problem:
    """One thing a learner would see go wrong, named by notebook, cell and what was seen."""

    notebook: str
    cell: int | None
    line: str
    what: str

    def __str__(self) -> str:
        where = f"cell {self.cell} `{self.line}`" if self.cell is not None else "notebook"
        return f"{self.notebook}: {where}: {self.what}"


@dataclass
class Result:
    notebook: str
    ui: str
    seconds_open: float = 0.0     # page load until the kernel is idle and connected
    seconds_run: float = 0.0      # Run All Cells until every cell ran and the kernel is idle
    seconds_total: float = 0.0
    cells: int = 0
    svgs: int = 0
    widgets: int = 0
    interactions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # worth a look, not failures
    problems: list[Problem] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    screenshot: str | None = None

    def summary(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k != "problems"}
        d["problems"] = [str(p) for p in self.problems]
        return d
