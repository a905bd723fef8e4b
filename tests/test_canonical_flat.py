"""``canonical.flat_json`` (issue 24): the canonical text of a flat dict built directly is the
text :func:`canonical_json` gives, character for character, and anything it does not cover is
left to ``canonical_json`` (None), so the args digest of a tool call (``steps.args_identity``)
and the intent text it hands on are the same as before, fresh or replayed."""

from __future__ import annotations

import enum
import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from minirt.canonical import MAX_INT_DIGITS, canonical_json, digest, flat_json
from minirt.steps import args_identity

ASCII = st.text(alphabet=st.characters(max_codepoint=127), max_size=12)
SCALARS = (ASCII | st.integers() | st.booleans() | st.none()
           | st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(ASCII, SCALARS, max_size=8))
def test_a_flat_dict_gets_the_canonical_text(value: dict) -> None:
    assert flat_json(value) == canonical_json(value)
    digest_of, text = args_identity(value)
    assert (digest_of, text) == (digest(value), canonical_json(value))


def test_the_edges_of_the_flat_shape_match_canonical_json() -> None:
    cases = [
        {},
        {"i": 5},
        {"b": 1, "a": 2, "c": 3, "A": 4, "_": 5, "": 6},  # sorted by key, not by call order
        {"q": 'say "hi"\\ \n\t\x00\x1f\x7f'},  # escapes
        {"t": True, "f": False, "n": None},
        {"x": -0.0, "y": 1e300, "z": 5e-324, "w": 0.1, "v": 1.0},
        {"big": 10**MAX_INT_DIGITS - 1, "neg": -(10**MAX_INT_DIGITS - 1)},
        {"one": 1, "one_f": 1.0},
    ]
    for value in cases:
        assert flat_json(value) == canonical_json(value), value


class Colour(enum.Enum):
    RED = "red"


class Str(str):
    pass


class Int(int):
    pass


def test_anything_else_is_left_to_canonical_json() -> None:
    for value in [
        {"s": "caf\u00e9"},  # NFC applies
        {"caf\u00e9": 1},
        {1: "int key"},
        {Str("k"): 1},
        {"s": Str("v")},
        {"i": Int(3)},
        {"e": Colour.RED},
        {"nan": float("nan")},
        {"inf": float("inf")},
        {"huge": 10**MAX_INT_DIGITS},
        {"nested": {"a": 1}},
        {"list": [1, 2]},
        {"set": {1}},
        {"bytes": b"x"},
        [("i", 5)],
        "text",
        5,
    ]:
        assert flat_json(value) is None, value


def test_args_identity_of_non_flat_values_is_unchanged() -> None:
    nested = {"order": {"id": "o-1", "items": [1, 2]}, "note": "caf\u00e9"}
    assert args_identity(nested) == (digest(nested), canonical_json(nested))
    digest_of, text = args_identity({"bad": float("nan")})
    assert text is None
    assert digest_of == "sha256-repr:" + hashlib.sha256(repr({"bad": float("nan")})
                                                        .encode()).hexdigest()
