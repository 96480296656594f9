"""The pytest plugin (runners/pytest_plugin.py) and runners/execute.py on tiny suites built here.

Each suite is written with generator.case.node_model + generator.serialize.write_case, expected values
from generator.reference.cast. pytest runs in-process (pytester.runpytest) except for -n, which needs
a subprocess.

Out of scope here: the comparison rules themselves (compare's own tests), the backends' adapters,
worker isolation (crash / timeout).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from generator import dtypes
from generator.case import Case, node_model
from generator.reference.cast import cast
from generator.serialize import LoadedCase, read_case, write_case, write_manifest
from runners.backends.base import Backend, Unsupported
from runners.execute import PreparedCache, run_case_dataset

pytest_plugins = ["pytester"]

F16 = "test_cast_float32_to_float16"
F8 = "test_cast_float32_to_float8e4m3fn"
META = dict(domain="", family="cast", spec={"file": "Cast.txt", "clause": "float -> float"},
            compare={"mode": "exact"}, flags=["edge"], seed=0)


def cast_case(name: str, src: str, to: str, datasets: list[list], opset: int = 19, kind: str = "node",
              **meta) -> Case:
    src_t, to_t = dtypes.get(src), dtypes.get(to)
    n = len(datasets[0])
    model = node_model("Cast", [("x", src_t, (n,))], [("y", to_t, (n,))], {"to": to_t.onnx}, opset)
    inputs = [[np.asarray(x, dtype=src_t.np_dtype)] for x in datasets]
    outputs = [[cast(i[0], src_t, to_t, opset=opset)[0]] for i in inputs] if kind in ("node", "graph") else None
    return Case(name, kind, model, inputs, outputs, dict(META, op="Cast", opset=opset, **meta))


def write_suite(root: Path, cases: list[Case]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for c in cases:
        write_case(c, root)
    write_manifest(root, {}, [{"name": c.name, "kind": c.kind} for c in cases])
    return root


@pytest.fixture
def suite(pytester: pytest.Pytester) -> Path:
    """3 items: F16[0], F16[1], F8[0]."""
    return write_suite(pytester.path / "suite", [
        cast_case(F16, "float32", "float16", [[1.0, 65504.0, 1e-8, np.nan], [0.1, -0.0, 70000.0, 3.0]]),
        cast_case(F8, "float32", "float8e4m3fn", [[1.0, 448.0, 500.0, 0.01]]),
    ])


def rewrite_expected(case_dir: Path, dataset: int, index: int, value, update_hash: bool = True) -> None:
    """Put a wrong expected value in output_0.pb (and record its new sha256 in case.json)."""
    path = case_dir / f"test_data_set_{dataset}" / "output_0.pb"
    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    arr = numpy_helper.to_array(tensor).copy()
    arr[index] = value
    path.write_bytes(numpy_helper.from_array(arr, tensor.name).SerializeToString())
    if update_hash:
        meta = json.loads((case_dir / "case.json").read_text())
        meta["sha256"][path.relative_to(case_dir).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
        (case_dir / "case.json").write_text(json.dumps(meta, sort_keys=True, indent=1) + "\n")


def outcome_lines(result) -> str:
    return result.stdout.str() + result.stderr.str()


# ---------------------------------------------------------------------------------------------
# collection and the option surface
# ---------------------------------------------------------------------------------------------
def test_nothing_collected_or_printed_without_backend(pytester):
    """A pytest run that names no case leaves the plugin silent."""
    pytester.mkdir("empty")
    result = pytester.runpytest("empty")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert not [line for line in result.outlines if line.startswith("opconform")]


@pytest.mark.parametrize("where", ["", "node", f"node/{F16}", f"node/{F16}/model.onnx::{F16}[0]"])
def test_cases_without_backend_is_a_usage_error(pytester, suite, where):
    """`pytest SUITE` without --backend said nothing and collected nothing."""
    arg = f"suite/{where}" if where else "suite"
    result = pytester.runpytest(arg)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {arg.replace('[', '[[]')}: opconform cases run only with --backend NAME*"])


@pytest.mark.parametrize("backend", ["opconform", "onnxruntime"])
def test_all_pass(pytester, suite, backend):
    result = pytester.runpytest(str(suite), "--backend", backend, "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines([
        f"opconform: backend {backend} *, tier strict",
        f"*suite/node/{F16}/model.onnx::{F16}[[]0] PASSED*",
        f"*suite/node/{F16}/model.onnx::{F16}[[]1] PASSED*",
        f"*suite/node/{F8}/model.onnx::{F8}[[]0] PASSED*",
    ])


def test_kind_folder_case_dir_and_node_id_args(pytester, suite):
    pytester.runpytest(str(suite / "node"), "--backend", "opconform").assert_outcomes(passed=3)
    pytester.runpytest(str(suite / "node" / F16), "--backend", "opconform").assert_outcomes(passed=2)
    # a node id as printed by -v / in the failure summary runs that one data set
    one = pytester.runpytest(f"suite/node/{F16}/model.onnx::{F16}[1]", "--backend", "opconform", "-v")
    one.assert_outcomes(passed=1)
    one.stdout.fnmatch_lines([f"*{F16}[[]1] PASSED*"])


def test_a_conftest_in_a_case_directory_is_never_imported(pytester, suite):
    """A case is data: pytest must not run code it carries (it would import a conftest.py of every
    directory it collects as a pytest.Directory)."""
    marker = pytester.path / "conftest_ran"
    for where in (suite / "node" / F16, suite / "node" / F16 / "test_data_set_0"):
        (where / "conftest.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    result = pytester.runpytest(str(suite), "--backend", "opconform")
    result.assert_outcomes(passed=3)
    assert not marker.exists()


def test_ignore_and_node_ids_with_the_fast_collection(pytester, suite):
    """Kind folders are listed without pytest's per-directory hooks; --ignore still applies and the node
    ids are what pytest itself would give, also for a suite given by its absolute path."""
    result = pytester.runpytest(str(suite), "--backend", "opconform", f"--ignore={suite / 'node' / F8}")
    result.assert_outcomes(passed=2)
    result = pytester.runpytest(str(suite.resolve()), "--backend", "opconform", "--collect-only", "-q")
    assert [line for line in result.outlines if "::" in line] == [
        f"suite/node/{F16}/model.onnx::{F16}[0]", f"suite/node/{F16}/model.onnx::{F16}[1]",
        f"suite/node/{F8}/model.onnx::{F8}[0]"]


def test_k_selects_items(pytester, suite):
    result = pytester.runpytest(str(suite), "--backend", "opconform", "-k", "float8e4m3fn")
    result.assert_outcomes(passed=1, deselected=2)
    result = pytester.runpytest(str(suite), "--backend", "opconform", "-k", f"{F16} and 1]")
    result.assert_outcomes(passed=1, deselected=2)


@pytest.fixture
def families(pytester: pytest.Pytester) -> Path:
    """A suite of 2 cast items and 1 item whose case says it is of the dynamic_quantize_linear family; the
    manifest lists family and op of one case only (the others come from case.json)."""
    dql = cast_case("test_dql_like", "float32", "float16", [[1.0]], family="dynamic_quantize_linear")
    dql.meta["op"] = "DynamicQuantizeLinear"
    cases = [cast_case(F16, "float32", "float16", [[1.0], [2.0]]), dql]
    root = pytester.path / "suite"
    for c in cases:
        write_case(c, root)
    write_manifest(root, {}, [{"name": F16, "kind": "node", "family": "cast", "op": "Cast"},
                              {"name": "test_dql_like", "kind": "node"}])
    return root


@pytest.mark.parametrize("args, selected", [
    (["--family", "dynamic_quantize_linear"], ["test_dql_like[0]"]),
    (["--family", "cast"], [f"{F16}[0]", f"{F16}[1]"]),
    (["--family", "cast", "--family", "dynamic_quantize_linear"], [f"{F16}[0]", f"{F16}[1]", "test_dql_like[0]"]),
    (["-m", "family_dynamic_quantize_linear"], ["test_dql_like[0]"]),
    (["-m", "op_Cast and kind_node"], [f"{F16}[0]", f"{F16}[1]"]),
    (["-m", "not op_DynamicQuantizeLinear", "--strict-markers"], [f"{F16}[0]", f"{F16}[1]"]),
    (["-k", "dynamic_quantize_linear"], ["test_dql_like[0]"]),
])
def test_select_by_family_op_and_kind(pytester, families, args, selected):
    """-k dynamic_quantize_linear matched nothing: a case's family, op and kind are markers (from the
    manifest, else case.json), and --family selects families."""
    result = pytester.runpytest("suite", "--backend", "opconform", "-v", *args)
    result.assert_outcomes(passed=len(selected))
    for name in selected:
        result.stdout.fnmatch_lines([f"*::{name.replace('[', '[[]')} PASSED*"])


def test_unknown_family_is_a_usage_error(pytester, families):
    result = pytester.runpytest("suite", "--backend", "opconform", "--family", "casts")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --family casts: unknown family; known: cast, *"])


def test_unknown_backend_is_a_usage_error(pytester, suite):
    result = pytester.runpytest(str(suite), "--backend", "nosuch")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1, errors
    assert errors[0].startswith("ERROR: unknown backend 'nosuch'; available: ")
    assert "onnxruntime" in errors[0] and "opconform" in errors[0]
    assert "Traceback" not in outcome_lines(result)


def test_bad_option_values_are_usage_errors(pytester, suite):
    result = pytester.runpytest(str(suite), "--backend", "opconform", "--tier", "loose")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result = pytester.runpytest(str(suite), "--backend", "opconform", "--xfails-file", "nope.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.errlines if line.strip()] == ["ERROR: --xfails-file nope.txt: no such file"]
    result = pytester.runpytest(str(suite), "--backend", "opconform", "--report", str(suite))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.errlines if line.strip()] == [f"ERROR: --report {suite}: is a directory"]


@pytest.mark.parametrize("args, error", [
    (["--case-timeout", "inf"], "--case-timeout inf: must be at most * seconds*"),
    (["--case-timeout", "1e10"], "--case-timeout 1e+10: must be at most * seconds*"),
    (["--case-timeout", "nan"], "--case-timeout nan: must be a positive number of seconds"),
    (["--case-memory", "lots"], "--case-memory lots: not a size*"),
    (["--case-memory", "4"], "--case-memory 4: at least *"),
    (["--backend-option", "novalue"], "--backend-option novalue: expected KEY=VALUE"),
    (["--backend-option", "k=1", "--backend-option", "k=2"], "--backend-option k: given twice ('1' and '2')"),
    (["--backend-option", "colour=blue"], "backend 'opconform' *colour*"),
])
def test_limits_and_backend_options_are_checked_at_the_start(pytester, suite, args, error):
    """--case-timeout inf or 1e10 gave a traceback per item; each bad value is one line before any run."""
    result = pytester.runpytest(str(suite), "--backend", "opconform", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.errlines if line.strip()]
    assert len(lines) == 1, lines
    result.stderr.fnmatch_lines([f"ERROR: {error}"])


# ---------------------------------------------------------------------------------------------
# verdicts -> outcomes
# ---------------------------------------------------------------------------------------------
def test_wrong_expected_value_fails_with_the_mismatch(pytester, suite):
    rewrite_expected(suite / "node" / F16, dataset=1, index=3, value=np.float16(2.0))
    result = pytester.runpytest(str(suite), "--backend", "onnxruntime")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        f"*_ {F16}[[]1] _*",
        f"[[]fail] {F16}[[]1]: output 'y' (float16; exact, strict tier): 1 of 4 elements differ",
        "  index  input * expected * actual",
        "  [[]3] * 3.0 (0x40400000) * 2.0 (0x4000) * 3.0 (0x4200)",
    ])
    out = outcome_lines(result)
    assert "pytest_plugin.py" not in out and "Traceback" not in out and "raise CaseFailure" not in out


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]])
def test_the_run_ends_with_the_counts_per_verdict(pytester, suite, xdist):
    """pytest says "failed" for fail, error, invalid-case, crash and timeout alike: the last lines say
    which, after the short test summary."""
    rewrite_expected(suite / "node" / F16, dataset=1, index=3, value=np.float16(2.0))
    (suite / "node" / F8 / "case.json").write_text("{")  # invalid-case
    run = pytester.runpytest_subprocess if xdist else pytester.runpytest  # without xdist: in this process
    result = run(str(suite), "--backend", "opconform", *xdist)
    result.assert_outcomes(passed=1, failed=2)
    # In order; not consecutive: on CI (env CI set) pytest prints each FAILED message in full, several lines.
    result.stdout.fnmatch_lines([
        "*short test summary info*",
        "FAILED *",
        "FAILED *",
        "opconform verdicts on opconform *: 1 pass, 1 fail, 1 invalid-case",
        "*1 passed*",
    ])
    lines = [line for line in result.outlines if line.strip()]
    assert lines[-2].startswith("opconform verdicts on opconform"), lines[-2:]  # right above pytest's last line


def test_a_failing_write_at_the_end_loses_no_other_file(pytester, suite, monkeypatch):
    """The results file is written first; a write that fails is one line and a failing exit status."""
    import runners.gate

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runners.gate, "write_baseline", boom)
    result = pytester.runpytest(str(suite), "--backend", "opconform", "--report", "r.json",
                                "--baseline", "b.json", "--update-baseline")
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    result.stdout.fnmatch_lines(["opconform: cannot write --baseline */b.json: No space left on device",
                                 "opconform: results written to */r.json"])
    assert json.loads((pytester.path / "r.json").read_text())["counts"] == {"pass": 3}
    assert "Traceback" not in outcome_lines(result)


def test_corrupt_file_is_invalid_case_and_the_session_goes_on(pytester, suite):
    path = suite / "node" / F8 / "test_data_set_0" / "input_0.pb"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))  # case.json's sha256 not updated
    result = pytester.runpytest(str(suite), "--backend", "opconform")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        f"[[]invalid-case] {F8}[[]0]: invalid case: suite/node/{F8}/test_data_set_0/input_0.pb: sha256 mismatch*",
    ])
    # a file missing from one data set invalidates the case (every data set of it), nothing else
    (suite / "node" / F16 / "test_data_set_1" / "output_0.pb").unlink()
    result = pytester.runpytest(str(suite), "--backend", "opconform")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines([
        f"[[]invalid-case] {F16}[[]0]: invalid case: suite/node/{F16}/test_data_set_1/output_0.pb: missing file*",
    ])
    assert "Traceback" not in outcome_lines(result)


def test_a_case_json_that_is_a_fifo_does_not_hang_collection(pytester, suite):
    """Collection reads case.json for the markers (where the manifest says nothing): as the runner reads
    it, never blocking on a FIFO."""
    import os

    meta = suite / "node" / F8 / "case.json"
    meta.unlink()
    os.mkfifo(meta)
    result = pytester.runpytest_subprocess(str(suite / "node"), "--backend", "opconform", "--isolation", "none",
                                           timeout=120)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([f"[[]invalid-case] {F8}[[]0]: invalid case: *case.json: a FIFO, not a regular file; refused"])


def test_case_listed_in_the_manifest_but_deleted_fails(pytester, suite):
    import shutil

    shutil.rmtree(suite / "node" / F16)
    result = pytester.runpytest(str(suite), "--backend", "opconform")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        f"[[]invalid-case] {F16}[[]0]: invalid case: suite/node/{F16}/model.onnx: missing file (the suite's "
        "manifest.json lists the case)",
    ])


FAKE_BACKEND = '''
import onnx
from runners.backends.base import Unsupported
from runners.backends.opconform import OpconformBackend


class NoFloat8(OpconformBackend):
    """The opconform backend, except that float8 outputs are not implemented."""

    name = "nofloat8"

    def version(self):
        return "9.9"

    def prepare(self, model, case):
        if model.graph.output[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT8E4M3FN:
            raise Unsupported("Cast to float8e4m3fn is not implemented")
        return super().prepare(model, case)
'''


def test_unsupported_is_a_skip_with_the_reason(pytester, suite):
    pytester.makepyfile(fake_backend_a=FAKE_BACKEND)
    pytester.syspathinsert()
    result = pytester.runpytest(str(suite), "--backend", "fake_backend_a:NoFloat8", "-rs")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines([
        "opconform: backend nofloat8 9.9, tier strict",
        f"SKIPPED [[]1] suite/node/{F8}: unsupported: Cast to float8e4m3fn is not implemented",
    ])


def test_xfails_and_skips_files(pytester, suite):
    rewrite_expected(suite / "node" / F16, dataset=1, index=0, value=np.float16(0.0))
    xfails = pytester.makefile(".txt", xfails="# known divergences\n\nfloat16[1]   # wrong on purpose\nfloat16[0]\n")
    skips = pytester.makefile(".txt", skips="float8e4m3fn\n")
    result = pytester.runpytest(str(suite), "--backend", "opconform", "--xfails-file", str(xfails),
                                "--skips-file", str(skips), "-rsxX")
    result.assert_outcomes(xfailed=1, xpassed=1, skipped=1)
    result.stdout.fnmatch_lines_random([
        "*SKIPPED*skips-file: float8e4m3fn*",
        f"XFAIL*{F16}[[]1]*xfails-file: float16[[]1]*",
        f"XPASS*{F16}[[]0]*xfails-file: float16[[]0]*",
    ])
    assert result.ret == pytest.ExitCode.OK  # xfail is not strict


def test_exitfirst_and_junitxml(pytester, suite):
    rewrite_expected(suite / "node" / F16, dataset=0, index=0, value=np.float16(0.0))
    xml = pytester.path / "junit.xml"
    result = pytester.runpytest(str(suite), "--backend", "opconform", "-x", f"--junitxml={xml}")
    result.assert_outcomes(failed=1)  # stopped at the first failure: F16[0]
    text = xml.read_text()
    assert f'name="{F16}[0]"' in text
    assert f"[fail] {F16}[0]: output 'y' (float16; exact, strict tier): 1 of 4 elements differ" in text
    assert 'name="opconform_verdict" value="fail"' in text


# ---------------------------------------------------------------------------------------------
# the JSON report
# ---------------------------------------------------------------------------------------------
def test_report_json(pytester, suite):
    rewrite_expected(suite / "node" / F16, dataset=1, index=1, value=np.float16(1.0))
    path = suite / "node" / F8 / "test_data_set_0" / "output_0.pb"
    path.write_bytes(path.read_bytes() + b"\x00")  # corrupt, hash not updated
    report = pytester.path / "out" / "results.json"
    result = pytester.runpytest(str(suite), "--backend", "onnxruntime", "--report", str(report))
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines([f"opconform: results written to {report}"])
    doc = json.loads(report.read_text())
    import onnxruntime

    assert doc["format"] == "opconform-results/1"
    assert doc["backend"]["name"] == "onnxruntime" and doc["backend"]["version"] == onnxruntime.__version__
    assert doc["tier"] == "strict" and doc["exitstatus"] == 1
    assert doc["counts"] == {"fail": 1, "invalid-case": 1, "pass": 1}
    recs = {(r["case"], r["dataset"]): r for r in doc["records"]}
    assert set(recs) == {(F16, 0), (F16, 1), (F8, 0)}
    for r in recs.values():
        assert r["backend"] == "onnxruntime" and r["backend_version"] == onnxruntime.__version__
        assert r["tier"] == "strict" and isinstance(r["settings"], dict) and r["settings"]
        assert r["duration"] >= 0 and r["nodeid"] == f"suite/node/{r['case']}/model.onnx::{r['case']}[{r['dataset']}]"
    assert recs[(F16, 0)]["verdict"] == "pass" and recs[(F16, 0)]["outcome"] == "passed"
    fail = recs[(F16, 1)]
    assert fail["verdict"] == "fail" and fail["outcome"] == "failed"
    assert (fail["n_mismatch"], fail["n_total"]) == (1, 4)
    assert fail["mismatches"] == [{"output": "y", "index": [1], "input": -0.0, "expected": 1.0,
                                   "actual": -0.0, "expected_bits": "0x3c00", "actual_bits": "0x8000"}]
    bad = recs[(F8, 0)]
    assert bad["verdict"] == "invalid-case" and "test_data_set_0/output_0.pb" in bad["message"]


@pytest.mark.parametrize("where", ["suite", f"suite/node/{F16}"])
def test_report_ties_verdicts_to_the_suite_and_case_content(pytester, suite, where):
    """The header names the suite and its manifest's hash (and the shard); each record the hash of its
    case.json, which lists the hash of every file of the case."""
    result = pytester.runpytest(where, "--backend", "opconform", "--report", "r.json", "--shard", "1/1")
    assert result.ret == 0
    doc = json.loads((pytester.path / "r.json").read_text())
    assert doc["suites"] == {"suite": hashlib.sha256((suite / "manifest.json").read_bytes()).hexdigest()}
    assert doc["shard"] == "1/1"
    for r in doc["records"]:
        assert r["content"] == hashlib.sha256((suite / "node" / r["case"] / "case.json").read_bytes()).hexdigest()


def test_report_merges_xdist_workers(pytester, suite):
    more = [cast_case(f"test_cast_float32_to_bfloat16_{k}", "float32", "bfloat16", [[float(k), 0.5]] * 2)
            for k in range(3)]
    # a probe records int64 values below -2**31, which execnet (xdist's transport) cannot send as ints
    more.append(cast_case("test_cast_float32_to_int64_probe", "float32", "int64", [[-3e9, 1e30]], kind="probe",
                          compare={"mode": "none"}))
    write_suite(suite, more)  # rewrites the manifest with only these (the others stay on disk)
    rewrite_expected(suite / "node" / F8, dataset=0, index=0, value=np.float32(2.0).astype("float8_e4m3fn"))
    report = pytester.path / "results.json"
    result = pytester.runpytest_subprocess(str(suite), "--backend", "opconform", "-n", "2",
                                           "--report", str(report))
    result.assert_outcomes(passed=9, failed=1)
    doc = json.loads(report.read_text())
    ids = [r["nodeid"] for r in doc["records"]]
    assert len(ids) == 10 and len(set(ids)) == 10
    assert doc["counts"] == {"fail": 1, "pass": 8, "probe": 1}
    [probe] = [r for r in doc["records"] if r["verdict"] == "probe"]
    assert probe["outputs"][0]["values"][0] == -3_000_000_000
    assert not list(pytester.path.glob("results.json.*"))  # no part files left behind


# ---------------------------------------------------------------------------------------------
# kinds: negative, probe; plain ONNX node tests
# ---------------------------------------------------------------------------------------------
def test_negative_and_probe_cases(pytester):
    f32, f16 = dtypes.get("float32"), dtypes.get("float16")
    no_to = Case("test_cast_without_to", "negative",
                 node_model("Cast", [("x", f32, (2,))], [("y", f16, (2,))], {}, 19),  # `to` is required
                 [[np.ones(2, np.float32)]], None, dict(META, op="Cast", opset=19, phase="prepare"))
    root = write_suite(pytester.path / "suite", [
        no_to,
        # float8 is no Cast type before opset 19: the model is invalid (onnxruntime 1.31 runs it anyway)
        cast_case("test_cast_float32_to_float8e4m3fn_opset13", "float32", "float8e4m3fn", [[1.0, 2.0]],
                  opset=13, kind="negative", phase="prepare"),
        # out of range float -> int8 is undefined: record, never judge
        cast_case("test_cast_float32_to_int8_probe", "float32", "int8", [[300.0, -1e10, 1.5]], kind="probe",
                  compare={"mode": "none"}),
    ])
    report = pytester.path / "r.json"
    result = pytester.runpytest(str(root), "--backend", "onnxruntime", "--report", str(report))
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["[[]fail] test_cast_float32_to_float8e4m3fn_opset13[[]0]: the backend accepted "
                                 "a model it must refuse (phase prepare)*"])
    recs = {r["case"]: r for r in json.loads(report.read_text())["records"]}
    neg = recs["test_cast_without_to"]
    assert neg["verdict"] == "pass" and "refused at prepare" in neg["message"] and "INVALID_GRAPH" in neg["error"]
    probe = recs["test_cast_float32_to_int8_probe"]
    assert probe["verdict"] == "probe" and probe["outcome"] == "passed"
    [out] = probe["outputs"]
    assert out["name"] == "y" and out["type"] == "int8" and out["shape"] == [3]
    assert len(out["values"]) == 3 and out["values"][2] == 1
    assert out["bits"][2] == "0x01" and all(b.startswith("0x") and len(b) == 4 for b in out["bits"])


def export_onnx_node_test(dest: Path, monkeypatch) -> Path:
    """Write onnx's own `test_abs` node test (onnx.backend.test.case.node.abs) in onnx's layout."""
    from runners.onnx_node_tests import export

    [case_dir] = export("Abs", dest)
    return case_dir


def test_plain_onnx_node_test_directory(pytester, monkeypatch):
    case_dir = export_onnx_node_test(pytester.path / "onnx_node", monkeypatch)
    assert not (case_dir / "case.json").exists()
    result = pytester.runpytest(str(pytester.path / "onnx_node"), "--backend", "onnxruntime", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*onnx_node/test_abs/model.onnx::test_abs[[]0] PASSED*"])


# ---------------------------------------------------------------------------------------------
# execute.run_case_dataset directly: the verdict rules with scripted backends
# ---------------------------------------------------------------------------------------------
class Scripted(Backend):
    """A backend that raises / returns what it is told."""

    name = "scripted"

    def __init__(self, prepare_raises=None, run_raises=None, outputs=None):
        self.prepare_raises, self.run_raises, self.outputs = prepare_raises, run_raises, outputs
        self.prepared = 0

    def version(self):
        return "1.0"

    def prepare(self, model, case):
        self.prepared += 1
        if self.prepare_raises:
            raise self.prepare_raises
        return "prepared"

    def run(self, prepared, inputs):
        if self.run_raises:
            raise self.run_raises
        return self.outputs


@pytest.fixture
def loaded(tmp_path):
    def load(kind: str, **meta) -> LoadedCase:
        c = cast_case(f"test_cast_{kind}_{len(list(tmp_path.iterdir()))}", "float32", "float16",
                      [[1.0, 2.0], [3.0, 4.0]], kind=kind, **meta)
        write_case(c, tmp_path)
        return read_case(tmp_path / kind / c.name)
    return load


@pytest.mark.parametrize("phase, prepare_raises, run_raises, verdict", [
    ("prepare", ValueError("bad model"), None, "pass"),
    ("prepare", None, ValueError("bad at run"), "fail"),  # refused, but later than the spec says
    ("prepare", None, None, "fail"),
    ("run", None, RuntimeError("bad at run"), "pass"),
    ("run", Unsupported("no such type"), None, "unsupported"),  # lacking the model is no refusal of it
    ("run", None, Unsupported("cannot take it"), "unsupported"),
    ("run", None, None, "fail"),
])
def test_negative_verdicts(loaded, phase, prepare_raises, run_raises, verdict):
    case = loaded("negative", phase=phase)
    backend = Scripted(prepare_raises, run_raises, outputs=[np.zeros(2, np.float16)])
    r = run_case_dataset(backend, case, 0, "strict", {})
    assert r.verdict == verdict, r.message


def test_node_verdicts_and_prepare_once(loaded):
    case = loaded("node")
    good = [np.array([1.0, 2.0], np.float16)]
    backend = Scripted(outputs=good)
    cache = PreparedCache()
    assert run_case_dataset(backend, case, 0, "strict", cache).verdict == "pass"
    r = run_case_dataset(backend, case, 1, "strict", cache)
    assert r.verdict == "fail" and r.n_mismatch == 2 and r.mismatches[0]["expected_bits"] == "0x4200"
    assert backend.prepared == 1
    r = run_case_dataset(Scripted(run_raises=RuntimeError("kaboom")), case, 0, "strict", {})
    assert (r.verdict, r.error) == ("error", "RuntimeError: kaboom")
    r = run_case_dataset(Scripted(prepare_raises=Unsupported("no float16")), case, 1, "strict", {})
    assert (r.verdict, r.error) == ("unsupported", "Unsupported: no float16")
    r = run_case_dataset(Scripted(outputs=[]), case, 0, "strict", {})
    assert r.verdict == "fail" and "returned 0 outputs" in r.message
    assert run_case_dataset(backend, case, 5, "strict", cache).verdict == "invalid-case"


def test_probe_records_values_or_the_error(loaded):
    case = loaded("probe", compare={"mode": "none"})
    r = run_case_dataset(Scripted(outputs=[np.array([np.nan, -0.0], np.float16)]), case, 0, "strict", {})
    assert r.verdict == "probe"
    assert r.outputs[0]["values"] == ["nan", -0.0] and r.outputs[0]["bits"] == ["0x7e00", "0x8000"]
    r = run_case_dataset(Scripted(run_raises=OverflowError("out of range")), case, 0, "strict", {})
    assert (r.verdict, r.error, r.outputs) == ("probe", "OverflowError: out of range", None)
    json.dumps(r.to_record(), allow_nan=False)


def test_silent_setup_teardown_reports_are_dropped_before_the_summary():
    """pytest's summary scans every passed setup / teardown report once per failure; only those with
    captured output can print anything, so only those are kept (and only when something failed)."""
    from types import SimpleNamespace

    from runners.pytest_plugin import _drop_silent_reports

    silent, loud = SimpleNamespace(sections=[]), SimpleNamespace(sections=[("Captured stdout teardown", "x")])
    tr = SimpleNamespace(stats={"": [silent, loud, silent], "passed": [1]})
    config = SimpleNamespace(pluginmanager=SimpleNamespace(get_plugin=lambda name: tr))
    _drop_silent_reports(config)
    assert tr.stats[""] == [silent, loud, silent]  # nothing failed: nothing to scan, left alone
    tr.stats["failed"] = [object()]
    _drop_silent_reports(config)
    assert tr.stats[""] == [loud] and tr.stats["passed"] == [1]
