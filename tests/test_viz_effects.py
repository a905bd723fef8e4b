"""The saga picture: rows and colours come from the journal and the ledgers, deterministically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from minirt.faults import FaultPlan, SimulatedCrash, recover
from minirt.journal import Journal
from minirt.viz.effects import COLOURS, saga_graph, saga_rows
from minirt.world.ledger import Ledger
from minirt_course.scenarios.m05_saga import agent_aborts, booking_down


def run(scenario: Any, wd: Path, crash: tuple[str, int] | None = None,
        recovered: bool = True) -> tuple[Journal, list[Ledger]]:
    scenario.setup(wd)
    plan = FaultPlan(crash_at=crash[0], occurrence=crash[1]) if crash else FaultPlan()
    rt = scenario.make_runtime(wd, faults=plan, clock_offset=0.0, worker_id="w-test")
    run_id = scenario.start(rt)
    try:
        rt.run(run_id)
    except SimulatedCrash:
        pass
    rt.close()
    rt = recover(scenario, wd, run_id) if recovered else scenario.make_runtime(
        wd, faults=FaultPlan(), clock_offset=0.0, worker_id="w-reader")
    journal = Journal.load(rt.store, run_id)
    rt.close()
    return journal, [Ledger(wd / f"{n}.sqlite") for n in ("payments", "booking", "email")]


def test_rows_say_what_was_compensated_and_what_cannot_be(tmp_path: Path) -> None:
    journal, ledgers = run(agent_aborts, tmp_path)
    rows = {r.tool: r for r in saga_rows(journal, ledgers)}
    assert {t: r.compensation_status for t, r in rows.items()} == {
        "charge": "compensated", "book": "compensated", "send_email": "not compensable"}
    assert rows["charge"].ledger_count == 1 and rows["charge"].compensation_count == 1
    assert rows["send_email"].ledger_count is None  # the email provider keeps no key


def test_an_unknown_step_before_recovery_is_drawn_orange(tmp_path: Path) -> None:
    journal, ledgers = run(agent_aborts, tmp_path, ("after_provider_commit", 1), recovered=False)
    (row,) = saga_rows(journal, ledgers)
    assert (row.status, row.ledger_count, row.compensation_status) == ("unknown", 1, "pending")
    assert f'color="{COLOURS["unknown"]}"' in saga_graph(journal, ledgers).source


def test_a_step_the_lookup_did_not_find_is_grey_and_not_compensated(tmp_path: Path) -> None:
    journal, ledgers = run(booking_down, tmp_path)
    book = [r for r in saga_rows(journal, ledgers) if r.tool == "book"][0]
    assert (book.status, book.looked_up, book.compensation_status) == (
        "never happened", True, "skipped")
    assert "style=dashed" in saga_graph(journal).source


def test_the_dot_text_is_deterministic(tmp_path: Path) -> None:
    journal, ledgers = run(agent_aborts, tmp_path)
    first = saga_graph(journal, ledgers).source
    assert first == saga_graph(journal, ledgers).source
    assert first.count(f"label=compensated color=\"{COLOURS['compensated']}\"") == 2
