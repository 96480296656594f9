"""The CI gate: baselines (regressions fail, known failures do not, improvements are listed), stable
shards that together run every case once, and their usage errors."""

from __future__ import annotations

import hashlib
import importlib
import json
import multiprocessing
import os
from pathlib import Path

import pytest
from conftest import copied_node_cases, copied_suite

from runners.gate import (RANK, GateError, baseline_verdict, check_baseline_backend, check_baseline_writable,
                          check_output_paths, is_better, is_worse, no_verdict_reason, parse_shard, read_baseline,
                          shard_of, write_baseline)
from runners.results import write_results

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
    return copied_node_cases(pytester, monkeypatch, PICKS)


def verdicts_of(baseline: Path) -> dict[str, str]:
    return {k: e["verdict"] for k, e in read_baseline(baseline)["items"].items()}


def run(pytester, monkeypatch, suite, *args, **misbehave):
    """pytest on the suite, the fixture backend in its worker (--isolation none is refused with --baseline)."""
    for what in ("RAISE", "WRONG_DTYPE", "SEGFAULT"):
        monkeypatch.setenv(f"OPCONFORM_TEST_{what}", ",".join(misbehave.get(what.lower(), [])))
    return pytester.runpytest(str(suite), "--backend", FIXTURE, "-p", "no:cacheprovider", *args)


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
    assert doc["format"] == "opconform-baseline/2" and doc["backend"]["name"] == "misbehaving"
    verdicts = verdicts_of(base)
    assert verdicts[f"{a}[0]"] == "error" and verdicts[f"{b}[0]"] == "fail"
    assert sum(v == "pass" for v in verdicts.values()) == len(PICKS) - 2

    # same behaviour: known failures are xfails, the gate passes
    r = run(pytester, monkeypatch, suite, "--baseline", str(base), **{"raise": [a], "wrong_dtype": [b]})
    assert r.ret == 0
    r.assert_outcomes(passed=len(PICKS) - 2, xfailed=2)
    r.stdout.fnmatch_lines(["*opconform gate: 0 regression(s)*0 item(s) better*"])

    # a new failure is a regression; a fixed one is listed as better
    r = run(pytester, monkeypatch, suite, "--baseline", str(base), **{"wrong_dtype": [b, c]})
    assert r.ret == 1
    r.assert_outcomes(passed=len(PICKS) - 2, xfailed=1, failed=1)
    r.stdout.fnmatch_lines(["*regression: fail, baseline pass*", f"*REGRESSION {c}[[]0[]] (fail, baseline: pass)*",
                            f"*better*{a}[[]0[]]: pass (baseline: error)*"])

    # worse than a known failure (fail -> error) is a regression too
    r = run(pytester, monkeypatch, suite, "--baseline", str(base), **{"raise": [a, b]})
    assert r.ret == 1
    r.stdout.fnmatch_lines([f"*REGRESSION {b}[[]0[]] (error, baseline: fail)*"])


def test_a_failing_case_the_baseline_does_not_know_is_a_regression(pytester, monkeypatch, suite):
    base = pytester.path / "baseline.json"
    assert run(pytester, monkeypatch, suite, "--baseline", str(base), "--update-baseline").ret == 0
    doc = json.loads(base.read_text())
    del doc["items"][f"{PICKS[5]}[0]"]
    base.write_text(json.dumps(doc))
    r = run(pytester, monkeypatch, suite, "--baseline", str(base), **{"raise": [PICKS[5]]})
    assert r.ret == 1
    r.stdout.fnmatch_lines([f"*REGRESSION {PICKS[5]}[[]0[]] (error, baseline: new)*"])


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
    full = verdicts_of(base)
    victim = next(n for n in PICKS if shard_of(n, 2) == 1)
    run(pytester, monkeypatch, suite, "--baseline", str(base), "--update-baseline", "--shard", "1/2",
        **{"raise": [victim]})
    after = verdicts_of(base)
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


# ---- baselines: format, content, settings ---------------------------------------------------------

BACKEND = {"name": "b", "version": "1.0", "settings": {"device": "CPU"}}


def item(case, verdict, content="h1", dataset=0):
    return {"case": case, "dataset": dataset, "verdict": verdict, "content": content}


def test_baseline_records_verdict_and_content_one_item_a_line(tmp_path):
    base = tmp_path / "b.json"
    write_baseline(base, [item("x", "fail"), item("x", "pass", dataset=1), item("y", "skipped")], BACKEND)
    lines = base.read_text().splitlines()
    assert '  "x[0]": {"content": "h1", "verdict": "fail"},' in lines
    assert '  "x[1]": {"content": "h1", "verdict": "pass"}' in lines
    assert read_baseline(base)["backend"] == BACKEND
    assert verdicts_of(base) == {"x[0]": "fail", "x[1]": "pass"}  # skipped: not judged
    assert json.loads(base.read_text())["format"] == "opconform-baseline/2"


def test_a_changed_case_is_judged_as_new(tmp_path):
    base = tmp_path / "b.json"
    write_baseline(base, [item("x", "fail", content="old")], BACKEND)
    doc = read_baseline(base)
    assert baseline_verdict(doc, "x[0]", "old") == "fail"
    assert baseline_verdict(doc, "x[0]", "new") is None and no_verdict_reason(doc, "x[0]") == "changed"
    assert is_worse("fail", baseline_verdict(doc, "x[0]", "new"))  # its failure is not let through
    assert baseline_verdict(doc, "x[0]", None) == "fail"  # no content to compare (no case.json): as recorded
    assert baseline_verdict(doc, "z[0]", "old") is None and no_verdict_reason(doc, "z[0]") == "new"


def test_format_1_baselines_are_read_and_compared_as_before(tmp_path):
    base = tmp_path / "b.json"
    base.write_text(json.dumps({"format": "opconform-baseline/1", "backend": BACKEND, "verdicts": {"x[0]": "fail"}}))
    doc = read_baseline(base)
    assert doc["items"] == {"x[0]": {"verdict": "fail", "content": None, "family": None, "inputs": None}}
    assert baseline_verdict(doc, "x[0]", "anything") == "fail"
    write_baseline(base, [item("y", "pass")], BACKEND)  # an update rewrites it as format 2, keeping x
    none = {"family": None, "inputs": None}
    assert read_baseline(base)["items"] == {"x[0]": {"verdict": "fail", "content": None, **none},
                                            "y[0]": {"verdict": "pass", "content": "h1", **none}}


@pytest.mark.parametrize("doc", [
    {"format": "opconform-baseline/2", "items": {"x[0]": "fail"}},
    {"format": "opconform-baseline/2", "items": {"x[0]": {"content": "h"}}},
    {"format": "opconform-baseline/2", "items": []},
    {"format": "opconform-baseline/1", "verdicts": {"x[0]": 3}},
])
def test_malformed_baselines_are_one_line_errors(tmp_path, doc):
    base = tmp_path / "b.json"
    base.write_text(json.dumps(doc))
    with pytest.raises(GateError, match="not a baseline file"):
        read_baseline(base)


def test_a_baseline_keeps_backends_and_settings_apart(tmp_path):
    base = tmp_path / "b.json"
    write_baseline(base, [item("x", "pass")], BACKEND)
    doc = read_baseline(base)
    check_baseline_backend(doc, dict(BACKEND, version="2.0"), base)  # a new version: what a gate compares
    with pytest.raises(GateError, match=r"recorded for backend b, this run is c \(keep one baseline"):
        check_baseline_backend(doc, dict(BACKEND, name="c"), base)
    with pytest.raises(GateError, match="recorded with settings device=CPU, this run has device=GPU"):
        check_baseline_backend(doc, dict(BACKEND, settings={"device": "GPU"}), base)
    with pytest.raises(GateError, match="recorded with settings opt unset, this run has opt=1"):
        check_baseline_backend(doc, dict(BACKEND, settings={"device": "CPU", "opt": 1}), base)
    # an update from other settings is refused too, and leaves the file as it was
    before = base.read_bytes()
    with pytest.raises(GateError, match="recorded with settings"):
        write_baseline(base, [item("x", "fail")], dict(BACKEND, settings={"device": "GPU"}))
    assert base.read_bytes() == before


def test_an_update_merges_into_what_the_file_holds_when_written(tmp_path):
    # this run found only x at its start; another shard wrote y since: y is kept
    base = tmp_path / "b.json"
    write_baseline(base, [item("x", "pass")], BACKEND)
    write_baseline(base, [item("y", "fail")], BACKEND)
    write_baseline(base, [item("x", "error")], BACKEND)
    assert verdicts_of(base) == {"x[0]": "error", "y[0]": "fail"}


def _update_in_turn(base: str, worker: int, n: int, barrier) -> None:
    barrier.wait()
    for i in range(n):  # one write per item: as many read-modify-write cycles as possible
        write_baseline(base, [item(f"w{worker}_{i}", "fail" if i % 2 else "pass")], BACKEND)


def test_concurrent_updates_keep_every_verdict(tmp_path):
    base = tmp_path / "b.json"
    workers, n = 4, 25
    ctx = multiprocessing.get_context("fork")
    for _ in range(2):
        base.unlink(missing_ok=True)
        barrier = ctx.Barrier(workers)
        procs = [ctx.Process(target=_update_in_turn, args=(str(base), w, n, barrier)) for w in range(workers)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        assert all(p.exitcode == 0 for p in procs)
        verdicts = verdicts_of(base)
        assert len(verdicts) == workers * n
        assert all(verdicts[f"w{w}_{i}[0]"] == ("fail" if i % 2 else "pass") for w in range(workers) for i in range(n))


# ---- output paths, checked before anything runs ---------------------------------------------------

def test_report_must_not_replace_the_baseline(tmp_path):
    base, report = tmp_path / "b.json", tmp_path / "r.json"
    write_baseline(base, [item("x", "pass")], BACKEND)
    with pytest.raises(GateError, match=r"--report .*b.json: is the --baseline file"):
        check_output_paths(base, base)
    with pytest.raises(GateError, match="is the --baseline file"):
        check_output_paths(tmp_path / "sub" / ".." / "b.json", base)  # before the directory exists
    os.link(base, tmp_path / "hard.json")
    with pytest.raises(GateError, match="is the --baseline file"):
        check_output_paths(tmp_path / "hard.json", base)
    # a baseline given as --report alone (no --baseline) is refused too
    with pytest.raises(GateError, match=r"exists and is an opconform baseline file; it would be overwritten"):
        check_output_paths(base, None)
    check_output_paths(report, base)  # a new file


def test_report_overwrites_only_results_files(tmp_path):
    results, notes, other, empty = (tmp_path / n for n in ("r.json", "notes.txt", "other.json", "empty.json"))
    write_results(results, [], {"backend": {"name": "b"}})
    notes.write_text("my notes\n")
    other.write_text('{"format": "something"}')
    empty.touch()
    check_output_paths(results, None)  # the previous run's results: replaced
    check_output_paths(empty, None)  # report=$(mktemp)
    for path in (notes, other):
        with pytest.raises(GateError, match=f"--report {path}: exists and is not a results file"):
            check_output_paths(path, None)
    with pytest.raises(GateError, match="is a directory"):
        check_output_paths(tmp_path, None)
    manifest = HERE.parent / "cases" / "manifest.json"
    with pytest.raises(GateError, match="manifest.json: exists and is not a results file"):
        check_output_paths(manifest, None)


def test_a_large_results_file_is_recognised_from_its_head(tmp_path, monkeypatch):
    from runners import results as results_module

    monkeypatch.setattr(results_module, "HEAD", 256)
    big = tmp_path / "big.json"
    write_results(big, [item(f"case_{i}", "pass") for i in range(100)], {"backend": {"name": "b"}})
    assert big.stat().st_size > 256
    assert results_module.document_format(big) == "opconform-results/1"
    check_output_paths(big, None)


def test_baseline_writability_is_checked_at_the_start(tmp_path):
    check_baseline_writable(tmp_path / "new" / "b.json")  # its directory is made
    assert (tmp_path / "new").is_dir()
    with pytest.raises(GateError, match="is a directory"):
        check_baseline_writable(tmp_path)
    (tmp_path / "file").write_text("")
    with pytest.raises(GateError, match=r"--baseline .*file/b.json: .*file is not a directory"):
        check_baseline_writable(tmp_path / "file" / "b.json")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_a_read_only_baseline_is_refused_at_the_start(tmp_path):
    base = tmp_path / "b.json"
    write_baseline(base, [], BACKEND)
    base.chmod(0o444)
    with pytest.raises(GateError, match="is read-only"):
        check_baseline_writable(base)


@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs Linux sysfs (a directory nobody may write)")
def test_a_baseline_in_a_directory_nobody_may_write_is_refused_at_the_start():
    with pytest.raises(GateError, match=r"--baseline /sys/b.json: cannot be written \(Permission denied"):
        check_baseline_writable("/sys/b.json")


# ---- shards made apart, reported together -------------------------------------------------------------

@pytest.fixture
def small_suite(pytester, monkeypatch) -> Path:
    """A suite of PICKS (a manifest listing them, the cases under node/)."""
    return copied_suite(pytester, monkeypatch, PICKS)


def test_shards_run_apart_make_one_report_column(pytester, monkeypatch, small_suite):
    from cli_in_process import opconform

    for i in (1, 2, 3):
        r = run(pytester, monkeypatch, small_suite, "--shard", f"{i}/3", "--report", str(pytester.path / f"r{i}.json"))
        assert r.ret == 0
    monkeypatch.chdir(pytester.path)
    partial = opconform("report", "r1.json", "r3.json", "-o", "partial.md")  # in this process
    assert partial.returncode == 0, partial.stderr
    b = json.loads((pytester.path / "r1.json").read_text())["backend"]
    label = f"{b['name']} {b['version']}"
    # the missing shard is named; its cases are not listed again as "not judged": each results file records
    # its selection (the shard), so the report knows they were left to the missing shard
    assert partial.stderr.splitlines() == [
        f"opconform report: warning: {label}: shard(s) 2 of 3 missing (merged 2: r1.json, r3.json)"]
    whole = opconform("report", "r1.json", "r2.json", "r3.json", "-o", "whole.md")
    assert whole.returncode == 0 and whole.stderr == "", whole.stderr
    assert f"{label}: 3 of 3 shards" in whole.stdout
    assert f"| {label} | strict | 3 of 3 | {len(PICKS)} |" in (pytester.path / "whole.md").read_text()


# ---- the gate's checks through the plugin: at its start, and in its verdicts ---------------------------

def test_report_onto_the_baseline_is_refused_before_running(pytester, monkeypatch, suite):
    base = pytester.path / "b.json"
    assert run(pytester, monkeypatch, suite, "--baseline", str(base), "--update-baseline").ret == 0
    before = base.read_bytes()
    for args in (["--baseline", str(base), "--report", str(base)], ["--report", str(base)]):
        r = run(pytester, monkeypatch, suite, *args)
        assert r.ret == pytest.ExitCode.USAGE_ERROR
        assert base.read_bytes() == before
    r = run(pytester, monkeypatch, suite, "--baseline", str(base), "--report", str(base))
    r.stderr.fnmatch_lines(["*--report*b.json: is the --baseline file*"])
    notes = pytester.path / "notes.txt"
    notes.write_text("mine\n")
    r = run(pytester, monkeypatch, suite, "--report", str(notes))
    assert r.ret == pytest.ExitCode.USAGE_ERROR and notes.read_text() == "mine\n"
    r.stderr.fnmatch_lines(["*notes.txt: exists and is not a results file*"])


def test_an_unwritable_baseline_is_refused_before_running(pytester, monkeypatch, suite):
    (pytester.path / "file").write_text("")
    report = pytester.path / "r.json"
    r = run(pytester, monkeypatch, suite, "--baseline", str(pytester.path / "file" / "b.json"), "--update-baseline",
            "--report", str(report))
    assert r.ret == pytest.ExitCode.USAGE_ERROR and not report.exists()
    r.stderr.fnmatch_lines(["*--baseline*file/b.json:*file is not a directory*"])
    assert "Traceback" not in r.stderr.str()


def test_a_baseline_of_other_settings_is_refused(pytester, monkeypatch, suite):
    base = pytester.path / "b.json"
    assert run(pytester, monkeypatch, suite, "--baseline", str(base), "--update-baseline").ret == 0
    doc = json.loads(base.read_text())
    doc["backend"]["settings"] = {"device": "GPU"}
    doc["backend"]["version"] = "0.0.1"
    base.write_text(json.dumps(doc))
    for extra in ([], ["--update-baseline"]):
        r = run(pytester, monkeypatch, suite, "--baseline", str(base), *extra)
        assert r.ret == pytest.ExitCode.USAGE_ERROR
        r.stderr.fnmatch_lines(["*recorded with settings device=GPU, this run has device unset*"])
    doc["backend"]["settings"] = {}  # only the version differs: the gate's normal use
    base.write_text(json.dumps(doc))
    assert run(pytester, monkeypatch, suite, "--baseline", str(base)).ret == 0


def test_a_case_changed_since_the_baseline_is_judged_as_new(pytester, monkeypatch, suite):
    base = pytester.path / "b.json"
    a = PICKS[0]
    assert run(pytester, monkeypatch, suite, "--baseline", str(base), "--update-baseline",
               **{"raise": [a]}).ret == 1
    doc = json.loads(base.read_text())
    assert doc["items"][f"{a}[0]"]["content"]  # recorded
    assert run(pytester, monkeypatch, suite, "--baseline", str(base), **{"raise": [a]}).ret == 0  # known failure
    doc["items"][f"{a}[0]"]["content"] = "0" * 64  # as if the case had changed since
    base.write_text(json.dumps(doc))
    r = run(pytester, monkeypatch, suite, "--baseline", str(base), **{"raise": [a]})
    assert r.ret == 1
    r.stdout.fnmatch_lines([f"*REGRESSION {a}[[]0[]] (error, baseline: changed)*"])


def test_a_baseline_records_the_suites_it_judged_and_names_a_changed_one(pytester, monkeypatch, small_suite):
    """Issue 11 item 4: a baseline is tied to the suite run (its manifest hash), as a results file is."""
    from runners.results import suite_hash

    base = pytester.path / "b.json"
    assert run(pytester, monkeypatch, small_suite, "--baseline", str(base), "--update-baseline").ret == 0
    assert json.loads(base.read_text())["suites"] == {"s": suite_hash(small_suite)}
    assert read_baseline(base)["suites"] == {"s": suite_hash(small_suite)}
    r = run(pytester, monkeypatch, small_suite, "--baseline", str(base))
    assert r.ret == 0 and "suite changed" not in r.stdout.str()
    manifest = small_suite / "manifest.json"  # the suite regenerated since (here: one more key in its manifest)
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "generator_version": "next"}))
    r = run(pytester, monkeypatch, small_suite, "--baseline", str(base))
    assert r.ret == 0  # its cases did not change: their verdicts are compared as before
    r.stdout.fnmatch_lines([f"*suite changed s: baseline recorded on manifest {json.loads(base.read_text())['suites']['s'][:12]}"
                            f", this run has {suite_hash(small_suite)[:12]}*"])
    assert run(pytester, monkeypatch, small_suite, "--baseline", str(base), "--update-baseline").ret == 0
    assert read_baseline(base)["suites"] == {"s": suite_hash(small_suite)}  # an update records the new one


def test_a_baseline_without_suites_is_read(tmp_path):
    base = tmp_path / "b.json"
    base.write_text(json.dumps({"format": "opconform-baseline/2", "backend": {"name": "x"},
                                "items": {"a[0]": {"verdict": "fail", "content": None}}}))
    assert read_baseline(base)["suites"] == {}
    write_baseline(base, [], {"name": "x"}, {"cases": "f" * 64})
    assert read_baseline(base)["suites"] == {"cases": "f" * 64}


def test_a_key_written_twice_is_refused_naming_both_lines(tmp_path):
    """An item's "pass" line left in place and a second line for the same key added ("crash"): JSON readers keep the
    last one, which would make a real regression a known failure. Refused, naming both lines."""
    base = tmp_path / "b.json"
    write_baseline(base, [item("x", "pass"), item("y", "fail")], BACKEND)
    lines = base.read_text().splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith('  "x[0]"'))
    lines.insert(at + 1, '  "x[0]": {"content": "h1", "verdict": "crash"},')
    base.write_text("\n".join(lines) + "\n")
    with pytest.raises(GateError, match=rf'lines {at + 1} and {at + 2}: key "x\[0\]" is written twice'):
        read_baseline(base)
    doc = json.loads(base.read_text())  # what a plain JSON reader makes of it: the later entry wins
    assert doc["items"]["x[0]"]["verdict"] == "crash"
