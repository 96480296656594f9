"""The `opconform` command (runners/cli.py): the backends listing and the error surface.

Out of scope here: running suites (tests/test_pytest_plugin.py), the backends themselves.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from runners.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_backends_table(capsys):
    import onnxruntime

    code, out, err = run(capsys, "backends")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "VERSION", "INSTALLED", "DETAIL"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert {"onnxruntime", "onnx-reference", "opconform"} <= set(rows)
    assert rows["onnxruntime"][1:3] == [onnxruntime.__version__, "yes"]
    assert rows["opconform"][2] == "yes"


def test_backends_options(capsys):
    """Each backend's --backend-option keys, from its own table."""
    from runners.backends.onnxruntime import OnnxRuntimeBackend

    code, out, err = run(capsys, "backends", "--options")
    assert code == 0 and err == ""
    section = out.split("\nonnxruntime:\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split(":")[0].strip() for line in section.splitlines()] == list(OnnxRuntimeBackend.OPTIONS)
    assert "\nopconform: no --backend-option\n" in out


def test_backends_json(capsys):
    code, out, _ = run(capsys, "backends", "--json")
    assert code == 0
    rows = json.loads(out)
    assert {r["name"] for r in rows} >= {"onnxruntime", "onnx-reference", "opconform"}
    assert all(set(r) >= {"name", "version", "installed", "detail"} for r in rows)


@pytest.mark.parametrize("argv, text", [
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["backends", "--bogus"], "unrecognized arguments: --bogus"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    ([], "a command is required"),
    (["repro"], "the following arguments are required: CASE_DIR[i], --backend"),
    (["repro", "cases/node/x[0]"], "the following arguments are required: --backend"),
    (["repro", "x[0]", "--backend", "onnxruntime", "--tier", "lax"], "invalid choice: 'lax'"),
])
def test_bad_command_line_is_one_line_and_exit_2(capsys, argv, text):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and text in err and err.startswith("opconform")


def test_help(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "backends" in out and "pytest SUITE --backend" in out
    code, out, _ = run(capsys, "backends", "--help")
    assert code == 0 and "--json" in out
    code, out, _ = run(capsys, "report", "--help")
    assert code == 0 and "--suite DIR" in out and "default -: stdout" in out and "merge into one" in out
    assert "--baseline B.baseline.json" in out and "new, known and fixed" in out
    code, out, _ = run(capsys, "repro", "--help")
    assert code == 0 and "CASE_DIR[i]" in out and "--script FILE" in out and "exit status: 0 the item passes" in out


def test_console_script_is_installed():
    exe = shutil.which("opconform")
    cmd = [exe] if exe else [sys.executable, "-m", "runners.cli"]
    proc = subprocess.run([*cmd, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "usage: opconform" in proc.stdout


def test_run_is_a_command_of_opconform(capsys, tmp_path):
    """`opconform run` reaches runners/run.py: a missing suite is its one-line usage error (exit 4, as pytest's)."""
    code, out, err = run(capsys, "run", str(tmp_path / "nowhere"), "--backend", "onnxruntime")
    assert code == 4 and err.count("\n") == 1 and "nowhere" in err, (code, err)
