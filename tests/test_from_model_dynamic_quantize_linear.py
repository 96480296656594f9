"""gen-cases --from-model on DynamicQuantizeLinear and DequantizeLinear nodes as quantizers write them: a dynamic
quantization of an activation of odd length (its SIMD tail) feeding MatMulInteger and a DequantizeLinear of its
computed scale and zero point, weights dequantized per channel and per tensor, float8 and int4 at their opsets, and the
nodes skipped with a reason (a bias dequantized with a one-element scale and an empty zero point is covered)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import helper

from from_model_helpers import check_constants, from_model, graph_model, run_suite, tensor, verdicts


def _model():
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"], name="/in/DQL"),
             helper.make_node("MatMulInteger", ["xq", "w", "xz", "wz"], ["acc"], name="/fc/MatMulInteger"),
             helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="/in/DQ"),
             helper.make_node("DequantizeLinear", ["wc", "wcs", "wcz"], ["wd"], name="/conv/w/DQ", axis=0),
             helper.make_node("DequantizeLinear", ["a8", "as"], ["ad"], name="/act/DQ"),
             helper.make_node("DequantizeLinear", ["bias", "bs", "bz"], ["bd"], name="/fc/bias/DQ"),
             helper.make_node("DynamicQuantizeLinear", ["t"], ["tq", "ts", "tz"], name="/tiny/DQL")]
    inits = [tensor((np.arange(37 * 4) % 255).reshape(37, 4).astype(np.uint8), "w", "uint8"),
             tensor(np.uint8(131), "wz", "uint8"),
             tensor(np.arange(-48, 48).reshape(4, 3, 2, 4), "wc", "int8"),
             tensor(np.array([0.01, 0.5, 3.0, 2.0**-10], np.float32), "wcs", "float"),
             tensor(np.array([0, 1, -2, 7]), "wcz", "int8"),
             tensor(np.float32(0.0371), "as", "float"),
             tensor(np.array([-70000, 5, 2**24 + 1, -3], np.int32), "bias", "int32"),
             tensor(np.array([0.0004], np.float32), "bs", "float"), tensor(np.zeros(0, np.int32), "bz", "int32")]
    ins = [("x", "float", ["batch", 37]), ("a8", "uint8", [2, 5]), ("t", "float", [3])]
    outs = [("acc", "int32", ["batch", 4]), ("xd", "float", ["batch", 37]), ("wd", "float", [4, 3, 2, 4]),
            ("ad", "float", [2, 5]), ("bd", "float", [4]), ("tq", "uint8", [3])]
    return graph_model(nodes, ins, outs, inits, 19)


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dql")
    return tmp, _model(), *from_model(_model(), tmp)


def _metas(out, info) -> dict:
    return {n["node"]: json.loads((out / "node" / n["cases"][0] / "case.json").read_text()) for n in info["covered"]}


def test_the_account(suite):
    tmp, model, out, manifest = suite
    info = manifest["model"]
    metas = _metas(out, info)
    assert sorted(metas) == ["/act/DQ", "/conv/w/DQ", "/fc/MatMulInteger", "/in/DQ", "/in/DQL", "/tiny/DQL"]
    assert [s["node"] for s in info["skipped"]] == ["/fc/bias/DQ"], info["skipped"]
    dql = metas["/in/DQL"]
    assert dql["family"] == "dynamic_quantize_linear" and dql["params"] == {"what": "model"}
    assert dql["source"]["random_range"].startswith("the family's large input")
    assert {"edge", "random"} <= set(dql["inputs_from"])
    dq = metas["/in/DQ"]  # its scale and zero point computed by DynamicQuantizeLinear: plausible values, generated
    assert dq["source"]["inputs"]["x_scale"]["origin"] == "computed"
    w = metas["/conv/w/DQ"]
    assert w["inputs_from"] == ["edge"] and w["params"]["granularity"] == "per-axis"  # all the model's: no data


def test_the_tail_and_the_probes(suite):
    """x of 2 x 37 elements: the minimum last (in no whole vector of 4, 8, 16 or 32); y_scale 0 and NaN probed."""
    tmp, model, out, manifest = suite
    info = {n["node"]: n for n in manifest["model"]["covered"]}["/in/DQL"]
    assert any(c.endswith("_probe") for c in info["cases"])
    case = out / "node" / info["cases"][0]
    import onnx
    from onnx import numpy_helper
    sets = sorted(case.glob("test_data_set_*"))
    xs = [numpy_helper.to_array(onnx.load_tensor(str(d / "input_0.pb"))).ravel() for d in sets]
    assert all(x.size == 74 for x in xs)
    assert any(x[-1] == x.min() and (x[:-1] > x[-1]).all() for x in xs)


def test_constants_are_the_models(suite):
    tmp, model, out, _ = suite
    assert check_constants(out, model) == 3 + 1 + 2  # the weight DQ's three; /act/DQ's scale; MatMulInteger's two


def test_the_reference_passes_and_faults_fail(suite):
    tmp, model, out, _ = suite
    assert set(verdicts(run_suite(out, "opconform", tmp))) == {"pass", "probe"}
    for fault in ("dynamic_quantize_linear.round_half_away", "dynamic_quantize_linear.min_max_skip_tail8",
                  "dequantize_linear.zero_point_ignored"):
        assert verdicts(run_suite(out, f"fault:{fault}", tmp)).get("fail", 0) > 0, fault


def test_every_live_fault_is_told_apart(suite):
    """Each DynamicQuantizeLinear / DequantizeLinear node's live faults told apart (MatMulInteger's test is its own:
    with K = 37 of uint8 no sum reaches float32's or int32's limits, and those faults cannot differ; the weight's
    DequantizeLinear has no input to choose: what its own constants do not tell apart cannot differ in this model)."""
    tmp, model, out, manifest = suite
    for node, meta in _metas(out, manifest["model"]).items():
        if meta["family"] == "matmul_integer" or node == "/conv/w/DQ":
            continue
        if node == "/act/DQ":  # checked below: its untold faults give the reference's y on every x
            continue
        if node == "/tiny/DQL":  # 3 elements, fewer than any vector width: every lane reads them all
            assert meta["untold"] == [f"dynamic_quantize_linear.min_max_skip_tail{w}" for w in (16, 32, 4, 8)]
            continue
        assert meta["untold"] == [], (node, meta["untold"])


def _never_differ(out, info: dict, node: str, xs: np.ndarray, scale, x_type: str, opset: int, zp=None,
                  axis: int = 1) -> None:
    """Each fault the search left untold on this node (its scale and zero point the model's) gives the reference's
    y on every value of x in xs (xs in x-sized chunks; fewer values than x's elements: cycled over x's shape,
    shifted by one each time, every value at every position), so none can differ in this model."""
    import onnx

    from generator import faults
    from generator.reference import dequantize_linear as ref

    case = out / "node" / {n["node"]: n for n in info["covered"]}[node]["cases"][0]
    meta = json.loads((case / "case.json").read_text())
    case_model = onnx.load(str(case / "model.onnx"))
    shape = tuple(case_model.graph.input[0].type.tensor_type.shape.dim)
    shape = tuple(d.dim_value for d in shape)
    n = int(np.prod(shape))
    assert meta["untold"], "nothing to check"
    by_name = faults.by_name("dequantize_linear")
    for start in (range(0, xs.size, n) if xs.size >= n else range(xs.size)):
        x = np.resize(np.roll(xs, -start), n).reshape(shape)
        want = ref.dequantize_linear_explained(x, np.asarray(scale, np.float32), zp, axis=axis, block_size=0,
                                               output_dtype=None,
                                               opset=opset, x_type=x_type, scale_type="float")[0].outputs[0]
        for name in meta["untold"]:
            got = faults.fault_outputs(by_name[name], case_model, [x], meta)[0]
            assert np.array_equal(got, want, equal_nan=True) and (np.signbit(got) == np.signbit(want)).all(), name


def test_what_stays_untold_cannot_differ(suite):
    """/act/DQ: a uint8 x at the model's scale 0.0371; every one of its 256 values."""
    tmp, model, out, manifest = suite
    _never_differ(out, manifest["model"], "/act/DQ", np.arange(256).astype(np.uint8), 0.0371, "uint8", 19)


def _model_21():
    """opset 21: a float8e4m3fn activation dequantized per tensor, an int4 activation per axis with zero points, an
    int4 weight blocked (block_size 4, a short last block), and a uint16 activation."""
    nodes = [helper.make_node("DequantizeLinear", ["f8", "fs"], ["fd"], name="/f8/DQ"),
             helper.make_node("DequantizeLinear", ["i4", "is", "iz"], ["id"], name="/i4/DQ", axis=1),
             helper.make_node("DequantizeLinear", ["w4", "ws", "wz"], ["wd"], name="/w4/DQ", axis=1, block_size=4),
             helper.make_node("DequantizeLinear", ["u16", "us", "uz"], ["ud"], name="/u16/DQ")]
    inits = [tensor(np.float32(0.25), "fs", "float"),
             tensor(np.array([0.5, 2.0**-12, 7.0], np.float32), "is", "float"), tensor(np.array([0, -8, 7]), "iz", "int4"),
             tensor(np.resize(np.arange(-8, 8), (3, 10)), "w4", "int4"),
             tensor(np.array([[0.1, 0.2, 0.3]] * 3, np.float32), "ws", "float"),
             tensor(np.array([[1, -1, 0]] * 3), "wz", "int4"),
             tensor(np.float32(1e-3), "us", "float"), tensor(np.uint16(40000), "uz", "uint16")]
    ins = [("f8", "float8e4m3fn", [4, 8]), ("i4", "int4", [2, 3, 5]), ("u16", "uint16", [64])]
    outs = [("fd", "float", [4, 8]), ("id", "float", [2, 3, 5]), ("wd", "float", [3, 10]), ("ud", "float", [64])]
    return graph_model(nodes, ins, outs, inits, 21)


def test_float8_int4_blocked_and_uint16(tmp_path):
    model = _model_21()
    out, manifest = from_model(model, tmp_path)
    info = manifest["model"]
    metas = _metas(out, info)
    assert sorted(metas) == ["/f8/DQ", "/i4/DQ", "/u16/DQ", "/w4/DQ"] and info["skipped"] == []
    assert metas["/w4/DQ"]["params"]["granularity"] == "blocked" and metas["/i4/DQ"]["opset"] == 21
    assert check_constants(out, model) == 1 + 2 + 3 + 2
    got = verdicts(run_suite(out, "opconform", tmp_path))
    assert set(got) <= {"pass", "probe"} and got.get("pass")
    assert verdicts(run_suite(out, "fault:dequantize_linear.subbyte_sign_extension", tmp_path)).get("fail", 0) > 0
    _never_differ(out, info, "/u16/DQ", np.arange(1 << 16).astype(np.uint16), 1e-3, "uint16", 21,
                  zp=np.uint16(40000))
    from generator import dtypes
    f8 = dtypes.get("float8e4m3fn")
    i4 = dtypes.get("int4")
    _never_differ(out, info, "/i4/DQ", i4.from_bits(np.arange(16).astype(np.uint8)), [0.5, 2.0**-12, 7.0], "int4",
                  21, zp=i4.from_bits(np.array([0, 8, 7], np.uint8)))
    _never_differ(out, info, "/f8/DQ", f8.from_bits(np.arange(256).astype(np.uint8)), 0.25, "float8e4m3fn", 21)
