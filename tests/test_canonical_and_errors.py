"""Canonical JSON: one text per meaning, and no object survives with its own __eq__ or __str__."""

from __future__ import annotations

import math
from enum import Enum

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minirt.canonical import NotCanonical, canonical_json, digest, normalise

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@given(json_values)
def test_normalised_values_skip_the_second_pass_with_the_same_text(value):
    assert canonical_json(normalise(value), normalised=True) == canonical_json(value)


@given(json_values)
def test_digest_of_normalised_value_equals_digest_of_raw_value(value):
    assert digest(normalise(value), normalised=True) == digest(value)


def test_key_order_does_not_change_the_text():
    assert canonical_json({"b": 1, "a": 2}) == canonical_json({"a": 2, "b": 1}) == '{"a":2,"b":1}'


def test_nfc_and_nfd_spellings_are_one_value():
    assert digest({"name": "caf\u00e9"}) == digest({"name": "cafe\u0301"})


def test_one_and_one_point_zero_are_different_values():
    assert digest({"amount": 1}) != digest({"amount": 1.0})


@pytest.mark.parametrize("bad", [math.nan, math.inf, {1, 2}, b"bytes", object(), {1: "x"}])
def test_values_json_cannot_carry_are_refused_by_name(bad):
    with pytest.raises(NotCanonical):
        canonical_json({"v": bad})


def test_subclasses_come_back_as_plain_builtins():
    class Sneaky(str):
        def __eq__(self, other):  # pragma: no cover - must never be called
            return True

        __hash__ = str.__hash__

    class Big(int):
        pass

    out = normalise({"s": Sneaky("x"), "n": Big(3)})
    assert type(out["s"]) is str and type(out["n"]) is int and out == {"s": "x", "n": 3}


def test_enums_and_models_are_dumped_to_their_json_form():
    from pydantic import BaseModel

    class Colour(Enum):
        RED = "red"

    class M(BaseModel):
        colour: str
        n: int

    assert normalise({"c": Colour.RED, "m": M(colour="red", n=1)}) == {
        "c": "red", "m": {"colour": "red", "n": 1}}


def test_named_errors_survive_pickling_with_their_attributes():
    import pickle

    from minirt.run import StaleIncarnation

    err = StaleIncarnation(run_id="r1", event="complete", incarnation=1, current=2)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is StaleIncarnation and back.attrs == err.attrs and str(back) == str(err)


def test_import_minirt_stays_light_and_every_public_name_resolves():
    import subprocess
    import sys

    code = ("import sys, minirt\n"
            "heavy = [m for m in ('graphviz', 'ipywidgets', 'nbgrader', 'IPython', 'pydantic',"
            " 'psycopg', 'opentelemetry') if m in sys.modules]\n"
            "assert not heavy, heavy\n"
            "missing = [n for n in minirt.__all__ if not hasattr(minirt, n)]\n"
            "assert not missing, missing\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stderr == "", out.stderr
