"""Claims (--claims): read strictly, an unsupported item a claim covers fails, `opconform claims` writes the claims
of what a backend implemented (a run with its own claims fails nothing), the built-in ONNX node-test claims are
current, and the report's support table counts configurations."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from runners.claims import Claims, ClaimsError, parse, read_claims, value_text
from runners.claims_make import claim_line, configurations

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SUITE = ROOT / "cases"
FIXTURE = "fixture_backends:Misbehaving"
pytest_plugins = ["pytester"]
CASTS = ["test_cast_float32_to_float16_edge", "test_cast_float32_to_float16_random", "test_cast_float32_to_int8_edge",
         "test_cast_float32_to_int8_random", "test_cast_float32_to_float8e4m3fn_edge"]


def test_a_claim_covers_its_op_opsets_and_values():
    [claim, other] = parse("Cast opset=19-22|24- from=float|float16 saturate=0  # a comment\n\n"
                           "Cast types='[\"float\",\"float16\"]'\n", "f")
    assert claim.covers("Cast", 19, {"from": "float", "saturate": 0, "to": "int8"})
    assert claim.covers("Cast", 30, {"from": "float16", "saturate": 0})
    assert not claim.covers("Cast", 23, {"from": "float", "saturate": 0})  # outside the ranges
    assert not claim.covers("Cast", 19, {"from": "float", "saturate": 1})
    assert not claim.covers("Cast", 19, {"from": "float"})  # a case without the key is not covered
    assert not claim.covers("CastLike", 19, {"from": "float", "saturate": 0})
    assert other.covers("Cast", 13, {"types": ["float", "float16"]}) and claim.where == "f line 1"
    assert [value_text(v) for v in (True, None, 3, "x", [1, "a"], {"b": 1})] == ["true", "null", "3", "x", '[1,"a"]',
                                                                                '{"b":1}']


@pytest.mark.parametrize("text, says", [
    ("Cast from", "line 1: 'from' is not KEY=VALUE"),
    ("Cast from=", "'from=' is not KEY=VALUE"),
    ("Cast from=a from=b", "from is written twice"),
    ("Cast opset=19 opset=21", "opset is written twice"),
    ("Cast opset=21-19", "ends before it starts"),
    ("Cast opset=x", "is not N, A-B or A-"),
    ("# fine\nfrom=float", "line 2: 'from=float' is not an operator name"),
    ("Cast k='open", "No closing quotation"),
])
def test_a_claims_file_is_read_strictly(tmp_path, text, says):
    path = tmp_path / "c.claims"
    path.write_text(text)
    with pytest.raises(ClaimsError, match=".*" + says.replace("(", r"\(").replace(")", r"\)").replace("'", "'")):
        read_claims([str(path)])


def test_a_claim_written_twice_is_refused_naming_both_lines(tmp_path):
    path = tmp_path / "c.claims"
    path.write_text("Cast from=float\nMatMulInteger a_type=int8\nCast from=float  # again\n")
    with pytest.raises(ClaimsError, match="line 3: the same claim as .*line 1$"):
        read_claims([str(path)])
    with pytest.raises(ClaimsError, match="no such built-in claims"):
        read_claims(["builtin:nothing"])
    with pytest.raises(ClaimsError, match="no such file"):
        read_claims([str(tmp_path / "missing")])


def test_a_key_no_case_of_the_op_has_is_refused():
    claims = Claims(parse("Cast form=float\nQGemm a=b\n", "f"), ["f"])
    with pytest.raises(ClaimsError, match="f line 1: no case of Cast has a key 'form'"):
        claims.check_keys([{"op": "Cast", "params": {"from": "float", "to": "int8"}}])
    Claims(parse("QGemm a=b\n", "f"), ["f"]).check_keys([{"op": "Cast", "params": {}}])  # an op of no suite here


def test_negative_and_probe_cases_are_never_covered():
    claims = Claims(parse("Cast from=float\n", "f"), ["f"])
    meta = {"op": "Cast", "opset": 19, "params": {"from": "float"}}
    assert claims.covering({**meta, "kind": "node"}) is not None and claims.covering({**meta, "kind": "graph"})
    assert claims.covering({**meta, "kind": "negative"}) is None and claims.covering({**meta, "kind": "probe"}) is None


def test_configurations_claim_what_was_implemented_only():
    cases = [("Cast", 19, {"from": "float", "to": "int8", "what": "a"}, True),
             ("Cast", 19, {"from": "float16", "to": "int8", "what": "b"}, True),
             ("Cast", 19, {"from": "float", "to": "float8e4m3fn", "saturate": 0, "what": "c"}, False),
             ("QuantizeLinear", 21, {"x": "float", "y": "int8", "granularity": "per-axis"}, True),
             ("QuantizeLinear", 21, {"x": "float", "y": "int8", "granularity": "blocked"}, False),
             ("QuantizeLinear", 21, {"x": "float", "y": "uint8", "granularity": "blocked"}, True)]
    claims, comments = configurations(cases)
    assert [claim_line(c) for c in claims] == ["Cast opset=19 from=float|float16 to=int8",
                                               "QuantizeLinear opset=21 granularity=per-axis x=float y=int8",
                                               "QuantizeLinear opset=21 x=float y=uint8"]
    assert comments == ["# refused (1 case(s)): Cast opset=19 from=float to=float8e4m3fn",
                        "# refused (1 case(s)): QuantizeLinear opset=21 granularity=blocked x=float y=int8"]


# ---- through the runners ----------------------------------------------------------------------------------------

@pytest.fixture
def suite(tmp_path) -> Path:
    root = tmp_path / "s"
    (root / "node").mkdir(parents=True)
    entries = []
    for name in CASTS:
        shutil.copytree(SUITE / "node" / name, root / "node" / name)
        meta = json.loads((root / "node" / name / "case.json").read_text())
        entries.append({k: meta[k] for k in ("name", "kind", "family", "op", "opset", "params")})
    (root / "manifest.json").write_text(json.dumps({"format": "opconform-suite/1", "cases": entries}))
    return root


@pytest.fixture
def run(pytester, monkeypatch):
    """run(cwd, *args, runner="run", unsupported=()): `opconform run` as a command, or pytest with the plugin in
    this process (pytester: an interpreter start fewer; the workers are processes of their own either way)."""
    def go(cwd: Path, *args, runner="run", unsupported=()) -> subprocess.CompletedProcess:
        env = {"PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)]),
               "OPCONFORM_TEST_UNSUPPORTED": ",".join(unsupported)}
        if runner == "run":
            return subprocess.run([sys.executable, "-m", "runners.cli", "run", "-j", "1", *args], cwd=cwd,
                                  capture_output=True, text=True, env=dict(os.environ, **env))
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.syspath_prepend(str(HERE))
        monkeypatch.chdir(cwd)
        result = pytester.runpytest("-p", "no:cacheprovider", "-q", *args)
        return subprocess.CompletedProcess(["pytest", *args], int(result.ret), "\n".join(result.outlines) + "\n",
                                           "\n".join(result.errlines) + "\n")

    return go


def claims_command(capsys, *args: str) -> subprocess.CompletedProcess:
    """`opconform claims ARGS` in this process (it touches no signal: only `run` does)."""
    from runners.cli import main

    capsys.readouterr()
    try:
        code = main(["claims", *args])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out = capsys.readouterr()
    return subprocess.CompletedProcess(["claims", *args], code, out.out, out.err)


@pytest.mark.parametrize("runner", ["run", "pytest"])
def test_a_refusal_inside_a_claim_is_a_fail(tmp_path, suite, run, runner):
    claims = tmp_path / "ort.claims"
    claims.write_text("Cast opset=13|19 from=float to=float16\n")  # CASTS[0] (float16: opset 13)
    report = tmp_path / "r.json"
    refused = [CASTS[0], CASTS[2]]
    r = run(tmp_path, str(suite), "--backend", FIXTURE, "--claims", str(claims), "--report", str(report),
            runner=runner, unsupported=refused)
    assert r.returncode == 1, r.stdout + r.stderr
    records = {x["case"]: x for x in json.loads(report.read_text())["records"]}
    claimed = records[CASTS[0]]
    assert claimed["verdict"] == "fail" and claimed["claim"] == f"{claims} line 1: Cast opset=13|19 from=float to=float16"
    assert claimed["message"].startswith("claimed, refused: fixture backend: refused on purpose (claim ")
    assert records[CASTS[2]]["verdict"] == "unsupported" and "claim" not in records[CASTS[2]]  # float -> int8: unclaimed
    assert "claimed, refused" in r.stdout
    from runners.report import build, render
    from runners.report_inputs import load

    [family] = build(load([report]))["runs"][0]["failures"]["groups"]
    assert [f["label"] for f in family["faults"]] == ["claimed, refused: unsupported inside a claim (--claims)"]
    [label] = {k[1] for k in build(load([report]))["support"]["cells"]}
    assert build(load([report]))["support"]["cells"][("Cast", label)]["claimed"] == 1
    assert "1 claimed item(s) refused" in render(load([report]), "md")


def test_the_runs_own_refusals_are_no_claimed_refusals(tmp_path, suite, run):
    """--max-opset is the run's statement, not the backend's: a claimed case past it stays unsupported."""
    claims = tmp_path / "c.claims"
    claims.write_text("Cast from=float\n")
    r = run(tmp_path, str(suite), "--backend", "opconform", "--claims", str(claims), "--max-opset", "12")
    assert r.returncode == 5 and "claimed, refused" not in r.stdout, r.stdout


def test_a_typo_in_a_claim_is_a_usage_error(tmp_path, suite, run):
    claims = tmp_path / "c.claims"
    claims.write_text("Cast form=float\n")
    for runner in ("run", "pytest"):
        r = run(tmp_path, str(suite), "--backend", "opconform", "--claims", str(claims), runner=runner)
        assert r.returncode == 4, r.stdout + r.stderr
        assert "c.claims line 1: no case of Cast has a key 'form'" in r.stdout + r.stderr
        assert "Traceback" not in r.stdout + r.stderr


def test_claims_written_from_a_run_fail_nothing_in_that_run_and_catch_a_later_refusal(tmp_path, suite, run,
                                                                                       capsys):
    report, baseline = tmp_path / "r.json", tmp_path / "b.baseline.json"
    r = run(tmp_path, str(suite), "--backend", FIXTURE, "--report", str(report), "--baseline", str(baseline),
            "--update-baseline", unsupported=[CASTS[2], CASTS[3]])
    assert r.returncode == 0, r.stdout + r.stderr
    for source in (report, baseline):
        out = tmp_path / f"{source.stem}.claims"
        made = claims_command(capsys, str(source), "--suite", str(suite), "-o", str(out))
        assert made.returncode == 0, made.stderr
        text = out.read_text()
        assert text.startswith("# opconform claims") and "\n# refused (2 case(s)): Cast opset=13 from=float to=int8" \
            in text
        lines = [line for line in text.splitlines() if not line.startswith("#")]
        assert lines == ["Cast opset=13 from=float to=float16", "Cast opset=19 from=float to=float8e4m3fn"]
        again = run(tmp_path, str(suite), "--backend", FIXTURE, "--claims", str(out), unsupported=[CASTS[2], CASTS[3]])
        assert again.returncode == 0 and "claimed, refused" not in again.stdout, again.stdout
        later = run(tmp_path, str(suite), "--backend", FIXTURE, "--claims", str(out), unsupported=[CASTS[1]])
        assert later.returncode == 1 and f"{CASTS[1]}" in later.stdout and "claimed, refused" in later.stdout


def test_opconform_claims_writes_only_its_own_files(tmp_path, suite, run, capsys):
    report = tmp_path / "r.json"
    assert run(tmp_path, str(suite), "--backend", "opconform", "--report", str(report)).returncode == 0
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    r = claims_command(capsys, str(report), "--suite", str(suite), "-o", str(notes))
    assert r.returncode == 2 and "is not a claims file opconform wrote" in r.stderr and notes.read_text() == "mine\n"
    r = claims_command(capsys, str(report), "--suite", str(tmp_path))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not a suite" in r.stderr


def test_the_built_in_onnx_node_test_claims_are_current():
    import onnx

    text = (ROOT / "runners" / "claim_sets" / "onnx-node-tests.claims").read_text()
    if f"ONNX {onnx.__version__}'s" not in text.splitlines()[0]:
        pytest.skip(f"written with another onnx than {onnx.__version__} (.ci/constraints.txt pins the one)")
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "onnx_node_test_claims.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    claims = read_claims(["builtin:onnx-node-tests"])
    from runners.suite_tree import Manifests, manifest_entries

    claims.check_keys(manifest_entries(Manifests().manifest(SUITE)))  # every key is one the suite's cases have
    assert len(claims.claims) > 50


def test_the_report_counts_configurations_per_op(tmp_path, suite, run):
    report = tmp_path / "r.json"
    run(tmp_path, str(suite), "--backend", FIXTURE, "--report", str(report), unsupported=[CASTS[2], CASTS[4]])
    from runners.report import build, render
    from runners.report_inputs import load

    view = build(load([report]))["support"]
    [label] = {k[1] for k in view["cells"]}
    assert view["ops"] == ["Cast"] and view["cells"][("Cast", label)] == {
        "configs": 3, "implemented": 1, "partly": 1, "refused": 1, "claimed": 0}
    assert "1/3 (1 in part, 1 refused)" in render(load([report]), "md")
