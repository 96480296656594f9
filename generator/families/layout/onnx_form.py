"""The ONNX form of a graph: each TFLite-form operator as its ONNX node at opset OPSET, with the defaults written or
left out for the explicit-defaults axis."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from generator import axes
from generator.case import finish_model
from generator.families.layout.pattern import OPSET
from generator.reference import layout as L


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


def _is_default(node: onnx.NodeProto, attr: onnx.AttributeProto, schema: dict) -> bool:
    """An attribute whose value is its default: the schema's, or (strides, dilations, pads, which the schema
    states in words only) all 1 / all 0."""
    value = helper.get_attribute_value(attr)
    if attr.name in schema:
        want = schema[attr.name]
        return value == (want.encode() if isinstance(want, str) else want)
    text_default = {"strides": 1, "dilations": 1, "pads": 0}.get(attr.name)
    return node.op_type in ("Conv", "MaxPool", "AveragePool") and text_default is not None and \
        all(v == text_default for v in value)


def _with_defaults(node: onnx.NodeProto, defaults: str) -> onnx.NodeProto:
    """The explicit-defaults axis (generator/axes.py): every attribute the schema gives a default written with
    it ("explicit"), or every attribute whose value is its default left out ("omitted"); "" as _node wrote it."""
    if not defaults:
        return node
    schema = axes.attribute_defaults(node.op_type, OPSET)
    if defaults == "explicit":
        return axes.with_defaults(node, schema)
    kept = [a for a in node.attribute if not _is_default(node, a, schema)]
    del node.attribute[:]
    node.attribute.extend(kept)
    return node


def onnx_model(g: L.Graph, name: str, defaults: str = "") -> onnx.ModelProto:
    """The ONNX model of a graph of form "onnx" (float32 everywhere), at opset OPSET; defaults: the
    explicit-defaults axis (_with_defaults)."""
    if g.form != "onnx":
        raise ValueError("an ONNX model holds a graph of form 'onnx'")
    inits: list = []
    nodes = [_with_defaults(_node(g, op, inits), defaults) for op in g.ops]
    used = {i for op in g.ops for i in op.inputs}
    weights = [numpy_helper.from_array(t.data.astype(np.float32), t.name) for t in g.tensors.values()
               if t.data is not None and t.name in used]

    def vi(n: str):
        return helper.make_tensor_value_info(n, TensorProto.FLOAT, list(g.tensors[n].shape))

    graph = helper.make_graph(nodes, name, [vi(n) for n in g.inputs], [vi(n) for n in g.outputs],
                              initializer=weights + inits)
    return finish_model(graph, OPSET)
