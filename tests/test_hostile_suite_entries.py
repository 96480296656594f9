"""Suite entries that are no regular files (issue 31, part 7): a case whose model.onnx, case.json or data file
is a FIFO or a socket is one invalid-case item saying so, never a case that vanishes, and reading it never
blocks. Both runners."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from test_pytest_plugin import F16, cast_case, write_suite

pytest_plugins = ["pytester"]

# (case, its file made a special file, what: FIFO or socket)
BROKEN = [(f"test_{rel.split('/')[-1].split('.')[0]}_{what}", rel, what)
          for rel in ("model.onnx", "case.json", "test_data_set_0/input_0.pb") for what in ("fifo", "socket")]


def _socket(path: Path) -> None:
    """A Unix socket file at `path`, bound from its folder (a socket's address takes at most 107 bytes)."""
    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(path.name)
    finally:
        os.chdir(cwd)


def _records(path: Path) -> list[dict]:
    return json.loads(path.read_text())["records"]


@pytest.fixture
def special_suite(pytester) -> Path:
    """F16 (passes) and one case for each entry of BROKEN, its file replaced by a FIFO or a socket."""
    broken = [cast_case(name, "float32", "float16", [[1.0]]) for name, _, _ in BROKEN]
    root = write_suite(pytester.path / "suite", [cast_case(F16, "float32", "float16", [[1.0, 2.0]]), *broken])
    for name, rel, what in BROKEN:
        path = root / "node" / name / rel
        path.unlink()
        os.mkfifo(path) if what == "fifo" else _socket(path)
    return root


@pytest.mark.parametrize("manifest", [True, False], ids=["manifest", "plain-folder"])
@pytest.mark.parametrize("runner", ["pytest", "opconform-run"])
def test_a_fifo_or_socket_in_a_case_is_one_invalid_case_item_naming_it(pytester, special_suite, manifest, runner):
    """model.onnx a FIFO made the folder no case at all: without a manifest the case vanished (no record), with
    one it was 'missing'. Each broken case is now one invalid-case item naming its file and what it is. Run in a
    subprocess under a deadline, in one process (--isolation none): a read that blocked would hang the run."""
    if not manifest:
        (special_suite / "manifest.json").unlink()
    report = pytester.path / "r.json"
    command = ["-m", "pytest", "-p", "no:cacheprovider"] if runner == "pytest" else ["-m", "runners.run"]
    done = subprocess.run([sys.executable, *command, "suite", "--backend", "opconform", "--isolation", "none",
                           "--report", str(report)], cwd=pytester.path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    records = {r["case"]: r for r in _records(report)}
    assert sorted(records) == sorted([F16, *(name for name, _, _ in BROKEN)])
    assert records[F16]["verdict"] == "pass"
    for name, rel, what in BROKEN:
        r = records[name]
        said = "a FIFO" if what == "fifo" else "a socket"
        assert r["verdict"] == "invalid-case" and f"{name}/{rel}: {said}, not a regular file" in r["message"], r
    assert "Traceback" not in done.stdout + done.stderr


def test_a_fifo_model_named_as_the_argument_is_its_case(pytester, special_suite):
    """The case directory, and its node id through the FIFO model.onnx, are one item each (before: nothing
    collected, or pytest's own collectors handed a FIFO)."""
    case = f"suite/node/{BROKEN[0][0]}"
    for arg in (case, f"{case}/model.onnx::{BROKEN[0][0]}[0]"):
        result = pytester.runpytest_subprocess(arg, "--backend", "opconform", "--isolation", "none", timeout=120)
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(["*model.onnx: a FIFO, not a regular file; refused*"])
