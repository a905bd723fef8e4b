"""ChainVerifier.check_plain_rows, the claim's page-at-once check, against check_plain row by row.

For any page of stored rows (intact, or with one row altered, dropped, swapped, or a keyed digest
mixed in) the page check must accept exactly what the row check accepts, leave the verifier in
the same state, and raise the same error (type, seq, reason) at the same row.
"""

from __future__ import annotations

import random

import pytest

from minirt.store.base import GENESIS, ChainVerifier, JournalCorrupted, chain

RUN = "run-\u00e9"  # a non-ASCII run id: the header is encoded as the rule encodes it


def _rows(n: int) -> list[tuple]:
    events = chain(RUN, 1, 0, GENESIS, [
        type("E", (), {"kind": k, "step": s, "payload_json": p, "at": 1.0 + i / 7})()
        for i, (k, s, p) in enumerate(
            ("intent" if i % 2 == 0 else "tool_result", i // 2, f'{{"i":{i},"t":"\u2603"}}')
            for i in range(n))])
    return [(e.seq, e.kind, e.step, e.payload_json, e.incarnation, e.at,
             bytes.fromhex(e.digest[7:])) for e in events]


def _by_rows(rows: list[tuple], head) -> tuple:
    v = ChainVerifier(RUN, None, head)
    try:
        for seq, kind, step, payload, inc, at, raw in rows:
            if type(raw) is not bytes or len(raw) != 32:
                break
            v.check_plain(seq, kind, step, payload, inc, at, raw)
    except JournalCorrupted as exc:
        return ("error", exc.seq, exc.reason, v.seq, v.prev)
    return ("ok", v.seq, v.prev, v.at_head)


def _by_page(rows: list[tuple], head) -> tuple:
    v = ChainVerifier(RUN, None, head)
    digests: list[str] = []
    try:
        n = v.check_plain_rows(rows, digests)
    except JournalCorrupted as exc:
        return ("error", exc.seq, exc.reason, v.seq, v.prev)
    assert n == len(digests) and digests[-1:] == ([v.prev] if n else [])
    return ("ok", v.seq, v.prev, v.at_head)


def _alter(rows: list[tuple], how: str, i: int) -> list[tuple]:
    rows = list(rows)
    seq, kind, step, payload, inc, at, raw = rows[i]
    if how == "payload":
        rows[i] = (seq, kind, step, payload.replace("}", ' }'), inc, at, raw)
    elif how == "at":
        rows[i] = (seq, kind, step, payload, inc, at + 1e-9, raw)
    elif how == "drop":
        del rows[i]
    elif how == "swap" and i + 1 < len(rows):
        rows[i], rows[i + 1] = rows[i + 1], rows[i]
    elif how == "keyed":
        rows[i] = (seq, kind, step, payload, inc, at, "hmac-sha256:k1:" + "0" * 64)
    return rows


@pytest.mark.parametrize("how", ["none", "payload", "at", "drop", "swap", "keyed"])
def test_the_page_check_accepts_and_refuses_exactly_what_the_row_check_does(how):
    rnd = random.Random(24)
    rows = _rows(40)
    for _ in range(12):
        i = rnd.randrange(len(rows))
        page = rows if how == "none" else _alter(rows, how, i)
        head = (len(rows), "sha256:" + rows[-1][-1].hex())
        assert _by_page(page, head) == _by_rows(page, head)
    if how == "payload":
        assert _by_page(_alter(rows, how, 5), None)[:3] == (
            "error", 6, "content does not match its digest")


def test_the_page_check_leaves_a_keyed_chain_to_the_row_check():
    v = ChainVerifier(RUN, object(), None)  # keys given: a plain digest is never accepted here
    assert v.check_plain_rows(_rows(4), []) == 0 and v.seq == 0
