"""Expectations of short operator chains that graph optimizers rewrite, composed from the operators' references.

A chain's result is each operator's reference applied in turn (the ONNX graph semantics: a node computes its
outputs from its inputs; no rewrite may change them), so a chain holds exactly the defined results of its steps:
an element undefined in one step (float -> int out of range: Cast.txt) is undefined in the chain's output.

  cast_chain            Cast -> Cast -> ...             (generator.reference.cast)
  qdq                   QuantizeLinear -> DequantizeLinear  (generator.reference.quantize_linear / dequantize_linear)
  dq_conv_q             DequantizeLinear (x, w) -> Conv -> QuantizeLinear  (dequantize_linear, layout_kernels.conv,
                        quantize_linear); the float Conv is checked to be exact in float32 whatever the order of
                        its sums (conv_is_exact), so the composed result is the one any correct kernel gives
  dql_matmul_integer    DynamicQuantizeLinear -> MatMulInteger  (dynamic_quantize_linear, matmul_integer)
  dql_matmul_integer_scaled   ... -> Cast -> Mul (a_scale * b_scale) (-> Add bias): the float result
  qop_chain             DequantizeLinear (each operand) -> Add / Mul / Sigmoid / AveragePool / Concat ->
                        QuantizeLinear: what onnxruntime fuses into com.microsoft QLinearAdd, ...; the float operator
                        is float_ops.py's row, each element the range any float32 evaluation gives (qlinear_ops.bounds:
                        exact where every term is a multiple of one power of two)
  gemm_chain            DequantizeLinear (A, B, C) -> Gemm -> QuantizeLinear (QGemm): dq_op_q.bounds' Gemm chain

Each chain has a `*_readings` companion: the readings (docs/readings.md) its steps' references name for the
elements that stay defined in the chain's output (Cast's READING_*, QuantizeLinear's, DynamicQuantizeLinear's),
which the family writes into case.json "reading".

This module has no node functions: a chain runs node by node on the opconform backend with each operator's own.
"""

from __future__ import annotations

import numpy as np

from generator.outcome import Outcome
from generator.reference import cast as cast_ref
from generator.reference import dynamic_quantize_linear as dql_ref
from generator.reference.dequantize_linear import dequantize_linear
from generator.reference.dynamic_quantize_linear import dynamic_quantize_linear
from generator.reference.layout_kernels import conv
from generator.reference.matmul_integer import matmul_integer
from generator.reference.quantize_linear import quantize_linear, quantize_linear_explained


def _merge(masks: dict[str, np.ndarray], outcome: Outcome, shape: tuple) -> None:
    for reason, mask in outcome.undefined.items():
        m = np.broadcast_to(np.asarray(mask, dtype=bool), shape)
        masks[reason] = masks[reason] | m if reason in masks else m.copy()


def cast_chain(x: np.ndarray, types: list[str], *, saturate: bool = True, opset: int = 21) -> Outcome:
    """Cast x (of types[0]) to types[1], then to types[2], ... [Cast.txt; Cast-19 saturate for float8 targets].
    Outcome (y,): y of types[-1]; an element undefined at any step is undefined in y."""
    y = np.asarray(x)
    masks: dict[str, np.ndarray] = {}
    for src, to in zip(types, types[1:]):
        step = cast_ref.cast_outcome(y, src, to, saturate=saturate, opset=opset)
        _merge(masks, step, y.shape)
        y = step.outputs[0]
    return Outcome((y,), masks)


def cast_chain_readings(x: np.ndarray, types: list[str], *, saturate: bool = True, opset: int = 21) -> list[str]:
    """The Cast readings (cast.READING_*) the defined elements of cast_chain(x, types) rest on, in any step."""
    y = np.asarray(x)
    defined = ~cast_chain(x, types, saturate=saturate, opset=opset).mask()
    found: set[str] = set()
    for src, to in zip(types, types[1:]):
        step, reading = cast_ref.explain(y, src, to, saturate=saturate, opset=opset)
        found.update(np.asarray(reading, dtype=object)[defined].ravel().tolist())
        y = step.outputs[0]
    return [r for r in cast_ref.READINGS if r in found]


def quantize_readings(x: np.ndarray, scale, zero_point, *, opset: int) -> list[str]:
    """The QuantizeLinear readings of quantizing x (the quantizing step of qdq and dq_conv_q)."""
    return list(quantize_linear_explained(x, scale, zero_point, opset=opset)[1])


def qdq(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, *, opset: int) -> Outcome:
    """QuantizeLinear(x, scale, zero_point) then DequantizeLinear(q, scale, zero_point), per tensor
    [QuantizeLinear / DequantizeLinear, onnx.defs]: y = (saturate(round(x / scale) + zp) - zp) * scale."""
    q = quantize_linear(x, scale, zero_point, opset=opset)
    d = dequantize_linear(q.outputs[0], scale, zero_point, opset=opset)
    masks: dict[str, np.ndarray] = {}
    _merge(masks, q, np.shape(x))
    _merge(masks, d, np.shape(x))
    return Outcome(d.outputs, masks)


def conv_is_exact(dx: np.ndarray, dw: np.ndarray, x_scale: float, w_scale: float, group: int = 1) -> bool:
    """Whether the float32 Conv of DequantizeLinear's outputs is exact in any order of its sums: x_scale and
    w_scale powers of two, and every partial sum an integer multiple of x_scale * w_scale below 2**24 of them
    (the integers dx = x - x_zero_point, dw = w - w_zero_point bound it: sum |dx| * |dw| per output)."""
    def power_of_two(s: float) -> bool:
        m, _ = np.frexp(np.float64(s))
        return m == 0.5
    if not (power_of_two(x_scale) and power_of_two(w_scale)):
        return False
    per_output = np.abs(dw).reshape(dw.shape[0], -1).sum(axis=1).max() * np.abs(dx).max()
    return bool(per_output < 2 ** 24)


def _float_conv(xf: np.ndarray, wf: np.ndarray, strides, pads, group: int) -> np.ndarray:
    n = wf.ndim - 2
    return conv(xf, wf, None, tuple(strides), (1,) * n, list(zip(pads[:n], pads[n:])), group)


def dq_conv_q_readings(x: np.ndarray, x_scale, x_zero_point, w: np.ndarray, w_scale, w_zero_point, y_scale,
                       y_zero_point, *, strides, pads, group: int = 1, opset: int) -> list[str]:
    """The QuantizeLinear readings of dq_conv_q's quantizing step (the Conv is exact: conv_is_exact)."""
    xf = dequantize_linear(x, x_scale, x_zero_point, opset=opset).outputs[0]
    wf = dequantize_linear(w, w_scale, w_zero_point, opset=opset).outputs[0]
    return quantize_readings(_float_conv(xf, wf, strides, pads, group), y_scale, y_zero_point, opset=opset)


def dq_conv_q(x: np.ndarray, x_scale, x_zero_point, w: np.ndarray, w_scale, w_zero_point, y_scale, y_zero_point,
              *, strides, pads, group: int = 1, opset: int) -> Outcome:
    """DequantizeLinear(x), DequantizeLinear(w) -> Conv -> QuantizeLinear(y_scale, y_zero_point), per-tensor
    scales [DequantizeLinear, onnx.defs Conv, QuantizeLinear]. Raises ValueError where the float32 Conv would
    not be exact (conv_is_exact): there the result depends on the kernel's order of sums."""
    xf = dequantize_linear(x, x_scale, x_zero_point, opset=opset)
    wf = dequantize_linear(w, w_scale, w_zero_point, opset=opset)
    dx = x.astype(np.int64) - np.int64(x_zero_point)
    dw = w.astype(np.int64) - np.int64(w_zero_point)
    if not conv_is_exact(dx, dw, float(x_scale), float(w_scale), group):
        raise ValueError("dq_conv_q: the float32 Conv is not exact for these inputs")
    c = _float_conv(xf.outputs[0], wf.outputs[0], strides, pads, group)
    q = quantize_linear(c, y_scale, y_zero_point, opset=opset)
    masks: dict[str, np.ndarray] = {}
    for o in (xf, wf):
        for reason, mask in o.undefined.items():  # an undefined input element spoils the whole output
            if np.any(mask):
                masks[reason] = np.ones(c.shape, dtype=bool)
    _merge(masks, q, c.shape)
    return Outcome(q.outputs, masks)


def dql_matmul_integer(a: np.ndarray, b: np.ndarray, b_zero_point: np.ndarray | None) -> Outcome:
    """DynamicQuantizeLinear(a) -> (a_q, a_scale, a_zero_point); MatMulInteger(a_q, b, a_zero_point, b_zero_point)
    [DynamicQuantizeLinear-11, MatMulInteger-10]. Outcome (y int32, a_scale, a_zero_point); undefined as a whole
    where DynamicQuantizeLinear is."""
    d = dynamic_quantize_linear(a)
    a_q, a_scale, a_zp = d.outputs
    y = matmul_integer(a_q, b, a_zp, b_zero_point)
    return Outcome((y, a_scale, a_zp), dict(d.undefined))


def dql_readings(a: np.ndarray) -> list[str]:
    """The DynamicQuantizeLinear readings (dynamic_quantize_linear.READING_*) of its input a."""
    return dql_ref.readings(a)


def matmul_integer_scaled(a: np.ndarray, a_zero_point, b: np.ndarray, b_zero_point, a_scale, b_scale,
                          bias: np.ndarray | None = None) -> Outcome:
    """MatMulInteger(a, b, a_zero_point, b_zero_point) -> Cast(float) -> Mul(Mul(a_scale, b_scale)) (-> Add(bias)),
    a statically quantized a (what onnxruntime fuses into MatMulIntegerToFloat alone) [MatMulInteger-10, Cast.txt,
    Mul-14, Add-14: one correctly rounded float32 result each]. Outcome (y float32,)."""
    acc = matmul_integer(a, b, a_zero_point, b_zero_point)
    yf = cast_ref.cast_outcome(acc, "int32", "float")
    s = np.float32(np.float32(a_scale) * np.float32(b_scale))
    with np.errstate(all="ignore"):
        y = (yf.outputs[0].astype(np.float64) * np.float64(s)).astype(np.float32)
        if bias is not None:
            y = (y.astype(np.float64) + np.asarray(bias, np.float64)).astype(np.float32)
    return Outcome((y,), dict(yf.undefined))


def dql_matmul_integer_scaled(a: np.ndarray, b: np.ndarray, b_zero_point: np.ndarray | None,
                              b_scale: np.ndarray, bias: np.ndarray | None = None) -> Outcome:
    """dql_matmul_integer, then Cast(y, float) and Mul(Mul(a_scale, b_scale), y) (then Add(y, bias)): the float
    result (onnxruntime's MatMulIntegerToFloat / DynamicQuantizeMatMul fusion pattern). Cast.txt: int32 -> float32
    rounds to nearest even; Mul and Add: one correctly rounded float32 result each. Outcome (y float32,)."""
    d = dql_matmul_integer(a, b, b_zero_point)
    yf = cast_ref.cast_outcome(d.outputs[0], "int32", "float")
    s = np.float32(np.float32(d.outputs[1]) * np.float32(b_scale))
    with np.errstate(all="ignore"):
        y = (yf.outputs[0].astype(np.float64) * np.float64(s)).astype(np.float32)
        if bias is not None:
            y = (y.astype(np.float64) + np.asarray(bias, np.float64)).astype(np.float32)
    masks = dict(d.undefined)
    _merge(masks, yf, y.shape)
    return Outcome((y,), masks)


def dql_scaled_is_exact(a: np.ndarray, b: np.ndarray, b_zero_point, b_scale, bias=None) -> bool:
    """Whether dql_matmul_integer_scaled's float steps are exact, so that any order of them (a fused kernel's
    acc * (a_scale * b_scale) + bias, a multiply-add, (acc * a_scale) * b_scale) gives its result: a_scale and
    b_scale powers of two, |acc| * a_scale * b_scale and the bias multiples of that product's unit below 2**24 of
    it."""
    from generator.reference.requantize import is_power_of_two
    d = dql_matmul_integer(a, b, b_zero_point)
    acc, a_scale = d.outputs[0], float(d.outputs[1])
    if not (is_power_of_two(a_scale) and is_power_of_two(float(b_scale))):
        return False
    unit = a_scale * float(b_scale)
    total = np.abs(acc).astype(np.float64) * unit
    if bias is not None:
        steps = np.asarray(bias, np.float64) / unit
        if not np.all(steps == np.round(steps)):
            return False
        total = total + np.abs(np.asarray(bias, np.float64))
    return bool(np.all(total / unit < 2 ** 24))


# ---------------------------------------------------------------------------------------
# DequantizeLinear -> float operator -> QuantizeLinear (the QOperators' QDQ patterns)
# ---------------------------------------------------------------------------------------
READING_FLOAT_ORDER = ("DequantizeLinear -> float operator -> QuantizeLinear: the float operator (and the Gemm's sums) "
                       "in IEEE float32 in any order, exp and the logistic within 32 ulps: an element whose quotient "
                       "that can move across a rounding boundary may be either neighbour (compare mode range; "
                       "generator/reference/float_ops.py, dq_op_q.py)")


def qop_chain(qop: str, inputs: list, attrs: dict) -> tuple[Outcome, list[str]]:
    """DequantizeLinear of each operand -> the float operator of qlinear_ops.QOPS[qop] -> QuantizeLinear(y_scale,
    y_zero_point) [DequantizeLinear, the ONNX operator (Add-14, Mul-14, Sigmoid-13, AveragePool-11, Concat-13),
    QuantizeLinear: round half to even, then the zero point, then saturation]. inputs: in the QLinear operator's
    slot order (qlinear_ops.slots_of). (Outcome (y,), the readings: READING_FLOAT_ORDER where some element may be
    either neighbour)."""
    from generator.reference import qlinear_ops
    e, lo, hi, why = qlinear_ops.bounds(qop, inputs, attrs, zero_point_first=False)  # QuantizeLinear's order
    outcome = Outcome.by_element([e], why.astype(str) if why.size else np.zeros(e.shape, dtype=str))
    return outcome, [READING_FLOAT_ORDER] if np.any(lo != hi) else []


def gemm_chain(inputs: list, node: dict) -> tuple[Outcome, list[str]]:
    """DequantizeLinear (A, B, C) -> Gemm -> QuantizeLinear [Gemm-13: alpha * A' * B' + beta * C], as
    dq_op_q.bounds (inputs in dq_op_q.NAMES order). (Outcome (y,), readings)."""
    from generator.reference import dq_op_q
    e, lo, hi = dq_op_q.bounds(inputs, node)
    return Outcome((e,)), [READING_FLOAT_ORDER] if np.any(lo != hi) else []
