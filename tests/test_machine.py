"""A baseline belongs to a machine: results files and baselines record the machine (CPU model, the features that
select kernels, OS, architecture, class) and the backend's build; a gate on another machine class or backend version
says so in one line before any verdict; CI keys baselines by `opconform machine --class`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from runners.machine import differences, machine, machine_class

pytest_plugins = ["pytester"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CASES = sorted(p.name for p in (ROOT / "cases" / "node").iterdir())[:4]

AVX2 = {"arch": "x86_64", "features": ["avx", "avx2", "fma", "f16c", "sse4_1", "sse4_2"]}
VNNI = {"arch": "x86_64", "features": [*AVX2["features"], "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
                                       "avx512_bf16"]}


@pytest.mark.parametrize("record, cls", [
    (AVX2, "x86_64-avx2"),
    ({"arch": "x86_64", "features": [*AVX2["features"], "avx_vnni"]}, "x86_64-avx2-vnni"),
    (VNNI, "x86_64-avx512-vnni-bf16"),
    ({"arch": "x86_64", "features": [*VNNI["features"], "avx512_fp16", "amx_tile", "amx_int8"]},
     "x86_64-avx512-vnni-bf16-fp16-amx"),
    ({"arch": "aarch64", "features": ["asimd", "asimdhp", "asimddp", "i8mm", "sve"]}, "aarch64-neon-fp16-dot-i8mm-sve"),
    ({"arch": "riscv64", "features": []}, "riscv64"),
])
def test_the_machine_class_names_the_kernels_a_runtime_picks(record, cls):
    assert machine_class(record) == cls


def test_this_machine_is_recorded_with_what_selects_kernels():
    m = machine()
    assert set(m) == {"arch", "os", "cpu", "features", "class"} and m["class"] == machine_class(m)
    assert m["features"] == sorted(m["features"]) and m["class"].startswith(m["arch"])


def test_differences_say_what_the_gate_compares_across():
    here = {**VNNI, "cpu": "AMD EPYC", "class": machine_class(VNNI)}
    there = {**AVX2, "cpu": "Intel Xeon E5", "class": machine_class(AVX2)}
    ort = {"name": "onnxruntime", "version": "1.32.0"}
    assert differences(here, ort, here, ort) is None
    line = differences(there, {"name": "onnxruntime", "version": "1.24.4"}, here, ort)
    assert line.startswith("opconform gate: the baseline was recorded elsewhere: onnxruntime 1.24.4 there, 1.32.0 here; "
                           "machine class x86_64-avx2 there, x86_64-avx512-vnni-bf16 here; CPU features new here: ")
    assert "avx512_vnni" in line and "\n" not in line
    assert "records no machine" in differences(None, ort, here, ort)
    assert "CPU Intel there, AMD here" in differences({**here, "cpu": "Intel"}, ort, {**here, "cpu": "AMD"}, ort)


def _suite(root: Path) -> Path:
    (root / "node").mkdir(parents=True)
    for name in CASES:
        shutil.copytree(ROOT / "cases" / "node" / name, root / "node" / name)
    (root / "manifest.json").write_text(json.dumps({"format": "opconform-suite/1",
                                                    "cases": [{"name": n, "kind": "node"} for n in CASES]}))
    return root


def _opconform(cwd: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runners.cli", *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))


def _pytest(pytester, *args) -> subprocess.CompletedProcess:
    """pytest with the plugin, in this process (pytester)."""
    result = pytester.runpytest(*args)
    return subprocess.CompletedProcess(["pytest", *args], int(result.ret), result.stdout.str(), result.stderr.str())


@pytest.mark.parametrize("runner", ["run", "pytest"])
def test_a_gate_on_another_machine_says_so_before_any_verdict(tmp_path, pytester, runner):
    suite = _suite(tmp_path / "s")
    base, report = tmp_path / "b.baseline.json", tmp_path / "r.json"
    assert _opconform(tmp_path, "run", str(suite), "--backend", "opconform", "--baseline", str(base),
                      "--update-baseline", "--report", str(report)).returncode == 0
    doc = json.loads(base.read_text())
    assert doc["machine"]["class"] == machine()["class"] == json.loads(report.read_text())["machine"]["class"]
    other = "x86_64-avx512-vnni-bf16" if machine()["class"] == "x86_64-avx2" else "x86_64-avx2"  # not this one's
    doc["machine"] = {**doc["machine"], "class": other, "features": ["avx", "avx2"]}
    base.write_text(json.dumps(doc))
    cmd = (["run", str(suite), "--backend", "opconform", "--baseline", str(base)] if runner == "run" else None)
    r = (_opconform(tmp_path, *cmd) if cmd else
         _pytest(pytester, str(suite), "--backend", "opconform", "--baseline", str(base), "-p", "no:cacheprovider", "-q"))
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    said = [i for i, line in enumerate(lines) if "the baseline was recorded elsewhere" in line]
    assert len(said) == 1 and f"machine class {other} there" in lines[said[0]]
    first_verdict = next(i for i, line in enumerate(lines) if "opconform gate: 0 regression(s)" in line)
    assert said[0] < first_verdict


def test_opconform_machine_prints_the_class_ci_keys_baselines_by():
    from cli_in_process import opconform  # in this process

    r = opconform("machine", "--class")
    assert r.returncode == 0 and r.stdout == machine()["class"] + "\n"
    r = opconform("machine", "--json")
    assert json.loads(r.stdout) == machine()
