"""Hostile baselines, results files and report paths (issue 19, items 4a, 4b, 7, 8): no file switches the gate
off or makes a report lie, and none ends in a traceback or a hang.

- a baseline with a verdict the gate does not rank ("FAIL", "crashed"), a field missing or of the wrong type,
  or JSON nested 100,000 deep is a usage error (exit 4) in one line naming the line of the file;
- a results file's malformed records are left out of `opconform report` one by one, each named in one
  warning line (exit status 1), and the report is made of the rest;
- what the report shows (Markdown, HTML, the lines it prints) has control and bidi characters escaped, and
  its Markdown renders no link, image or autolink from data (checked with GitHub's own cmark-gfm);
- `-o` and `--report` never write through a symbolic link, never block on a FIFO, and overwrite only a
  file of their own kind (a report opconform wrote, a results file).
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import io
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import copied_node_cases

from runners import cli
from runners.escape import has_unsafe
from runners.gate import GateError, check_output_paths, is_better, is_worse, read_baseline, write_baseline
from runners.report import MARK, load, render
from runners.results import document_format, suite_hash, write_results

pytest_plugins = ["pytester"]
importlib.import_module("runners.backends.opconform")  # see tests/test_gate.py: onnx loads once

HERE = Path(__file__).resolve().parent
SUITE = HERE.parent / "cases"
PICKS = sorted(p.name for p in (SUITE / "node").iterdir())[:3]
DEEP = 100_000
BACKEND = {"name": "b", "version": "1.0", "settings": {"device": "CPU"}}


class Blocked(BaseException):
    """Raised by deadline(): no `except OSError` / `except Exception` in the code under test catches it."""


@contextlib.contextmanager
def deadline(seconds: int = 20):
    """Fail (instead of hanging the test run) when the block blocks, e.g. on opening a FIFO."""
    def expired(*_):
        raise Blocked(f"blocked for {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def deep(n: int = DEEP) -> str:
    return "[" * n + "]" * n


# ---- 4a: baselines that would let a regression through --------------------------------------------------

def baseline(tmp_path: Path) -> Path:
    path = tmp_path / "b.json"
    write_baseline(path, [{"case": c, "dataset": 0, "verdict": v, "content": "h"}
                          for c, v in (("test_a", "pass"), ("test_b", "error"), ("test_c", "fail"))], BACKEND)
    return path


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


@pytest.mark.parametrize("verdict", ["FAIL", "crashed", "Pass", "xfailed", "skipped", "", 2, None, True, ["fail"]])
def test_a_baseline_verdict_the_gate_does_not_rank_is_refused_naming_its_line(tmp_path, verdict):
    path = baseline(tmp_path)
    doc = json.loads(path.read_text())
    doc["items"]["test_b[0]"]["verdict"] = verdict
    path.write_text(json.dumps(doc, indent=1))
    with pytest.raises(GateError) as info:
        read_baseline(path)
    text = str(info.value)
    assert text.startswith(f"--baseline {path}: not a baseline file (line {line_of(path, 'test_b[0]')}: ")
    assert '"test_b[0]"' in text and "\n" not in text


@pytest.mark.parametrize("edit, needle", [
    (lambda d: d["items"]["test_b[0]"].pop("verdict"), 'item "test_b[0]" has no "verdict"'),
    (lambda d: d["items"]["test_b[0]"].pop("content"), 'item "test_b[0]" has no "content"'),
    (lambda d: d["items"]["test_b[0]"].update(content=5), 'item "test_b[0]": its content is not a string'),
    (lambda d: d["items"].update({"test_b[0]": "error"}), 'item "test_b[0]" is not an object'),
    (lambda d: d["items"].update({"test_b": {"content": "h", "verdict": "pass"}}), 'item "test_b" is not named'),
    (lambda d: d.pop("backend"), '"backend" is not an object'),
    (lambda d: d["backend"].update(name=3), '"backend" is not an object with a "name"'),
    (lambda d: d["backend"].update(settings=["x"]), 'backend "settings" is not an object'),
    (lambda d: d.update(suites=["cases"]), '"suites" is not an object'),
    (lambda d: d.update(suites={"cases": 1}), '"suites" is not an object'),
    (lambda d: d.pop("items"), 'no "items" object'),
])
def test_a_baseline_field_missing_or_of_the_wrong_type_is_refused(tmp_path, edit, needle):
    path = baseline(tmp_path)
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc, indent=1))
    with pytest.raises(GateError, match="not a baseline file") as info:
        read_baseline(path)
    assert needle in str(info.value)


def test_a_format_1_baseline_with_an_unknown_verdict_is_refused(tmp_path):
    path = tmp_path / "b.json"
    path.write_text('{"backend": {"name": "b"}, "format": "opconform-baseline/1",\n'
                    ' "verdicts": {\n  "test_a[0]": "pass",\n  "test_b[0]": "crashed"\n }}\n')
    with pytest.raises(GateError, match=r'line 4: item "test_b\[0\]": verdict "crashed" is not one of pass'):
        read_baseline(path)


def test_a_baseline_nested_deep_is_one_line(tmp_path):
    path = tmp_path / "b.json"
    path.write_text('{"format": "opconform-baseline/2", "backend": {"name": "b"}, "items": {"x[0]": '
                    + deep() + "}}")
    with pytest.raises(GateError, match=r"not a baseline file \(nested 100002 levels deep"):
        read_baseline(path)


def test_a_baseline_that_is_a_fifo_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "b.json"
    os.mkfifo(fifo)
    with deadline(), pytest.raises(GateError, match="not a baseline file .*is not a regular file"):
        read_baseline(fifo)


def test_a_baseline_verdict_the_gate_does_not_rank_excuses_nothing():
    """Were one to reach the judging (read_baseline refuses it first), an unknown verdict ranked as crash."""
    assert is_worse("error", "crashed") and is_worse("crash", "FAIL") and is_worse("fail", "")
    assert not is_better("pass", "crashed") and not is_worse("pass", "crashed")


@pytest.fixture
def suite(pytester, monkeypatch) -> Path:
    return copied_node_cases(pytester, monkeypatch, PICKS)


def test_a_regression_against_a_baseline_saying_FAIL_is_a_usage_error(pytester, monkeypatch, suite):
    """The issue's case: a real regression (error, where the baseline recorded "FAIL") passed with exit 0."""
    monkeypatch.setenv("OPCONFORM_TEST_RAISE", PICKS[0])
    args = [str(suite), "--backend", "fixture_backends:Misbehaving", "-p", "no:cacheprovider"]
    base = pytester.path / "b.json"
    assert pytester.runpytest(*args, "--baseline", str(base), "--update-baseline").ret == 1
    text = base.read_text()
    base.write_text(text.replace('"verdict": "error"', '"verdict": "FAIL"'))
    r = pytester.runpytest(*args, "--baseline", str(base))
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in r.stderr.lines if "baseline" in line]
    assert len(lines) == 1 and f'line {line_of(base, PICKS[0])}: item "{PICKS[0]}[0]": verdict "FAIL"' in lines[0]
    base.write_text('{"format": "opconform-baseline/2", "backend": {"name": "misbehaving"}, "items": '
                    + deep() + "}")
    r = pytester.runpytest(*args, "--baseline", str(base))
    assert r.ret == pytest.ExitCode.USAGE_ERROR and "INTERNALERROR" not in r.stdout.str() + r.stderr.str()
    r.stderr.fnmatch_lines(["*--baseline*not a baseline file (nested 100001 levels deep*"])


# ---- --report's target: never through a link, never blocking, never a file of another kind -------------

def test_report_target_deep_json_fifo_and_symlink_are_refused(tmp_path):
    deep_file = tmp_path / "deep.json"
    deep_file.write_text(deep())
    with pytest.raises(GateError, match="exists and is not a results file"):
        check_output_paths(deep_file, None)
    assert document_format(deep_file) is None
    fifo = tmp_path / "r.json"
    os.mkfifo(fifo)
    with deadline(), pytest.raises(GateError, match=r"--report .*r\.json: is not a regular file"):
        check_output_paths(fifo, None)
    with deadline():
        assert document_format(fifo) is None
    results = tmp_path / "old.json"
    write_results(results, [], {"backend": {"name": "b"}})
    link = tmp_path / "link.json"
    link.symlink_to(results)
    with pytest.raises(GateError, match="link.json: is a symbolic link"):
        check_output_paths(link, None)


def test_a_suite_whose_manifest_is_a_fifo_has_no_hash_and_does_not_block(tmp_path):
    os.mkfifo(tmp_path / "manifest.json")
    with deadline():
        assert suite_hash(tmp_path) is None


# ---- 8: records the report cannot trust --------------------------------------------------------------

def good(case: str, verdict: str = "fail", **extra) -> dict:
    r = {"case": case, "dataset": 0, "kind": "node", "verdict": verdict, "family": "cast", "op": "Cast",
         "params": {"from": "float", "to": "int8"}, "message": f"{case}: wrong", "tiers_met": [],
         "diagnosis": ["cast.round_half_away"], "error": None, "outputs": None, "mismatches": [],
         "outcome": "failed", "content": "h"}
    r.update(extra)
    return r


def probe_record(case: str, bits=("0x01", "0x02"), **extra) -> dict:
    fields = {"kind": "probe", "diagnosis": None, "tiers_met": None, "message": "",
              "outputs": [{"name": "y", "bits": list(bits), "values": [int(b, 16) for b in bits]}], **extra}
    return good(case, "probe", **fields)


def results_text(records: list[dict], header: dict | None = None) -> str:
    return json.dumps({"format": "opconform-results/1", "backend": BACKEND, "tier": "strict", "created": "x",
                       **(header or {}), "records": records}, indent=1)


def report(*argv: str) -> tuple[int, str, str]:
    """opconform report in this process: (exit status, stdout, stderr); any exception escapes (a traceback)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(["report", *argv])
    return status, out.getvalue(), err.getvalue()


WRONG = [None, True, 0, -1, 2.5, "", "x", [], ["x"], [1], [[1]], {}, {"a": 1}, {"bits": [[1]]}, [{"bits": [[1]]}],
         [None], "\x1b[2J"]
FIELDS = ["case", "dataset", "kind", "verdict", "message", "family", "op", "params", "tiers_met", "diagnosis",
          "error", "outputs", "content", "outcome", "nodeid"]


MISSING = object()


def variants():
    for base in ("fail", "probe"):
        for name in FIELDS:
            for value in (MISSING, *WRONG):
                yield base, name, value


def bad_record(base: str, name: str, value):
    r = good("test_bad") if base == "fail" else probe_record("test_bad")
    if value is MISSING:
        r.pop(name, None)
    else:
        r[name] = copy.deepcopy(value)
    return r


def test_every_field_of_every_wrong_type_is_kept_or_skipped_in_one_line_never_a_traceback(tmp_path):
    """Fuzz: for each field a report reads and each value of a wrong (or right) type, the report is made
    from the other records, the record is either shown or named in exactly one warning line, and the exit
    status says which (0 kept, 1 left out)."""
    others = [good("test_ok_fail"), good("test_ok_pass", "pass", tiers_met=["strict", "tolerant"], diagnosis=None),
              probe_record("test_ok_probe")]
    other_file = tmp_path / "other.json"
    other_file.write_text(results_text([good("test_ok_fail", "pass"), probe_record("test_ok_probe", ["0x03"])],
                                       {"backend": {"name": "other", "version": "2"}}))
    left_out = 0
    for n, (base, name, value) in enumerate(variants()):
        path = tmp_path / f"v{n}.json"
        path.write_text(results_text([others[0], bad_record(base, name, value), *others[1:]]))
        for out in (tmp_path / f"v{n}.md", tmp_path / f"v{n}.html"):
            status, stdout, stderr = report(str(path), str(other_file), "-o", str(out))
            warnings = stderr.splitlines()
            assert status in (0, 1), (base, name, value, stderr)
            assert len(warnings) == status, (base, name, value, stderr)  # one line per record left out
            if status:
                assert re.fullmatch(rf"opconform report: warning: {re.escape(str(path))}: record 1( \(.*\))?: .*, "
                                    "skipped", warnings[0]), warnings
            text = out.read_text()
            assert not has_unsafe(text.replace("\n", ""))
            for kept in ("test_ok_fail", "test_ok_probe"):
                assert kept in text.replace("\\_", "_"), (base, name, value)
        left_out += status
    assert left_out > 100  # most wrong types are refused (the assertions above hold either way)


@pytest.mark.parametrize("field, value", [
    ("diagnosis", "cast.round_half_away"), ("diagnosis", [1]), ("family", ["cast"]), ("family", 3),
    ("error", ["RuntimeError"]), ("outputs", {"bits": []}), ("outputs", [{"bits": [[1]]}]), ("outputs", ["y"]),
    ("tiers_met", "strict"), ("tiers_met", [1]), ("verdict", "FAIL"), ("verdict", "crashed"), ("verdict", 3),
    ("dataset", True), ("dataset", "0"), ("case", ["x"]), ("message", ["a"]), ("params", [1]), ("nodeid", 1),
])
def test_the_issues_malformed_records_are_left_out_in_one_line(tmp_path, field, value):
    """The 7 of 17 malformed files that ended in a traceback (and their like): one line, the rest reported."""
    r = probe_record("test_bad") if field in ("error", "outputs") else good("test_bad")
    r[field] = value
    path = tmp_path / "r.json"
    path.write_text(results_text([good("test_ok"), r]))
    status, stdout, stderr = report(str(path))
    assert status == 1 and len(stderr.splitlines()) == 1 and "record 1" in stderr and "skipped" in stderr, stderr
    assert "test\\_ok" in stdout and "test\\_bad" not in stdout.split("## Notes")[0]
    assert "record 1" in stdout  # noted in the report too: a reader of the file sees what it leaves out


def test_a_results_file_that_is_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "r.json"
    os.mkfifo(fifo)
    r = subprocess.run([sys.executable, "-m", "runners.cli", "report", str(fifo)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and r.stderr == f"opconform report: {fifo}: not a results file (is not a regular " \
                                             "file)\n"


def test_a_record_nested_100000_deep_is_left_out_and_the_rest_reported(tmp_path):
    path = tmp_path / "r.json"
    text = results_text([good("test_ok"), good("test_deep", params={"from": "@DEEP@"}), good("test_ok2")])
    path.write_text(text.replace('"@DEEP@"', deep()))
    status, stdout, stderr = report(str(path))
    assert status == 1 and stderr.splitlines() == [
        f"opconform report: warning: {path}: record 1 (test_deep[0]): nested more than 64 levels deep, skipped"]
    assert "test\\_ok2" in stdout and "test\\_ok" in stdout
    path.write_text(results_text([good("test_ok")], {"backend": {"name": "@DEEP@"}}).replace('"@DEEP@"', deep()))
    status, stdout, stderr = report(str(path))
    assert status == 2 and stderr == f"opconform report: {path}: not a results file (its header is nested more " \
                                     f"than 64 levels deep)\n" and stdout == ""
    path.write_text(deep())
    status, _, stderr = report(str(path))
    assert status == 2 and len(stderr.splitlines()) == 1 and "not a results file" in stderr


HEADERS = [{"backend": []}, {"backend": {"name": ["x"], "version": 2, "settings": [1]}}, {"tier": ["strict"]},
           {"created": 5}, {"shard": [1, 2]}, {"suites": []}, {"suites": {"cases": 5}}, {"backend": {"name": None}},
           {"selection": "cast"}, {"selection": [1]}, {"selection": {"cases": 3, "family": "cast", "k": [1], "shard": 2}},
           {"selection": {"cases": [1, None, "test_1"], "paths": [{"a": 1}], "m": {"x": 1}}}]


def test_header_fields_of_the_wrong_type_never_end_in_a_traceback(tmp_path):
    """Two shards of one run, one of them with a header field of the wrong type (a "created" that is a number
    ended in a TypeError merging them): the report is made (exit 0), or refused in one line (exit 2)."""
    for n, header in enumerate(HEADERS):
        paths = []
        for i, created in ((1, "2026-01-01"), (2, header.get("created", "2026-01-02"))):
            path = tmp_path / f"h{n}-s{i}.json"
            path.write_text(results_text([good(f"test_{i}")], {**header, "created": created, "shard": header.get(
                "shard", f"{i}/2")}))
            paths.append(str(path))
        for out in (tmp_path / f"h{n}.md", tmp_path / f"h{n}.html"):
            status, _, stderr = report(*paths, "-o", str(out))
            assert status in (0, 2) and len(stderr.splitlines()) <= 1, (header, stderr)
            assert status == 2 or out.exists()


def test_a_suite_manifest_naming_cases_with_other_types_is_no_traceback(tmp_path):
    suite_dir = tmp_path / "suite"
    suite_dir.mkdir()
    (suite_dir / "manifest.json").write_text(json.dumps({"format": "opconform-suite/1", "cases": [
        {"name": 1}, {"name": ["x"]}, {"name": None}, {"name": "test_a"}, {"name": "test_b"}, "test_c"]}))
    path = tmp_path / "r.json"
    path.write_text(results_text([good("test_a")], {"suites": {str(suite_dir): suite_hash(suite_dir)}}))
    for extra in ([], ["--suite", str(suite_dir)]):
        status, _, stderr = report(str(path), *extra)
        assert status == 0 and stderr == f"opconform report: warning: b 1.0: 1 of 2 case(s) of {suite_dir} not " \
                                         "judged: test_b\n", stderr


# ---- 7: what the report shows is escaped -----------------------------------------------------------------

HOSTILE = ("\x1b]0;OWNED\x07\x1b[2J\x1b[32mALL TESTS PASSED\x1b[0m\rok \u202etxt.exe\x00 "
           "[click](https://evil.example/x) ![img](https://evil.example/i.png) https://evil.example "
           "www.evil.example mail@evil.example <b>bold</b> **strong** # heading")
ESCAPED = "\\x1b]0;OWNED\\x07\\x1b[2J\\x1b[32mALL TESTS PASSED\\x1b[0m\\rok \\u202etxt.exe\\x00"


@pytest.fixture
def hostile(tmp_path) -> list[Path]:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(results_text([good("test_x" + HOSTILE, message=HOSTILE + "\nsecond line", family="cast" + HOSTILE),
                               probe_record("test_p", error=HOSTILE, outputs=None)],
                              {"backend": {"name": "evil" + HOSTILE, "version": "1", "settings": {"k": HOSTILE}},
                               "shard": "1/2", "tier": HOSTILE}))
    b.write_text(results_text([probe_record("test_p", ["0x05"])], {"backend": {"name": "ok", "version": "1"}}))
    return [a, b]


def test_markdown_shows_control_characters_escaped_and_renders_no_link_or_image(hostile):
    md = render(load(hostile), "md")
    assert not has_unsafe(md.replace("\n", ""))
    plain = md.replace("\\\\", "\\")  # the text as GFM shows it, near enough for the escapes
    assert ESCAPED in plain
    prose = re.sub(r"(`+).*?\1", "", md.replace("\\`", ""))  # code spans show their text as it is
    assert "](" not in prose.replace("\\]", "") and "<b>" not in prose and "**" not in prose
    cmarkgfm = pytest.importorskip("cmarkgfm")  # GitHub's own renderer (the [test] extra)
    html = cmarkgfm.github_flavored_markdown_to_html(md)
    assert "<a " not in html and "<img" not in html and "<b>" not in html and "<strong>" not in html
    assert "<h1>" in html and html.count("<h1>") == 1 and "<h3>" not in html
    assert "ALL TESTS PASSED" in html and "\\x1b[32m" in html and "\x1b" not in html
    assert "https://evil.example/x" in html and "mail" in html  # shown as text


def test_html_shows_control_characters_escaped(hostile):
    html = render(load(hostile), "html")
    assert not has_unsafe(html.replace("\n", ""))
    assert ESCAPED.replace("&", "&amp;") in html and "<b>bold" not in html
    assert "second line" in html  # a message keeps its lines in <pre>
    assert html.count("<a ") == 0 and "<img" not in html


def test_what_opconform_report_prints_is_escaped(hostile, tmp_path):
    from cli_in_process import opconform  # in this process: what it writes to stdout and stderr

    out = tmp_path / "r.md"
    r = opconform("report", *map(str, hostile), "-o", str(out))
    assert r.returncode == 0 and "shard(s) 2 of 2 missing" in r.stderr
    assert not has_unsafe((r.stdout + r.stderr).replace("\n", "")) and "\\x1b[32mALL TESTS PASSED" in r.stderr
    r = opconform("report", *map(str, hostile))
    assert r.returncode == 0 and not has_unsafe(r.stdout.replace("\n", "")) and "ALL TESTS PASSED" in r.stdout
    bad = tmp_path / "bad\x1b[2J.json"
    bad.write_text(results_text([good("test_\x1b]0;t\x07", verdict="crashed")]))
    r = opconform("report", str(bad))
    assert r.returncode == 1 and not has_unsafe(r.stderr.replace("\n", ""))
    assert "bad\\x1b[2J.json: record 0 (test_\\x1b]0;t\\x07[0]): verdict \"crashed\"" in r.stderr


# ---- 8: -o -----------------------------------------------------------------------------------------------

@pytest.fixture
def one(tmp_path) -> str:
    path = tmp_path / "in.json"
    path.write_text(results_text([good("test_ok")]))
    return str(path)


def test_o_refuses_a_users_file_and_replaces_its_own_reports(tmp_path, one):
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n")
    status, _, stderr = report(one, "-o", str(notes))
    assert status == 2 and notes.read_text() == "# my notes\n"
    assert stderr == f"opconform report: -o {notes}: exists and is not a report opconform wrote; it would be " \
                     "overwritten (choose another path)\n"
    for name in ("r.md", "r.html"):
        out = tmp_path / name
        for _ in range(2):  # the second run replaces the first's report
            status, stdout, stderr = report(one, "-o", str(out))
            assert status == 0 and stderr == "" and f"wrote {out}" in stdout
        text = out.read_text()
        assert MARK in text.splitlines()[:2] + text.splitlines()[-1:]
        assert oct(out.stat().st_mode & 0o777) == "0o644"
    old_md = tmp_path / "old.md"  # a report from before the mark
    old_md.write_text("# opconform conformance report\n\n| backend |\n")
    assert report(one, "-o", str(old_md))[0] == 0 and MARK in old_md.read_text()
    empty = tmp_path / "empty.html"
    empty.touch()
    assert report(one, "-o", str(empty))[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temp file left


def test_o_never_writes_through_a_symlink(tmp_path, one):
    target = tmp_path / "target.md"
    assert report(one, "-o", str(target))[0] == 0  # even a report of its own
    before = target.read_text()
    link = tmp_path / "link.md"
    link.symlink_to(target)
    status, _, stderr = report(one, "-o", str(link))
    assert status == 2 and stderr == f"opconform report: -o {link}: is a symbolic link (give the path of the " \
                                     "file itself)\n"
    assert target.read_text() == before and link.is_symlink()
    dangling = tmp_path / "dangling.html"
    dangling.symlink_to(tmp_path / "nowhere.html")
    assert report(one, "-o", str(dangling))[0] == 2 and not (tmp_path / "nowhere.html").exists()


def test_o_onto_a_fifo_is_refused_at_once(tmp_path, one):
    fifo = tmp_path / "r.html"
    os.mkfifo(fifo)
    r = subprocess.run([sys.executable, "-m", "runners.cli", "report", one, "-o", str(fifo)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr == f"opconform report: -o {fifo}: is not a regular file (a FIFO, " \
                                             "device or socket)\n"


def test_o_onto_an_opconform_data_file_or_a_directory_is_refused(tmp_path, one):
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"format": "opconform-suite/1", "cases": []}))
    for path in (Path(one), manifest):
        before = path.read_bytes()
        status, _, stderr = report(one, "-o", str(path))
        assert status == 2 and "is an opconform data file, not a report" in stderr and path.read_bytes() == before
    status, _, stderr = report(one, "-o", str(tmp_path))
    assert status == 2 and stderr.endswith(": is a directory\n")


def test_a_baseline_the_report_cannot_use_is_one_line(tmp_path):
    """--baseline of a FIFO, of JSON nested deep, of a baseline whose verdicts the gate does not rank: one line,
    exit 2, at once."""
    results = tmp_path / "r.json"
    results.write_text(results_text([good("test_1")], {}))
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    unranked = tmp_path / "unranked.json"
    unranked.write_text(json.dumps({"format": "opconform-baseline/2", "backend": {"name": "b"},
                                    "items": {"test_1[0]": {"verdict": "FAIL", "content": None}}}))
    for path in (fifo, deep, unranked):
        with deadline(20):
            status, _, stderr = report(str(results), "--baseline", str(path), "-o", str(tmp_path / "r.html"))
        assert status == 2 and len(stderr.splitlines()) == 1 and "--baseline" in stderr, stderr
