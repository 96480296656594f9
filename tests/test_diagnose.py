"""Diagnosis of failures (runners/diagnose.py), the mutant backends `fault:<name>` (runners/backends/mutant.py),
and where a diagnosis shows: the pytest failure message, the JSON record, the report, scripts/discrepancies.py.

Most tests use a hand-made fault catalogue for DynamicQuantizeLinear, monkeypatched in place of
generator/reference/dynamic_quantize_linear_faults.py, on a suite written by `gen-cases --family
dynamic_quantize_linear --profile quick`: they do not depend on the real catalogues. The last test runs a
real Cast fault model as a mutant over a small generated Cast suite.

Out of scope here: the fault models themselves and their witnesses (their families' tests), the comparison
rules (test_compare.py).
"""

from __future__ import annotations

import html as html_module
import json
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import generator.faults
from generator import cli
from generator.faults import Fault
from generator.reference.dynamic_quantize_linear import dynamic_quantize_linear_node
from generator.serialize import read_case
from runners.backends.base import UnknownBackend, Unsupported
from runners.backends.opconform import OpconformBackend
from runners.backends.registry import get_backend, list_backends
from runners.diagnose import NO_MATCH, NOT_DIAGNOSED, diagnose, fault_table, markdown
from runners.execute import run_case_dataset
from runners.report import build, load, render
from runners.results import write_results

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
F32 = np.float32
FAMILY = "dynamic_quantize_linear"
HALF_AWAY = f"{FAMILY}.test_half_away"
RECIPROCAL = f"{FAMILY}.test_scale_reciprocal"
RAISES = f"{FAMILY}.test_raises"
EQUIVALENT = f"{FAMILY}.test_equivalent_everywhere"
HALF_AWAY_WHAT = "y and the zero point rounded half away from zero"


# ---------------------------------------------------------------------------------------
# a hand-made catalogue
# ---------------------------------------------------------------------------------------
def _half_away(v):
    v = np.asarray(v, dtype=np.float64)
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _dql(x, scale_of, rnd):
    x = np.asarray(x, dtype=F32)
    with np.errstate(all="ignore"):
        lo, hi = np.minimum(np.min(x), F32(0)), np.maximum(np.max(x), F32(0))
        scale = F32(scale_of(F32(hi - lo)))
        zp = rnd(np.clip(F32(F32(0) - F32(lo / scale)), 0, 255))
        y = np.clip(rnd((x / scale).astype(F32)) + zp, 0, 255)
    return [y.astype(np.uint8), np.array(scale, dtype=F32), np.array(zp, dtype=np.uint8)]


def half_away_node(inputs, attrs, opset, input_types):
    return _dql(inputs[0], lambda r: r / F32(255), _half_away)


def reciprocal_node(inputs, attrs, opset, input_types):
    return _dql(inputs[0], lambda r: r * F32(1 / 255), np.rint)


def raising_node(inputs, attrs, opset, input_types):
    raise RuntimeError("this fault model raises")


CALLS: list = []


def equivalent_node(inputs, attrs, opset, input_types):
    CALLS.append(1)  # never called: equivalent() says it cannot differ anywhere
    return half_away_node(inputs, attrs, opset, input_types)


FAULTS = (
    Fault(HALF_AWAY, HALF_AWAY_WHAT, half_away_node),
    Fault(RECIPROCAL, "y_scale computed as range * (1/255)", reciprocal_node),
    Fault(RAISES, "raises", raising_node),
    Fault(EQUIVALENT, "equivalent everywhere", equivalent_node, equivalent=lambda params: "by construction"),
)


@pytest.fixture
def hand_faults(monkeypatch):
    """The hand-made catalogue is the dynamic_quantize_linear family's; no other family has fault models."""
    fake = types.SimpleNamespace(FAULTS=FAULTS, group_key=lambda meta: "all")
    monkeypatch.setattr(generator.faults, "module", lambda family: fake if family == FAMILY else None)
    CALLS.clear()
    yield
    assert not CALLS, "a fault listed as equivalent in the group was run"


@pytest.fixture(scope="module")
def dql_suite(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dql") / "suite"
    assert cli.main([str(out), "--family", FAMILY, "--profile", "quick"]) == 0
    return out


def node_cases(suite: Path):
    return [read_case(d) for d in sorted((suite / "node").iterdir())]


def verdicts(backend, suite: Path):
    return [run_case_dataset(backend, case, i, "strict", {}) for case in node_cases(suite)
            for i in range(case.n_datasets)]


class Unmodelled(OpconformBackend):
    """Wrong in a way no fault model describes: the low bit of the first element of y flipped."""

    name = "unmodelled"

    def run(self, prepared, inputs):
        y, scale, zp = super().run(prepared, inputs)
        y = y.copy()
        if y.size:
            y.reshape(-1)[0] ^= 1
        return [y, scale, zp]


# ---------------------------------------------------------------------------------------
# the diagnosis on the verdict path
# ---------------------------------------------------------------------------------------
def test_a_fault_applied_is_diagnosed_as_exactly_that_fault(hand_faults, dql_suite):
    backend = get_backend(f"fault:{HALF_AWAY}")
    results = verdicts(backend, dql_suite)
    failed = [r for r in results if r.verdict == "fail"]
    assert failed, "the quick suite has ties: half away from zero must fail some data set"
    assert {r.verdict for r in results} <= {"pass", "fail"}
    for r in failed:
        assert r.diagnosis == [HALF_AWAY], r.message
        assert r.message.splitlines()[-1] == f"consistent with: {HALF_AWAY_WHAT} ({HALF_AWAY})"
        assert r.to_record()["diagnosis"] == [HALF_AWAY]
    for r in results:
        if r.verdict == "pass":
            assert r.diagnosis is None and "diagnosis" not in r.to_record()


def test_wrong_in_an_unmodelled_way_matches_no_known_fault(hand_faults, dql_suite):
    failed = [r for r in verdicts(Unmodelled(), dql_suite) if r.verdict == "fail"]
    assert failed
    for r in failed:
        assert r.diagnosis == [] and r.to_record()["diagnosis"] == []
        assert r.message.splitlines()[-1] == NO_MATCH


def test_diagnose_api(hand_faults, dql_suite):
    case = read_case(dql_suite / "node" / "test_dynamicquantizelinear_y_ties")
    x = case.inputs[0]
    wrong = half_away_node(x, {}, 11, [])
    assert [f.name for f in diagnose(case, 0, wrong)] == [HALF_AWAY]
    assert [f.name for f in diagnose(case, x, wrong)] == [HALF_AWAY]  # the inputs themselves
    # the reference's own outputs: consistent with no fault that differs there
    right = dynamic_quantize_linear_node(x, {}, 11, [])
    assert HALF_AWAY not in [f.name for f in diagnose(case, 0, right)]
    # only the faults given are tried
    assert diagnose(case, 0, wrong, faults=[FAULTS[1]]) == []


def test_no_fault_models_no_diagnosis(monkeypatch, dql_suite):
    monkeypatch.setattr(generator.faults, "module", lambda family: None)
    failed = [r for r in verdicts(Unmodelled(), dql_suite) if r.verdict == "fail"]
    assert failed
    for r in failed:
        assert r.diagnosis is None and "diagnosis" not in r.to_record()
        assert "consistent with" not in r.message and NO_MATCH not in r.message


def test_errors_are_not_diagnosed(hand_faults, dql_suite):
    class Raises(OpconformBackend):
        name = "raises"

        def run(self, prepared, inputs):
            raise RuntimeError("no")

    case = read_case(dql_suite / "node" / "test_dynamicquantizelinear_y_ties")
    r = run_case_dataset(Raises(), case, 0, "strict", {})
    assert r.verdict == "error" and r.diagnosis is None and "diagnosis" not in r.to_record()


# ---------------------------------------------------------------------------------------
# the mutant backends
# ---------------------------------------------------------------------------------------
def test_mutant_names(hand_faults):
    b = get_backend(f"fault:{HALF_AWAY}")
    assert b.name == f"fault:{HALF_AWAY}" and b.settings()["fault"] == HALF_AWAY
    for spec, words in ((f"fault:{FAMILY}.nope", HALF_AWAY), ("fault:nofamily.x", "no fault models"),
                        ("fault:", "no fault models")):
        with pytest.raises(UnknownBackend) as exc:
            get_backend(spec)
        assert len(str(exc.value).splitlines()) == 1 and words in str(exc.value)
    assert not [row for row in list_backends() if row["name"].startswith("fault:")]


def test_mutant_runs_other_families_with_the_references(hand_faults, tmp_path):
    suite = tmp_path / "cast"
    assert cli.main([str(suite), "--family", "cast", "--profile", "quick", "--max-opset", "19"]) == 0
    case = read_case(sorted((suite / "node").iterdir())[0])
    assert run_case_dataset(get_backend(f"fault:{HALF_AWAY}"), case, 0, "strict", {}).verdict == "pass"


# ---------------------------------------------------------------------------------------
# pytest message, JSON record, report, discrepancies table
# ---------------------------------------------------------------------------------------
def _run(pytester, suite: Path, backend: str, report: Path):
    return pytester.runpytest(str(suite), "--backend", backend, "--isolation", "none", "-p", "no:cacheprovider",
                              "--report", str(report))


def test_message_record_report_and_table(hand_faults, dql_suite, pytester, monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent))  # test_diagnose:Unmodelled
    mutant_json, unmodelled_json = pytester.path / "mutant.json", pytester.path / "unmodelled.json"
    out = _run(pytester, dql_suite, f"fault:{HALF_AWAY}", mutant_json)
    text = out.stdout.str()
    assert out.ret == 1 and f"consistent with: {HALF_AWAY_WHAT} ({HALF_AWAY})" in text
    out = _run(pytester, dql_suite, "test_diagnose:Unmodelled", unmodelled_json)
    assert out.ret == 1 and NO_MATCH in out.stdout.str()

    records = json.loads(mutant_json.read_text())["records"]
    failed = [r for r in records if r["verdict"] == "fail"]
    assert failed and all(r["diagnosis"] == [HALF_AWAY] for r in failed)
    assert all("diagnosis" not in r for r in records if r["verdict"] != "fail")
    n_unmodelled = sum(r["verdict"] == "fail" for r in json.loads(unmodelled_json.read_text())["records"])

    runs = load([mutant_json, unmodelled_json])
    table = build(runs)["faults"]
    rows = {row["fault"]: row for row in table["rows"]}
    assert rows[HALF_AWAY]["counts"] == [len(failed), 0] and rows[HALF_AWAY]["what"] == HALF_AWAY_WHAT
    assert rows[NO_MATCH]["counts"] == [0, n_unmodelled]
    assert table["failures"] == [len(failed), n_unmodelled] and table["diagnosed"] == [len(failed), 0]

    cmarkgfm = pytest.importorskip("cmarkgfm")  # GitHub's renderer (the [test] extra): the Markdown as it is read
    html, md = render(runs, "html"), render(runs, "md")
    md_read = html_module.unescape(re.sub(r"<[^>]+>", "", cmarkgfm.github_flavored_markdown_to_html(md)))
    for page in (html, md_read):
        assert "Failures per fault model" in page and HALF_AWAY in page and HALF_AWAY_WHAT in page
        assert f"consistent with: {HALF_AWAY_WHAT} ({HALF_AWAY})" in page and NO_MATCH in page

    script = subprocess.run([sys.executable, str(ROOT / "scripts" / "discrepancies.py"), str(mutant_json),
                             str(unmodelled_json)], capture_output=True, text=True)
    # (the script runs in another process: without the hand-made catalogue the fault has no description)
    assert script.returncode == 0, script.stderr
    lines = script.stdout.splitlines()
    assert lines[0].startswith("| family | fault model | fault:") and "unmodelled" in lines[0]
    assert f"| {FAMILY} | `{HALF_AWAY}` | {len(failed)} |  |" in lines
    assert f"| {FAMILY} | {NO_MATCH} |  | {n_unmodelled} |" in lines
    assert f"| | of which consistent with some fault model | {len(failed)} | 0 |" in lines
    assert lines[-1].startswith(f"Backends: fault:{HALF_AWAY} ")


def test_table_reads_older_results_without_diagnoses(tmp_path):
    def rec(case, verdict, **extra):
        return {"case": case, "dataset": 0, "kind": "node", "verdict": verdict, "family": "cast", "op": "Cast",
                "params": None, "message": f"{case}[0]: {verdict}", "tiers_met": [], "mismatches": [], **extra}

    old = tmp_path / "old.json"
    write_results(old, [rec("a", "fail"), rec("b", "pass"), rec("c", "error")],
                  {"backend": {"name": "old", "version": "1"}, "tier": "strict"})
    new = tmp_path / "new.json"
    write_results(new, [rec("a", "fail", diagnosis=["cast.x", "cast.y"]), rec("b", "fail", diagnosis=[])],
                  {"backend": {"name": "new", "version": "2"}, "tier": "strict"})
    runs = load([old, new])
    table = fault_table([(r.label, r.records) for r in runs])
    assert [(row["fault"], row["counts"]) for row in table["rows"]] == [
        ("cast.x", [0, 1]), ("cast.y", [0, 1]), (NO_MATCH, [0, 1]), (NOT_DIAGNOSED, [1, 0])]
    assert table["failures"] == [1, 2] and table["diagnosed"] == [0, 1]
    assert "| cast | not diagnosed | 1 |  |" in markdown(table)
    render(runs, "html"), render(runs, "md")  # older records (no "diagnosis") render
    bad = subprocess.run([sys.executable, str(ROOT / "scripts" / "discrepancies.py"), str(tmp_path / "nope.json")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "nope.json" in bad.stderr


# ---------------------------------------------------------------------------------------
# a real fault model of Cast, as a mutant, through pytest and its worker process
# ---------------------------------------------------------------------------------------
def test_real_cast_fault_as_a_mutant_is_diagnosed_as_itself(tmp_path, pytester):
    catalogue = generator.faults.by_name("cast")
    if not catalogue:
        pytest.skip("no Cast fault models (generator/reference/cast_faults/)")
    name = "cast.round_half_away" if "cast.round_half_away" in catalogue else next(iter(catalogue))
    suite, report = tmp_path / "cast", tmp_path / "r.json"
    assert cli.main([str(suite), "--family", "cast", "--profile", "quick", "--max-opset", "21"]) == 0
    result = pytester.runpytest(str(suite / "node"), "-k", "float32_to", "-q", "-p", "no:cacheprovider",
                                "--backend", f"fault:{name}", "--report", str(report))  # in this process
    run = subprocess.CompletedProcess([], int(result.ret), result.stdout.str(), result.stderr.str())
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr[-2000:]
    failed = [r for r in json.loads(report.read_text())["records"] if r["verdict"] == "fail"]
    assert failed, f"the quick Cast suite kills {name} on no float32 -> * case"
    for r in failed:
        assert name in r["diagnosis"], r["message"]  # (a fault equal to it on that data set may be named too)
        assert f"({name})" in r["message"].splitlines()[-1]
    assert f"consistent with: {catalogue[name].what} ({name}" in run.stdout


def test_a_mutant_refuses_what_the_reference_refuses(tmp_path):
    """A fault model of the values (no checks of its own) keeps the reference's prepare-time refusals."""
    faults = generator.faults.by_name("qlinear_conv")
    if "qlinear_conv.bias_ignored" not in faults:
        pytest.skip("no qlinear_conv.bias_ignored fault model")
    suite = tmp_path / "qlc"
    assert cli.main([str(suite), "--family", "qlinear_conv", "--profile", "quick"]) == 0
    negatives = [read_case(d) for d in sorted((suite / "negative").iterdir())]
    assert negatives
    backend = get_backend("fault:qlinear_conv.bias_ignored")
    for case in negatives:
        assert run_case_dataset(backend, case, 0, "strict", {}).verdict == "pass", case.name


def test_real_layout_fault_as_a_mutant_is_diagnosed_as_itself(tmp_path):
    """Layout faults are converters (their family's `run`): the same path, on graph cases."""
    catalogue = generator.faults.by_name("layout")
    name = "layout.softmax_axis_not_remapped"
    if name not in catalogue:
        pytest.skip(f"no {name} fault model")
    suite = tmp_path / "layout"
    assert cli.main([str(suite), "--family", "layout", "--profile", "quick"]) == 0
    backend = get_backend(f"fault:{name}")
    results = [run_case_dataset(backend, case, i, "strict", {})
               for case in (read_case(d) for d in sorted((suite / "graph").iterdir())) for i in range(case.n_datasets)]
    failed = [r for r in results if r.verdict == "fail"]
    assert failed and {r.verdict for r in results} <= {"pass", "fail"}
    for r in failed:
        assert name in r.diagnosis, r.message


def test_a_fault_that_refuses_does_not_explain_missing_outputs(monkeypatch, dql_suite):
    """A family's `run` returns [] where the fault refuses the model: that is not a backend returning nothing."""
    refusing = Fault(f"{FAMILY}.test_refuses", "refuses", raising_node)
    fake = types.SimpleNamespace(FAULTS=(refusing,), run=lambda fault, model, inputs, meta: [])
    monkeypatch.setattr(generator.faults, "module", lambda family: fake if family == FAMILY else None)
    case = read_case(dql_suite / "node" / "test_dynamicquantizelinear_y_ties")
    assert diagnose(case, 0, []) == []


# ---------------------------------------------------------------------------------------
# errors and refusals: explained by the faults that refuse the same model
# ---------------------------------------------------------------------------------------
REFUSES = f"{FAMILY}.test_refuses_everything"
REFUSES_WHAT = "refuses DynamicQuantizeLinear outright"


def refusing_node(inputs, attrs, opset, input_types):
    raise generator.faults.Refusal("this implementation refuses the model")


class RaisesAtRun(OpconformBackend):
    name = "raises-at-run"

    def run(self, prepared, inputs):
        raise RuntimeError("the backend refuses")


class UnsupportedAtPrepare(OpconformBackend):
    name = "unsupported-at-prepare"

    def prepare(self, model, case):
        raise Unsupported("not implemented")


class UnsupportedAtRun(OpconformBackend):
    name = "unsupported-at-run"

    def run(self, prepared, inputs):
        raise Unsupported("cannot copy these inputs")


class PlacedElsewhere(OpconformBackend):
    name = "placed-elsewhere"

    def prepare(self, model, case):
        refusal = Unsupported("the node ran on another provider")
        refusal.placement = {"requested": "X", "nodes": [{"node": "n", "provider": "Y"}]}
        raise refusal


@pytest.fixture
def refusing_faults(monkeypatch):
    """The hand-made catalogue plus a fault whose function raises Refusal (may_refuse)."""
    refusing = Fault(REFUSES, REFUSES_WHAT, refusing_node, may_refuse=True)
    fake = types.SimpleNamespace(FAULTS=FAULTS + (refusing,), group_key=lambda meta: "all")
    monkeypatch.setattr(generator.faults, "module", lambda family: fake if family == FAMILY else None)
    CALLS.clear()
    yield
    assert not CALLS


@pytest.mark.parametrize("backend, verdict", [(RaisesAtRun(), "error"), (UnsupportedAtPrepare(), "unsupported")])
def test_an_error_or_refusal_is_explained_by_a_refusing_fault(refusing_faults, dql_suite, backend, verdict):
    case = read_case(dql_suite / "node" / "test_dynamicquantizelinear_y_ties")
    r = run_case_dataset(backend, case, 0, "strict", {})
    assert r.verdict == verdict
    assert r.diagnosis == [REFUSES] and r.to_record()["diagnosis"] == [REFUSES]  # RAISES raises, it does not refuse
    assert r.message.splitlines()[-1] == f"consistent with: {REFUSES_WHAT} ({REFUSES})"


def test_what_the_backend_did_not_refuse_is_not_explained(refusing_faults, dql_suite):
    case = read_case(dql_suite / "node" / "test_dynamicquantizelinear_y_ties")
    r = run_case_dataset(PlacedElsewhere(), case, 0, "strict", {})  # the adapter's placement check: no refusal
    assert r.verdict == "unsupported" and r.diagnosis is None
    r = run_case_dataset(UnsupportedAtRun(), case, 0, "strict", {})  # the model was accepted: not refused
    assert r.verdict == "unsupported" and r.diagnosis is None
    r = run_case_dataset(RaisesAtRun(), case, 0, "strict", {})
    assert r.diagnosis == [REFUSES]
    for r in verdicts(get_backend(f"fault:{HALF_AWAY}"), dql_suite):  # fails are not explained by refusals
        assert REFUSES not in (r.diagnosis or [])


def test_refusals_by_a_family_refuses_or_an_empty_run(monkeypatch, dql_suite):
    """The other two ways a fault refuses: its family's refuses(fault, model, meta), its family's run giving []."""
    case = read_case(dql_suite / "node" / "test_dynamicquantizelinear_y_ties")
    a, b = Fault(f"{FAMILY}.test_a", "a", half_away_node), Fault(f"{FAMILY}.test_b", "b", half_away_node)
    by_predicate = types.SimpleNamespace(FAULTS=(a, b), refuses=lambda fault, model, meta: fault is b)
    by_run = types.SimpleNamespace(FAULTS=(a, b), run=lambda fault, model, inputs, meta: [] if fault is a else
                                   half_away_node(inputs, {}, 11, []))
    for fake, named in ((by_predicate, [b.name]), (by_run, [a.name])):
        monkeypatch.setattr(generator.faults, "module", lambda family, fake=fake: fake if family == FAMILY else None)
        r = run_case_dataset(RaisesAtRun(), case, 0, "strict", {})
        assert r.verdict == "error" and r.diagnosis == named, r.message


def test_a_fault_without_may_refuse_is_not_run_for_an_error(monkeypatch, dql_suite):
    ran = []

    def counting(inputs, attrs, opset, input_types):
        ran.append(1)
        raise generator.faults.Refusal("undeclared")

    fake = types.SimpleNamespace(FAULTS=(Fault(f"{FAMILY}.test_undeclared", "undeclared", counting),))
    monkeypatch.setattr(generator.faults, "module", lambda family: fake if family == FAMILY else None)
    case = read_case(dql_suite / "node" / "test_dynamicquantizelinear_y_ties")
    r = run_case_dataset(RaisesAtRun(), case, 0, "strict", {})
    assert r.verdict == "error" and r.diagnosis is None and not ran


# ---------------------------------------------------------------------------------------
# the measure (scripts/unmatched.py) and the reading table (scripts/discrepancies.py)
# ---------------------------------------------------------------------------------------
READING = "a reading of the texts (docs/readings.md#x)"


def _measure_files(tmp_path):
    def rec(case, verdict, family="cast", **extra):
        return {"case": case, "dataset": 0, "kind": "node", "verdict": verdict, "family": family, "op": "Cast",
                "params": None, "message": f"{case}[0]: {verdict}", "tiers_met": [], "mismatches": [], **extra}

    a = [rec("a1", "fail", diagnosis=["cast.x"]), rec("a2", "fail", diagnosis=[]), rec("a3", "fail", diagnosis=[],
                                                                                     reading=READING),
         rec("a4", "fail", diagnosis=["cast.x"], reading=READING), rec("a5", "pass"),
         rec("a6", "error", family="convert_promote_types", diagnosis=["convert_promote_types.r"]),
         rec("a7", "unsupported", family="convert_promote_types"), rec("a8", "fail", family="layout")]
    b = [rec("a1", "pass"), rec("a2", "fail", diagnosis=["cast.x"])]
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    write_results(pa, a, {"backend": {"name": "alpha", "version": "1"}, "tier": "strict"})
    write_results(pb, b, {"backend": {"name": "beta", "version": "2"}, "tier": "strict"})
    return pa, pb


def test_unmatched_share_per_backend_and_family(tmp_path):
    from runners.diagnose import unmatched

    runs = load(list(_measure_files(tmp_path)))
    table = unmatched([(r.label, r.records) for r in runs])
    cells = {row["family"]: row["cells"] for row in table["rows"]}
    assert cells[None][0] == {"failing": 5, "no_match": 2, "not_diagnosed": 1, "share": 0.4, "raised": 2,
                              "raised_diagnosed": 1}
    assert cells["cast"][1]["share"] == 0.0 and cells["convert_promote_types"][1]["raised"] == 0
    script = subprocess.run([sys.executable, str(ROOT / "scripts" / "unmatched.py"), *map(str, _measure_files(tmp_path))],
                            capture_output=True, text=True)
    assert script.returncode == 0, script.stderr
    lines = script.stdout.splitlines()
    assert "| **all** | 2 of 5 (40.0%), 1 not diagnosed | 1 of 2 | 0 of 1 (0.0%) |  |" in lines
    assert "| cast | 2 of 4 (50.0%) |  | 0 of 1 (0.0%) |  |" in lines
    bad = subprocess.run([sys.executable, str(ROOT / "scripts" / "unmatched.py"), str(tmp_path / "nope.json")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_discrepancies_show_explained_errors_and_failures_against_a_reading(tmp_path):
    script = subprocess.run([sys.executable, str(ROOT / "scripts" / "discrepancies.py"),
                             *map(str, _measure_files(tmp_path))], capture_output=True, text=True)
    assert script.returncode == 0, script.stderr
    lines = script.stdout.splitlines()
    assert "| convert_promote_types | `convert_promote_types.r` | 1 |  |" in lines  # the error it explains
    assert "| | errors and unsupported (node / graph data sets) | 2 | 0 |" in lines
    assert "| | of which a fault model that refuses the model explains | 1 | 0 |" in lines
    assert "| cast | a sentence of the texts | 2 | 1 |" in lines
    assert f"| cast | reading: {READING} | 2 |  |" in lines
    assert "| | failing items against a reading | 2 | 0 |" in lines


def test_real_refusing_fault_as_a_mutant_explains_its_errors():
    """A real ConvertPromoteTypes fault that refuses pairs the spec accepts (its family's refuses / run): its
    mutant raises there, and the error is diagnosed as that fault (committed suite, a sample)."""
    name = "convert_promote_types.scalar_rule_across_priorities"
    if name not in generator.faults.by_name("convert_promote_types"):
        pytest.skip(f"no {name} fault model")
    backend = get_backend(f"fault:{name}")
    errors = []
    for d in sorted((ROOT / "cases" / "node").glob("test_convert_promote_types_*"))[::7]:
        r = run_case_dataset(backend, read_case(d), 0, "strict", {})
        if r.verdict == "error":
            errors.append(r)
            if len(errors) == 3:
                break
    assert errors, "the sample holds no pair this fault refuses"
    for r in errors:
        assert name in r.diagnosis and f"({name})" in r.message.splitlines()[-1], r.message


def test_a_converter_refusal_is_explained_by_the_layout_fault_that_refuses_alike():
    """tflite2onnx 0.4.1 refuses the softmax-on-the-last-axis graph (a broadcast operand without layout): the error
    names layout.broadcast_lift_requires_layout, the fault that refuses the same source graph."""
    name, case_dir = "layout.broadcast_lift_requires_layout", ROOT / "cases" / "graph" / "test_layout_softmax_last_axis_1x256x256"
    if name not in generator.faults.by_name("layout") or not case_dir.is_dir():
        pytest.skip(f"no {name} fault model or no such case")
    try:
        backend = get_backend("tflite2onnx+onnxruntime")
    except UnknownBackend as exc:
        pytest.skip(str(exc))
    if backend.not_installed():
        pytest.skip(backend.not_installed())
    r = run_case_dataset(backend, read_case(case_dir), 0, "strict", {})
    assert r.verdict == "error" and name in r.diagnosis, r.message


def test_a_negative_case_accepted_is_explained_by_the_faults_that_accept_it():
    """A backend that accepts a model it must refuse: the fault models of its family that accept the same model (where
    the family's faults model acceptance: `refuses`) are named; OpenVINO 2026.4 accepts these S(u8), D(i8) pairs in
    safe mode as convert_promote_types.pytorch_safe_bit_width does."""
    name = "convert_promote_types.pytorch_safe_bit_width"
    case_dir = ROOT / "cases" / "negative" / "test_convert_promote_types_int8_uint8_dim_scalar_safe_pytorch"
    if name not in generator.faults.by_name("convert_promote_types") or not case_dir.is_dir():
        pytest.skip(f"no {name} fault model or no such case")
    r = run_case_dataset(get_backend(f"fault:{name}"), read_case(case_dir), 0, "strict", {})
    assert r.verdict == "fail" and name in r.diagnosis, r.message
    assert r.message.splitlines()[-1].startswith("consistent with:")
    # a family whose faults do not model acceptance gets no diagnosis (not "matches no known fault")
    dq = ROOT / "cases" / "negative" / "test_dequantizelinear_negative_int8_scale"
    if dq.is_dir():
        from runners.diagnose import accepting
        assert accepting(read_case(dq)) is None



OTHER_TYPE = [  # (case, the fault that leaves output_dtype unread): tract 0.23.9 returns exactly its tensors
    ("test_dequantizelinear_output_dtype_int8_float32_to_bfloat16_opset23", "dequantize_linear.output_dtype_ignored"),
    ("test_quantizelinear_output_dtype_float8e4m3fn_without_zero_point_opset21", "quantize_linear.output_dtype_ignored"),
    ("test_quantizelinear_output_dtype_int16_without_zero_point_opset21", "quantize_linear.output_dtype_ignored"),
]


def _committed(name: str):
    return read_case(Path(__file__).resolve().parents[1] / "cases" / "node" / name)


@pytest.mark.parametrize("case_name,name", OTHER_TYPE)
def test_a_fault_of_another_element_type_explains_exactly_its_tensors(case_name, name):
    """A fault whose y has another element type than the declared one explains a backend that returns its tensors,
    type and bits; the declared type's comparison could not. The reference's tensors, or the fault's values in
    another integer width, are not explained by it."""
    from runners.diagnose import consistent

    case = _committed(case_name)
    fault = generator.faults.by_name(name.split(".")[0])[name]
    (y,) = generator.faults.fault_outputs(fault, case.model, case.inputs[0], case.meta)
    assert y.dtype != case.outputs[0][0].dtype
    assert consistent(fault, case, case.inputs[0], [y.copy()])
    assert not consistent(fault, case, case.inputs[0], [case.outputs[0][0].copy()])
    if y.dtype.kind in "iu":
        assert not consistent(fault, case, case.inputs[0], [y.astype(np.int32)])


@pytest.mark.parametrize("case_name,name", OTHER_TYPE)
def test_tract_s_output_dtype_failures_are_diagnosed(case_name, name):
    pytest.importorskip("tract", reason="tract is not installed (pip install 'opconform[tract]')")
    from runners.input_modes import DEFAULT

    r = run_case_dataset(get_backend("tract"), _committed(case_name), 0, "strict", {}, DEFAULT)
    assert r.verdict == "fail" and name in r.diagnosis, r.message
