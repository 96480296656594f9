"""The real models of tests/quantized_models.py: each checks with onnx.checker and runs in onnxruntime, the
quantizers made the operators they are asked for, builds are byte-identical, and scripts/make_test_models.py
writes them all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import quantized_models as qm

ROOT = Path(__file__).resolve().parent.parent
BUILDABLE = [name for name in qm.NAMES if qm.available(name)]


@pytest.fixture(scope="module")
def models() -> dict[str, onnx.ModelProto]:
    """Every model that can be built here, from the shared cache (built once per cache key)."""
    return {name: onnx.load(qm.cached(name)) for name in BUILDABLE}


def model_of(models: dict[str, onnx.ModelProto], name: str) -> onnx.ModelProto:
    if name not in models:
        pytest.skip(f"{name} needs {qm.NEEDS[name]}, not installed")
    return models[name]


def initializers(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    return {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}


def nodes(model: onnx.ModelProto, op_type: str) -> list[onnx.NodeProto]:
    return [n for n in model.graph.node if n.op_type == op_type]


def attribute(node: onnx.NodeProto, name: str):
    return next(onnx.helper.get_attribute_value(a) for a in node.attribute if a.name == name)


def weight_dequantizes(model: onnx.ModelProto) -> list[onnx.NodeProto]:
    """The DequantizeLinear nodes of quantized weights (an initializer of rank 2 or more as data)."""
    inits = initializers(model)
    return [n for n in nodes(model, "DequantizeLinear") if n.input[0] in inits and inits[n.input[0]].ndim >= 2]


@pytest.mark.parametrize("name", qm.NAMES)
def test_checks_and_runs(models, name):
    """onnx.checker (full) passes, onnxruntime runs it on two batch / seq sizes, outputs finite and close to the
    float model's (the loose bound of the static transformer: see test_static_transformer_attention_collapses)."""
    model = model_of(models, name)
    onnx.checker.check_model(model, full_check=True)
    path = qm.cached(name)
    outputs = qm.run(path, seed=3)
    assert all(np.isfinite(o.astype(np.float32)).all() for o in outputs)
    family = "cnn" if "cnn" in name else "transformer"
    reference = qm.run(qm.cached(qm.FLOAT_OF[family]), seed=3)
    assert [o.shape for o in outputs] == [r.shape for r in reference] and outputs[0].shape[0] == qm.BATCH
    correlation = np.corrcoef(outputs[0].ravel(), reference[0].ravel())[0, 1]
    assert correlation > (0.9 if name in ("transformer_qdq_s8_per_channel", "transformer_qop_u8") else 0.99)
    import onnxruntime
    session = onnxruntime.InferenceSession(os.fspath(path), providers=["CPUExecutionProvider"])
    assert session.run(None, qm.feeds(path, seed=4, batch=3, seq=5))[0].shape[0] == 3


@pytest.mark.parametrize("name", qm.NAMES)
def test_symbolic_dims_kept(models, name):
    dims = {i.name: [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]
            for i in model_of(models, name).graph.input}
    if "cnn" in name:
        assert dims == {"image": ["batch", 3, 16, 16]}
    else:
        assert dims == {"tokens": ["batch", "seq", qm.HIDDEN], "attention_mask": ["batch", "seq"]}


def test_float_models(models):
    cnn, transformer = models["float_cnn"], models["float_transformer"]
    assert qm.op_counts(cnn) == {"Conv": 2, "Relu": 2, "GlobalAveragePool": 1, "Flatten": 1, "Gemm": 1,
                                 "Softmax": 1, "Cast": 1}
    assert attribute(nodes(cnn, "Cast")[0], "to") == onnx.TensorProto.FLOAT16
    assert [o.type.tensor_type.elem_type for o in cnn.graph.output] == [onnx.TensorProto.FLOAT,
                                                                         onnx.TensorProto.FLOAT16]
    (cast,) = nodes(transformer, "Cast")
    assert cast.input[0] == "attention_mask" and attribute(cast, "to") == onnx.TensorProto.FLOAT
    counts = qm.op_counts(transformer)
    assert counts["MatMul"] == 8 and counts["LayerNormalization"] == 2 and counts["Softmax"] == 1
    assert counts["Erf"] == 1 and counts["Transpose"] == 4 and counts["Reshape"] == 4
    assert {o.version for o in transformer.opset_import} == {qm.OPSET}


def test_qdq_models(models):
    for name in ("cnn_qdq_u8", "cnn_qdq_s8_per_channel", "transformer_qdq_s8_per_channel"):
        counts = qm.op_counts(models[name])
        assert counts["QuantizeLinear"] > 0 and counts["DequantizeLinear"] > counts["QuantizeLinear"], name
        assert not any(op.startswith("com.microsoft:") or op.startswith("QLinear") for op in counts), name
    # the Relu after each Conv is folded into the QuantizeLinear that follows it (its zero point clips)
    assert "Relu" not in qm.op_counts(models["cnn_qdq_u8"]) and qm.op_counts(models["cnn_qdq_u8"])["Conv"] == 2
    inits = initializers(models["cnn_qdq_u8"])
    for dq in weight_dequantizes(models["cnn_qdq_u8"]):
        assert inits[dq.input[0]].dtype == np.uint8 and inits[dq.input[1]].ndim == 0


@pytest.mark.parametrize("name, channels", [("cnn_qdq_s8_per_channel", [8, 8, 10]),
                                            ("transformer_qdq_s8_per_channel", [128, 64, 64, 64, 64, 64])])
def test_per_channel_scales(models, name, channels):
    """Each quantized weight has int8 data and a 1-D scale / zero point along its output channels."""
    model = models[name]
    inits = initializers(model)
    sizes = []
    for dq in weight_dequantizes(model):
        data, scale, zero_point = (inits[i] for i in dq.input)
        assert data.dtype == np.int8 and zero_point.dtype == np.int8
        assert scale.ndim == 1 and scale.shape == zero_point.shape
        assert scale.shape[0] == data.shape[attribute(dq, "axis")]
        sizes.append(scale.shape[0])
    assert sorted(sizes) == sorted(channels)


def test_qoperator_models(models):
    cnn = qm.op_counts(models["cnn_qop_u8"])
    assert cnn["QLinearConv"] == 2 and cnn["com.microsoft:QGemm"] == 1
    assert cnn["com.microsoft:QLinearGlobalAveragePool"] == 1 and cnn["com.microsoft:QLinearSoftmax"] == 1
    assert "Conv" not in cnn and "Gemm" not in cnn and cnn["Cast"] == 1
    inits = initializers(models["cnn_qop_u8"])
    for conv in nodes(models["cnn_qop_u8"], "QLinearConv"):
        assert inits[conv.input[2]].dtype == np.uint8 and inits[conv.input[3]].dtype == np.int8
    transformer = qm.op_counts(models["transformer_qop_u8"])
    assert transformer["QLinearMatMul"] == 8 and "MatMul" not in transformer  # QK^T and attention x V too
    assert transformer["com.microsoft:QLinearAdd"] == 10 and transformer["com.microsoft:QLinearSoftmax"] == 1
    assert transformer["LayerNormalization"] == 2 and transformer["Erf"] == 1  # left in float
    model = models["transformer_qop_u8"]
    inits = initializers(model)
    for matmul in nodes(model, "QLinearMatMul"):
        if matmul.input[3] in inits:
            assert inits[matmul.input[3]].dtype == np.uint8


@pytest.mark.parametrize("name, weight", [("transformer_dynamic_u8", np.uint8), ("transformer_dynamic_s8", np.int8)])
def test_dynamic_models(models, name, weight):
    model = models[name]
    counts = qm.op_counts(model)
    # the six MatMuls with a constant B (MatMulConstBOnly); one DynamicQuantizeLinear per distinct A (ln1 is shared)
    assert counts["MatMulInteger"] == 6 and counts["MatMul"] == 2 and counts["DynamicQuantizeLinear"] == 4
    inits = initializers(model)
    assert {inits[n.input[1]].dtype for n in nodes(model, "MatMulInteger")} == {np.dtype(weight)}


@pytest.mark.parametrize("name, block_size, zero_points", [("transformer_nbits_b32", 32, True),
                                                           ("transformer_nbits_b128_sym", 128, False)])
def test_matmul_nbits_models(models, name, block_size, zero_points):
    model = model_of(models, name)
    matmuls = [n for n in model.graph.node if n.op_type == "MatMulNBits" and n.domain == "com.microsoft"]
    assert len(matmuls) == 6 and qm.op_counts(model)["MatMul"] == 2
    inits = initializers(model)
    for node in matmuls:
        assert attribute(node, "bits") == 4 and attribute(node, "block_size") == block_size
        k, n = attribute(node, "K"), attribute(node, "N")
        blocks = -(-k // block_size)  # K = 64 under block 128: one block, padded
        assert inits[node.input[1]].shape == (n, blocks, block_size // 2)
        assert inits[node.input[2]].size == n * blocks
        has_zero_points = len(node.input) > 3 and node.input[3] != ""
        assert has_zero_points == zero_points
        if zero_points:
            assert inits[node.input[3]].shape == (n, -(-blocks // 2))  # two 4-bit zero points a byte


def test_nncf_model(models):
    model = model_of(models, "cnn_nncf_s8")
    counts = qm.op_counts(model)
    assert counts["Conv"] == 2 and counts["Relu"] == 2 and counts["QuantizeLinear"] == 4
    inits = initializers(model)
    for dq in weight_dequantizes(model):
        assert inits[dq.input[0]].dtype == np.int8 and inits[dq.input[1]].ndim == 1


def test_static_transformer_attention_collapses(models):
    """Odd but real: MinMax calibration sees the additive mask's -10000 in the masked scores, so their scale is
    about 10000 / 255 and every unmasked score rounds to one value (attention spreads evenly)."""
    inits = initializers(models["transformer_qop_u8"])
    assert inits["scores_masked_scale"] > 30 and inits["scores_scaled_scale"] < 1


def test_builds_are_byte_identical(models, tmp_path, monkeypatch):
    """Two builds in this process (and the cache's, maybe from another process) give the same bytes, and the
    quantizers leave nothing in the working directory."""
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    first, second = qm.build_all(tmp_path / "a"), qm.build_all(tmp_path / "b")
    assert list(first) == BUILDABLE and list(work.iterdir()) == []
    for name in BUILDABLE:
        data = first[name].read_bytes()
        assert data == second[name].read_bytes() == qm.cached(name).read_bytes(), name
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(f"{n}.onnx" for n in BUILDABLE)


def test_missing_package(monkeypatch, tmp_path):
    has_package = qm.has_package
    monkeypatch.setattr(qm, "has_package", lambda package: package != "nncf" and has_package(package))
    assert not qm.available("cnn_nncf_s8") and "cnn_nncf_s8" not in qm.build_all(tmp_path / "all")
    with pytest.raises(qm.MissingPackage, match="nncf") as raised:
        qm.build("cnn_nncf_s8", tmp_path)
    assert raised.value.package == "nncf"
    with pytest.raises(KeyError, match="unknown model"):
        qm.build("no_such_model", tmp_path)


def test_script(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_test_models.py"), str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert [line.split(":")[0] for line in out] == list(qm.NAMES)
    assert "cnn_qop_u8: 10 nodes: " in "\n".join(out) and "QLinearConv 2" in out[qm.NAMES.index("cnn_qop_u8")]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{n}.onnx" for n in BUILDABLE)
