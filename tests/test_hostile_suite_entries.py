"""Suite entries that are no regular files, and manifests past their limits (issue 31, part 7): a case whose
model.onnx, case.json or data file is a FIFO or a socket is one invalid-case item saying so, never a case that
vanishes, and reading it never blocks; a manifest.json over MAX_MANIFEST_BYTES or listing more than
MAX_MANIFEST_CASES cases (or corrupt) is refused before an item is made of it: one invalid-case item for the
suite, its cases on disk still run. Both runners."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from test_pytest_plugin import F8, F16, cast_case, rewrite_expected, write_suite

from generator import case_reader
from generator.serialize import CaseError, read_manifest
from runners.collect import collect
from runners.run import run_main
from runners.suite_tree import Manifests, Selection

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


# ---------------------------------------------------------------------------------------------
# a manifest past its limits
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def suite(pytester) -> Path:
    """F16[0] passes, F8[0] fails; the manifest lists them and two cases not on disk."""
    root = write_suite(pytester.path / "suite", [cast_case(F16, "float32", "float16", [[1.0, 2.0]]),
                                                 cast_case(F8, "float32", "float8e4m3fn", [[1.0, 448.0]])])
    rewrite_expected(root / "node" / F8, 0, 0, 2.0)
    doc = json.loads((root / "manifest.json").read_text())
    doc["cases"] = [{"name": n, "kind": "node", "family": "cast"} for n in (F16, F8, "test_ghost_0", "test_ghost_1")]
    (root / "manifest.json").write_text(json.dumps(doc))
    return root


LIMITS = {  # how the manifest is pushed past its limit, and what the refusal says
    "bytes": (lambda m, p: m.setattr(case_reader, "MAX_MANIFEST_BYTES", p.stat().st_size - 1), "bytes, more than the"),
    "cases": (lambda m, p: m.setattr(case_reader, "MAX_MANIFEST_CASES", 3), "4 cases listed, more than the 3"),
    "corrupt": (lambda m, p: p.write_text('{"format": "opconform-suite/1", "cases": [' * 50), "corrupt manifest"),
}


@pytest.mark.parametrize("family", [[], ["--family", "cast"]], ids=["all", "family"])
@pytest.mark.parametrize("runner", ["pytest", "opconform-run"])
@pytest.mark.parametrize("limit", list(LIMITS))
def test_a_manifest_past_its_limits_is_one_invalid_case_item_and_no_ghosts(pytester, monkeypatch, suite, limit,
                                                                          runner, family):
    """The refused manifest is one item naming the file and the limit (selected with every --family: it
    concerns them all); no item is made of its entries (no ghost), and the cases on disk keep their verdicts."""
    push, says = LIMITS[limit]
    push(monkeypatch, suite / "manifest.json")
    monkeypatch.chdir(pytester.path)
    args = ["suite", "--backend", "opconform", "--isolation", "none", "--report", "r.json", *family]
    rc = int(pytester.runpytest(*args, "-p", "no:cacheprovider").ret) if runner == "pytest" else run_main(args)
    assert rc == 1
    records = {r["case"]: r for r in _records(pytester.path / "r.json")}
    assert sorted(records) == sorted([F16, F8, "manifest.json"])
    assert (records[F16]["verdict"], records[F8]["verdict"]) == ("pass", "fail")
    refused = records["manifest.json"]
    assert refused["verdict"] == "invalid-case" and "suite/manifest.json: " in refused["message"], refused
    assert says in refused["message"] and "the suite's cases on disk are run without it" in refused["message"]


def test_the_case_limit_itself_leaves_no_ghost_item(tmp_path):
    """At the real limit (no constant lowered): one entry more than MAX_MANIFEST_CASES, of cases none of which is
    on disk, gives the suite's one refused item and its case on disk, not 100,001 ghosts."""
    root = write_suite(tmp_path / "suite", [cast_case(F16, "float32", "float16", [[1.0]])])
    ghosts = ",".join(f'{{"kind":"node","name":"g{i}"}}' for i in range(case_reader.MAX_MANIFEST_CASES))
    (root / "manifest.json").write_text('{"format": "opconform-suite/1", "cases": [' + ghosts
                                        + f',{{"kind":"node","name":"{F16}"}}]}}')
    assert (root / "manifest.json").stat().st_size < case_reader.MAX_MANIFEST_BYTES
    items, _ = collect(["suite"], tmp_path)
    assert [(it.case_name, it.problem is None) for it in items] == [(F16, True), ("manifest.json", False)]
    assert f"{case_reader.MAX_MANIFEST_CASES + 1} cases listed" in items[1].problem
    chosen = Selection(["quantize_linear"])  # the refused manifest goes with any family; F16 (no family) does not
    assert [it.case_name for it in collect(["suite"], tmp_path, Manifests(), chosen)[0]] == ["manifest.json"]


def test_read_manifest_states_both_limits(tmp_path, monkeypatch):
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "opconform-suite/1", "cases": [{}, {}]}))
    monkeypatch.setattr(case_reader, "MAX_MANIFEST_CASES", 1)
    with pytest.raises(CaseError, match=r"manifest.json: 2 cases listed, more than the 1 a manifest can list; refused"):
        read_manifest(tmp_path)
    monkeypatch.setattr(case_reader, "MAX_MANIFEST_BYTES", 10)
    with pytest.raises(CaseError, match=r"manifest.json: \d+ bytes, more than the 10 it can take; refused"):
        read_manifest(tmp_path)


def test_the_committed_suite_is_well_within_the_manifest_limits():
    committed = Path(__file__).resolve().parents[1] / "cases"
    assert (committed / "manifest.json").stat().st_size * 5 < case_reader.MAX_MANIFEST_BYTES
    assert len(read_manifest(committed)["cases"]) * 5 < case_reader.MAX_MANIFEST_CASES
