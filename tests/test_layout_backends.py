"""Backends of the TFLite twins and the converter pipelines: unsupported when the converter is missing, an
error naming the operator when the converter rejects a model, and real runs where the tools are installed."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from generator.families import layout as family
from generator.serialize import read_case, write_case
from runners.backends import pipelines, registry
from runners.execute import run_case_dataset


def _case(tmp_path, name):
    case = family.build_case(family.CATALOGUE[name], name, 0, 1)
    write_case(case, tmp_path)
    return read_case(tmp_path / "graph" / name)


def _verdict(backend, case):
    return run_case_dataset(registry.get_backend(backend) if isinstance(backend, str) else backend, case, 0,
                            "strict", {})


def test_explicit_layouts_as_tflite2onnx_letters():
    class C:
        meta = {"params": {"explicit_layouts": {"b": [0, 3, 1, 2], "x": [0, 2, 1], "v": [0, 4, 1, 2, 3]}}}

    assert pipelines.explicit_layouts(C()) == {"b": ("NHWC", "NCHW"), "x": ("NWC", "NCW"),
                                               "v": ("NDHWC", "NCDHW")}


def test_tflite2onnx_missing_is_unsupported(tmp_path, monkeypatch):
    case = _case(tmp_path, "test_layout_conv_concat_channel_axis")
    monkeypatch.setitem(sys.modules, "tflite2onnx", None)  # import fails as if not installed
    r = _verdict("tflite2onnx+onnxruntime", case)
    assert r.verdict == "unsupported" and "tflite2onnx is not installed" in r.message


def test_onnx2tf_missing_is_unsupported(tmp_path, monkeypatch):
    case = _case(tmp_path, "test_layout_conv_concat_channel_axis")
    monkeypatch.setenv(pipelines.ONNX2TF_ENV, str(tmp_path / "no-such-onnx2tf"))
    r = _verdict("onnx2tf+litert", case)
    assert r.verdict == "unsupported" and "onnx2tf is not installed" in r.message


def test_a_pipeline_without_its_converter_is_listed_as_not_installed(tmp_path, monkeypatch):
    """`opconform backends` said "installed" for onnx2tf+litert with no onnx2tf anywhere."""
    monkeypatch.setenv(pipelines.ONNX2TF_ENV, str(tmp_path / "no-such-onnx2tf"))
    monkeypatch.setitem(sys.modules, "tflite2onnx", None)  # import fails as if not installed
    rows = {r["name"]: r for r in registry.list_backends()}
    for name, converter in (("onnx2tf+litert", "onnx2tf"), ("tflite2onnx+onnxruntime", "tflite2onnx")):
        assert rows[name]["installed"] is False and rows[name]["version"] is None, rows[name]
        assert f"{converter} is not installed: pip install 'opconform[{converter}]'" in rows[name]["detail"]


def test_a_pipeline_with_its_converter_is_listed_as_installed(tmp_path, monkeypatch):
    fake = tmp_path / "onnx2tf"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv(pipelines.ONNX2TF_ENV, str(fake))
    row = next(r for r in registry.list_backends() if r["name"] == "onnx2tf+litert")
    assert row["installed"] is True and str(fake) in row["version"]


def test_a_pipeline_on_a_node_case_is_unsupported(tmp_path):
    from generator import dtypes
    from generator.case import Case, node_model

    f = dtypes.get("float")
    meta = {"op": "Relu", "domain": "", "opset": 18, "family": "t", "spec": {}, "compare": {"mode": "exact"},
            "flags": [], "seed": 0}
    x = np.ones(2, np.float32)
    write_case(Case("test_relu_one", "node", node_model("Relu", [("x", f, (2,))], [("y", f, (2,))], {}, 18),
                    [[x]], [[x]], meta), tmp_path)
    r = _verdict("tflite2onnx+onnxruntime", read_case(tmp_path / "node" / "test_relu_one"))
    assert r.verdict == "unsupported"


def test_onnx2tf_rejection_is_an_error_quoting_the_converter(tmp_path, monkeypatch):
    fake = tmp_path / "onnx2tf"
    fake.write_text("#!/bin/sh\necho 'INFO: converting'\necho 'ERROR: The PRelu OP is not supported' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv(pipelines.ONNX2TF_ENV, str(fake))
    r = _verdict("onnx2tf+litert", _case(tmp_path, "test_layout_prelu_per_channel_slope"))
    assert r.verdict == "error" and "onnx2tf rejected the model (exit 1)" in r.message
    assert "PRelu OP is not supported" in r.message


needs_tflite2onnx = pytest.mark.skipif(importlib.util.find_spec("tflite2onnx") is None,
                                       reason="tflite2onnx is not installed (pip install '.[tflite2onnx]')")


@needs_tflite2onnx
def test_tflite2onnx_pipeline_converts_and_is_judged_on_the_onnx_data(tmp_path):
    r = _verdict("tflite2onnx+onnxruntime", _case(tmp_path, "test_layout_conv_concat_channel_axis"))
    assert r.verdict == "pass", r.message


@needs_tflite2onnx
def test_tflite2onnx_rejection_is_an_error_naming_the_operator(tmp_path):
    r = _verdict("tflite2onnx+onnxruntime", _case(tmp_path, "test_layout_rank5_conv3d"))
    assert r.verdict == "error" and "tflite2onnx rejected the model" in r.message and "CONV_3D" in r.message


def test_openvino_tflite_frontend_runs_twins(tmp_path):
    pytest.importorskip("openvino", reason="openvino is not installed (pip install '.[openvino]')")
    for name in ("test_layout_conv_concat_negative_axis", "test_layout_split_channel_axis",
                 "test_layout_rank3_explicit_nwc"):
        r = _verdict("openvino-tflite", _case(tmp_path, name))
        assert r.verdict == "pass", r.message


def test_onnx2tf_pipeline_where_installed(tmp_path):
    if pipelines.onnx2tf_command() is None:
        pytest.skip(f"onnx2tf is not installed (set {pipelines.ONNX2TF_ENV} or pip install '.[onnx2tf]')")
    r = _verdict("onnx2tf+litert", _case(tmp_path, "test_layout_conv_concat_channel_axis"))
    assert r.verdict in ("pass", "fail"), r.message  # a converted model that runs; its verdict is the suite's
