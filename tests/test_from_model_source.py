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
