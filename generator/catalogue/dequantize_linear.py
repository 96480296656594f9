"""The JSON form of DequantizeLinear's witnesses (generator/witness/catalogue/dequantize_linear.json): per group,
{"what", "x", "scale", "zero_point" (or null)}: bit patterns as hex strings, shaped by the group's template model
(template: one model per granularity, rebuilt from the group's params).

Written by the witness search (generator/witness/dequantize_linear.py), read by the family's witness cases
(generator/families/dequantize_linear/cases.py).
"""

from __future__ import annotations

import numpy as np

from generator import dtypes


def slug(key: str) -> str:
    """A group key as a case-name part."""
    out = key.replace("opset=", "opset").replace("x=", "").replace("scale=", "scale_").replace("out=", "to_")
    out = out.replace("zp=1", "zp").replace("zp=0", "nozp").replace("per-tensor", "per_tensor")
    return out.replace("per-axis", "per_axis").replace("negative-axis", "negative_axis").replace(" ", "_")


def template(params: dict) -> dict:
    """The group's model: shapes, axis, block_size.
      per-tensor   x (12,), a scalar scale
      per-axis     x (3, 3, 3), axis -1 (negative-axis groups) or 2: equal dimensions, so a wrong axis still runs
      blocked      x (2, 6), axis 1 (or -1), block_size 4: two blocks of 4 and 2, where ceil(6 / 2) = 3 is wrong"""
    g = params["granularity"]
    if g == "per-tensor":
        return {"x_shape": [12], "scale_shape": [], "axis": None, "block_size": 0}
    if g == "per-axis":
        return {"x_shape": [3, 3, 3], "scale_shape": [3], "axis": -1 if params.get("negative_axis") else 2,
                "block_size": 0}
    return {"x_shape": [2, 6], "scale_shape": [2, 2], "axis": -1 if params.get("negative_axis") else 1,
            "block_size": 4}


def _hex(a: np.ndarray, t: dtypes.DType) -> list[str]:
    return [f"0x{int(b):x}" for b in t.to_bits(np.asarray(a)).reshape(-1).tolist()]


def _unhex(bits: list[str], t: dtypes.DType, shape) -> np.ndarray:
    return t.from_bits(np.array([int(b, 16) for b in bits], dtype=np.uint64).astype(t.bits_dtype)).reshape(shape)


def encode(what: str, x, scale, zp, params: dict) -> dict:
    """A witness of a group (params: its "x" and "scale" types): one data set."""
    xt, st = dtypes.get(params["x"]), dtypes.get(params["scale"])
    return {"what": what, "x": _hex(x, xt), "scale": _hex(scale, st),
            "zero_point": None if zp is None else _hex(zp, xt)}


def decode(wit: dict, params: dict) -> tuple:
    """(x, x_scale, x_zero_point or None) of a witness, in the group's template shapes (or params' own)."""
    tpl = {**template(params), **{k: params[k] for k in ("x_shape", "scale_shape") if k in params}}
    xt, st = dtypes.get(params["x"]), dtypes.get(params["scale"])
    zp = wit.get("zero_point")
    return (_unhex(wit["x"], xt, tpl["x_shape"]), _unhex(wit["scale"], st, tpl["scale_shape"]),
            None if zp is None else _unhex(zp, xt, tpl["scale_shape"]))
