"""The JSON form of QuantizeLinear's witnesses (generator/witness/catalogue/quantize_linear.json) and of its hunt
examples: {"what", "opset", "x_type", "scale_type", "zp_type", "attrs", "shape", "x", "scale_shape", "scale",
"zp"}, values as decimals that read back exactly (every one is a float64 value); a hunt example may leave the zero
point out (zp_type and zp null).

Written by the witness search (generator/witness/quantize_linear.py), read by the family's witness cases
(generator/families/quantize_linear/cases.py) and its hunt (rebuild).
"""

from __future__ import annotations

import numpy as np

from generator import dtypes

KEEP = 8  # elements kept per per-tensor witness (the witness case repeats x cyclically to this length)


def slug(key: str) -> str:
    """A group key's values joined by "_": the witness cases' names."""
    return "_".join(part.split("=", 1)[1] for part in key.split())


def as_type(values, t: str) -> np.ndarray:
    """values (numbers) as an array of type t: floats through float64, integers through int64."""
    d = dtypes.get(t)
    with np.errstate(all="ignore"):
        if d.is_float:
            return np.asarray(values, dtype=np.float64).astype(d.np_dtype)
        return np.asarray(values).astype(np.int64).astype(d.np_dtype)


def _decimals(a: np.ndarray) -> list:
    return [repr(float(v)) for v in np.asarray(a, dtype=np.float64).ravel()]


def encode(opset, x_t, s_t, z_t, attrs, x, s, z, what) -> dict:
    """A witness: the node's opset, types and attributes and one data set."""
    return {"what": what, "opset": opset, "x_type": x_t, "scale_type": s_t, "zp_type": z_t, "attrs": attrs,
            "shape": list(np.shape(x)), "x": _decimals(x), "scale_shape": list(np.shape(s)), "scale": _decimals(s),
            "zp": None if z is None else _decimals(z)}


def decode(w: dict) -> tuple:
    """(x, y_scale, y_zero_point or None) of a witness or hunt example."""
    x = as_type([float(v) for v in w["x"]], w["x_type"]).reshape(w["shape"])
    s = as_type([float(v) for v in w["scale"]], w["scale_type"]).reshape(w["scale_shape"])
    z = None if w["zp_type"] is None else as_type([float(v) for v in w["zp"]], w["zp_type"]).reshape(w["scale_shape"])
    return x, s, z
