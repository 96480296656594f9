"""The JSON form of QLinearMatMul's witnesses (generator/witness/catalogue/qlinear_matmul.json) and of its hunt
examples' inputs: QLinearConv's text form (generator/catalogue/qlinear_conv.py: integers, "v*n" runs, scales as the
shortest decimal of their float32 value), shapes and types from the group's params; scales of float16 / bfloat16
read back through float32 exactly (each of their values is a float32)."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.catalogue.qlinear_conv import decode_floats, decode_ints, encode

__all__ = ["decode", "encode"]

NAMES = ("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point")


def decode(text: dict[str, str], params: dict) -> list[np.ndarray]:
    """encode's dict back as the inputs (NAMES order) of the configuration params describes."""
    st = dtypes.get(params["scale_type"]).np_dtype
    at, bt, yt = (dtypes.get(params[k]).np_dtype for k in ("a_type", "b_type", "y_type"))
    aq, bq = tuple(params["a_quant_shape"]), tuple(params["b_quant_shape"])
    return [decode_ints(text["a"], at, tuple(params["a_shape"])), decode_floats(text["a_scale"], aq).astype(st),
            decode_ints(text["a_zero_point"], at, aq), decode_ints(text["b"], bt, tuple(params["b_shape"])),
            decode_floats(text["b_scale"], bq).astype(st), decode_ints(text["b_zero_point"], bt, bq),
            decode_floats(text["y_scale"], ()).astype(st), decode_ints(text["y_zero_point"], yt, ())]
