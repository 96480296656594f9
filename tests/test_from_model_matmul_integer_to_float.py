"""gen-cases --from-model on com.microsoft MatMulIntegerToFloat and DynamicQuantizeMatMul nodes as onnxruntime's
optimizer writes them from quantize_dynamic's graph (A, a_scale and a_zero_point computed by DynamicQuantizeLinear;
B, its scale, zero point and bias constants): the constants kept bit for bit, the family's params and bound, the
opconform backend passing every case, a fault model failing some; and the real quantize_dynamic transformer after
onnxruntime's optimizer."""

from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import helper

from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts

MS = "com.microsoft"
K, N = 9, 5


def _model():
    rng = np.random.default_rng(3)
    inits = [tensor(rng.integers(-128, 128, (K, N)).astype(np.int8), "w1", "int8"),
             tensor((np.arange(1, N + 1) * 0.003).astype(np.float32), "w1_scale", "float"),
             tensor(np.array([3, -2, 0, 7, -9], np.int8), "w1_zp", "int8"),
             tensor(np.linspace(-1, 1, N).astype(np.float32), "w1_bias", "float"),
             tensor(rng.integers(0, 256, (N, 4)).astype(np.uint8), "w2", "uint8"),
             tensor(np.float32(0.0125), "w2_scale", "float"), tensor(np.uint8(131), "w2_zp", "uint8")]
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"], name="dql"),
             helper.make_node("MatMulIntegerToFloat", ["xq", "w1", "xs", "w1_scale", "xz", "w1_zp", "w1_bias"], ["h"],
                              name="mitf", domain=MS),
             helper.make_node("DynamicQuantizeMatMul", ["h", "w2", "w2_scale", "w2_zp"], ["y"], name="dqmm",
                              domain=MS)]
    return graph_model(nodes, [("x", "float", [3, K])], [("y", "float", [3, 4])], inits, 17, {MS: 1})


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mitf_from_model")
    model = _model()
    return tmp, model, *from_model(model, tmp)


def _metas(out, info) -> dict:
    return {n["node"]: json.loads((out / "node" / n["cases"][0] / "case.json").read_text()) for n in info["covered"]}


def test_each_case_as_the_family_writes_it(suite):
    tmp, model, out, manifest = suite
    metas = _metas(out, manifest["model"])
    assert {"mitf", "dqmm"} <= set(metas)
    m, d = metas["mitf"], metas["dqmm"]
    assert m["family"] == "matmul_integer_to_float" and d["family"] == "dynamic_quantize_matmul"
    assert m["params"] == {"what": "model", "a_shape": [3, K], "b_shape": [K, N], "a_type": "uint8", "b_type": "int8",
                           "t3": "float", "a_zp": "tensor", "a_scale": "tensor", "b_zp": "column",
                           "b_scale": "column", "bias": True}
    assert m["compare"]["slots"] == ["A", "a_scale", "a_zero_point", "B", "b_scale", "b_zero_point", "bias"]
    assert m["compare"]["abs_bound"] == 2 * 4 and m["compare"]["mode"] == "dot"
    assert d["params"]["b_type"] == "uint8" and d["params"]["b_zp"] == "tensor" and not d["params"]["bias"]
    assert d["compare"]["slots"] == ["A", "B", "b_scale", "b_zero_point"] and d["compare"]["abs_bound"] == 2 * (N + 2)
    assert all({"edge", "random"} <= set(x["inputs_from"]) for x in (m, d))


def test_constants_are_the_models(suite):
    tmp, model, out, _ = suite
    assert check_constants(out, model) == 4 + 3


def test_every_live_fault_is_told_apart(suite):
    """All but the K-order float32 sum, which K = 9 int8 weights cannot swamp (no partial sum reaches 2**24 units;
    its worst first-order error, K + 2 roundings, exceeds the bound's 8 only on data no search is aimed at)."""
    tmp, model, out, manifest = suite
    metas = _metas(out, manifest["model"])
    assert metas["mitf"]["untold"] == ["matmul_integer_to_float.accumulate_float32"] and metas["dqmm"]["untold"] == []


def test_the_reference_passes_and_faults_fail(suite):
    tmp, model, out, _ = suite
    assert set(verdicts(run_suite(out, "opconform", tmp))) == {"pass", "probe"}  # DynamicQuantizeLinear's probe
    for fault in ("matmul_integer_to_float.b_scale_first", "dynamic_quantize_matmul.a_int8_symmetric"):
        assert verdicts(run_suite(out, f"fault:{fault}", tmp)).get("fail", 0) > 0, fault


def test_quantize_dynamic_after_onnxruntime_s_optimizer(tmp_path):
    """quantize_dynamic's transformer (tests/quantized_models.py) optimized by onnxruntime (extended) holds both
    operators: every one covered, the constants the model's."""
    import onnx
    import onnxruntime as ort

    import quantized_models as qm
    path = qm.cached("transformer_dynamic_s8")
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    so.optimized_model_filepath = str(tmp_path / "fused.onnx")
    ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    fused = onnx.load(str(tmp_path / "fused.onnx"))
    out, manifest = from_model(tmp_path / "fused.onnx", tmp_path)
    covered = [n for n in manifest["model"]["covered"] if n["op"] in ("com.microsoft.MatMulIntegerToFloat",
                                                                        "com.microsoft.DynamicQuantizeMatMul")]
    ops = [n.op_type for n in fused.graph.node]
    assert len(covered) == ops.count("MatMulIntegerToFloat") + ops.count("DynamicQuantizeMatMul") == 6
    assert check_constants(out, fused) > 0
    assert set(verdicts(run_suite(out, "opconform", tmp_path, "--family", "matmul_integer_to_float"))) == {"pass"}
