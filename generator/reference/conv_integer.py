"""ONNX ConvInteger-10 (onnx.defs ConvInteger, the only version), written from its text:

    "The integer convolution operator consumes an input tensor, its zero-point, a filter, and its zero-point, and
    computes the output. The production MUST never overflow. The accumulation may overflow if and only if in 32 bits."

x (T1) and w (T2) int8 or uint8 (each of the four pairs), y int32 (T3). x_zero_point (T1, optional, default 0) "is a
scalar, which means a per-tensor/layer quantization"; w_zero_point (T2, optional, default 0) "could be a scalar or a
1-D tensor, which means a per-tensor/layer or per output channel quantization. If it's a 1-D tensor, its number of
elements should be equal to the number of output channels (M)". The attributes (auto_pad, dilations, group,
kernel_shape, pads, strides) are QLinearConv-10's text word for word, so the geometry is
generator/reference/qlinear_conv.py's (resolve_padding, check_shapes) and so is the exact integer convolution
(accumulate: im2col and one BLAS matmul, exact by a bound on the partial sums):

    y[n, m, o] = sum over the group's input channels c and the kernel offsets k of
                 (x[n, c, o * stride + k * dilation - pad_begin] - x_zero_point) * (w[m, c, k] - w_zero_point[m])

Readings where the text is silent (case.json "reading" of the cases that rest on them; docs/readings.md):
  READING_PADDING      a padded position holds x_zero_point (x - x_zero_point = 0 there: it adds nothing). The text
                       names no pad value; the operator's own example (onnx/docs/Operators.md, ConvInteger,
                       "with_padding": x = 2 .. 10 in 3 x 3, x_zero_point 1, w ones 2 x 2, pads 1) gives y[0, 0, 0, 0]
                       = 1 = (2 - 1) * 1, which x_zero_point padding gives and 0 padding (4 taps: 3 * (0 - 1) + 1 =
                       -2) does not; onnxruntime's im2col pads with the zero point too
  READING_EXACT        an element whose exact sum lies in int32 is that sum, whatever order the products are added
                       in: a 32-bit accumulator that wraps on the way gives it back (MatMulInteger's reading)
  READING_ONE_ELEMENT  a zero point of shape [1] is per tensor: a scalar's one value (onnxruntime's
                       IsScalarOr1ElementVector takes it)
  qlinear_conv.READING_SAME_DILATED  SAME padding with a dilation > 1 pads for the dilated kernel
Undefined (probe/): UNDEF_ACC_INT32, an element whose exact sum leaves int32 ("the accumulation may overflow if and
only if in 32 bits" allows the overflow and names no result; the node function gives the wrapped value there).
"""

from __future__ import annotations

from math import prod

import numpy as np

from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference import qlinear_conv as qc
from generator.reference.requantize import INT32_MAX, INT32_MIN

SPEC_FILE = "onnx.defs:ConvInteger-10"
OPSET = 10
OP = "ConvInteger"
INPUT_TYPES = ("int8", "uint8")
NAMES = ("x", "w", "x_zero_point", "w_zero_point")
AUTO_PADS = qc.AUTO_PADS

UNDEF_ACC_INT32 = ("the exact sum leaves int32: \"The accumulation may overflow if and only if in 32 bits\" allows "
                   "the overflow and names no result [ConvInteger-10: summary]")
READING_PADDING = (
    "conv-integer-padding: a padded position holds x_zero_point (x - x_zero_point = 0 there, it adds nothing); the "
    "text names no pad value, the operator's example with_padding (x_zero_point 1, pads 1) gives y[0, 0, 0, 0] = 1, "
    "which only x_zero_point padding gives (0 padding gives -2)")
READING_EXACT = ("an element whose exact sum lies in int32 is that sum, whatever order the products are added in: a "
                 "32-bit accumulator that overflows on the way wraps back to it")
READING_ONE_ELEMENT = "a zero point of shape [1] is per tensor: a scalar's one value"


def _attr(attrs: dict, name: str, default=None):
    v = attrs.get(name, default)
    return v.decode() if isinstance(v, bytes) else v


def geometry(x_shape: tuple, w_shape: tuple, attrs: dict) -> tuple[list, list, list, list, list]:
    """(pads at the beginning, at the end, output spatial shape, strides, dilations) [attributes auto_pad, pads,
    strides, dilations]; raises ValueError for attributes the text rules out."""
    kernel = tuple(w_shape[2:])
    nd = len(kernel)
    strides = qc._ints(attrs.get("strides"), nd, "strides", 1, OP)
    dilations = qc._ints(attrs.get("dilations"), nd, "dilations", 1, OP)
    if min(strides + dilations, default=1) < 1:
        raise ValueError(f"{OP}: strides {strides} and dilations {dilations} must be >= 1")
    begin, end, out = qc.resolve_padding(tuple(x_shape[2:]), kernel, strides, dilations,
                                         _attr(attrs, "auto_pad", "NOTSET"), attrs.get("pads"), OP)
    if min(out, default=1) < 1:
        raise ValueError(f"{OP}: the dilated kernel is larger than the padded input (output {out})")
    return begin, end, out, strides, dilations


def check_shapes(x_shape: tuple, w_shape: tuple, xz_shape: tuple | None, wz_shape: tuple | None,
                 attrs: dict) -> None:
    """Raise ValueError for shapes the text rules out [inputs x, w, x_zero_point, w_zero_point; group]: x and w
    N x C x D1 .. Dn and M x C/group x k1 .. kn, M divisible by group, kernel_shape w's, x_zero_point a scalar
    (READING_ONE_ELEMENT: or [1]), w_zero_point a scalar or 1-D of 1 (READING_ONE_ELEMENT) or M elements."""
    if xz_shape is not None and tuple(xz_shape) not in ((), (1,)):
        raise ValueError(f"{OP}: x_zero_point has shape {list(xz_shape)}; it is a scalar (per tensor)")
    if wz_shape is not None and len(wz_shape) > 1:
        raise ValueError(f"{OP}: w_zero_point has shape {list(wz_shape)}; it is a scalar or a 1-D tensor")
    qc.check_shapes(tuple(x_shape), tuple(w_shape), int(attrs.get("group", 1)), 1,
                    1 if wz_shape is None else prod(wz_shape), None, attrs.get("kernel_shape"), op=OP)
    geometry(x_shape, w_shape, attrs)


def exact(x: np.ndarray, w: np.ndarray, x_zero_point=None, w_zero_point=None, attrs: dict | None = None
          ) -> tuple[np.ndarray, int]:
    """The exact integer convolution (int64 of shape (N, M, *out)) and a bound on every partial sum's magnitude
    [summary; READING_PADDING: qlinear_conv.accumulate pads with x_zero_point]."""
    attrs = attrs or {}
    x, w = np.asarray(x), np.asarray(w)
    for name, v in (("x", x), ("w", w)):
        if v.dtype not in (np.int8, np.uint8):
            raise TypeError(f"{OP}: {name} must be int8 or uint8, not {v.dtype}")
    xz = 0 if x_zero_point is None else int(np.asarray(x_zero_point).reshape(-1)[0])
    wz = np.zeros(1, np.int64) if w_zero_point is None else np.asarray(w_zero_point).astype(np.int64).reshape(-1)
    begin, end, out, strides, dilations = geometry(x.shape, w.shape, attrs)
    acc, bound = qc.accumulate(x, xz, w, wz, int(attrs.get("group", 1)), begin, end, out, strides, dilations)
    return np.asarray(acc).astype(np.int64), bound


def conv_integer(x: np.ndarray, w: np.ndarray, x_zero_point=None, w_zero_point=None, **attrs) -> Outcome:
    """ConvInteger-10 [summary, inputs, attributes]: y (int32), the elements whose exact sum leaves int32 undefined
    (UNDEF_ACC_INT32; y holds the wrapped value there). Raises ValueError for a model the text rules out."""
    attrs = {k: v for k, v in attrs.items() if v is not None}
    check_shapes(np.shape(x), np.shape(w), None if x_zero_point is None else np.shape(x_zero_point),
                 None if w_zero_point is None else np.shape(w_zero_point), attrs)
    y, _ = exact(x, w, x_zero_point, w_zero_point, attrs)
    outside = (y < INT32_MIN) | (y > INT32_MAX)
    return Outcome((y.astype(np.uint32).view(np.int32),), {UNDEF_ACC_INT32: outside} if outside.any() else {})


def readings(attrs: dict, x_shape: tuple, w_shape: tuple, forms: tuple = ("tensor", "tensor"),
             x_zero_point: bool = True) -> list[str]:
    """The readings a judged ConvInteger output rests on: READING_PADDING where the model pads and has an
    x_zero_point, READING_EXACT where partial sums can leave int32 (K * 255 * 255 > 2**31 - 1), READING_ONE_ELEMENT
    for a zero point of shape [1] (forms: x_zero_point's, w_zero_point's: absent | tensor | one | channel), and
    QLinearConv's SAME-dilated reading."""
    out = []
    try:
        begin, end, _, _, _ = geometry(x_shape, w_shape, attrs)
        padded = any(begin) or any(end)
    except (ValueError, TypeError):  # symbolic dims: the data sets decide; say it
        padded = True
    if padded and x_zero_point and forms[0] != "absent":
        out.append(READING_PADDING)
    k = prod(w_shape[1:]) if all(isinstance(d, int) for d in w_shape[1:]) else INT32_MAX
    if k * 255 * 255 > INT32_MAX:
        out.append(READING_EXACT)
    if "one" in forms:
        out.append(READING_ONE_ELEMENT)
    out += qc.readings(_attr(attrs, "auto_pad", "NOTSET"), attrs.get("dilations"))[1:]
    return out


def validate(attrs: dict, opset: int, input_types: list, input_ranks: list) -> None:
    """ConvInteger-10's type constraints (x / x_zero_point T1, w / w_zero_point T2, int8 or uint8) and attributes
    (auto_pad's four values; pads not with auto_pad)."""
    for i, t in enumerate(input_types):
        if t is not None and t.name not in INPUT_TYPES:
            raise ValueError(f"{OP}: {NAMES[i]} must be int8 or uint8, not {t.name}")
    for i, j in ((0, 2), (1, 3)):
        if len(input_types) > j and input_types[j] is not None and input_types[i] is not None \
                and input_types[j].name != input_types[i].name:
            raise ValueError(f"{OP}: {NAMES[j]} must have the type of {NAMES[i]}")
    auto_pad = _attr(attrs, "auto_pad", "NOTSET")
    if auto_pad not in AUTO_PADS:
        raise ValueError(f"{OP}: auto_pad must be one of {', '.join(AUTO_PADS)}, not {auto_pad!r}")
    if auto_pad != "NOTSET" and attrs.get("pads") is not None:
        raise ValueError(f"{OP}: pads cannot be used together with auto_pad {auto_pad}")


def validate_shapes(shapes: list, attrs: dict, opset: int) -> None:
    """check_shapes, where x's and w's every dimension is known."""
    known = [None if s is None else tuple(s) for s in list(shapes) + [None] * (4 - len(shapes))]
    if known[0] is None or known[1] is None or any(s is not None and not all(isinstance(d, int) for d in s)
                                                   for s in known):
        return
    check_shapes(known[0], known[1], known[2], known[3], attrs)


def _node_attrs(attrs: dict) -> dict:
    return {k: _attr(attrs, k) for k in ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")
            if attrs.get(k) is not None}


def conv_integer_node(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list[DType]) -> list[np.ndarray]:
    """ONNX ConvInteger-10 as a graph node; where an exact sum leaves int32, its wrapped value (a placeholder)."""
    if not 2 <= len(inputs) <= 4 or inputs[0] is None or inputs[1] is None:
        raise ValueError(f"{OP} takes x, w and up to two zero points, got {len(inputs)} inputs")
    xz = inputs[2] if len(inputs) > 2 else None
    wz = inputs[3] if len(inputs) > 3 else None
    return list(conv_integer(inputs[0], inputs[1], xz, wz, **_node_attrs(attrs)).outputs)


conv_integer_node.validate = validate
conv_integer_node.validate_shapes = validate_shapes
NODES = {("", "ConvInteger"): conv_integer_node}
