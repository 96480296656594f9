"""The float operators that quantized kernels run between a dequantize and a quantize: one row per operator, its
exact value in float64 and what bounds a float32 evaluation of it (generator/reference/qlinear_ops.py runs them for
com.microsoft QLinearAdd, QLinearSigmoid, ...; the DequantizeLinear -> op -> QuantizeLinear chains of the chains
family are judged by the same rows, generator/reference/dq_op_q.py).

A row's function takes the dequantized operands (float64, exact: a 9-bit integer times a float32 scale), their
scales and the node's attributes, and returns a Result per output element:
    r     the exact value of the operator on the dequantized operands (float64; transcendental functions to
          float64's precision, far inside the bound)
    mag   what every rounding error of a float32 evaluation scales with (sum |terms|, or |r|)
    k     the bound in units of float32's roundoff: any float32 evaluation lies within k * 2**-24 * mag of r
    unit  where every term is a multiple of one power of two (every scale and coefficient a power of two): that
          step (float64 array or scalar); NaN where not. Where mag / unit <= 2**24 every float32 evaluation, in any
          order, is exact: then the result is r itself and a tie rounds to even (qlinear_ops.READING_EXACT).

READING (READING_FLOAT32 of qlinear_ops): the float function is evaluated in IEEE float32 in any order of its
operations; each operator's k says how many roundings that is (the transcendental ones: within TRANSCENDENTAL_ULPS
ulps of float32 for exp and the division, as vectorized math libraries are). A backend that computes in float16 or
with a coarser approximation is outside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

TRANSCENDENTAL_ULPS = 32  # exp / logistic of a vectorized float32 library, with its division: within 32 ulps
_NOT_DYADIC = np.float64("nan")


@dataclass(frozen=True)
class Result:
    r: np.ndarray
    mag: np.ndarray
    k: float
    unit: np.ndarray | float


@dataclass(frozen=True)
class FloatOp:
    name: str  # the ONNX operator the row computes ("Add", "Sigmoid", ...)
    fn: Callable[[dict, dict, dict], Result]  # (dequantized operands by role, their scales by role, attrs)
    doc: str  # what it computes, citing the text


def pow2(v: float) -> bool:
    m, _ = np.frexp(np.float64(v))
    return bool(v > 0 and m == 0.5)


def _unit(scales: list[float], *coefficients: float) -> float:
    """The common step of the terms: the least scale times the coefficients, if all are powers of two."""
    if not all(pow2(s) for s in scales) or not all(pow2(c) for c in coefficients):
        return _NOT_DYADIC
    return float(min(scales) * np.prod(coefficients))


def _add(v, s, attrs) -> Result:
    a, b = v["A"], v["B"]
    return Result(a + b, np.abs(a) + np.abs(b), 4, _unit([s["A"], s["B"]]))


def _mul(v, s, attrs) -> Result:
    r = v["A"] * v["B"]
    return Result(r, np.abs(r), 4, _unit([s["A"] * s["B"]]))


def _sigmoid(v, s, attrs) -> Result:
    x = v["X"]
    with np.errstate(over="ignore"):
        r = 1.0 / (1.0 + np.exp(-x))
    return Result(r, np.abs(r), TRANSCENDENTAL_ULPS + 2, _NOT_DYADIC)


LEAKY_ALPHA_DEFAULT = 0.01  # QLinearLeakyRelu's alpha when the attribute is absent (the schema's default)


def _leaky_relu(v, s, attrs) -> Result:
    x = v["X"]
    alpha = float(np.float32(attrs.get("alpha", LEAKY_ALPHA_DEFAULT)))
    r = np.where(x >= 0, x, alpha * x)
    unit = np.where(x >= 0, _unit([s["X"]]), _unit([s["X"]], abs(alpha)) if alpha else _unit([s["X"]]))
    return Result(r, np.abs(r), 3, unit)


SOFTMAX_AXIS_DEFAULT = -1


def softmax_axis(attrs: dict, rank: int) -> tuple[bool, int]:
    """(coerced, axis): QLinearSoftmax's "opset" attribute says which Softmax it is: below 13 the input is coerced to
    a 2-D [prod(shape[:axis]), prod(shape[axis:])] matrix; from 13 one axis. axis defaults to -1 whatever the opset
    (the schema's default, not Softmax-11's 1: "apply softmax to elements for dimensions axis, or all dims along
    with axis according to op-version")."""
    coerced = int(attrs["opset"]) < 13
    axis = int(attrs.get("axis", SOFTMAX_AXIS_DEFAULT))
    return coerced, axis + rank if axis < 0 else axis


def softmax(x: np.ndarray, attrs: dict) -> np.ndarray:
    coerced, axis = softmax_axis(attrs, x.ndim)
    shape = x.shape
    if coerced:
        x = x.reshape(int(np.prod(shape[:axis], dtype=np.int64)), -1)
        axis = 1
    if x.size == 0:
        return x.reshape(shape)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).reshape(shape)


def _softmax(v, s, attrs) -> Result:
    x = v["X"]
    r = softmax(x, attrs)
    coerced, axis = softmax_axis(attrs, x.ndim)
    n = int(np.prod(x.shape[axis:], dtype=np.int64)) if coerced else (x.shape[axis] if x.ndim else 1)
    # each exp within TRANSCENDENTAL_ULPS, n - 1 additions of the sum, the division, the subtraction of the max
    return Result(r, np.abs(r), 2 * TRANSCENDENTAL_ULPS + n + 3, _NOT_DYADIC)


def pool_pads(attrs: dict, spatial: tuple) -> tuple[list[int], list[int], list[int]]:
    """(begin pads, end pads, output sizes) of QLinearAveragePool [the text's output_spatial_shape formulas: floor,
    or ceil with ceil_mode; auto_pad VALID / SAME_UPPER / SAME_LOWER, the odd pad at the end for SAME_UPPER, at the
    beginning for SAME_LOWER]."""
    kernel = list(attrs["kernel_shape"])
    n = len(kernel)
    strides = list(attrs.get("strides", [1] * n))
    auto_pad = attrs.get("auto_pad", "NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    begin, end, out = [], [], []
    for i in range(n):
        size, k, st = spatial[i], kernel[i], strides[i]
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-size // st)
            total = max((o - 1) * st + k - size, 0)
            small = total // 2
            b, e = (small, total - small) if auto_pad == "SAME_UPPER" else (total - small, small)
        elif auto_pad == "VALID":
            o = -(-(size - k + 1) // st)
            b = e = 0
        else:
            pads = list(attrs.get("pads", [0] * 2 * n))
            b, e = pads[i], pads[n + i]
            span = size + b + e - k
            o = (-(-span // st) if attrs.get("ceil_mode", 0) else span // st) + 1
        begin.append(b)
        end.append(e)
        out.append(max(o, 0))
    return begin, end, out


def average_pool(x: np.ndarray, attrs: dict) -> tuple[np.ndarray, np.ndarray]:
    """(sum of each window's values, the count it divides by), channels first, float64 [QLinearAveragePool: "The
    output of each pooling window is divided by the number of elements (exclude pad when attribute
    count_include_pad is zero)"]. READING_CEIL (qlinear_ops): a window that ceil_mode lets run past the end padding
    counts the padded positions it covers, never the positions beyond them."""
    kernel = list(attrs["kernel_shape"])
    n = len(kernel)
    strides = list(attrs.get("strides", [1] * n))
    spatial = x.shape[2:]
    begin, end, out = pool_pads(attrs, spatial)
    include = bool(attrs.get("count_include_pad", 0))
    total = np.zeros(x.shape[:2] + tuple(out))
    count = np.zeros((1, 1) + tuple(out))
    for pos in np.ndindex(*out):
        lo = [pos[i] * strides[i] - begin[i] for i in range(n)]
        hi = [min(lo[i] + kernel[i], spatial[i] + end[i]) for i in range(n)]
        real = tuple(slice(max(lo[i], 0), min(hi[i], spatial[i])) for i in range(n))
        window = x[(slice(None), slice(None)) + real]
        total[(slice(None), slice(None)) + pos] = window.sum(axis=tuple(range(2, 2 + n)))
        if include:  # a window ceil_mode starts past the end padding covers nothing: 0 (its mean 0 / 0)
            c = np.prod([max(hi[i] - lo[i], 0) for i in range(n)])
        else:
            c = np.prod([max(min(hi[i], spatial[i]) - max(lo[i], 0), 0) for i in range(n)])
        count[(0, 0) + pos] = c
    return total, count


def channels_first(x: np.ndarray, attrs: dict) -> np.ndarray:
    """N x D1 .. Dn x C -> N x C x D1 .. Dn where channels_last says so."""
    return np.moveaxis(x, -1, 1) if attrs.get("channels_last", 0) and x.ndim > 2 else x


def channels_back(y: np.ndarray, attrs: dict) -> np.ndarray:
    return np.moveaxis(y, 1, -1) if attrs.get("channels_last", 0) and y.ndim > 2 else y


def _windowed(total, count, abs_total, s: float, attrs) -> Result:
    """Window sums over counts: the mean, exact where s and the count are powers of two."""
    with np.errstate(invalid="ignore", divide="ignore"):
        r, mag = total / count, abs_total / count
    counts = np.broadcast_to(count, r.shape)
    m, _ = np.frexp(counts)
    unit = np.where((m == 0.5) & pow2(s), s / np.where(counts > 0, counts, 1), _NOT_DYADIC)
    n = float(counts.max(initial=1))
    return Result(channels_back(r, attrs), channels_back(mag, attrs), n + 3, channels_back(unit, attrs))


def _average_pool(v, s, attrs) -> Result:
    x = channels_first(v["X"], attrs)
    total, count = average_pool(x, attrs)
    abs_total, _ = average_pool(np.abs(x), attrs)
    return _windowed(total, count, abs_total, s["X"], attrs)


def _global_average_pool(v, s, attrs) -> Result:
    x = channels_first(v["X"], attrs)
    axes = tuple(range(2, x.ndim))
    count = np.full((1, 1) + (1,) * len(axes), float(np.prod(x.shape[2:], dtype=np.int64)))
    total = x.sum(axis=axes, keepdims=True)
    return _windowed(total, count, np.abs(x).sum(axis=axes, keepdims=True), s["X"], attrs)


def _concat(v, s, attrs) -> Result:
    roles = sorted((k for k in v if k.startswith("X")), key=lambda k: int(k[1:]))
    r = np.concatenate([v[k] for k in roles], axis=int(attrs["axis"]))
    units = np.concatenate([np.broadcast_to(_unit([s[k]]), v[k].shape) for k in roles], axis=int(attrs["axis"]))
    return Result(r, np.abs(r), 2, units)


def _where(v, s, attrs) -> Result:
    c = np.asarray(v["condition"], dtype=bool)
    r = np.where(c, v["X"], v["Y"])
    unit = np.where(c, _unit([s["X"]]), _unit([s["Y"]]))
    return Result(r, np.abs(r), 2, np.broadcast_to(unit, r.shape))


ROWS = {row.name: row for row in (
    FloatOp("Add", _add, "A + B, numpy broadcasting"),
    FloatOp("Mul", _mul, "A * B, numpy broadcasting"),
    FloatOp("Sigmoid", _sigmoid, "1 / (1 + exp(-X))"),
    FloatOp("LeakyRelu", _leaky_relu, "X where X >= 0, alpha * X where X < 0"),
    FloatOp("Softmax", _softmax, "exp(X) / ReduceSum(exp(X), axis) (the max subtracted first: the same value)"),
    FloatOp("AveragePool", _average_pool, "the mean of each window (count_include_pad, ceil_mode, pads)"),
    FloatOp("GlobalAveragePool", _global_average_pool, "the mean over the spatial dimensions, per N and C"),
    FloatOp("Concat", _concat, "the inputs joined along axis"),
    FloatOp("Where", _where, "X where condition, else Y, numpy broadcasting"),
)}


def evaluate(op: str, vals: dict, scales: dict, attrs: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(r, err, exact) per output element: the exact value, a bound on any float32 evaluation's distance from it, and
    where that evaluation is exact in every order (the terms multiples of one power of two, mag / unit <= 2**24)."""
    res = ROWS[op].fn(vals, scales, attrs)
    r = np.asarray(res.r, np.float64)
    mag = np.broadcast_to(np.asarray(res.mag, np.float64), r.shape)
    unit = np.broadcast_to(np.asarray(res.unit, np.float64), r.shape)
    err = res.k * 2.0 ** -24 * mag * (1 + 2.0 ** -20) + 2.0 ** -140
    with np.errstate(invalid="ignore", divide="ignore"):
        exact = np.isfinite(unit) & (mag <= unit * 2.0 ** 24) & (unit >= 2.0 ** -126)
    return r, err, exact
