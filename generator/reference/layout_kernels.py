"""Numpy kernels for the operators of the layout family, each written for ONE layout: channels first
(N, C, spatial...), the layout ONNX states for Conv / MaxPool / AveragePool. The NHWC twin runs the same
kernels with its data transposed in and out (generator/reference/layout_exec.py), so both layouts get their
expected outputs from one computation.

Arithmetic: every kernel computes in float64 from float32 inputs and rounds its result to float32 once.
For add / sub / mul that is the correctly rounded float32 result (float64 holds the exact product and sum
of two float32 values to well within half an ulp); for sums of many products (Conv, Gemm, means) and for
exp / tanh it is within an ulp of the exact value and, unlike float32 accumulation, independent of the
order in which a layout visits the elements. Backends accumulate in float32 in their own order, which is
why the cases compare within a stated tolerance.
"""

from __future__ import annotations

import itertools

import numpy as np

F32 = np.float32


def _f64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _out(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).astype(F32)


# ---------------------------------------------------------------------------------------
# padding
# ---------------------------------------------------------------------------------------
def same_pads(in_size: int, kernel: int, stride: int, dilation: int = 1) -> tuple[int, int]:
    """TFLite / TensorFlow SAME padding of one spatial axis: output ceil(in / stride); the odd pixel of the
    total padding goes at the end (ONNX's SAME_UPPER)."""
    out = -(-in_size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - in_size, 0)
    return total // 2, total - total // 2


def explicit_pads(padding: str, spatial: tuple[int, ...], kernel: tuple[int, ...], strides: tuple[int, ...],
                  dilations: tuple[int, ...]) -> list[tuple[int, int]]:
    """(begin, end) per spatial axis for padding "SAME" or "VALID"."""
    if padding == "VALID":
        return [(0, 0)] * len(spatial)
    if padding != "SAME":
        raise ValueError(f"padding must be SAME or VALID, not {padding!r}")
    return [same_pads(i, k, s, d) for i, k, s, d in zip(spatial, kernel, strides, dilations)]


def _windows(x: np.ndarray, kernel, strides, dilations, pads, fill: float):
    """Yield (kernel offset, strided view of the padded input) for every kernel offset: the view holds, for
    each output position, the input element that offset touches. x: (N, C, *spatial)."""
    width = [(0, 0), (0, 0)] + [tuple(p) for p in pads]
    xp = np.pad(x, width, constant_values=fill)
    spatial = xp.shape[2:]
    out = [(s - (k - 1) * d - 1) // st + 1 for s, k, d, st in zip(spatial, kernel, dilations, strides)]
    if min(out, default=1) <= 0:
        raise ValueError(f"kernel {tuple(kernel)} does not fit the padded input {tuple(spatial)}")
    for offset in itertools.product(*[range(k) for k in kernel]):
        idx = tuple(slice(o * d, o * d + (n - 1) * st + 1, st)
                    for o, d, n, st in zip(offset, dilations, out, strides))
        yield offset, xp[(slice(None), slice(None)) + idx]


# ---------------------------------------------------------------------------------------
# implicit-layout operators (channels first)
# ---------------------------------------------------------------------------------------
def conv(x, w, b, strides, dilations, pads, group: int = 1) -> np.ndarray:
    """N-D convolution, channels first: ONNX Conv (onnx.defs Conv-11: X (N, C, D1..Dn), W (M, C/group,
    k1..kn), B (M), pads [x1_begin, x2_begin, ..., x1_end, ...] given here as (begin, end) per axis).
    Also the computation of TFLite CONV_2D / CONV_3D / DEPTHWISE_CONV_2D once their data is channels first
    (layout-semantic-conversion.txt, "Implicit": Conv is the source of layout semantic divergence)."""
    x, w = _f64(x), _f64(w)
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    if c != cg * group or m % group:
        raise ValueError(f"conv: input channels {c}, weight {w.shape}, group {group} do not fit")
    acc = None
    mg = m // group
    for offset, view in _windows(x, w.shape[2:], strides, dilations, pads, 0.0):
        wk = w[(slice(None), slice(None)) + offset]  # (M, C/group)
        parts = [np.einsum("nc...,mc->nm...", view[:, g * cg:(g + 1) * cg], wk[g * mg:(g + 1) * mg])
                 for g in range(group)]
        term = np.concatenate(parts, axis=1)
        acc = term if acc is None else acc + term
    if b is not None:
        acc = acc + _f64(b).reshape((1, m) + (1,) * (acc.ndim - 2))
    return _out(acc)


def pool(x, kind: str, kernel, strides, pads) -> np.ndarray:
    """Max or average pooling, channels first (ONNX MaxPool-12 / AveragePool-19 with count_include_pad=0;
    TFLite MAX_POOL_2D / AVERAGE_POOL_2D, whose SAME average divides by the number of real pixels)."""
    x = _f64(x)
    if kind == "max":
        acc = None
        for _, view in _windows(x, kernel, strides, [1] * len(kernel), pads, -np.inf):
            acc = view.copy() if acc is None else np.maximum(acc, view)
        return _out(acc)
    if kind != "avg":
        raise ValueError(f"pool kind {kind!r}")
    total = count = None
    ones = np.ones((1, 1) + x.shape[2:])
    for (_, view), (_, cview) in zip(_windows(x, kernel, strides, [1] * len(kernel), pads, 0.0),
                                     _windows(ones, kernel, strides, [1] * len(kernel), pads, 0.0)):
        total = view.copy() if total is None else total + view
        count = cview.copy() if count is None else count + cview
    return _out(total / count)


# ---------------------------------------------------------------------------------------
# transparent operators (elementwise, numpy broadcasting)
# ---------------------------------------------------------------------------------------
def add(a, b) -> np.ndarray:
    return _out(_f64(a) + _f64(b))


def sub(a, b) -> np.ndarray:
    return _out(_f64(a) - _f64(b))


def mul(a, b) -> np.ndarray:
    return _out(_f64(a) * _f64(b))


def abs_(x) -> np.ndarray:
    return np.abs(np.asarray(x, dtype=F32))


def relu(x) -> np.ndarray:
    x = np.asarray(x, dtype=F32)
    return np.where(x > 0, x, F32(0)).astype(F32)


def sigmoid(x) -> np.ndarray:
    return _out(1.0 / (1.0 + np.exp(-_f64(x))))


def tanh(x) -> np.ndarray:
    return _out(np.tanh(_f64(x)))


def prelu(x, slope) -> np.ndarray:
    """x where x >= 0, else slope * x (ONNX PRelu-16, slope broadcast to x; TFLite PRELU)."""
    xf = _f64(x)
    return _out(np.where(xf < 0, xf * _f64(slope), xf))


# ---------------------------------------------------------------------------------------
# attribute operators (an axis, pads, begin / end or a permutation)
# ---------------------------------------------------------------------------------------
def norm_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} out of range for rank {rank}")
    return axis % rank


def concat(xs, axis: int) -> np.ndarray:
    return np.concatenate([np.asarray(x, dtype=F32) for x in xs], axis=norm_axis(axis, np.ndim(xs[0])))


def split(x, axis: int, sizes) -> list[np.ndarray]:
    x = np.asarray(x, dtype=F32)
    axis = norm_axis(axis, x.ndim)
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f"split sizes {list(sizes)} do not add up to {x.shape[axis]}")
    return list(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


def pad(x, pads, value: float = 0.0) -> np.ndarray:
    """Constant padding; pads: (begin, end) per axis, non-negative."""
    return np.pad(np.asarray(x, dtype=F32), [tuple(p) for p in pads], constant_values=F32(value))


def slice_(x, starts, ends, steps) -> np.ndarray:
    """Per-axis start / end / step with ONNX Slice-13 clamping (negative start / end count from the end)."""
    x = np.asarray(x, dtype=F32)
    idx = []
    for dim, s, e, st in zip(x.shape, starts, ends, steps):
        if st == 0:
            raise ValueError("slice step 0")
        s = s + dim if s < 0 else s
        e = e + dim if e < 0 else e
        if st > 0:
            s, e = min(max(s, 0), dim), min(max(e, 0), dim)
        else:
            s, e = min(max(s, -1), dim - 1), min(max(e, -1), dim - 1)
        idx.append(slice(s, None if e < 0 else e, st))
    return x[tuple(idx)].copy()


def reduce(x, kind: str, axes, keepdims: bool) -> np.ndarray:
    """Mean or max over `axes` (negative axes count from the end), ONNX ReduceMean-18 / ReduceMax-18,
    TFLite MEAN / REDUCE_MAX."""
    xf = _f64(x)
    ax = tuple(sorted({norm_axis(a, xf.ndim) for a in axes}))
    fn = {"mean": np.mean, "max": np.max}[kind]
    return _out(fn(xf, axis=ax, keepdims=bool(keepdims)))


def softmax(x, axis: int) -> np.ndarray:
    """exp(x - max) / sum over one axis (ONNX Softmax-13; TFLite SOFTMAX with beta 1 on the last axis)."""
    xf = _f64(x)
    axis = norm_axis(axis, xf.ndim)
    e = np.exp(xf - xf.max(axis=axis, keepdims=True))
    return _out(e / e.sum(axis=axis, keepdims=True))


def transpose(x, perm) -> np.ndarray:
    return np.ascontiguousarray(np.transpose(np.asarray(x, dtype=F32), perm))


def reshape(x, shape) -> np.ndarray:
    return np.asarray(x, dtype=F32).reshape(tuple(int(s) for s in shape)).copy()


def fully_connected(x, w, b) -> np.ndarray:
    """x (N, I) @ w (O, I)^T + b (TFLite FULLY_CONNECTED; ONNX Gemm with transB=1)."""
    acc = _f64(x) @ _f64(w).T
    if b is not None:
        acc = acc + _f64(b)
    return _out(acc)
