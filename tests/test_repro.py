"""opconform repro CASE[i] --backend B (runners/repro.py): one item run alone through the suite's own execution
and comparison, printed whole; --script writes a standalone reproducer that needs only the runtime; bad input is
one line and exit status 2."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QLINEAR = "test_qlinearconv_witness_explicit_dilated_per_channel_bias"  # data set 9: 254 expected, onnxruntime 255
FLOAT8 = "test_cast_bfloat16_to_float8e4m3fn_nosat_edge"  # onnxruntime: 480 -> 448 instead of NaN


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cases")
    for name in (QLINEAR, FLOAT8):
        shutil.copytree(ROOT / "cases" / "node" / name, root / name)
    return root


def repro(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "runners.cli", "repro", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd or ROOT)


def test_a_qlinearconv_failure_is_printed_with_inputs_expected_actual_and_verdict(cases):
    r = repro(f"{cases / QLINEAR}[9]", "--backend", "onnxruntime")
    assert r.returncode == 1 and r.stderr == "", r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"case      {cases / QLINEAR}[9] (node, family qlinear_conv)"
    assert lines[1].startswith("node      QLinearConv(auto_pad='NOTSET', dilations=[2, 2], pads=[1, 1, 1, 1])")
    assert "  x_scale: float[] = 0.0078125" in lines and "  w_zero_point: int8[2] = [-127 -126]" in lines
    assert "  y_zero_point: uint8[] = 0" in lines
    expected = lines[lines.index("expected") + 1]
    actual = lines[lines.index("actual") + 1]
    assert expected.startswith("  y: uint8[1, 2, 5, 5] = [0 0 0 0 0 0 254 0 127")
    assert actual.startswith("  y: uint8[1, 2, 5, 5] = [0 0 0 0 0 0 255 0 127")
    assert "verdict   fail" in lines
    assert any("254 (0xfe)  255 (0xff)" in line for line in lines)  # the suite's own comparison message


def test_a_passing_item_exits_0(cases):
    r = repro(f"{cases / QLINEAR}[0]", "--backend", "onnx-reference")
    assert r.returncode == 0 and "verdict   pass" in r.stdout


@pytest.mark.parametrize("backend, differ, status", [("onnxruntime", 4, 1), ("onnx-reference", 0, 0)])
def test_the_script_reproduces_a_float8_failure_with_the_runtime_alone(cases, tmp_path, backend, differ, status):
    script = tmp_path / "repro.py"
    r = repro(f"{cases / FLOAT8}[0]", "--backend", backend, "--script", script)
    assert r.returncode == 0 and r.stdout == f"opconform repro: wrote {script} (python {script})\n"
    text = script.read_text()
    assert "opconform" not in text.replace("# written by opconform repro --script", "").replace(
        "opconform judged", "")  # needs only numpy, onnx and the runtime
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == status, run.stderr
    assert run.stdout.splitlines()[-1] == f"{differ} element(s) differ"
    if differ:
        assert "  [32] expected nan actual 448.0" in run.stdout


def test_the_qlinearconv_script_reproduces_the_onnxruntime_failure(cases, tmp_path):
    script = tmp_path / "q.py"
    assert repro(f"{cases / QLINEAR}[9]", "--backend", "onnxruntime", "--script", script).returncode == 0
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 1 and "  [0, 0, 1, 1] expected 254 actual 255" in run.stdout


@pytest.mark.parametrize("item, args, text", [
    ("nowhere/test_x[0]", ["--backend", "onnxruntime"], "nowhere/test_x: no such case directory"),
    (f"{QLINEAR}[14]", ["--backend", "onnxruntime"], "no such data set (the case has 14: 0..13)"),
    (f"{QLINEAR}[0]", ["--backend", "nosuch"], "--backend nosuch: unknown backend 'nosuch'"),
    (f"{QLINEAR}[0]", ["--backend", "onnxruntime", "--backend-option", "nokey"], "expected KEY=VALUE"),
    (f"{QLINEAR}[0]", ["--backend", "onnxruntime", "--backend-option", "bogus=1"], "has no option bogus"),
    (f"{QLINEAR}[0]", ["--backend", "opconform", "--script", "s.py"], "--script: scripts are written for"),
    (f"{QLINEAR}[0]", ["--backend", "onnxruntime-node", "--script", "s.py"], "onnxruntime-node's script is JavaScript"),
    (f"{QLINEAR}[0]", ["--backend", "tract", "--script", "s.mjs"], "tract's script is Python: give a FILE not"),
    ("bad\x1b[2J[0]", ["--backend", "onnxruntime"], "bad\\x1b[2J: no such case directory"),
])
def test_bad_input_is_one_line_and_exit_2(cases, item, args, text):
    r = repro(item, *args, cwd=cases)
    assert r.returncode == 2 and r.stdout == "", r.stdout
    assert len(r.stderr.splitlines()) == 1 and text in r.stderr and "\x1b" not in r.stderr, r.stderr


def test_a_damaged_case_is_one_line(cases, tmp_path):
    broken = tmp_path / QLINEAR
    shutil.copytree(cases / QLINEAR, broken)
    (broken / "test_data_set_9" / "input_0.pb").write_bytes(b"\x00garbage")
    r = repro(f"{broken}[9]", "--backend", "onnxruntime")
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "input_0.pb" in r.stderr, r.stderr


def test_the_script_never_replaces_a_users_file(cases, tmp_path):
    mine = tmp_path / "notes.py"
    mine.write_text("my notes\n")
    r = repro(f"{cases / FLOAT8}[0]", "--backend", "onnxruntime", "--script", mine)
    assert r.returncode == 2 and "is not a script opconform repro wrote" in r.stderr
    assert mine.read_text() == "my notes\n"
