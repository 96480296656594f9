"""--inputs fed|initializers|constant (runners/input_modes.py, issue 20 item 2): the weight table against the
spec's input names, the models each mode builds (exact bits of every initializer type), one model per distinct
set of baked values, and the mode through the real runner (opconform passes everything, a fault mutant still
fails, onnxruntime judged the same, the mode recorded in the results)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from generator import dtypes
from generator.serialize import graph_io_types, read_case
from runners.execute import run_case_dataset
from runners.input_modes import (DEFAULT, FED, WEIGHTS, RunMode, baked_tensors, build_model, fed_inputs, model_key,
                                 weight_inputs)

pytest_plugins = ["pytester"]
CASES = Path(__file__).resolve().parent.parent / "cases"

# The inputs a deployed model carries as weights, by the spec's input names (onnx.defs for ai.onnx; the
# contrib operators' documentation for com.microsoft). Written here by name, so a wrong index in WEIGHTS shows.
WEIGHT_NAMES = {
    "QuantizeLinear": {"y_scale", "y_zero_point"},
    "DequantizeLinear": {"x_scale", "x_zero_point"},
    "DynamicQuantizeLinear": set(),
    "QLinearConv": {"x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point", "B"},
    "QLinearMatMul": {"a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"},
    "MatMulInteger": {"B", "a_zero_point", "b_zero_point"},
    "ConvInteger": {"w", "x_zero_point", "w_zero_point"},
    "CastLike": {"target_type"},
    "Cast": set(),
    "Conv": {"W", "B"},
    "ConvTranspose": {"W", "B"},
    "Gemm": {"B", "C"},
    "MatMul": {"B"},
    "PRelu": {"slope"},
    "BatchNormalization": {"scale", "B", "input_mean", "input_var"},
    "InstanceNormalization": {"scale", "B"},
    "LayerNormalization": {"Scale", "B"},
    "Reshape": {"shape"},
    "Expand": {"shape"},
    "Tile": {"repeats"},
    "Pad": {"pads", "constant_value", "axes"},
    "Slice": {"starts", "ends", "axes", "steps"},
    "Split": {"split"},
    "Squeeze": {"axes"},
    "Unsqueeze": {"axes"},
    "ReduceMax": {"axes"},
    "ReduceMean": {"axes"},
    "ReduceSum": {"axes"},
    "Resize": {"roi", "scales", "sizes"},
    "Clip": {"min", "max"},
}
CONTRIB = {  # com.microsoft (onnxruntime's ContribOperators.md): input names in order, and the weights
    "MatMulNBits": (["A", "B", "scales", "zero_points", "g_idx", "bias"], {"B", "scales", "zero_points", "g_idx", "bias"}),
    "QLinearAdd": (["A", "A_scale", "A_zero_point", "B", "B_scale", "B_zero_point", "C_scale", "C_zero_point"],
                   {"A_scale", "A_zero_point", "B_scale", "B_zero_point", "C_scale", "C_zero_point"}),
}


def _names(domain: str, op: str) -> list[str]:
    if domain == "com.microsoft":
        return CONTRIB[op][0]
    return [i.name for i in onnx.defs.get_schema(op).inputs]


def _one_node_model(domain: str, op: str, names: list[str]) -> onnx.ModelProto:
    """Every input of the op a float graph input named as the spec names it (only the wiring matters here)."""
    node = helper.make_node(op, names, ["y"], domain=domain)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1]) for n in names],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(domain, 1)])


@pytest.mark.parametrize("domain,op", sorted(WEIGHTS))
def test_weights_are_the_inputs_the_spec_names_as_weights(domain, op):
    names = _names(domain, op)
    want = CONTRIB[op][1] if domain == "com.microsoft" else WEIGHT_NAMES[op]
    assert weight_inputs(_one_node_model(domain, op, names)) == want


def test_every_op_of_the_suite_is_in_the_table():
    """A new op of a family must say which inputs are weights (an op missing from the table bakes nothing)."""
    ops = {(n.domain, n.op_type) for d in (CASES / "node").iterdir() if (d / "model.onnx").is_file()
           for n in onnx.load(d / "model.onnx").graph.node if n.domain == ""}
    assert ops and ops <= set(WEIGHTS)


def _case(name: str, kind: str = "node"):
    return read_case(CASES / kind / name)


QLINEARCONV = "test_qlinearconv_auto_pad_notset"  # 3 data sets, scales / zero points / w / B differing


def test_initializers_bake_the_weights_and_feed_the_data():
    case = _case(QLINEARCONV)
    mode = RunMode("initializers")
    model = build_model(case.model, baked_tensors(case.model, list(case.inputs[0]), mode), False)
    onnx.checker.check_model(model)
    assert [v.name for v in model.graph.input] == [case.model.graph.node[0].input[0]]
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    ins = graph_io_types(case.model)[0]
    for j, (name, _) in enumerate(ins[1:], 1):
        np.testing.assert_array_equal(inits[name], case.inputs[0][j])
    assert len(fed_inputs(case.model, list(case.inputs[0]), mode)) == 1


def test_constant_mode_leaves_no_input():
    for name in (QLINEARCONV, "test_castlike_bfloat16_to_string_edge"):
        case = _case(name)
        model = build_model(case.model, baked_tensors(case.model, list(case.inputs[0]), RunMode("constant")), False)
        onnx.checker.check_model(model)
        assert len(model.graph.input) == 0 and len(model.graph.initializer) == len(case.inputs[0])
        assert fed_inputs(case.model, list(case.inputs[0]), RunMode("constant")) == []


def test_a_data_set_with_other_constants_is_another_model():
    case = _case(QLINEARCONV)
    mode = RunMode("initializers")
    keys = [model_key(baked_tensors(case.model, list(case.inputs[i]), mode)) for i in range(case.n_datasets)]
    assert len(set(keys)) == case.n_datasets
    again = model_key(baked_tensors(case.model, [np.copy(x) for x in case.inputs[0]], mode))
    assert again == keys[0]


def test_fed_and_cast_keep_the_model():
    case = _case("test_cast_float32_to_float8e4m3fn_witness")
    assert baked_tensors(case.model, list(case.inputs[0]), RunMode("initializers")) == {}
    assert not FED.rebuilds and FED.settings() == {"inputs": "fed"}  # explicit: kept apart from the default's
    assert not DEFAULT.rebuilds and DEFAULT.settings() == {} and DEFAULT.inputs == "auto"


@pytest.mark.parametrize("type_name,values", [
    ("float8e4m3fn", [0x7F, 0xFF, 0x00, 0x80, 0x01, 0x7E]),  # NaN, -NaN, +0, -0, the smallest subnormal, max
    ("float8e5m2fnuz", [0x80, 0x00, 0x01, 0x7F]),
    ("int4", [0x8, 0x7, 0xF, 0x0, 0x1]),  # -8, 7, -1, 0, 1 (odd length: the last byte half used)
    ("uint4", [0xF, 0x0, 0x9]),
    ("float4e2m1", [0x7, 0xF, 0x8, 0x1]),
    ("bfloat16", [0x7FC1, 0xFF80, 0x8000, 0x0001]),  # a NaN payload, -Inf, -0, a subnormal
    ("int2", [0x2, 0x1, 0x3]),
])
def test_initializers_keep_the_exact_bits(type_name, values):
    t = dtypes.get(type_name)
    x = t.from_bits(np.array(values, dtype=np.uint32 if t.bits > 8 else np.uint8).astype(
        np.uint16 if t.bits == 16 else np.uint8))
    model = _typed_model(t.onnx)
    out = build_model(model, baked_tensors(model, [x], RunMode("constant")), False)
    back = numpy_helper.to_array(onnx.ModelProto.FromString(out.SerializeToString()).graph.initializer[0])
    assert out.graph.initializer[0].data_type == t.onnx
    assert t.to_bits(np.asarray(back, dtype=t.np_dtype)).tolist() == t.to_bits(x).tolist()


def test_string_initializer_round_trips():
    x = np.array(["", "é€😀", "a\x00b", "NaN"], dtype=object)
    model = _typed_model(TensorProto.STRING)
    out = build_model(model, baked_tensors(model, [x], RunMode("constant")), False)
    back = numpy_helper.to_array(onnx.ModelProto.FromString(out.SerializeToString()).graph.initializer[0])
    assert [b.decode("utf-8") if isinstance(b, bytes) else b for b in back.tolist()] == x.tolist()


def _typed_model(elem_type: int) -> onnx.ModelProto:
    node = helper.make_node("Identity", ["x"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", elem_type, None)],
                              [helper.make_tensor_value_info("y", elem_type, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])


def test_bad_mode_is_one_line():
    with pytest.raises(ValueError, match="--inputs weights: unknown; one of auto, fed, initializers, constant"):
        RunMode("weights")


class _Counting:
    """The opconform backend, counting prepares (one per distinct model)."""

    def __init__(self):
        from runners.backends.registry import get_backend

        self.inner = get_backend("opconform", None)
        self.name = "counting"
        self.models: list[onnx.ModelProto] = []

    def version(self):
        return "1"

    def prepare(self, model, case):
        self.models.append(model)
        return self.inner.prepare(model, case)

    def run(self, prepared, inputs):
        return self.inner.run(prepared, inputs)


@pytest.mark.parametrize("inputs", ["auto", "fed", "initializers", "constant"])
def test_each_distinct_model_is_prepared_once_and_judged_as_fed(inputs):
    case = _case(QLINEARCONV)
    backend, cache = _Counting(), {}
    results = [run_case_dataset(backend, case, i, "strict", cache, RunMode(inputs)) for i in
               (*range(case.n_datasets), *range(case.n_datasets))]
    assert [r.verdict for r in results] == ["pass"] * 2 * case.n_datasets
    assert len(backend.models) == (1 if inputs in ("auto", "fed") else case.n_datasets)
    n = len(graph_io_types(case.model)[0])
    assert all(len(m.graph.input) == {"auto": n, "fed": n, "initializers": 1, "constant": 0}[inputs]
               for m in backend.models)
    assert results[0].settings == ({} if inputs == "auto" else {"inputs": inputs})


# ---- through the real runner -------------------------------------------------------------
SUBSET = ["node/test_quantizelinear_bfloat16_x_opset19", "node/" + QLINEARCONV,
          "node/test_dequantizelinear_blocked_float8e4m3fn_float32_axis1_block4_opset21",
          "node/test_castlike_bfloat16_to_string_edge", "node/test_castlike_bfloat16_to_int4_witness",
          "node/test_cast_float32_to_float8e4m3fn_witness", "graph/test_layout_conv_reshape_fully_connected",
          "negative/test_qlinearconv_negative_bias_length",
          "negative/test_convert_promote_types_bfloat16_float16_dim_dim_safe",
          "probe/test_quantizelinear_float16_x_opset19_probe"]


@pytest.fixture
def subset(pytester) -> Path:
    root = pytester.path / "s"
    for rel in SUBSET:
        shutil.copytree(CASES / rel, root / rel)
    return root


def _verdicts(pytester, suite: Path, *args: str) -> tuple[dict, dict]:
    report = pytester.path / "r.json"
    pytester.runpytest(str(suite), *args, "--report", str(report))
    data = json.loads(report.read_text())
    return {r["case"] + f"[{r['dataset']}]": r["verdict"] for r in data["records"]}, data


@pytest.mark.parametrize("inputs", ["auto", "fed", "initializers", "constant"])
def test_opconform_passes_everything_in_every_mode(pytester, subset, inputs):
    verdicts, data = _verdicts(pytester, subset, "--backend", "opconform", "--inputs", inputs)
    assert set(verdicts.values()) == {"pass", "probe"}
    assert len(verdicts) == 24
    recorded = data["backend"]["settings"].get("inputs")
    assert recorded == (None if inputs == "auto" else inputs)
    assert {r["settings"].get("inputs") for r in data["records"]} == {recorded}


@pytest.mark.parametrize("fault,case", [
    ("cast.via_float16", "test_cast_float32_to_float8e4m3fn_witness[0]"),
    ("dequantize_linear.zero_point_ignored",
     "test_dequantizelinear_blocked_float8e4m3fn_float32_axis1_block4_opset21[1]"),
])
def test_a_fault_mutant_still_fails_in_every_mode(pytester, subset, fault, case):
    for inputs in ("fed", "initializers", "constant"):
        verdicts, _ = _verdicts(pytester, subset, "--backend", f"fault:{fault}", "--inputs", inputs)
        assert verdicts[case] == "fail", inputs


def test_onnxruntime_runs_the_modes_in_its_worker(pytester, subset):
    pytest.importorskip("onnxruntime")
    fed, _ = _verdicts(pytester, subset, "--backend", "onnxruntime")
    for inputs in ("initializers", "constant"):
        verdicts, data = _verdicts(pytester, subset, "--backend", "onnxruntime", "--inputs", inputs)
        assert data["backend"]["settings"]["inputs"] == inputs
        assert verdicts.keys() == fed.keys()
        assert verdicts[QLINEARCONV + "[2]"] == "pass"  # its own model per data set


def test_header_names_the_mode(pytester, subset):
    result = pytester.runpytest(str(subset), "--backend", "opconform", "--inputs", "initializers")
    result.stdout.fnmatch_lines(["opconform: settings inputs=initializers*"])


def test_an_unknown_mode_is_a_usage_error(pytester, subset):
    result = pytester.runpytest(str(subset), "--backend", "opconform", "--inputs", "weights")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "Traceback" not in result.stderr.str()


# ---- opconform hunt ----------------------------------------------------------------------
@pytest.mark.parametrize("isolation", ["none", "process"])
def test_hunt_in_constant_mode_finds_a_fault_and_records_the_mode(capsys, tmp_path, isolation):
    from runners.cli import main

    out = tmp_path / "found"
    rc = main(["hunt", "--backend", "fault:cast.round_half_away", "--family", "cast", "--only", "float*_to_float8*",
               "--max-examples", "50", "--inputs", "constant", "--isolation", isolation, "--out", str(out)])  # 2 findings
    err = capsys.readouterr().err
    assert rc == 1, err
    metas = [json.loads(p.read_text()) for p in (out / "node").glob("*/case.json")]
    assert metas and all(m["hunt"]["backend_settings"]["inputs"] == "constant" for m in metas)
    assert all(m["hunt"]["verdict"] == "fail" for m in metas)


def test_hunt_against_opconform_in_constant_mode_finds_nothing(capsys, tmp_path):
    from runners.cli import main

    rc = main(["hunt", "--backend", "opconform", "--family", "quantize_linear", "--max-examples", "40",
               "--inputs", "constant", "--shapes", "dynamic", "--isolation", "none", "--out", str(tmp_path / "o")])
    assert rc == 0, capsys.readouterr().err


@pytest.mark.parametrize("mode,asked", [(RunMode("initializers"), "--inputs initializers"),
                                        (RunMode("constant", "dynamic"), "--inputs constant, --shapes dynamic")])
def test_a_twin_runs_only_fed_and_static(mode, asked):
    from runners.backends.registry import get_backend

    case = _case("test_layout_conv_reshape_fully_connected", "graph")
    backend = get_backend("opconform-tflite", None)
    assert run_case_dataset(backend, case, 0, "strict", {}).verdict == "pass"
    r = run_case_dataset(backend, case, 0, "strict", {}, mode)
    assert r.verdict == "unsupported"
    assert r.message.endswith(f"the case runs on its tflite twin, with fed inputs and static shapes only ({asked})")


# ---- scripts/mode_matrix.py --------------------------------------------------------------
def _mode_matrix():
    import importlib.util

    spec = importlib.util.spec_from_file_location("mode_matrix", Path(__file__).resolve().parent.parent
                                                  / "scripts" / "mode_matrix.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mode_matrix_counts_per_family_and_lists_the_changes(capsys):
    def run(*verdicts):
        return {"records": [{"case": f"test_c{j}", "dataset": 0, "family": "cast" if j < 2 else "layout",
                             "verdict": v} for j, v in enumerate(verdicts)]}

    _mode_matrix().print_matrix({"fed": run("pass", "pass", "fail"), "constant": run("pass", "error", "fail")}, 5)
    out = capsys.readouterr().out
    assert "| cast | fed | 2 | 0 | 0 | 1 |" in out and "| cast | constant | 1 | 0 | 1 | 1 |" in out
    assert "| layout | constant | 0 | 1 | 0 | 0 |" in out
    assert "items whose verdict differs between fed, constant: 1" in out
    assert "  test_c1[0]: fed pass, constant error" in out


def test_mode_matrix_runs_a_suite(tmp_path, capsys, subset):
    rc = _mode_matrix().main([str(subset), "--backend", "opconform", "--inputs", "fed,constant",
                              "--out", str(tmp_path / "mm")])
    out = capsys.readouterr().out
    assert rc == 0
    assert "| qlinear_conv | constant | 4 | 0 | 0 |" in out  # pass, probe, changed
    assert "items whose verdict differs between fed, constant: 0" in out


# ---- --inputs auto: a fed weight the backend refuses is judged as an initializer --------------------------------

class _ConstantWeightsOnly(_Counting):
    """Refuses, in its own words, a model whose weight slots are fed (as tract does a fed y_scale): it takes them
    only as initializers."""

    from runners.backends.base import UnsupportedTable

    CONSTANT_ONLY = UnsupportedTable(text=(r"must be a const",))

    def prepare(self, model, case):
        from runners.backends.base import Unsupported

        fed = {i.name for i in model.graph.input}
        if any(name in fed for name in weight_inputs(model)):
            raise Unsupported("y_scale must be a const")
        return super().prepare(model, case)


def test_auto_judges_an_item_whose_fed_weights_are_refused_with_them_as_initializers():
    case = _case("test_quantizelinear_per_axis_axis0_opset13")
    backend = _ConstantWeightsOnly()
    cache: dict = {}
    r = run_case_dataset(backend, case, 0, "strict", cache, DEFAULT)
    assert r.verdict == "pass" and r.inputs == "initializers" and r.settings == {}, r.message
    assert "(--inputs auto: judged with the weights as initializers; fed, the backend refused them: y_scale must " \
           "be a const)" in r.message.split("\n")[1]
    assert r.to_record()["inputs"] == "initializers"
    assert [len(m.graph.input) for m in backend.models] == [1]  # the fed model refused, the rebuilt one run
    fed = run_case_dataset(backend, case, 0, "strict", {}, FED)
    assert fed.verdict == "unsupported" and fed.inputs is None  # --inputs fed: the refusal is the verdict


def test_auto_does_not_rerun_other_refusals():
    class RefusesAll(_ConstantWeightsOnly):
        def prepare(self, model, case):
            from runners.backends.base import Unsupported

            raise Unsupported("no kernel for QuantizeLinear")

    case = _case("test_quantizelinear_per_axis_axis0_opset13")
    r = run_case_dataset(RefusesAll(), case, 0, "strict", {}, DEFAULT)
    assert r.verdict == "unsupported" and r.inputs is None and "auto" not in r.message
