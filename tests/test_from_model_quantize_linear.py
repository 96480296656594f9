"""gen-cases --from-model on QuantizeLinear nodes: per-tensor and per-axis, the model's constants kept bit for bit, the
opconform backend passing every case, a fault model failing them, and the probe of undefined inputs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import helper

from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts


def _model():
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="/act/Q"),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"], name="/act/DQ"),
             helper.make_node("QuantizeLinear", ["d", "sc", "zc"], ["y"], name="/ch/Q", axis=1)]
    inits = [tensor(np.float32(0.05), "s", "float"), tensor(np.uint8(129), "z", "uint8"),
             tensor(np.linspace(0.1, 0.8, 8).astype(np.float32), "sc", "float"), tensor(np.arange(8) - 4, "zc", "int8")]
    return graph_model(nodes, [("x", "float", ["batch", 8])], [("y", "int8", ["batch", 8])], inits, 17)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ql")
    return tmp, _model(), *from_model(_model(), tmp)


def test_covered_nodes_and_the_summary(suite):
    tmp, model, out, manifest = suite
    info = manifest["model"]
    assert [n["op"] for n in info["covered"]] == ["QuantizeLinear", "DequantizeLinear", "QuantizeLinear"]
    assert info["not_covered"] == {} and info["skipped"] == []
    assert info["dims"] == {"batch": 2}
    meta = json.loads((out / "node" / info["covered"][2]["cases"][0] / "case.json").read_text())
    assert meta["source"]["node"] == "/ch/Q" and meta["source"]["index"] == 2
    assert meta["params"]["granularity"] == "per-axis" and meta["opset"] == 17
    assert set(meta["inputs_from"]) >= {"edge", "random"}


def test_constants_are_the_models(suite):
    tmp, model, out, _ = suite
    assert check_constants(out, model) == 8  # 2 per node case (Q, DQ, Q), 2 in the chain's graph case


def test_a_qdq_pair_is_a_chain_case_too(suite):
    tmp, model, out, manifest = suite
    chains = manifest["model"]["chains"]
    assert [c["nodes"] for c in chains] == [["/act/Q", "/act/DQ"]]
    meta = json.loads((out / "graph" / chains[0]["cases"][0] / "case.json").read_text())
    assert meta["family"] == "chains" and meta["params"]["pattern"] == "qdq" and meta["params"]["zero_point"] == 129
    assert "chains.qdq_pair_removed" not in meta["untold"]
    failed = verdicts(run_suite(out, "fault:chains.qdq_pair_removed", tmp))
    assert failed.get("fail", 0) > 0


def test_the_reference_passes_and_a_fault_fails(suite):
    tmp, model, out, _ = suite
    assert set(verdicts(run_suite(out, "opconform", tmp))) == {"pass"}
    failed = verdicts(run_suite(out, "fault:quantize_linear.round_half_away", tmp))
    assert failed.get("fail", 0) > 0
