"""com.microsoft QGemm-1 (onnxruntime's contrib schema), written from its text:
onnxruntime:docs/ContribOperators.md @ 8b8f7749, "com.microsoft.QGemm" (the same text as the registered schema,
onnxruntime.capi.onnxruntime_pybind11_state.get_all_operator_schema(), which adds the defaults alpha = 1.0,
transA = 0, transB = 0 and the input count 6 - 9).

    acc[m, n] = sum_k (A'[m, k] - a_zero_point) * (B'[k, n] - b_zero_point[n])   (A' = A^T if transA, B' likewise)
    x[m, n]   = alpha * a_scale * b_scale[n] * (acc[m, n] + C[m, n])
    Y         = x rounded once to float32                                        (y_scale, y_zero_point omitted)
    y         = saturate(round_half_even(x / y_scale) + y_zero_point)            (y_scale, y_zero_point given)

The text's clauses: "Quantized Gemm"; [alpha] "Scalar multiplier for the product of input tensors A * B"; [transA,
transB] "Whether A (B) should be transposed"; [A] "(M, K) if transA is 0, or (K, M) if transA is non-zero"; [B]
"(K, N) if transB is 0, or (N, K)"; [a_scale] "a scalar, which means a per-tensor quantization"; [a_zero_point]
"It is a scalar"; [b_scale, b_zero_point] "a scalar or a 1-D tensor, which means a per-tensor or per-column
quantization ... its number of elements should be equal to the number of columns of input 'B'"; [C] "If not
specified, the computation is done as if C is a scalar 0. The shape of C should be unidirectional broadcastable to
(M, N). Its type is int32_t and must be quantized with zero_point = 0 and scale = alpha / beta * a_scale * b_scale";
[y_scale, y_zero_point] "a scalar ... It is optional. The output is full precision(float32) if it is not provided.
Or the output is quantized"; [Y] "Output tensor of shape (M, N)"; types T float, TA / TB / TYZ uint8 / int8, TC int32,
TY float / uint8 / int8.

Where the text is silent, the readings below (case.json "reading"; docs/qgemm.md). Expected values of the
quantized output are exact (requantize.py's requantization); those of the float output are judged within a
dot-product bound (DOT_OPERANDS, generator/dot_bound.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd, isfinite

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference.requantize import INT32_MAX, INT32_MIN, requantize

SPEC_FILE = "onnxruntime:docs/ContribOperators.md"
CLAUSE = "com.microsoft.QGemm: Attributes (alpha, transA, transB), Inputs (A .. y_zero_point), Outputs, Type " \
         "Constraints"
DOMAIN = "com.microsoft"
DOMAIN_OPSET = 1
INPUTS = ("A", "a_scale", "a_zero_point", "B", "b_scale", "b_zero_point", "C", "y_scale", "y_zero_point")
INT_TYPES = ("uint8", "int8")
DEFAULTS = {"alpha": 1.0, "transA": 0, "transB": 0}  # the registered schema's defaults (the Markdown gives none)

READING_FORMULA = (
    "qgemm-formula: x = alpha * a_scale * b_scale[n] * (acc + C), acc = sum_k (A'[m, k] - a_zero_point) * (B'[k, n] - "
    "b_zero_point[n]) with A' = A^T where transA is non-zero (B' likewise), acc exact. The text gives no formula: "
    "'Quantized Gemm' and alpha 'Scalar multiplier for the product of input tensors A * B' are read as Gemm's "
    "alpha * A' B' + beta * C on the dequantized operands, C dequantized at its stated 'zero_point = 0 and scale = "
    "alpha / beta * a_scale * b_scale'; QGemm has no beta attribute: beta = 1 (Gemm's default), so alpha multiplies "
    "C's contribution too, and C is added to the integer acc before any scaling [alpha, C]")
READING_REQUANT = (
    "qgemm-requantization: with y_scale and y_zero_point given, y = saturate(round_half_even(x / y_scale) + "
    "y_zero_point): alpha multiplies before the one requantization (the multiplier alpha * a_scale * b_scale[n] / "
    "y_scale is the exact product of the float32 values, rounded once), ties to even (ONNX QuantizeLinear's "
    "rounding), y_zero_point added after rounding, saturated to y_zero_point's type (TYZ); the text names none of "
    "these steps ('Or the output is quantized') [y_scale, y_zero_point]. A float32, float64 or fixed-point "
    "multiplier is another reading: it differs only within that arithmetic's error of a half-integer")
READING_FLOAT = (
    "qgemm-float-output: with y_scale and y_zero_point omitted, Y is x in float32 ('full precision(float32)'); the "
    "order of the float operations (alpha * a_scale * b_scale, times float(acc + C)) is not given: Y is judged within "
    "a dot-product bound of a few float32 roundings of sum_k |da db| + |C| scaled [y_scale]")
READING_PER_COLUMN = (
    "qgemm-per-column: a 1-D b_scale / b_zero_point has one element per column of Y, N: 'the number of columns of "
    "input B' read of B' (B [N, K] with transB = 1 has N columns after the transpose, as onnxruntime's quantizer "
    "writes per-channel Gemm weights); b_scale and b_zero_point are each per tensor or per column on their own; a "
    "one-element 1-D one is per tensor [b_scale, b_zero_point]")
READING_ONE_ELEMENT = ("qgemm-one-element: a scale or zero point the text calls 'a scalar' may be 0-D or of shape [1] "
                       "(one value) [a_scale, a_zero_point, y_scale, y_zero_point]")
READING_OUTPUT_PAIR = (
    "qgemm-output-pair: y_scale and y_zero_point are given together (quantized y of y_zero_point's type) or omitted "
    "together (float32 Y); the text says of each 'The output is full precision(float32) if it is not provided', "
    "so one without the other names no output type and is read as invalid [y_scale, y_zero_point]")
READING_B_ZERO_POINT = (
    "qgemm-b-zero-point: b_zero_point is the sixth input and the input count is 6 - 9, so it is given; the text's "
    "'It's optional and default value is 0' is not exercised (no case omits it) [b_zero_point, Inputs (6 - 9)]")
UNDEF_ACC_INT32 = ("acc or acc + C leaves int32: C is an int32 at the accumulator's scale (zero point 0), so the sum is "
                   "an int32 accumulation, and the text does not say what its overflow gives [C]")
UNDEF_SCALE = ("a scale is not a positive finite number, or alpha is not finite: the dequantized product and x / "
               "y_scale have no meaning the text gives [a_scale, b_scale, y_scale, alpha]")


def readings(quantized: bool, per_column: bool) -> list[str]:
    """The readings every judged output of a QGemm configuration rests on."""
    return [READING_FORMULA, READING_REQUANT if quantized else READING_FLOAT, READING_ONE_ELEMENT,
            READING_B_ZERO_POINT] + ([READING_PER_COLUMN] if per_column else [])


def _inputs(inputs: list) -> list:
    return list(inputs) + [None] * (len(INPUTS) - len(inputs))


def attributes(attrs: dict) -> tuple[float, bool, bool]:
    """(alpha as float32, transA, transB) with the schema's defaults."""
    return (float(np.float32(attrs.get("alpha", DEFAULTS["alpha"]))), bool(attrs.get("transA", 0)),
            bool(attrs.get("transB", 0)))


def check_shapes(shapes: list, attrs: dict) -> tuple[int, int, int]:
    """(M, K, N); ValueError for shapes the text rules out: A and B 2-D with K agreeing after the transposes, the
    'scalar' inputs one value (READING_ONE_ELEMENT), b_scale / b_zero_point one value or [N] (READING_PER_COLUMN), C
    unidirectionally broadcastable to (M, N) [A, B, a_scale .. y_zero_point]."""
    a, as_, az, b, bs, bz, c, ys, yz = (None if s is None else tuple(s) for s in _inputs(shapes))
    _, ta, tb = attributes(attrs)
    if a is None or b is None or len(a) != 2 or len(b) != 2:
        raise ValueError(f"QGemm: A {a} and B {b} must be 2-D ((M, K) / (K, N), transposed as transA / transB say)")
    m, k = (a[1], a[0]) if ta else a
    kb, n = (b[1], b[0]) if tb else b
    if k != kb:
        raise ValueError(f"QGemm: A {list(a)} (transA {int(ta)}) has K = {k}, B {list(b)} (transB {int(tb)}) has {kb}")
    for name, s in (("a_scale", as_), ("a_zero_point", az), ("y_scale", ys), ("y_zero_point", yz)):
        if s is not None and s not in ((), (1,)):
            raise ValueError(f"QGemm: {name} is a scalar (per tensor), not {list(s)}")
    for name, s in (("b_scale", bs), ("b_zero_point", bz)):
        if s is not None and s not in ((), (1,), (n,)):
            raise ValueError(f"QGemm: {name} {list(s)} is neither a scalar nor [N = {n}] (per column)")
    if c is not None and (len(c) > 2 or any(d not in (1, full) for d, full in zip(c[::-1], (n, m)))):
        raise ValueError(f"QGemm: C {list(c)} is not unidirectionally broadcastable to (M, N) = ({m}, {n})")
    if (ys is None) != (yz is None):
        raise ValueError("QGemm: y_scale and y_zero_point are given together or not at all (READING_OUTPUT_PAIR)")
    return m, k, n


@dataclass
class Operands:
    """The inputs as the formula reads them: A' [M, K] and B' [K, N] (int64), the zero points and scales broadcasting
    against [M, N] (per column: [N]), C broadcast to [M, N] (int64; zeros when omitted), alpha, y's scale, zero point
    and type (None: float32 output)."""
    a: np.ndarray
    a_zero_point: int
    a_scale: float
    b: np.ndarray
    b_zero_point: np.ndarray
    b_scale: np.ndarray
    c: np.ndarray
    alpha: float
    y_scale: float | None
    y_zero_point: int
    y_type: DType | None


def operands(inputs: list, attrs: dict) -> Operands:
    a, a_s, a_zp, b, b_s, b_zp, c, y_s, y_zp = _inputs(inputs)
    m, _, n = check_shapes([None if v is None else np.shape(v) for v in (a, a_s, a_zp, b, b_s, b_zp, c, y_s, y_zp)],
                           attrs)
    alpha, ta, tb = attributes(attrs)
    a2 = np.asarray(a).astype(np.int64)
    b2 = np.asarray(b).astype(np.int64)
    a2, b2 = a2.T if ta else a2, b2.T if tb else b2
    cc = np.zeros((m, n), np.int64) if c is None else np.broadcast_to(np.asarray(c).astype(np.int64), (m, n))
    bz = np.asarray(0 if b_zp is None else b_zp).astype(np.int64).reshape(-1)
    bs = np.asarray(b_s).astype(np.float64).reshape(-1)
    return Operands(a2, int(np.asarray(a_zp).astype(np.int64).reshape(-1)[0]),
                    float(np.asarray(a_s, np.float64).reshape(-1)[0]), b2, bz if bz.size > 1 else bz.reshape(()),
                    bs if bs.size > 1 else bs.reshape(()), cc, alpha,
                    None if y_s is None else float(np.asarray(y_s, np.float64).reshape(-1)[0]),
                    0 if y_zp is None else int(np.asarray(y_zp).astype(np.int64).reshape(-1)[0]),
                    None if y_zp is None else dtypes.from_numpy(np.asarray(y_zp).dtype))


def accumulate(op: Operands) -> np.ndarray:
    """acc = (A' - a_zero_point) @ (B' - b_zero_point), exact in int64 (|terms| <= 255**2: K below 2**47)."""
    return np.matmul(op.a - op.a_zero_point, op.b - op.b_zero_point).astype(np.int64)


def int32_outside(acc: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Where acc or acc + C leaves int32 (UNDEF_ACC_INT32)."""
    return (acc < INT32_MIN) | (acc > INT32_MAX) | (total < INT32_MIN) | (total > INT32_MAX)


def scales_valid(op: Operands) -> bool:
    values = [op.a_scale, *np.reshape(op.b_scale, -1).tolist()] + ([] if op.y_scale is None else [op.y_scale])
    return all(isfinite(v) and v > 0 for v in values) and isfinite(op.alpha)


def multiplier(alpha: float, a_scale: float, b_scale: float, y_scale: float) -> tuple[int, int]:
    """alpha * a_scale * b_scale / y_scale of float32 values as an exact reduced fraction (numerator, denominator;
    the sign in the numerator)."""
    (an, ad), (xn, xd), (wn, wd), (yn, yd) = (float(v).as_integer_ratio() for v in (alpha, a_scale, b_scale, y_scale))
    num, den = an * xn * wn * yd, ad * xd * wd * yn
    g = gcd(num, den) or 1
    return num // g, den // g


def column_multipliers(op: Operands, alpha: float | None = None) -> list[tuple[int, int]]:
    """The exact multiplier of each of the N output columns (requantize reads one per channel)."""
    alpha = op.alpha if alpha is None else alpha
    n = op.c.shape[1]
    unique = {s: multiplier(alpha, op.a_scale, s, op.y_scale) for s in np.reshape(op.b_scale, -1).tolist()}
    return [unique[s] for s in np.broadcast_to(np.asarray(op.b_scale), (n,)).tolist()]


def requantized(total: np.ndarray, op: Operands, alpha: float | None = None) -> np.ndarray:
    """y of the exact int acc + C (int32 values) [READING_REQUANT]."""
    bound = max(1, int(np.abs(total).max(initial=0)))
    return requantize(total, column_multipliers(op, alpha), op.y_zero_point, op.y_type, min(bound, 2**31))


def real_value(total: np.ndarray, op: Operands) -> np.ndarray:
    """x = alpha * a_scale * b_scale * (acc + C) in float64 (within 2**-50 of the exact value, relatively)."""
    s = np.float64(op.alpha) * np.float64(op.a_scale) * np.asarray(op.b_scale, np.float64)
    return total.astype(np.float64) * s


def qgemm(inputs: list, attrs: dict) -> Outcome:
    """QGemm [READING_FORMULA]: Y (M, N), float32 where y_scale / y_zero_point are omitted, else y_zero_point's type;
    elements whose acc or acc + C leaves int32 are undefined (UNDEF_ACC_INT32), every element where a scale or alpha
    is invalid (UNDEF_SCALE). Raises ValueError for shapes the text rules out."""
    op = operands(inputs, attrs)
    m, n = op.c.shape
    out_type = np.float32 if op.y_type is None else op.y_type.np_dtype
    if not scales_valid(op):
        return Outcome((np.zeros((m, n), out_type),), {UNDEF_SCALE: np.ones((m, n), bool)})
    acc = accumulate(op)
    total = acc + op.c
    outside = int32_outside(acc, total)
    total = np.where(outside, 0, total)
    y = real_value(total, op).astype(np.float32) if op.y_type is None else requantized(total, op)
    return Outcome((y,), {UNDEF_ACC_INT32: outside} if outside.any() else {})


def compare_node(attrs: dict) -> dict:
    """The node's attributes as a "dot" compare spec carries them (integers only, generator/case_fields.py): alpha as
    the bits of its float32 value ("alpha_bits")."""
    out = {k: int(v) for k, v in attrs.items() if k != "alpha"}
    if "alpha" in attrs:
        out["alpha_bits"] = int(np.float32(attrs["alpha"]).view(np.uint32))
    return out


def node_attrs(node: dict) -> dict:
    """compare_node's integers back as the node's attributes."""
    out = {k: v for k, v in node.items() if k != "alpha_bits"}
    if "alpha_bits" in node:
        out["alpha"] = float(np.uint32(node["alpha_bits"]).view(np.float32))
    return out


def dot_terms(inputs: list, node: dict, a_int8_block=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ref, bnd, qerr) per element of the float output for compare mode "dot" (node: compare_node's form of the
    attributes): ref = x in float64, bnd = |alpha * a_scale * b_scale| * (sum_k |da db| + |C|), qerr = 0 (the integer
    sum is exact)."""
    op = operands(_inputs(inputs), node_attrs(node))
    acc = accumulate(op)
    total = acc + op.c
    mag = np.matmul(np.abs(op.a - op.a_zero_point), np.abs(op.b - op.b_zero_point)) + np.abs(op.c)
    s = np.abs(np.float64(op.alpha) * np.float64(op.a_scale) * np.asarray(op.b_scale, np.float64))
    return real_value(total, op), mag.astype(np.float64) * s, np.zeros(total.shape)


# compare mode "dot" finds this family's operands here (generator.dot_bound.operands_table)
DOT_OPERANDS = (INPUTS, dot_terms)


def validate(attrs: dict, opset: int, input_types: list, input_ranks: list) -> None:
    """The type constraints [T, TA, TB, TC, TYZ] and the input count (6 - 9): A / a_zero_point one of uint8 / int8
    (TA), B / b_zero_point likewise (TB), the scales float, C int32, y_zero_point uint8 / int8; y_scale and
    y_zero_point together (READING_OUTPUT_PAIR); transA / transB 0 or 1."""
    if not 6 <= len(input_types) <= 9:
        raise ValueError(f"QGemm takes 6 to 9 inputs, got {len(input_types)}")
    types = [None if t is None else t.name for t in _inputs(input_types)]
    for i in (0, 1, 2, 3, 4):
        if types[i] is None:
            raise ValueError(f"QGemm: {INPUTS[i]} is required")
    for i, j in ((0, 2), (3, 5)):
        if types[i] not in INT_TYPES:
            raise ValueError(f"QGemm: {INPUTS[i]} must be uint8 or int8, not {types[i]}")
        if types[j] is not None and types[j] != types[i]:
            raise ValueError(f"QGemm: {INPUTS[j]} ({types[j]}) must have the type of {INPUTS[i]} ({types[i]})")
    for i in (1, 4, 7):
        if types[i] is not None and types[i] != "float":
            raise ValueError(f"QGemm: {INPUTS[i]} must be float (T), not {types[i]}")
    if types[6] is not None and types[6] != "int32":
        raise ValueError(f"QGemm: C must be int32 (TC), not {types[6]}")
    if types[8] is not None and types[8] not in INT_TYPES:
        raise ValueError(f"QGemm: y_zero_point must be uint8 or int8 (TYZ), not {types[8]}")
    if (types[7] is None) != (types[8] is None):
        raise ValueError("QGemm: y_scale and y_zero_point are given together or not at all (READING_OUTPUT_PAIR)")
    for name in ("transA", "transB"):
        if attrs.get(name, 0) not in (0, 1):
            raise ValueError(f"QGemm: {name} is 0 or 1 here, not {attrs.get(name)}")
    for i in (0, 3):
        if len(input_ranks) > i and input_ranks[i] is not None and input_ranks[i] != 2:
            raise ValueError(f"QGemm: {INPUTS[i]} must be 2-D")


def validate_shapes(shapes: list, attrs: dict, opset: int) -> None:
    """check_shapes, where A's and B's dimensions are all known."""
    s = [None if x is None else tuple(x) for x in _inputs(shapes)]
    if s[0] is None or s[3] is None or any(x is not None and not all(isinstance(d, int) for d in x) for x in s):
        return
    check_shapes(s, attrs)


def qgemm_node(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list[DType]) -> list[np.ndarray]:
    """com.microsoft QGemm-1 as a graph node (undefined elements hold placeholders)."""
    return list(qgemm(inputs, attrs).outputs)


qgemm_node.validate = validate
qgemm_node.validate_shapes = validate_shapes
NODES = {(DOMAIN, "QGemm"): qgemm_node}
