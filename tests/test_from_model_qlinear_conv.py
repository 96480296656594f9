"""gen-cases --from-model on QLinearConv nodes as onnxruntime's quantize_static (QOperator) writes them: a 3x3 conv with
pads 1, a strided conv, a depthwise group conv, per-channel int8 weights with and without B, auto_pad SAME_UPPER with
x, x_scale and x_zero_point computed by DynamicQuantizeLinear; the model's constants kept bit for bit, the edges
built for the model's weights and scales, the opconform backend passing every case, a fault model failing exactly the
nodes it can differ on, and the skipped-reason path."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import helper

from generator.case_reader import read_tensor
from generator.families.qlinear_conv import CLAUSE, COMPARE
from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts

CONVS = ["/c1/Conv", "/c2/Conv", "/c3/Conv", "/c4/Conv", "/c5/Conv"]


def _model() -> onnx.ModelProto:
    r = np.random.default_rng(7)

    def f(v, n):
        return tensor(np.float32(v), n, "float")

    def conv(name, ins, out, **attrs):
        return helper.make_node("QLinearConv", ins, [out], name=name, **attrs)

    nodes = [helper.make_node("QuantizeLinear", ["xf", "xs", "xz"], ["xq"], name="/in/Q"),
             conv("/c1/Conv", ["xq", "xs", "xz", "w1", "ws1", "wz1", "ys1", "yz1"], "y1", pads=[1, 1, 1, 1],
                  kernel_shape=[3, 3]),
             conv("/c2/Conv", ["xq", "xs", "xz", "w2", "ws2", "wz2", "ys2", "yz2", "b2"], "y2", strides=[2, 2]),
             conv("/c3/Conv", ["x8", "xs8", "xz8", "w3", "ws3", "wz3", "ys3", "yz3", "b3"], "y3", group=4,
                  pads=[1, 1, 1, 1]),
             conv("/c4/Conv", ["x8", "xs8", "xz8", "w4", "ws4", "wz4", "ys4", "yz4"], "y4", pads=[1, 1, 1, 1]),
             helper.make_node("DynamicQuantizeLinear", ["xf"], ["dq", "dqs", "dqz"], name="/dyn/DQL"),
             conv("/c5/Conv", ["dq", "dqs", "dqz", "w5", "ws5", "wz5", "ys5", "yz5"], "y5", auto_pad="SAME_UPPER",
                  strides=[2, 2]),
             conv("/bad/Conv", ["xq", "xs", "xz", "w1", "ws1", "wz1", "ys1", "yz1"], "y6", kernel_shape=[2, 2])]
    inits = [f(0.0215, "xs"), tensor(np.uint8(131), "xz", "uint8"),
             # per tensor, uint8 weights (u8 x u8), scales of no simple ratio
             tensor(r.integers(0, 256, (4, 3, 3, 3)), "w1", "uint8"), f(0.0037, "ws1"),
             tensor(np.uint8(121), "wz1", "uint8"), f(0.0913, "ys1"), tensor(np.uint8(118), "yz1", "uint8"),
             # per channel, symmetric int8 weights and an int32 bias, as quantize_static writes them (u8 x s8)
             tensor(r.integers(-127, 128, (4, 3, 3, 3)), "w2", "int8"),
             tensor(r.uniform(0.001, 0.005, 4).astype(np.float32), "ws2", "float"),
             tensor(np.zeros(4), "wz2", "int8"), f(0.05, "ys2"), tensor(np.uint8(100), "yz2", "uint8"),
             tensor(r.integers(-3000, 3000, 4), "b2", "int32"),
             # s8 x s8, power-of-two scales: exact requantization ties are reachable
             f(0.0625, "xs8"), tensor(np.int8(-3), "xz8", "int8"),
             tensor(r.integers(-127, 128, (4, 1, 3, 3)), "w3", "int8"),
             tensor(np.float32(2.0 ** -np.array([6, 7, 8, 7])), "ws3", "float"),
             tensor(np.zeros(4), "wz3", "int8"), f(2.0 ** -4, "ys3"), tensor(np.int8(5), "yz3", "int8"),
             tensor(r.integers(-500, 500, 4), "b3", "int32"),
             tensor(r.integers(-127, 128, (5, 4, 3, 3)), "w4", "int8"),
             tensor(r.uniform(0.001, 0.005, 5).astype(np.float32), "ws4", "float"),
             tensor(np.zeros(5), "wz4", "int8"), f(0.21, "ys4"), tensor(np.int8(-7), "yz4", "int8"),
             tensor(r.integers(0, 256, (3, 3, 3, 3)), "w5", "uint8"), f(0.004, "ws5"),
             tensor(np.uint8(128), "wz5", "uint8"), f(0.3, "ys5"), tensor(np.uint8(128), "yz5", "uint8")]
    outs = [(f"y{i}", t, None) for i, t in enumerate(["uint8", "uint8", "int8", "int8", "uint8", "uint8"], 1)]
    return graph_model(nodes, [("xf", "float", ["batch", 3, 6, 6]), ("x8", "int8", ["batch", 4, 5, 5])], outs,
                       inits, 13)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("qlc")
    out, manifest = from_model(_model(), tmp)
    cases = {}
    for entry in manifest["model"]["covered"]:
        if entry["op"] == "QLinearConv":
            case = out / "node" / entry["cases"][0]
            cases[entry["node"]] = (json.loads((case / "case.json").read_text()), case)
    return tmp, out, manifest, cases


def _data_sets(case) -> list[dict[str, np.ndarray]]:
    """Each data set's graph inputs by name."""
    model = onnx.load(str(case / "model.onnx"))
    names = [v.name for v in model.graph.input]
    return [{n: read_tensor((d / f"input_{j}.pb").read_bytes(), n) for j, n in enumerate(names)}
            for d in sorted(case.glob("test_data_set_*"), key=lambda p: int(p.name.rsplit("_", 1)[1]))]


def test_every_node_accounted_for(suite):
    _, _, manifest, cases = suite
    info = manifest["model"]
    assert sorted(cases) == CONVS and info["dims"] == {"batch": 2}
    skipped = [s for s in info["skipped"] if s["op"] == "QLinearConv"]
    assert [s["node"] for s in skipped] == ["/bad/Conv"] and "kernel_shape [2, 2]" in skipped[0]["why"]


def test_params_clause_compare_are_the_familys(suite):
    _, _, _, cases = suite
    groups = {"/c1/Conv": "explicit undilated per_tensor no_bias", "/c2/Conv": "explicit undilated per_channel bias",
              "/c3/Conv": "explicit undilated per_channel bias", "/c4/Conv": "explicit undilated per_channel no_bias",
              "/c5/Conv": "same_upper undilated per_tensor no_bias"}
    for node, (meta, case) in cases.items():
        assert meta["family"] == "qlinear_conv" and meta["opset"] == 13, node
        assert meta["compare"] == COMPARE and meta["spec"]["clause"] == CLAUSE
        assert meta["fault_group"] == groups[node] and meta["reading"].startswith("qlinear-requantization")
        assert meta["params"]["x_shape"][0] == 2 and meta["params"]["scales"] == "model"
        assert {"edge", "random"} <= set(meta["inputs_from"])
    assert cases["/c3/Conv"][0]["params"]["group"] == 4 and cases["/c2/Conv"][0]["params"]["strides"] == [2, 2]
    assert cases["/c4/Conv"][0]["params"]["bias"] == "absent"
    assert len(onnx.load(str(cases["/c4/Conv"][1] / "model.onnx")).graph.node[0].input) == 8  # B left out


def test_computed_inputs_get_plausible_values(suite):
    """x, x_scale and x_zero_point from DynamicQuantizeLinear are fed: positive finite scales, uint8 zero points."""
    _, _, _, cases = suite
    meta, case = cases["/c5/Conv"]
    assert {k: v["origin"] for k, v in meta["source"]["inputs"].items() if v["origin"] != "initializer"} == \
        {"x": "computed", "x_scale": "computed", "x_zero_point": "computed"}
    for data in _data_sets(case):
        assert data["x_scale"].dtype == np.float32 and np.isfinite(data["x_scale"]).all() and data["x_scale"] > 0
        assert data["x_zero_point"].dtype == np.uint8 and data["x"].shape == (2, 3, 6, 6)


def test_edges_are_built_for_the_models_weights(suite):
    """x at its type's ends (u8 x s8 pairs beyond int16), ties where the power-of-two scales make them exact,
    near-ties the fixed-point requantization rounds otherwise, saturation; faults that cannot differ stay untold."""
    _, _, _, cases = suite
    meta, case = cases["/c2/Conv"]
    assert any((d["x"] == 255).all() for d in _data_sets(case))
    assert "qlinear_conv.int16_pair_saturation" in {k for ks in meta["kills"] for k in ks}
    untold = {n: set(m["untold"]) for n, (m, _) in cases.items()}
    for tie in ("round_half_away", "zero_point_before_rounding", "width_tail4_round_half_away",
                "channel_tail8_round_half_away"):
        assert f"qlinear_conv.{tie}" not in untold["/c3/Conv"]
    for node in ("/c2/Conv", "/c4/Conv"):
        assert "qlinear_conv.requant_fixed_point" not in untold[node]
    assert "qlinear_conv.saturate_before_zero_point" not in untold["/c1/Conv"] | untold["/c5/Conv"]
    assert "qlinear_conv.same_split_swapped" not in untold["/c5/Conv"]
    assert "qlinear_conv.one_d_refused" in untold["/c1/Conv"]  # a 2-D node: nothing can tell it


def test_constants_are_the_models(suite):
    _, out, _, _ = suite
    assert check_constants(out, _model()) >= 5 * 6


def test_the_reference_passes_and_a_fault_fails_where_it_can_differ(suite):
    tmp, out, _, cases = suite
    records = run_suite(out, "opconform", tmp)
    assert set(verdicts(records)) == {"pass", "probe"}
    # probes come only from DynamicQuantizeLinear's case (its spec leaves the all-NaN / Inf input's output undefined)
    assert {r["case"] for r in records if r["verdict"] == "probe"} <= \
        {r["case"] for r in records if "dynamic_quantize_linear" in r["case"]}
    failed = {r["case"] for r in run_suite(out, "fault:qlinear_conv.bias_ignored", tmp) if r["verdict"] == "fail"}
    assert failed == {cases[n][1].name for n in ("/c2/Conv", "/c3/Conv")}
