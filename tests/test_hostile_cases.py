"""Bad and hostile cases: each corrupt, truncated, tampered or escaping case gets an `invalid-case`
verdict naming the file, and the run goes on with every other case judged as usual."""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]
importlib.import_module("runners.backends.opconform")  # before pytester's in-process runs (see test_gate)

SUITE = Path(__file__).resolve().parents[1] / "cases"
NAMES = sorted(p.name for p in (SUITE / "node").iterdir())[20:30]


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))


def _rehash(case_dir: Path, rel: str) -> None:
    import hashlib

    meta = json.loads((case_dir / "case.json").read_text())
    meta["sha256"][rel] = hashlib.sha256((case_dir / rel).read_bytes()).hexdigest()
    (case_dir / "case.json").write_text(json.dumps(meta))


def _escape(case_dir: Path) -> None:
    """Point an initializer's external data at a file outside the case, hashes made to match."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(case_dir / "model.onnx")
    t = helper.make_tensor("stolen", TensorProto.FLOAT, [1], [0.0])
    t.ClearField("float_data")
    t.data_location = TensorProto.EXTERNAL
    entry = t.external_data.add()
    entry.key, entry.value = "location", "../../secret.bin"
    model.graph.initializer.append(t)
    (case_dir / "model.onnx").write_bytes(model.SerializeToString())
    _rehash(case_dir, "model.onnx")


# what each damaged case must report: (damage, file the message names, problem text)
DAMAGE = [
    (lambda d: _truncate(d / "model.onnx"), "model.onnx", "sha256 mismatch"),
    (lambda d: (_truncate(d / "model.onnx"), _rehash(d, "model.onnx")), "model.onnx", "model"),
    (lambda d: (_truncate(d / "test_data_set_0" / "input_0.pb"), _rehash(d, "test_data_set_0/input_0.pb")),
     "input_0.pb", "TensorProto"),
    (lambda d: _flip(d / "test_data_set_0" / "output_0.pb"), "output_0.pb", "sha256 mismatch"),
    (lambda d: (d / "case.json").write_text("{ not json"), "case.json", "corrupt case.json"),
    (lambda d: shutil.rmtree(d / "test_data_set_0"), "test_data_set_0", "missing file"),
    (_escape, "model.onnx", "outside the case directory"),
]


@pytest.fixture
def damaged(pytester) -> Path:
    suite = pytester.path / "suite" / "node"
    suite.mkdir(parents=True)
    (pytester.path / "secret.bin").write_bytes(b"\0" * 4)
    for name in NAMES:
        shutil.copytree(SUITE / "node" / name, suite / name)
    for (damage, _, _), name in zip(DAMAGE, NAMES):
        damage(suite / name)
    return suite


@pytest.mark.parametrize("isolation", ["process", "none"])
def test_each_damaged_case_is_invalid_and_the_rest_run(pytester, damaged, isolation):
    report = pytester.path / "r.json"
    r = pytester.runpytest(str(damaged), "--backend", "opconform", "--report", str(report), "--isolation", isolation)
    records = {rec["case"]: rec for rec in json.loads(report.read_text())["records"]}
    assert set(records) == set(NAMES)
    for (_, filename, problem), name in zip(DAMAGE, NAMES):
        rec = records[name]
        assert rec["verdict"] == "invalid-case", (name, rec["verdict"], rec["message"])
        assert filename in rec["message"] and problem in rec["message"], (name, rec["message"])
        assert "Traceback" not in rec["message"]
    undamaged = NAMES[len(DAMAGE):]
    assert all(records[n]["verdict"] == "pass" for n in undamaged)
    r.assert_outcomes(passed=len(undamaged), failed=len(DAMAGE))
