"""`opconform check-model MODEL --backend B`: the model's suite written and run in one step, the per-node table in the
model's own node names (chains too), the exit status the run's, --keep and --node-report, and bad input one line."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import helper

from from_model_helpers import graph_model, tensor


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="/act/Q"),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"], name="/act/DQ"),
             helper.make_node("Relu", ["d"], ["r"], name="/act/Relu"),
             helper.make_node("Cast", ["r"], ["y"], name="/out/Cast", to=onnx.TensorProto.FLOAT16)]
    inits = [tensor(np.float32(0.05), "s", "float"), tensor(np.uint8(129), "z", "uint8")]
    model = graph_model(nodes, [("x", "float", ["batch", 8])], [("y", "float16", ["batch", 8])], inits, 17)
    path = tmp_path_factory.mktemp("cm") / "small.onnx"
    onnx.save(model, path)
    return path


def _check_model(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTEST_ADDOPTS="")
    return subprocess.run([sys.executable, "-m", "runners.cli", "check-model", *map(str, args), "-j", "1"],
                          capture_output=True, text=True, env=env)


def test_a_passing_backend_and_the_table(model_path, tmp_path):
    done = _check_model(model_path, "--backend", "opconform", "--keep", tmp_path / "suite",
                        "--node-report", tmp_path / "nodes.md")
    assert done.returncode == 0, done.stderr + done.stdout
    table = (tmp_path / "nodes.md").read_text()
    assert table in done.stdout
    assert "4 nodes: 3 covered, 0 skipped, 1 not covered." in table
    for node in ("/act/Q", "/act/DQ", "/out/Cast", "/act/Q -> /act/DQ"):
        row = next(line for line in table.splitlines() if line.startswith(f"| `{node}` |"))
        assert "pass" in row and "fail" not in row, row
    assert "chain (Q, DQ)" in table and "Not covered (no family takes the operator): Relu 1." in table
    assert (tmp_path / "suite" / "manifest.json").exists()


def test_a_faulty_backend_fails_and_is_diagnosed_per_node(model_path, tmp_path):
    done = _check_model(model_path, "--backend", "fault:quantize_linear.round_half_away")
    assert done.returncode == 1, done.stderr + done.stdout
    row = next(line for line in done.stdout.splitlines() if line.startswith("| `/act/Q` |"))
    assert "fail" in row and r"quantize\_linear.round\_half\_away" in row, row  # Markdown-escaped
    assert "### `/act/Q` (QuantizeLinear): fail" in done.stdout
    cast = next(line for line in done.stdout.splitlines() if line.startswith("| `/out/Cast` |"))
    assert "fail" not in cast


def test_bad_input_is_one_line(tmp_path):
    done = _check_model(tmp_path / "missing.onnx", "--backend", "opconform")
    assert done.returncode == 4 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "missing.onnx" in done.stderr
    (tmp_path / "junk.onnx").write_bytes(b"not a model")
    done = _check_model(tmp_path / "junk.onnx", "--backend", "opconform")
    assert done.returncode == 4 and "not an ONNX model" in done.stderr and "Traceback" not in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["junk.onnx"]  # nothing written beside it
