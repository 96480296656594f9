"""The layout family: graph cases, each a pattern where NHWC <-> NCHW converters and NHWC backends go wrong
(layout-semantic-conversion.txt). Every case is written twice in its directory: the ONNX graph (NCHW), and
its NHWC twin as a TFLite model with its own data sets.

Each pattern is authored as a TFLite-form graph (generator.reference.layout); the propagation-based
converter of generator.reference.layout gives the ONNX form (with the explicit layout map where the pattern
needs one). Expected outputs are computed once, on the TFLite form with the kernels of
generator.reference.layout_kernels; the ONNX inputs and expected outputs are the same arrays with the
converter's layout map applied. Sizes are distinct primes (a wrong permutation changes the shape or the
values), plus deliberately ambiguous shapes (C == H == W; [1, 256, 256]) where converters guess. Data:
seeded uniform float32 in [-1, 2) (asymmetric, so that a sign or reversed order cannot pass).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from generator import sampling
from generator.case import Case, Twin, case_meta, finish_model
from generator.reference import layout as L
from generator.tflite_writer import write_tflite

FAMILY = "layout"
SPEC_FILE = "layout-semantic-conversion.txt"
OPSET = 18  # ReduceMean / ReduceMax / Split / Pad / Slice take their parameters as inputs
PROFILES = {"quick": dict(datasets=1), "default": dict(datasets=2), "exhaustive": dict(datasets=4)}

RTOL = 1e-4
ATOL_PER_SCALE = 1e-4
COMPARE_REASON = (
    "float32 sums of up to a few hundred products, exp and tanh: backends accumulate in their own order (tiling, "
    "FMA, Winograd) and approximate exp, the reference rounds a float64 result once. rtol 1e-4; atol 1e-4 times "
    "the output's largest magnitude (rounded up to a power of two), since an element that cancels to near 0 "
    "keeps the rounding error of its large terms. A layout error changes values by O(1) of that scale")


def compare_spec(names: list[str], outputs: list[list[np.ndarray]]) -> dict:
    """The case's tolerance: allclose with a per-output atol from the largest expected magnitude."""
    per = {}
    for j, name in enumerate(names):
        scale = max([1.0] + [float(np.max(np.abs(ds[j]))) for ds in outputs if ds[j].size])
        per[name] = {"atol": ATOL_PER_SCALE * 2.0 ** int(np.ceil(np.log2(scale)))}
    return {"mode": "allclose", "rtol": RTOL, "atol": ATOL_PER_SCALE, "reason": COMPARE_REASON, "outputs": per}


PROPAGATION = "Propagation based Approach"
EXPLICIT = "Explicit Layout"
BROADCAST = "Broadcast of Propagation"


@dataclass
class Pattern:
    op: str  # the operator the case is about (case.json "op")
    clause: str
    graph: L.Graph
    explicit: dict = field(default_factory=dict)
    what: str = ""


# ---------------------------------------------------------------------------------------
# the ONNX form of a graph
# ---------------------------------------------------------------------------------------
def _ints(name: str, values) -> TensorProto:
    return numpy_helper.from_array(np.asarray(values, dtype=np.int64).reshape(-1), name)


def _node(g: L.Graph, op: L.Op, inits: list) -> onnx.NodeProto:
    a, t, x, y = op.attrs, op.type, op.inputs, op.outputs
    name = y[0]

    def param(suffix: str, values) -> str:
        inits.append(_ints(f"{name}_{suffix}", values))
        return f"{name}_{suffix}"

    if t in L.IMPLICIT:
        pads = L.implicit_pads(op, g)
        flat = [b for b, _ in pads] + [e for _, e in pads]
        n = len(pads)
        common = dict(strides=list(a.get("strides", [1] * n)), pads=flat)
        if t == "max_pool":
            return helper.make_node("MaxPool", x, y, kernel_shape=list(a["kernel"]), **common)
        if t == "avg_pool":
            return helper.make_node("AveragePool", x, y, kernel_shape=list(a["kernel"]), count_include_pad=0, **common)
        w = g.tensors[x[1]]
        group = g.tensors[x[0]].shape[1] if t == "depthwise_conv" else 1
        return helper.make_node("Conv", x, y, kernel_shape=list(w.shape[2:]),
                                dilations=list(a.get("dilations", [1] * n)), group=group, **common)
    simple = {"add": "Add", "sub": "Sub", "mul": "Mul", "abs": "Abs", "relu": "Relu", "logistic": "Sigmoid",
              "tanh": "Tanh", "prelu": "PRelu"}
    if t in simple:
        return helper.make_node(simple[t], x, y)
    if t == "concat":
        return helper.make_node("Concat", x, y, axis=a["axis"])
    if t == "split":
        return helper.make_node("Split", [x[0], param("split", a["sizes"])], y, axis=a["axis"])
    if t == "pad":
        return helper.make_node("Pad", [x[0], param("pads", [b for b, _ in a["pads"]] + [e for _, e in a["pads"]])], y)
    if t in ("slice", "strided_slice"):
        begin = a["begin"]
        end = [b + s for b, s in zip(begin, a["size"])] if t == "slice" else a["end"]
        steps = [1] * len(begin) if t == "slice" else a["strides"]
        return helper.make_node("Slice", [x[0], param("starts", begin), param("ends", end),
                                          param("axes", range(len(begin))), param("steps", steps)], y)
    if t in ("mean", "reduce_max"):
        return helper.make_node("ReduceMean" if t == "mean" else "ReduceMax", [x[0], param("axes", a["axes"])], y,
                                keepdims=int(bool(a.get("keepdims", True))))
    if t == "softmax":
        return helper.make_node("Softmax", x, y, axis=a["axis"])
    if t == "transpose":
        return helper.make_node("Transpose", x, y, perm=list(a["perm"]))
    if t == "reshape":
        return helper.make_node("Reshape", [x[0], param("shape", a["shape"])], y)
    if t == "flatten":
        return helper.make_node("Flatten", x, y, axis=a.get("axis", 1))
    if t == "fully_connected":
        return helper.make_node("Gemm", x, y, transB=1)
    raise ValueError(f"no ONNX operator for {t!r}")


def onnx_model(g: L.Graph, name: str) -> onnx.ModelProto:
    """The ONNX model of a graph of form "onnx" (float32 everywhere), at opset OPSET."""
    if g.form != "onnx":
        raise ValueError("an ONNX model holds a graph of form 'onnx'")
    inits: list = []
    nodes = [_node(g, op, inits) for op in g.ops]
    used = {i for op in g.ops for i in op.inputs}
    weights = [numpy_helper.from_array(t.data.astype(np.float32), t.name) for t in g.tensors.values()
               if t.data is not None and t.name in used]

    def vi(n: str):
        return helper.make_tensor_value_info(n, TensorProto.FLOAT, list(g.tensors[n].shape))

    graph = helper.make_graph(nodes, name, [vi(n) for n in g.inputs], [vi(n) for n in g.outputs],
                              initializer=weights + inits)
    return finish_model(graph, OPSET)


# ---------------------------------------------------------------------------------------
# building the case
# ---------------------------------------------------------------------------------------
def _uniform(rng: sampling.Stream, shape) -> np.ndarray:
    return rng.uniform(-1.0, 2.0, size=shape).astype(np.float32)


def build_case(make: Callable[[sampling.Stream], Pattern], name: str, seed: int, datasets: int) -> Case:
    """Both forms of a pattern, the data sets, and the expected outputs from the TFLite form."""
    cseed = sampling.case_seed(seed, name)
    rng = sampling.Stream(cseed)
    p = make(rng)  # draws the weights first
    cv = L.convert(p.graph, p.explicit)
    tfl = p.graph
    t_inputs, t_outputs, o_inputs, o_outputs = [], [], [], []
    for _ in range(datasets):
        xs = [_uniform(rng, tfl.tensors[n].shape) for n in tfl.inputs]
        ys = L.run(tfl, xs)
        t_inputs.append(xs)
        t_outputs.append(ys)
        o_inputs.append([np.ascontiguousarray(x.transpose(cv.perm(n))) for n, x in zip(tfl.inputs, xs)])
        o_outputs.append([np.ascontiguousarray(y.transpose(cv.perm(n))) for n, y in zip(tfl.outputs, ys)])
    twin = Twin(
        format="tflite", model=write_tflite(tfl, description=name),
        input_names=list(tfl.inputs), output_names=list(tfl.outputs),
        input_perms=[list(L.inverse(cv.perm(n))) for n in tfl.inputs],
        output_perms=[list(L.inverse(cv.perm(n))) for n in tfl.outputs],
        inputs=t_inputs, outputs=t_outputs)
    meta = case_meta(op=p.op, domain="", opset=OPSET, family=FAMILY, spec_file=SPEC_FILE, clause=p.clause,
                     compare=compare_spec(list(tfl.outputs), t_outputs), flags=["random", "layout"], seed=cseed,
                     params={"what": p.what, "explicit_layouts": {k: list(v) for k, v in sorted(p.explicit.items())},
                             "ops": [op.type for op in tfl.ops]})
    return Case(name, "graph", onnx_model(cv.graph, name), o_inputs, o_outputs, meta, twin)


_BY_WHAT: dict[str, str] = {}


def source_pattern(meta: dict) -> Pattern:
    """The pattern of a graph case (its TFLite-form source graph and explicit layouts) rebuilt as build_case
    made it: PATTERNS[name] drawing from numpy's PCG64 seeded with the case's seed. The name is case.json's
    "name", or for an in-memory case the pattern whose "what" the params carry. Fault models convert it
    (generator/reference/layout_faults.py)."""
    name = meta.get("name")
    if name is None:
        if not _BY_WHAT:
            _BY_WHAT.update((m(sampling.Stream(0)).what, n) for n, m in PATTERNS.items())
        name = _BY_WHAT[meta["params"]["what"]]
    return PATTERNS[name](sampling.Stream(meta["seed"]))


def work(profile: str = "default", seed: int = 0, max_opset: int | None = None) -> list[Callable[[], Iterator[Case]]]:
    """One unit per pattern. No case is written below opset OPSET."""
    if max_opset is not None and max_opset < OPSET:
        return []
    datasets = PROFILES[profile]["datasets"]
    return [lambda n=n, m=m: iter([build_case(m, n, seed, datasets)]) for n, m in sorted(PATTERNS.items())]


# ---------------------------------------------------------------------------------------
# the patterns (TFLite form: NHWC, OHWI weights)
# ---------------------------------------------------------------------------------------
PATTERNS: dict[str, Callable[[sampling.Stream], Pattern]] = {}


def _pattern(fn: Callable[[sampling.Stream], Pattern]):
    PATTERNS[f"test_layout_{fn.__name__}"] = fn
    return fn


class _B:
    """A TFLite-form graph under construction; output shapes come from running the kernels on zeros."""

    def __init__(self, rng: sampling.Stream):
        self.g = L.new_graph("tflite")
        self.rng = rng

    def input(self, name: str, shape) -> str:
        self.g.add(name, shape)
        self.g.inputs.append(name)
        return name

    def const(self, name: str, shape) -> str:
        return self.g.const(name, self.rng.uniform(-1.0, 1.5, size=shape).astype(np.float32))

    def op(self, type_: str, inputs: list[str], outputs, **attrs) -> str | list[str]:
        names = [outputs] if isinstance(outputs, str) else list(outputs)
        probe = L.Op(type_, inputs, names, attrs)
        vals = [self.g.tensors[n].data if self.g.tensors[n].data is not None
                else np.zeros(self.g.tensors[n].shape, np.float32) for n in inputs]
        shapes = [r.shape for r in L.run_op(probe, vals, "tflite")]
        self.g.op(type_, inputs, [(n, s) for n, s in zip(names, shapes)], **attrs)
        return outputs

    def conv(self, x: str, cout: int, name: str, k=(3, 3), padding="SAME", strides=(1, 1)) -> str:
        cin = self.g.tensors[x].shape[-1]
        w = self.const(f"{name}_weights", (cout,) + tuple(k) + (cin,))
        b = self.const(f"{name}_bias", (cout,))
        return self.op("conv", [x, w, b], name, padding=padding, strides=list(strides), dilations=[1] * len(k))

    def done(self, *outputs: str) -> L.Graph:
        self.g.outputs = list(outputs)
        return self.g


@_pattern
def conv_elementwise_chain(rng) -> Pattern:
    b = _B(rng)
    x = b.input("x", (2, 5, 7, 3))
    c = b.conv(x, 11, "conv")
    t = b.op("add", [c, b.const("bias_map", (1, 5, 7, 11))], "added")
    t = b.op("relu", [t], "relu")
    t = b.op("mul", [t, b.const("scale_map", (1, 5, 7, 11))], "scaled")
    t = b.op("sub", [t, c], "diff")
    t = b.op("abs", [t], "abs")
    t = b.op("logistic", [t], "sigmoid")
    t = b.op("tanh", [t], "y")
    return Pattern("Add", PROPAGATION, b.done(t), what="Conv -> Add / Relu / Mul / Sub / Abs / Sigmoid / Tanh: "
                   "transparent ops carry NCHW on, full-rank weights are transposed")


def _concat(rng, axis: int, shape=(1, 5, 7, 3), other_c=2, cout=11) -> L.Graph:
    b = _B(rng)
    x = b.input("x", shape)
    c = b.conv(x, cout, "conv")
    n, h, w, _ = shape
    other = {3: (n, h, w, other_c), -1: (n, h, w, other_c), 1: (n, other_c, w, cout), -3: (n, other_c, w, cout)}[axis]
    x2 = b.input("x2", other)
    return b.done(b.op("concat", [c, x2], "y", axis=axis))


@_pattern
def conv_concat_channel_axis(rng) -> Pattern:
    return Pattern("Concat", PROPAGATION, _concat(rng, 3),
                   what="Concat axis 3 (C) of a Conv output and a graph input propagation reaches only through "
                        "the Concat: ONNX axis 1, the second input NCHW too")


@_pattern
def conv_concat_negative_axis(rng) -> Pattern:
    return Pattern("Concat", PROPAGATION, _concat(rng, -1),
                   what="Concat axis -1 (C): ONNX axis -3")


@_pattern
def conv_concat_height_negative_axis(rng) -> Pattern:
    return Pattern("Concat", PROPAGATION, _concat(rng, -3, other_c=8),
                   what="Concat axis -3 (H, 5 + 8 = 13): ONNX axis -2")


@_pattern
def conv_concat_ambiguous_4x4x4(rng) -> Pattern:
    return Pattern("Concat", PROPAGATION, _concat(rng, 3, shape=(1, 4, 4, 4), other_c=4, cout=4),
                   what="C == H == W == 4: a converter that guesses the layout from the shape cannot tell")


def _conv_to_fc(rng, terminate: str) -> L.Graph:
    b = _B(rng)
    x = b.input("x", (1, 5, 7, 3))
    c = b.conv(x, 11, "conv", padding="VALID")  # (1, 3, 5, 11)
    attrs = {"shape": [1, 165]} if terminate == "reshape" else {"shape": [1, 165], "axis": 1}
    f = b.op(terminate, [c], "flat", **attrs)
    w, bias = b.const("fc_weights", (13, 165)), b.const("fc_bias", (13,))
    return b.done(b.op("fully_connected", [f, w, bias], "y"))


@_pattern
def conv_reshape_fully_connected(rng) -> Pattern:
    return Pattern("Reshape", PROPAGATION, _conv_to_fc(rng, "reshape"),
                   what="Conv -> Reshape [1, 165] -> FullyConnected: Reshape terminates; the flattened order is "
                        "NHWC's, so the ONNX graph must restore NHWC before it")


@_pattern
def conv_flatten_fully_connected(rng) -> Pattern:
    return Pattern("Flatten", PROPAGATION, _conv_to_fc(rng, "flatten"),
                   what="Conv -> Flatten -> FullyConnected (Gemm): as with Reshape")


@_pattern
def reshape_conv(rng) -> Pattern:
    b = _B(rng)
    x = b.input("x", (1, 105))
    r = b.op("reshape", [x], "image", shape=[1, 5, 7, 3])
    return Pattern("Reshape", PROPAGATION, b.done(b.conv(r, 11, "y")),
                   what="Reshape [1, 105] -> [1, 5, 7, 3] -> Conv: the Reshape output is NHWC data the Conv needs "
                        "as NCHW; the graph input keeps its layout")


def _reshape_concat(rng, explicit: bool) -> Pattern:
    b = _B(rng)
    x = b.input("x", (1, 5, 7, 3))
    a = b.conv(x, 11, "conv")
    r = b.op("reshape", [a], "reshaped", shape=[1, 7, 5, 11])
    c = b.input("c", (1, 7, 5, 2))
    g = b.done(b.op("concat", [r, c], "y", axis=3))
    layouts = {"reshaped": L.last_to_first(4)} if explicit else {}
    return Pattern("Reshape", EXPLICIT, g, layouts,
                   what="Conv -> A -> Reshape -> B; Concat(B, C) -> D (the spec's example): " +
                        ("the explicit layout B: NHWC -> NCHW carries NCHW to C and D" if explicit else
                         "without an explicit layout B, C and D keep the TFLite arrangement"))


@_pattern
def reshape_concat_explicit_layout(rng) -> Pattern:
    return _reshape_concat(rng, True)


@_pattern
def reshape_concat_no_explicit_layout(rng) -> Pattern:
    return _reshape_concat(rng, False)


def _broadcast(rng, op: str, shape, as_input: bool = False) -> L.Graph:
    b = _B(rng)
    x = b.input("x", (2, 5, 7, 3))
    c = b.conv(x, 11, "conv")
    operand = b.input("operand", shape) if as_input else b.const("operand", shape)
    return b.done(b.op(op, [c, operand], "y"))


@_pattern
def add_broadcast_c(rng) -> Pattern:
    return Pattern("Add", BROADCAST, _broadcast(rng, "add", (11,)),
                   what="Conv (2, 5, 7, 11) + weight (11,): lifted to (1, 1, 1, 11), ONNX (1, 11, 1, 1)")


@_pattern
def mul_broadcast_wc(rng) -> Pattern:
    return Pattern("Mul", BROADCAST, _broadcast(rng, "mul", (7, 11)),
                   what="Conv * weight (W, C) = (7, 11): lifted to (1, 1, 7, 11), ONNX (1, 11, 1, 7) with the data "
                        "transposed")


@_pattern
def add_broadcast_11c(rng) -> Pattern:
    return Pattern("Add", BROADCAST, _broadcast(rng, "add", (1, 1, 11)),
                   what="Conv + weight (1, 1, C): lifted to (1, 1, 1, 11), ONNX (1, 11, 1, 1)")


@_pattern
def mul_broadcast_wc_graph_input(rng) -> Pattern:
    return Pattern("Mul", BROADCAST, _broadcast(rng, "mul", (7, 11), as_input=True),
                   what="Conv * graph input (W, C): the ONNX graph keeps the input (7, 11), reshapes it to "
                        "(1, 1, 7, 11) and transposes it to (1, 11, 1, 7)")


def _reduce(rng, op: str, axes, keepdims: bool) -> L.Graph:
    b = _B(rng)
    x = b.input("x", (2, 5, 7, 3))
    c = b.conv(x, 11, "conv")
    return b.done(b.op(op, [c], "y", axes=list(axes), keepdims=keepdims))


@_pattern
def mean_hw_negative_axes_keepdims1(rng) -> Pattern:
    return Pattern("ReduceMean", PROPAGATION, _reduce(rng, "mean", [-3, -2], True),
                   what="Mean over H, W as axes [-3, -2], keepdims 1: ONNX axes [-2, -1], output (2, 11, 1, 1)")


@_pattern
def mean_hw_keepdims0(rng) -> Pattern:
    return Pattern("ReduceMean", PROPAGATION, _reduce(rng, "mean", [1, 2], False),
                   what="Mean over H, W, keepdims 0: output (2, 11) in both layouts")


@_pattern
def reduce_max_c_negative_axis_keepdims0(rng) -> Pattern:
    return Pattern("ReduceMax", PROPAGATION, _reduce(rng, "reduce_max", [-1], False),
                   what="ReduceMax over C as axis -1, keepdims 0: ONNX axis -3, output (2, 5, 7)")


@_pattern
def reduce_max_hc_keepdims1(rng) -> Pattern:
    return Pattern("ReduceMax", PROPAGATION, _reduce(rng, "reduce_max", [-1, 1], True),
                   what="ReduceMax over C and H as axes [-1, 1], keepdims 1: ONNX axes [-3, 2], output (2, 1, 1, 7)")


@_pattern
def mean_h_keepdims0_softmax(rng) -> Pattern:
    b = _B(rng)
    c = b.conv(b.input("x", (2, 5, 7, 3)), 11, "conv")
    m = b.op("mean", [c], "reduced", axes=[1], keepdims=False)
    return Pattern("ReduceMean", PROPAGATION, b.done(b.op("softmax", [m], "y", axis=-1)),
                   what="Mean over H, keepdims 0 -> (N, W, C), ONNX (N, C, W): the layout stays on the reduced "
                        "tensor, so the Softmax on C (-1) becomes axis -2 (witness: a converter that drops it)")


@_pattern
def pad_asymmetric(rng) -> Pattern:
    b = _B(rng)
    c = b.conv(b.input("x", (2, 5, 7, 3)), 11, "conv")
    y = b.op("pad", [c], "y", pads=[[1, 0], [1, 2], [3, 0], [2, 1]])
    return Pattern("Pad", PROPAGATION, b.done(y),
                   what="Pad with different pads per axis and side, the channel axis too: NHWC [[1,0],[1,2],[3,0],"
                        "[2,1]] -> ONNX pads [1,2,1,3, 0,1,2,0]")


@_pattern
def slice_asymmetric(rng) -> Pattern:
    b = _B(rng)
    c = b.conv(b.input("x", (2, 5, 7, 3)), 11, "conv")
    y = b.op("slice", [c], "y", begin=[1, 1, 2, 3], size=[1, 3, 4, 7])
    return Pattern("Slice", PROPAGATION, b.done(y),
                   what="Slice begin [1, 1, 2, 3] size [1, 3, 4, 7]: begin / size permuted with the layout")


@_pattern
def strided_slice_asymmetric(rng) -> Pattern:
    b = _B(rng)
    c = b.conv(b.input("x", (2, 5, 7, 3)), 11, "conv")
    y = b.op("strided_slice", [c], "y", begin=[1, 4, 1, 0], end=[2, 0, 7, 11], strides=[1, -1, 3, 2])
    return Pattern("Slice", PROPAGATION, b.done(y),
                   what="StridedSlice begin [1, 4, 1, 0] end [2, 0, 7, 11] strides [1, -1, 3, 2] (H backwards)")


@_pattern
def softmax_channel_axis(rng) -> Pattern:
    b = _B(rng)
    c = b.conv(b.input("x", (2, 5, 7, 3)), 11, "conv")
    return Pattern("Softmax", PROPAGATION, b.done(b.op("softmax", [c], "y", axis=-1)),
                   what="TFLite Softmax (last axis = C) after Conv: ONNX Softmax axis -3 (C of NCHW)")


@_pattern
def softmax_last_axis_1x256x256(rng) -> Pattern:
    b = _B(rng)
    x = b.input("x", (1, 256, 256))
    m = b.op("mul", [x, b.const("scale", (256,))], "scaled")
    return Pattern("Softmax", PROPAGATION, b.done(b.op("softmax", [m], "y", axis=-1)),
                   what="[1, 256, 256] with no implicit op: nothing to convert, ONNX Softmax axis -1 on the same "
                        "shape; a converter that guesses NCW / NWC from the shape transposes it")


@_pattern
def transpose_in_propagated_region(rng) -> Pattern:
    b = _B(rng)
    c = b.conv(b.input("x", (2, 5, 7, 3)), 11, "conv")
    t = b.op("transpose", [c], "swapped", perm=[0, 2, 1, 3])
    return Pattern("Transpose", PROPAGATION, b.done(b.op("relu", [t], "y")),
                   what="Transpose [0, 2, 1, 3] (swap H, W) inside the NCHW region: ONNX perm [0, 1, 3, 2]")


@_pattern
def prelu_per_channel_slope(rng) -> Pattern:
    b = _B(rng)
    c = b.conv(b.input("x", (2, 5, 7, 3)), 11, "conv")
    return Pattern("PRelu", BROADCAST, b.done(b.op("prelu", [c, b.const("slope", (1, 1, 11))], "y")),
                   what="PRelu with slope (1, 1, C): ONNX slope (1, 11, 1, 1)")


@_pattern
def split_channel_axis(rng) -> Pattern:
    b = _B(rng)
    c = b.conv(b.input("x", (2, 5, 7, 3)), 11, "conv")
    y1, y2 = b.op("split", [c], ["y1", "y2"], axis=3, sizes=[8, 3])
    return Pattern("Split", PROPAGATION, b.done(y1, y2),
                   what="Split on C into [8, 3]: ONNX axis 1, both outputs NCHW")


@_pattern
def pool_max_then_average(rng) -> Pattern:
    b = _B(rng)
    c = b.conv(b.input("x", (2, 11, 13, 3)), 7, "conv")
    p = b.op("max_pool", [c], "max_pooled", kernel=[2, 2], strides=[2, 2], padding="VALID")
    y = b.op("avg_pool", [p], "y", kernel=[3, 3], strides=[1, 1], padding="SAME")
    return Pattern("AveragePool", PROPAGATION, b.done(y),
                   what="MaxPool 2x2 / 2 VALID then AveragePool 3x3 SAME (padding not counted)")


@_pattern
def depthwise_conv_multiplier2(rng) -> Pattern:
    b = _B(rng)
    x = b.input("x", (1, 9, 13, 3))
    w, bias = b.const("dw_weights", (1, 3, 3, 6)), b.const("dw_bias", (6,))
    y = b.op("depthwise_conv", [x, w, bias], "y", padding="SAME", strides=[2, 2], dilations=[1, 1])
    return Pattern("Conv", PROPAGATION, b.done(y),
                   what="Depthwise conv, multiplier 2, stride 2: weights (1, 3, 3, 6) -> (6, 1, 3, 3), group 3")


@_pattern
def rank3_explicit_nwc(rng) -> Pattern:
    b = _B(rng)
    x = b.input("x", (1, 11, 5))
    m = b.op("mul", [x, b.const("scale", (5,))], "scaled")
    y = b.op("mean", [m], "y", axes=[-2], keepdims=True)
    return Pattern("ReduceMean", EXPLICIT, b.done(y), {"x": L.last_to_first(3)},
                   what="3-D: explicit layout x NWC -> NCW; Mul by (C,) and Mean over W (axis -2 -> -1)")


@_pattern
def rank5_conv3d(rng) -> Pattern:
    b = _B(rng)
    x = b.input("x", (1, 3, 5, 7, 2))
    w, bias = b.const("conv_weights", (2, 3, 3, 2, 11)), b.const("conv_bias", (11,))
    c = b.op("conv", [x, w, bias], "conv", padding="SAME", strides=[1, 1, 1], dilations=[1, 1, 1])
    t = b.op("add", [c, b.const("shift", (11,))], "shifted")
    y = b.op("mean", [b.op("relu", [t], "relu")], "y", axes=[1], keepdims=True)
    return Pattern("Conv", PROPAGATION, b.done(y),
                   what="5-D: CONV_3D (NDHWC, weights DHWIO) -> Add (C,) -> Relu -> Mean over D: NCDHW, axis 2")
