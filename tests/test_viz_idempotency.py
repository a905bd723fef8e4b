"""Module 04's pictures are drawn from runtime data: sweep cells, journals and ledgers."""

from __future__ import annotations

from pathlib import Path

import pytest

from minirt.faults import TOOL_POINTS, Outcome, SweepCell, Verdict, crash_once
from minirt.store.sqlite import SQLiteStore
from minirt.viz import OUTCOMES
from minirt.viz.idempotency import (
    attempts_vs_operations,
    crash_windows,
    operations_table,
    sweep_table,
)
from minirt.world.ledger import Ledger
from minirt_course.scenarios import m04_payment as m04


def _cells(outcomes: dict[str, Outcome], occurrence: int = 1) -> list[SweepCell]:
    return [SweepCell("s", p, occurrence, "simulate", Verdict(o)) for p, o in outcomes.items()]


def _crashed(scenario, tmp_path: Path):
    crash_once(scenario, "after_provider_commit", workdir=tmp_path)
    store = SQLiteStore(tmp_path / "runs.sqlite")
    events = store.read("run-m04")
    store.close()
    return events, {"payments": Ledger(tmp_path / "payments.sqlite"),
                    "booking": Ledger(tmp_path / "book.sqlite")}


def test_crash_windows_marks_every_window_and_shades_the_unknown_ones() -> None:
    src = crash_windows().source
    for w in ("W1", "W2", "W3", "W4", "W5"):
        assert f"{w}: " in src
    assert src.count("#fdebd0") == 3  # W2, W3, W4: an intent without an outcome


def test_crash_windows_colours_each_window_by_its_verdict() -> None:
    outcomes = dict.fromkeys(TOOL_POINTS, Outcome.CLEAN)
    outcomes["after_provider_commit"] = Outcome.DUPLICATE
    src = crash_windows(_cells(outcomes)).source
    assert "→ 2× duplicate effect" in src and src.count("→ ✓ clean") == 4
    assert OUTCOMES["duplicate effect"].colour in src


def test_crash_windows_says_which_key_the_request_carries() -> None:
    assert "Idempotency-Key = effect key" in crash_windows().source
    wrong = crash_windows(key_sent="a new random key per attempt").source
    assert "Idempotency-Key = a new random key per attempt" in wrong
    assert "= effect key" not in wrong


def test_crash_windows_ignores_cells_of_another_call() -> None:
    src = crash_windows(_cells({"after_provider_commit": Outcome.DUPLICATE}, occurrence=2)).source
    assert "→" not in src


def test_operations_table_joins_effects_by_key(tmp_path: Path) -> None:
    events, ledgers = _crashed(m04.pay_then_book, tmp_path)
    rows, orphans = operations_table(events, ledgers)
    assert [(r.tool, len(r.effects)) for r in rows] == [("charge", 1), ("book", 1)]
    assert orphans == []


def test_per_attempt_keys_leave_effects_no_operation_owns(tmp_path: Path) -> None:
    events, ledgers = _crashed(m04.pay_then_book_random_keys, tmp_path)
    rows, orphans = operations_table(events, ledgers)
    charge = rows[0]
    assert (charge.attempts, charge.incarnations, charge.effects) == (2, (1, 2), ())
    assert [o["effect_id"] for o in orphans] == ["ch_000001", "ch_000002"]
    src = attempts_vs_operations(events, ledgers).source
    assert src.count("no logical operation owns this key") == 2


def test_sweep_table_puts_designs_side_by_side() -> None:
    a = _cells({"after_provider_commit": Outcome.DUPLICATE})
    b = _cells({"after_provider_commit": Outcome.CLEAN})
    table = sweep_table({"wrong": a, "right": b}, label=m04.window)
    assert table.rows == [["W3 charge", "duplicate effect", "clean"]]
    assert "| W3 charge | duplicate effect | clean |" in table._repr_markdown_()


@pytest.mark.parametrize("diagram", [lambda: crash_windows()])
def test_diagrams_fall_back_to_dot_text_without_graphviz(diagram, monkeypatch) -> None:
    import minirt.viz as viz

    monkeypatch.setattr(viz, "dot_available", lambda: False)
    bundle = diagram()._repr_mimebundle_()
    assert "digraph" in bundle["text/plain"]
