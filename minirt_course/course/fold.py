"""`show_folded(obj, notes)`: the lines that matter of a long listing, the rest behind a toggle.

A lesson that needs a 40-line function shows it with :func:`show_folded`: the few lines the
lesson is about are printed in the open, each with its line number under a comment saying why
it matters, and the whole source follows folded under a "show the source" toggle (an HTML
``<details>`` element in JupyterLab; in plain text only the key lines and a note of how many
lines are folded). The source comes from the live object (:func:`minirt_course.course.show.source_of`),
so, as with ``show``, what is printed cannot drift from what runs.

Invariant: every note matches exactly one line of the source (by substring), or
:class:`FoldNoteUnmatched` is raised and nothing is displayed; the key lines are printed in
source order. Guaranteed: the folded listing is the complete source, escaped (no HTML from the
source is rendered). Not guaranteed: that the notes are still the right lines after the source
changes (a note that stops matching fails loudly; one that matches a different line does not).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from minirt.errors import MinirtError

from .show import Source, source_of

__all__ = ["Folded", "FoldNoteUnmatched", "folded", "show_folded"]

SUMMARY = "show the source"


class FoldNoteUnmatched(MinirtError):
    """A note of :func:`show_folded` matches no line, or more than one, of the object's source.

    Raised before anything is displayed. Not raised by ``show``, which takes no notes."""

    fields = ("name", "needle", "matches")
    template = "{name}: the note for {needle!r} must match exactly one line, it matches {matches}"


@dataclass(frozen=True)
class Folded:
    """A listing's key lines (line number, text, note) and its complete source."""

    source: Source
    key_lines: tuple[tuple[int, str, str], ...]

    @property
    def folded_lines(self) -> int:
        """How many lines are behind the toggle (the whole listing)."""
        return len(self.source.text.splitlines())

    def _key_text(self) -> str:
        # The note on its own line above its key line: no wider than the source itself.
        return "\n".join(f"      # {note}\n{n:>4}  {line}" for n, line, note in self.key_lines)

    def __str__(self) -> str:
        return (f"# {self.source.header}: the lines that matter\n{self._key_text()}\n"
                f"# ({self.folded_lines} lines folded: show(...) prints them all)")

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        esc = html.escape
        return (f"<p><b><code>{esc(self.source.name)}</code></b> — <code>{esc(self.source.path)}"
                f"</code>, lines {self.source.first_line}-{self.source.last_line}: the lines that"
                f" matter</p>\n<pre><code>{esc(self._key_text())}</code></pre>\n"
                f"<details><summary>{SUMMARY} ({self.folded_lines} lines)</summary>\n"
                f"<pre><code>{esc(self.source.text)}</code></pre>\n</details>\n")


def folded(obj: Any, notes: Mapping[str, str]) -> Folded:
    """The :class:`Folded` listing of ``obj``: ``notes`` maps a substring of a key line to the
    comment shown beside it (at least one note)."""
    src = source_of(obj)
    if not notes:
        raise FoldNoteUnmatched(name=src.name, needle="", matches="nothing (no notes given)")
    lines = src.text.splitlines()
    keys = []
    for needle, note in notes.items():
        hits = [i for i, line in enumerate(lines) if needle and needle in line]
        if len(hits) != 1:
            raise FoldNoteUnmatched(name=src.name, needle=needle,
                                    matches=f"{len(hits)} lines" if hits else "none")
        keys.append((src.first_line + hits[0], lines[hits[0]].rstrip(), note))
    return Folded(src, tuple(sorted(keys)))


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and hasattr(shell, "kernel")


def show_folded(obj: Any, notes: Mapping[str, str]) -> None:
    """Display the key lines of ``obj`` with their notes and, folded, its whole source
    (HTML in a Jupyter kernel, plain text on stdout elsewhere). Returns None, as ``show`` does,
    so it can sit anywhere in a cell."""
    listing = folded(obj, notes)
    if _in_kernel():
        from IPython.display import display

        display(listing)
    else:
        print(listing)
