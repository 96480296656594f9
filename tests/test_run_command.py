"""`opconform run` (runners/run.py) against the pytest plugin on the same suites: the same items, verdicts,
outcomes and records in the results file, the same baseline, the same exit status; crashes contained."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from conftest import copied_node_cases
from test_pytest_plugin import F8, F16, cast_case, rewrite_expected, write_suite

from runners.run import run_main

pytest_plugins = ["pytester"]

NODES = ["test_cast_float32_to_float16_edge_0", "test_cast_float16_to_float32_edge_0",
         "test_cast_float32_to_int8_edge_0"]
TIMING = ("duration", "created", "args")  # fields that differ between two runs of the same items


def _committed(names: list[str]) -> list[str]:
    from conftest import COMMITTED_NODES

    have = sorted(p.name for p in COMMITTED_NODES.iterdir())
    return [n for n in names if n in have] or have[:3]


def _plugin(pytester, *args) -> int:
    return int(pytester.runpytest(*args, "-p", "no:cacheprovider").ret)


def _runner(*args) -> int:
    return run_main([str(a) for a in args])


def _records(path: Path) -> tuple[dict, list[dict]]:
    doc = json.loads(path.read_text())
    records = [{k: v for k, v in r.items() if k not in TIMING} for r in doc.pop("records")]
    return {k: v for k, v in doc.items() if k not in TIMING}, records


def _same_results(a: Path, b: Path) -> None:
    head_a, rec_a = _records(a)
    head_b, rec_b = _records(b)
    assert head_a == head_b
    assert len(rec_a) == len(rec_b)
    for x, y in zip(rec_a, rec_b):
        assert x == y


@pytest.fixture
def mixed_suite(pytester) -> Path:
    """A suite whose items pass, fail (a wrong expected value), and one its manifest lists that is missing."""
    root = write_suite(pytester.path / "suite", [
        cast_case(F16, "float32", "float16", [[1.0, 65504.0, 1e-8, np.nan], [0.1, -0.0, 70000.0, 3.0]]),
        cast_case(F8, "float32", "float8e4m3fn", [[1.0, 448.0, 500.0, 0.01]]),
        cast_case("test_cast_gone", "float32", "float16", [[1.0]]),
    ])
    rewrite_expected(root / "node" / F16, 1, 0, 7.0)
    for f in sorted((root / "node" / "test_cast_gone").rglob("*"), reverse=True):
        f.rmdir() if f.is_dir() else f.unlink()
    (root / "node" / "test_cast_gone").rmdir()
    return root


def test_same_results_file_and_exit_status_as_the_plugin(pytester, monkeypatch, mixed_suite):
    monkeypatch.chdir(pytester.path)
    assert _plugin(pytester, "suite", "--backend", "opconform", "--report", "a.json") == 1
    assert _runner("suite", "--backend", "opconform", "--report", "b.json") == 1
    _same_results(pytester.path / "a.json", pytester.path / "b.json")
    doc = json.loads((pytester.path / "b.json").read_text())
    assert {r["outcome"] for r in doc["records"]} == {"passed", "failed"}
    assert doc["selection"] == {"family": [], "k": None, "m": None, "shard": None, "paths": ["suite"], "cases": None,
                                "whole": True}


def test_same_baseline_and_gate_as_the_plugin(pytester, monkeypatch, mixed_suite):
    monkeypatch.chdir(pytester.path)
    assert _plugin(pytester, "suite", "--backend", "opconform", "--baseline", "a.base", "--update-baseline") == 1
    assert _runner("suite", "--backend", "opconform", "--baseline", "b.base", "--update-baseline") == 1
    assert (pytester.path / "a.base").read_text() == (pytester.path / "b.base").read_text()
    # gated: every failure is known, so both pass; a new failure fails both
    assert _plugin(pytester, "suite", "--backend", "opconform", "--baseline", "a.base", "--report", "a.json") == 0
    assert _runner("suite", "--backend", "opconform", "--baseline", "b.base", "--report", "b.json") == 0
    _same_results(pytester.path / "a.json", pytester.path / "b.json")
    rewrite_expected(mixed_suite / "node" / F16, 0, 0, 7.0)
    assert _plugin(pytester, "suite", "--backend", "opconform", "--baseline", "a.base", "--report", "a.json") == 1
    assert _runner("suite", "--backend", "opconform", "--baseline", "b.base", "--report", "b.json") == 1
    _same_results(pytester.path / "a.json", pytester.path / "b.json")
    regressions = [r for r in json.loads((pytester.path / "b.json").read_text())["records"]
                   if r["message"].startswith("regression:")]
    assert [(r["case"], r["dataset"]) for r in regressions] == [(F16, 0), (F16, 1)]  # the case changed


def test_selection_and_skips_as_the_plugin(pytester, monkeypatch, mixed_suite):
    monkeypatch.chdir(pytester.path)
    (pytester.path / "skips.txt").write_text(f"{F8}[0]\n")
    (pytester.path / "xfails.txt").write_text(f"{F16}[1]\n")
    args = ["suite/node", "--backend", "opconform", "--skips-file", "skips.txt", "--xfails-file", "xfails.txt",
            "--family", "cast", "--shard", "1/1"]
    assert _plugin(pytester, *args, "--report", "a.json") == 0
    assert _runner(*args, "--report", "b.json") == 0
    _same_results(pytester.path / "a.json", pytester.path / "b.json")
    doc = json.loads((pytester.path / "b.json").read_text())
    assert {r["outcome"] for r in doc["records"]} == {"passed", "skipped", "xfailed"}
    assert doc["selection"] == {"family": ["cast"], "k": None, "m": None, "shard": "1/1", "paths": ["suite/node"],
                                "cases": [F16, F8], "whole": False}


def test_a_crash_costs_the_data_set_not_the_run(pytester, monkeypatch):
    names = _committed(NODES)
    root = copied_node_cases(pytester, monkeypatch, names)
    monkeypatch.chdir(pytester.path)
    monkeypatch.setenv("OPCONFORM_TEST_SEGFAULT", names[0])
    args = [root.name, "--backend", "fixture_backends:Misbehaving"]
    assert _plugin(pytester, *args, "--report", "a.json") == 1
    assert _runner(*args, "--report", "b.json") == 1
    _same_results(pytester.path / "a.json", pytester.path / "b.json")
    verdicts = {(r["case"], r["verdict"]) for r in json.loads((pytester.path / "b.json").read_text())["records"]}
    assert (names[0], "crash") in verdicts
    assert {v for c, v in verdicts if c != names[0]} == {"pass"}


def test_parallel_workers_give_the_same_results(pytester, monkeypatch):
    names = _committed(NODES)
    root = copied_node_cases(pytester, monkeypatch, names)
    monkeypatch.chdir(pytester.path)
    monkeypatch.setenv("OPCONFORM_TEST_HANG", names[1])
    args = [root.name, "--backend", "fixture_backends:Misbehaving", "--case-timeout", "5"]
    assert _runner(*args, "-j", "1", "--report", "a.json") == 1
    assert _runner(*args, "-j", "2", "--report", "b.json") == 1
    _same_results(pytester.path / "a.json", pytester.path / "b.json")


@pytest.mark.parametrize("args, words", [
    (["--backend", "nosuch"], "nosuch"),
    (["--backend", "opconform", "--tier", "loose"], None),
    (["--backend", "opconform", "--xfails-file", "nope.txt"], "--xfails-file nope.txt: no such file"),
    (["--backend", "opconform", "--shard", "3/2"], "--shard 3/2"),
    (["--backend", "opconform", "--family", "nosuch"], "--family nosuch: unknown family"),
    (["--backend", "opconform", "--update-baseline"], "--update-baseline needs --baseline"),
])
def test_bad_input_is_one_line(pytester, monkeypatch, capsys, mixed_suite, args, words):
    monkeypatch.chdir(pytester.path)
    try:
        code = _runner("suite", *args)
    except SystemExit as exc:  # argparse: a choice that is none of the choices
        code = exc.code
    err = capsys.readouterr().err
    assert "Traceback" not in err and "error:" in err.strip().splitlines()[-1]
    if words:  # ours: one line, the usage error's status (argparse's own: its usage, then one line, status 2)
        assert code == 4 and len(err.strip().splitlines()) == 1 and words in err
    else:
        assert code == 2


def test_no_item_selected_exits_5(pytester, monkeypatch, mixed_suite):
    monkeypatch.chdir(pytester.path)
    assert _runner("suite", "--backend", "opconform", "--family", "layout") == 5
    assert not os.path.exists(pytester.path / "r.json")


def test_the_plugin_records_its_selection(pytester, monkeypatch, mixed_suite):
    """-k and -m (the plugin's own) are recorded with the cases they left; a whole suite records cases null."""
    monkeypatch.chdir(pytester.path)
    _plugin(pytester, "suite", "--backend", "opconform", "-k", "float8", "-m", "family_cast", "--report", "a.json")
    selection = json.loads((pytester.path / "a.json").read_text())["selection"]
    assert selection == {"family": [], "k": "float8", "m": "family_cast", "shard": None, "paths": ["suite"],
                         "cases": [F8], "whole": False}
