"""One DequantizeLinear model and its data sets (Spec), the family's constants and clauses, and the values its
data sets are made of."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from generator import axes, dtypes
from generator.family import Catalogue, Family
from generator.reference import dequantize_linear as ref

FAMILY = Family("dequantize_linear", "DequantizeLinear", "onnx.defs:DequantizeLinear")
MIN_OPSET = ref.OPSETS[0]
PROFILES = {"quick": dict(random=0), "default": dict(random=4), "exhaustive": dict(random=32)}
CLAUSE = "The dequantization formula is `y = (x - x_zero_point) * x_scale`"
EXACT = {"mode": "exact", "reason": "(x - x_zero_point) * x_scale is exact in the output type, or rounds to one "
                                    "value whatever intermediate precision an implementation takes"}


@dataclass
class Spec:
    """One model and its data sets: (x, x_scale, x_zero_point or None) each."""

    opset: int
    x: str
    scale: str
    sets: list[tuple] = field(default_factory=list)
    zero_point: bool = True
    axis: int | None = None
    block_size: int = 0
    output_dtype: str | None = None
    clause: str = CLAUSE
    flags: tuple = ("edge",)
    reading: str | None = None
    # negative cases: no data; the shapes of x / x_scale / x_zero_point, the declared output type and the error
    shapes: tuple | None = None
    error: str | None = None
    zp_type: str | None = None  # a negative case's zero point type (else x's)
    phase: str = "prepare"  # a negative case's: "run" where the refusal depends on shapes (one data set of zeros)
    explicit_defaults: bool = False  # every attribute the version has written, the defaults with their values

    @property
    def out(self) -> str:
        return self.output_dtype or self.scale

    def attrs(self) -> dict:
        a = {}
        if self.axis is not None:
            a["axis"] = self.axis
        if self.block_size:
            a["block_size"] = self.block_size
        if self.output_dtype:
            a["output_dtype"] = dtypes.get(self.output_dtype).onnx
        if self.explicit_defaults:  # the explicit-defaults axis (generator/axes.py)
            a = dict(axes.attribute_defaults("DequantizeLinear", self.opset), **a)
        return a


CATALOGUE = Catalogue()
READING_SCALAR_SCALE_10 = ("DequantizeLinear-10's \"'x_scale' and 'x_zero_point' are both scalars\" (x_scale: \"It's a "
                           "scalar, which means a per-tensor/layer quantization\") is read as a rule a model must "
                           "keep, so a 1-D x_scale is refused; no sentence says so, and onnx.checker accepts the "
                           "model (its shape inference of version 10 does not check the scale's rank)")
READING_IEEE = ("NaN, Inf, zero and negative scales and NaN / Inf inputs follow IEEE 754 arithmetic in the formula "
                "(the text states the formula only)")


# ---------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------
def arr(values, t: str, shape: tuple | None = None) -> np.ndarray:
    """Values (exact in type t) as an array of t."""
    d = dtypes.get(t)
    a = np.asarray(values, dtype=np.float64 if d.is_float else np.int64).astype(d.np_dtype)
    return a if shape is None else a.reshape(shape)


def patterns(t: str) -> np.ndarray:
    """Every bit pattern of t (<= 16 bits), in encoding order."""
    return dtypes.get(t).all_values()


def first_opset(t: str) -> int:
    """The first version that lists x type t (at least the given minimum)."""
    return ref._T1_SINCE[t]


def zero_points(t: str) -> list:
    """A few zero points of x type t: 0, one near each end, and one inside."""
    d = dtypes.get(t)
    if d.is_float:
        return [0.0, 1.5, -2.0]  # -0.0: float8_zero_point (IEEE: (-0) - (-0) = +0)
    return sorted({0, d.int_min, d.int_max, d.int_min + (d.int_max - d.int_min) // 3})


SCALES = {"float": [0.1, 3.0, 2.0**-130, 1.25e30], "float16": [0.1, 3.0, 2.0**-20, 1000.0],
          "bfloat16": [0.1, 3.0, 2.0**-130, 1.25e30]}


def per_tensor_sets(x: np.ndarray, t: str, scale: str, zero_point: bool = True,
                    scales: list[float] | None = None) -> list[tuple]:
    """x with each scale (SCALES[scale] by default) and each zero point (or none), paired in turn (the shorter
    list cycles): scalars."""
    zps = zero_points(t) if zero_point else [None]
    scales = SCALES[scale] if scales is None else scales
    n = max(len(scales), len(zps))
    return [(x, arr(scales[i % len(scales)], scale, ()), None if zps[i % len(zps)] is None
             else arr(zps[i % len(zps)], t, ())) for i in range(n)]


def ladder(n: int, lo: float, hi: float, t: str) -> np.ndarray:
    """n values of t from lo to hi (rounded to t's grid: integers, or t's floats)."""
    return arr(np.linspace(lo, hi, n).round() if not dtypes.get(t).is_float else np.linspace(lo, hi, n), t)


def _neg(opset: int, x: str, scale: str, zp: str | None, shapes: tuple, error: str, **kw) -> Spec:
    """A model refused for its types or attributes (phase prepare: the model says all), or with shapes= ... and
    phase="run" for its shapes (a backend may wait for the data to see them: refused at prepare or at run)."""
    return Spec(opset, x, scale, zero_point=zp is not None, shapes=shapes, error=error,
                phase=kw.pop("phase", "prepare"),
                output_dtype=kw.pop("output_dtype", None), axis=kw.pop("axis", None),
                block_size=kw.pop("block_size", 0), clause=kw.pop("clause", CLAUSE), flags=("negative",), zp_type=zp,
                reading=kw.pop("reading", None))
