"""The CI gate: baselines (regressions fail, known failures do not, improvements are listed), stable
shards that together run every case once, and their usage errors."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import importlib

import pytest

from runners.gate import RANK, is_better, is_worse, parse_shard, shard_of

pytest_plugins = ["pytester"]
# pytester's in-process runs unload the modules they import, and onnx's C extension cannot be loaded
# twice in one process: load it (with the backend the runs use) before any run.
importlib.import_module("runners.backends.opconform")

HERE = Path(__file__).resolve().parent
SUITE = HERE.parent / "cases"
FIXTURE = "fixture_backends:Misbehaving"
PICKS = sorted(p.name for p in (SUITE / "node").iterdir())[:16]


@pytest.fixture
def suite(pytester, monkeypatch) -> Path:
    monkeypatch.syspath_prepend(str(HERE))
    root = pytester.path / "s"
    root.mkdir()
    for name in PICKS:
        os.symlink(SUITE / "node" / name, root / name)
    return root


def run(pytester, monkeypatch, suite, *args, **misbehave):
    for what in ("RAISE", "WRONG_DTYPE", "SEGFAULT"):
        monkeypatch.setenv(f"OPCONFORM_TEST_{what}", ",".join(misbehave.get(what.lower(), [])))
    return pytester.runpytest(str(suite), "--backend", FIXTURE, "-p", "no:cacheprovider", "--isolation", "none",
                              *args)


def test_ranking_and_regressions():
    assert is_worse("fail", "pass") and is_worse("crash", "fail") and is_worse("fail", "unsupported")
    assert not is_worse("fail", "fail") and not is_worse("fail", "error") and not is_worse("pass", None)
    assert is_worse("fail", None) and is_worse("error", None)  # a failing new case is a regression
    assert is_better("pass", "fail") and is_better("fail", "crash") and not is_better("pass", None)
    assert RANK["pass"] == RANK["probe"] < RANK["unsupported"] < RANK["fail"] < RANK["error"] < RANK["crash"]


def test_baseline_gate_end_to_end(pytester, monkeypatch, suite):
    base = pytester.path / "baseline.json"
    a, b, c = PICKS[0], PICKS[1], PICKS[2]
    r = run(pytester, monkeypatch, suite, "--baseline", str(base), "--update-baseline",
            **{"raise": [a], "wrong_dtype": [b]})
    assert r.ret == 1  # recording does not hide failures
    doc = json.loads(base.read_text())
    assert doc["format"] == "opconform-baseline/1" and doc["backend"]["name"] == "misbehaving"
    assert doc["verdicts"][f"{a}[0]"] == "error" and doc["verdicts"][f"{b}[0]"] == "fail"
    assert sum(v == "pass" for v in doc["verdicts"].values()) == len(PICKS) - 2

    # same behaviour: known failures are xfails, the gate passes
    r = run(pytester, monkeypatch, suite, "--baseline", str(base), **{"raise": [a], "wrong_dtype": [b]})
    assert r.ret == 0
    r.assert_outcomes(passed=len(PICKS) - 2, xfailed=2)
    r.stdout.fnmatch_lines(["*opconform gate: 0 regression(s)*0 item(s) better*"])

    # a new failure is a regression; a fixed one is listed as better
    r = run(pytester, monkeypatch, suite, "--baseline", str(base), **{"wrong_dtype": [b, c]})
    assert r.ret == 1
    r.assert_outcomes(passed=len(PICKS) - 2, xfailed=1, failed=1)
    r.stdout.fnmatch_lines(["*regression: fail, baseline pass*", f"*REGRESSION {c}[[]0[]] (baseline: pass)*",
                            f"*better*{a}[[]0[]]: pass (baseline: error)*"])

    # worse than a known failure (fail -> error) is a regression too
    r = run(pytester, monkeypatch, suite, "--baseline", str(base), **{"raise": [a, b]})
    assert r.ret == 1
    r.stdout.fnmatch_lines([f"*REGRESSION {b}[[]0[]] (baseline: fail)*"])


def test_a_failing_case_the_baseline_does_not_know_is_a_regression(pytester, monkeypatch, suite):
    base = pytester.path / "baseline.json"
    assert run(pytester, monkeypatch, suite, "--baseline", str(base), "--update-baseline").ret == 0
    doc = json.loads(base.read_text())
    del doc["verdicts"][f"{PICKS[5]}[0]"]
    base.write_text(json.dumps(doc))
    r = run(pytester, monkeypatch, suite, "--baseline", str(base), **{"raise": [PICKS[5]]})
    assert r.ret == 1
    r.stdout.fnmatch_lines([f"*REGRESSION {PICKS[5]}[[]0[]] (baseline: new)*"])


def test_shards_run_every_case_exactly_once(pytester, monkeypatch, suite):
    seen = []
    for i in (1, 2, 3):
        report = pytester.path / f"r{i}.json"
        r = run(pytester, monkeypatch, suite, "--shard", f"{i}/3", "--report", str(report))
        assert r.ret == 0
        seen += [rec["case"] for rec in json.loads(report.read_text())["records"]]
    assert sorted(seen) == sorted(PICKS)
    assert all(shard_of(name, 3) == shard_of(name, 3) for name in PICKS)


def test_shard_is_a_stable_hash_of_the_case_name():
    # the documented rule, computed independently: sha256 of the name, first 8 bytes big-endian, mod N, 1-based
    for name in PICKS:
        want = int(hashlib.sha256(name.encode()).hexdigest()[:16], 16) % 7 + 1
        assert shard_of(name, 7) == want
    sizes = [sum(shard_of(p.name, 4) == i for p in (SUITE / "node").iterdir()) for i in (1, 2, 3, 4)]
    assert min(sizes) > 0.2 * sum(sizes)  # roughly even


def test_updating_a_baseline_from_one_shard_keeps_the_others(pytester, monkeypatch, suite):
    base = pytester.path / "baseline.json"
    assert run(pytester, monkeypatch, suite, "--baseline", str(base), "--update-baseline").ret == 0
    full = json.loads(base.read_text())["verdicts"]
    victim = next(n for n in PICKS if shard_of(n, 2) == 1)
    run(pytester, monkeypatch, suite, "--baseline", str(base), "--update-baseline", "--shard", "1/2",
        **{"raise": [victim]})
    after = json.loads(base.read_text())["verdicts"]
    assert after.keys() == full.keys()
    assert after[f"{victim}[0]"] == "error"
    assert {k: v for k, v in after.items() if k != f"{victim}[0]"} == {k: v for k, v in full.items() if k != f"{victim}[0]"}


@pytest.mark.parametrize("args, message", [
    (["--update-baseline"], "--update-baseline needs --baseline PATH"),
    (["--baseline", "nope.json"], "no such baseline file (create it with --update-baseline)"),
    (["--shard", "3/2"], "need 1 <= I <= N"),
    (["--shard", "x"], "expected I/N"),
])
def test_gate_usage_errors(pytester, suite, args, message):
    r = pytester.runpytest(str(suite), "--backend", "opconform", *args)
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    r.stderr.fnmatch_lines([f"*{message}*"])


def test_corrupt_baseline_is_a_usage_error(pytester, suite):
    (pytester.path / "bad.json").write_text('{"format": "something-else"}')
    r = pytester.runpytest(str(suite), "--backend", "opconform", "--baseline", str(pytester.path / "bad.json"))
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    r.stderr.fnmatch_lines(["*not a baseline file*"])


def test_parse_shard():
    assert parse_shard("2/4") == (2, 4)
