"""--family and --shard select while collecting (issue 31, part 7): a case its suite's manifest places in
another family or shard is never made into an item (`pytest cases --family F` made all 22,248 and deselected
21,917 of them: 111 s for one family on OpenVINO). The selection is exactly the one before: checked on the
committed suite against the manifest and the data sets on disk, for both runners; cases whose family only
case.json says (a plain folder) are collected, then deselected as before."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_pytest_plugin import F8, F16, cast_case, write_suite

from generator.serialize import read_manifest
from runners.collect import collect
from runners.gate import shard_of
from runners.suite_tree import Manifests, Selection, count_datasets

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "cases"


def _expected(families: list[str], shard: tuple[int, int] | None) -> list[str]:
    """The node ids of the selection, from the manifest's families and the data sets on disk."""
    ids = []
    for e in read_manifest(COMMITTED)["cases"]:
        if families and e["family"] not in families or shard and shard_of(e["name"], shard[1]) != shard[0]:
            continue
        n = count_datasets(COMMITTED / e["kind"] / e["name"])
        ids += [f"cases/{e['kind']}/{e['name']}/model.onnx::{e['name']}[{i}]" for i in range(max(n, 1))]
    return ids


SELECTIONS = [(["quantize_linear"], None), ([], (2, 5)), (["cast", "layout"], (1, 3))]


@pytest.mark.parametrize("families,shard", SELECTIONS, ids=["family", "shard", "families-and-shard"])
def test_the_committed_suite_selects_the_same_items_without_deselecting(pytester, families, shard):
    args = [a for f in families for a in ("--family", f)] + (["--shard", f"{shard[0]}/{shard[1]}"] if shard else [])
    result = pytester.runpytest(str(COMMITTED), "--backend", "opconform", "--collect-only", "-q",
                                "-p", "no:cacheprovider", *args)
    out = result.stdout.str()
    collected = [line for line in result.outlines if "::" in line]
    expected = _expected(families, shard)
    assert sorted(collected) == sorted(expected) and len(collected) == len(expected)
    assert "deselected" not in out and re.search(rf"^{len(expected)} tests? collected", out, re.M), out[-2000:]
    items, _ = collect([str(COMMITTED)], ROOT, Manifests(), Selection(families, shard))  # opconform run's
    assert [it.nodeid for it in items] == collected


@pytest.fixture
def plain(pytester) -> Path:
    """A folder without a manifest: F16 of family cast, F8 (a Cast all the same) of family quantize_linear."""
    root = write_suite(pytester.path / "plain", [cast_case(F16, "float32", "float16", [[1.0]]),
                                                 cast_case(F8, "float32", "float8e4m3fn", [[1.0]],
                                                           family="quantize_linear")])
    (root / "manifest.json").unlink()
    return root


def test_cases_whose_family_only_case_json_says_are_deselected_as_before(pytester, plain):
    result = pytester.runpytest("plain", "--backend", "opconform", "--family", "cast", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, deselected=1)
    items, _ = collect(["plain"], pytester.path, Manifests(), Selection(["cast"]))
    assert [it.case_name for it in items] == [F16]


def test_a_case_named_by_its_node_id_is_deselected_not_lost(pytester):
    """An argument inside a kind folder is matched level by level: its case is made (and deselected), so
    pytest does not call it not found."""
    write_suite(pytester.path / "suite", [cast_case(F16, "float32", "float16", [[1.0]])])
    result = pytester.runpytest(f"suite/node/{F16}/model.onnx::{F16}[0]", "--backend", "opconform",
                                "--family", "quantize_linear", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.assert_outcomes(deselected=1)
