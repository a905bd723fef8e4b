"""`show_folded` (minirt_course.course.fold): the key lines in the open, the whole listing folded."""

from __future__ import annotations

import html

import pytest

from minirt.run import apply
from minirt_course.course.fold import SUMMARY, FoldNoteUnmatched, folded, show_folded
from minirt_course.course.show import source_of


def test_key_lines_come_in_source_order_with_their_notes() -> None:
    src = source_of(apply)
    lines = src.text.splitlines()
    last, first = lines[-1].strip(), lines[0].strip()
    f = folded(apply, {last: "the end", first: "the signature"})
    assert [note for _, _, note in f.key_lines] == ["the signature", "the end"]
    assert f.key_lines[0][0] == src.first_line and f.folded_lines == len(lines)
    assert "# the signature" in str(f) and f"{len(lines)} lines folded" in str(f)


def test_the_folded_html_holds_the_whole_source_escaped() -> None:
    page = folded(apply, {"def apply": "why"})._repr_html_()
    assert f"<details><summary>{SUMMARY}" in page
    assert html.escape(source_of(apply).text) in page
    assert "->" not in page.split("<details>")[1]  # "->" of the signature is escaped as -&gt;


@pytest.mark.parametrize("notes", [{"no such line anywhere": "x"}, {"return": "ambiguous"}, {}])
def test_a_note_must_match_exactly_one_line(notes: dict[str, str]) -> None:
    with pytest.raises(FoldNoteUnmatched, match="must match exactly one line"):
        folded(apply, notes)


def test_show_folded_prints_to_stdout_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert show_folded(apply, {"def apply": "why"}) is None
    out, err = capsys.readouterr()
    assert "the lines that matter" in out and err == ""
