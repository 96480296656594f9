"""DynamicQuantizeMatMul reference (com.microsoft DynamicQuantizeMatMul-1).

Text: onnxruntime:docs/ContribOperators.md @ 8b8f7749, "com.microsoft.DynamicQuantizeMatMul": inputs A (T1 float),
B (T2 int8 / uint8), b_scale (T1), b_zero_point (T2), bias (T1); output Y (T1). The text names no quantization
of A: READING_A_QUANT reads it as DynamicQuantizeLinear-11 of the whole of A
(generator/reference/dynamic_quantize_linear.py), then Y is MatMulIntegerToFloat's scaled integer product
(generator/reference/matmul_integer_to_float.py) with that scale and zero point.
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

READING_A_QUANT = ("dqmm-a-quant: A is quantized as DynamicQuantizeLinear-11 does (uint8 asymmetric, one scale and "
                   "zero point for the whole of A, the range widened to 0); the expected Y is the product with "
                   "that A, and the bound allows half a quantization step of A times sum_k |b_k| (qerr), so an "
                   "implementation quantizing A per row, or otherwise within that step, passes")


def _inputs(inputs: list) -> list:
    return list(inputs) + [None] * (len(INPUTS) - len(inputs))


def quantized_a(a: np.ndarray) -> Outcome:
    """DynamicQuantizeLinear of A [READING_A_QUANT]: outputs (qa, a_scale, a_zero_point)."""
    return dql.dynamic_quantize_linear(np.asarray(a, dtype=np.float32))


def dot_terms(inputs: list, attrs: dict) -> tuple[np.ndarray, ...]:
    """(ref, bnd, qerr) per element of Y: ref and bnd of the scaled integer product of the quantized A
    (mitf.scaled_terms); qerr = a_scale / 2 * sum_k |(b_k - b_zp) * b_scale| [READING_A_QUANT]."""
    a, b, b_s, b_zp, bias = _inputs(inputs)
    qa, a_s, a_zp = quantized_a(a).outputs
    ref, bnd = mitf.scaled_terms(qa, b, a_s, b_s, a_zp, b_zp, bias)
    db = np.asarray(b).astype(np.int64) - (0 if b_zp is None else mitf.scale_vector(b_zp, True).astype(np.int64))
    w = np.abs(db) * np.abs(mitf.scale_vector(b_s, True))
    half_step = np.full(np.shape(a), float(a_s) / 2)
    qerr = np.matmul(half_step, w)
    return ref, bnd, qerr


# compare mode "dot" finds this family's operands here (generator.dot_bound.operands_table)
DOT_OPERANDS = (INPUTS, dot_terms)


def dynamic_quantize_matmul(inputs: list) -> Outcome:
    """Y of com.microsoft DynamicQuantizeMatMul-1 [READING_A_QUANT], float32; undefined where
    DynamicQuantizeLinear of A is (empty, NaN, zero scale)."""
    a = _inputs(inputs)[0]
    q = quantized_a(a)
    ref, _, _ = dot_terms(inputs, {})
    why = None if q.defined else dql.UNDEF_SCALE_ZERO
    return Outcome.of([ref.astype(np.float32)], why)


def validate(attrs: dict, opset: int, input_types: list, input_ranks: list) -> None:
    """A, b_scale, bias float; B, b_zero_point int8 / uint8 alike."""
    types = [t.name if t is not None else None for t in _inputs(input_types)]
    for i in (0, 2, 4):
        if types[i] is not None and types[i] != "float":
            raise ValueError(f"DynamicQuantizeMatMul: {INPUTS[i]} must be float, not {types[i]}")
    if types[1] is not None and types[1] not in ("int8", "uint8"):
        raise ValueError(f"DynamicQuantizeMatMul: B must be int8 or uint8, not {types[1]}")
    if types[3] is not None and types[3] != types[1]:
        raise ValueError("DynamicQuantizeMatMul: b_zero_point must have the type of B")


def validate_shapes(shapes: list, attrs: dict, opset: int) -> None:
    """MatMulIntegerToFloat's shapes with a per-tensor A side."""
    a, b, b_s, b_zp, bias = [None if x is None else tuple(x) for x in _inputs(shapes)]
    if None in (a, b, b_s):
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
