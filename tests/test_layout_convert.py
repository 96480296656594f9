"""The propagation-based layout converter on its own (generator.reference.layout): each operator class,
each pattern of layout-semantic-conversion.txt, explicit layouts, errors, and round trips both ways."""

from __future__ import annotations

import numpy as np
import pytest

from generator.families import layout as family
from generator.families.layout.builder import _B
from generator.reference import layout as L
from generator.reference.layout_graph import new_graph

NCHW = (0, 3, 1, 2)  # ONNX tensor = TFLite tensor.transpose(NCHW)


def _rng():
    return np.random.default_rng(7)


def _conv_graph(extra) -> L.Graph:
    """x (1, 5, 7, 3) -> conv (11 channels, SAME) -> c, then extra(builder, c)."""
    b = _B(_rng())
    c = b.conv(b.input("x", (1, 5, 7, 3)), 11, "c")
    extra(b, c)
    return b.g


def _ops(g: L.Graph, type_: str) -> list[L.Op]:
    return [op for op in g.ops if op.type == type_]


def _inputs(g: L.Graph, seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 2, g.tensors[n].shape).astype(np.float32) for n in g.inputs]


def _same_semantics(src: L.Graph, cv: L.Converted) -> None:
    """Running the converted graph on the converted inputs gives the converted outputs, bit for bit."""
    xs = _inputs(src)
    want = L.run(src, xs)
    got = L.run(cv.graph, [x.transpose(cv.perm(n)) for n, x in zip(src.inputs, xs)])
    assert want.defined and got.defined
    want, got = want.outputs, got.outputs
    for name, w, g in zip(src.outputs, want, got):
        np.testing.assert_array_equal(g, w.transpose(cv.perm(name)), err_msg=name)


def test_operator_classes_are_the_spec_categories():
    assert L.op_class("conv") == L.op_class("depthwise_conv") == L.op_class("max_pool") == "implicit"
    assert {L.op_class(t) for t in ("abs", "add", "relu", "logistic", "quantize", "dequantize")} == {"transparent"}
    assert {L.op_class(t) for t in ("concat", "split", "pad", "slice", "strided_slice", "mean", "reduce_max",
                                    "softmax", "transpose")} == {"attribute"}
    assert {L.op_class(t) for t in ("reshape", "flatten", "squeeze", "unsqueeze")} == {"terminate"}
    with pytest.raises(ValueError):
        L.op_class("gather")


def test_implicit_seeds_and_transparent_propagates_the_spec_example():
    # <A nhwc> -> [Conv] -> <B nhwc> -> [Abs] -> <C ?>: C takes B's layout; no op is added
    g = _conv_graph(lambda b, c: b.g.outputs.append(b.op("abs", [c], "y")))
    cv = L.convert(g)
    assert cv.perms == {"x": NCHW, "c": NCHW, "y": NCHW}
    assert [op.type for op in cv.graph.ops] == ["conv", "abs"]
    assert cv.graph.tensors["y"].shape == (1, 11, 5, 7)
    w_src, w_dst = g.tensors["c_weights"].data, cv.graph.tensors["c_weights"].data
    np.testing.assert_array_equal(w_dst, w_src.transpose(0, 3, 1, 2))  # OHWI -> OIHW: data transposed
    _same_semantics(g, cv)


def test_full_rank_weight_of_a_transparent_op_is_transposed():
    def extra(b, c):
        b.g.outputs.append(b.op("add", [c, b.const("k", (1, 5, 7, 11))], "y"))
    g = _conv_graph(extra)
    cv = L.convert(g)
    np.testing.assert_array_equal(cv.graph.tensors["k"].data, g.tensors["k"].data.transpose(NCHW))
    _same_semantics(g, cv)


@pytest.mark.parametrize("axis, want", [(3, 1), (-1, -3), (1, 2), (-3, -2), (0, 0)])
def test_concat_axis_is_remapped_and_reaches_the_other_input(axis, want):
    def extra(b, c):
        other = list(b.g.tensors[c].shape)
        other[axis] = 2
        b.g.outputs.append(b.op("concat", [c, b.input("x2", other)], "y", axis=axis))
    g = _conv_graph(extra)
    cv = L.convert(g)
    assert _ops(cv.graph, "concat")[0].attrs["axis"] == want
    assert cv.perms["x2"] == NCHW  # a graph input propagation reaches only through the Concat
    _same_semantics(g, cv)


def test_pad_slice_strided_slice_parameters_follow_the_permutation():
    def extra(b, c):
        p = b.op("pad", [c], "padded", pads=[[1, 0], [1, 2], [3, 0], [2, 1]])
        s = b.op("slice", [p], "sliced", begin=[0, 1, 2, 3], size=[1, 3, 4, 7])
        b.g.outputs.append(b.op("strided_slice", [s], "y", begin=[0, 2, 0, 1], end=[1, 0, 4, 7], strides=[1, -1, 3, 2]))
    g = _conv_graph(extra)
    cv = L.convert(g)
    assert _ops(cv.graph, "pad")[0].attrs["pads"] == [[1, 0], [2, 1], [1, 2], [3, 0]]
    sl = _ops(cv.graph, "slice")[0].attrs
    assert sl["begin"] == [0, 3, 1, 2] and sl["size"] == [1, 7, 3, 4]
    ss = _ops(cv.graph, "strided_slice")[0].attrs
    assert ss["begin"] == [0, 1, 2, 0] and ss["end"] == [1, 7, 0, 4] and ss["strides"] == [1, 2, -1, 3]
    _same_semantics(g, cv)


@pytest.mark.parametrize("axes, keepdims, want_axes, want_perm", [
    ([-3, -2], True, [-2, -1], NCHW),
    ([1, 2], False, [2, 3], (0, 1)),
    ([-1], False, [-3], (0, 1, 2)),
    ([-1, 1], True, [-3, 2], NCHW),
    ([0], False, [0], (2, 0, 1)),  # reducing N leaves an H, W, C tensor: its layout is (C, H, W)
])
def test_reduce_axes_and_the_layout_left_without_keepdims(axes, keepdims, want_axes, want_perm):
    g = _conv_graph(lambda b, c: b.g.outputs.append(b.op("mean", [c], "y", axes=axes, keepdims=keepdims)))
    cv = L.convert(g)
    assert _ops(cv.graph, "mean")[0].attrs["axes"] == want_axes
    assert cv.perm("y") == want_perm
    _same_semantics(g, cv)


def test_softmax_and_transpose_inside_the_region():
    def extra(b, c):
        t = b.op("transpose", [c], "t", perm=[0, 2, 1, 3])
        b.g.outputs.append(b.op("softmax", [t], "y", axis=-1))
    g = _conv_graph(extra)
    cv = L.convert(g)
    assert _ops(cv.graph, "transpose")[0].attrs["perm"] == [0, 1, 3, 2]
    assert _ops(cv.graph, "softmax")[0].attrs["axis"] == -3
    _same_semantics(g, cv)


def test_split_outputs_take_the_layout():
    g = _conv_graph(lambda b, c: b.g.outputs.extend(b.op("split", [c], ["y1", "y2"], axis=3, sizes=[4, 7])))
    cv = L.convert(g)
    assert _ops(cv.graph, "split")[0].attrs["axis"] == 1
    assert cv.perm("y1") == cv.perm("y2") == NCHW
    _same_semantics(g, cv)


def test_terminate_stops_propagation_and_keeps_the_flattened_order():
    def extra(b, c):
        f = b.op("reshape", [c], "flat", shape=[1, 385])
        b.g.outputs.append(b.op("relu", [f], "y"))
    g = _conv_graph(extra)
    cv = L.convert(g)
    assert "flat" not in cv.perms and "y" not in cv.perms
    kinds = [op.type for op in cv.graph.ops]
    assert kinds == ["conv", "transpose", "reshape", "relu"]  # NCHW -> NHWC restored before the Reshape
    assert cv.graph.ops[1].attrs["perm"] == list(L.inverse(NCHW))
    _same_semantics(g, cv)


def test_reshape_feeding_a_conv_gets_a_transpose_after_it():
    b = _B(_rng())
    r = b.op("reshape", [b.input("x", (1, 105))], "image", shape=[1, 5, 7, 3])
    g = b.done(b.conv(r, 11, "y"))
    cv = L.convert(g)
    assert cv.perm("x") == (0, 1) and cv.perm("image") == NCHW
    assert [op.type for op in cv.graph.ops] == ["reshape", "transpose", "conv"]
    _same_semantics(g, cv)


def test_explicit_layout_the_spec_example():
    # Graph -> A -> [Reshape] -> B;  C;  [Concat](B, C) -> D: without a map B, C, D are undecided
    g = family.CATALOGUE["test_layout_reshape_concat_no_explicit_layout"](_rng()).graph
    plain = L.convert(g)
    assert {"reshaped", "c", "y"}.isdisjoint(plain.perms)
    cv = L.convert(g, {"reshaped": NCHW})
    assert cv.perm("c") == cv.perm("y") == NCHW
    assert _ops(cv.graph, "concat")[0].attrs["axis"] == 1
    _same_semantics(g, plain)
    _same_semantics(g, cv)


def test_explicit_layout_errors_and_conflicts():
    g = _conv_graph(lambda b, c: b.g.outputs.append(b.op("abs", [c], "y")))
    with pytest.raises(L.LayoutError, match="unknown tensor"):
        L.convert(g, {"nope": NCHW})
    with pytest.raises(L.LayoutError, match="not a permutation"):
        L.convert(g, {"y": (0, 1, 1, 2)})
    with pytest.raises(L.LayoutError, match="meets"):
        L.convert(g, {"y": (0, 1, 2, 3)})  # the Conv already decided y through Abs


@pytest.mark.parametrize("shape, lifted", [((11,), (1, 11, 1, 1)), ((7, 11), (1, 11, 1, 7)),
                                           ((1, 1, 11), (1, 11, 1, 1))])
def test_broadcast_weight_is_lifted_then_propagated(shape, lifted):
    g = _conv_graph(lambda b, c: b.g.outputs.append(b.op("mul", [c, b.const("k", shape)], "y")))
    cv = L.convert(g)
    mul = _ops(cv.graph, "mul")[0]
    k = cv.graph.tensors[mul.inputs[1]]
    assert k.shape == lifted
    src = g.tensors["k"].data.reshape((1,) * (4 - len(shape)) + shape)
    np.testing.assert_array_equal(k.data, src.transpose(NCHW))
    _same_semantics(g, cv)


def test_broadcast_activation_gets_a_reshape_and_a_transpose():
    g = _conv_graph(lambda b, c: b.g.outputs.append(b.op("add", [c, b.input("v", (7, 11))], "y")))
    cv = L.convert(g)
    assert [op.type for op in cv.graph.ops] == ["conv", "reshape", "transpose", "add"]
    assert cv.graph.ops[1].attrs["shape"] == [1, 1, 7, 11]
    assert cv.perm("v") == (0, 1)
    _same_semantics(g, cv)


def test_quantize_is_transparent():
    g = new_graph("tflite")
    g.add("x", (1, 5, 7, 3))
    g.inputs = ["x"]
    g.const("w", np.ones((2, 3, 3, 3), np.float32))
    g.op("conv", ["x", "w"], [("c", (1, 5, 7, 2))], padding="SAME")
    g.op("quantize", ["c"], [("q", (1, 5, 7, 2))])
    g.op("dequantize", ["q"], [("y", (1, 5, 7, 2))])
    g.outputs = ["y"]
    assert L.convert(g).perm("y") == NCHW


@pytest.mark.parametrize("name", sorted(family.CATALOGUE))
def test_every_pattern_converts_both_ways_with_the_same_results(name):
    p = family.CATALOGUE[name](np.random.default_rng(3))
    to_onnx = L.convert(p.graph, p.explicit)
    assert to_onnx.graph.form == "onnx"
    _same_semantics(p.graph, to_onnx)
    # ONNX -> TFLite (what onnx2tf does): seeds NCHW -> NHWC from the implicit ops, explicit map inverted
    back_explicit = {n: L.inverse(to_onnx.perm(n)) for n in p.explicit}
    back = L.convert(to_onnx.graph, back_explicit)
    assert back.graph.form == "tflite"
    _same_semantics(to_onnx.graph, back)
    for n in p.graph.inputs + p.graph.outputs:  # the round trip restores every graph input / output
        assert L.compose(to_onnx.perm(n), back.perm(n)) == L.identity(p.graph.tensors[n].rank)
        assert back.graph.tensors[n].shape == p.graph.tensors[n].shape


def test_round_trip_without_terminate_ops_is_structurally_identical():
    p = family.CATALOGUE["test_layout_conv_concat_negative_axis"](np.random.default_rng(3))
    back = L.convert(L.convert(p.graph).graph).graph
    assert [(op.type, op.inputs, op.outputs, op.attrs) for op in back.ops] == \
        [(op.type, op.inputs, op.outputs, op.attrs) for op in p.graph.ops]
    for name, t in p.graph.tensors.items():
        assert back.tensors[name].shape == t.shape
        if t.data is not None:
            np.testing.assert_array_equal(back.tensors[name].data, t.data)


def test_onnx_authored_graph_converts_to_nhwc():
    g = new_graph("onnx")
    g.add("x", (1, 3, 5, 7))
    g.inputs = ["x"]
    g.const("w", np.random.default_rng(0).uniform(-1, 1, (11, 3, 3, 3)).astype(np.float32))
    g.op("conv", ["x", "w"], [("c", (1, 11, 5, 7))], padding="SAME")
    g.add("x2", (1, 2, 5, 7))
    g.inputs.append("x2")
    g.op("concat", ["c", "x2"], [("y", (1, 13, 5, 7))], axis=1)
    g.outputs = ["y"]
    cv = L.convert(g)
    assert cv.perm("x") == cv.perm("y") == (0, 2, 3, 1)
    assert _ops(cv.graph, "concat")[0].attrs["axis"] == 3
    assert cv.graph.tensors["w"].shape == (11, 3, 3, 3)  # OIHW -> OHWI
    _same_semantics(g, cv)
