"""gen-cases --from-model on the QLinear operators as onnxruntime's quantizer writes them (the QOperator form of the
test transformer: QLinearAdd, QLinearMul, QLinearSoftmax; of the CNN: QLinearGlobalAveragePool), and on a small
graph with a QLinearConcat whose scale another node computes (not covered, with its reason). The model's constants
kept bit for bit, the family's range compare over the case's tensor names, the opconform backend passing every
case, fault models told apart."""

from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import helper

from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts
from quantized_models import cached
from generator.reference import qlinear_ops as ref


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    path = cached("transformer_qop_u8")
    out, manifest = from_model(path, tmp_path_factory.mktemp("qop"))
    return out, manifest, path


def _qlinear(out):
    return [json.loads(p.read_text()) for p in sorted(out.glob("node/*/case.json"))
            if json.loads(p.read_text())["family"] == "qlinear_ops"]


def test_the_quantizers_qlinear_nodes_become_cases(suite):
    out, _, path = suite
    metas = _qlinear(out)
    ops = sorted(m["op"] for m in metas)
    assert ops.count("QLinearAdd") == 10 and ops.count("QLinearMul") == 3 and ops.count("QLinearSoftmax") == 1
    for m in metas:
        cmp = m["compare"]
        assert cmp["mode"] == "range" and cmp["chain"]["op"] == m["op"] and m["params"]["source"] == "model"
        first = ref.QOPS[m["op"]].zero_point_first
        assert (ref.READING_FORMULA_ROUNDING if first else ref.READING_ROUNDING) in m["reading"]
    assert check_constants(out, path) > 0


def test_the_reference_passes_and_the_faults_are_told_apart(suite, tmp_path):
    out, _, _ = suite
    records = [r for r in run_suite(out, "opconform", tmp_path) if r["family"] == "qlinear_ops"]
    assert records and verdicts(records) == {"pass": len(records)}
    # truncation is told apart at most nodes; not where the model's constants leave every result an integer or
    # saturated (the attention mask's QLinearMul by -10000, a one-hot Softmax at y_scale 1 / 256, measured: 3 of 14)
    told = [m for m in _qlinear(out) if "qlinear_ops.truncate" not in m.get("untold", [])]
    assert len(told) >= len(_qlinear(out)) - 3
    assert not any("qlinear_ops.input_zero_point_ignored" in m.get("untold", []) for m in _qlinear(out))
    failed = {r["case"] for r in run_suite(out, "fault:qlinear_ops.truncate", tmp_path,
                                           "--family", "qlinear_ops") if r["verdict"] == "fail"}
    assert failed == {m["name"] for m in told}


def test_a_computed_scale_is_not_covered(tmp_path):
    x = [("x0", "uint8", [2, 3]), ("x1", "uint8", [2, 3]), ("s", "float", [])]
    nodes = [helper.make_node("Identity", ["s"], ["s1"]),
             helper.make_node("QLinearConcat", ["ys", "yz", "x0", "s1", "z0", "x1", "s1", "z0"], ["y"],
                              domain="com.microsoft", axis=0)]
    inits = [tensor(np.float32(0.05), "ys", "float"), tensor(np.uint8(3), "yz", "uint8"),
             tensor(np.uint8(7), "z0", "uint8")]
    model = graph_model(nodes, x, [("y", "uint8", [4, 3])], inits, 17, {"com.microsoft": 1})
    out, manifest = from_model(model, tmp_path)
    assert not _qlinear(out)
    text = json.dumps(manifest)
    assert "X0_scale is computed by another node" in text
