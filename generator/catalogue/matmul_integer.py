"""The JSON form of MatMulInteger's witnesses (generator/witness/catalogue/matmul_integer.json) and of its hunt
examples' inputs: each input present by its name (A, B, a_zero_point, b_zero_point) as {"shape": [...], "values":
text}, the values in C order in QLinearConv's integer text (generator/catalogue/qlinear_conv.py: space-separated,
"v*n" for a run); "what" says how the data set was built.

Written by the witness search (generator/witness/matmul_integer.py) and the hunt, read by the family
(generator/families/matmul_integer/witnesses.py, hunt.py).
"""

from __future__ import annotations

from generator.catalogue.qlinear_conv import decode_named, encode_named

NAMES = ("A", "B", "a_zero_point", "b_zero_point")


def encode(inputs: list, what: str = "") -> dict:
    """(A, B, a_zero_point or None, b_zero_point or None) as JSON."""
    return encode_named(NAMES, inputs, what)


def decode(entry: dict, types: tuple) -> list:
    """encode's JSON back to the four inputs; types: (A's numpy dtype, B's)."""
    return decode_named(NAMES, entry, (types[0], types[1], types[0], types[1]))
