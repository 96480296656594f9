"""gen-cases --from-model reading a model: external data read tensor by tensor from inside the model's directory,
symbolic dimensions sized by --dim, and every bad input one line and a non-zero exit, nothing written."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import helper

from generator.from_model import model_source
from from_model_helpers import check_constants, from_model, gen_cases, graph_model, tensor


def _model(scale_len: int = 16):
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q", axis=1)]
    inits = [tensor(np.linspace(0.01, 0.2, scale_len).astype(np.float32), "s", "float"),
             tensor(np.zeros(scale_len, np.int8), "z", "int8")]
    return graph_model(nodes, [("x", "float", ["batch", scale_len])], [("y", "int8", ["batch", scale_len])], inits, 13)


def test_external_data_is_read_from_inside_the_models_directory(tmp_path):
    model = _model(2048)
    path = tmp_path / "m" / "model.onnx"
    path.parent.mkdir()
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location="weights.bin",
              size_threshold=1024)
    assert (path.parent / "weights.bin").exists()
    source = model_source.read(path)
    scale = source.sites[0].inputs[1]
    assert scale.origin == "initializer" and scale.shape == (2048,)
    assert np.array_equal(scale.value(), np.linspace(0.01, 0.2, 2048).astype(np.float32))
    out, manifest = from_model(path, tmp_path)
    assert manifest["model"]["covered"][0]["node"] == "q"
    assert check_constants(out, onnx.load(str(path))) == 2  # the case holds the data inline, bit for bit


def test_external_data_outside_the_directory_is_refused(tmp_path):
    model = _model(2048)
    path = tmp_path / "m" / "model.onnx"
    path.parent.mkdir()
    onnx.save(model, path, save_as_external_data=True, location="weights.bin", size_threshold=1024)
    m = onnx.load(str(path), load_external_data=False)
    for t in m.graph.initializer:
        for e in t.external_data:
            if e.key == "location":
                e.value = "../elsewhere.bin"
    (tmp_path / "elsewhere.bin").write_bytes((path.parent / "weights.bin").read_bytes())
    onnx.save(m, path)
    done = gen_cases("--from-model", path, tmp_path / "out")
    assert done.returncode == 2 and "outside the model's directory" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_symbolic_dimensions_take_dim_or_the_default(tmp_path):
    out, manifest = from_model(_model(), tmp_path)
    assert manifest["model"]["dims"] == {"batch": 2}
    case = onnx.load(str(out / "node" / manifest["model"]["covered"][0]["cases"][0] / "model.onnx"))
    assert case.graph.input[0].type.tensor_type.shape.dim[0].dim_value == 2
    done = gen_cases("--from-model", tmp_path / "model.onnx", tmp_path / "out5", "--dim", "batch=5")
    assert done.returncode == 0, done.stderr
    manifest5 = json.loads((tmp_path / "out5" / "manifest.json").read_text())
    assert manifest5["model"]["dims"] == {"batch": 5} and manifest5["options"]["dims"] == {"batch": 5}


@pytest.mark.parametrize("args, says", [
    (["--from-model", "{tmp}/missing.onnx", "{tmp}/out"], "No such file"),
    (["--from-model", "{tmp}/junk.onnx", "{tmp}/out"], "not an ONNX model"),
    (["--from-model", "{tmp}/model.onnx"], "needs the suite directory OUT"),
    (["--from-model", "{tmp}/model.onnx", "{tmp}/out", "--profile", "quick"], "does not go with --from-model"),
    (["{tmp}/out", "--dim", "batch=2"], "goes with --from-model"),
    (["--from-model", "{tmp}/model.onnx", "{tmp}/out", "--dim", "batch"], "NAME=SIZE"),
    (["--from-model", "{tmp}/model.onnx", "{tmp}/out", "--calibration", "{tmp}/junk.onnx"], "--calibration"),
])
def test_bad_input_is_one_line(tmp_path, args, says):
    onnx.save(_model(), tmp_path / "model.onnx")
    (tmp_path / "junk.onnx").write_bytes(b"\x00not a model\xff" * 10)
    done = gen_cases(*[a.format(tmp=tmp_path) for a in args])
    assert done.returncode == 2, done.stdout + done.stderr
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_calibration_sets_the_random_range(tmp_path):
    onnx.save(_model(), tmp_path / "model.onnx")
    np.savez(tmp_path / "samples.npz", x=np.array([-0.5, 0.25, 0.5], np.float32))
    done = gen_cases("--from-model", tmp_path / "model.onnx", tmp_path / "out", "--calibration",
                     tmp_path / "samples.npz")
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    from generator.serialize import read_case
    case = read_case(tmp_path / "out" / "node" / manifest["model"]["covered"][0]["cases"][0])
    random = [ds[0] for ds, src in zip(case.inputs, case.meta["inputs_from"]) if src == "random"]
    assert random and all(np.all((r >= -0.5) & (r <= 0.5)) for r in random)
    assert case.meta["source"]["random_range"] == "calibration"


def test_a_model_with_no_covered_node_writes_an_empty_account(tmp_path):
    model = graph_model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [("x", "float", [3])],
                        [("y", "float", [3])], [], 13)
    out, manifest = from_model(model, tmp_path)
    assert manifest["cases"] == [] and manifest["model"]["not_covered"] == {"Relu": 1}


def test_the_outputs_of_com_microsoft_operators_are_typed(tmp_path):
    """onnx's shape inference stops at a contrib operator: the rules of generator/from_model/contrib_shapes.py type
    MatMulNBits', QGemm's, QLinearAdd's, QLinearSoftmax's and QLinearGlobalAveragePool's outputs (symbolic dims kept),
    and inference carries on after them, so the nodes that follow get cases."""
    ms = "com.microsoft"
    nodes = [helper.make_node("MatMulNBits", ["x", "b", "bs"], ["m"], domain=ms, K=32, N=8, bits=4, block_size=32),
             helper.make_node("Relu", ["m"], ["r"]),
             helper.make_node("QuantizeLinear", ["r", "s", "z"], ["q"], name="after_nbits"),
             helper.make_node("QLinearSoftmax", ["q", "s", "z", "s", "z"], ["sm"], domain=ms, axis=-1, opset=13),
             helper.make_node("QLinearAdd", ["sm", "s", "z", "row", "s", "z", "s", "z"], ["add"], domain=ms),
             helper.make_node("DequantizeLinear", ["add", "s", "z"], ["d"], name="after_add"),
             helper.make_node("QGemm", ["q", "s", "z", "w", "s", "z", "", "s", "z"], ["g"], domain=ms, transB=1),
             helper.make_node("Cast", ["g"], ["gc"], name="after_qgemm", to=onnx.TensorProto.INT32),
             helper.make_node("Reshape", ["q", "shape4"], ["q4"]),
             helper.make_node("QLinearGlobalAveragePool", ["q4", "s", "z", "s", "z"], ["p"], domain=ms),
             helper.make_node("DequantizeLinear", ["p", "s", "z"], ["pd"], name="after_pool")]
    inits = [tensor(np.zeros((8, 1, 16), np.uint8), "b", "uint8"), tensor(np.full(8, 0.1, np.float32), "bs", "float"),
             tensor(np.float32(0.05), "s", "float"), tensor(np.uint8(128), "z", "uint8"),
             tensor(np.arange(8).astype(np.uint8), "row", "uint8"), tensor(np.ones((4, 8), np.uint8), "w", "uint8"),
             tensor(np.array([2, 8, 1, 1]), "shape4", "int64")]
    model = graph_model(nodes, [("x", "float", ["batch", 32])], [("d", "float", ["batch", 8]), ("gc", "int32", None),
                                                                 ("pd", "float", None)], inits, 17, {ms: 1})
    source = model_source.read(_saved(model, tmp_path))
    by = {s.name: s for s in source.sites}
    assert by["after_nbits"].inputs[0].dims == ("batch", 8) and by["after_nbits"].inputs[0].type.name == "float"
    assert by["after_add"].inputs[0].dims == ("batch", 8) and by["after_add"].inputs[0].type.name == "uint8"
    assert by["after_qgemm"].inputs[0].dims == ("batch", 4) and by["after_qgemm"].inputs[0].type.name == "uint8"
    assert by["after_pool"].inputs[0].dims == (2, 8, 1, 1)
    out, manifest = from_model(model, tmp_path)
    covered = {n["node"] for n in manifest["model"]["covered"]}
    assert {"after_nbits", "after_add", "after_qgemm", "after_pool"} <= covered, manifest["model"]["skipped"]


def _saved(model, tmp_path):
    path = tmp_path / "contrib.onnx"
    onnx.save(model, path)
    return path
