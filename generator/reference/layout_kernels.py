"""Numpy kernels for the operators of the layout family, each written for ONE layout: channels first
(N, C, spatial...), the layout ONNX states for Conv / MaxPool / AveragePool. The NHWC twin runs the same
kernels with its data transposed in and out (generator.reference.layout.run), so both layouts get their
expected outputs from one computation.

The second half holds the ONNX node entries (NODES, found by generator/reference/__init__.py) of the operators
the layout family's ONNX graphs use, each mapping the ONNX inputs / attributes onto a kernel.

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
    return _out(conv_f64(x, w, b, strides, dilations, pads, group))


def conv_f64(x, w, b, strides, dilations, pads, group: int = 1) -> np.ndarray:
    """conv's sums in float64, not rounded to float32."""
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
    return acc


def pool(x, kind: str, kernel, strides, pads, count_include_pad: bool = False) -> np.ndarray:
    """Max or average pooling, channels first (ONNX MaxPool-12 / AveragePool-19; TFLite MAX_POOL_2D /
    AVERAGE_POOL_2D, whose SAME average divides by the number of real pixels: count_include_pad=0)."""
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
    if count_include_pad:  # the padded pixels count: pad both with the window's own fill first
        width = [(0, 0), (0, 0)] + [tuple(p) for p in pads]
        x, ones = np.pad(x, width), np.pad(ones, width, constant_values=1.0)
        pads = [(0, 0)] * len(pads)
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


EMPTY_MEAN = "ReduceMean over an empty set (onnx.defs ReduceMean-18: undefined)"


def reduce(x, kind: str, axes, keepdims: bool) -> np.ndarray:
    """Mean or max over `axes` (negative axes count from the end), ONNX ReduceMean-18 / ReduceMax-18,
    TFLite MEAN / REDUCE_MAX. The max of an empty set is minus infinity (ReduceMax-18); the mean of one is
    undefined (reduce_undefined), NaN here."""
    xf = _f64(x)
    ax = tuple(sorted({norm_axis(a, xf.ndim) for a in axes}))
    if kind == "max":
        return _out(np.max(xf, axis=ax, keepdims=bool(keepdims), initial=-np.inf))
    if kind != "mean":
        raise ValueError(f"reduce kind {kind!r}")
    if xf.size == 0:  # numpy warns of an empty mean: NaN, without the warning
        return np.full(np.sum(xf, axis=ax, keepdims=bool(keepdims)).shape, np.nan, F32)
    return _out(np.mean(xf, axis=ax, keepdims=bool(keepdims)))


def reduce_undefined(x, kind: str, axes) -> str | None:
    """Why the spec leaves a reduction's result undefined (None: it is defined): a mean whose reduced axes
    hold no element while its output holds some (onnx.defs ReduceMean-18: "Reduction over an empty set of
    values yields undefined")."""
    shape = np.shape(x)
    ax = {norm_axis(a, len(shape)) for a in axes}
    reduced = int(np.prod([shape[a] for a in ax]))
    kept = int(np.prod([s for i, s in enumerate(shape) if i not in ax]))
    return EMPTY_MEAN if kind == "mean" and reduced == 0 and kept > 0 else None


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


# ---------------------------------------------------------------------------------------
# ONNX node entries: fn(inputs, attrs, opset, input_types) -> outputs (generator/reference/__init__.py)
# ---------------------------------------------------------------------------------------
def _onnx_pads(attrs: dict, x: np.ndarray, kernel, strides, dilations) -> list[tuple[int, int]]:
    """(begin, end) per spatial axis from ONNX pads / auto_pad (onnx.defs Conv-11, "auto_pad")."""
    n = len(kernel)
    auto = attrs.get("auto_pad", "NOTSET")
    if auto == "NOTSET":
        flat = list(attrs.get("pads", [0] * 2 * n))
        return list(zip(flat[:n], flat[n:]))
    if auto == "VALID":
        return [(0, 0)] * n
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = [same_pads(i, k, s, d) for i, k, s, d in zip(x.shape[2:], kernel, strides, dilations)]
        return pads if auto == "SAME_UPPER" else [(e, b) for b, e in pads]
    raise ValueError(f"auto_pad {auto!r}")


def conv_node(inputs, attrs, opset, types):
    """ONNX Conv-11 (onnx.defs Conv: X (N, C, D1..Dn), W (M, C/group, k1..kn), optional B)."""
    x, w = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    n = w.ndim - 2
    kernel = tuple(attrs.get("kernel_shape", w.shape[2:]))
    strides, dilations = tuple(attrs.get("strides", (1,) * n)), tuple(attrs.get("dilations", (1,) * n))
    pads = _onnx_pads(attrs, x, kernel, strides, dilations)
    return [conv(x, w, b, strides, dilations, pads, int(attrs.get("group", 1)))]


def _pool_node(kind: str):
    def node(inputs, attrs, opset, types):
        """ONNX MaxPool-12 / AveragePool-19 without ceil_mode, dilations or a second output."""
        x = inputs[0]
        kernel = tuple(attrs["kernel_shape"])
        n = len(kernel)
        if attrs.get("ceil_mode", 0) or any(d != 1 for d in attrs.get("dilations", [1] * n)):
            raise ValueError("ceil_mode / dilations of pooling are not implemented by this reference")
        strides = tuple(attrs.get("strides", (1,) * n))
        pads = _onnx_pads(attrs, x, kernel, strides, (1,) * n)
        return [pool(x, kind, kernel, strides, pads, bool(attrs.get("count_include_pad", 0)))]
    return node


max_pool_node = _pool_node("max")
average_pool_node = _pool_node("avg")


def _elementwise_node(fn):
    def node(inputs, attrs, opset, types):
        """ONNX elementwise operator (multidirectional broadcasting, onnx/docs/Broadcasting.md)."""
        return [fn(*inputs)]
    return node


def concat_node(inputs, attrs, opset, types):
    return [concat(inputs, int(attrs["axis"]))]


def split_node(inputs, attrs, opset, types):
    """ONNX Split-13 / 18: sizes from the `split` input (or attribute before 13), or num_outputs equal parts
    (the last one smaller)."""
    x = inputs[0]
    axis = int(attrs.get("axis", 0))
    sizes = inputs[1] if len(inputs) > 1 and inputs[1] is not None else attrs.get("split")
    if sizes is None:
        n = attrs.get("num_outputs")
        if n is None:
            raise ValueError("Split without `split` sizes needs num_outputs")
        dim = np.shape(x)[norm_axis(axis, np.ndim(x))]
        part = -(-dim // int(n))
        sizes = [part] * (dim // part) + ([dim % part] if dim % part else [])
    return split(x, axis, [int(s) for s in np.asarray(sizes).reshape(-1)])


def pad_node(inputs, attrs, opset, types):
    """ONNX Pad-18, mode constant: pads [x1_begin, x2_begin, ..., x1_end, ...] over `axes` (default all)."""
    if attrs.get("mode", "constant") != "constant":
        raise ValueError(f"Pad mode {attrs['mode']!r} is not implemented by this reference")
    x = inputs[0]
    flat = [int(v) for v in np.asarray(inputs[1]).reshape(-1)]
    value = float(np.asarray(inputs[2]).reshape(-1)[0]) if len(inputs) > 2 and inputs[2] is not None else 0.0
    axes = [norm_axis(int(a), x.ndim) for a in np.asarray(inputs[3]).reshape(-1)] if len(inputs) > 3 and \
        inputs[3] is not None else list(range(x.ndim))
    k = len(axes)
    if min(flat, default=0) < 0:
        raise ValueError("negative pads are not implemented by this reference")
    width = [(0, 0)] * x.ndim
    for i, a in enumerate(axes):
        width[a] = (flat[i], flat[k + i])
    return [pad(x, width, value)]


def slice_node(inputs, attrs, opset, types):
    """ONNX Slice-13: starts, ends, optional axes and steps inputs; clamping as the operator states."""
    x = inputs[0]
    starts, ends = (np.asarray(v).reshape(-1).tolist() for v in inputs[1:3])
    axes = np.asarray(inputs[3]).reshape(-1).tolist() if len(inputs) > 3 and inputs[3] is not None \
        else list(range(len(starts)))
    steps = np.asarray(inputs[4]).reshape(-1).tolist() if len(inputs) > 4 and inputs[4] is not None \
        else [1] * len(starts)
    full_s, full_e, full_st = [0] * x.ndim, list(x.shape), [1] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, steps):
        a = norm_axis(int(a), x.ndim)
        full_s[a], full_e[a], full_st[a] = int(s), int(e), int(st)
    return [slice_(x, full_s, full_e, full_st)]


def _reduce_node(kind: str):
    def node(inputs, attrs, opset, types):
        """ONNX ReduceMean / ReduceMax (axes an input from opset 18, an attribute before)."""
        x = inputs[0]
        if opset >= 18:
            axes = inputs[1] if len(inputs) > 1 and inputs[1] is not None else None
        else:
            axes = attrs.get("axes")
        axes = [] if axes is None else [int(a) for a in np.asarray(axes).reshape(-1)]
        if not axes:
            if attrs.get("noop_with_empty_axes", 0):
                return [np.asarray(x, dtype=F32).copy()]
            axes = list(range(np.ndim(x)))
        return [reduce(x, kind, axes, bool(attrs.get("keepdims", 1)))]
    return node


def softmax_node(inputs, attrs, opset, types):
    """ONNX Softmax-13 (one axis, default -1); before 13 the input is coerced to 2-D at axis (default 1)."""
    x = np.asarray(inputs[0])
    if opset >= 13:
        return [softmax(x, int(attrs.get("axis", -1)))]
    axis = norm_axis(int(attrs.get("axis", 1)), x.ndim)
    flat = x.reshape(int(np.prod(x.shape[:axis])), -1)
    return [softmax(flat, -1).reshape(x.shape)]


def transpose_node(inputs, attrs, opset, types):
    x = inputs[0]
    return [transpose(x, attrs.get("perm", list(reversed(range(np.ndim(x))))))]


def reshape_node(inputs, attrs, opset, types):
    """ONNX Reshape-14: 0 copies the input's dimension (allowzero 0), -1 is inferred."""
    x = np.asarray(inputs[0])
    shape = [int(s) for s in np.asarray(inputs[1]).reshape(-1)]
    if not attrs.get("allowzero", 0):
        shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return [reshape(x, shape)]


def flatten_node(inputs, attrs, opset, types):
    x = np.asarray(inputs[0])
    axis = int(attrs.get("axis", 1))
    axis = axis + x.ndim if axis < 0 else axis  # Flatten-13: axis in [-r, r]
    return [reshape(x, [int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:]))])]


def gemm_node(inputs, attrs, opset, types):
    """ONNX Gemm-13: alpha * A' @ B' + beta * C."""
    a, b = _f64(inputs[0]), _f64(inputs[1])
    a = a.T if attrs.get("transA", 0) else a
    b = b.T if attrs.get("transB", 0) else b
    acc = float(attrs.get("alpha", 1.0)) * (a @ b)
    if len(inputs) > 2 and inputs[2] is not None:
        acc = acc + float(attrs.get("beta", 1.0)) * _f64(inputs[2])
    return [_out(acc)]


def matmul_node(inputs, attrs, opset, types):
    """ONNX MatMul-13 (numpy.matmul's broadcasting): float inputs summed in float64, rounded once to their type
    (one of the orders of sums the text leaves open); integers in their own type."""
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    if a.dtype.kind == "f" or types[0].is_float:
        return [(_f64(a) @ _f64(b)).astype(types[0].np_dtype)]
    return [np.matmul(a, b)]


_BY_OP = {
    "Conv": conv_node, "MatMul": matmul_node, "MaxPool": max_pool_node, "AveragePool": average_pool_node,
    "Add": _elementwise_node(add), "Sub": _elementwise_node(sub), "Mul": _elementwise_node(mul),
    "Abs": _elementwise_node(abs_), "Relu": _elementwise_node(relu), "Sigmoid": _elementwise_node(sigmoid),
    "Tanh": _elementwise_node(tanh), "PRelu": _elementwise_node(prelu),
    "Concat": concat_node, "Split": split_node, "Pad": pad_node, "Slice": slice_node,
    "ReduceMean": _reduce_node("mean"), "ReduceMax": _reduce_node("max"), "Softmax": softmax_node,
    "Transpose": transpose_node, "Reshape": reshape_node, "Flatten": flatten_node, "Gemm": gemm_node,
}
# (domain, op) -> node function: generator.reference.lookup finds them here
NODES = {("", op): fn for op, fn in _BY_OP.items()}
