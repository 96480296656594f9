"""`opconform repro --script` for the backends of issue 32 and OpenVINO (runners/repro_scripts.py, repro_js.py):
for each backend installed here, the script of one real failing item of the committed suite and of one passing
item, run in a clean environment that cannot import opconform (PYTHONPATH unset, and `runners` / `generator`
blocked in the interpreter): it exits 1 printing the element that differs, or 0. The failing items are what the
backend's whole-suite run found (docs/discrepancies.md); a backend absent here is skipped with the reason."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from runners.backends.base import UnknownBackend
from runners.backends.registry import get_backend
from runners.repro import write_script

CASES = Path(__file__).resolve().parents[1] / "cases" / "node"
CPT = "test_convert_promote_types_float16_float64_dim_scalar_unsafe_pytorch_witness[0]"  # a model-local function
QLINEARMATMUL = "test_qlinearmatmul_witness_1d_per_tensor_per_column"
# Python that runs the script as `python FILE` does, opconform's packages unimportable (the venv may hold them)
BLOCKED = ("import runpy, sys; sys.modules.update(runners=None, generator=None, opconform=None); "
           "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")

# backend, item, what the script prints of it (the last line first), exit status
ITEMS = [
    ("tract", CPT, ["1 element(s) differ", "  [] expected 1.0009765625 actual 1.0"], 1),  # via float32
    ("tract", "test_convert_promote_types_float16_bool_dim_dim_safe[0]", ["0 element(s) differ"], 0),
    # --inputs auto: tract refuses the scale fed, so the script has the weights as initializers
    ("tract", "test_dequantizelinear_nan_payload_scale_float32_to_bfloat16_opset23[0]",
     ["7 element(s) differ", "  element type float32, expected bfloat16"], 1),
    ("tinygrad", "test_quantizelinear_scalar_x_opset13[2]", ["1 element(s) differ", "  [] expected 2 actual 1"], 1),
    ("tinygrad", "test_quantizelinear_scalar_x_opset13[0]", ["0 element(s) differ"], 0),
    # one compile each: a float32 subnormal scale flushed to zero
    ("iree", "test_dynamicquantizelinear_scalar[8]",
     ["1 element(s) differ", "  [] expected 4.609851558089351e-41 actual 0.0"], 1),
    ("iree", "test_dynamicquantizelinear_scalar[0]", ["0 element(s) differ"], 0),
    # a NaN whose payload is in the low 16 bits
    ("openvino", "test_cast_float32_to_bfloat16_vector_tail[0]", ["1 element(s) differ",
                                                                  "  [0] expected nan actual -inf"], 1),
    # built natively (openvino.opset14), bfloat16 fed
    ("openvino", "test_convert_promote_types_bfloat16_bfloat16_dim_dim_safe[0]", ["0 element(s) differ"], 0),
    ("onnxruntime-node", f"{QLINEARMATMUL}[0]", ["1 element(s) differ", "  [0] expected 255 actual 254"], 1),
    ("onnxruntime-node", f"{QLINEARMATMUL}[2]", ["0 element(s) differ"], 0),  # [1] fails since issue 32's witnesses
    ("onnxruntime-web", f"{QLINEARMATMUL}[0]", ["1 element(s) differ", "  [0] expected 255 actual 254"], 1),
    ("onnxruntime-web", f"{QLINEARMATMUL}[2]", ["0 element(s) differ"], 0),
]


def clean_env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ORT_DISABLE_TELEMETRY")}


def run_script(path: Path) -> subprocess.CompletedProcess:
    """The script run as its user runs it, in its own folder; a JavaScript one with the folder the JS backends
    load their package from (DIR on its command line), and it leaves no telemetry log of onnxruntime-node's."""
    if path.suffix == ".mjs":
        from runners.backends.js_packages import js_dir

        argv = ["node", str(path), str(js_dir())]
    else:
        argv = [sys.executable, "-c", BLOCKED, str(path)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=path.parent,
                            env=clean_env())
    out, err = proc.communicate(timeout=300)
    log = Path(f"/tmp/mat-debug-{proc.pid}.log")  # (onnxruntime-node 1.30's, without ORT_DISABLE_TELEMETRY)
    assert not log.exists(), log
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


@pytest.mark.parametrize("backend, item, printed, status", ITEMS, ids=[f"{b}-{i}" for b, i, _, _ in ITEMS])
def test_the_script_reproduces_the_item_with_the_runtime_alone(tmp_path, backend, item, printed, status):
    try:
        get_backend(backend)
    except UnknownBackend as exc:
        pytest.skip(str(exc))
    try:
        script = write_script(str(CASES / item), backend, [], tmp_path / ("repro.mjs" if "onnxruntime-" in backend
                                                                           else "repro.py"))
    except RuntimeError as exc:  # installed but unable to run here (tinygrad's CPU device without clang)
        if "cannot run" not in str(exc):
            raise
        pytest.skip(str(exc))
    run = run_script(script)
    lines = run.stdout.splitlines()
    assert run.returncode == status, run.stdout[-2000:] + run.stderr[-2000:]
    assert lines[-1] == printed[0] and all(line in lines for line in printed[1:]), run.stdout[-2000:]


def test_a_script_reads_the_package_from_the_folder_given(tmp_path):
    """An onnxruntime-node script names where it looks when the package is in none of its folders."""
    try:
        get_backend("onnxruntime-node")
    except UnknownBackend as exc:
        pytest.skip(str(exc))
    script = write_script(str(CASES / f"{QLINEARMATMUL}[1]"), "onnxruntime-node", [], tmp_path / "r.mjs")
    env = {**clean_env(), "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("OPCONFORM_JS_DIR", None)
    done = subprocess.run(["node", str(script), str(tmp_path / "nowhere")], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=60)
    if done.returncode != 2:  # (found anyway: a node_modules above the temporary folder)
        pytest.skip(f"onnxruntime-node resolves from {tmp_path} without being asked: {done.stdout[:200]}")
    assert "onnxruntime-node is in none of" in done.stderr and str(tmp_path / "nowhere") in done.stderr
