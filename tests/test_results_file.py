"""The results file's text (runners/results.py): the same JSON as the document, each record on one line."""

from __future__ import annotations

import json

import numpy as np

from runners.results import Result, jsonable, results_document, results_text, write_results


def _records() -> list[dict]:
    a = Result(case="test_b", dataset=1, kind="node", verdict="fail", message="m\n\"quoted\"\x01", backend="x", backend_version="1", tier="strict")
    b = Result(case="test_a", dataset=0, kind="node", verdict="pass", message="ok", backend="x", backend_version="1", tier="strict",
               mismatches=[{"index": [0], "expected": np.float32("nan"), "actual": -np.inf}])
    return [a.to_record(), b.to_record()]


def test_text_is_the_document_and_each_record_one_line(tmp_path):
    header = {"backend": {"name": "x", "settings": {"records": "\x00records\x00"}}, "args": ["--records"]}
    records = _records()
    text = results_text(records, header)
    assert json.loads(text) == results_document(records, header)
    lines = text.splitlines()
    for r in results_document(records, header)["records"]:
        assert sum(line.strip().rstrip(",") == json.dumps(r, sort_keys=True, ensure_ascii=False)
                   for line in lines) == 1
    path = write_results(tmp_path / "r.json", records, header)
    assert path.read_text(encoding="utf-8") == text and text.endswith("}\n")


def test_no_records():
    assert json.loads(results_text([], {"backend": "x"}))["records"] == []


def test_jsonable_plain_values():
    assert jsonable({"a": [1, 2.5, float("nan"), -float("inf"), True, None, "s", np.int8(-3), np.float16(0.5)]}) \
        == {"a": [1, 2.5, "nan", "-inf", True, None, "s", -3, 0.5]}
