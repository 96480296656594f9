"""ONNX QuantizeLinear, written from the schema texts of the installed onnx (onnx.defs.get_schema("QuantizeLinear",
v) for v in 10, 13, 19, 21, 23, 24, 25, 28) and, for float outputs, the Cast specification (Cast.txt, docs/specs.md).

Sources (cited below as [QL-v] and [Cast]):
  [QL-10]  "y = saturate ((x / y_scale) + y_zero_point)"; "saturates to [0, 255] if it's uint8, or [-128, 127] if
           it's int8"; "For (x / y_scale), it's rounding to the nearest even"; y_scale float, a scalar; x float or
           int32; "Default value is uint8 typed 0 if it's not specified".
  [QL-13]  per-axis: "a 1-D tensor for per-axis quantization"; axis "Negative value means counting dimensions
           from the back"; "The scale factor and zero point must have same shape".
  [QL-19]  x float / float16 / bfloat16 / int32, y_scale of x's type (T1); float8 outputs with `saturate`:
           "All cases are fully described in two tables" (the tables are Cast's [Cast]); "the quantization
           formula remains the same for consistency".
  [QL-21]  int16 / uint16 / int4 / uint4 with their ranges; blocked quantization (block_size, quant_axes.py);
           output_dtype: "If neither output_dtype nor y_zero_point are supplied, output data type is uint8. If
           both ... are specified, output_dtype must be T2".
  [QL-23]  y_scale of its own type T2; "The type of y_scale determines the precision of the division operation
           between x and y_scale, unless the precision attribute is specified"; float4e2m1 outputs.
  [QL-24]  y_scale may be float8e8m0.   [QL-25]  int2 [-2, 1] / uint2 [0, 3].
  [QL-28]  float6e2m3 / float6e3m2; saturate "has no effect for float4e2m1, float6e2m3, or float6e3m2".

What the reference computes, per element, with P the division's precision (the `precision` attribute, else
y_scale's type; float32 at opsets 10 / 13, whose y_scale is float; at 19 / 21, where no sentence names it, T1,
with the elements a float32 division would change left open):

    q = x / y_scale                 one IEEE division in P of x and y_scale rounded to P (RNE)
    integer y:  clip(round_half_even(q) + y_zero_point, lo, hi)      the sum exact
    float y:    Cast(q + y_zero_point, saturate) at the same opset    the sum one IEEE addition in P

The texts leave some steps open; where an open step changes an element's result, the element is undefined
(probe/), by reason (UNDEF_* below): the reference computes each other reading and compares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference import cast as cast_ref
from generator.reference.quant_axes import QuantShapeError, expand, granularity

SPEC_FILE = "onnx.defs QuantizeLinear"
VERSIONS = (10, 13, 19, 21, 23, 24, 25, 28)  # the opsets whose schema changed (onnx.defs)


class ModelError(ValueError):
    """The model breaks a rule of the schema (a type constraint, output_dtype vs the zero point): invalid."""


# ---------------------------------------------------------------------------------------
# reasons an element is undefined (each names the open step)
# ---------------------------------------------------------------------------------------
UNDEF_NAN_TO_INT = ("x / y_scale is NaN (NaN x, 0 / 0, Inf / Inf) and y is an integer type: "
                    "saturate(round(NaN) + y_zero_point) has no value [QL: y = saturate((x / y_scale) + y_zero_point)]")
UNDEF_INF_TO_INT = ("x is +-Inf and y is an integer type: the texts saturate numbers to the type's range; an infinite "
                    "x is none (Cast leaves Inf -> integer undefined) [QL: 'it saturates to [0, 255]']")
UNDEF_SCALE_ZERO = "y_scale is 0: x / y_scale divides by zero [QL: y = saturate((x / y_scale) + y_zero_point)]"
UNDEF_SCALE_NONFINITE = "y_scale is NaN or +-Inf: no scale [QL: y = saturate((x / y_scale) + y_zero_point)]"
UNDEF_PRECISION = ("the division's precision (y_scale's type or `precision`) is no IEEE float type (int32, "
                   "float8e8m0): the texts round x / y_scale to nearest even, and a division 'in the precision' of "
                   "int32 truncates, one in float8e8m0 holds only powers of two [QL-23: 'The type of y_scale "
                   "determines the precision of the division operation']")
UNDEF_OPERANDS = ("x or y_scale is not exact in the division's precision P, and rounding them to P before dividing "
                  "gives another y than rounding the exact quotient once: the texts state P, not the operands' "
                  "conversion [QL-23: 'The type of y_scale determines the precision of the division operation']")
UNDEF_PRECISION_UNSTATED = ("QuantizeLinear-19 / 21 state no precision for x / y_scale (the sentence arrives at 23), "
                            "and float16 / bfloat16 x and y_scale divided in their type (T1) or in float32 give "
                            "different y "
                            "[QL-19: y = saturate((x / y_scale) + y_zero_point); T1: float, float16, bfloat16, int32]")
UNDEF_SUM = ("adding y_zero_point exactly, or in the division's precision, or (for a zero zero point of a float "
             "type, 'usually not used') not at all, gives different y here: the texts fix the precision of the "
             "division only [QL: saturate((x / y_scale) + y_zero_point)]")

# readings: results no sentence of QuantizeLinear gives, read from the texts it refers to (case.json "reading")
READING_CAST_TABLES = ("float outputs: the Cast of the same opset converts x / y_scale + y_zero_point, saturate as "
                       "Cast's two float 8 tables say (QuantizeLinear: 'fully described in two tables inserted in "
                       "the operator description', tables it does not itself carry), so +-Inf -> FNUZ types with "
                       "saturate=1 is NaN before opset 24 and +-FLT_MAX from 24 (Cast-24); float4 / float6 follow "
                       "the Cast notes (RNE, saturating)")
READING_DIVISION_PRECISION = ("before opset 23 no sentence states the precision of x / y_scale: read as one IEEE "
                              "division in y_scale's type (float32 at opsets 10 / 13), the rule QuantizeLinear-23 "
                              "states ('The type of y_scale determines the precision of the division operation'); "
                              "an exact quotient rounded once to the integer gives another y on these elements")


# ---------------------------------------------------------------------------------------
# what each version allows
# ---------------------------------------------------------------------------------------
def schema_version(opset: int) -> int:
    """The QuantizeLinear version a model of `opset` uses: the newest of VERSIONS <= opset."""
    if opset < VERSIONS[0]:
        raise ModelError(f"QuantizeLinear does not exist at opset {opset} (it starts at 10)")
    return max(v for v in VERSIONS if v <= opset)


def x_types(opset: int) -> tuple[str, ...]:
    """T1 of the schema: x's types."""
    return ("float", "int32") if schema_version(opset) < 19 else ("float", "float16", "bfloat16", "int32")


def scale_types(opset: int, x_type: str | None = None) -> tuple[str, ...]:
    """y_scale's types: float (10, 13); x's type (T1, 19 and 21); T2 (23+; float8e8m0 from 24)."""
    v = schema_version(opset)
    if v < 19:
        return ("float",)
    if v < 23:
        return (x_type,) if x_type else x_types(opset)
    return ("float", "float16", "bfloat16", "int32") + (("float8e8m0",) if v >= 24 else ())


def output_types(opset: int) -> tuple[str, ...]:
    """The zero point's and y's types (T2 / T3) at this opset."""
    v = schema_version(opset)
    out = ["int8", "uint8"]
    if v >= 19:
        out += ["float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz"]
    if v >= 21:
        out[2:2] = ["int16", "uint16"]
        out += ["uint4", "int4"]
    if v >= 23:
        out += ["float4e2m1"]
    if v >= 25:
        out += ["uint2", "int2"]
    if v >= 28:
        out += ["float6e2m3", "float6e3m2"]
    return tuple(out)


def attributes(opset: int) -> tuple[str, ...]:
    """The attributes the schema of this opset has."""
    v = schema_version(opset)
    return (() if v < 13 else ("axis",)) + (("saturate",) if v >= 19 else ()) \
        + (("block_size", "output_dtype") if v >= 21 else ()) + (("precision",) if v >= 23 else ())


@dataclass(frozen=True)
class Signature:
    """The types a node resolves to: y's type and the division's precision."""
    out: DType
    precision: DType


def check_types(opset: int, x_type, scale_type, zero_point_type=None, output_dtype: int = 0,
                precision: int = 0) -> Signature:
    """The output type and the division's precision, or ModelError naming the rule broken [QL-10..28: type
    constraints; QL-21 output_dtype; QL-23 precision]."""
    v = schema_version(opset)
    x_t, s_t = dtypes.get(x_type), dtypes.get(scale_type)
    if x_t.name not in x_types(opset):
        raise ModelError(f"x of type {x_t.name} is not one of {', '.join(x_types(opset))} (QuantizeLinear-{v})")
    if s_t.name not in scale_types(opset, x_t.name):
        raise ModelError(f"y_scale of type {s_t.name} is not one of {', '.join(scale_types(opset, x_t.name))} "
                         f"(QuantizeLinear-{v}{' : T1, the type of x' if 19 <= v < 23 else ''})")
    out = None
    if zero_point_type is not None:
        out = dtypes.get(zero_point_type)
        if out.name not in output_types(opset):
            raise ModelError(f"y_zero_point of type {out.name} is not one of {', '.join(output_types(opset))} "
                             f"(QuantizeLinear-{v})")
    if output_dtype:
        if v < 21:
            raise ModelError(f"QuantizeLinear-{v} has no output_dtype attribute")
        o = dtypes.get(int(output_dtype))
        if o.name not in output_types(opset):
            raise ModelError(f"output_dtype {o.name} is not one of {', '.join(output_types(opset))} "
                             f"(QuantizeLinear-{v})")
        if out is not None and o != out:
            raise ModelError(f"output_dtype {o.name} differs from y_zero_point's type {out.name} "
                             "(QL-21: 'output_dtype must be T2')")
        out = o
    if precision:
        if v < 23:
            raise ModelError(f"QuantizeLinear-{v} has no precision attribute")
        p = dtypes.get(int(precision))
        if not p.is_numeric:
            raise ModelError(f"precision {p.name} is no numeric type")
    else:
        p = s_t
    return Signature(out or dtypes.get("uint8"), p)


def check_shapes(opset: int, x_shape: tuple, scale_shape: tuple, zero_point_shape: tuple | None = None,
                 axis: int = 1, block_size: int = 0) -> str:
    """The granularity ("per-tensor" / "per-axis" / "blocked"), or QuantShapeError [QL-10: 'It's a scalar';
    QL-13: a 1-D tensor for per-axis; QL-21: blocked; every version: the zero point's shape is the scale's]."""
    v = schema_version(opset)
    if zero_point_shape is not None and tuple(zero_point_shape) != tuple(scale_shape):
        raise QuantShapeError(f"y_zero_point of shape {tuple(zero_point_shape)} differs from y_scale's "
                              f"{tuple(scale_shape)} (QL: 'Shape must match y_scale')")
    if v < 13 and tuple(scale_shape) != ():
        raise QuantShapeError(f"QuantizeLinear-{v} takes a scalar y_scale, not one of shape {tuple(scale_shape)}")
    if v < 21 and block_size:
        raise QuantShapeError(f"QuantizeLinear-{v} has no blocked quantization (block_size {block_size})")
    return granularity(tuple(scale_shape), tuple(x_shape), axis, block_size)


# ---------------------------------------------------------------------------------------
# arithmetic
# ---------------------------------------------------------------------------------------
def _cast(v: np.ndarray, src: DType | str, to: DType | str, saturate: bool = True, opset: int = 25) -> Outcome:
    """The project's Cast (generator/reference/cast.py) under the reference contract: Outcome (y,), the elements
    its texts leave undefined by reason."""
    return cast_ref.cast_outcome(v, src, to, saturate=saturate, opset=opset)


def to_precision(v: np.ndarray, p: DType) -> np.ndarray:
    """float64 values (NaN / Inf allowed) rounded to nearest even in P, as float64 (IEEE: overflow -> Inf)."""
    v = np.asarray(v, dtype=np.float64)
    if p.name == "double":
        return v.copy()
    y = _cast(v, "double", p).outputs[0]
    with np.errstate(invalid="ignore"):
        return np.asarray(y).astype(np.float64)


def divide(x64: np.ndarray, s64: np.ndarray, p: DType) -> np.ndarray:
    """x / s rounded once to P: float64's correctly rounded quotient, rounded again to P, is P's correctly
    rounded one for operands of up to 24 significant bits and P of up to 24 (53 >= 2 * 24 + 2; an int32 x of
    up to 31 bits over a 24-bit scale leaves the quotient at least 2**-51 relative from any midpoint of P)."""
    with np.errstate(all="ignore"):
        return to_precision(np.asarray(x64, np.float64) / np.asarray(s64, np.float64), p)


def _values(a, t: DType) -> np.ndarray:
    """Elements of type t as exact float64."""
    a = np.asarray(a, dtype=t.np_dtype)
    with np.errstate(invalid="ignore"):
        return a.astype(np.int64).astype(np.float64) if t.is_integer and t.bits > 8 else a.astype(np.float64)


def _integer(q: np.ndarray, zp: np.ndarray, out: DType, p: DType, sum_in_p: bool) -> np.ndarray:
    """clip(round_half_even(q) + zp) as float64 (NaN stays NaN); the sum exact, or rounded to P."""
    with np.errstate(invalid="ignore"):
        r = np.rint(q) + zp  # exact below 2**53; beyond, every reading saturates alike
        if sum_in_p:
            r = to_precision(r, p)
        return np.clip(r, out.int_min, out.int_max)


def _same(a: np.ndarray, b: np.ndarray, out: DType) -> np.ndarray:
    if out.is_float:
        return out.same_values(a, b)
    return (a == b) | (np.isnan(a) & np.isnan(b))


def quantize_linear_explained(x, y_scale, y_zero_point=None, *, x_type=None, scale_type=None, zero_point_type=None,
                              axis: int = 1, saturate: bool = True, block_size: int = 0, output_dtype: int = 0,
                              precision: int = 0, opset: int = 28) -> tuple[Outcome, tuple[str, ...]]:
    """QuantizeLinear [QL-10..28] under the reference contract, as Cast's `explain`: (Outcome (y,) with the
    undefined elements by reason, the READING_* the defined elements rest on). y has out's dtype and x's shape,
    placeholders where undefined. Types default to the arrays' own (dtypes.from_numpy). Raises ModelError /
    QuantShapeError for a model the schema rules out."""
    x, y_scale = np.asarray(x), np.asarray(y_scale)
    x_t = dtypes.get(x_type) if x_type is not None else dtypes.from_numpy(x.dtype)
    s_t = dtypes.get(scale_type) if scale_type is not None else dtypes.from_numpy(y_scale.dtype)
    z_t = None
    if y_zero_point is not None:
        y_zero_point = np.asarray(y_zero_point)
        z_t = dtypes.get(zero_point_type) if zero_point_type is not None else dtypes.from_numpy(y_zero_point.dtype)
    sig = check_types(opset, x_t, s_t, z_t, output_dtype, precision)
    v = schema_version(opset)
    axis = axis if v >= 13 else 1
    block_size = block_size if v >= 21 else 0
    check_shapes(opset, x.shape, y_scale.shape, None if y_zero_point is None else y_zero_point.shape, axis, block_size)
    out, p = sig.out, sig.precision
    saturate = bool(saturate) if v >= 19 else True
    why = np.full(x.shape, "", dtype=object)
    placeholder = np.zeros(x.shape, dtype=np.float64)

    x64 = _values(x, x_t)
    s64 = np.broadcast_to(expand(_values(y_scale, s_t), x.shape, axis, block_size), x.shape)
    zp_absent = y_zero_point is None
    zp64 = np.zeros(x.shape) if zp_absent else \
        np.broadcast_to(expand(_values(y_zero_point, z_t), x.shape, axis, block_size), x.shape)

    def finish(y64_or_y, readings=()):
        y = y64_or_y if out.is_float else np.where(why == "", y64_or_y, 0).astype(np.int64).astype(out.np_dtype)
        return Outcome.by_element((np.asarray(y).reshape(x.shape),), why), tuple(readings)

    if not p.is_float or p.nan_style == dtypes.E8M0:
        why[...] = UNDEF_PRECISION
        return finish(_placeholder(placeholder, out))
    with np.errstate(invalid="ignore"):
        why[~np.isfinite(s64)] = UNDEF_SCALE_NONFINITE
        why[s64 == 0] = UNDEF_SCALE_ZERO

    # the reference: operands rounded to P, one IEEE division in P; alt: the exact quotient rounded once
    q = divide(to_precision(x64, p), to_precision(s64, p), p)
    q_exact_once = divide(x64, s64, p)
    # before 23 the texts name no precision: a float16 / bfloat16 T1 may be divided in float32 (widened first)
    f32 = dtypes.get("float")
    q_wide = divide(x64, s64, f32) if v < 23 and p.name in ("float16", "bfloat16") else None
    if out.is_integer:
        y = _integer(q, zp64, out, p, sum_in_p=False)
        alt_operands = _integer(q_exact_once, zp64, out, p, sum_in_p=False)
        alt_wide = y if q_wide is None else _integer(q_wide, zp64, out, f32, sum_in_p=False)
        alt_sum = _integer(q, zp64, out, p, sum_in_p=True)
        free = why == ""
        why[free & np.isnan(q)] = UNDEF_NAN_TO_INT
        why[(why == "") & np.isinf(x64)] = UNDEF_INF_TO_INT
        why[(why == "") & ~_same(y, alt_operands, out)] = UNDEF_OPERANDS
        why[(why == "") & ~_same(y, alt_wide, out)] = UNDEF_PRECISION_UNSTATED
        why[(why == "") & ~_same(y, alt_sum, out)] = UNDEF_SUM
        readings = ()
        if v < 23:  # the precision is stated from 23 on: before, a defined y a finer division changes is a reading
            alt_exact = _integer(divide(x64, s64, dtypes.get("double")), zp64, out, p, sum_in_p=False)
            if np.any((why == "") & ~_same(y, alt_exact, out)):
                readings = (READING_DIVISION_PRECISION,)
        return finish(y, readings)

    def to_out(v64):
        return _cast(v64, "double", out, saturate, opset)

    with np.errstate(all="ignore"):
        converted = to_out(to_precision(q + zp64, p))  # q and zp are P values: float64's sum rounds once to P
        y = converted.outputs[0]
        alt_operands = to_out(to_precision(q_exact_once + zp64, p)).outputs[0]
        alt_wide = y if q_wide is None else to_out(to_precision(q_wide + zp64, f32)).outputs[0]
        exact = q + zp64  # TwoSum: the float64 sum and its error
        bv = exact - q
        err = (q - (exact - bv)) + (zp64 - bv)
    alt_sum = to_out(exact).outputs[0]
    inexact = np.isfinite(err) & (err != 0)
    if inexact.any():  # the exact sum lies beyond the float64 one toward err: Cast is monotone, so both agree or not
        beyond = to_out(np.nextafter(exact, np.where(err > 0, np.inf, -np.inf))).outputs[0]
        alt_sum_differs = ~_same(alt_sum, y, out) | (inexact & ~_same(beyond, y, out))
    else:
        alt_sum_differs = ~_same(alt_sum, y, out)
    if zp_absent or not np.any(zp64):  # a zero zero point left out: only -0 quotients can differ
        left_out = to_out(q).outputs[0]
        alt_sum_differs |= ~_same(left_out, y, out)
    free = why == ""
    for reason, mask in converted.undefined.items():  # Cast's reasons, one per element
        why[free & np.broadcast_to(np.asarray(mask, dtype=bool), why.shape)] = reason
    why[(why == "") & ~_same(y, alt_operands, out)] = UNDEF_OPERANDS
    why[(why == "") & ~_same(y, alt_wide, out)] = UNDEF_PRECISION_UNSTATED
    why[(why == "") & alt_sum_differs] = UNDEF_SUM
    readings = (READING_CAST_TABLES,)
    if v < 23:  # as for integer outputs: a finer division changing a defined y rests on the precision reading
        q_exact = divide(x64, s64, dtypes.get("double"))
        with np.errstate(all="ignore"):
            alt_exact = to_out(q_exact + zp64).outputs[0]
        if np.any((why == "") & ~_same(y, alt_exact, out)):
            readings += (READING_DIVISION_PRECISION,)
    return finish(y, readings)


def _placeholder(v64: np.ndarray, out: DType) -> np.ndarray:
    return v64.astype(out.np_dtype) if out.is_float else v64


def quantize_linear(x, y_scale, y_zero_point=None, **kw) -> Outcome:
    """QuantizeLinear [QL-10..28] as an Outcome: (y,) and the undefined elements by reason
    (quantize_linear_explained has the keyword arguments)."""
    return quantize_linear_explained(x, y_scale, y_zero_point, **kw)[0]


# ---------------------------------------------------------------------------------------
# as a graph node (the opconform backend)
# ---------------------------------------------------------------------------------------
def _attrs(attrs: dict, opset: int) -> dict:
    known = attributes(opset)
    return {"axis": int(attrs.get("axis", 1)) if "axis" in known else 1,
            "saturate": bool(attrs.get("saturate", 1)) if "saturate" in known else True,
            "block_size": int(attrs.get("block_size", 0)) if "block_size" in known else 0,
            "output_dtype": int(attrs.get("output_dtype", 0)) if "output_dtype" in known else 0,
            "precision": int(attrs.get("precision", 0)) if "precision" in known else 0}


def validate(attrs: dict, opset: int, input_types: list, input_ranks: list) -> None:
    """The type rules, before any data (the opconform backend refuses the model at prepare)."""
    unknown = sorted(set(attrs) - set(attributes(opset)))
    if unknown:
        raise ModelError(f"QuantizeLinear-{schema_version(opset)} has no attribute {', '.join(unknown)}")
    a = _attrs(attrs, opset)
    z = input_types[2] if len(input_types) > 2 else None
    check_types(opset, input_types[0], input_types[1], z, a["output_dtype"], a["precision"])


def validate_shapes(shapes: list, attrs: dict, opset: int) -> None:
    """The shape rules, where the static shapes are known."""
    a = _attrs(attrs, opset)
    x, s = shapes[0], shapes[1] if len(shapes) > 1 else None
    z = shapes[2] if len(shapes) > 2 else None
    if x is None or s is None:
        return
    check_shapes(opset, tuple(x), tuple(s), None if z is None else tuple(z), a["axis"], a["block_size"])


def quantize_linear_node(inputs: list[np.ndarray], attrs: dict, opset: int,
                         input_types: list[DType]) -> list[np.ndarray]:
    """QuantizeLinear as a graph node [QL-10..28]; undefined elements hold placeholders."""
    validate(attrs, opset, list(input_types), [np.ndim(i) for i in inputs])
    x, s = inputs[0], inputs[1]
    z = inputs[2] if len(inputs) > 2 else None
    z_t = input_types[2] if z is not None else None
    return list(quantize_linear(x, s, z, x_type=input_types[0], scale_type=input_types[1], zero_point_type=z_t,
                                opset=opset, **_attrs(attrs, opset)).outputs)


quantize_linear_node.validate = validate
quantize_linear_node.validate_shapes = validate_shapes

# (domain, op) -> node function: generator.reference.lookup finds it here
NODES = {("", "QuantizeLinear"): quantize_linear_node}
