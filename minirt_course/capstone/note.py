"""The capstone's architecture note: three sections, and figures that match what was measured.

A note is markdown text with three headed sections, **Decisions**, **Trade-offs** and **Remaining
risks** (headings ``#``..``####``, any case; "Tradeoffs" and "Risks" accepted), each with at least
a sentence of its own. It must quote the agent's own measurements: :func:`quoted_figures` finds
every number in the note and matches it against the measured figures (relative tolerance, 20% by
default); a figure counts once however often it is quoted. Figures below ``min_value`` are not
matched at all: "3 tools" or "step 2" must not pass for a measurement by accident.

Not checked: whether the prose is true. A grader reads it; this module only makes sure the note
exists, is structured, and is anchored in numbers the agent really produced.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

SECTIONS = {"decisions": ("decisions",), "trade-offs": ("trade-offs", "tradeoffs", "trade offs"),
            "remaining risks": ("remaining risks", "risks")}
_HEADING = re.compile(r"^\s{0,3}#{1,4}\s*(.+?)\s*#*\s*$", re.MULTILINE)
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:[,\u2009\u202f]\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")


@dataclass(frozen=True)
class NoteCheck:
    missing_sections: list[str]
    empty_sections: list[str]
    matched: dict[str, float]  # figure name -> the number quoted for it

    def problems(self, *, need_figures: int = 2) -> list[str]:
        out = [f"[note-sections] the note has no section headed {s!r}"
               for s in self.missing_sections]
        out += [f"[note-sections] the section {s!r} is empty" for s in self.empty_sections]
        if len(self.matched) < need_figures:
            out.append(f"[note-figures] the note quotes {len(self.matched)} of the measured "
                       f"figures (within 20%); at least {need_figures} are needed")
        return out


def sections(text: str) -> dict[str, str]:
    """Canonical section name -> its body, for the three sections found in ``text``."""
    found: dict[str, str] = {}
    heads = list(_HEADING.finditer(text))
    for i, m in enumerate(heads):
        title = m.group(1).strip().strip("*_").strip().lower()
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        for name, spellings in SECTIONS.items():
            if any(title.startswith(s) for s in spellings) and name not in found:
                found[name] = text[m.end():end].strip()
    return found


def numbers(text: str) -> list[float]:
    """Every number written in ``text`` (``1,234.5`` and ``1234.5`` alike)."""
    out = []
    for m in _NUMBER.finditer(text):
        out.append(float(re.sub(r"[,\u2009\u202f]", "", m.group(0))))
    return out


def quoted_figures(text: str, figures: Mapping[str, float], *, tolerance: float = 0.2,
                   min_value: float = 10.0) -> dict[str, float]:
    """Figure name -> the first number in ``text`` within ``tolerance`` of it (relative)."""
    nums = numbers(text)
    matched = {}
    for name, value in figures.items():
        value = float(value)
        if not abs(value) >= min_value:
            continue
        for x in nums:
            if abs(x - value) <= tolerance * abs(value):
                matched[name] = x
                break
    return matched


def check_note(text: object, figures: Mapping[str, float], *, tolerance: float = 0.2
               ) -> NoteCheck:
    """Check a note's structure and its quoted figures (see the module docstring)."""
    body = text if isinstance(text, str) else ""
    found = sections(body)
    missing = [s for s in SECTIONS if s not in found]
    empty = [s for s, b in found.items() if len(re.findall(r"[A-Za-z]{2,}", b)) < 5]
    return NoteCheck(missing, empty, quoted_figures(body, figures, tolerance=tolerance))
