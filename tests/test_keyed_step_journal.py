"""The write path's bytes against a journal main's code wrote (tests/data/keyed_step_journal.py).

A leaner write path (issue 24) must not move a byte of what it journals: main's journal resumes
on today's code without sending a recorded call again, and today's code, given the same runs,
writes the same rows (payload, digest, hash chain, head) as main did.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from minirt.clock import FakeClock

sys.path.insert(0, str(Path(__file__).parent / "data"))
import keyed_step_journal as main_keyed  # noqa: E402  (tests/data is not a package)

DUMP = Path(__file__).parent / "data" / "keyed_step_main_83ba8fd.sql"
EXPECTED = [["ord_0000", 100], ["ord_0001", 101], ["ord_0002", 102]]


def rows(path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    con = sqlite3.connect(path)
    try:
        events = con.execute("SELECT * FROM events ORDER BY run_id, seq").fetchall()
        heads = con.execute("SELECT run_id, state, incarnation, last_seq, last_digest,"
                            " lease_expires_at FROM runs ORDER BY run_id").fetchall()
    finally:
        con.close()
    return events, heads


def test_main_journal_resumes_here_without_resending_recorded_calls(tmp_path: Path) -> None:
    path = main_keyed.load(DUMP, tmp_path / "main.sqlite")
    sent: list[str] = []
    rt = main_keyed.make_runtime(path, FakeClock(1_700_000_200.0), sent=sent)
    try:
        assert rt.run("done").result() == EXPECTED
        assert rt.run("crashed").result() == EXPECTED
    finally:
        rt.close()
    # positions 0 and 1 of "crashed" replay; position 2's intent (fetch 1) is resent with its
    # key, then the run goes on
    assert sent == ["fetch 1", "charge ord_0001", "fetch 2", "charge ord_0002"]
    events, _ = rows(path)
    kinds = [e[2] for e in events if e[0] == "crashed"]
    assert kinds[-1] == "transition" and kinds.count("tool_result") == 6


def test_this_code_writes_the_rows_main_wrote(tmp_path: Path) -> None:
    mine = tmp_path / "mine.sqlite"
    main_keyed.record(mine)
    main = main_keyed.load(DUMP, tmp_path / "main.sqlite")
    got_events, got_heads = rows(mine)
    want_events, want_heads = rows(main)
    assert len(want_events) == 22
    assert got_events == want_events  # every column, the digests (hash chain) included
    assert got_heads == want_heads
