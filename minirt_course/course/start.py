"""`minirt-course start [DIR]`: put an installed course's lessons and drills in a folder.

The learner release (`python tools/release.py OUT`, a wheel named `minirt-course`) carries the
lessons, the drills (nbgrader's release versions) and a learner's nbgrader_config.py as package
data under ``minirt_course/course/material/``. :func:`copy_material` copies them into a folder.

Invariant: it never overwrites a file that is already there (a learner's work survives a second
`start`); it reports each file as copied or kept. It does not guarantee the folder is a git
checkout's course: in a clone (no material/ in the package) it raises :class:`NoMaterial`, which
says to use `./course open` instead.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

__all__ = ["NoMaterial", "Copied", "copy_material", "material_root", "START_NOTEBOOK"]

START_NOTEBOOK = "lessons/00-start-here.ipynb"


class NoMaterial(Exception):
    """This installation carries no lessons (a clone of the repository, not the release)."""


@dataclass
class Copied:
    """What :func:`copy_material` did."""

    folder: Path
    copied: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def material_root() -> Path:
    """The installed package's material folder; raises NoMaterial when there is none."""
    root = Path(str(resources.files("minirt_course.course") / "material"))
    if not (root / "lessons").is_dir():
        raise NoMaterial(
            "this minirt installation has no course material (it is a clone of the repository, "
            "not the learner release): run ./course open in the clone, or pip install the "
            "release's wheel (python tools/release.py OUT builds it)"
        )
    return root


def copy_material(folder: str | os.PathLike[str]) -> Copied:
    """Copy lessons/, drills/ and nbgrader_config.py into `folder`, keeping existing files."""
    src = material_root()
    dest = Path(folder).expanduser().resolve()
    if dest.exists() and not dest.is_dir():
        raise NotADirectoryError(f"{dest} exists and is not a folder")
    out = Copied(dest)
    for path in sorted(src.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(src).as_posix()
        target = dest / rel
        if target.exists():
            out.kept.append(rel)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        out.copied.append(rel)
    (dest / "build").mkdir(exist_ok=True)  # nbgrader's gradebook folder
    return out
