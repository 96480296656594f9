"""DynamicQuantizeMatMul reference (com.microsoft DynamicQuantizeMatMul-1).

Text: onnxruntime:docs/ContribOperators.md @ 8b8f7749, "com.microsoft.DynamicQuantizeMatMul". The section has no
summary: inputs A (T1 float, "N-dimensional matrix A"), B (T2 int8 / uint8), b_scale (T1, "a scalar or a 1-D
tensor, which means a per-tensor or per-column quantization"), b_zero_point (T2, "default value is 0", alike),
bias (T1, "1D input tensor, whose dimension is same as B's last dimension"); output Y (T1, "Matrix multiply
results from A * B"). The text names no quantization of A; the operator's name does, and onnxruntime's optimizer
fuses DynamicQuantizeLinear(A) -> MatMulInteger -> Cast -> Mul (-> Add) into it.

Readings (case.json "reading"):
  READING_A_QUANT  A is quantized as DynamicQuantizeLinear-11 does (generator/reference/dynamic_quantize_linear.py:
                   uint8, one scale and zero point for the whole of A, its range widened to include 0); Y is
                   MatMulIntegerToFloat's scaled product (generator/reference/matmul_integer_to_float.py) of that A.
                   Since the text's "results from A * B" is the float product, an implementation that does not
                   quantize A passes too: the bound's qerr is, per term, |a_k - dequantized a_k| * |w_k|, what
                   DynamicQuantizeLinear's rounding moved a_k by (a whole step where a_k / scale lies within
                   TIE_WINDOW of a rounding tie: a kernel's scale may differ from ours in its last bit). A on the
                   quantization grid has qerr 0: every other deviation (per-row or symmetric int8 quantization of
                   A, a range not widened to 0) is held to the tight bound.
  Undefined (probe): where DynamicQuantizeLinear of A is (A all zeros: scale 0; NaN in A; A empty).
"""

from __future__ import annotations

import numpy as np

from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference import dynamic_quantize_linear as dql
from generator.reference import matmul_integer_to_float as mitf

SPEC_FILE = "onnxruntime:docs/ContribOperators.md"
CLAUSE = "com.microsoft.DynamicQuantizeMatMul: Inputs (A, B, b_scale, b_zero_point, bias)"
DOMAIN = "com.microsoft"
DOMAIN_OPSET = 1
INPUTS = ("A", "B", "b_scale", "b_zero_point", "bias")
TIE_WINDOW = 2.0 ** -12  # of a step: a / scale this close to k + 1/2 may round either way (module docstring)

READING_A_QUANT = ("dqmm-a-quant: A is quantized as DynamicQuantizeLinear-11 does (uint8, one scale and zero point "
                   "for the whole of A, the range widened to 0), then MatMulIntegerToFloat's scaled product; the "
                   "bound adds per term |a_k - dequantized a_k| * |w_k| (a whole step at a rounding tie), so the "
                   "unquantized float product passes too: the text ('results from A * B') names no quantization")


def _inputs(inputs: list) -> list:
    return list(inputs) + [None] * (len(INPUTS) - len(inputs))


def quantized_a(a: np.ndarray) -> Outcome:
    """DynamicQuantizeLinear of A [READING_A_QUANT]: outputs (qa, a_scale, a_zero_point)."""
    return dql.dynamic_quantize_linear(np.asarray(a, dtype=np.float32))


def weights(b, b_s, b_zp) -> np.ndarray:
    """(B - b_zero_point) * b_scale in float64, per tensor or per column of B."""
    return (np.asarray(b).astype(np.int64) - mitf.side(b_zp).astype(np.int64)) * mitf.side(b_s)


def requantization_error(a: np.ndarray, qa: np.ndarray, a_s, a_zp) -> np.ndarray:
    """Per element of A, float64: |a - (qa - zp) * scale|, or one step where a / scale is within TIE_WINDOW of a
    rounding tie [READING_A_QUANT]."""
    a64 = np.asarray(a, dtype=np.float64)
    scale = float(a_s)
    dq = (qa.astype(np.float64) - float(a_zp)) * scale
    frac = np.abs(np.mod(a64 / scale, 1.0) - 0.5) if scale > 0 else np.ones_like(a64)
    return np.where(frac <= TIE_WINDOW, scale, np.abs(a64 - dq))


def dot_terms(inputs: list, attrs: dict, a_int8_block: int | None = None) -> tuple[np.ndarray, ...]:
    """(ref, bnd, qerr) per element of Y: ref = the scaled integer product of DynamicQuantizeLinear(A)
    (mitf.scaled_terms); bnd = sum_k max(|a_k|, |dq a_k|) |w_k| (+ |bias|); qerr = sum_k err_k |w_k|, err_k the
    requantization_error of a_k [READING_A_QUANT]. Undefined A (dql's reasons): zeros for ref, bnd and qerr."""
    a, b, b_s, b_zp, bias = _inputs(inputs)
    q = quantized_a(a)
    if not q.defined:
        shape = np.matmul(np.zeros(np.shape(a)), np.zeros(np.shape(b))).shape
        return np.zeros(shape), np.zeros(shape), np.zeros(shape)
    qa, a_s, a_zp = q.outputs
    ref, _ = mitf.scaled_terms(qa, b, a_s, b_s, a_zp, b_zp, bias)
    w = np.abs(weights(b, b_s, b_zp))
    dq = (qa.astype(np.float64) - float(a_zp)) * float(a_s)
    bnd = np.matmul(np.maximum(np.abs(np.asarray(a, np.float64)), np.abs(dq)), w)
    if bias is not None:
        bnd = bnd + np.abs(np.asarray(bias, np.float64))
    qerr = np.matmul(requantization_error(a, qa, a_s, a_zp), w)
    return ref, bnd, qerr


# compare mode "dot" finds this family's operands here (generator.dot_bound.operands_table)
DOT_OPERANDS = (INPUTS, dot_terms)


def dynamic_quantize_matmul(inputs: list) -> Outcome:
    """Y of com.microsoft DynamicQuantizeMatMul-1 [READING_A_QUANT], float32; undefined where
    DynamicQuantizeLinear of A is (empty, NaN, zero scale: its reasons)."""
    a = _inputs(inputs)[0]
    q = quantized_a(a)
    ref, _, _ = dot_terms(inputs, {})
    return Outcome.of([ref.astype(np.float32)], None if q.defined else q.reasons[0])


def validate(attrs: dict, opset: int, input_types: list, input_ranks: list) -> None:
    """T1 (A, b_scale, bias, Y) float; T2 (B, b_zero_point) int8 / uint8 alike."""
    types = [t.name if t is not None else None for t in _inputs(input_types)]
    for i in (0, 2, 4):
        if types[i] is not None and types[i] != "float":
            raise ValueError(f"DynamicQuantizeMatMul: {INPUTS[i]} must be float, not {types[i]}")
    if types[1] is not None and types[1] not in ("int8", "uint8"):
        raise ValueError(f"DynamicQuantizeMatMul: B must be int8 or uint8, not {types[1]}")
    if types[3] is not None and types[3] != types[1]:
        raise ValueError("DynamicQuantizeMatMul: b_zero_point must have the type of B")


def validate_shapes(shapes: list, attrs: dict, opset: int) -> None:
    """MatMulIntegerToFloat's shapes with a per-tensor A side (one scale and zero point for A)."""
    a, b, b_s, b_zp, bias = [None if x is None else tuple(x) for x in _inputs(shapes)]
    if None in (a, b, b_s) or any(not all(isinstance(d, int) for d in x) for x in (a, b, b_s)):
        return
    mitf.check_shapes(a, b, (), b_s, None, b_zp, bias)


def dynamic_quantize_matmul_node(inputs: list[np.ndarray], attrs: dict, opset: int,
                                 input_types: list[DType]) -> list[np.ndarray]:
    """com.microsoft DynamicQuantizeMatMul-1 as a graph node."""
    validate_shapes([None if x is None else np.shape(x) for x in _inputs(inputs)], attrs, opset)
    return list(dynamic_quantize_matmul(inputs).outputs)


dynamic_quantize_matmul_node.validate = validate
dynamic_quantize_matmul_node.validate_shapes = validate_shapes
NODES = {(DOMAIN, "DynamicQuantizeMatMul"): dynamic_quantize_matmul_node}
