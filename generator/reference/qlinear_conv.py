"""ONNX QLinearConv-10, written from the ONNX QLinearConv-10 specification (QLinearConv-10.txt, docs/specs.md;
[QLinearConv] below).

    y = saturate(round_half_even(acc * x_scale * w_scale[m] / y_scale) + y_zero_point)
    acc = B[m] + sum over the group's input channels and the kernel of
          (x - x_zero_point) * (w[m] - w_zero_point[m])

1-D, 2-D and 3-D (any N-D in fact). Decisions where the text is silent (docs/quantization.md):
  * the convolution and the bias addition are exact integer arithmetic; a padded position holds the
    real value 0, i.e. the quantized value x_zero_point, so it adds nothing to acc;
  * requantization is the exact value acc * x_scale * w_scale / y_scale of the float32 scale values
    (exact dyadic rationals), rounded half to even ("round" of the ONNX quantization operators);
  * acc beyond the int32 range is undefined (the bias, the one accumulator-domain tensor the spec types,
    is int32, and implementations accumulate in int32): such elements are reported, not computed;
  * a scale that is not a positive finite number is undefined (the spec's formula divides by y_scale
    and gives no meaning to a negative scale).

Speed: the convolution runs as one BLAS matmul over all output positions (im2col: one copy of a
strided view of the padded input, no Python loop). Products and partial sums are integers, so float32 BLAS is
exact while every partial sum stays below 2**24 (float64 below 2**53), which a bound on the inputs decides
before choosing the type. Requantization is generator/reference/requantize.py's (exact, proved per element).
"""

from __future__ import annotations

from math import isfinite, prod

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference.requantize import INT32_MAX, INT32_MIN, multiplier, requantize

SPEC_FILE = "QLinearConv-10.txt"
AUTO_PADS = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")

UNDEF_ACC_INT32 = ("acc = conv + bias is outside int32: the spec types the bias (the accumulator domain) "
                   "int32 and says nothing of wider sums [QLinearConv-10: B, T4]")
UNDEF_SCALE = ("a scale is not a positive finite number: the requantization acc * x_scale * w_scale / "
               "y_scale has no meaning the spec gives [QLinearConv-10: x_scale, w_scale, y_scale]")

# Readings (docs/readings.md): QLinearConv's text states no formula for y (its summary names the inputs and says
# "computes the quantized output"), so every expected y rests on READING_REQUANTIZATION; SAME padding with a
# dilation > 1 rests on READING_SAME_DILATED too. case.json "reading" carries them on every judged case.
READING_REQUANTIZATION = (
    "qlinear-requantization: the text gives no formula; read as the dequantize -> convolve -> quantize its summary "
    "describes (the bias quantized with scale x_scale * w_scale, zero point 0): y = saturate(round(acc * x_scale * "
    "w_scale / y_scale) + y_zero_point) with acc the exact integer sum, the product taken exactly and rounded half "
    "to even as QuantizeLinear rounds, y_zero_point added after rounding. A requantization in float32 (onnxruntime's "
    "MLAS), float64 or fixed point is another reading; it differs only where the exact value lies within that "
    "arithmetic's error of a half-integer")
READING_SAME_DILATED = (
    "qlinear-same-dilated: auto_pad SAME_UPPER / SAME_LOWER with a dilation > 1 pads for the dilated kernel "
    "((k - 1) * d + 1), as Conv's output-shape formula does; the text says only 'output_shape[i] = "
    "ceil(input_shape[i] / strides[i])' and how the padding is split")


def readings(auto_pad: str = "NOTSET", dilations=None) -> list[str]:
    """The readings every judged output of a QLinearConv with these attributes rests on."""
    dilated = any(int(d) > 1 for d in dilations or [])
    return [READING_REQUANTIZATION] + ([READING_SAME_DILATED] if dilated and auto_pad.startswith("SAME") else [])




def _ints(v, n: int, name: str, default: int, op: str = "QLinearConv") -> list[int]:
    if v is None:
        return [default] * n
    v = [int(i) for i in v]
    if len(v) != n:
        raise ValueError(f"{op}: {name} has {len(v)} values, the kernel has {n} spatial axes")
    return v


def resolve_padding(in_shape: tuple, kernel: tuple, strides: list[int], dilations: list[int], auto_pad: str,
                    pads: list[int] | None, op: str = "QLinearConv") -> tuple[list[int], list[int], list[int]]:
    """(pads at the beginning, pads at the end, output shape) per spatial axis [QLinearConv: auto_pad, pads;
    ConvInteger's attributes are the same text; op names the operator in errors].

    NOTSET: explicit pads, [x1_begin, x2_begin, ..., x1_end, x2_end, ...], 0 if absent. VALID: none.
    SAME_UPPER / SAME_LOWER: output = ceil(input / stride); the total padding is what that output needs
    with the dilated kernel, split equally, the odd one at the end (UPPER) or the beginning (LOWER)."""
    n = len(kernel)
    if auto_pad not in AUTO_PADS:
        raise ValueError(f"{op}: auto_pad must be one of {', '.join(AUTO_PADS)}, not {auto_pad!r}")
    if auto_pad != "NOTSET" and pads is not None:
        raise ValueError(f"{op}: pads cannot be used together with auto_pad " + auto_pad)
    extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = [-(-i // s) for i, s in zip(in_shape, strides)]
        total = [max(0, (o - 1) * s + e - i) for o, s, e, i in zip(out, strides, extent, in_shape)]
        small = [t // 2 for t in total]
        begin = small if auto_pad == "SAME_UPPER" else [t - h for t, h in zip(total, small)]
        end = [t - b for t, b in zip(total, begin)]
        return begin, end, out
    if auto_pad == "VALID" or pads is None:
        pads = [0] * (2 * n)
    pads = [int(p) for p in pads]
    if len(pads) != 2 * n or min(pads) < 0:
        raise ValueError(f"{op}: pads must be {2 * n} values >= 0, got {pads}")
    begin, end = pads[:n], pads[n:]
    out = [(i + b + e - x) // s + 1 for i, b, e, x, s in zip(in_shape, begin, end, extent, strides)]
    return begin, end, out


def check_shapes(x_shape: tuple, w_shape: tuple, group: int, n_w_scale: int, n_w_zero_point: int,
                 b_shape: tuple | None, kernel_shape=None, scalars: dict | None = None,
                 op: str = "QLinearConv") -> None:
    """Raise ValueError for shapes the spec rules out [QLinearConv: inputs w, w_scale, w_zero_point, B, group]:
    X.shape[1] == W.shape[1] * group; M divisible by group; w_scale / w_zero_point with 1 or M elements;
    B 1-D of M elements; kernel_shape (when given) equal to W's spatial shape; x_scale, x_zero_point,
    y_scale, y_zero_point (`scalars`: name -> element count) per tensor."""
    if len(x_shape) < 3 or len(w_shape) != len(x_shape):
        raise ValueError(f"{op}: x {tuple(x_shape)} and w {tuple(w_shape)} must both be N x C x D1 ... Dn")
    m, c = w_shape[0], x_shape[1]
    if group < 1 or c != w_shape[1] * group or m % group:
        raise ValueError(f"{op}: x has {c} channels, w {tuple(w_shape)} with group {group}: "
                         f"the spec needs X.shape[1] == W.shape[1] * group and M divisible by group")
    for name, count in (("w_scale", n_w_scale), ("w_zero_point", n_w_zero_point)):
        if count not in (1, m):
            raise ValueError(f"{op}: {name} has {count} elements; it must have 1 or M = {m}")
    if b_shape is not None and tuple(b_shape) != (m,):
        raise ValueError(f"{op}: B has shape {tuple(b_shape)}; it must be 1-D of M = {m} elements")
    if kernel_shape is not None and tuple(int(k) for k in kernel_shape) != tuple(w_shape[2:]):
        raise ValueError(f"{op}: kernel_shape {list(kernel_shape)} differs from w's {list(w_shape[2:])}")
    for name, count in (scalars or {}).items():
        if count != 1:
            raise ValueError(f"{op}: {name} has {count} elements; it is per tensor (one element)")


def accumulate(x: np.ndarray, x_zero_point: int, w: np.ndarray, w_zero_point: np.ndarray, group: int,
               begin: list[int], end: list[int], out: list[int], strides: list[int],
               dilations: list[int]) -> tuple[np.ndarray, int]:
    """sum (x - x_zero_point) * (w - w_zero_point) over each group's channels and the kernel, exactly
    [QLinearConv: summary; padding holds x_zero_point]. w_zero_point: 1 or M values.

    Returns (acc, bound): acc (N, M, *out) of exact integers (float32, float64 or int64, whichever holds
    every partial sum exactly), bound >= every |partial sum|."""
    n, c = x.shape[:2]
    m, cg = w.shape[:2]
    kernel = w.shape[2:]
    g, mg = group, m // group
    positions, taps = prod(out), prod(kernel)
    wz = np.asarray(w_zero_point).reshape(-1)
    # a bound from the types and zero points (no pass over the data), from the data when that one is too
    # large for float32
    xt, wt = np.iinfo(x.dtype), np.iinfo(w.dtype)
    xd_max = max(x_zero_point - xt.min, xt.max - x_zero_point)
    wd_max = max(max(z - wt.min, wt.max - z) for z in set(wz.tolist()))
    bound = cg * taps * xd_max * wd_max
    if bound >= 2**24 and x.size and w.size:
        xd_max = max(abs(int(x.min()) - x_zero_point), abs(int(x.max()) - x_zero_point))
        wd_max = int(np.abs(w.astype(np.int16) - wz.astype(np.int16).reshape((-1,) + (1,) * (w.ndim - 1))).max())
        bound = cg * taps * xd_max * wd_max
    # every partial sum is an integer of magnitude <= bound: exact in float32 below 2**24, float64 below 2**53
    dt = np.float32 if bound < 2**24 else np.float64 if bound < 2**53 else np.int64
    wd = w.astype(dt)
    wd -= wz.astype(dt).reshape((-1,) + (1,) * (w.ndim - 1))
    padded = np.zeros((n, c) + tuple(i + b + e for i, b, e in zip(x.shape[2:], begin, end)), dtype=dt)
    inner = (slice(None), slice(None)) + tuple(slice(b, b + i) for b, i in zip(begin, x.shape[2:]))
    # x - x_zero_point inside; the padded positions hold x_zero_point (the real value 0): 0 here
    np.subtract(x, np.array(x_zero_point, dtype=dt), out=padded[inner], dtype=dt)
    # im2col: cols[n, channel, *kernel offset, *output position] = padded[n, channel, o * stride + k * dilation],
    # a strided view (every index inside `padded`, as `out` was computed from its size) copied once
    sp = padded.strides[2:]
    windows = np.lib.stride_tricks.as_strided(
        padded, (n, c) + tuple(kernel) + tuple(out),
        padded.strides[:2] + tuple(t * d for t, d in zip(sp, dilations)) + tuple(t * s for t, s in zip(sp, strides)),
        writeable=False)
    cols = np.ascontiguousarray(windows)
    del padded, windows
    acc = np.matmul(wd.reshape(g, mg, cg * taps), cols.reshape(n, g, cg * taps, positions))
    return acc.reshape((n, m) + tuple(out)), bound


def qlinear_conv(x: np.ndarray, x_scale, x_zero_point, w: np.ndarray, w_scale, w_zero_point, y_scale,
                 y_zero_point, bias: np.ndarray | None = None, *, y_type: DType | str | None = None,
                 auto_pad: str = "NOTSET", dilations=None, group: int = 1, kernel_shape=None, pads=None,
                 strides=None) -> Outcome:
    """QLinearConv [QLinearConv-10: summary, attributes, inputs]. Returns the Outcome of y, the one output.

    y has the type of y_zero_point (T3; y_type when y_zero_point is a Python int) and shape
    (N, M, *output spatial shape). The Outcome's undefined maps each reason the spec leaves elements
    undefined (UNDEF_*) to the bool mask of those elements (y holds placeholders there).
    Raises ValueError for a model the spec rules out (shapes, attributes)."""
    x, w = np.asarray(x), np.asarray(w)
    y_type = dtypes.get(y_type) if y_type is not None else dtypes.from_numpy(np.asarray(y_zero_point).dtype)
    w_scale = np.asarray(w_scale, dtype=np.float32).reshape(-1)
    w_zero_point = np.asarray(w_zero_point).reshape(-1)
    check_shapes(x.shape, w.shape, int(group), w_scale.size, w_zero_point.size,
                 None if bias is None else np.shape(bias), kernel_shape,
                 {k: np.size(v) for k, v in (("x_scale", x_scale), ("x_zero_point", x_zero_point),
                                             ("y_scale", y_scale), ("y_zero_point", y_zero_point))})
    kernel = w.shape[2:]
    nd = len(kernel)
    strides = _ints(strides, nd, "strides", 1)
    dilations = _ints(dilations, nd, "dilations", 1)
    if min(strides + dilations, default=1) < 1:
        raise ValueError(f"QLinearConv: strides {strides} and dilations {dilations} must be >= 1")
    begin, end, out = resolve_padding(x.shape[2:], kernel, strides, dilations, auto_pad, pads)
    if min(out, default=1) < 1:
        raise ValueError(f"QLinearConv: the dilated kernel is larger than the padded input (output {out})")
    m = w.shape[0]
    shape = (x.shape[0], m) + tuple(out)
    xs, ys = (float(np.asarray(v, np.float32).reshape(-1)[0]) for v in (x_scale, y_scale))
    ws = w_scale.tolist()
    if not all(v > 0 and isfinite(v) for v in [xs, ys] + ws):  # NaN fails v > 0
        return Outcome((np.zeros(shape, dtype=y_type.np_dtype),), {UNDEF_SCALE: np.ones(shape, dtype=bool)})
    acc, bound = accumulate(x, int(np.asarray(x_zero_point).reshape(-1)[0]), w, w_zero_point, int(group),
                            begin, end, out, strides, dilations)
    undefined = {}
    if bias is not None:
        bias = np.asarray(bias, dtype=np.int64)
        acc = acc.astype(np.float64) + bias.astype(np.float64).reshape((1, m) + (1,) * nd)
        bound += int(np.abs(bias).max()) if bias.size else 0
    if bound > INT32_MAX:
        outside = (acc < INT32_MIN) | (acc > INT32_MAX)
        if outside.any():
            undefined[UNDEF_ACC_INT32] = outside
            acc = np.where(outside, 0, acc)
    unique = {s: multiplier(xs, s, ys) for s in set(ws)}
    multipliers = [unique[s] for s in (ws * m if len(ws) == 1 else ws)]
    y = requantize(acc, multipliers, int(np.asarray(y_zero_point).reshape(-1)[0]), y_type, min(bound, 2**31))
    return Outcome((y,), undefined)


def _attr(attrs: dict, name: str, default=None):
    v = attrs.get(name, default)
    return v.decode() if isinstance(v, bytes) else v


def qlinear_conv_node(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
    """QLinearConv as a graph node, for the opconform backend [QLinearConv-10]. Undefined elements
    hold placeholders (the suite has no expectation for them)."""
    if len(inputs) not in (8, 9):
        raise ValueError(f"QLinearConv takes 8 or 9 inputs, got {len(inputs)}")
    x, xs, xz, w, ws, wz, ys, yz = inputs[:8]
    b = inputs[8] if len(inputs) == 9 else None
    for name, v in zip(("x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale",
                        "y_zero_point"), inputs[:8]):
        if v is None:
            raise ValueError(f"QLinearConv: input {name} is required")
    return list(qlinear_conv(x, xs, xz, w, ws, wz, ys, yz, b, auto_pad=_attr(attrs, "auto_pad", "NOTSET"),
                             dilations=attrs.get("dilations"), group=int(attrs.get("group", 1)),
                             kernel_shape=attrs.get("kernel_shape"), pads=attrs.get("pads"),
                             strides=attrs.get("strides")).outputs)


def qlinear_conv_check(shapes: list[tuple | None], attrs: dict, opset: int) -> None:
    """What a model must satisfy before any data [QLinearConv-10], from the static shape of each node
    input (None where unknown): raises ValueError for a model the spec rules out."""
    shapes = list(shapes) + [None] * (9 - len(shapes))
    x, w, ws, wz, b = shapes[0], shapes[3], shapes[4], shapes[5], shapes[8]
    auto_pad = attrs.get("auto_pad", "NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad not in AUTO_PADS:
        raise ValueError(f"QLinearConv: auto_pad must be one of {', '.join(AUTO_PADS)}, not {auto_pad!r}")
    if auto_pad != "NOTSET" and attrs.get("pads") is not None:
        raise ValueError("QLinearConv: pads cannot be used together with auto_pad " + auto_pad)
    if x is None or w is None:
        return
    group = int(attrs.get("group", 1))
    check_shapes(tuple(x), tuple(w), group, prod(ws) if ws is not None else 1, prod(wz) if wz is not None else 1,
                 b, attrs.get("kernel_shape"),
                 {name: prod(s) for name, s in zip(("x_scale", "x_zero_point", "y_scale", "y_zero_point"),
                                                   (shapes[1], shapes[2], shapes[6], shapes[7])) if s is not None})
    nd = len(w) - 2
    for name, n in (("strides", nd), ("dilations", nd), ("pads", 2 * nd)):
        if attrs.get(name) is not None and len(attrs[name]) != n:
            raise ValueError(f"QLinearConv: {name} has {len(attrs[name])} values; the kernel needs {n}")


# the opconform backend calls this at prepare with the static shapes it knows (graph inputs, initializers)
qlinear_conv_node.validate_shapes = qlinear_conv_check


# (domain, op) -> node function: generator.reference.lookup finds it here
NODES = {("", "QLinearConv"): qlinear_conv_node}
