"""gen-cases --from-model on CastLike nodes: target_type a constant (an initializer, a Constant node) kept bit for
bit, or an activation another node feeds, generated (one tensor of its shape, the same in every data set); an
input the model holds; round_mode nearest with its reading; the opconform backend passing every case, the
function body's dropped round_mode failing, and a pair CastLike-24 does not take listed as skipped."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from generator.families.cast_like import READING_ROUND_MODE
from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts


def _model() -> onnx.ModelProto:
    e8 = tensor(np.array([1.0], np.float32), "e8m0_value", "float8e8m0")
    nodes = [helper.make_node("CastLike", ["x", "like"], ["h"], name="/type_as"),
             helper.make_node("CastLike", ["h", "y"], ["f"], name="/follow"),
             helper.make_node("Constant", [], ["e8"], name="/e8_const", value=e8),
             helper.make_node("CastLike", ["x", "e8"], ["q"], name="/e8m0", round_mode="nearest", saturate=0),
             helper.make_node("CastLike", ["k", "y"], ["kf"], name="/const_in"),
             helper.make_node("CastLike", ["x", "t2"], ["i2"], name="/int2")]
    b8 = ["batch", 8]
    ins = [("x", "float", b8), ("y", "float", b8), ("t2", "int2", [1])]
    outs = [("f", "float", b8), ("q", "float8e8m0", b8), ("kf", "float", [2]), ("i2", "int2", b8)]
    inits = [tensor(np.float16(0), "like", "float16"), tensor(np.array([2, 3], np.int32), "k", "int32")]
    return graph_model(nodes, ins, outs, inits, 24)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cast_like")
    model = _model()
    out, manifest = from_model(model, tmp)
    cases = {}
    for path in sorted(out.glob("*/*/case.json")):
        meta = json.loads(path.read_text())
        cases[(meta["source"]["node"], meta["kind"])] = (path.parent, meta)
    return tmp, model, out, manifest, cases


def _input(case_dir, i: int, j: int) -> np.ndarray:
    return numpy_helper.to_array(onnx.load_tensor(str(case_dir / f"test_data_set_{i}" / f"input_{j}.pb")))


def test_covered_and_skipped(suite):
    _, _, _, manifest, _ = suite
    info = manifest["model"]
    assert [n["node"] for n in info["covered"]] == ["/type_as", "/follow", "/e8m0", "/const_in"]
    assert [(s["node"], s["why"]) for s in info["skipped"]] == [
        ("/int2", "the model's node is invalid: CastLike-24 takes no int2 result")]
    assert info["not_covered"] == {"Constant": 1}


def test_constant_targets_are_the_models(suite):
    _, model, out, _, cases = suite
    assert check_constants(out, model) == 4  # like, the Constant node's e8 (its case and probe), k
    _, meta = cases[("/e8m0", "node")]
    assert meta["source"]["inputs"]["target_type"] == {"tensor": "e8", "origin": "constant"}
    assert meta["params"] == {"from": "float", "to": "float8e8m0", "saturate": 0, "round_mode": "nearest"}
    assert meta["family"] == "cast_like" and READING_ROUND_MODE in meta["reading"]


def test_a_computed_target_is_generated(suite):
    _, _, _, _, cases = suite
    case_dir, meta = cases[("/follow", "node")]
    assert meta["source"]["inputs"]["target_type"]["origin"] == "input"
    assert meta["params"] == {"from": "float16", "to": "float"}
    targets = [_input(case_dir, i, 1) for i in range(len(meta["inputs_from"]))]
    assert targets[0].shape == (2, 8) and targets[0].dtype == np.float32
    assert all(t.tobytes() == targets[0].tobytes() for t in targets)  # its values play no part: one tensor
    # the model holds the input, so the target is all a data set holds
    const_dir, const = cases[("/const_in", "node")]
    assert const["inputs_from"] == ["edge"] and not (const_dir / "test_data_set_0" / "input_1.pb").exists()
    assert _input(const_dir, 0, 0).shape == (2, 8)


def test_the_reference_passes_and_the_function_body_fails(suite):
    tmp, _, out, _, cases = suite
    assert set(verdicts(run_suite(out, "opconform", tmp))) == {"pass", "probe"}
    assert cases[("/e8m0", "node")][1]["untold"] == []
    failed = {r["case"] for r in run_suite(out, "fault:cast_like.round_mode_ignored", tmp) if r["verdict"] == "fail"}
    assert failed == {"test_model_0003_cast_like_e8m0"}
