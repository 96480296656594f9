"""ONNX QLinearMatMul-10 and -21, written from the schema text of the installed onnx package
(onnx.defs.get_schema("QLinearMatMul", 10 / 21): [QLinearMatMul] below).

    y = saturate(round_half_even(acc * a_scale[m] * b_scale[n] / y_scale) + y_zero_point)
    acc[..., m, n] = sum over k of (a[..., m, k] - a_zero_point[m]) * (b[..., k, n] - b_zero_point[n])

[QLinearMatMul: summary] "Matrix product that behaves like numpy.matmul" (1-D operands promoted and the
promoted axis removed, batch dimensions broadcast); "The quantization formula is y = saturate((x / y_scale) +
y_zero_point). For (x / y_scale), it is rounding to nearest ties to even"; "Scale and zero point must have same
shape. They must be either scalar (per tensor) or N-D tensor (per row for 'a' and per column for 'b')"; "If the input
is 2D of shape [M, K] then zero point and scale tensor may be an M element vector ... for per row quantization ...
If the input is N-D tensor with shape [D1, D2, M, K] then zero point and scale tensor may have shape [D1, D2, M, 1]
for per row quantization and shape [D1, D2, 1, K] for per column quantization"; "Production must never overflow,
and accumulation may overflow if and only if in 32 bits". Types: 10: T1, T2, T3 int8 / uint8, scales float;
21: T1, T2, T3 add the four float8 types, the scales TS float / float16 / bfloat16 (one type for all three).

Decisions where the text is silent (named readings, case.json "reading"; docs/qlinear_matmul.md):
  * x is the exact real product of the dequantized operands: acc exact, the scale product exact, rounded half to
    even (READING_EXACT); requantization is generator/reference/requantize.py's, QLinearConv's;
  * per column of b [K, N] has N elements ([N], [..., 1, N]): the text writes every input as [M, K] and so calls
    the column count K (READING_PER_COLUMN); a 2-D a takes the N-D form [M, 1] too;
  * acc outside int32 is undefined ("may overflow": what the overflow gives is not said): a probe;
  * a scale that is not a positive finite number is undefined (the formula divides by y_scale);
  * float8 a, b or y (opset 21; READING_FLOAT8): a and b dequantized as DequantizeLinear-21 does, x exact; an integer
    y as READING_EXACT; a float8 y is x / y_scale + y_zero_point rounded once, half to even, to the type, saturated
    to its finite range (QuantizeLinear-21's saturate=1, its default); a NaN or infinite float8 operand or zero
    point is undefined (UNDEF_FLOAT8: the text's integer arithmetic says nothing of them).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import isfinite
from typing import Callable

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference.cast_rounding import round_fraction
from generator.reference.requantize import INT32_MAX, INT32_MIN, multiplier, requantize

SPEC_FILE = "onnx.defs:QLinearMatMul-21"
OPSETS = (10, 21)
INT_TYPES = ("uint8", "int8")
FLOAT8_TYPES = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")
SCALE_TYPES = {10: ("float",), 21: ("float", "float16", "bfloat16")}

UNDEF_ACC_INT32 = ("acc is outside int32: 'accumulation may overflow if and only if in 32 bits' allows the "
                   "overflow and says nothing of what it gives [QLinearMatMul: summary]")
UNDEF_SCALE = ("a scale is not a positive finite number: y = saturate((x / y_scale) + y_zero_point) of a dequantized "
               "x has no meaning the text gives [QLinearMatMul: summary, a_scale, b_scale, y_scale]")
UNDEF_FLOAT8 = ("a NaN or infinite float8 a, b or zero point: the text's arithmetic is integer (zero points "
                "subtracted, 'accumulation may overflow if and only if in 32 bits', saturate to the output type) "
                "and gives no value a NaN or an infinity dequantizes to [QLinearMatMul-21: T1, T2, T3]")

READING_EXACT = (
    "qlinear_matmul-exact: y = saturate(round_half_even(x / y_scale) + y_zero_point) with x the real matrix product "
    "of (a - a_zero_point) * a_scale and (b - b_zero_point) * b_scale taken exactly: acc the exact integer sum, "
    "acc * a_scale * b_scale / y_scale the exact product of the scale values, rounded half to even, y_zero_point "
    "added after rounding (QLinearConv's requantization). A float32, float64 or fixed-point x is another reading; it "
    "differs only where the exact value lies within that arithmetic's error of a half-integer")
READING_PER_COLUMN = (
    "qlinear_matmul-per-column: b per column has N elements, [N] for a 2-D b [K, N] and [..., 1, N] for an N-D one; "
    "the text writes 'the input' as [M, K] and so calls the column count K. A 2-D a per row is [M] or [M, 1] (the "
    "N-D form [D1, D2, M, 1] without batch dimensions)")

READING_FLOAT8 = (
    "qlinear_matmul-float8: QLinearMatMul-21 admits float8 a, b and y but states only integer arithmetic: a float8 a "
    "or b is dequantized as DequantizeLinear-21 does, (a - a_zero_point) * a_scale, and x is their exact product "
    "(READING_EXACT); an int8 / uint8 y as READING_EXACT; a float8 y is x / y_scale + y_zero_point rounded once, half "
    "to even, to the type and saturated to its finite range, as QuantizeLinear-21 quantizes to a float8 type "
    "(saturate=1, its default); a result that rounds to zero keeps the sign of the exact value where the type has "
    "-0")


def readings(a_per_row: bool, b_per_column: bool, float8: bool = False) -> list[str]:
    """The readings every judged output of a QLinearMatMul with this quantization (and float8 types) rests on."""
    return [READING_EXACT] + ([READING_PER_COLUMN] if a_per_row or b_per_column else []) + \
        ([READING_FLOAT8] if float8 else [])


def has_float8(inputs) -> bool:
    """Whether a, b or y_zero_point (T1, T2, T3) is of a float8 type."""
    return any(dtypes.from_numpy(np.asarray(inputs[i]).dtype).name in FLOAT8_TYPES for i in (0, 3, 7))


def _to_float8(q: Fraction, to: DType) -> float:
    """q rounded once, half to even, to `to` and saturated to its finite range; -0 for a negative q that rounds
    to zero where the type has -0 [QuantizeLinear-21: saturate; Cast-19: saturate=1]."""
    r = round_fraction(q, to)
    top = Fraction(to.finite_max)
    r = max(-top, min(top, r))
    if r == 0:
        return -0.0 if q < 0 and to.has_negative_zero else 0.0
    return float(r)


def _float8_outcome(op: "Operands", shape_out: tuple) -> np.ndarray:
    """y of float8 operands or output (READING_FLOAT8), exactly in rationals: element by element."""
    da = np.vectorize(Fraction, otypes=[object])(op.a.astype(np.float64)) - \
        np.vectorize(Fraction, otypes=[object])(op.a_zp_values)
    db = np.vectorize(Fraction, otypes=[object])(op.b.astype(np.float64)) - \
        np.vectorize(Fraction, otypes=[object])(op.b_zp_values)
    acc = np.matmul(da, db) if op.a.shape[-1] else np.zeros(np.broadcast_shapes(
        op.a.shape[:-1] + (1,), op.b.shape[:-2] + (1, op.b.shape[-1])), dtype=object) * Fraction(0)
    sa = np.broadcast_to(op.a_scale, acc.shape)
    sb = np.broadcast_to(op.b_scale, acc.shape)
    ys, to = Fraction(op.y_scale), op.y_type
    out = np.empty(acc.shape, dtype=np.float64)
    for i in np.ndindex(acc.shape):
        q = Fraction(acc[i]) * Fraction(float(sa[i])) * Fraction(float(sb[i])) / ys
        if to.name in FLOAT8_TYPES:
            out[i] = _to_float8(q + Fraction(op.y_zp_value), to)
        else:
            # round() of a Fraction is exact and half to even
            out[i] = min(max(round(q) + op.y_zero_point, to.int_min), to.int_max)
    y = out.astype(to.np_dtype)
    return np.squeeze(y, op.squeeze) if op.squeeze else y.reshape(shape_out)


def quant_shape(name: str, q_shape: tuple, scale_shape: tuple, zp_shape: tuple, per_row: bool) -> tuple | None:
    """The shape a's (per_row) or b's quantization parameters broadcast with against the operand (promoted to
    2-D), or None when per tensor; raises ValueError for shapes the text rules out [QLinearMatMul: summary]."""
    scale_shape, zp_shape = tuple(scale_shape), tuple(zp_shape)
    if scale_shape != zp_shape:
        raise ValueError(f"QLinearMatMul: {name}_scale {scale_shape} and {name}_zero_point {zp_shape} must have the "
                         "same shape")
    if len(q_shape) >= 2:
        if per_row:
            forms = [tuple(q_shape[:-1]) + (1,)] + ([(q_shape[0],)] if len(q_shape) == 2 else [])
        else:
            forms = [tuple(q_shape[:-2]) + (1, q_shape[-1])] + ([(q_shape[-1],)] if len(q_shape) == 2 else [])
        if scale_shape in forms:
            return forms[0]
    if len(scale_shape) <= 1 and int(np.prod(scale_shape)) == 1:
        return None
    what = "per row of a ([M] or [..., M, 1])" if per_row else "per column of b ([N] or [..., 1, N])"
    raise ValueError(f"QLinearMatMul: {name}_scale has shape {scale_shape}; {name} {tuple(q_shape)} takes a scalar "
                     f"(per tensor) or {what}")


def output_shape(a_shape: tuple, b_shape: tuple) -> tuple:
    """numpy.matmul's output shape; ValueError for operands it rejects (a 0-D one, K differing, batch dimensions
    that do not broadcast)."""
    if len(a_shape) == 0 or len(b_shape) == 0:
        raise ValueError("QLinearMatMul: a and b must have at least one dimension (numpy.matmul takes no scalar)")
    a2 = (1,) + tuple(a_shape) if len(a_shape) == 1 else tuple(a_shape)
    b2 = tuple(b_shape) + (1,) if len(b_shape) == 1 else tuple(b_shape)
    if a2[-1] != b2[-2]:
        raise ValueError(f"QLinearMatMul: a {tuple(a_shape)} has K = {a2[-1]}, b {tuple(b_shape)} has {b2[-2]}")
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        raise ValueError(f"QLinearMatMul: the batch dimensions of a {tuple(a_shape)} and b {tuple(b_shape)} do not "
                         "broadcast") from None
    return tuple(batch) + ((a2[-2],) if len(a_shape) > 1 else ()) + ((b2[-1],) if len(b_shape) > 1 else ())


@dataclass
class Operands:
    """a and b promoted to 2-D or more (numpy.matmul), each with its zero point and scale shaped to broadcast
    against it (per row: [..., M, 1]; per column: [..., 1, N]; per tensor: scalars), y's scale, zero point and
    type, and the axes the promotion adds to the product (removed from y)."""
    a: np.ndarray
    a_zero_point: np.ndarray
    a_scale: np.ndarray
    b: np.ndarray
    b_zero_point: np.ndarray
    b_scale: np.ndarray
    y_scale: float
    y_zero_point: int
    y_type: DType
    squeeze: tuple
    a_zp_values: np.ndarray | None = None  # the zero points' values in float64 (float8 zero points)
    b_zp_values: np.ndarray | None = None
    y_zp_value: float = 0.0


def operands(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point) -> Operands:
    """The inputs checked (shapes) and promoted for the product (Operands)."""
    a, b = np.asarray(a), np.asarray(b)
    output_shape(a.shape, b.shape)
    a_scale, b_scale = np.asarray(a_scale), np.asarray(b_scale)
    a_zero_point, b_zero_point = np.asarray(a_zero_point), np.asarray(b_zero_point)
    sa = quant_shape("a", a.shape, a_scale.shape, a_zero_point.shape, True)
    sb = quant_shape("b", b.shape, b_scale.shape, b_zero_point.shape, False)
    for name, v in (("y_scale", y_scale), ("y_zero_point", y_zero_point)):
        if np.size(v) != 1 or np.ndim(v) > 1:
            raise ValueError(f"QLinearMatMul: {name} is per tensor (a scalar)")
    a2 = a.reshape((1,) + a.shape) if a.ndim == 1 else a
    b2 = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
    squeeze = ((-2,) if a.ndim == 1 else ()) + ((-1,) if b.ndim == 1 else ())

    def shaped(v: np.ndarray, form: tuple | None, dtype) -> np.ndarray:
        return np.asarray(v, dtype=dtype).reshape(form if form is not None else ())

    yz = np.asarray(y_zero_point)
    return Operands(a2, shaped(a_zero_point, sa, np.int64), shaped(a_scale, sa, np.float64),
                    b2, shaped(b_zero_point, sb, np.int64), shaped(b_scale, sb, np.float64),
                    float(np.asarray(y_scale, np.float64).reshape(-1)[0]), int(yz.astype(np.int64).reshape(-1)[0])
                    if yz.dtype.kind in "iu" else 0, dtypes.from_numpy(yz.dtype), squeeze,
                    shaped(np.asarray(a_zero_point).astype(np.float64), sa, np.float64),
                    shaped(np.asarray(b_zero_point).astype(np.float64), sb, np.float64),
                    float(yz.astype(np.float64).reshape(-1)[0]))


def accumulate(op: Operands) -> tuple[np.ndarray, int]:
    """acc = matmul(a - a_zero_point, b - b_zero_point), exactly [QLinearMatMul: summary], and a bound >= every
    |partial sum|. Products and partial sums are integers below 2**53 for K < 2**37: float64 BLAS is exact."""
    da = op.a.astype(np.float64) - op.a_zero_point
    db = op.b.astype(np.float64) - op.b_zero_point
    k = op.a.shape[-1]
    bound = k * int(np.abs(da).max(initial=0)) * int(np.abs(db).max(initial=0))
    if bound >= 2**53:
        raise ValueError(f"QLinearMatMul: K = {k} is beyond what this reference sums exactly")
    return np.matmul(da, db), bound


def requantize_each(acc: np.ndarray, op: Operands, fn: Callable[[np.ndarray, float, float], np.ndarray]) -> np.ndarray:
    """y of acc, element by element requantized by fn(acc values, a_scale value, b_scale value) -> y values, called
    once per distinct (a_scale, b_scale) pair of the output's elements (per row and per column)."""
    sa = np.broadcast_to(op.a_scale, acc.shape).reshape(-1)
    sb = np.broadcast_to(op.b_scale, acc.shape).reshape(-1)
    flat = acc.reshape(-1)
    y = np.empty(flat.shape, dtype=op.y_type.np_dtype)
    pairs, inverse = np.unique(np.stack([sa, sb], axis=1), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    for i, (xs, ws) in enumerate(pairs.tolist()):
        at = np.flatnonzero(inverse == i) if len(pairs) > 1 else slice(None)
        y[at] = fn(flat[at], xs, ws)
    return y.reshape(acc.shape)


def scales_valid(op: Operands) -> bool:
    values = np.concatenate([op.a_scale.reshape(-1), op.b_scale.reshape(-1), [op.y_scale]])
    return bool(np.all((values > 0) & np.isfinite(values)))  # NaN fails > 0


def qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point) -> Outcome:
    """QLinearMatMul [QLinearMatMul-10 / -21: summary, inputs]. Returns the Outcome of y, the one output: y has the
    type of y_zero_point (T3) and numpy.matmul's shape; the Outcome's undefined maps each UNDEF_* reason to its
    elements (y holds placeholders there). Raises ValueError for shapes the text rules out."""
    op = operands(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
    shape = np.broadcast_shapes(op.a.shape[:-1] + (1,), op.b.shape[:-2] + (1, op.b.shape[-1]))
    shape_out = output_shape(np.shape(a), np.shape(b))
    placeholder = np.zeros(shape_out, dtype=op.y_type.np_dtype)
    float8 = has_float8([a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point])
    if float8 and not all(np.isfinite(np.asarray(v, np.float64)).all() for v in (a, a_zero_point, b, b_zero_point,
                                                                             y_zero_point)):
        return Outcome((placeholder,), {UNDEF_FLOAT8: np.ones(shape_out, dtype=bool)})
    if not scales_valid(op) or not isfinite(op.y_scale):
        return Outcome((placeholder,), {UNDEF_SCALE: np.ones(shape_out, dtype=bool)})
    if float8:
        return Outcome((_float8_outcome(op, shape_out),))
    acc, bound = accumulate(op)
    assert acc.shape == shape
    undefined = {}
    if bound > INT32_MAX:
        outside = (acc < INT32_MIN) | (acc > INT32_MAX)
        if outside.any():
            undefined[UNDEF_ACC_INT32] = np.squeeze(outside, op.squeeze) if op.squeeze else outside
            acc = np.where(outside, 0, acc)
    ys, yz, to, limit = op.y_scale, op.y_zero_point, op.y_type, min(bound, 2**31)
    y = requantize_each(acc, op, lambda v, xs, ws: requantize(v.reshape(1, 1, -1), [multiplier(xs, ws, ys)], yz, to,
                                                              limit).reshape(-1))
    return Outcome((np.squeeze(y, op.squeeze) if op.squeeze else y,), undefined)


NAMES = ("a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point")


def validate(attrs: dict, opset: int, input_types: list, input_ranks: list) -> None:
    """The type constraints of QLinearMatMul-10 / -21 [T1, T2, T3, TS]: a / a_zero_point one type of T1, b /
    b_zero_point one of T2, y_zero_point T3 (int8 / uint8; 21: and the float8 types); the scales float (21: float,
    float16 or bfloat16, all three the same: TS); a and b of rank >= 1 (numpy.matmul takes no scalar)."""
    version = 21 if opset >= 21 else 10
    allowed = INT_TYPES + (FLOAT8_TYPES if version == 21 else ())
    types = list(input_types) + [None] * (8 - len(input_types))
    if len(input_types) != 8:
        raise ValueError(f"QLinearMatMul takes 8 inputs, got {len(input_types)}")
    for i in (0, 2, 3, 5, 7):
        if types[i] is not None and types[i].name not in allowed:
            raise ValueError(f"QLinearMatMul-{version}: {NAMES[i]} must be one of {', '.join(allowed)}, not "
                             f"{types[i].name}")
    for i, j in ((0, 2), (3, 5)):
        if types[i] is not None and types[j] is not None and types[i].name != types[j].name:
            raise ValueError(f"QLinearMatMul: {NAMES[j]} ({types[j].name}) must have the type of {NAMES[i]} "
                             f"({types[i].name})")
    scales = [types[i].name for i in (1, 4, 6) if types[i] is not None]
    for name in scales:
        if name not in SCALE_TYPES[version]:
            raise ValueError(f"QLinearMatMul-{version}: a scale must be {' / '.join(SCALE_TYPES[version])}, not {name}")
    if len(set(scales)) > 1:
        raise ValueError(f"QLinearMatMul-{version}: a_scale, b_scale and y_scale share one type (TS), not "
                         f"{', '.join(scales)}")
    for i in (0, 3):
        if len(input_ranks) > i and input_ranks[i] == 0:
            raise ValueError(f"QLinearMatMul: {NAMES[i]} must have at least one dimension")


def check_shapes(shapes: list[tuple | None], attrs: dict, opset: int) -> None:
    """What a model must satisfy before any data, from the static shape of each input (None where unknown)."""
    shapes = list(shapes) + [None] * (8 - len(shapes))
    a, as_, az, b, bs, bz, ys, yz = shapes[:8]
    if a is not None and b is not None:
        output_shape(tuple(a), tuple(b))
        if as_ is not None and az is not None:
            quant_shape("a", tuple(a), tuple(as_), tuple(az), True)
        if bs is not None and bz is not None:
            quant_shape("b", tuple(b), tuple(bs), tuple(bz), False)
    for name, s in (("y_scale", ys), ("y_zero_point", yz)):
        if s is not None and (len(s) > 1 or int(np.prod(s)) != 1):
            raise ValueError(f"QLinearMatMul: {name} is per tensor (a scalar)")


def qlinear_matmul_node(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
    """QLinearMatMul as a graph node, for the opconform backend. Undefined elements hold placeholders."""
    if len(inputs) != 8 or any(v is None for v in inputs):
        raise ValueError("QLinearMatMul takes 8 inputs, all required")
    return list(qlinear_matmul(*inputs).outputs)


qlinear_matmul_node.validate = validate
qlinear_matmul_node.validate_shapes = check_shapes

# (domain, op) -> node function: generator.reference.lookup finds it here
NODES = {("", "QLinearMatMul"): qlinear_matmul_node}
