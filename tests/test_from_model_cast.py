"""gen-cases --from-model on Cast nodes as real models write them: float32 <-> float16 (mixed precision), a bool mask
and an int32 accumulator cast to float, float -> int64 indices (with calibration), a constant, float 8 with saturate
left out and written; the family's params / clause / comparison, the model's constants kept bit for bit, the
opconform backend passing every case, a fault model failing some, the probe of undefined inputs, and a node the
family cannot take listed as skipped with its reason."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from generator import dtypes
from generator.families.cast.cases import _compare
from generator.families.cast.variant import Variant, spec_of
from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts

RANGE = (0.0, 50.0)  # the calibration range of `pos`


def _cast(x: str, y: str, name: str, to: str, **attrs) -> onnx.NodeProto:
    return helper.make_node("Cast", [x], [y], name=name, to=dtypes.get(to).onnx, **attrs)


def _model() -> onnx.ModelProto:
    nodes = [_cast("x", "h", "/half", "float16"),
             _cast("h", "hf", "/back", "float"),
             _cast("mask", "mf", "/mask", "float"),
             helper.make_node("Add", ["a", "b"], ["acc"], name="/acc_add"),
             _cast("acc", "accf", "/acc", "float"),
             _cast("pos", "idx", "/idx", "int64"),
             _cast("c", "cf", "/const", "float"),
             _cast("x", "q", "/fp8", "float8e4m3fn", saturate=0),
             _cast("x", "q2", "/fp8_sat", "float8e5m2", saturate=1),
             _cast("x", "i4", "/int4", "int4")]
    b8 = ["batch", 8]
    ins = [("x", "float", b8), ("mask", "bool", b8), ("a", "int32", b8), ("b", "int32", b8), ("pos", "float", [4])]
    outs = [("hf", "float", b8), ("mf", "float", b8), ("accf", "float", b8), ("idx", "int64", [4]), ("cf", "float", [3]),
            ("q", "float8e4m3fn", b8), ("q2", "float8e5m2", b8), ("i4", "int4", b8)]
    return graph_model(nodes, ins, outs, [tensor(np.array([1, 2, 3], np.int64), "c", "int64")], 19)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cast")
    np.savez(tmp / "calibration.npz", pos=np.array(RANGE, np.float32))
    model = _model()
    out, manifest = from_model(model, tmp, "--calibration", tmp / "calibration.npz")
    cases = {}
    for path in sorted(out.glob("*/*/case.json")):
        meta = json.loads(path.read_text())
        cases[(meta["source"]["node"], meta["kind"])] = (path.parent, meta)
    return tmp, model, out, manifest, cases


def test_covered_skipped_and_not_covered(suite):
    _, _, _, manifest, _ = suite
    info = manifest["model"]
    assert [n["node"] for n in info["covered"]] == ["/half", "/back", "/mask", "/acc", "/idx", "/const",
                                                   "/fp8", "/fp8_sat"]
    assert [(s["node"], s["why"]) for s in info["skipped"]] == [
        ("/int4", "the model's node is invalid: Cast-19 takes no int4 result")]
    assert info["not_covered"] == {"Add": 1}


@pytest.mark.parametrize("node, src, to, saturate", [
    ("/half", "float", "float16", None), ("/fp8", "float", "float8e4m3fn", False),
    ("/fp8_sat", "float", "float8e5m2", True), ("/acc", "int32", "float", None)])
def test_params_clause_and_compare_are_the_familys(suite, node, src, to, saturate):
    _, _, _, _, cases = suite
    _, meta = cases[(node, "node")]
    v = Variant(dtypes.get(src), dtypes.get(to), saturate, None, 19)
    assert meta["family"] == "cast" and meta["opset"] == 19
    assert meta["params"] == v.params
    assert (meta["spec"]["file"], meta["spec"]["clause"]) == spec_of(v)
    assert meta["compare"] == _compare(v)


def test_constants_are_the_models(suite):
    _, model, out, _, cases = suite
    assert check_constants(out, model) == 1
    _, meta = cases[("/const", "node")]
    assert meta["source"]["inputs"]["input"] == {"tensor": "c", "origin": "initializer"}
    assert meta["inputs_from"] == ["edge"]  # nothing to generate: the model's one data set


def test_inputs_from_the_familys_values(suite):
    _, _, _, _, cases = suite
    mask_dir, mask = cases[("/mask", "node")]
    assert "exhaustive" in mask["flags"]  # every bool pattern
    _, back = cases[("/back", "node")]
    assert back["source"]["inputs"]["input"]["origin"] == "computed"
    assert set(back["inputs_from"]) >= {"edge", "random"}
    half_dir, half = cases[("/half", "node")]
    x = numpy_helper.to_array(onnx.load_tensor(str(half_dir / "test_data_set_0" / "input_0.pb")))
    assert x.shape == (2, 8)  # batch given DEFAULT_DIM


def test_calibration_and_the_probe(suite):
    _, _, _, _, cases = suite
    idx_dir, idx = cases[("/idx", "node")]
    assert idx["source"]["random_range"] == "calibration"
    for i, what in enumerate(idx["inputs_from"]):
        if what == "random":
            x = numpy_helper.to_array(onnx.load_tensor(str(idx_dir / f"test_data_set_{i}" / "input_0.pb")))
            assert RANGE[0] <= x.min() and x.max() <= RANGE[1]
    _, probe = cases[("/idx", "probe")]
    assert probe["kind"] == "probe" and probe["undefined"]  # NaN, Inf, out of int64's range


def test_untold_faults_are_those_that_cannot_differ_here(suite):
    _, _, _, _, cases = suite
    # saturate is not written on /half: the fault that reads a written one cannot differ there
    assert cases[("/half", "node")][1]["untold"] == ["cast.present_saturate_beyond_float8"]
    # the sign of NaN is compared only in the family's negative_nan case
    assert set(cases[("/fp8", "node")][1]["untold"]) <= {"cast.nan_sign_lost", "cast.input_nan_sign_lost"}
    _, written = cases[("/fp8_sat", "node")]
    assert "cast.present_saturate_read_as_0" not in written["untold"]
    assert any("cast.present_saturate_read_as_0" in k for k in written["kills"])
    assert set(cases[("/const", "node")][1]["untold"]) >= {"cast.round_half_away"}  # [1, 2, 3] rounds nothing


def test_the_reference_passes_and_a_fault_fails(suite):
    tmp, _, out, _, _ = suite
    assert set(verdicts(run_suite(out, "opconform", tmp))) == {"pass", "probe"}
    failed = {r["case"] for r in run_suite(out, "fault:cast.round_half_away", tmp) if r["verdict"] == "fail"}
    assert "test_model_0000_cast_half" in failed
    assert not failed & {"test_model_0001_cast_back", "test_model_0002_cast_mask"}  # exact: nothing rounds
