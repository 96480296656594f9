"""gen-cases --from-model on QLinearMatMul nodes as quantize_static's QOperator format writes them: a uint8 activation
computed by a QuantizeLinear against per-column int8 weights at generic scales; an int8 activation against
per-tensor weights at power-of-two scales (exact ties); a b that no initializer holds (an activation product); an
invalid node (skipped with its reason). The model's constants kept bit for bit, the opconform backend passing every
case, fault models failing them, the requantization faults told apart where the model's scales let them differ."""

from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import helper

from generator.families.qlinear_matmul.mm import CLAUSE, COMPARE
from generator.from_model import model_source
from generator.from_model import qlinear_matmul as adapter
from generator.from_model.plan import Context
from generator.sampling import Stream
from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts

K1, N1, K2, N2, K3 = 32, 6, 16, 5, 8


def _f32(v, name):
    return tensor(np.asarray(v, np.float32), name, "float")


def _model():
    rng = np.random.default_rng(7)
    w1 = rng.integers(-127, 128, (K1, N1)).astype(np.int8)
    w2 = rng.integers(-127, 128, (K2, N2)).astype(np.int8)
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="/fc/Q"),
             helper.make_node("QLinearMatMul", ["xq", "xs", "xz", "w1", "ws1", "wz1", "ys1", "yz1"], ["y1"],
                              name="/fc/QLinearMatMul"),
             helper.make_node("QLinearMatMul", ["a2", "s2", "z2", "w2", "ws2", "wz2", "ys2", "yz2"], ["y2"],
                              name="/proj/QLinearMatMul"),
             helper.make_node("QLinearMatMul", ["xq", "xs", "xz", "kq", "ks", "kz", "ys3", "yz3"], ["y3"],
                              name="/att/QLinearMatMul"),
             helper.make_node("QLinearMatMul", ["xq", "xs", "xz", "w1", "wsbad", "wzbad", "ys1", "yz1"], ["y4"],
                              name="/bad/QLinearMatMul")]
    inits = [_f32(0.0213, "xs"), tensor(np.uint8(131), "xz", "uint8"), tensor(w1, "w1", "int8"),
             _f32(np.linspace(0.0009, 0.0031, N1), "ws1"), tensor(np.zeros(N1, np.int8), "wz1", "int8"),
             _f32(0.0517, "ys1"), tensor(np.uint8(119), "yz1", "uint8"),
             _f32(2.0**-6, "s2"), tensor(np.int8(-3), "z2", "int8"), tensor(w2, "w2", "int8"),
             _f32(2.0**-7, "ws2"), tensor(np.int8(0), "wz2", "int8"), _f32(2.0**-5, "ys2"),
             tensor(np.int8(5), "yz2", "int8"),  # odd: y_zero_point added before rounding moves a tie
             _f32(0.0041, "ks"), tensor(np.uint8(128), "kz", "uint8"), _f32(0.093, "ys3"),
             tensor(np.uint8(127), "yz3", "uint8"),
             _f32(np.ones(N1 + 1), "wsbad"), tensor(np.zeros(N1 + 1, np.int8), "wzbad", "int8")]
    ins = [("x", "float", ["batch", "seq", K1]), ("a2", "int8", ["batch", "seq", K2]),
           ("kq", "uint8", ["batch", K1, K3])]
    outs = [("y1", "uint8", ["batch", "seq", N1]), ("y2", "int8", ["batch", "seq", N2]),
            ("y3", "uint8", ["batch", "seq", K3]), ("y4", "uint8", None)]
    return graph_model(nodes, ins, outs, inits, 13)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("qmm")
    model = _model()
    out, manifest = from_model(model, tmp)
    cases = {}
    for entry in manifest["model"]["covered"]:
        if entry["op"] == "QLinearMatMul":
            cj = out / "node" / entry["cases"][0] / "case.json"
            cases[entry["node"]] = (cj.parent, json.loads(cj.read_text()))
    return tmp, model, out, manifest, cases


def test_the_account(suite):
    tmp, model, out, manifest, cases = suite
    info = manifest["model"]
    assert [(n["node"], n["op"]) for n in info["covered"]] == [
        ("/fc/Q", "QuantizeLinear"), ("/fc/QLinearMatMul", "QLinearMatMul"), ("/proj/QLinearMatMul", "QLinearMatMul"),
        ("/att/QLinearMatMul", "QLinearMatMul")]
    [skipped] = info["skipped"]
    assert skipped["node"] == "/bad/QLinearMatMul" and skipped["why"].startswith("the model's node is invalid")
    assert "b_scale" in skipped["why"] and info["not_covered"] == {} and info["dims"] == {"batch": 2, "seq": 2}


def test_params_clause_and_compare_are_the_familys(suite):
    tmp, model, out, manifest, cases = suite
    fc, proj, att = (cases[n][1] for n in ("/fc/QLinearMatMul", "/proj/QLinearMatMul", "/att/QLinearMatMul"))
    assert fc["params"] == {"a_shape": [2, 2, K1], "b_shape": [K1, N1], "a_type": "uint8", "b_type": "int8",
                            "y_type": "uint8", "scale_type": "float", "a_quant": "per_tensor", "b_quant": "per_column",
                            "a_quant_shape": [], "b_quant_shape": [N1], "scales": "model"}
    assert proj["params"]["b_quant"] == "per_tensor" and proj["params"]["a_type"] == "int8"
    assert att["params"]["b_shape"] == [2, K1, K3] and att["params"]["b_type"] == "uint8"
    for meta in (fc, proj, att):
        assert meta["compare"] == COMPARE and meta["spec"] == {"file": "onnx.defs:QLinearMatMul-10", "clause": CLAUSE}
        assert meta["opset"] == 13 and "qlinear_matmul-exact" in meta["reading"]
    assert fc["source"]["inputs"]["a"]["origin"] == "computed" and att["source"]["inputs"]["b"]["origin"] == "input"
    assert "qlinear_matmul-per-column" in fc["reading"] and "qlinear_matmul-per-column" not in proj["reading"]


def test_constants_are_the_models(suite):
    tmp, model, out, _, _ = suite
    assert check_constants(out, model) == 2 + 7 + 7 + 6  # the QuantizeLinear's, then each QLinearMatMul's


def test_the_edges_reach_saturation_and_the_zero_point(suite):
    """At the model's scales both ends of y and y_zero_point are reached: a row at a's zero point (the first edge
    row), the extreme rows."""
    import onnx
    from onnx import numpy_helper
    for name, (lo, hi, zp) in {"/fc/QLinearMatMul": (0, 255, 119), "/proj/QLinearMatMul": (-128, 127, 5)}.items():
        case, meta = suite[4][name]
        ys = [numpy_helper.to_array(onnx.load_tensor(str(d / "output_0.pb")))
              for d, src in zip(sorted(case.glob("test_data_set_*"), key=lambda p: int(p.name.rsplit("_", 1)[1])),
                                meta["inputs_from"]) if src == "edge"]
        seen = set(np.concatenate([y.ravel() for y in ys]).tolist())
        assert {lo, hi, zp} <= seen
        assert np.all(ys[0].reshape(-1, ys[0].shape[-1])[0] == zp)  # the first row: a = a_zero_point


def test_the_faults_that_can_differ_are_told_apart(suite):
    """Generic scales: the float32 requantization and the int16 pairs are told (no exact tie exists, so ties away
    from zero cannot differ); power-of-two scales: the exact ties tell the rounding faults and the vector tails."""
    cases = suite[4]
    fc = set(cases["/fc/QLinearMatMul"][1]["untold"])
    proj = set(cases["/proj/QLinearMatMul"][1]["untold"])
    told_fc = {"requant_float32", "requant_scale_type", "int16_pair_saturation", "accumulator_wrap16",
               "per_column_first", "per_column_refused", "requant_unsaturated", "saturate_before_zero_point"}
    told_proj = {"round_half_away", "zero_point_before_rounding", "requant_fixed_point", "column_tail4_round_half_away",
                 "column_tail8_round_half_away", "column_tail16_round_half_away", "requant_unsaturated",
                 "saturate_before_zero_point", "accumulator_wrap16"}
    assert not {f"qlinear_matmul.{f}" for f in told_fc} & fc
    assert not {f"qlinear_matmul.{f}" for f in told_proj} & proj
    assert "qlinear_matmul.round_half_away" in fc  # the scales make no acc * c a half-integer
    assert "qlinear_matmul.requant_float32" in proj  # powers of two: float32 is exact


def test_the_reference_passes_and_faults_fail(suite):
    tmp, model, out, _, cases = suite
    only = ("--family", "qlinear_matmul")
    assert set(verdicts(run_suite(out, "opconform", tmp, *only))) == {"pass"}
    for fault, node in (("requant_float32", "/fc/QLinearMatMul"), ("round_half_away", "/proj/QLinearMatMul")):
        records = run_suite(out, f"fault:qlinear_matmul.{fault}", tmp, *only)
        failed = {r["case"] for r in records if r["verdict"] == "fail"}
        assert cases[node][0].name in failed, fault


def test_calibration_sets_the_random_range(suite):
    tmp = suite[0]
    source = model_source.read(tmp / "model.onnx")
    site = next(s for s in source.sites if s.name == "/proj/QLinearMatMul")
    plan = adapter.plan(site, Context({"a2": (-9.5, 20.2)}))
    assert plan.range_note == "calibration" and plan.generated == [0]
    a = plan.random(Stream(3))[0]
    assert a.dtype == np.int8 and a.min() >= -9 and a.max() <= 20
    assert adapter.plan(site, Context()).range_note == "the whole int8 range"
