"""MatMulIntegerToFloat reference (com.microsoft MatMulIntegerToFloat-1), and the scaled integer product that
DynamicQuantizeMatMul (generator/reference/dynamic_quantize_matmul.py) shares.

Text: onnxruntime:docs/ContribOperators.md @ 8b8f7749, "com.microsoft.MatMulIntegerToFloat": "Matrix product that
behaves like numpy.matmul ... The production MUST never overflow. The accumulation may overflow if and only if in
32 bits." Inputs A (T1 int8 / uint8), B (T2 int8 / uint8), a_scale, b_scale (T3 float / float16), a_zero_point
(T1), b_zero_point (T2), bias (T3, [N]); output Y (T3).

Y = (A - a_zero_point) @ (B - b_zero_point) * a_scale * b_scale (+ bias) (READING_FORMULA). The integer product
is generator/reference/matmul_integer.py's exact sum; the scaling and bias are exact in float64 here and Y is
rounded once to T3; what an implementation may differ by (float32 rounding of the scale product, of the product
times the sum, of the bias addition) is judged by generator/dot_bound.py through DOT_OPERANDS.
"""

from __future__ import annotations

import numpy as np

from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference import matmul_integer as mi

SPEC_FILE = "onnxruntime:docs/ContribOperators.md"
CLAUSE = "com.microsoft.MatMulIntegerToFloat: Inputs (A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias)"
DOMAIN = "com.microsoft"
DOMAIN_OPSET = 1
T3_TYPES = ("float", "float16")  # dtypes names (float: float32)
INPUTS = ("A", "B", "a_scale", "b_scale", "a_zero_point", "b_zero_point", "bias")

READING_FORMULA = ("mmitf-formula: Y = (A - a_zero_point) @ (B - b_zero_point) * a_scale * b_scale (+ bias), "
                   "the integer sum exact (int32 accumulation), the scale multiplication per element after it: "
                   "the text names the inputs but gives no formula nor the order of the float operations")
READING_A_SCALE = ("mmitf-a-scale: a_scale and a_zero_point are per tensor (a scalar or one element); the text's "
                   "1-D form 'number of elements equal to the number of columns of input A' (K values, one per k) "
                   "cannot be factored out of the integer sum and is read as invalid, as is a per-row [M] one "
                   "(onnxruntime's CPU kernel requires a scalar a_scale)")
READING_B_SCALE = ("mmitf-b-scale: b_scale / b_zero_point are per tensor (scalar, one element) or per column of B "
                   "([N] for a 2-D B), like MatMulInteger's b_zero_point")


def scale_vector(s: np.ndarray | None, per_column: bool) -> np.ndarray:
    """A scale / zero point as float64 broadcasting against Y: one element -> scalar; [N] per column."""
    if s is None:
        return np.zeros(())
    s = np.asarray(s).astype(np.float64)
    if s.size == 1:
        return s.reshape(())
    if not per_column:
        raise ValueError("MatMulIntegerToFloat: a_scale / a_zero_point must be per tensor (READING_A_SCALE)")
    return s


def check_shapes(a: tuple, b: tuple, a_scale: tuple, b_scale: tuple, a_zp: tuple | None = None,
                 b_zp: tuple | None = None, bias: tuple | None = None) -> None:
    """MatMulInteger's shapes (generator.reference.matmul_integer.check_shapes) with a per-tensor A side
    (READING_A_SCALE) and a per-tensor or [N] B side (READING_B_SCALE); bias [N]."""
    mi.check_shapes(a, b)
    n = b[-1] if len(b) > 1 else 1
    for name, shape in (("a_scale", a_scale), ("a_zero_point", a_zp)):
        if shape is not None and tuple(shape) not in ((), (1,)):
            raise ValueError(f"MatMulIntegerToFloat: {name} {list(shape)} is not per tensor (READING_A_SCALE)")
    for name, shape in (("b_scale", b_scale), ("b_zero_point", b_zp)):
        if shape is not None and tuple(shape) not in ((), (1,), (n,)):
            raise ValueError(f"MatMulIntegerToFloat: {name} {list(shape)} is not per tensor nor [N = {n}]")
    if bias is not None and tuple(bias) != (n,):
        raise ValueError(f"MatMulIntegerToFloat: bias must be [N = {n}], not {list(bias)}")


def scaled_terms(a: np.ndarray, b: np.ndarray, a_scale, b_scale, a_zp=None, b_zp=None,
                 bias=None) -> tuple[np.ndarray, np.ndarray]:
    """(ref, bnd) in float64: ref = exact int sum * a_scale * b_scale (+ bias), bnd = sum_k |da_k db_k| *
    |a_scale b_scale| (+ |bias|): the float32 rounding of the scale product, of the product with the sum and
    of the bias addition each lie within eps * bnd [READING_FORMULA]."""
    a, b = np.asarray(a), np.asarray(b)
    s = scale_vector(a_scale, per_column=False) * scale_vector(b_scale, per_column=True)
    da = a.astype(np.int64) - (0 if a_zp is None else scale_vector(a_zp, False).astype(np.int64))
    db = b.astype(np.int64) - (0 if b_zp is None else scale_vector(b_zp, True).astype(np.int64))
    ref = np.matmul(da, db).astype(np.float64) * s
    bnd = np.matmul(np.abs(da), np.abs(db)).astype(np.float64) * np.abs(s)
    if bias is not None:
        bias = np.asarray(bias).astype(np.float64)
        ref, bnd = ref + bias, bnd + np.abs(bias)
    return ref, bnd


def _inputs(inputs: list) -> list:
    return list(inputs) + [None] * (len(INPUTS) - len(inputs))


def dot_terms(inputs: list, attrs: dict) -> tuple[np.ndarray, ...]:
    """(ref, bnd, qerr) per element of Y for compare mode "dot": qerr is 0 (the integer sum is exact)."""
    a, b, a_s, b_s, a_zp, b_zp, bias = _inputs(inputs)
    ref, bnd = scaled_terms(a, b, a_s, b_s, a_zp, b_zp, bias)
    return ref, bnd, np.zeros_like(ref)


# compare mode "dot" finds this family's operands here (generator.dot_bound.operands_table)
DOT_OPERANDS = (INPUTS, dot_terms)


def matmul_integer_to_float(inputs: list) -> Outcome:
    """Y of com.microsoft MatMulIntegerToFloat-1 [READING_FORMULA]: the float64 value rounded once to T3 (the
    type of a_scale); elements whose exact sum leaves int32 undefined ("The accumulation may overflow if and only
    if in 32 bits")."""
    a, b, a_s, b_s, a_zp, b_zp, bias = _inputs(inputs)
    ref, _ = scaled_terms(a, b, a_s, b_s, a_zp, b_zp, bias)
    s = mi.exact(a, b, None if a_zp is None else np.asarray(a_zp).reshape(()),
                 b_zp if b_zp is None or np.size(b_zp) > 1 else np.asarray(b_zp).reshape(()))
    why = np.where((s < mi.INT32_MIN) | (s > mi.INT32_MAX), mi.UNDEF_ACC_INT32, "")
    return Outcome.by_element([ref.astype(np.asarray(a_s).dtype)], why)


def validate(attrs: dict, opset: int, input_types: list, input_ranks: list) -> None:
    """T1 (A, a_zero_point) and T2 (B, b_zero_point) int8 / uint8; T3 (a_scale, b_scale, bias, Y) float or
    float16, one type."""
    types = [t.name if t is not None else None for t in _inputs(input_types)]
    for i, j in ((0, 4), (1, 5)):
        if types[i] is not None and types[i] not in mi.INPUT_TYPES:
            raise ValueError(f"MatMulIntegerToFloat: {INPUTS[i]} must be int8 or uint8, not {types[i]}")
        if types[j] is not None and types[j] != types[i]:
            raise ValueError(f"MatMulIntegerToFloat: {INPUTS[j]} must have the type of {INPUTS[i]}")
    t3 = types[2]
    if t3 not in T3_TYPES:
        raise ValueError(f"MatMulIntegerToFloat: a_scale must be one of {T3_TYPES}, not {t3}")
    for i in (3, 6):
        if types[i] is not None and types[i] != t3:
            raise ValueError(f"MatMulIntegerToFloat: {INPUTS[i]} must be {t3}, not {types[i]}")


def validate_shapes(shapes: list, attrs: dict, opset: int) -> None:
    """check_shapes, where every dimension is known."""
    s = [None if x is None else tuple(x) for x in _inputs(shapes)]
    if any(x is not None and not all(isinstance(d, int) for d in x) for x in s) or None in s[:4]:
        return
    check_shapes(*s)


def matmul_integer_to_float_node(inputs: list[np.ndarray], attrs: dict, opset: int,
                                 input_types: list[DType]) -> list[np.ndarray]:
    """com.microsoft MatMulIntegerToFloat-1 as a graph node."""
    i = _inputs(inputs)
    check_shapes(*[None if x is None else np.shape(x) for x in i])
    return list(matmul_integer_to_float(inputs).outputs)


matmul_integer_to_float_node.validate = validate
matmul_integer_to_float_node.validate_shapes = validate_shapes
NODES = {(DOMAIN, "MatMulIntegerToFloat"): matmul_integer_to_float_node}
