"""docs/scoreboard.md and docs/scoreboard.html: made by scripts/scoreboard.py from the runs kept in docs/scoreboard/;
they fail here when they are not what those runs render, or when a kept run no longer reads as a results file."""

from __future__ import annotations

import gzip
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from runners.report_inputs import load
from runners.results import FAILING, RESULTS_FORMAT, write_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import scoreboard  # noqa: E402

KEPT = sorted(scoreboard.KEPT.glob("*.json.gz"))


def test_every_column_is_kept_or_left_out_with_its_reason():
    skipped = json.loads((scoreboard.KEPT / "skipped.json").read_text())
    kept = {p.name[:-len(".json.gz")] for p in KEPT}
    assert {c.name for c in scoreboard.COLUMNS} == kept | set(skipped), "a column neither run nor left out"
    assert not kept & set(skipped) and all(isinstance(v, str) and v for v in skipped.values())


@pytest.mark.parametrize("path", KEPT, ids=[p.name for p in KEPT])
def test_a_kept_run_is_a_results_file_that_the_report_reads_whole(path):
    with gzip.open(path) as f:
        doc = json.load(f)
    column = next(c for c in scoreboard.COLUMNS if c.name == path.name[:-len(".json.gz")])
    shard = scoreboard.SHARDED.get(column.backend)  # the compilers' columns: one shard of the suite, as named
    assert doc["format"] == RESULTS_FORMAT and doc["shard"] == shard and (shard or doc["selection"]["whole"])
    assert doc["command"] == scoreboard.command_of(column)
    assert doc["machine"]["class"] and doc["backend"]["version"]
    [run] = load([path])
    assert run.skipped == [] and len(run.records) == len(doc["records"]) == sum(doc["counts"].values())
    assert all(r.keys() <= set(scoreboard.RECORD_KEYS) and "op" in r and "opset" in r for r in doc["records"])


def test_the_pages_are_what_the_kept_runs_render():
    assert scoreboard.render(check=True) == 0, "run python scripts/scoreboard.py"


def test_compact_keeps_the_header_cuts_the_records_and_fills_a_missing_opset(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "manifest.json").write_text(json.dumps({"format": "opconform-suite/1", "cases": [
        {"name": "test_a", "kind": "node", "op": "QuantizeLinear", "opset": 23}]}))
    raw = tmp_path / "raw.json"
    write_results(raw, [{"case": "test_a", "dataset": 0, "verdict": "crash", "kind": "node", "message": "SIGSEGV",
                         "mismatches": [{"index": [0]}], "params": {"x": "float"}}],
                  {"backend": {"name": "ort", "version": "1.20.1"}, "tier": "strict", "args": ["run", str(suite)],
                   "selection": {"paths": [str(suite)], "cases": None, "whole": True}})
    doc = scoreboard.compact(json.loads(raw.read_text()), suite)
    assert doc["records"] == [{"case": "test_a", "dataset": 0, "verdict": "crash", "op": "QuantizeLinear",
                               "opset": 23}]
    assert doc["backend"] == {"name": "ort", "version": "1.20.1"} and doc["selection"]["paths"] == ["cases"]
    assert str(tmp_path) not in json.dumps(doc)  # no path of the machine that ran it
    kept = tmp_path / "k.json.gz"
    scoreboard.write_kept(doc, kept)
    first = kept.read_bytes()
    scoreboard.write_kept(doc, kept)
    assert kept.read_bytes() == first  # no timestamp in the gzip data: a rewrite is no change


def test_the_matrix_counts_what_the_kept_records_say():
    """The newest onnxruntime column's cells, counted here from its records without the report's code."""
    path = scoreboard.KEPT / "onnxruntime-1.32.0.json.gz"
    if not path.exists():
        pytest.skip("no kept onnxruntime 1.32.0 run")
    with gzip.open(path) as f:
        records = json.load(f)["records"]
    want: dict[tuple, Counter] = {}
    for r in records:
        want.setdefault((r["op"], str(r["opset"])), Counter())[r["verdict"]] += 1
    page = (ROOT / "docs" / "scoreboard.md").read_text()
    section = page[page.index("## onnxruntime (providers"):]
    header = next(line for line in section.splitlines() if line.startswith("| op | opset |"))
    col = [c.strip() for c in header.split("|")].index("onnxruntime 1.32.0")
    for (op, opset), counts in want.items():
        row = next(line for line in section.splitlines() if line.startswith(f"| {op} | {opset} |"))
        cell = [c.strip() for c in row.split("|")][col]
        judged = sum(n for v, n in counts.items() if v in FAILING or v == "pass")
        passed = counts.get("pass", 0)
        if judged and passed == judged:
            assert cell.startswith(f"✓ 100% {passed}"), (op, opset, cell)
        elif judged:
            assert f" {passed}/{judged}" in cell, (op, opset, cell)
        else:
            assert cell.startswith("- "), (op, opset, cell)
