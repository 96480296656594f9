"""Tiers met per family: runners/execute.py judges every node / graph data set in both tiers (record field
tiers_met), and the pytest plugin prints, per family, which tiers the backend meets. Checked with a
backend that is exact on QLinearConv and off by one on DynamicQuantizeLinear's y (tolerant only)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from generator.families import dynamic_quantize_linear as dql
from generator.families import qlinear_conv as qlc
from generator.serialize import read_case, write_case, write_manifest
from runners.backends.base import Backend
from runners.execute import run_case_dataset
from runners.tiers import count_tiers, tier_summary

pytest_plugins = ["pytester"]

BACKEND = textwrap.dedent('''
    import numpy as np
    from runners.backends.base import Backend
    from runners.backends.opconform import OpconformBackend


    class Skewed(Backend):
        """Our references, except that DynamicQuantizeLinear's y is off by `by` (toward the middle)."""
        name = "skewed"
        by = 1

        def __init__(self):
            self.inner = OpconformBackend()

        def version(self):
            return "1.0"

        def prepare(self, model, case):
            return model.graph.node[0].op_type, self.inner.prepare(model, case)

        def run(self, prepared, inputs):
            op, inner = prepared
            out = self.inner.run(inner, inputs)
            if op == "DynamicQuantizeLinear":
                y = out[0].astype(np.int64)
                out[0] = np.where(y < 128, y + self.by, y - self.by).astype(np.uint8)
            return out


    class Skewed2(Skewed):
        by = 2
''')


def _suite(root: Path) -> Path:
    """Two DynamicQuantizeLinear cases and one QLinearConv case, written as a suite."""
    dql_cases = {c.name: c for what in ("mixed", "4d")
                 for c in dql.cases_of(what, dql.CATALOGUE[what]()[1], ["edge"], 0)}
    conv = next(c for c in qlc.catalogue() if c.what == "pads_symmetric")
    cases = list(dql_cases.values()) + list(qlc.conv_cases(conv, 2, 0, ["edge"]))
    root.mkdir(parents=True, exist_ok=True)
    for c in cases:
        write_case(c, root)
    write_manifest(root, {}, [{"name": c.name, "kind": c.kind} for c in cases])
    return root


def test_count_and_summary():
    counts: dict = {}
    count_tiers(counts, "a", "pass", ["strict", "tolerant"])
    count_tiers(counts, "a", "fail", ["tolerant"])
    count_tiers(counts, "a", "unsupported", [])
    count_tiers(counts, "b", "pass", ["strict", "tolerant"])
    count_tiers(counts, "c", "error", [])
    lines = tier_summary(counts, "x 1.0")
    assert lines[0].startswith("opconform: tiers met per family by x 1.0")
    assert lines[1:] == ["  a: strict 1/2, tolerant 2/2, 1 unsupported -> tolerant",
                         "  b: strict 1/1, tolerant 1/1 -> strict, tolerant",
                         "  c: strict 0/1, tolerant 0/1 -> none"]


class _Raises(Backend):
    name = "raises"

    def version(self):
        return "0"

    def prepare(self, model, case):
        return None

    def run(self, prepared, inputs):
        raise RuntimeError("no")


def test_execute_records_the_tiers_each_data_set_meets(tmp_path, pytester):
    pytester.syspathinsert()
    pytester.makepyfile(skewed_backend=BACKEND)
    import skewed_backend

    root = _suite(tmp_path / "suite")
    case = read_case(root / "node" / "test_dynamicquantizelinear_mixed")
    conv = read_case(root / "node" / "test_qlinearconv_pads_symmetric")
    r = run_case_dataset(skewed_backend.Skewed(), case, 0, "strict", {})
    assert (r.verdict, r.tiers_met) == ("fail", ["tolerant"])
    r = run_case_dataset(skewed_backend.Skewed(), case, 0, "tolerant", {})
    assert (r.verdict, r.tiers_met, r.tier) == ("pass", ["tolerant"], "tolerant")
    assert run_case_dataset(skewed_backend.Skewed2(), case, 0, "tolerant", {}).tiers_met == []
    assert run_case_dataset(skewed_backend.Skewed(), conv, 1, "strict", {}).tiers_met == ["strict", "tolerant"]
    r = run_case_dataset(_Raises(), conv, 0, "strict", {})
    assert (r.verdict, r.tiers_met) == ("error", [])
    assert r.to_record()["tiers_met"] == []


@pytest.mark.parametrize("extra", [[], ["-n", "2"]])
def test_plugin_prints_the_tiers_met_per_family(pytester, extra):
    pytester.syspathinsert()
    pytester.makepyfile(skewed_backend=BACKEND)
    root = _suite(pytester.path / "suite")
    report = pytester.path / "r.json"
    args = [str(root), "--backend", "skewed_backend:Skewed", "--isolation", "none", "--report", str(report),
            "-p", "no:benchmark", *extra]
    result = pytester.runpytest_subprocess(*args) if extra else pytester.runpytest(*args)
    result.stdout.fnmatch_lines([
        "opconform: tiers met per family by skewed 1.0 *",
        "  dynamic_quantize_linear: strict 0/9, tolerant 9/9 -> tolerant",
        "  qlinear_conv: strict 2/2, tolerant 2/2 -> strict, tolerant",
    ])
    doc = json.loads(report.read_text())
    dql_tiers = {tuple(r["tiers_met"]) for r in doc["records"] if r["family"] == "dynamic_quantize_linear"}
    assert dql_tiers == {("tolerant",)}
    assert doc["tiers_met_by_family"] == {
        "dynamic_quantize_linear": {"judged": 9, "unsupported": 0, "strict": 0, "tolerant": 9, "met": ["tolerant"]},
        "qlinear_conv": {"judged": 2, "unsupported": 0, "strict": 2, "tolerant": 2, "met": ["strict", "tolerant"]}}


def test_no_summary_without_node_cases(pytester):
    root = pytester.path / "suite"
    [case] = [c for c in qlc.negative_cases(0) if c.name.endswith("bias_length")]
    root.mkdir()
    write_case(case, root)
    write_manifest(root, {}, [{"name": case.name, "kind": case.kind}])
    result = pytester.runpytest(str(root), "--backend", "opconform", "--isolation", "none", "-p", "no:benchmark")
    result.assert_outcomes(passed=1)
    assert "tiers met" not in result.stdout.str()
