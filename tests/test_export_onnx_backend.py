"""opconform export --format onnx-backend-test: case directories ONNX's loader and Runner take, with the tolerances
their comparison can express, and every case they cannot judge as the suite does left out with why."""

from __future__ import annotations

import json
import shutil
import unittest
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from runners import cli

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"
KEPT = ["node/test_cast_uint8_to_int8_edge", "node/test_cast_int8_to_float16_exhaustive",
        "node/test_cast_string_to_string_edge"]
LEFT = {  # case -> why
    "node/test_cast_bfloat16_to_float16_edge": "negative_zero", "node/test_cast_bfloat16_to_bfloat16_edge": "bfloat16",
    "node/test_cast_bfloat16_to_int64_edge": "int53", "node/test_cast_float16_to_string_edge": "mode:parsed",
    "node/test_cast_bfloat16_to_float8e4m3fn_nosat_negative_nan": "nan_sign", "node/test_matmulnbits_a_1d": "mode:dot",
    "graph/test_layout_channel_tail": "twin", "probe/test_cast_bfloat16_to_float4e2m1_probe": "probe",
    "negative/test_convert_promote_types_bfloat16_float16_dim_dim_safe": "negative",
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    suite = tmp_path_factory.mktemp("suite")
    for rel in KEPT + list(LEFT):
        shutil.copytree(CASES / rel, suite / rel)
    (suite / "manifest.json").write_text("{}")
    out = tmp_path_factory.mktemp("export") / "out"
    assert cli.main(["export", str(suite), "--format", "onnx-backend-test", str(out)]) == 0
    return suite, out


def test_kept_cases_carry_the_runners_tolerances_and_the_rest_is_named(exported):
    _, out = exported
    assert sorted(p.name for p in (out / "opconform").iterdir()) == sorted(Path(r).name for r in KEPT)
    for rel in KEPT:
        d = out / "opconform" / Path(rel).name
        assert json.loads((d / "data.json").read_text()) == {"rtol": 0.0, "atol": 0.0}
        assert (d / "model.onnx").read_bytes() == (CASES / rel / "model.onnx").read_bytes()
    left = {e["case"]: e["why"] for e in json.loads((out / "left_out.json").read_text())["left_out"]}
    assert left == {Path(k).name: v for k, v in LEFT.items()}
    readme = (out / "README.md").read_text()
    assert "assert_allclose takes -0 and +0 as equal" in readme and 'kind="opconform"' in readme


def test_the_loader_reads_them_with_exact_tolerances(exported):
    from onnx.backend.test.loader import load_model_tests

    _, out = exported
    tests = {t.name: t for t in load_model_tests(data_dir=str(out), kind="opconform")}
    assert set(tests) == {Path(r).name for r in KEPT}
    assert all((t.rtol, t.atol) == (0.0, 0.0) for t in tests.values())


def _run(out: Path, monkeypatch) -> unittest.TestResult:
    """The README's recipe on onnxruntime's backend. The Runner's constructor first builds ONNX's own tests (a
    minute), which the recipe then clears: here its loader gives it none, to keep the test run short."""
    import onnx.backend.test.runner as onnx_runner
    from onnx.backend.test.loader import load_model_tests

    backend = pytest.importorskip("onnxruntime.backend")
    monkeypatch.setattr(onnx_runner, "load_model_tests", lambda *a, **k: [])
    runner = onnx_runner.Runner(backend, __name__)
    runner._test_items.clear()
    for test in load_model_tests(data_dir=str(out), kind="opconform"):
        runner._add_model_test(test, "Opconform")
    suite = unittest.TestSuite(unittest.TestLoader().loadTestsFromTestCase(c) for c in runner.test_cases.values())
    result = unittest.TestResult()
    suite.run(result)
    return result


def test_onnxs_runner_passes_them_on_onnxruntime_and_fails_one_ulp_off(exported, tmp_path, monkeypatch):
    _, out = exported
    result = _run(out, monkeypatch)  # a test per case and device: the CUDA ones skip here
    assert result.testsRun - len(result.skipped) == len(KEPT) and not result.failures and not result.errors
    tampered = tmp_path / "tampered"
    shutil.copytree(out, tampered)
    f = tampered / "opconform" / "test_cast_int8_to_float16_exhaustive" / "test_data_set_0" / "output_0.pb"
    y = numpy_helper.to_array(onnx.load_tensor(str(f))).copy()
    i = int(np.flatnonzero(np.abs(y) > 1)[0])
    y[i] = np.nextafter(y[i], np.float16(np.inf))  # one float16 ulp: inside the loader's default rtol of 1e-3
    f.write_bytes(numpy_helper.from_array(y, "y").SerializeToString())
    result = _run(tampered, monkeypatch)
    assert len(result.failures) == 1 and "exhaustive" in str(result.failures[0][0])


def test_bad_input_is_one_line_and_exit_2(exported, tmp_path, capsys):
    suite, out = exported
    assert cli.main(["export", str(suite), "--format", "onnx-backend-test", str(out)]) == 2  # not empty
    assert cli.main(["export", str(tmp_path), "--format", "onnx-backend-test", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "not an empty directory" in err[0] and "is no suite" in err[1]
    assert not (tmp_path / "o").exists()
