"""gen-cases --from-model on MatMulInteger nodes as quantize_dynamic writes them: A and a_zero_point computed by a
DynamicQuantizeLinear (so generated: the zero point a uint8 scalar) against int8 weights with a per-column
b_zero_point; an int8 A against uint8 weights with both zero points omitted; a_zero_point omitted by the empty name
before a given b_zero_point; an invalid node (skipped with its reason); and a K long enough for sums beyond int32
(the probe). The model's constants kept bit for bit, the opconform backend passing every case, fault models failing
them, every fault that can differ with these weights told apart."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from generator.families.matmul_integer.spec import CLAUSE, COMPARE
from generator.from_model import matmul_integer as adapter
from generator.from_model import model_source
from generator.from_model.plan import Context
from generator.reference.matmul_integer import UNDEF_ACC_INT32
from generator.reference.requantize import INT32_MAX
from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts

K1, N1, K2, N2, N3 = 38, 6, 22, 5, 4


def _model():
    rng = np.random.default_rng(11)
    w1 = rng.integers(-128, 128, (K1, N1)).astype(np.int8)
    w1[3, 0] = -128  # with b_zero_point 2: a difference of -130, so a product (255 * -130) leaves int16
    wz1 = np.array([2, -1, 0, 1, -2, 3], np.int8)
    w2 = rng.integers(0, 256, (K2, N2)).astype(np.uint8)
    w3 = rng.integers(0, 256, (K1, N3)).astype(np.uint8)
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"], name="/fc/DQL"),
             helper.make_node("MatMulInteger", ["xq", "w1", "xz", "wz1"], ["acc"], name="/fc/MatMulInteger"),
             helper.make_node("Cast", ["acc"], ["accf"], to=onnx.TensorProto.FLOAT, name="/fc/Cast"),
             helper.make_node("Mul", ["accf", "xs"], ["y1"], name="/fc/Mul"),
             helper.make_node("MatMulInteger", ["a2", "w2"], ["y2"], name="/x8/MatMulInteger"),
             helper.make_node("MatMulInteger", ["xq", "w3", "", "wz3"], ["y3"], name="/nozp/MatMulInteger"),
             helper.make_node("MatMulInteger", ["xq", "w1", "xz", "wzbad"], ["y4"], name="/bad/MatMulInteger")]
    inits = [tensor(w1, "w1", "int8"), tensor(wz1, "wz1", "int8"), tensor(w2, "w2", "uint8"),
             tensor(w3, "w3", "uint8"), tensor(np.uint8(128), "wz3", "uint8"),
             tensor(np.zeros(N1 + 1, np.int8), "wzbad", "int8")]
    ins = [("x", "float", ["batch", "seq", K1]), ("a2", "int8", ["batch", "seq", K2])]
    outs = [("y1", "float", ["batch", "seq", N1]), ("y2", "int32", ["batch", "seq", N2]),
            ("y3", "int32", ["batch", "seq", N3]), ("y4", "int32", None)]
    return graph_model(nodes, ins, outs, inits, 13)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mmi")
    model = _model()
    out, manifest = from_model(model, tmp)
    cases = {}
    for entry in manifest["model"]["covered"]:
        if entry["op"] == "MatMulInteger":
            cj = out / "node" / entry["cases"][0] / "case.json"
            cases[entry["node"]] = (cj.parent, json.loads(cj.read_text()))
    return tmp, model, out, manifest, cases


def _data_sets(case):
    """Each data set's arrays by file name (input_<j> / output_0), in order."""
    found = sorted(case.glob("test_data_set_*"), key=lambda p: int(p.name.rsplit("_", 1)[1]))
    return [{f.stem: numpy_helper.to_array(onnx.load_tensor(str(f))) for f in d.glob("*.pb")} for d in found]


def test_the_account(suite):
    tmp, model, out, manifest, cases = suite
    info = manifest["model"]
    assert sorted(cases) == ["/fc/MatMulInteger", "/nozp/MatMulInteger", "/x8/MatMulInteger"]
    [skipped] = info["skipped"]
    assert skipped["node"] == "/bad/MatMulInteger" and skipped["why"].startswith("the model's node is invalid")
    assert "b_zero_point" in skipped["why"]
    assert info["not_covered"].get("Mul") == 1 and "MatMulInteger" not in info["not_covered"]
    assert len(info["covered"]) + len(info["skipped"]) + sum(info["not_covered"].values()) == info["nodes"] == 7


def test_params_clause_and_compare_are_the_familys(suite):
    cases = suite[4]
    fc, x8, nozp = (cases[n][1] for n in ("/fc/MatMulInteger", "/x8/MatMulInteger", "/nozp/MatMulInteger"))
    assert fc["params"] == {"a_shape": [2, 2, K1], "b_shape": [K1, N1], "a_type": "uint8", "b_type": "int8",
                            "a_zp": "tensor", "b_zp": "column", "data": "model"}
    assert (x8["params"]["a_type"], x8["params"]["b_type"], x8["params"]["a_zp"], x8["params"]["b_zp"]) == \
        ("int8", "uint8", "absent", "absent")
    assert (nozp["params"]["a_zp"], nozp["params"]["b_zp"]) == ("absent", "tensor")
    for meta in (fc, x8, nozp):
        assert meta["compare"] == COMPARE and meta["spec"] == {"file": "onnx.defs:MatMulInteger-10", "clause": CLAUSE}
    src = fc["source"]["inputs"]
    assert src["A"]["origin"] == "computed" and src["a_zero_point"]["origin"] == "computed"
    assert src["B"]["origin"] == "initializer" and src["b_zero_point"]["origin"] == "initializer"


def test_the_omitted_zero_point_stays_omitted(suite):
    case, meta = suite[4]["/nozp/MatMulInteger"]
    node = onnx.load(str(case / "model.onnx")).graph.node[0]
    assert list(node.input) == ["A", "B", "", "b_zero_point"]
    node = onnx.load(str(suite[4]["/x8/MatMulInteger"][0] / "model.onnx")).graph.node[0]
    assert list(node.input) == ["A", "B"]


def test_constants_are_the_models(suite):
    tmp, model, out, _, _ = suite
    assert check_constants(out, model) == 2 + 1 + 2


def test_the_edges_cover_the_zero_point_and_the_sums(suite):
    """The computed a_zero_point at the middle and at both ends of uint8; sums at int16's edges and at the greatest
    the weights reach."""
    case, meta = suite[4]["/fc/MatMulInteger"]
    edges = [d for d, src in zip(_data_sets(case), meta["inputs_from"]) if src == "edge"]
    assert {int(d["input_1"]) for d in edges} == {0, 128, 255}
    ys = np.concatenate([d["output_0"].ravel() for d in edges]).tolist()
    assert {0, 127, 128, -129, 32767, 32768, -32768, -32769} <= set(ys)


def test_the_faults_that_can_differ_are_told_apart(suite):
    """Every fault that can differ with these weights is told; what stays untold cannot differ here (sums within
    2**24 and int32; A is not 1-D)."""
    cases = suite[4]
    untold = {n: {u.removeprefix("matmul_integer.") for u in cases[n][1]["untold"]} for n in cases}
    assert untold["/fc/MatMulInteger"] <= {"accumulate_float32", "float32_result", "accumulate_int32_saturating",
                                           "a_1d_axis_kept"}
    assert not {"int8_uint8_refused", "int16_pair_saturation_shifted", "b_read_as_a_type", "k_tail4_dropped",
                "result_int8", "accumulate_int16"} & untold["/x8/MatMulInteger"]
    assert "omitted_a_zero_point_refused" not in untold["/nozp/MatMulInteger"]


def test_the_reference_passes_and_faults_fail(suite):
    tmp, model, out, _, cases = suite
    only = ("--family", "matmul_integer")
    assert set(verdicts(run_suite(out, "opconform", tmp, *only))) == {"pass"}
    for fault, node in (("int16_pair_saturation", "/fc/MatMulInteger"), ("product_int16", "/fc/MatMulInteger"),
                        ("int16_pair_saturation_shifted", "/x8/MatMulInteger")):
        records = run_suite(out, f"fault:matmul_integer.{fault}", tmp, *only)
        assert cases[node][0].name in {r["case"] for r in records if r["verdict"] == "fail"}, fault


def test_sums_beyond_int32_go_to_the_probe(tmp_path):
    """K = 33040 uint8 x uint8 near 255 reaches past int32: an edge row solved for int32's end exactly, and one for
    one beyond (undefined: the probe's)."""
    k = 33040
    w = np.full((k, 2), 255, np.uint8)
    w[0] = 1  # INT32_MAX is no multiple of 255
    node = helper.make_node("MatMulInteger", ["a", "w"], ["y"], name="/long")
    model = graph_model([node], [("a", "uint8", [1, k])], [("y", "int32", [1, 2])], [tensor(w, "w", "uint8")], 13)
    onnx.save(model, tmp_path / "long.onnx")
    site = model_source.read(tmp_path / "long.onnx").sites[0]
    plan = adapter.plan(site, Context())
    outcomes = [plan.outcome([d[0], site.inputs[1].value()])[0] for d in plan.edges]
    assert any(UNDEF_ACC_INT32 in o.reasons for o in outcomes)
    assert any(o.defined and INT32_MAX in o.outputs[0] for o in outcomes)
