"""What counts as a problem on a rendered notebook page (pure functions over a page snapshot).

The snapshot is what ``driver.SNAPSHOT_JS`` reads from the DOM after Run All Cells: one record per
cell with its prompt, its top-level outputs (mime type + text), every image/svg output (decoded or
not), the number of live widgets and progress bars, and every stderr-styled output. Keeping the
rules here, apart from the browser, lets them be tested on made-up snapshots.
"""

from __future__ import annotations

from typing import Any

import nbformat
from harness import (
    DIAGRAM_FALLBACKS,
    DIAGRAM_REPR,
    WIDGET_ERRORS,
    WIDGET_REPR,
    Problem,
    first_line,
)

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _mimes(rec: dict[str, Any]) -> str:
    return ", ".join(o["mime"] or "?" for o in rec.get("outputs", [])) or "no output"


def _saved_stderr(saved: nbformat.NotebookNode | None, i: int) -> list[str]:
    """What the saved notebook says cell i's stderr-styled outputs were."""
    if saved is None or i >= len(saved.cells):
        return []
    found = []
    for o in saved.cells[i].get("outputs", []):
        if o.get("output_type") == "error":
            found.append(f"raised {o.get('ename')}: {first_line(str(o.get('evalue', '')))}")
        elif o.get("output_type") == "stream" and o.get("name") == "stderr":
            found.append(f"wrote to stderr: {first_line(str(o.get('text', '')))}")
    return found


def problems_in(name: str, nb: nbformat.NotebookNode, cells: list[dict[str, Any]],
                expect: dict[int, set[str]],
                saved: nbformat.NotebookNode | None = None) -> list[Problem]:
    """Every problem a learner would see on this page, in cell order."""
    out: list[Problem] = []
    if len(cells) != len(nb.cells):
        out.append(Problem(name, None, "", f"the page shows {len(cells)} cells, the file has "
                                            f"{len(nb.cells)}"))
        return out
    not_run: list[int] = []
    for i, (cell, rec) in enumerate(zip(nb.cells, cells, strict=True)):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        line = first_line(cell.source)

        def add(what: str, i: int = i, line: str = line) -> None:
            out.append(Problem(name, i, line, what))

        prompt = rec.get("prompt", "")
        if "*" in prompt:
            add(f"still running (prompt {prompt}) when the run was given up")
        elif not any(ch.isdigit() for ch in prompt):
            not_run.append(i)
        stderr = rec.get("stderr", [])
        if stderr:
            saved_says = _saved_stderr(saved, i)
            for what in saved_says or [f"shows stderr/error output: {first_line(t)}"
                                       for t in stderr]:
                add(what)
        text = rec.get("text", "")
        for o in rec.get("outputs", []):
            if o["mime"] == "text/plain" and WIDGET_REPR.search(o["text"]):
                add(f"a widget is shown as plain text `{first_line(o['text'])}`, "
                    "not as a live widget")
        for err in WIDGET_ERRORS:
            if err in text:
                add(f"widget not rendered: the output says '{err}'")
        for fb in DIAGRAM_FALLBACKS:
            if fb in text:
                add(f"a diagram is shown as text ('{fb}'), not as an SVG image")
        if DIAGRAM_REPR.search(text):
            add("a Diagram is shown as its repr `Diagram(... bytes of DOT)`, not as an image")
        if saved is not None and i < len(saved.cells):
            views = sum(WIDGET_VIEW in o.get("data", {}) for o in saved.cells[i].get("outputs", []))
            live = sum(o["mime"] == "widget" for o in rec.get("outputs", []))
            if views > live:
                add(f"the kernel sent {views} widget(s), the page shows {live} live widget(s)")
        for sq in rec.get("squeezed", []):
            add(f"a widget's output is squeezed to {sq['w']}px wide, so its text "
                f"('{first_line(sq['text'])[:40]}') wraps into a column {sq['h']}px tall")
        for s in rec.get("svgs", []):
            if s.get("clip", 0) > 2:
                add(f"a picture is {s['clip']}px wider than the output area: cut off on the right")
            elif s.get("shrunk") and not s.get("viewbox"):
                add(f"a picture {s['w']}px wide is shown {s.get('shown_w')}px wide without a "
                    "viewBox to scale by: its right part is cut off")
        bad = [s for s in rec.get("svgs", []) if not s.get("ok")]
        if bad:
            add(f"{len(bad)} image/svg+xml output(s) did not decode as an image")
        want = expect.get(i, set())
        if "svg" in want and not any(s.get("ok") for s in rec.get("svgs", [])):
            add(f"displays a minirt.viz diagram but no SVG image is in the output "
                f"(outputs: {_mimes(rec)})")
        if "widget" in want and not rec.get("widgets"):
            add(f"displays a minirt.viz widget but no live widget is in the output "
                f"(outputs: {_mimes(rec)})")
        if "progress" in want and not rec.get("progress"):
            add(f"runs a tqdm.auto loop but no progress-bar widget is in the output "
                f"(outputs: {_mimes(rec)})")
    if not_run:
        i = not_run[0]
        more = f"; {len(not_run) - 1} later code cell(s) did not run either" if len(not_run) > 1 \
            else ""
        out.append(Problem(name, i, first_line(nb.cells[i].source),
                           f"did not run after Run All Cells (prompt "
                           f"'{cells[i].get('prompt', '')}'){more}"))
        out.sort(key=lambda p: -1 if p.cell is None else p.cell)
    return out
