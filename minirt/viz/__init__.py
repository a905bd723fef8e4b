"""Pictures drawn from runtime data (course tooling; the runtime core never imports this).

Each module of the course owns one file here (``minirt/viz/<noun>.py``) that turns plain runtime
data (the transition table, journal rows, a sweep's cells) into a :class:`graphviz.Digraph` or a
widget. :func:`render` shows a diagram in Jupyter, and when the ``dot`` binary is missing it shows
the DOT text with a one-line install hint instead of a traceback.
"""

from __future__ import annotations

import shutil
from typing import Any

INSTALL_HINT = ("Graphviz's `dot` program is not installed, so here is the diagram's DOT text. "
                "Install it with `sudo apt-get install graphviz` (Debian/Ubuntu), "
                "`brew install graphviz` (macOS) or `conda install -c conda-forge graphviz`, "
                "or run ./course open, which installs it where it can.")


def dot_available() -> bool:
    return shutil.which("dot") is not None


class Diagram:
    """A graphviz diagram that renders as SVG when ``dot`` exists and as DOT text otherwise.

    ``source`` is the DOT text (deterministic: tests assert on it).
    """

    def __init__(self, graph: Any) -> None:
        self.graph = graph

    @property
    def source(self) -> str:
        return str(self.graph.source)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        if dot_available():
            try:
                return self.graph._repr_mimebundle_(include=include, exclude=exclude)
            except Exception:  # a broken dot install: fall back rather than fail the cell
                pass
        text = f"{INSTALL_HINT}\n\n{self.source}"
        return {"text/plain": text,
                "text/markdown": f"{INSTALL_HINT}\n\n```dot\n{self.source}\n```"}

    def svg(self) -> str:
        """The rendered SVG (needs ``dot``)."""
        return self.graph.pipe(format="svg").decode("utf-8")

    def __repr__(self) -> str:
        return f"Diagram({len(self.source)} bytes of DOT)"


def render(graph: Any) -> Diagram:
    """Wrap a :class:`graphviz.Digraph` so it displays with the fallback."""
    return Diagram(graph)
