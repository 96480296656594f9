"""gen-cases --from-model on real quantized models made here by real tooling (tests/quantized_models.py: onnxruntime's
quantize_static / quantize_dynamic in QDQ and QOperator formats, its matmul_nbits_quantizer, OpenVINO's NNCF): every
node of a covered operator has a case or a stated reason, the cases' constants are the model's bit for bit, the
opconform backend passes every case, and a fault-model backend fails some."""

from __future__ import annotations

import json
import os

import pytest

import quantized_models as qm
from from_model_helpers import check_constants, from_model, run_suite, verdicts

COVERED = {"Cast", "CastLike", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearConv",
           "QLinearMatMul", "MatMulInteger", "ConvInteger", "com.microsoft.MatMulNBits", "com.microsoft.QGemm",
           "com.microsoft.MatMulIntegerToFloat", "com.microsoft.DynamicQuantizeMatMul",
           *(f"com.microsoft.QLinear{op}" for op in ("Add", "Mul", "Sigmoid", "LeakyRelu", "Softmax", "AveragePool",
                                                      "GlobalAveragePool", "Concat", "Where"))}
# the model -> a fault model that can differ on its nodes (a backend made of the references with that one fault)
FAULT = {"cnn_qdq_u8": "fault:quantize_linear.round_half_away",
         "cnn_qdq_s8_per_channel": "fault:quantize_linear.round_half_away",
         "cnn_qop_u8": "fault:qlinear_conv.bias_ignored",
         "cnn_nncf_s8": "fault:quantize_linear.round_half_away",
         "transformer_dynamic_u8": "fault:matmul_integer.a_zero_point_ignored",
         "transformer_dynamic_s8": "fault:dynamic_quantize_linear.round_half_away",
         "transformer_qdq_s8_per_channel": "fault:quantize_linear.round_half_away",
         "transformer_qop_u8": "fault:qlinear_matmul.saturate_before_zero_point",
         "transformer_nbits_b32": "fault:matmul_nbits.zero_point_order_swapped",
         "transformer_nbits_b128_sym": "fault:matmul_nbits.default_zero_point_zero"}
# nodes the quantizers write that DequantizeLinear's text calls invalid (their skip reason names the rule)
INVALID = ("must have the same shape", "per-axis scale of length 1")


def _op(node) -> str:
    return f"{node.domain}.{node.op_type}" if node.domain not in ("", "ai.onnx") else node.op_type


# the default run takes one model of each quantizer and form (the default test run stays short); the four
# larger ones too with OPCONFORM_TEST_MODELS=all (each is measured in docs/from_model.md)
LARGER = {"cnn_qdq_u8", "transformer_dynamic_u8", "transformer_qdq_s8_per_channel", "transformer_qop_u8"}
MODELS = sorted(FAULT) if os.environ.get("OPCONFORM_TEST_MODELS") == "all" else sorted(set(FAULT) - LARGER)


@pytest.fixture(scope="module", params=MODELS)
def made(request, tmp_path_factory):
    name = request.param
    if not qm.available(name):
        pytest.skip(f"{name}: {qm.NEEDS.get(name)} is not installed")
    path = qm.cached(name)
    tmp = tmp_path_factory.mktemp(name)
    out, manifest = from_model(path, tmp)
    return name, path, tmp, out, manifest


def test_every_covered_node_has_a_case_or_a_reason(made):
    import onnx
    name, path, tmp, out, manifest = made
    model = onnx.load(str(path))
    info = manifest["model"]
    accounted = {n["index"] for n in info["covered"]} | {s["index"] for s in info["skipped"]}
    of_covered_ops = {i for i, n in enumerate(model.graph.node) if _op(n) in COVERED}
    assert of_covered_ops == accounted
    assert info["nodes"] == len(model.graph.node)
    assert sum(info["not_covered"].values()) == len(model.graph.node) - len(of_covered_ops)
    for s in info["skipped"]:  # a skip is a node the spec calls invalid, never a configuration left out
        assert any(word in s["why"] for word in INVALID), (s["node"], s["why"])
    for n in info["covered"]:
        for case in n["cases"]:
            meta = json.loads(next(out.glob(f"*/{case}/case.json")).read_text())
            assert meta["source"]["node"] == n["node"] and meta["source"]["sha256"] == info["sha256"]


def test_the_constants_are_the_models(made):
    name, path, tmp, out, manifest = made
    assert check_constants(out, path) > 0


def test_the_reference_passes_and_a_fault_fails(made):
    name, path, tmp, out, manifest = made
    assert set(verdicts(run_suite(out, "opconform", tmp))) <= {"pass", "probe"}
    assert verdicts(run_suite(out, FAULT[name], tmp)).get("fail", 0) > 0
