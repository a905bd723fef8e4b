"""Stores: where runs, journals, artifacts and per-run state live. See :mod:`.base`."""

from __future__ import annotations

from .base import (
    Event,
    JournalCorrupted,
    NewEvent,
    RunRecord,
    Store,
    StoreFault,
    StoreFull,
    UnknownEventKind,
)
from .sqlcore import SchemaTooNew
from .sqlite import SQLiteStore, StoreUnreadable


def open_store(url: str) -> Store:
    """Open a store from a URL: a file path or ``sqlite:///path``, or ``postgresql://...``."""
    if url.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresStore  # optional dependency (psycopg)

        return PostgresStore(url)
    if url.startswith("sqlite:///"):
        url = url[len("sqlite:///"):]
    return SQLiteStore(url)


__all__ = ["Event", "JournalCorrupted", "NewEvent", "RunRecord", "SQLiteStore", "SchemaTooNew", "Store",
           "StoreFault", "StoreFull", "StoreUnreadable", "UnknownEventKind", "open_store"]
