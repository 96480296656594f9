"""gen-cases --from-model on ConvInteger nodes: onnxruntime's quantize_dynamic on the float CNN of
tests/quantized_models.py (Conv -> DynamicQuantizeLinear + ConvInteger, uint8 and int8 weights), and a hand-made
model with the forms it does not write (per-channel w_zero_point, x_zero_point omitted by the empty name, int8 x,
SAME_LOWER with a dilation, group, 1-D); the model's constants kept bit for bit, the edges built for its weights, the
opconform backend passing every case, a fault model failing exactly the nodes it can differ on, and the skipped-reason
path."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import helper

from generator.families.conv_integer import CLAUSE, COMPARE
from generator.reference import conv_integer as ref
from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts

import quantized_models as qm

NODES = ["/k1/ConvInteger", "/k2/ConvInteger", "/k3/ConvInteger", "/k4/ConvInteger"]


def _model() -> onnx.ModelProto:
    r = np.random.default_rng(11)

    def conv(name, ins, out, **attrs):
        return helper.make_node("ConvInteger", ins, [out], name=name, **attrs)

    nodes = [conv("/k1/ConvInteger", ["x8", "w1", "", "wz1"], "y1", pads=[1, 1, 1, 1]),
             conv("/k2/ConvInteger", ["xu", "w2", "xzu"], "y2", auto_pad="SAME_LOWER", dilations=[2, 1]),
             conv("/k3/ConvInteger", ["xu", "w3", "xzu", "wz3"], "y3", group=3, strides=[2, 1]),
             conv("/k4/ConvInteger", ["x1", "w4", "xz1", "wz4"], "y4", pads=[2, 1]),
             conv("/bad/ConvInteger", ["xu", "w3", "xzu", "wz1"], "y5", group=3)]
    inits = [tensor(r.integers(-128, 128, (4, 2, 3, 3)), "w1", "int8"),
             tensor(np.array([3, -7, 0, 100]), "wz1", "int8"),
             tensor(r.integers(0, 256, (2, 3, 3, 2)), "w2", "uint8"), tensor(np.uint8(140), "xzu", "uint8"),
             tensor(r.integers(-128, 128, (6, 1, 2, 2)), "w3", "int8"), tensor(np.int8(-2), "wz3", "int8"),
             tensor(r.integers(0, 256, (3, 2, 4)), "w4", "uint8"), tensor(np.int8(5), "xz1", "int8"),
             tensor(np.array([1, 200, 128]), "wz4", "uint8")]
    outs = [(f"y{i}", "int32", None) for i in range(1, 6)]
    return graph_model(nodes, [("x8", "int8", ["batch", 2, 5, 5]), ("xu", "uint8", [1, 3, 6, 5]),
                               ("x1", "int8", [1, 2, 9])], outs, inits, 13)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ci")
    out, manifest = from_model(_model(), tmp)
    return tmp, out, manifest, _cases(out, manifest)


def _cases(out, manifest) -> dict:
    cases = {}
    for entry in manifest["model"]["covered"]:
        if entry["op"] == "ConvInteger":
            case = out / "node" / entry["cases"][0]
            cases[entry["node"]] = (json.loads((case / "case.json").read_text()), case)
    return cases


def test_every_node_accounted_for(suite):
    _, _, manifest, cases = suite
    assert sorted(cases) == NODES
    skipped = [s for s in manifest["model"]["skipped"] if s["op"] == "ConvInteger"]
    assert [s["node"] for s in skipped] == ["/bad/ConvInteger"] and "w_zero_point has 4 elements" in skipped[0]["why"]


def test_params_clause_compare_are_the_familys(suite):
    _, _, _, cases = suite
    groups = {"/k1/ConvInteger": "int8 int8 x_zp=absent w_zp=channel", "/k2/ConvInteger":
              "uint8 uint8 x_zp=present w_zp=absent", "/k3/ConvInteger": "uint8 int8 x_zp=present w_zp=tensor",
              "/k4/ConvInteger": "int8 uint8 x_zp=present w_zp=channel"}
    for node, (meta, _) in cases.items():
        assert meta["family"] == "conv_integer" and meta["opset"] == 13, node
        assert meta["compare"] == COMPARE and meta["spec"]["clause"] == CLAUSE
        assert meta["fault_group"] == groups[node] and meta["params"]["data"] == "model"
    assert ref.READING_PADDING in cases["/k4/ConvInteger"][0]["reading"]
    assert "qlinear-same-dilated" in cases["/k2/ConvInteger"][0]["reading"]
    assert cases["/k3/ConvInteger"][0]["params"]["group"] == 3
    node = onnx.load(str(cases["/k1/ConvInteger"][1] / "model.onnx")).graph.node[0]
    assert list(node.input)[2] == ""  # x_zero_point left out as the model leaves it


def test_constants_are_the_models(suite):
    _, out, _, _ = suite
    assert check_constants(out, _model()) >= 7


def test_the_edges_kill_the_faults_that_can_differ(suite):
    _, _, _, cases = suite
    kills = {n: {k for ks in m["kills"] for k in ks} for n, (m, _) in cases.items()}
    assert "conv_integer.padding_zero" in kills["/k4/ConvInteger"]
    assert "conv_integer.w_zero_point_first" in kills["/k1/ConvInteger"]
    assert "conv_integer.omitted_x_zero_point_refused" in kills["/k1/ConvInteger"]
    assert "conv_integer.w_zero_point_as_4d" in kills["/k4/ConvInteger"]  # 1-D: w made 4-D
    assert "conv_integer.same_split_swapped" in kills["/k2/ConvInteger"]
    assert "conv_integer.group_ignored" in kills["/k3/ConvInteger"]
    assert "conv_integer.int16_pair_saturation" in kills["/k3/ConvInteger"]


def test_the_reference_passes_and_a_fault_fails_where_it_can_differ(suite):
    tmp, out, _, cases = suite
    records = run_suite(out, "opconform", tmp)
    assert set(verdicts(records)) <= {"pass", "probe"}
    failed = {r["case"] for r in run_suite(out, "fault:conv_integer.w_zero_point_first", tmp)
              if r["verdict"] in ("fail", "error")}
    assert failed == {cases[n][1].name for n in ("/k1/ConvInteger", "/k4/ConvInteger")}


@pytest.mark.parametrize("weight", ["QUInt8", "QInt8"])
def test_quantize_dynamic_writes_convinteger_and_its_nodes_are_covered(tmp_path, weight):
    """quantize_dynamic on the float CNN: DynamicQuantizeLinear computes x and x_zero_point, the weights and
    w_zero_point are initializers; every ConvInteger node is covered and passes on the opconform backend."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    float_path = qm.build("float_cnn", tmp_path)
    path = tmp_path / f"cnn_dynamic_{weight}.onnx"
    with qm._quiet():
        quantize_dynamic(str(float_path), str(path), weight_type=getattr(QuantType, weight))
    out, manifest = from_model(path, tmp_path)
    cases = _cases(out, manifest)
    assert len(cases) == 2
    w_type = "uint8" if weight == "QUInt8" else "int8"
    for node, (meta, case) in cases.items():
        assert meta["fault_group"] == f"uint8 {w_type} x_zp=present w_zp=tensor", node
        assert {k: v["origin"] for k, v in meta["source"]["inputs"].items()} == \
            {"x": "computed", "w": "initializer", "x_zero_point": "computed", "w_zero_point": "initializer"}
    assert check_constants(out, path) >= 4
    records = [r for r in run_suite(out, "opconform", tmp_path) if r["op"] == "ConvInteger"]
    assert records and set(verdicts(records)) == {"pass"}
