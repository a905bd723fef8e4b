"""A missing SQLite gradebook, created as nbgrader creates it, without its `alembic heads` process.

Invariant: :func:`ensure` leaves a gradebook that nbgrader's own ``Gradebook(db_url)`` would have
made for a missing file: nbgrader's tables (``nbgrader.api.Base.metadata``, the same
``create_all``) and an ``alembic_version`` table holding the head revision of nbgrader's migration
scripts (so ``nbgrader db upgrade`` sees it as current). nbgrader computes that head by running
``alembic heads`` as a subprocess on every new gradebook, which costs a Python start and the import
of alembic (2-4 s of wall time on a shared 2-core machine, paid by every first grading); here the
head is read from the revision files themselves (``revision = '...'``/``down_revision = ...``), and
only when they form one chain with one head. The file appears atomically (built under a temporary
name, then linked into place; a gradebook that appeared meanwhile is kept).

Guarantees: an existing gradebook is never touched; anything unexpected (not SQLite, migration
files that do not parse or have several heads) leaves the file missing, and nbgrader then creates
it its own way. Not guaranteed: the course row (nbgrader's ``check_course`` adds it when it first
opens the gradebook, as it always does).
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

__all__ = ["alembic_head", "ensure"]

_REV = re.compile(r"^revision\s*=\s*['\"]([0-9A-Za-z_]+)['\"]\s*$", re.M)
_DOWN = re.compile(r"^down_revision\s*=\s*(None|['\"]([0-9A-Za-z_]+)['\"])\s*$", re.M)


def alembic_head(versions: Path | None = None) -> str | None:
    """The single head revision of nbgrader's migration scripts, or None when they are not one
    plain chain (then only alembic itself may say)."""
    if versions is None:
        import nbgrader

        versions = Path(nbgrader.__file__).resolve().parent / "alembic" / "versions"
    revisions: dict[str, str | None] = {}
    for path in sorted(versions.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        rev, down = _REV.search(text), _DOWN.search(text)
        if rev is None or down is None:
            return None
        revisions[rev.group(1)] = down.group(2)
    if not revisions or sum(1 for d in revisions.values() if d is None) != 1:
        return None
    if any(d is not None and d not in revisions for d in revisions.values()):
        return None
    parents = {d for d in revisions.values() if d is not None}
    heads = [r for r in revisions if r not in parents]
    return heads[0] if len(heads) == 1 else None


def ensure(db_url: str) -> bool:
    """Create the gradebook at `db_url` if it is a missing SQLite file; True if this call made it."""
    if not db_url.startswith("sqlite:///"):
        return False
    db = Path(db_url[len("sqlite:///"):])
    if db.exists():
        return False
    head = alembic_head()
    if head is None:
        return False
    from nbgrader.api import Base
    from sqlalchemy import create_engine, text

    db.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".gradebook-", suffix=".db", dir=db.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # as sqlite would create it (mkstemp makes it 0600)
    try:
        engine = create_engine(f"sqlite:///{tmp}", future=True)
        try:
            Base.metadata.create_all(bind=engine)
            with engine.begin() as conn:  # nbgrader.api.Gradebook.__init__, for a new database
                conn.execute(text("CREATE TABLE alembic_version "
                                  "(version_num VARCHAR(32) NOT NULL);"))
                conn.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v);"),
                             {"v": head})
        finally:
            engine.dispose()
        try:
            os.link(tmp, db)
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
