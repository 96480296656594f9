"""ONNX DequantizeLinear, written from the schema texts of the installed onnx (onnx.defs.get_schema(
"DequantizeLinear", v).doc for v in 10, 13, 19, 21, 23, 24, 25, 28; cited below as [DQL-v]).

What each version says (the text of every version: "The dequantization formula is `y = (x - x_zero_point) *
x_scale`"; "`x_zero_point` and `x` must have the same type"; "`x` and `y` must have the same shape"; "In the case
of dequantizing int32, there's no zero point (zero point is supposed to be 0)"; a missing zero point is 0):
  [DQL-10]  x int8 / uint8 / int32; x_scale float; y float; scale and zero point "are both scalars".
  [DQL-13]  + axis (default 1): scale / zero point "must have same shape", a scalar (per-tensor) or a 1-D tensor
            (per-axis, along axis; "Negative value means counting dimensions from the back").
  [DQL-19]  + x float8e4m3fn / e4m3fnuz / e5m2 / e5m2fnuz; x_scale float / float16 / bfloat16, and "'x_scale'
            still determines the output type"; "When the rank of the input is 1, per-tensor quantization is
            applied" (the one version that says so).
  [DQL-21]  + int16 / uint16 / int4 / uint4; block_size: blocked scales of the input's rank
            ("See QuantizeLinear for details on quantization granularity": generator.reference.quant_axes).
  [DQL-23]  + float4e2m1; output_dtype ("If `output_dtype` is not supplied then the output type is the same as
            `x_scale`"; T3 = float / float16 / bfloat16) and "The output type also determines the precision of
            the multiplication operation."
  [DQL-24]  + x_scale float8e8m0 (not an output type: output_dtype is then required).
  [DQL-25]  + int2 / uint2.      [DQL-28]  + float6e2m3 / float6e3m2.
The element types' encodings (float8 NaN / Inf, float4 / float6 without NaN, int4 / int2 two's complement,
float8e8m0 powers of two with 0xFF NaN) are generator.dtypes'.

How y is computed, and the readings (the texts do not fix the precision of the intermediate steps):
  - x - x_zero_point is exact: integers subtract exactly; float8 / float4 / float6 differences are exact in
    float64 (IEEE 754 arithmetic for NaN, Inf and the sign of zero: (-0) - 0 = -0, Inf - Inf = NaN).
  - READING_ONE_ROUNDING: y = the exact product (x - x_zero_point) * x_scale rounded once to the output type T
    (round to nearest, ties to even, overflow to +-Inf, IEEE signs of zero and NaN propagation). This is IEEE
    754's multiplication with destination format T (its formatOf operations take operands of any format and
    round once), which is how "The output type also determines the precision of the multiplication" [DQL-23]
    reads; before opset 23 nothing is said, and it is the reading under which the formula's value is exact.
  - Plausible implementations take other paths: the product in float32 and then rounded to T (double
    rounding), or the operands first rounded to T (x - x_zero_point, or x and x_zero_point separately, and
    x_scale) and multiplied in T. Where such a path gives a different finite value, no sentence says it is
    wrong: `spread` gives, per element, the largest distance (in T's ulps) between our y and those paths, and
    the family compares with that tolerance (mode ulp) instead of exact bits. Where a path overflows (or gives
    NaN) and ours does not, or the reverse, the element is undefined (UNDEF_INTERMEDIATE).
  - int32 with a nonzero x_zero_point: the text says there is none ("supposed to be 0"): undefined
    (UNDEF_INT32_ZERO_POINT). A zero-valued int32 zero point is 0.
  - a rank-1 input at opset 19 with a 1-D scale: [DQL-19] says per-tensor applies, which fits only a scale of
    one element; we treat a 1-D scale as per-axis there as at 13 and 21 (the family makes no such case).

Invalid models (a type the version does not list, a zero point of another type or shape than the scale, a
scale of a shape the granularity rules exclude, output_dtype outside T3 or before opset 23, block_size before
opset 21, a float8e8m0 scale without output_dtype) raise DequantizeError / QuantShapeError, both ValueErrors.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference.cast import round_fraction, round_to_precision
from generator.reference.quant_axes import QuantShapeError, expand, granularity

OPSETS = (10, 13, 19, 21, 23, 24, 25, 28)  # the versions onnx 1.23 defines

# the type constraints of each version [DQL-v], by the version that introduced each type
_T1_SINCE = {"int8": 10, "uint8": 10, "int32": 10,
             "float8e4m3fn": 19, "float8e4m3fnuz": 19, "float8e5m2": 19, "float8e5m2fnuz": 19,
             "int16": 21, "uint16": 21, "int4": 21, "uint4": 21, "float4e2m1": 23, "int2": 25, "uint2": 25,
             "float6e2m3": 28, "float6e3m2": 28}
_T2_SINCE = {"float": 10, "float16": 19, "bfloat16": 19, "float8e8m0": 24}
_T3 = ("float", "float16", "bfloat16")

UNDEF_INT32_ZERO_POINT = ("int32 input with a nonzero x_zero_point [DequantizeLinear: 'In the case of dequantizing "
                          "int32, there's no zero point (zero point is supposed to be 0)']")
UNDEF_INTERMEDIATE = ("the product overflows (or is NaN) in one plausible intermediate precision and not in "
                      "another [DequantizeLinear fixes no precision for x - x_zero_point or the product before "
                      "the output type]")
READING_ONE_ROUNDING = ("y is (x - x_zero_point) * x_scale computed exactly and rounded once to the output type "
                        "(IEEE 754 multiplication with that destination format: 'The output type also determines "
                        "the precision of the multiplication operation', DequantizeLinear-23); paths that round "
                        "earlier (a float32 product, operands rounded to the output type) are allowed the "
                        "distance stated in compare")


class DequantizeError(ValueError):
    """The model is invalid for DequantizeLinear at its opset: a type, attribute or input it cannot have."""


def version(opset: int) -> int:
    """The schema version in force at an opset (the newest of OPSETS not above it)."""
    if opset < OPSETS[0]:
        raise DequantizeError(f"DequantizeLinear does not exist before opset {OPSETS[0]} (opset {opset})")
    return max(v for v in OPSETS if v <= opset)


def x_types(opset: int) -> tuple[str, ...]:
    """T1 of the version in force: the types of x and x_zero_point."""
    return tuple(t for t, v in _T1_SINCE.items() if v <= opset)


def scale_types(opset: int) -> tuple[str, ...]:
    """T2 (x_scale) of the version in force."""
    return tuple(t for t, v in _T2_SINCE.items() if v <= opset)


def output_types(opset: int) -> tuple[str, ...]:
    """The output types of the version in force (T2's float types before 23, T3 from 23)."""
    return _T3 if opset >= 19 else ("float",)


def output_type(scale: DType, output_dtype: int | None, opset: int) -> DType:
    """y's type: output_dtype if given (opset 23+), else x_scale's [DQL-19: "'x_scale' still determines the
    output type"; DQL-23: "If `output_dtype` is not supplied then the output type is the same as `x_scale`"]."""
    if output_dtype is not None and int(output_dtype) != 0:
        if opset < 23:
            raise DequantizeError(f"DequantizeLinear-{version(opset)} has no attribute output_dtype")
        try:
            t = dtypes.get(int(output_dtype))
        except KeyError:
            raise DequantizeError(f"output_dtype {output_dtype} is no element type") from None
    else:
        t = scale
    if t.name not in output_types(opset):
        what = "output_dtype" if output_dtype else "the type of x_scale (no output_dtype)"
        raise DequantizeError(f"{what} is {t.name}; DequantizeLinear-{version(opset)} outputs only "
                              f"{', '.join(output_types(opset))}")
    return t


def check_types(x: DType, scale: DType, zero_point: DType | None, attrs: dict, opset: int) -> DType:
    """The output type, or DequantizeError for types / attributes the version does not allow."""
    v = version(opset)
    if x.name not in x_types(opset):
        raise DequantizeError(f"x of type {x.name}: DequantizeLinear-{v} takes {', '.join(x_types(opset))}")
    if scale.name not in scale_types(opset):
        raise DequantizeError(f"x_scale of type {scale.name}: DequantizeLinear-{v} takes "
                              f"{', '.join(scale_types(opset))}")
    if zero_point is not None and zero_point.name != x.name:
        raise DequantizeError(f"x_zero_point of type {zero_point.name} for x of type {x.name}: they must have the "
                              "same type")
    if "axis" in attrs and v < 13:
        raise DequantizeError("DequantizeLinear-10 has no attribute axis")
    if "block_size" in attrs and v < 21:
        raise DequantizeError(f"DequantizeLinear-{v} has no attribute block_size")
    return output_type(scale, attrs.get("output_dtype"), opset)


def check_shapes(x_shape: tuple, scale_shape: tuple, zp_shape: tuple | None, axis: int, block_size: int,
                 opset: int) -> str:
    """The granularity ("per-tensor", "per-axis", "blocked"), or QuantShapeError for shapes the version rules
    out [DQL-10: scalars; DQL-13/19: a scalar or a 1-D tensor; DQL-21+: QuantizeLinear's three granularities;
    every version: "`x_scale` and `x_zero_point` must have the same shape"]."""
    x_shape, scale_shape = tuple(x_shape), tuple(scale_shape)
    if zp_shape is not None and tuple(zp_shape) != scale_shape:
        raise QuantShapeError(f"x_zero_point of shape {tuple(zp_shape)} and x_scale of shape {scale_shape}: they "
                              "must have the same shape")
    v = version(opset)
    if v < 13 and scale_shape != ():
        raise QuantShapeError(f"DequantizeLinear-10 takes a scalar x_scale, not one of shape {scale_shape}")
    if v < 21 and block_size:
        raise QuantShapeError(f"DequantizeLinear-{v} has no blocked quantization")
    return granularity(scale_shape, x_shape, axis, block_size)


# ---------------------------------------------------------------------------------------
# the arithmetic
# ---------------------------------------------------------------------------------------
def _values(a: np.ndarray, t: DType) -> np.ndarray:
    """Elements as float64 (exact for every type here: integers up to 32 bits, every float of <= 32 bits)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(a, dtype=t.np_dtype).astype(np.float64)


def round_to(v: np.ndarray, t: DType) -> np.ndarray:
    """float64 values rounded once to the IEEE type t (RNE, overflow to +-Inf, NaN kept), as t's dtype.
    (Not astype: ml_dtypes rounds float64 -> bfloat16 through float32, twice.)"""
    v = np.asarray(v, dtype=np.float64)
    finite = np.isfinite(v)
    with np.errstate(all="ignore"):
        r = np.where(finite, round_to_precision(np.where(finite, v, 0.0), t), v)
        r = np.where(finite & (np.abs(r) > t.finite_max), np.copysign(np.inf, r), r)
        return r.astype(t.np_dtype)


def _significant_bits(v: np.ndarray) -> np.ndarray:
    """Bits between the leading and trailing ones of each finite float64 (0 for zero)."""
    m, _ = np.frexp(np.where(np.isfinite(v), np.abs(v), 0.0))
    mi = (m * 2.0**53).astype(np.int64)
    low = mi & -mi
    with np.errstate(divide="ignore"):
        tz = np.where(mi > 0, np.log2(np.where(low > 0, low, 1)).astype(np.int64), 53)
    return np.where(mi > 0, 53 - tz, 0)


def exact_round(d: np.ndarray, s: np.ndarray, t: DType) -> np.ndarray:
    """round_T(d * s) with one rounding, d and s exact float64 values (READING_ONE_ROUNDING). Where the
    float64 product is inexact (more than 53 significant bits), Fractions."""
    with np.errstate(all="ignore"):
        p = d * s
    y = round_to(p, t)
    inexact = np.isfinite(p) & (p != 0) & (_significant_bits(d) + _significant_bits(s) > 53)
    if inexact.any():
        y = y.copy()
        for i in zip(*np.nonzero(inexact)):
            q = round_fraction(Fraction(float(d[i])) * Fraction(float(s[i])), t)
            y[i] = round_to(np.array(float(q) if abs(q) <= 2 * t.finite_max else np.copysign(np.inf, float(q))), t)
    return y


def _paths(x: np.ndarray, zp: np.ndarray, d: np.ndarray, s: np.ndarray, t: DType) -> list[np.ndarray]:
    """What plausible implementations compute instead of one rounding (float64 arrays of T's values):
    the product in float32 then rounded to T; (x - zp) and x_scale rounded to T and multiplied in T; x and
    x_zero_point rounded to T, subtracted and multiplied in T."""
    with np.errstate(all="ignore"):
        via32 = (d.astype(np.float32) * s.astype(np.float32)).astype(np.float64)
        out = [_values(round_to(via32, t), t)]
        sT = _values(round_to(s, t), t)
        out.append(_values(round_to(_values(round_to(d, t), t) * sT, t), t))
        dT = _values(round_to(_values(round_to(x, t), t) - _values(round_to(zp, t), t), t), t)
        out.append(_values(round_to(dT * sT, t), t))
    return out


def _ordered(v: np.ndarray, t: DType) -> np.ndarray:
    """Finite values of T as integers on the line of encodings (-0 and +0 one point)."""
    b = t.to_bits(np.asarray(v, dtype=np.float64).astype(t.np_dtype)).astype(np.int64)  # exact: T's values
    mag = b & (t.sign_mask - 1)
    return np.where(b & t.sign_mask, -mag, mag)


def _spread(y: np.ndarray, paths: list[np.ndarray], t: DType) -> tuple[np.ndarray, np.ndarray]:
    """(largest ulp distance from y to a path, where a path and y disagree on being finite / NaN)."""
    yv = _values(y, t)
    dist = np.zeros(yv.shape, dtype=np.int64)
    bad = np.zeros(yv.shape, dtype=bool)
    for p in paths:
        both = np.isfinite(yv) & np.isfinite(p)
        same_special = (np.isnan(yv) & np.isnan(p)) | (np.isinf(yv) & (yv == p))
        bad |= ~both & ~same_special
        with np.errstate(all="ignore"):
            gap = np.abs(_ordered(np.where(both, yv, 0.0), t) - _ordered(np.where(both, p, 0.0), t))
        dist = np.maximum(dist, np.where(both, gap, 0))
    return dist, bad


def dequantize_linear_explained(x: np.ndarray, x_scale: np.ndarray, x_zero_point: np.ndarray | None = None, *,
                                axis: int = 1, block_size: int = 0, output_dtype: int | None = None,
                                opset: int = 25, x_type: DType | str | None = None,
                                scale_type: DType | str | None = None) -> tuple[Outcome, np.ndarray]:
    """(Outcome, spread): the reference's outputs and undefined elements, and per element the largest distance
    in ulps of the output type between y and the intermediate-precision paths (0: every path gives y's bits).

    x, x_scale, x_zero_point: arrays of their element types (x_type / scale_type name them where the numpy
    dtype cannot: e.g. int4 x given as int8 values). [DQL-10 .. DQL-28]; the readings: module docstring."""
    xt = dtypes.get(x_type) if x_type is not None else dtypes.from_numpy(np.asarray(x).dtype)
    st = dtypes.get(scale_type) if scale_type is not None else dtypes.from_numpy(np.asarray(x_scale).dtype)
    attrs = {"output_dtype": output_dtype} if output_dtype else {}
    if block_size:
        attrs["block_size"] = block_size
    t = check_types(xt, st, xt if x_zero_point is not None else None, attrs, opset)
    x = np.asarray(x, dtype=xt.np_dtype)
    x_scale = np.asarray(x_scale, dtype=st.np_dtype)
    zp_arr = None if x_zero_point is None else np.asarray(x_zero_point, dtype=xt.np_dtype)
    check_shapes(x.shape, x_scale.shape, None if zp_arr is None else zp_arr.shape, axis, block_size, opset)
    s = _values(expand(x_scale, x.shape, axis, block_size), st)
    zp = np.zeros(x.shape) if zp_arr is None else _values(expand(zp_arr, x.shape, axis, block_size), xt)
    xv = _values(x, xt)
    with np.errstate(all="ignore"):
        d = xv - zp  # exact (module docstring)
    y = exact_round(d, s, t)
    spread, bad = _spread(y, _paths(xv, zp, d, s, t), t)
    undefined = {}
    if xt.name == "int32":
        undefined[UNDEF_INT32_ZERO_POINT] = zp != 0
    undefined[UNDEF_INTERMEDIATE] = bad
    spread = np.where(bad, 0, spread)
    return Outcome((y,), undefined), spread


def dequantize_linear(x: np.ndarray, x_scale: np.ndarray, x_zero_point: np.ndarray | None = None, **kw) -> Outcome:
    """DequantizeLinear's Outcome (dequantize_linear_explained without the spread)."""
    return dequantize_linear_explained(x, x_scale, x_zero_point, **kw)[0]


# ---------------------------------------------------------------------------------------
# the graph node
# ---------------------------------------------------------------------------------------
def _attrs(attrs: dict) -> tuple[int, int, int | None]:
    return int(attrs.get("axis", 1)), int(attrs.get("block_size", 0)), attrs.get("output_dtype")


def validate(attrs: dict, opset: int, input_types: list[DType], input_ranks: list[int]) -> None:
    """Prepare-time type and attribute checks (check_types); raises DequantizeError."""
    types = list(input_types) + [None] * (3 - len(input_types))
    if types[0] is None or types[1] is None:
        raise DequantizeError("DequantizeLinear needs x and x_scale")
    check_types(types[0], types[1], types[2], attrs, opset)


def validate_shapes(shapes: list[tuple | None], attrs: dict, opset: int) -> None:
    """Prepare-time shape checks from the static input shapes (check_shapes); raises QuantShapeError."""
    shapes = list(shapes) + [None] * (3 - len(shapes))
    axis, block_size, _ = _attrs(attrs)
    if shapes[0] is not None and shapes[1] is not None:
        check_shapes(shapes[0], shapes[1], shapes[2], axis, block_size, opset)


def dequantize_linear_node(inputs: list[np.ndarray], attrs: dict, opset: int,
                           input_types: list[DType]) -> list[np.ndarray]:
    """DequantizeLinear as a graph node, for the opconform backend (undefined elements hold placeholders)."""
    inputs = list(inputs) + [None] * (3 - len(inputs))
    types = list(input_types) + [None] * (3 - len(input_types))
    axis, block_size, output_dtype = _attrs(attrs)
    if types[2] is not None:
        check_types(types[0], types[1], types[2], attrs, opset)
    return list(dequantize_linear(inputs[0], inputs[1], inputs[2], axis=axis, block_size=block_size,
                                  output_dtype=output_dtype, opset=opset, x_type=types[0],
                                  scale_type=types[1]).outputs)


dequantize_linear_node.validate = validate
dequantize_linear_node.validate_shapes = validate_shapes

NODES = {("", "DequantizeLinear"): dequantize_linear_node}
