"""DequantizeLinear (x, w, bias) -> Conv / MatMul / Gemm -> QuantizeLinear with a model's own scales: per output
element, every result a float32 evaluation of the graph can give (compare mode "range", runners/compare.py).

QDQ models run this chain; runtimes fuse it into one integer kernel (onnxruntime's QDQ selectors make QLinearConv /
QLinearMatMul / com.microsoft QGemm of it). A Gemm chain (op "Gemm": alpha, beta, transA, transB; x, w, b are Gemm's
A, B, C) is Y = alpha * A' * B' + beta * C [onnx.defs Gemm-13], its bound n counting the two products by alpha and
beta as well. The texts fix each step: DequantizeLinear y = (x - zero_point) * scale [DQL], Conv / MatMul
sums of products in float32 [onnx.defs Conv-11, MatMul-13], QuantizeLinear y = saturate(round(x / y_scale) +
y_zero_point), ties to even [QL]. They fix no order of the float32 sums, so where an element's quotient lies near a
rounding boundary the result depends on it: the element may be either neighbour. Everywhere else it has one value,
and a fused kernel must give it.

For each output element, in float64 (exact for the dequantized operands: a 9-bit integer times a float32 scale):
    r  = sum_k xr_k * wr_k (+ br)        the exact value of the graph on the dequantized operands
    A  = sum_k |xr_k * wr_k| (+ |br|)    what every rounding error scales with
    E  = gamma(n + 2) * A + n * 2**-52 * A + 2**-140
         (Higham's bound of any order of n float32 sums, with the rounding of each DequantizeLinear output and of
         each product, and what float64 itself leaves; n = K terms, + 1 with a bias; 2**-140 covers subnormals)
    q in [(r - E) / y_scale, (r + E) / y_scale], widened by QuantizeLinear's float32 division: |q| * 2**-24
    lo, hi = saturate(round_half_even(q) + y_zero_point) at the two ends; expected = that of r / y_scale.
READING: the float32 sums are read as IEEE float32 arithmetic in any order, fused multiply-adds allowed (what a
CPU kernel does); a backend that sums in a narrower type (TF32, float16) is outside it.
"""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.reference.layout_kernels import conv_f64
from generator.reference.quant_axes import expand
from generator.reference.requantize import float_range, is_power_of_two

NAMES = ("x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "b", "b_scale", "b_zero_point",
         "y_scale", "y_zero_point")
READING = ("DequantizeLinear -> Conv / MatMul -> QuantizeLinear: the float32 sums in any order (fused multiply-adds "
           "allowed); an element whose quotient that order can move across a rounding boundary may be either "
           "neighbour (generator/reference/dq_op_q.py)")
# onnxruntime's quantizer writes a bias DequantizeLinear with x_scale of shape [1] and x_zero_point of shape []: by
# DequantizeLinear's text a 1-D scale is per-axis (the axis's length) and the zero point's shape the scale's, so the
# node is invalid as written; the chain reads a one-element scale and zero point as per tensor, as runtimes do
ONE_ELEMENT = ("a one-element 1-D x_scale / x_zero_point (what onnxruntime's quantizer writes for a bias) is read as "
               "per tensor; by the letter of DequantizeLinear it is per-axis and must match the axis's length")
U = 2.0 ** -24


def _dequantized(q, scale, zero_point, axis: int) -> np.ndarray:
    """(q - zero_point) * scale in float64; a one-element scale and zero point per tensor (ONE_ELEMENT)."""
    q = np.asarray(q).astype(np.float64)
    if np.size(scale) == 1:
        scale = np.asarray(scale).reshape(())
        zero_point = None if zero_point is None else np.asarray(zero_point).reshape(())
    s = expand(np.asarray(scale, dtype=np.float64), q.shape, axis)
    z = 0.0 if zero_point is None else expand(np.asarray(zero_point).astype(np.float64), q.shape, axis)
    return (q - z) * s


def _op(node: dict, x: np.ndarray, w: np.ndarray, b: np.ndarray | None, magnitude: bool = False) -> np.ndarray:
    """The op on float64 operands (magnitude: on |operands|, with |alpha| and |beta|, for the error bound)."""
    if node["op"] == "MatMul":
        y = np.matmul(x, w)
        return y if b is None else y + b
    if node["op"] == "Gemm":
        return _gemm(node, x, w, b, magnitude)
    pads = node["pads"]
    n = len(pads) // 2
    return conv_f64(x, w, b, node["strides"], node["dilations"], list(zip(pads[:n], pads[n:])), node["group"])


def _gemm(node: dict, a: np.ndarray, b: np.ndarray, c: np.ndarray | None, magnitude: bool) -> np.ndarray:
    """Gemm-13: Y = alpha * A' * B' + beta * C, A' = transpose(A) if transA, B' likewise, C unidirectionally
    broadcast to (M, N) [onnx.defs Gemm-13]."""
    alpha, beta = (float(np.float32(node.get(k, 1.0))) for k in ("alpha", "beta"))
    if magnitude:
        alpha, beta = abs(alpha), abs(beta)
    a = a.T if node.get("transA", 0) else a
    b = b.T if node.get("transB", 0) else b
    y = alpha * np.matmul(a, b)
    return y if c is None else y + beta * c


def terms(node: dict, w_shape: tuple) -> int:
    """n: the float32 roundings of one output element beyond the products' (K - 1 sums of K products, + 1 with a
    bias; Gemm: + 2 more, the products by alpha and by beta)."""
    if node["op"] == "Gemm":
        k = int(w_shape[1] if node.get("transB", 0) else w_shape[0])
        return k + int(bool(node.get("bias"))) + 2
    k = int(w_shape[0]) if node["op"] == "MatMul" else int(np.prod(w_shape[1:], dtype=np.int64))
    return k + int(bool(node.get("bias")))


def bounds(inputs: list, node: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(expected, lo, hi) per output element, in the output's integer type (inputs: NAMES order, None for an
    absent bias or zero point)."""
    v = dict(zip(NAMES, inputs))
    out = dtypes.get(node["out"])
    xr = _dequantized(v["x"], v["x_scale"], v["x_zero_point"], node.get("x_axis", 1))
    wr = _dequantized(v["w"], v["w_scale"], v["w_zero_point"], node.get("w_axis", 1))
    br = None if v["b"] is None else _dequantized(v["b"], v["b_scale"], v["b_zero_point"], 0)
    r = _op(node, xr, wr, br)
    a = _op(node, np.abs(xr), np.abs(wr), None if br is None else np.abs(br), magnitude=True)
    n = terms(node, np.shape(v["w"]))
    gamma = (n + 2) * U / (1 - (n + 2) * U)
    err = gamma * a * (1 + 2.0 ** -20) + n * 2.0 ** -52 * a + 2.0 ** -140
    ys = float(np.asarray(v["y_scale"], dtype=np.float64).ravel()[0])
    zp = 0 if v["y_zero_point"] is None else int(np.asarray(v["y_zero_point"]).ravel()[0])
    return float_range(r, err, ys, zp, out, exact(v, node, a, ys))


def exact(v: dict, node: dict, a: np.ndarray, y_scale: float) -> np.ndarray | bool:
    """Where every float32 evaluation gives r and r / y_scale exactly (then a tie rounds to even): per-tensor scales,
    they, alpha, beta and y_scale powers of two, every term a multiple of the least term unit (x_scale * w_scale *
    |alpha|, b_scale * |beta|) and A (the sum of |terms|) at most 2**24 of that unit (chains.conv_is_exact's rule)."""
    scales = [v[k] for k in ("x_scale", "w_scale") + (("b_scale",) if v["b"] is not None else ())]
    if any(np.size(s) != 1 for s in scales):
        return False
    s = [float(np.asarray(x, np.float64).ravel()[0]) for x in scales]
    alpha, beta = (abs(float(np.float32(node.get(k, 1.0)))) for k in ("alpha", "beta"))
    if not all(is_power_of_two(x) for x in s + [alpha, beta, y_scale]):
        return False
    unit = min([s[0] * s[1] * alpha] + ([s[2] * beta] if len(s) > 2 else []))
    return (a <= unit * 2.0 ** 24) & (unit >= 2.0 ** -126)


def undefined_share(inputs: list, node: dict) -> float:
    """The share of output elements that may be either neighbour."""
    _, lo, hi = bounds(inputs, node)
    return float(np.mean(lo != hi)) if lo.size else 0.0


def spec_bounds(spec: dict, operands) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(expected, lo, hi) of a "range" spec: its "chain" a DequantizeLinear -> Conv / MatMul -> QuantizeLinear chain
    (op Conv / MatMul), or a "dequantize -> float operator -> quantize" operator of generator/reference/qlinear_ops.py
    (op QLinearAdd, ...: a QOperator node, or the QDQ chain it fuses, its tensors named by the operator's inputs)."""
    from generator.reference import qlinear_ops
    node = spec["chain"]
    if node.get("op") in qlinear_ops.QOPS:
        attrs = {k: v for k, v in node.items() if k not in ("op", "n_inputs", "zero_point_first")}
        slots = qlinear_ops.slots_of(node["op"], int(node.get("n_inputs", 0)))
        inputs = pick_named(spec, operands, [s.name for s in slots], [s.optional for s in slots])
        # a QOperator node says where its output zero point goes; a QDQ chain rounds as QuantizeLinear does
        e, lo, hi, _ = qlinear_ops.bounds(node["op"], inputs, attrs, bool(node.get("zero_point_first", 0)))
        return e, lo, hi
    return bounds(pick(spec, operands), node)


def check(spec: dict, operands, expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Element-wise verdict under a "range" spec (raveled): actual within the range about `expected`, widened by
    "widen". The range is [lo, hi] about the reference's value e; given another `expected` (a fault model's outputs,
    when the diagnosis asks whether a backend did what the fault does), the same spread about it."""
    e, lo, hi = spec_bounds(spec, operands)
    a = np.ravel(actual).astype(np.int64)
    x = np.ravel(expected).astype(np.int64)
    widen = int(spec.get("widen", 0))
    below = (e.ravel().astype(np.int64) - lo.ravel().astype(np.int64)) + widen
    above = (hi.ravel().astype(np.int64) - e.ravel().astype(np.int64)) + widen
    return (a >= x - below) & (a <= x + above)


def explain(spec: dict, operands, flat: int) -> str:
    e, lo, hi = (x.ravel()[flat] for x in spec_bounds(spec, operands))
    return f"allowed at flat index {flat}: {int(lo)}" + (f" to {int(hi)}" if hi != lo else " only") + \
        f" (the exact value rounds to {int(e)})"


def pick_named(spec: dict, operands, names: list[str], optional: list[bool]) -> list:
    """The tensors of `names` (None for an optional one the spec's "tensors" leaves out), as pick does."""
    by_name = dict(zip(list(getattr(operands, "names", [])), operands))
    slots = spec["tensors"]
    out = []
    for name, opt in zip(names, optional):
        if name not in slots:
            if not opt:
                raise ValueError(f"compare mode 'range': the spec names no tensor for {name!r}")
            out.append(None)
        elif slots[name] not in by_name:
            raise ValueError(f"compare mode 'range': the case has no tensor named {slots[name]!r}")
        else:
            out.append(by_name[slots[name]])
    return out


def pick(spec: dict, operands) -> list:
    """The NAMES operands from a data set's inputs and the case model's initializers (generator.dot_bound.operands:
    a list with `names`), by the tensor names the spec's "tensors" give."""
    names = list(getattr(operands, "names", []))
    by_name = dict(zip(names, operands))
    slots = spec["tensors"]
    missing = [n for n in slots.values() if n not in by_name]
    if missing:
        raise ValueError(f"compare mode 'range': the case has no tensor named {missing[0]!r}")
    return [by_name[slots[n]] if n in slots else None for n in NAMES]
