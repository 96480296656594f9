"""MatMulIntegerToFloat reference (com.microsoft MatMulIntegerToFloat-1), and the scaled integer product that
DynamicQuantizeMatMul (generator/reference/dynamic_quantize_matmul.py) shares.

Text: onnxruntime:docs/ContribOperators.md @ 8b8f7749, "com.microsoft.MatMulIntegerToFloat". The section has no
summary: inputs A (T1 int8 / uint8, "N-dimensional matrix A"), B (T2 int8 / uint8), a_scale, b_scale (T3 float /
float16: "Scale of quantized input 'A'. It could be a scalar or a 1-D tensor, which means a per-tensor or
per-column quantization. If it's a 1-D tensor, its number of elements should be equal to the number of columns of
input 'A'"), a_zero_point (T1), b_zero_point (T2) (alike, "default value is 0"), bias (T3, "1D input tensor, whose
dimension is same as B's last dimension"); output Y (T3, "Matrix multiply results from A * B").

Readings (case.json "reading"):
  READING_FORMULA   Y = matmul((A - a_zero_point) * a_scale, (B - b_zero_point) * b_scale) (+ bias): the product
                    of the dequantized operands, numpy.matmul's shapes (the graph onnxruntime's optimizer fuses into
                    this node: MatMulInteger -> Cast -> Mul (a_scale * b_scale) (-> Add bias), what quantize_dynamic
                    writes). The reference is exact in float64, rounded once to T3 (a_scale's type); what an
                    implementation may differ by is judged by generator/dot_bound.py through DOT_OPERANDS.
  READING_A_SCALE   a 1-D a_scale / a_zero_point "equal to the number of columns of input 'A'" (K) is per column k
                    of A: the k-th product is dequantized with the k-th scale and zero point (no integer sum then)
  READING_B_SCALE   b_scale / b_zero_point per tensor (scalar, one element) or per column of B ([N])
  READING_ACC_INT32 with a per-tensor A side the integer sum is the fused graph's MatMulInteger-10 sum, whose text
                    "The accumulation may overflow if and only if in 32 bits" leaves a sum beyond int32 undefined
                    (mi.UNDEF_ACC_INT32: the probe)
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

READING_FORMULA = ("mmitf-formula: Y = matmul((A - a_zero_point) * a_scale, (B - b_zero_point) * b_scale) (+ bias), "
                   "the product of the dequantized operands: the section has no summary; onnxruntime fuses "
                   "MatMulInteger -> Cast -> Mul (-> Add) into this node; exact, then rounded once to T3")
READING_A_SCALE = ("mmitf-a-scale: a 1-D a_scale / a_zero_point of K elements ('equal to the number of columns of "
                   "input A') is per column k of A: the k-th term is dequantized with the k-th scale and zero point")
READING_B_SCALE = ("mmitf-b-scale: b_scale / b_zero_point are per tensor (scalar, one element) or per column of B "
                   "([N], 'equal to the number of columns of input B')")
READING_ACC_INT32 = ("mmitf-acc-int32: with a per-tensor A side, the integer sum is the fused graph's MatMulInteger-10 "
                     "sum ('The accumulation may overflow if and only if in 32 bits'): a sum beyond int32 is undefined")


def _inputs(inputs: list) -> list:
    return list(inputs) + [None] * (len(INPUTS) - len(inputs))


def per_k(x) -> bool:
    """An A-side scale / zero point of more than one element (per column k of A, READING_A_SCALE)."""
    return x is not None and np.size(x) > 1


def side(s, default: float = 0.0) -> np.ndarray:
    """A scale / zero point as float64 broadcasting along the last axis (one element -> scalar; [K] / [N])."""
    if s is None:
        return np.full((), default)
    s = np.asarray(s).astype(np.float64)
    return s.reshape(()) if s.size == 1 else s


def check_shapes(a: tuple, b: tuple, a_scale: tuple, b_scale: tuple, a_zp: tuple | None = None,
                 b_zp: tuple | None = None, bias: tuple | None = None) -> None:
    """numpy.matmul's shapes (matmul_integer.check_shapes, A and B of rank 2 or more: "N-dimensional matrix") and
    the quantization parameters' forms: scalar or one element, else 1-D of K (A side, READING_A_SCALE) / N (B side,
    READING_B_SCALE) elements; bias [N]."""
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"MatMulIntegerToFloat: A {list(a)} and B {list(b)} must be matrices (rank 2 or more)")
    mi.check_shapes(a, b)
    k, n = a[-1], b[-1]
    for name, shape, length, what in (("a_scale", a_scale, k, "columns of A"), ("a_zero_point", a_zp, k, "columns of A"),
                                      ("b_scale", b_scale, n, "columns of B"), ("b_zero_point", b_zp, n, "columns of B")):
        if shape is not None and tuple(shape) not in ((), (1,), (length,)):
            raise ValueError(f"MatMulIntegerToFloat: {name} {list(shape)} is no scalar nor 1-D of the {length} "
                             f"{what}")
    if bias is not None and tuple(bias) != (n,):
        raise ValueError(f"MatMulIntegerToFloat: bias must be [N = {n}] (B's last dimension), not {list(bias)}")


def scaled_terms(a: np.ndarray, b: np.ndarray, a_scale, b_scale, a_zp=None, b_zp=None,
                 bias=None) -> tuple[np.ndarray, np.ndarray]:
    """(ref, bnd) in float64 [READING_FORMULA]: ref = sum_k (a_k - za_k) sa_k (b_k - zb) sb (+ bias), bnd =
    sum_k |(a_k - za_k) sa_k (b_k - zb) sb| (+ |bias|). With a per-tensor A side the integer sum is exact (int64)
    and scaled after; per k (READING_A_SCALE) A is dequantized first."""
    a, b = np.asarray(a), np.asarray(b)
    da = a.astype(np.int64) - side(a_zp).astype(np.int64)
    db = b.astype(np.int64) - side(b_zp).astype(np.int64)
    sa, sb = side(a_scale), side(b_scale)
    if sa.ndim:  # per column k of A
        fa = da * sa
        ref = np.matmul(fa, db.astype(np.float64)) * sb
        bnd = np.matmul(np.abs(fa), np.abs(db).astype(np.float64)) * np.abs(sb)
    else:
        ref = np.matmul(da, db).astype(np.float64) * (sa * sb)
        bnd = np.matmul(np.abs(da), np.abs(db)).astype(np.float64) * np.abs(sa * sb)
    if bias is not None:
        bias = np.asarray(bias).astype(np.float64)
        ref, bnd = ref + bias, bnd + np.abs(bias)
    return ref, bnd


def dot_terms(inputs: list, attrs: dict, a_int8_block: int | None = None) -> tuple[np.ndarray, ...]:
    """(ref, bnd, qerr) per element of Y for compare mode "dot" (generator/dot_bound.py): qerr is 0 (the integer
    operands are exact)."""
    a, b, a_s, b_s, a_zp, b_zp, bias = _inputs(inputs)
    ref, bnd = scaled_terms(a, b, a_s, b_s, a_zp, b_zp, bias)
    return ref, bnd, np.zeros_like(ref)


# compare mode "dot" finds this family's operands here (generator.dot_bound.operands_table)
DOT_OPERANDS = (INPUTS, dot_terms)


def integer_sum_undefined(a, b, a_zp, b_zp, a_scale) -> np.ndarray:
    """Per element of Y: mi.UNDEF_ACC_INT32 where the per-tensor integer sum leaves int32 [READING_ACC_INT32]."""
    if per_k(a_scale) or per_k(a_zp):
        return np.full(np.matmul(np.zeros(np.shape(a), np.int8), np.zeros(np.shape(b), np.int8)).shape, "")
    s = mi.exact(a, b, None if a_zp is None else np.asarray(a_zp).reshape(()), b_zp)
    return np.where((s < mi.INT32_MIN) | (s > mi.INT32_MAX), mi.UNDEF_ACC_INT32, "")


def matmul_integer_to_float(inputs: list) -> Outcome:
    """Y of com.microsoft MatMulIntegerToFloat-1 [READING_FORMULA]: the float64 value rounded once to T3 (the
    type of a_scale); elements whose per-tensor integer sum leaves int32 undefined [READING_ACC_INT32]."""
    a, b, a_s, b_s, a_zp, b_zp, bias = _inputs(inputs)
    ref, _ = scaled_terms(a, b, a_s, b_s, a_zp, b_zp, bias)
    with np.errstate(over="ignore"):
        y = ref.astype(np.asarray(a_s).dtype)
    return Outcome.by_element([y], integer_sum_undefined(a, b, a_zp, b_zp, a_s))


def readings(a_scale, a_zp, b_scale, b_zp, k: int) -> str:
    """case.json "reading" of a configuration: READING_FORMULA, and the forms' readings where they apply."""
    out = [READING_FORMULA]
    if per_k(a_scale) or per_k(a_zp):
        out.append(READING_A_SCALE)
    if per_k(b_scale) or per_k(b_zp):
        out.append(READING_B_SCALE)
    if not (per_k(a_scale) or per_k(a_zp)) and k * 255 * 255 > mi.INT32_MAX:
        out.append(READING_ACC_INT32)
    return "; ".join(out)


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
