"""gen-cases --from-model on com.microsoft QGemm nodes as quantize_static's QOperator format writes them for a Gemm: a
uint8 activation computed by a QuantizeLinear against per-column int8 weights [N, K] (transB = 1) with an int32 bias
C [N], quantized output; the same with a float output (y_scale / y_zero_point omitted) and alpha 0.5; an invalid node
(skipped with its reason); the real QOperator CNN's QGemm. The model's constants kept bit for bit, the opconform
backend passing every case, fault models failing them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import helper

from generator.families.qgemm.config import CLAUSE, COMPARE_QUANTIZED
from generator.from_model import model_source
from generator.from_model import qgemm as adapter
from generator.from_model.plan import Context
from generator.sampling import Stream
from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts

K, N = 24, 5
MS = "com.microsoft"


def _f32(v, name):
    return tensor(np.asarray(v, np.float32), name, "float")


def _model():
    rng = np.random.default_rng(3)
    w = rng.integers(-127, 128, (N, K)).astype(np.int8)
    q = ["xq", "xs", "xz", "w", "ws", "wz"]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="/fc/Q"),
             helper.make_node("QGemm", q + ["bias", "ys", "yz"], ["y1"], name="/fc/QGemm", domain=MS, transB=1,
                              alpha=1.0),
             helper.make_node("QGemm", q + ["bias"], ["y2"], name="/head/QGemm", domain=MS, transB=1, alpha=0.5),
             helper.make_node("QGemm", ["xq", "xs", "xz", "w", "wsbad", "wzbad"], ["y3"], name="/bad/QGemm",
                              domain=MS, transB=1)]
    inits = [_f32(0.0213, "xs"), tensor(np.uint8(131), "xz", "uint8"), tensor(w, "w", "int8"),
             _f32(np.linspace(0.0009, 0.0031, N), "ws"), tensor(np.zeros(N, np.int8), "wz", "int8"),
             tensor(rng.integers(-5000, 5000, N).astype(np.int32), "bias", "int32"),
             _f32(0.0517, "ys"), tensor(np.uint8(119), "yz", "uint8"),
             _f32(np.ones(K), "wsbad"), tensor(np.zeros(K, np.int8), "wzbad", "int8")]
    ins = [("x", "float", ["batch", K])]
    outs = [("y1", "uint8", ["batch", N]), ("y2", "float", ["batch", N]), ("y3", "float", None)]
    m = graph_model(nodes, ins, outs, inits, 13)
    m.opset_import.append(helper.make_opsetid(MS, 1))
    return m


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("qgemm")
    model = _model()
    out, manifest = from_model(model, tmp)
    cases = {}
    for entry in manifest["model"]["covered"]:
        if entry["op"].endswith("QGemm"):
            cj = out / "node" / entry["cases"][0] / "case.json"
            cases[entry["node"]] = (cj.parent, json.loads(cj.read_text()))
    return tmp, model, out, manifest, cases


def test_the_account(suite):
    _, _, _, manifest, cases = suite
    info = manifest["model"]
    assert set(cases) == {"/fc/QGemm", "/head/QGemm"}
    [skipped] = info["skipped"]
    assert skipped["node"] == "/bad/QGemm" and skipped["why"].startswith("the model's node is invalid")
    assert "b_scale" in skipped["why"]


def test_params_clause_and_compare_are_the_familys(suite):
    fc, head = suite[4]["/fc/QGemm"][1], suite[4]["/head/QGemm"][1]
    assert fc["params"]["transB"] == 1 and fc["params"]["b_scale_shape"] == [N] and fc["params"]["c_shape"] == [N]
    assert fc["compare"] == COMPARE_QUANTIZED and fc["spec"]["clause"] == CLAUSE
    assert head["params"]["y_type"] == "float" and head["compare"]["mode"] == "dot"
    assert head["compare"]["operands"] == "qgemm" and "qgemm-float-output" in head["reading"]
    assert fc["source"]["inputs"]["input_0"]["origin"] == "computed"  # (a contrib schema names no input)


def test_constants_are_the_models(suite):
    _, model, out, _, _ = suite
    assert check_constants(out, model) == 2 + 8 + 6


def test_the_reference_passes_and_faults_fail(suite):
    tmp, _, out, _, cases = suite
    only = ("--family", "qgemm")
    assert set(verdicts(run_suite(out, "opconform", tmp, *only))) == {"pass"}
    for fault, node in (("alpha_ignored", "/head/QGemm"), ("per_column_scale_first", "/fc/QGemm"),
                        ("float_output_via_float16", "/head/QGemm")):
        records = run_suite(out, f"fault:qgemm.{fault}", tmp, *only)
        failed = {r["case"] for r in records if r["verdict"] == "fail"}
        assert cases[node][0].name in failed, fault


def test_calibration_sets_the_random_range(suite):
    source = model_source.read(suite[0] / "model.onnx")
    site = next(s for s in source.sites if s.name == "/fc/QGemm")
    plan = adapter.plan(site, Context({"xq": (10.2, 40.9)}))
    assert plan.range_note == "calibration" and plan.generated == [0]
    a = plan.random(Stream(3))[0]
    assert a.dtype == np.uint8 and a.min() >= 11 and a.max() <= 40
