"""gen-cases --from-model on the chains a QDQ model is made of: QuantizeLinear -> DequantizeLinear pairs and
DequantizeLinear (x, w, bias) -> Conv / MatMul -> QuantizeLinear, as graph cases of the chains family; judged by
what any float32 order of the sums gives (compare mode "range")."""

from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import helper

from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts


def qdq_conv_model():
    rng = np.random.default_rng(0)
    w = rng.integers(-127, 128, size=(4, 3, 3, 3)).astype(np.int8)
    ws = np.array([0.002, 0.003, 0.0011, 0.004], np.float32)
    inits = [tensor(np.float32(0.0123), "xs", "float"), tensor(np.uint8(120), "xz", "uint8"),
             tensor(w, "w", "int8"), tensor(ws, "ws", "float"), tensor(np.zeros(4, np.int8), "wz", "int8"),
             tensor(rng.integers(-500, 500, size=4).astype(np.int32), "b", "int32"),
             tensor((np.float32(0.0123) * ws).astype(np.float32), "bs", "float"),
             tensor(np.zeros(4, np.int32), "bz", "int32"),
             tensor(np.float32(0.0371), "ys", "float"), tensor(np.uint8(131), "yz", "uint8"),
             tensor(rng.integers(-127, 128, size=(16, 5)).astype(np.int8), "wm", "int8"),
             tensor(np.float32(0.01), "wms", "float"), tensor(np.int8(0), "wmz", "int8"),
             tensor(np.array([2, 4, 16], np.int64), "shape", "int64")]
    nodes = [helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xf"], name="dqx"),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"], name="dqw", axis=0),
             helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bf"], name="dqb", axis=0),
             helper.make_node("Conv", ["xf", "wf", "bf"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["y"], name="q"),
             helper.make_node("DequantizeLinear", ["y", "ys", "yz"], ["yf"], name="dqy"),
             helper.make_node("Reshape", ["yf", "shape"], ["r"], name="reshape"),
             helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["rq"], name="qr"),
             helper.make_node("DequantizeLinear", ["rq", "ys", "yz"], ["rf"], name="dqr"),
             helper.make_node("DequantizeLinear", ["wm", "wms", "wmz"], ["wmf"], name="dqwm"),
             helper.make_node("MatMul", ["rf", "wmf"], ["m"], name="mm"),
             helper.make_node("QuantizeLinear", ["m", "ys", "yz"], ["out"], name="qm")]
    return graph_model(nodes, [("xq", "uint8", ["batch", 3, 4, 4])], [("out", "uint8", ["batch", 4, 5])], inits, 17)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("chains")
    return tmp, qdq_conv_model(), *from_model(qdq_conv_model(), tmp)


def test_every_chain_is_found(suite):
    tmp, model, out, manifest = suite
    chains = {tuple(c["nodes"]): c for c in manifest["model"]["chains"]}
    assert set(chains) == {("q", "dqy"), ("qr", "dqr"), ("dqx", "dqw", "dqb", "conv", "q"), ("dqr", "dqwm", "mm", "qm")}
    assert all(c.get("cases") for c in chains.values())
    conv = json.loads((out / "graph" / chains["dqx", "dqw", "dqb", "conv", "q"]["cases"][0] / "case.json").read_text())
    assert conv["compare"]["mode"] == "range" and conv["params"]["pattern"] == "dq_conv_q"
    assert conv["compare"]["chain"]["pads"] == [1, 1, 1, 1] and conv["source"]["nodes"][3]["op"] == "Conv"
    # the Conv and MatMul nodes alone are no family's: listed, not dropped
    assert manifest["model"]["not_covered"]["Conv"] == 1 and manifest["model"]["not_covered"]["MatMul"] == 1


def test_the_chain_constants_are_the_models(suite):
    tmp, model, out, _ = suite
    assert check_constants(out, model) > 20


def test_the_reference_passes_and_one_unit_off_fails(suite):
    from generator import dot_bound
    from generator.serialize import read_case
    from runners.compare import compare_outputs

    tmp, model, out, manifest = suite
    assert set(verdicts(run_suite(out, "opconform", tmp))) == {"pass"}
    for chain in manifest["model"]["chains"]:
        if "mm" not in chain["nodes"] and "conv" not in chain["nodes"]:
            continue
        case = read_case(out / "graph" / chain["cases"][0])
        spec, x = case.meta["compare"], case.inputs[0]
        ops = dot_bound.operands(case.model, x)
        y = case.outputs[0][0]
        names, types = [case.model.graph.output[0].name], [__import__("generator").dtypes.get("uint8")]
        assert compare_outputs([y], [y], names, types, spec, "strict", inputs=ops).ok
        from generator.reference import dq_op_q
        _, lo, hi = dq_op_q.bounds(dq_op_q.pick(spec, ops), spec["chain"])
        off = y.copy()
        off.flat[np.argmax((lo == hi) & (y < 255))] += 1  # one element one unit up, where its range is one value
        assert not compare_outputs([y], [off], names, types, spec, "strict", inputs=ops).ok
        assert compare_outputs([y], [off], names, types, spec, "tolerant", inputs=ops).ok


def qdq_qop_model():
    """x -> DQ -> Sigmoid -> Q; -> DQ -> Add (B a constant) -> Q; -> DQ -> AveragePool -> Q; and a Concat of two
    activations (not taken: the chain takes one)."""
    inits = [tensor(np.float32(0.05), "xs", "float"), tensor(np.uint8(128), "xz", "uint8"),
             tensor(np.float32(1 / 256), "ss", "float"), tensor(np.uint8(0), "sz", "uint8"),
             tensor(np.arange(8, dtype=np.uint8).reshape(1, 1, 1, 8) * 30, "b", "uint8"),
             tensor(np.float32(0.02), "bs", "float"), tensor(np.uint8(101), "bz", "uint8"),
             tensor(np.float32(0.07), "as", "float"), tensor(np.uint8(125), "az", "uint8"),
             tensor(np.float32(0.04), "ps", "float"), tensor(np.uint8(131), "pz", "uint8")]
    nodes = [helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xf"], name="dqx"),
             helper.make_node("Sigmoid", ["xf"], ["sg"], name="sigmoid"),
             helper.make_node("QuantizeLinear", ["sg", "ss", "sz"], ["sq"], name="qs"),
             helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bf"], name="dqb"),
             helper.make_node("Add", ["xf", "bf"], ["ad"], name="add"),
             helper.make_node("QuantizeLinear", ["ad", "as", "az"], ["aq"], name="qa"),
             helper.make_node("AveragePool", ["xf"], ["pl"], name="pool", kernel_shape=[1, 3], pads=[0, 1, 0, 1],
                              count_include_pad=1),
             helper.make_node("QuantizeLinear", ["pl", "ps", "pz"], ["pq"], name="qp"),
             helper.make_node("DequantizeLinear", ["sq", "ss", "sz"], ["sf"], name="dqs"),
             helper.make_node("Concat", ["xf", "sf"], ["cc"], name="concat", axis=1),
             helper.make_node("QuantizeLinear", ["cc", "xs", "xz"], ["cq"], name="qc")]
    return graph_model(nodes, [("xq", "uint8", [1, 1, 2, 8])],
                       [("aq", "uint8", [1, 1, 2, 8]), ("pq", "uint8", [1, 1, 2, 8]), ("cq", "uint8", [1, 2, 2, 8])],
                       inits, 13)


@pytest.fixture(scope="module")
def qop_suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("chains_qop")
    return tmp, *from_model(qdq_qop_model(), tmp)


def test_the_qoperator_chains_are_found_and_judged_by_the_qlinear_bounds(qop_suite):
    tmp, out, manifest = qop_suite
    chains = {tuple(c["nodes"]): c for c in manifest["model"]["chains"]}
    for nodes, qop in ((("dqx", "sigmoid", "qs"), "QLinearSigmoid"), (("dqx", "dqb", "add", "qa"), "QLinearAdd"),
                       (("dqx", "pool", "qp"), "QLinearAveragePool")):
        assert chains[nodes].get("cases"), nodes
        case = json.loads((out / "graph" / chains[nodes]["cases"][0] / "case.json").read_text())
        assert case["compare"]["mode"] == "range" and case["compare"]["chain"]["op"] == qop
        assert case["params"]["qop"] == qop and case["params"]["rewrite"].startswith("qdq_")
    add = json.loads((out / "graph" / chains["dqx", "dqb", "add", "qa"]["cases"][0] / "case.json").read_text())
    assert add["compare"]["tensors"] == {"A": "xq", "A_scale": "xs", "A_zero_point": "xz", "B": "b",
                                         "B_scale": "bs", "B_zero_point": "bz", "C_scale": "as",
                                         "C_zero_point": "az"}
    concat = next(c for n, c in chains.items() if "concat" in n)
    assert "second activation" in concat["why"]


def test_the_qoperator_chains_pass_on_the_reference(qop_suite):
    tmp, out, _ = qop_suite
    assert set(verdicts(run_suite(out, "opconform", tmp))) == {"pass"}
    assert check_constants(out, qdq_qop_model()) > 5
