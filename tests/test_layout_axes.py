"""The axes of generation over the layout patterns (generator/families/layout/variants.py, issue 21): equal sizes
(onnx2tf #960), the TFLite RESHAPE with its shape in the options only (tflite2onnx #23), Conv with explicit
pads, explicit / omitted defaults, channel vector tails, NaN payloads; and the fault models they kill."""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as S
from onnx import helper

from generator import axes, dtypes, sampling
from generator.families import layout as fam
from generator.families.layout.dims import Dims
from generator.families.layout.variants import CHANNEL_TAILS
from generator.reference import layout as L
from generator.reference.layout_graph import new_graph
from generator.reference import layout_faults as LF
from generator.tflite_writer import read_tflite, write_tflite
from runners.compare import compare_outputs

F32 = dtypes.get("float")
VARIANTS = {v.name: v for v in fam.axis_variants()}


def _case(name: str):
    if name in VARIANTS:
        return [c for c in fam.build_variant(VARIANTS[name], 0, 2) if c.kind == "graph"][0]
    return fam.build_case(fam.CATALOGUE[name], name, 0, 2)


def _meta(case) -> dict:
    return dict(case.meta, name=case.name)


def _tflite_ops(data: bytes) -> list[tuple[str, list[int], object]]:
    m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
    names = {v: k for k, v in vars(S.BuiltinOperator).items() if not k.startswith("_")}
    return [(names[m.operatorCodes[o.opcodeIndex].builtinCode], [int(i) for i in o.inputs], o.builtinOptions)
            for o in m.subgraphs[0].operators]


def _reshape_graph(form: str | None) -> L.Graph:
    g = new_graph("tflite")
    g.add("x", (1, 24))
    g.inputs.append("x")
    attrs = {"shape": [1, 2, 3, 4]} | ({"tflite_shape": form} if form else {})
    g.op("reshape", ["x"], [("y", (1, 2, 3, 4))], **attrs)
    g.outputs.append("y")
    return g


# ---------------------------------------------------------------------------------------
# (d) the RESHAPE forms
# ---------------------------------------------------------------------------------------
def test_the_writer_writes_reshape_shape_as_an_input_or_in_the_options_only():
    two = _tflite_ops(write_tflite(_reshape_graph(None)))
    one = _tflite_ops(write_tflite(_reshape_graph("options")))
    also_one = _tflite_ops(write_tflite(_reshape_graph(None), reshape_form="options"))
    assert [(op, len(ins)) for op, ins, _ in two] == [("RESHAPE", 2)]
    assert [(op, len(ins)) for op, ins, _ in one] == [("RESHAPE", 1)] == [(op, len(i)) for op, i, _ in also_one]
    assert list(one[0][2].newShape) == [1, 2, 3, 4]
    for g in (_reshape_graph(None), _reshape_graph("options")):
        assert read_tflite(write_tflite(g)).ops[0].attrs == {"shape": [1, 2, 3, 4]}
    with pytest.raises(ValueError, match="reshape_form"):
        write_tflite(_reshape_graph(None), reshape_form="attribute")


@pytest.mark.parametrize("name", ["test_layout_reshape_conv_reshape_options",
                                  "test_layout_conv_reshape_fully_connected_reshape_options"])
def test_the_options_only_twin_has_a_one_input_reshape_and_runs_on_litert(name):
    from ai_edge_litert.interpreter import Interpreter

    case = _case(name)
    assert [len(ins) for op, ins, _ in _tflite_ops(case.twin.model) if op == "RESHAPE"] == [1]
    it = Interpreter(model_content=case.twin.model)
    it.allocate_tensors()
    for x, want in zip(case.twin.inputs, case.twin.outputs):
        for d, a in zip(it.get_input_details(), x):
            it.set_tensor(d["index"], a)
        it.invoke()
        got = [it.get_tensor(d["index"]) for d in it.get_output_details()]
        assert compare_outputs(want, got, list(case.twin.output_names), [F32] * len(want), case.meta["compare"],
                               "strict").ok


def test_a_converter_reading_the_shape_input_only_is_killed_by_the_options_form_alone():
    fault = LF.BY_NAME["layout.reshape_options_shape_ignored"]
    for name, killed in (("test_layout_reshape_conv_reshape_options", True), ("test_layout_reshape_conv", False)):
        case = _case(name)
        out = LF.run(fault, case.model, case.inputs[0], _meta(case))
        assert LF.killed(fault, _meta(case), case.outputs[0], out) is killed, name


# ---------------------------------------------------------------------------------------
# (c) equal sizes and Conv with explicit pads (onnx2tf #960)
# ---------------------------------------------------------------------------------------
def test_onnx2tf_960_case_conv_from_a_reshape_with_c_h_w_8_and_pads_1():
    case = _case("test_layout_reshape_conv_explicit_pads_equal_chw")
    conv = [n for n in case.model.graph.node if n.op_type == "Conv"][0]
    attrs = {a.name: helper.get_attribute_value(a) for a in conv.attribute}
    assert attrs["pads"] == [1, 1, 1, 1] and attrs["strides"] == [2, 2]
    assert case.outputs[0][0].shape == (1, 8, 4, 4)  # the 128 values of the issue
    assert case.inputs[0][0].shape == (1, 512)
    ops = [op for op, _, _ in _tflite_ops(case.twin.model)]
    assert ops == ["RESHAPE", "PAD", "CONV_2D"]
    assert _tflite_ops(case.twin.model)[2][2].padding == S.Padding.VALID


def test_explicit_pads_are_not_same_padding():
    """3x3 / 2 on 8 with SAME pads (0, 1): the pattern's (1, 1) gives other values, which is its point."""
    p = fam.CATALOGUE["test_layout_reshape_conv_explicit_pads"](sampling.Stream(0), Dims(fixed=dict(H=8, W=8)))
    x = np.random.default_rng(0).uniform(-1, 2, p.graph.tensors["x"].shape).astype(np.float32)
    same = L.Graph("tflite", p.graph.tensors, [L.Op(o.type, o.inputs, o.outputs, dict(o.attrs)) for o in p.graph.ops],
                   p.graph.inputs, p.graph.outputs)
    same.ops[-1].attrs.update(padding="SAME")
    same.ops[-1].attrs.pop("pads")
    a, b = L.run(p.graph, [x]).outputs[0], L.run(same, [x]).outputs[0]
    assert a.shape == b.shape and not np.allclose(a, b)


@pytest.mark.parametrize("name", sorted(n for n in VARIANTS if "_equal_" in n))
def test_equal_sizes_variants_tie_the_tensor_the_layout_is_decided_on(name):
    g = fam.source_pattern(_meta(_case(name))).graph
    shapes = [t.shape for t in g.tensors.values() if t.data is None and t.rank == 4]
    if name.endswith("equal_chw"):
        assert any(len(set(s[1:])) == 1 and s[1] > 1 for s in shapes), shapes
    else:
        assert any(s[1] == s[2] > 1 and s[3] != s[1] for s in shapes), shapes


def test_guessing_the_layout_from_shapes_is_killed_only_where_sizes_are_equal():
    fault = LF.BY_NAME["layout.transpose_skipped_where_shape_unchanged"]
    assert "onnx2tf" in fault.seen_in and "960" in fault.seen_in
    for name, killed in (("test_layout_reshape_conv_equal_chw", True),
                         ("test_layout_reshape_conv_explicit_pads_equal_chw", True),
                         ("test_layout_conv_reshape_fully_connected_equal_chw", True),
                         ("test_layout_reshape_conv", False), ("test_layout_reshape_conv_explicit_pads", False),
                         ("test_layout_conv_reshape_fully_connected", False)):
        case = _case(name)
        out = LF.run(fault, case.model, case.inputs[0], _meta(case))
        assert LF.killed(fault, _meta(case), case.outputs[0], out) is killed, name


def test_hunts_draw_equal_sizes_and_rebuild_them():
    d = Dims(fixed={"equal_sizes": True})
    g = fam.CATALOGUE["test_layout_reshape_conv"](sampling.Stream(0), d).graph
    assert g.tensors["image"].shape == (1, 5, 5, 5)
    again = fam.CATALOGUE["test_layout_reshape_conv"](sampling.Stream(0), Dims(d.values)).graph
    assert again.tensors["image"].shape == (1, 5, 5, 5)
    assert Dims().equal_sizes() is False


# ---------------------------------------------------------------------------------------
# explicit defaults
# ---------------------------------------------------------------------------------------
def _attrs(case) -> dict[str, dict]:
    return {n.op_type: {a.name: helper.get_attribute_value(a) for a in n.attribute} for n in case.model.graph.node}


def test_explicit_defaults_write_every_schema_default_and_omitted_leaves_them_out():
    explicit = _attrs(_case("test_layout_pool_max_then_average_defaults_explicit"))
    omitted = _attrs(_case("test_layout_pool_max_then_average_defaults_omitted"))
    plain = _attrs(_case("test_layout_pool_max_then_average"))
    for op in ("Conv", "MaxPool", "AveragePool"):
        assert set(axes.attribute_defaults(op, fam.OPSET)) <= set(explicit[op]), op
    assert explicit["Conv"]["auto_pad"] == b"NOTSET" and explicit["MaxPool"]["storage_order"] == 0
    assert plain["AveragePool"]["count_include_pad"] == 0 and "count_include_pad" not in omitted["AveragePool"]
    assert "strides" not in omitted["Conv"] and "dilations" not in omitted["Conv"]
    assert omitted["MaxPool"]["strides"] == plain["MaxPool"]["strides"] != [1, 1]
    fc = _attrs(_case("test_layout_conv_flatten_fully_connected_defaults_explicit"))
    assert fc["Gemm"]["alpha"] == 1.0 and fc["Gemm"]["transA"] == 0 and fc["Flatten"]["axis"] == 1
    mean = _attrs(_case("test_layout_mean_hw_negative_axes_keepdims1_defaults_omitted"))
    assert "keepdims" not in mean["ReduceMean"]


# ---------------------------------------------------------------------------------------
# vector tails over C
# ---------------------------------------------------------------------------------------
def test_channel_tails_put_the_decisive_value_in_the_last_channel():
    names = [n for n in VARIANTS if n.startswith("test_layout_channel_tail_c")]
    assert sorted(int(n.rsplit("_c", 1)[1]) for n in names) == sorted(CHANNEL_TAILS)
    assert {1, 8, 9, 16, 17, 33, 65} <= set(CHANNEL_TAILS)
    for name in names:
        case = _case(name)
        c = int(name.rsplit("_c", 1)[1])
        softmax, y_max = case.outputs[0]
        assert softmax.shape[1] == c and np.all(y_max == 40.0)
        if c % 8:  # a kernel that drops the partial last vector of 8 channels loses the maximum
            assert np.all(np.argmax(softmax, axis=1) == c - 1)


# ---------------------------------------------------------------------------------------
# NaN payloads
# ---------------------------------------------------------------------------------------
def test_nan_payloads_pass_through_concat_transpose_and_reshape_bit_for_bit():
    case = _case("test_layout_concat_transpose_reshape_nan_payloads")
    _, nans = axes.nan_values("float32")
    want = set(nans.view(np.uint32).tolist())
    for ds in case.outputs:
        for y in ds:
            bits = y.view(np.uint32)[np.isnan(y)]
            assert set(bits.tolist()) == want
    y = case.outputs[0][0]
    quiet = np.where(np.isnan(y), np.float32(np.nan), y)  # a backend that quiets every NaN: still NaN
    spec = case.meta["compare"]
    assert compare_outputs([y], [quiet], ["y"], [F32], spec, "strict").ok
    assert not compare_outputs([y], [np.nan_to_num(y, nan=0.0)], ["y"], [F32], spec, "strict").ok
    assert not compare_outputs([y], [np.where(np.isnan(y), np.float32(np.inf), y)], ["y"], [F32], spec,
                               "strict").ok


# ---------------------------------------------------------------------------------------
# every fault says where it was seen
# ---------------------------------------------------------------------------------------
def test_every_layout_fault_says_where_it_was_seen():
    for f in LF.FAULTS:
        assert f.seen_in and ("measured here" in f.seen_in or "upstream" in f.seen_in
                              or f.seen_in.startswith("not seen; modelled as")), f.name


def test_a_converter_that_asks_a_layout_for_every_broadcast_refuses_the_layout_free_one_only():
    """tflite2onnx 0.4.1's refusal of softmax_last_axis_1x256x256 ("Requires layout description for <scale>")
    now has a fault model, so the error is diagnosed."""
    fault = LF.BY_NAME["layout.broadcast_lift_requires_layout"]
    for name, killed in (("test_layout_softmax_last_axis_1x256x256", True), ("test_layout_add_broadcast_c", False),
                         ("test_layout_mul_broadcast_wc_graph_input", False)):
        case = _case(name)
        out = LF.run(fault, case.model, case.inputs[0], _meta(case))
        assert LF.killed(fault, _meta(case), case.outputs[0], out) is killed, name
