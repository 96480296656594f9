"""One QuantizeLinear case (Spec: the node and its data sets), the family's constants and clauses, and the values
its data sets are made of."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from generator import dtypes, sampling
from generator.catalogue.quantize_linear import as_type
from generator.family import Catalogue, Family
from generator.reference import quantize_linear as ref

FAMILY = Family("quantize_linear", "QuantizeLinear", ref.SPEC_FILE)
PROFILES = {"quick": dict(random=0), "default": dict(random=2), "exhaustive": dict(random=16)}
CATALOGUE = Catalogue(FAMILY.prefix + "_")
GRID = ("y", "version", ())  # the report's grid: output type x QuantizeLinear version, worst verdict per cell
MIN_OPSET = 10  # QuantizeLinear-10, the first version
NEWEST_RUNNABLE = 25  # the newest opset onnxruntime 1.31+ runs (IR 13 / opset <= 26; 26 changes nothing here)

F32 = np.float32
COMPARE_INT = {"mode": "exact", "reason": "one result per input: the division's precision, ties to even, saturation",
               "tolerant": {"mode": "abs", "abs": 1,
                            "reason": "y within 1: implementations that divide or round otherwise"}}
COMPARE_FLOAT = {"mode": "exact", "reason": "float outputs: Cast's correctly rounded conversion; any NaN matches NaN"}

CLAUSE_FORMULA = "y = saturate((x / y_scale) + y_zero_point); For (x / y_scale), it rounds to the nearest even"
CLAUSE_AXIS = ("per-axis: a 1-D tensor with the length of the quantization axis; axis: Negative value means "
               "counting dimensions from the back")
CLAUSE_BLOCKED = ("Blocked quantization: y_scale shape is (D0, ..., ceil(Di/B), ..., Dn); block_size: the number of "
                  "times every scale is replicated")
CLAUSE_FLOAT8 = "saturate: how the conversion behaves out of range (float 8 only); the two tables of Cast"
CLAUSE_OUTPUT_DTYPE = ("output_dtype: If not supplied, the output data type is inferred from y_zero_point; if neither, "
                       "uint8; if both, output_dtype must be T3")
READING_SCALAR_SCALE_10 = ("QuantizeLinear-10's y_scale \"It's a scalar, which means a per-tensor/layer "
                           "quantization\" is read as a rule a model must keep, so a 1-D y_scale is refused before "
                           "opset 13; onnx.checker does not check it")
CLAUSE_PRECISION = ("The type of y_scale determines the precision of the division operation between x and y_scale, "
                    "unless the precision attribute is specified")


@dataclass
class Spec:
    """One case: the node and its data sets (x, y_scale, y_zero_point or None)."""
    opset: int
    sets: list[tuple]
    x_type: str = "float"
    scale_type: str = "float"
    zp_type: str | None = "uint8"  # None: no zero point input
    attrs: dict = field(default_factory=dict)
    clause: str = CLAUSE_FORMULA
    flags: tuple = ("edge",)
    negative: str = ""  # the rule the model breaks (negative/)
    reading: str | None = None  # a negative case's refusal that rests on a reading (docs/readings.md)
    phase: str = "prepare"

    @property
    def out(self) -> dtypes.DType:
        if self.attrs.get("output_dtype"):
            return dtypes.get(int(self.attrs["output_dtype"]))
        return dtypes.get(self.zp_type or "uint8")

# ---------------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------------
def _js(lo: int, hi: int) -> np.ndarray:
    """Quotients j to put ties j + 0.5 at: every one of [lo - 2, hi + 2] for ranges up to 300 wide, else both
    ends, around zero and 40 spread between."""
    if hi - lo <= 300:
        return np.arange(lo - 2, hi + 3)
    return np.unique(np.concatenate([np.arange(lo - 3, lo + 5), np.arange(hi - 4, hi + 4), np.arange(-6, 7),
                                     np.linspace(lo, hi, 40).round().astype(int)]))


def int_values(out: dtypes.DType, zp: int, scale: float) -> np.ndarray:
    """x (float64, exact in float32 for a power-of-two scale) whose quotients x / scale are ties j + 0.5 and
    integers around the whole range of y - zp, both ends beyond it, zero, -0 and far beyond."""
    j = _js(out.int_min - zp, out.int_max - zp)
    big = [3e38, -3e38, 1e10, -1e10, 1e5, -1e5]
    return np.concatenate([(j + 0.5) * scale, j * scale, (j + 0.25) * scale, [0.0, -0.0], big])


def float_values(out: dtypes.DType, scale: float) -> np.ndarray:
    """x / scale on every finite value of a float output, every midpoint between neighbours (ties to even),
    just beyond the largest (rounding back to it, or out of range), +-Inf and NaN."""
    vals = sampling.distinct(out.all_values())  # +0 here, -0 below: np.unique's zero depends on the CPU
    vals = vals[np.isfinite(vals)]
    mids = (vals[1:] + vals[:-1]) / 2
    fmax = out.finite_max
    top = fmax + (fmax - vals[-2]) / 2  # the rounding boundary above the largest value
    beyond = [fmax * 1.01, top, top * 1.01, fmax * 4, 1e30]
    return np.concatenate([vals, mids, beyond, [-b for b in beyond], [np.inf, -np.inf, np.nan, -0.0]]) * scale


def _pad(sets: list[tuple]) -> list[tuple]:
    """Data sets of one x length: each x repeated cyclically to the longest."""
    n = max(s[0].size for s in sets)
    return [(np.resize(s[0], n), *s[1:]) for s in sets]


def _per_tensor(x_type: str, scale_type: str, zp_type: str | None, pairs: list[tuple[float, float]],
                values: Callable[[float, int], np.ndarray]) -> list[tuple]:
    """One data set per (scale, zero point): x = values(scale, zp) in x's type."""
    return _pad([(as_type(values(s, z), x_type), as_type(s, scale_type),
                  None if zp_type is None else as_type(z, zp_type)) for s, z in pairs])


def _int_sets(out: str, x_type: str = "float", scale_type: str = "float", zp: bool = True,
              scales=(1.0, 0.5, 4.0)) -> list[tuple]:
    o = dtypes.get(out)
    zps = [0, o.int_min, o.int_max, (o.int_min + o.int_max + 1) // 2 + 1] if zp else [0]
    pairs = [(s, z) for s in scales for z in zps][:6]
    return _per_tensor(x_type, scale_type, out if zp else None, pairs, lambda s, z: int_values(o, z, s))


def _float_sets(out: str, x_type: str = "float", scale_type: str = "float", zp: bool = True) -> list[tuple]:
    o = dtypes.get(out)
    return _per_tensor(x_type, scale_type, out if zp else None, [(1.0, 0.0), (0.25, 0.0), (4.0, 0.0)],
                       lambda s, z: float_values(o, s))
