"""The JSON form of ConvInteger's witnesses (generator/witness/catalogue/conv_integer.json) and of its hunt examples'
inputs: each input present by its name (x, w, x_zero_point, w_zero_point) as {"shape": [...], "values": text}, the
values in C order in QLinearConv's integer text (generator/catalogue/qlinear_conv.py: space-separated, "v*n" for a
run); "what" says how the data set was built, "configuration" names a witness configuration of its own and
"params" its CI params (generator/families/conv_integer/spec.py).

Written by the witness search (generator/witness/conv_integer.py) and the hunt, read by the family
(generator/families/conv_integer/witnesses.py, hunt.py).
"""

from __future__ import annotations

from generator.catalogue.qlinear_conv import decode_named, encode_named

NAMES = ("x", "w", "x_zero_point", "w_zero_point")


def encode(inputs: list, what: str = "") -> dict:
    """(x, w, x_zero_point or None, w_zero_point or None) as JSON."""
    return encode_named(NAMES, inputs, what)


def decode(entry: dict, types: tuple) -> list:
    """encode's JSON back to the four inputs; types: (x's numpy dtype, w's)."""
    return decode_named(NAMES, entry, (types[0], types[1], types[0], types[1]))
