"""opconform export --format iree: IREE's ONNX op-suite folders (model.mlir through IREE's importer, .npy data,
test_data_flags.txt) and a config.json whose expected failures come from a results file; run with iree-compile and
iree-run-module as IREE's own suite runs them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from runners import cli

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"
KEPT = ("test_cast_int8_to_float16_exhaustive", "test_quantizelinear_uint8_opset25")
LEFT = {"node/test_cast_float32_to_float16_edge": "negative_zero", "node/test_cast_bfloat16_to_float32_edge":
        "npy:bfloat16", "negative/test_convert_promote_types_bfloat16_float16_dim_dim_safe": "negative"}
FAULT = "fault:quantize_linear.truncate"

pytest.importorskip("iree.compiler")


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    base = tmp_path_factory.mktemp("iree_export")
    for rel in [f"node/{n}" for n in KEPT] + list(LEFT):
        shutil.copytree(CASES / rel, base / "suite" / rel)
    (base / "suite" / "manifest.json").write_text("{}")
    return base


def test_folders_flags_and_left_out(suite):
    out = suite / "plain"
    assert cli.main(["export", str(suite / "suite"), "--format", "iree", str(out)]) == 0
    folders = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert folders == [KEPT[0]] + [f"{KEPT[1]}_{i}" for i in range(6)]  # one folder a data set
    flags = (out / KEPT[0] / "test_data_flags.txt").read_text().splitlines()
    assert flags[:2] == ["--input=@input_0.npy", "--expected_output=@output_0.npy"]
    assert "--expected_f16_threshold=0" in flags
    assert "func.func @main" in (out / KEPT[0] / "model.mlir").read_text()
    left = {e["case"]: e["why"] for e in json.loads((out / "left_out.json").read_text())["left_out"]}
    assert left == {Path(k).name: v for k, v in LEFT.items()}
    config = json.loads((out / "config.json").read_text())
    assert config["expected_compile_failures"] == config["expected_run_failures"] == []


def _run(folder: Path, tmp: Path) -> int:
    vmfb = tmp / f"{folder.name}.vmfb"
    tools = Path(sys.executable).parent
    subprocess.run([str(tools / "iree-compile"), "model.mlir", "--iree-hal-target-backends=llvm-cpu",
                    "--iree-input-demote-f64-to-f32=false", "-o", str(vmfb)], cwd=folder, check=True,
                   capture_output=True)
    return subprocess.run([str(tools / "iree-run-module"), f"--module={vmfb}", "--device=local-sync",
                           "--flagfile=test_data_flags.txt"], cwd=folder, capture_output=True).returncode


def test_iree_run_module_passes_a_folder_and_fails_it_one_ulp_off(suite, tmp_path):
    out = suite / "plain"
    if not out.exists():
        assert cli.main(["export", str(suite / "suite"), "--format", "iree", str(out)]) == 0
    folder = out / KEPT[0]
    assert _run(folder, tmp_path) == 0
    tampered = tmp_path / "tampered"
    shutil.copytree(folder, tampered)
    y = np.load(tampered / "output_0.npy")
    i = int(np.flatnonzero(np.abs(y) > 1)[0])
    y[i] = np.nextafter(y[i], np.float16(np.inf))
    np.save(tampered / "output_0.npy", y)
    assert _run(tampered, tmp_path) != 0


def test_expected_failures_come_from_a_results_file(suite):
    subprocess.run([sys.executable, "-m", "runners.cli", "run", "suite", "--backend", FAULT, "--report", "r.json"],
                   cwd=suite, capture_output=True, check=False)
    doc = json.loads((suite / "r.json").read_text())
    refused = dict(next(r for r in doc["records"] if r["case"] == KEPT[0]))  # made a compile failure
    refused.update(verdict="error", message=f"{KEPT[0]}[0]: prepare raised RuntimeError: iree-compile failed")
    doc["records"] = [r for r in doc["records"] if r["case"] != KEPT[0]] + [refused]
    (suite / "r2.json").write_text(json.dumps(doc))
    out = suite / "with_xfails"
    assert cli.main(["export", str(suite / "suite"), "--format", "iree", str(out), "--xfails-from",
                     str(suite / "r2.json")]) == 0
    config = json.loads((out / "config.json").read_text())
    assert config["expected_compile_failures"] == [KEPT[0]]
    assert config["expected_run_failures"] == [f"{KEPT[1]}_{i}" for i in range(6)]


def test_bad_input_is_one_line_and_exit_2(suite, tmp_path, capsys):
    args = ["export", str(suite / "suite"), "--format", "iree", str(tmp_path / "o")]
    assert cli.main(args + ["--xfails-from", str(tmp_path / "none.json")]) == 2
    assert cli.main(["export", str(suite / "suite"), "--format", "onnx-backend-test", str(tmp_path / "p"),
                     "--xfails-from", str(tmp_path / "none.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "no such results file" in err[0] and "only with --format iree" in err[1]
    assert not (tmp_path / "o").exists() and not (tmp_path / "p").exists()
