"""The JSON form of QGemm's witnesses (generator/witness/catalogue/qgemm.json) and of its hunt examples' inputs:
QLinearConv's text form (generator/catalogue/qlinear_conv.py: integers, "v*n" runs, scales as the shortest decimal
of their float32 value), by input name, shapes and types from the configuration's params (families/qgemm/config.py
Gemm.params)."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.catalogue.qlinear_conv import decode_floats, decode_ints, encode

__all__ = ["decode", "encode", "named"]


def named(slots: list[str], data: list[np.ndarray]) -> dict[str, str]:
    """A data set (slot order) in encode's form."""
    return encode(dict(zip(slots, data)))


def decode(text: dict[str, str], slots: list[str], shapes: dict, types: dict) -> list[np.ndarray]:
    """encode's dict back as the data set (slot order) of a configuration: shapes and type names by input name."""
    out = []
    for n in slots:
        if n.endswith("_scale"):
            out.append(decode_floats(text[n], tuple(shapes[n])))
        else:
            out.append(decode_ints(text[n], dtypes.get(types[n]).np_dtype, tuple(shapes[n])))
    return out
