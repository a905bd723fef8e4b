"""Tests for minirt.viz.contracts: the pipeline's DOT text is drawn from the contract and the
attempted calls (counts per gate, names in the rejection notes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from minirt.clock import FakeClock
from minirt.contracts import (
    STAGES,
    Limits,
    OutputInvalid,
    PartialEffect,
    ToolContract,
    constraint,
)
from minirt.errors import ToolError
from minirt.runtime import Runtime
from minirt.store.sqlite import SQLiteStore
from minirt.viz import Diagram
from minirt.viz.contracts import gate_table, outcomes_from_journal, pipeline, pipeline_graph


class Args(BaseModel):
    account: str
    amount: int


@constraint("positive_amount", field="amount")
def positive(args: Args, ctx: Any) -> bool:
    return args.amount > 0


def contract(handler: Any = None) -> ToolContract:
    return ToolContract("pay", input_model=Args, handler=handler or (lambda a, inv: {"id": "p1"}),
                        constraints=[positive], scope="accounts:{account}",
                        limits=Limits(max_payload_bytes=200))


def attempts() -> list[tuple[str, Any]]:
    c = contract()
    scopes = {"accounts:a"}
    calls = {"string amount": {"account": "a", "amount": "1"},
             "negative": {"account": "a", "amount": -1},
             "no scope": {"account": "b", "amount": 1},
             "huge memo": {"account": "a" * 300, "amount": 1},
             "fine": {"account": "a", "amount": 1}}
    out = [(label, c.rejection(args, scopes | {"accounts:" + "a" * 300})
            if label == "huge memo" else c.rejection(args, scopes))
           for label, args in calls.items()]
    partial = PartialEffect(tool="pay", reason="x", happened=[{"name": "debit", "receipt": {}}],
                            not_happened=["credit"], unknown=[])
    invalid = OutputInvalid(tool="pay", field="id", reason="missing", effect_key="ek",
                            effect_happened=True, output_digest="sha256:0")
    return [*out, ("two legs", partial), ("bad output", invalid)]


def test_every_stage_of_the_contract_is_a_box_in_order() -> None:
    dot = pipeline_graph(contract()).source
    positions = [dot.index(f"\t{s} [label=") for s in STAGES]
    assert positions == sorted(positions)
    assert "positive_amount" in dot and "scope accounts:{account}" in dot


def test_each_gate_counts_the_calls_it_stopped() -> None:
    dot = pipeline_graph(contract(), attempts()).source
    for gate in ("schema", "domain", "authorization", "limits"):
        assert f"{gate} -> rejected_{gate} [label=1" in dot
    assert "calls -> schema [label=7]" in dot and "output -> ok [label=1" in dot


def test_the_rejection_note_names_the_calls_it_stopped() -> None:
    dot = pipeline_graph(contract(), attempts()).source
    line = next(x for x in dot.splitlines() if x.strip().startswith("rejected_schema ["))
    assert "rejected at schema" in line and "string amount" in line and "negative" not in line


def test_failures_after_dispatch_are_drawn_as_effects_that_happened() -> None:
    dot = pipeline_graph(contract(), attempts()).source
    assert "dispatch -> dispatch_partial [label=1" in dot and "partial effect" in dot
    assert "output -> rejected_output [label=1" in dot and "effect happened" in dot


def test_a_gate_that_stopped_nothing_has_no_rejection_note() -> None:
    dot = pipeline_graph(contract(), [("fine", None)]).source
    assert "rejected_" not in dot and "output -> ok [label=1" in dot


def test_many_names_are_cut_to_a_few_and_counted() -> None:
    c = contract()
    many = [(f"call {i}", c.rejection({"amount": "x"})) for i in range(9)]
    assert "+5 more" in pipeline_graph(c, many).source


def test_pipeline_returns_a_diagram_with_the_same_source() -> None:
    d = pipeline(contract(), attempts())
    assert isinstance(d, Diagram) and d.source == pipeline_graph(contract(), attempts()).source


def test_gate_table_marks_an_invalid_output_as_an_effect_that_happened() -> None:
    rows = dict((label, (stage, kind)) for label, stage, kind in gate_table(attempts()))
    assert rows["bad output"] == ("output", "OutputInvalid (effect happened)")
    assert rows["fine"] == ("ok", "-") and rows["no scope"][0] == "authorization"


def test_outcomes_come_from_a_real_journal(tmp_path: Path) -> None:
    def flaky(args: Args, inv: Any) -> Any:
        raise ToolError(tool="pay", reason="declined")

    def agent(ctx: Any, inp: Any) -> None:
        for args in inp:
            try:
                ctx.call_tool("pay", args)
            except Exception:  # noqa: BLE001 - the journal is what this test reads
                pass

    rt = Runtime(SQLiteStore(tmp_path / "r.sqlite"), tools=[contract(flaky)],
                 workflows={"agent": agent}, clock=FakeClock(), scopes={"accounts:a"})
    rt.run_workflow("agent", [{"account": "a", "amount": "1"}, {"account": "a", "amount": 2}],
                    run_id="r1")
    got = outcomes_from_journal(rt.store.read("r1"), tool="pay")
    assert [(label, type(e).__name__) for label, e in got] == [("step 0", "SchemaViolation"),
                                                               ("step 1", "ToolError")]
    rt.close()
