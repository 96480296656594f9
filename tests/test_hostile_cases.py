"""Bad and hostile cases: each corrupt, truncated, tampered or escaping case, each wrongly typed case.json
field, each special, oversized or missing data file gets an `invalid-case` verdict naming the file and the
problem; the run goes on with every other case judged as usual, and its report is written."""

from __future__ import annotations

import hashlib
import importlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest_plugins = ["pytester"]
importlib.import_module("runners.backends.opconform")  # before pytester's in-process runs (see test_gate)

SUITE = Path(__file__).resolve().parents[1] / "cases"


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))


def _rehash(case_dir: Path, rel: str) -> None:
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


def _set(case_dir: Path, field: str, value) -> None:
    """A wrongly typed case.json field (case.json lists no hash of its own: nothing to rehash)."""
    meta = json.loads((case_dir / "case.json").read_text())
    meta[field] = value
    (case_dir / "case.json").write_text(json.dumps(meta))


def _twin_outside(case_dir: Path) -> None:
    meta = json.loads((case_dir / "case.json").read_text())
    meta["twin"]["model"] = "../../../secret.bin"
    (case_dir / "case.json").write_text(json.dumps(meta))


def _link_input(case_dir: Path, target: str) -> None:
    """input_0.pb made a symlink (its listed hash that of what reading the target gives)."""
    path = case_dir / "test_data_set_0" / "input_0.pb"
    path.unlink()
    path.symlink_to(target)
    meta = json.loads((case_dir / "case.json").read_text())
    meta["sha256"]["test_data_set_0/input_0.pb"] = hashlib.sha256(b"").hexdigest()
    (case_dir / "case.json").write_text(json.dumps(meta))


def _oversize_input(case_dir: Path) -> None:
    """input_0.pb holds far more elements than the model's static shape: refused for its size."""
    from onnx import numpy_helper

    path = case_dir / "test_data_set_0" / "input_0.pb"
    path.write_bytes(numpy_helper.from_array(np.zeros(1 << 16, np.float32), "input").SerializeToString())
    _rehash(case_dir, "test_data_set_0/input_0.pb")


def _unlist_outputs(case_dir: Path) -> None:
    """Item 12: output_1.pb and output_2.pb of a 3-output model deleted and dropped from case.json."""
    meta = json.loads((case_dir / "case.json").read_text())
    for ds in case_dir.glob("test_data_set_*"):
        for j in (1, 2):
            (ds / f"output_{j}.pb").unlink()
            del meta["sha256"][f"{ds.name}/output_{j}.pb"]
    (case_dir / "case.json").write_text(json.dumps(meta))


# a wrongly typed value of each case.json field a runner reads (issue 11, item 2)
BAD_FIELDS = [("family", 17), ("kind", "banana"), ("compare", "exact"), ("compare", {"mode": "ulp"}), ("params", 3),
              ("opset", "x"), ("flags", "edge"), ("name", 5), ("op", 1), ("domain", []), ("sha256", {"a": 5}),
              ("negative", "x"), ("phase", "never"), ("native", {"ops": "Cast"}), ("twin", 1)]
DQL = SUITE / "node" / "test_dynamicquantizelinear_4d"
TWIN = SUITE / "graph" / "test_layout_add_broadcast_c"

# what each damaged case must report: (case to damage or None for the next of NAMES, damage, file the message
# names, problem text)
DAMAGE = [
    (None, lambda d: _truncate(d / "model.onnx"), "model.onnx", "sha256 mismatch"),
    (None, lambda d: (_truncate(d / "model.onnx"), _rehash(d, "model.onnx")), "model.onnx", "model"),
    (None, lambda d: (_truncate(d / "test_data_set_0" / "input_0.pb"), _rehash(d, "test_data_set_0/input_0.pb")),
     "input_0.pb", "TensorProto"),
    (None, lambda d: _flip(d / "test_data_set_0" / "output_0.pb"), "output_0.pb", "sha256 mismatch"),
    (None, lambda d: (d / "case.json").write_text("{ not json"), "case.json", "corrupt case.json"),
    (None, lambda d: shutil.rmtree(d / "test_data_set_0"), "test_data_set_0", "missing file"),
    (None, _escape, "model.onnx", "outside the case directory"),
    *[(None, lambda d, f=f, v=v: _set(d, f, v), "case.json", f'field "{f}') for f, v in BAD_FIELDS],
    (TWIN, _twin_outside, "case.json", "twin model '../../../secret.bin' points outside the case directory"),
    (None, lambda d: _link_input(d, "/dev/null"), "input_0.pb", "points outside the case directory"),
    (None, _oversize_input, "input_0.pb", "bytes, more than the"),
    (DQL, _unlist_outputs, "output_1.pb", "missing file (the model has 3 outputs"),
]
NAMES = sorted(p.name for p in (SUITE / "node").iterdir())[20:20 + len(DAMAGE) + 3]


@pytest.fixture
def damaged(pytester) -> tuple[Path, dict[str, tuple[str, str]]]:
    """The suite, and what each damaged case's records must say: case name -> (file, problem)."""
    suite = pytester.path / "suite"
    (pytester.path / "secret.bin").write_bytes(b"\0" * 4)
    names = iter(NAMES)
    expect = {}
    for source, damage, filename, problem in DAMAGE:
        source = source or SUITE / "node" / next(names)
        case_dir = Path(shutil.copytree(source, suite / source.parent.name / source.name))
        damage(case_dir)
        expect[source.name] = (filename, problem)
    for name in names:  # undamaged
        shutil.copytree(SUITE / "node" / name, suite / "node" / name)
    return suite, expect


@pytest.mark.parametrize("isolation", ["process", "none"])
def test_each_damaged_case_is_invalid_and_the_rest_run(pytester, damaged, isolation):
    suite, expect = damaged
    report = pytester.path / "r.json"
    r = pytester.runpytest(str(suite), "--backend", "opconform", "--report", str(report), "--isolation", isolation)
    records = json.loads(report.read_text())["records"]
    assert {rec["case"] for rec in records} == set(expect) | set(NAMES)
    for rec in records:
        if rec["case"] not in expect:
            assert rec["verdict"] == "pass", (rec["case"], rec["message"])
            content = (suite / "node" / rec["case"] / "case.json").read_bytes()
            assert rec["content"] == hashlib.sha256(content).hexdigest()  # what was run (item 4)
            continue
        filename, problem = expect[rec["case"]]
        assert rec["verdict"] == "invalid-case", (rec["case"], rec["verdict"], rec["message"])
        assert filename in rec["message"] and problem in rec["message"], (rec["case"], rec["message"])
        assert "Traceback" not in rec["message"]
    n_damaged = sum(rec["case"] in expect for rec in records)
    r.assert_outcomes(passed=len(records) - n_damaged, failed=n_damaged)
