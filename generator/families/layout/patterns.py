"""The patterns (TFLite form: NHWC, OHWI weights), each where NHWC <-> NCHW converters and NHWC backends go wrong.

A pattern: fn(rng, d=None) -> Pattern draws its weights from rng and takes its sizes and attribute values
from d (Dims; None: the suite's); @CATALOGUE names its case test_layout_<fn name>."""

from __future__ import annotations

import itertools
from typing import Callable

import numpy as np

from generator import axes, sampling
from generator.family import Catalogue
from generator.families.layout.cases import _uniform
from generator.families.layout.builder import _B, _shape_text, _stride_text, _window_text
from generator.families.layout.pattern import BROADCAST, EXPLICIT, FAMILY, PROPAGATION, Pattern
from generator.reference import layout as L

CATALOGUE = Catalogue(FAMILY.prefix + "_")


@CATALOGUE
def conv_elementwise_chain(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    full = (1,) + b.shape(c)[1:]
    t = b.op("add", [c, b.const("bias_map", full)], "added")
    t = b.op("relu", [t], "relu")
    t = b.op("mul", [t, b.const("scale_map", full)], "scaled")
    t = b.op("sub", [t, c], "diff")
    t = b.op("abs", [t], "abs")
    t = b.op("logistic", [t], "sigmoid")
    t = b.op("tanh", [t], "y")
    return Pattern("Add", PROPAGATION, b.done(t), what="Conv -> Add / Relu / Mul / Sub / Abs / Sigmoid / Tanh: "
                   "transparent ops carry NCHW on, full-rank weights are transposed")


def _concat(b: _B, axis: int, other_c: int = 2, ambiguous: bool = False) -> L.Graph:
    d = b.d
    if ambiguous:  # C == H == W: SAME, stride 1 keeps them equal on the conv's output
        s = d.size("S", 4, 1, 6)
        x = b.input("x", (d.size("N", 1, 1, 3), s, s, s))
        c = b.conv(x, s, "conv", vary_padding=False)
        other_c = s
    else:
        c = b.image_conv(n=1)
        other_c = d.size("other", other_c, 1, 8)
    n, h, w, cout = b.shape(c)
    other = (n, h, w, other_c) if axis in (3, -1) else (n, other_c, w, cout)
    x2 = b.input("x2", other)
    return b.done(b.op("concat", [c, x2], "y", axis=axis))


@CATALOGUE
def conv_concat_channel_axis(rng, d=None) -> Pattern:
    return Pattern("Concat", PROPAGATION, _concat(_B(rng, d), 3),
                   what="Concat axis 3 (C) of a Conv output and a graph input propagation reaches only through "
                        "the Concat: ONNX axis 1, the second input NCHW too")


@CATALOGUE
def conv_concat_negative_axis(rng, d=None) -> Pattern:
    return Pattern("Concat", PROPAGATION, _concat(_B(rng, d), -1),
                   what="Concat axis -1 (C): ONNX axis -3")


@CATALOGUE
def conv_concat_height_negative_axis(rng, d=None) -> Pattern:
    g = _concat(_B(rng, d), -3, other_c=8)
    h, total = g.tensors["conv"].shape[1], g.tensors["y"].shape[1]
    return Pattern("Concat", PROPAGATION, g,
                   what=f"Concat axis -3 (H, {h} + {total - h} = {total}): ONNX axis -2")


@CATALOGUE
def conv_concat_ambiguous_4x4x4(rng, d=None) -> Pattern:
    g = _concat(_B(rng, d), 3, ambiguous=True)
    s = g.tensors["conv"].shape[1]
    return Pattern("Concat", PROPAGATION, g,
                   what=f"C == H == W == {s}: a converter that guesses the layout from the shape cannot tell")


def _reshape_form(b: _B) -> dict:
    """How the twin's RESHAPE takes its new shape: as a second input (TFLite's converter), or in its options
    only (one input: tflite2onnx #23 misses it); the op attribute tflite_writer reads."""
    form = b.d.pick("reshape_form", "input", ["input", "options"])
    return {} if form == "input" else {"tflite_shape": "options"}


def _conv_to_fc(b: _B, terminate: str) -> tuple[L.Graph, list[int]]:
    c = b.image_conv(n=1, padding="VALID")  # the suite's: (1, 3, 5, 11)
    n, h, w, cout = b.shape(c)
    shape = [n, h * w * cout]
    attrs = {"shape": shape} if terminate == "reshape" else {"shape": shape, "axis": 1}
    attrs.update(_reshape_form(b))
    f = b.op(terminate, [c], "flat", **attrs)
    units = b.d.size("units", 13, 1, 16)
    w, bias = b.const("fc_weights", (units, shape[1])), b.const("fc_bias", (units,))
    return b.done(b.op("fully_connected", [f, w, bias], "y")), shape


@CATALOGUE
def conv_reshape_fully_connected(rng, d=None) -> Pattern:
    g, shape = _conv_to_fc(_B(rng, d), "reshape")
    return Pattern("Reshape", PROPAGATION, g,
                   what=f"Conv -> Reshape {shape} -> FullyConnected: Reshape terminates; the flattened order is "
                        "NHWC's, so the ONNX graph must restore NHWC before it")


@CATALOGUE
def conv_flatten_fully_connected(rng, d=None) -> Pattern:
    g, _ = _conv_to_fc(_B(rng, d), "flatten")
    return Pattern("Flatten", PROPAGATION, g,
                   what="Conv -> Flatten -> FullyConnected (Gemm): as with Reshape")


@CATALOGUE
def reshape_conv(rng, d=None) -> Pattern:
    b = _B(rng, d)
    image = [b.d.size("N", 1, 1, 3), b.d.size("H", 5, 1, 9), b.d.size("W", 7, 1, 9), b.d.size("C", 3, 1, 8)]
    flat = [image[0], image[1] * image[2] * image[3]]
    x = b.input("x", tuple(flat))
    r = b.op("reshape", [x], "image", shape=image, **_reshape_form(b))
    return Pattern("Reshape", PROPAGATION, b.done(b.conv(r, b.d.size("CO", 11, 1, 13), "y")),
                   what=f"Reshape {flat} -> {image} -> Conv: the Reshape output is NHWC data the Conv needs "
                        "as NCHW; the graph input keeps its layout")


@CATALOGUE
def reshape_conv_explicit_pads(rng, d=None) -> Pattern:
    b = _B(rng, d)
    image = [b.d.size("N", 1, 1, 3), b.d.size("H", 7, 3, 9), b.d.size("W", 5, 3, 9), b.d.size("C", 3, 1, 8)]
    flat = [image[0], image[1] * image[2] * image[3]]
    r = b.op("reshape", [b.input("x", tuple(flat))], "image", shape=image)
    cout = b.d.size("CO", 11, 1, 13)
    w, bias = b.const("y_weights", (cout, 3, 3, image[3])), b.const("y_bias", (cout,))
    y = b.op("conv", [r, w, bias], "y", padding="EXPLICIT", pads=[[1, 1], [1, 1]], strides=[2, 2], dilations=[1, 1])
    return Pattern("Conv", PROPAGATION, b.done(y),
                   what=f"Reshape {flat} -> {image} -> Conv 3x3 / 2 with pads 1 on every side (SAME would pad "
                        "the end only): ONNX Conv pads [1, 1, 1, 1], TFLite PAD then CONV_2D VALID")


@CATALOGUE
def channel_tail(rng, d=None) -> Pattern:
    b = _B(rng, d)
    # sizes no tail length takes: C never equals H or W (the ambiguous shapes are the equal-sizes axis's)
    x = b.input("x", (1, b.d.size("H", 2, 1, 5), b.d.size("W", 6, 1, 7), 10))
    cout = b.d.size("CO", 9, 1, 65)
    c = b.conv(x, cout, "conv", k=(1, 1), padding="VALID", vary_padding=False)
    # the decisive channel is the last: its weights 0 and bias 40 exceed every other channel's
    # |w x + b| < 10 * 1.5 * 2 + 1.5
    b.g.tensors["conv_weights"].data[-1] = 0.0
    b.g.tensors["conv_bias"].data[-1] = 40.0
    y_max = b.op("reduce_max", [c], "y_max", axes=[-1], keepdims=False)
    y = b.op("softmax", [c], "y", axis=-1)
    return Pattern("Softmax", PROPAGATION, b.done(y, y_max),
                   what=f"Conv 1x1 to C = {cout} -> Softmax and ReduceMax over C (ONNX axis -3): the last channel "
                        "holds the maximum (40) and the largest softmax share")


def _nan_payloads(rng: sampling.Stream, shape) -> np.ndarray:
    """Seeded uniform data with every float32 NaN encoding (quiet, signalling, low and high payloads, both
    signs: generator/axes.py nan_values) at the first and at the last positions (a vector's tail)."""
    x = _uniform(rng, shape).ravel()
    _, nans = axes.nan_values("float32")
    k = min(len(nans), x.size // 2)
    x[:k], x[x.size - k:] = nans[:k], nans[::-1][:k]
    return x.reshape(shape)


@CATALOGUE
def concat_transpose_reshape_nan_payloads(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv(n=1)
    n, h, w, _ = b.shape(c)
    x2 = b.input("x2", (n, h, w, b.d.size("other", 2, 1, 8)))
    cat = b.op("concat", [c, x2], "joined", axis=3)
    y = b.op("transpose", [cat], "y", perm=[0, 2, 1, 3])
    flat = b.op("reshape", [x2], "flat", shape=[n, int(np.prod(b.shape(x2)[1:]))])
    return Pattern("Transpose", PROPAGATION, b.done(y, flat), fill={"x2": _nan_payloads},
                   what="NaN payloads in a graph input that Concat (C), Transpose (swap H, W) and Reshape (with "
                        "its Transpose bracket) move without arithmetic: each NaN must stay a NaN at its place")


def _reshape_concat(rng, d, explicit: bool) -> Pattern:
    b = _B(rng, d)
    a = b.image_conv(n=1)
    n, h, w, cout = b.shape(a)
    r = b.op("reshape", [a], "reshaped", shape=[n, w, h, cout])
    c = b.input("c", (n, w, h, b.d.size("other", 2, 1, 8)))
    g = b.done(b.op("concat", [r, c], "y", axis=3))
    layouts = {"reshaped": L.last_to_first(4)} if explicit else {}
    return Pattern("Reshape", EXPLICIT, g, layouts,
                   what="Conv -> A -> Reshape -> B; Concat(B, C) -> D (the spec's example): " +
                        ("the explicit layout B: NHWC -> NCHW carries NCHW to C and D" if explicit else
                         "without an explicit layout B, C and D keep the TFLite arrangement"))


@CATALOGUE
def reshape_concat_explicit_layout(rng, d=None) -> Pattern:
    return _reshape_concat(rng, d, True)


@CATALOGUE
def reshape_concat_no_explicit_layout(rng, d=None) -> Pattern:
    return _reshape_concat(rng, d, False)


def _broadcast(b: _B, op: str, operand: Callable[[tuple], tuple], as_input: bool = False) -> L.Graph:
    c = b.image_conv()
    shape = operand(b.shape(c))
    x = b.input("operand", shape) if as_input else b.const("operand", shape)
    return b.done(b.op(op, [c, x], "y"))


@CATALOGUE
def add_broadcast_c(rng, d=None) -> Pattern:
    g = _broadcast(_B(rng, d), "add", lambda s: (s[3],))
    y, c = g.tensors["y"].shape, g.tensors["y"].shape[3]
    return Pattern("Add", BROADCAST, g,
                   what=f"Conv {_shape_text(y)} + weight ({c},): lifted to (1, 1, 1, {c}), ONNX (1, {c}, 1, 1)")


@CATALOGUE
def mul_broadcast_wc(rng, d=None) -> Pattern:
    g = _broadcast(_B(rng, d), "mul", lambda s: (s[2], s[3]))
    w, c = g.tensors["y"].shape[2:]
    return Pattern("Mul", BROADCAST, g,
                   what=f"Conv * weight (W, C) = ({w}, {c}): lifted to (1, 1, {w}, {c}), ONNX (1, {c}, 1, {w}) "
                        "with the data transposed")


@CATALOGUE
def add_broadcast_11c(rng, d=None) -> Pattern:
    g = _broadcast(_B(rng, d), "add", lambda s: (1, 1, s[3]))
    c = g.tensors["y"].shape[3]
    return Pattern("Add", BROADCAST, g,
                   what=f"Conv + weight (1, 1, C): lifted to (1, 1, 1, {c}), ONNX (1, {c}, 1, 1)")


@CATALOGUE
def mul_broadcast_wc_graph_input(rng, d=None) -> Pattern:
    g = _broadcast(_B(rng, d), "mul", lambda s: (s[2], s[3]), as_input=True)
    w, c = g.tensors["y"].shape[2:]
    return Pattern("Mul", BROADCAST, g,
                   what=f"Conv * graph input (W, C): the ONNX graph keeps the input ({w}, {c}), reshapes it to "
                        f"(1, 1, {w}, {c}) and transposes it to (1, {c}, 1, {w})")


def _reduce(b: _B, op: str, axes, keepdims: bool) -> tuple[L.Graph, str]:
    """The graph and its ONNX output shape (as text)."""
    c = b.image_conv()
    y = b.op(op, [c], "y", axes=list(axes), keepdims=keepdims)
    s = b.shape(y)
    return b.done(y), _shape_text((s[0], s[3], s[1], s[2]) if keepdims else s)


@CATALOGUE
def mean_hw_negative_axes_keepdims1(rng, d=None) -> Pattern:
    g, out = _reduce(_B(rng, d), "mean", [-3, -2], True)
    return Pattern("ReduceMean", PROPAGATION, g,
                   what=f"Mean over H, W as axes [-3, -2], keepdims 1: ONNX axes [-2, -1], output {out}")


@CATALOGUE
def mean_hw_keepdims0(rng, d=None) -> Pattern:
    g, out = _reduce(_B(rng, d), "mean", [1, 2], False)
    return Pattern("ReduceMean", PROPAGATION, g,
                   what=f"Mean over H, W, keepdims 0: output {out} in both layouts")


@CATALOGUE
def reduce_max_c_negative_axis_keepdims0(rng, d=None) -> Pattern:
    g, out = _reduce(_B(rng, d), "reduce_max", [-1], False)
    return Pattern("ReduceMax", PROPAGATION, g,
                   what=f"ReduceMax over C as axis -1, keepdims 0: ONNX axis -3, output {out}")


@CATALOGUE
def reduce_max_hc_keepdims1(rng, d=None) -> Pattern:
    g, out = _reduce(_B(rng, d), "reduce_max", [-1, 1], True)
    return Pattern("ReduceMax", PROPAGATION, g,
                   what=f"ReduceMax over C and H as axes [-1, 1], keepdims 1: ONNX axes [-3, 2], output {out}")


@CATALOGUE
def mean_h_keepdims0_softmax(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    m = b.op("mean", [c], "reduced", axes=[1], keepdims=False)
    return Pattern("ReduceMean", PROPAGATION, b.done(b.op("softmax", [m], "y", axis=-1)),
                   what="Mean over H, keepdims 0 -> (N, W, C), ONNX (N, C, W): the layout stays on the reduced "
                        "tensor, so the Softmax on C (-1) becomes axis -2 (witness: a converter that drops it)")


@CATALOGUE
def pad_asymmetric(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    pads = [[b.d.int(f"pad{i}_begin", p, 0, 3), b.d.int(f"pad{i}_end", q, 0, 3)]
            for i, (p, q) in enumerate([[1, 0], [1, 2], [3, 0], [2, 1]])]
    y = b.op("pad", [c], "y", pads=pads)
    nchw = [pads[i] for i in L.last_to_first(4)]
    onnx_pads = ",".join(str(p) for p, _ in nchw) + ", " + ",".join(str(q) for _, q in nchw)
    return Pattern("Pad", PROPAGATION, b.done(y),
                   what="Pad with different pads per axis and side, the channel axis too: NHWC ["
                        + ",".join(f"[{p},{q}]" for p, q in pads) + f"] -> ONNX pads [{onnx_pads}]")


@CATALOGUE
def slice_asymmetric(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    begin, size = [], []
    for i, (dim, b0, s0) in enumerate(zip(b.shape(c), [1, 1, 2, 3], [1, 3, 4, 7])):
        begin.append(b.d.int(f"begin{i}", b0, 0, dim - 1))
        size.append(b.d.int(f"size{i}", s0, 1, dim - begin[-1]))
    y = b.op("slice", [c], "y", begin=begin, size=size)
    return Pattern("Slice", PROPAGATION, b.done(y),
                   what=f"Slice begin {begin} size {size}: begin / size permuted with the layout")


@CATALOGUE
def strided_slice_asymmetric(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    begin, end, strides = [], [], []
    for i, (dim, s0, b0, e0) in enumerate(zip(b.shape(c), [1, -1, 3, 2], [1, 4, 1, 0], [2, 0, 7, 11])):
        s = b.d.pick(f"stride{i}", s0, [1, 2, 3, -1, -2] if dim > 1 else [1, 2, 3])
        if s > 0:
            begin.append(b.d.int(f"begin{i}", b0, 0, dim - 1))
            end.append(b.d.int(f"end{i}", e0, begin[-1] + 1, dim))
        else:  # from begin down to end + 1 (end >= 0: ONNX reads -1 as the last element)
            begin.append(b.d.int(f"begin{i}", b0, 1, dim - 1))
            end.append(b.d.int(f"end{i}", e0, 0, begin[-1] - 1))
        strides.append(s)
    y = b.op("strided_slice", [c], "y", begin=begin, end=end, strides=strides)
    back = ", ".join("NHWC"[i] for i, s in enumerate(strides) if s < 0)
    return Pattern("Slice", PROPAGATION, b.done(y),
                   what=f"StridedSlice begin {begin} end {end} strides {strides}"
                        + (f" ({back} backwards)" if back else ""))


@CATALOGUE
def softmax_channel_axis(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    return Pattern("Softmax", PROPAGATION, b.done(b.op("softmax", [c], "y", axis=-1)),
                   what="TFLite Softmax (last axis = C) after Conv: ONNX Softmax axis -3 (C of NCHW)")


@CATALOGUE
def softmax_last_axis_1x256x256(rng, d=None) -> Pattern:
    b = _B(rng, d)
    shape = (1, b.d.size("H", 256, 1, 16), b.d.size("W", 256, 1, 16))
    x = b.input("x", shape)
    m = b.op("mul", [x, b.const("scale", shape[2:])], "scaled")
    return Pattern("Softmax", PROPAGATION, b.done(b.op("softmax", [m], "y", axis=-1)),
                   what=f"{list(shape)} with no implicit op: nothing to convert, ONNX Softmax axis -1 on the same "
                        "shape; a converter that guesses NCW / NWC from the shape transposes it")


@CATALOGUE
def transpose_in_propagated_region(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    perm = b.d.pick("perm", [0, 2, 1, 3], [list(p) for p in itertools.permutations(range(4))])
    t = b.op("transpose", [c], "swapped", perm=perm)
    nchw = L.last_to_first(4)
    onnx_perm = list(L.compose(L.inverse(nchw), L.compose(perm, nchw)))
    return Pattern("Transpose", PROPAGATION, b.done(b.op("relu", [t], "y")),
                   what=f"Transpose {perm}" + (" (swap H, W)" if perm == [0, 2, 1, 3] else "")
                        + f" inside the NCHW region: ONNX perm {onnx_perm}")


@CATALOGUE
def prelu_per_channel_slope(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv()
    _, h, w, cout = b.shape(c)
    form = b.d.pick("slope", "(1, 1, C)", ["(C,)", "(1, 1, C)", "(W, C)", "(H, W, C)"])
    shape = {"(C,)": (cout,), "(1, 1, C)": (1, 1, cout), "(W, C)": (w, cout), "(H, W, C)": (h, w, cout)}[form]
    lifted = (1,) * (4 - len(shape)) + shape
    onnx_shape = tuple(lifted[i] for i in L.last_to_first(4))
    return Pattern("PRelu", BROADCAST, b.done(b.op("prelu", [c, b.const("slope", shape)], "y")),
                   what=f"PRelu with slope {form}: ONNX slope {_shape_text(onnx_shape)}")


@CATALOGUE
def split_channel_axis(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv(cout_min=2)
    cout = b.shape(c)[3]
    first = b.d.int("split", 8, 1, cout - 1)
    y1, y2 = b.op("split", [c], ["y1", "y2"], axis=3, sizes=[first, cout - first])
    return Pattern("Split", PROPAGATION, b.done(y1, y2),
                   what=f"Split on C into [{first}, {cout - first}]: ONNX axis 1, both outputs NCHW")


@CATALOGUE
def pool_max_then_average(rng, d=None) -> Pattern:
    b = _B(rng, d)
    c = b.image_conv(h=11, w=13, cout=7)
    k1, pad1, s1 = b.d.window("max_pool", b.shape(c)[1:3], (2, 2), "VALID", (2, 2))
    p = b.op("max_pool", [c], "max_pooled", kernel=list(k1), strides=list(s1), padding=pad1)
    # SAME, and a kernel that pads unless it is the identity: the pattern's point
    k2, _, s2 = b.d.window("avg_pool", b.shape(p)[1:3], (3, 3), "SAME", (1, 1), vary_padding=False, kernel_min=2)
    y = b.op("avg_pool", [p], "y", kernel=list(k2), strides=list(s2), padding="SAME")
    return Pattern("AveragePool", PROPAGATION, b.done(y),
                   what=f"MaxPool {_window_text(k1)} / {_stride_text(s1)} {pad1} then AveragePool {_window_text(k2)} "
                        + ("" if s2 == (1, 1) else f"/ {_stride_text(s2)} ") + "SAME (padding not counted)")


@CATALOGUE
def depthwise_conv_multiplier2(rng, d=None) -> Pattern:
    b = _B(rng, d)
    x = b.image(n=1, h=9, w=13, c=3)
    c, m = b.shape(x)[3], b.d.size("M", 2, 1, 3)
    k, padding, strides = b.d.window("dw", b.shape(x)[1:3], (3, 3), "SAME", (2, 2))
    w, bias = b.const("dw_weights", (1,) + k + (c * m,)), b.const("dw_bias", (c * m,))
    y = b.op("depthwise_conv", [x, w, bias], "y", padding=padding, strides=list(strides), dilations=[1, 1])
    return Pattern("Conv", PROPAGATION, b.done(y),
                   what=f"Depthwise conv, multiplier {m}, stride {_stride_text(strides)}: weights "
                        f"{_shape_text((1,) + k + (c * m,))} -> {_shape_text((c * m, 1) + k)}, group {c}")


@CATALOGUE
def rank3_explicit_nwc(rng, d=None) -> Pattern:
    b = _B(rng, d)
    x = b.input("x", (b.d.size("N", 1, 1, 3), b.d.size("W", 11, 1, 12), b.d.size("C", 5, 1, 8)))
    m = b.op("mul", [x, b.const("scale", b.shape(x)[2:])], "scaled")
    axis = b.d.pick("axis", -2, [1, 2, 0, -1, -2, -3])
    y = b.op("mean", [m], "y", axes=[axis], keepdims=True)
    ncw = L.last_to_first(3)
    onnx_axis = L.inverse(ncw)[axis % 3] - (3 if axis < 0 else 0)
    return Pattern("ReduceMean", EXPLICIT, b.done(y), {"x": ncw},
                   what=f"3-D: explicit layout x NWC -> NCW; Mul by (C,) and Mean over {'NWC'[axis % 3]} "
                        f"(axis {axis} -> {onnx_axis})")


@CATALOGUE
def rank5_conv3d(rng, d=None) -> Pattern:
    b = _B(rng, d)
    sizes = [("N", 1, 3), ("D", 3, 6), ("H", 5, 6), ("W", 7, 6), ("C", 2, 4)]
    x = b.input("x", tuple(b.d.size(name, s, 1, hi) for name, s, hi in sizes))
    k, padding, strides = b.d.window("conv", b.shape(x)[1:4], (2, 3, 3), "SAME", (1, 1, 1))
    cout = b.d.size("CO", 11, 1, 8)
    w, bias = b.const("conv_weights", k + (b.shape(x)[4], cout)), b.const("conv_bias", (cout,))
    c = b.op("conv", [x, w, bias], "conv", padding=padding, strides=list(strides), dilations=[1, 1, 1])
    t = b.op("add", [c, b.const("shift", (cout,))], "shifted")
    axis = b.d.pick("axis", 1, [1, 2, 3])
    y = b.op("mean", [b.op("relu", [t], "relu")], "y", axes=[axis], keepdims=True)
    return Pattern("Conv", PROPAGATION, b.done(y),
                   what=f"5-D: CONV_3D (NDHWC, weights DHWIO) -> Add (C,) -> Relu -> Mean over {'NDHWC'[axis]}: "
                        f"NCDHW, axis {axis + 1}")
