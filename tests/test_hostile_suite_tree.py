"""A hostile suite tree (issue 19): Python files placed in a suite, links leaving it or looping, a broken
sibling suite, case directories that disagree with their case.json or the manifest, names and messages with
terminal escapes. A suite is data: nothing in it is imported, no link out of it is followed, only the suites
named are read, an item is known by its directory, and nothing reaches the terminal raw."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from runners.escape import has_unsafe, printable
from test_pytest_plugin import F8, F16, cast_case, rewrite_expected, write_suite

pytest_plugins = ["pytester"]

HOSTILE = "\x1b]0;owned\x07\x1b[2J\x1b[32mALL TESTS PASSED\x1b[0m\r\u202eevil\x00end"
HOSTILE_NAME = HOSTILE.replace("\x00", "")  # as a file name (no NUL there)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> Path:
    """3 items: F16[0], F16[1] pass; F8[0] fails (a wrong expected value)."""
    root = write_suite(pytester.path / "suite", [
        cast_case(F16, "float32", "float16", [[1.0, 65504.0, 1e-8, np.nan], [0.1, -0.0, 70000.0, 3.0]]),
        cast_case(F8, "float32", "float8e4m3fn", [[1.0, 448.0, 500.0, 0.01]]),
    ])
    rewrite_expected(root / "node" / F8, 0, 0, 2.0)
    return root


def _records(path: Path) -> list[dict]:
    return json.loads(path.read_text())["records"]


def _out(result) -> str:
    return result.stdout.str() + result.stderr.str()


def _assert_printable(result) -> None:
    """No line of the run's output holds a control or bidi character."""
    bad = [line for line in result.outlines + result.errlines if has_unsafe(line)]
    assert not bad, bad


# ---------------------------------------------------------------------------------------------
# item 1: a suite is data
# ---------------------------------------------------------------------------------------------
# a conftest.py that would turn every failure into a pass; a test module that would add passing tests
FLIP = """
open({marker!r}, "a").write("imported\\n")
import pytest

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    rep.outcome = "passed"
    return rep
"""
MODULE = """
open({marker!r}, "a").write("imported\\n")

def test_one():
    pass

def test_two():
    pass
"""
DOCTEST = """
>>> open({marker!r}, "a").write("imported\\n") > 0
True
"""

# (where the file goes, its text, the argument given to pytest)
PLACEMENTS = {
    "suite-root-conftest": ("conftest.py", FLIP, "suite"),
    "kind-folder-test-module": ("node/test_evil.py", MODULE, "suite"),
    "kind-folder-package": ("node/__init__.py", MODULE, "suite"),
    "kind-folder-doctest-text": ("node/test_notes.txt", DOCTEST, "suite"),
    "case-conftest-kind-argument": (f"node/{F8}/conftest.py", FLIP, "suite/node"),
    "case-conftest-case-argument": (f"node/{F8}/conftest.py", FLIP, f"suite/node/{F8}"),
    "data-set-conftest-case-argument": (f"node/{F8}/test_data_set_0/conftest.py", FLIP, f"suite/node/{F8}"),
    "non-case-folder-conftest": ("tables/conftest.py", FLIP, "suite"),
}


@pytest.mark.parametrize("placement", list(PLACEMENTS))
def test_python_in_a_suite_is_never_imported(pytester, suite, placement):
    """Issue 19 item 1: a conftest.py, test module or package in the suite is never imported; it is named in
    one line and the exit status is the verdicts' (F8 fails: exit 1)."""
    rel, text, arg = PLACEMENTS[placement]
    marker = pytester.path / "imported"
    (suite / rel).parent.mkdir(parents=True, exist_ok=True)
    (suite / rel).write_text(text.format(marker=str(marker)))
    report = pytester.path / "r.json"
    result = pytester.runpytest(arg, "--backend", "opconform", "--report", str(report))
    assert not marker.exists(), _out(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, _out(result)
    n_f16 = 0 if arg.endswith(F8) else 2
    result.assert_outcomes(passed=n_f16, failed=1)
    assert {(r["case"], r["verdict"]) for r in _records(report)} == (
        {(F8, "fail")} | ({(F16, "pass")} if n_f16 else set()))
    if rel.endswith(".py"):
        shown = os.path.join("suite", rel)
        assert [line for line in result.outlines if shown in line and "never imported" in line], _out(result)


def test_a_python_file_of_a_suite_given_as_the_argument_is_never_imported(pytester, suite):
    """pytest collects a file argument straight from the session when --confcutdir lies below its folder:
    no node is made of it all the same (one line names it, nothing is collected)."""
    marker = pytester.path / "imported"
    (suite / "node" / "test_evil.py").write_text(MODULE.format(marker=str(marker)))
    result = pytester.runpytest("suite/node/test_evil.py", "--backend", "opconform",
                                "--confcutdir", f"suite/node/{F8}")
    assert not marker.exists(), _out(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, _out(result)  # not found: nothing collected
    assert [line for line in result.outlines if "suite/node/test_evil.py" in line and "never imported" in line]


@pytest.mark.parametrize("name, text", [("pytest.ini", "[pytest]\naddopts = -k 'not float8'\n"),
                                        ("pyproject.toml", "[tool.pytest.ini_options]\naddopts = \"-k 'not float8'\"\n")])
def test_a_pytest_configuration_file_in_a_suite_is_refused(pytester, suite, name, text):
    """A configuration file at the suite's root becomes pytest's own (the rootdir is the suite): its addopts
    deselected the failing case (exit 0). The run is refused in one line naming it; nothing runs."""
    (suite / name).write_text(text)
    result = pytester.runpytest("suite", "--backend", "opconform")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, _out(result)
    result.stderr.fnmatch_lines([f"ERROR: suite/{name}: a pytest configuration file inside a suite is never used*"])


def test_python_in_a_suite_is_never_imported_with_xdist(pytester, suite):
    """The same with -n 2: neither the controller nor a worker imports the suite's files, and the lines the
    workers' collections found are shown by the controller."""
    marker = pytester.path / "imported"
    (suite / "conftest.py").write_text(FLIP.format(marker=str(marker)))
    (suite / "node" / "test_evil.py").write_text(MODULE.format(marker=str(marker)))
    result = pytester.runpytest_subprocess("suite", "--backend", "opconform", "-n", "2")
    assert not marker.exists(), _out(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2, failed=1)
    for rel in ("suite/conftest.py", "suite/node/test_evil.py"):
        assert [line for line in result.outlines if rel in line and "never imported" in line], _out(result)


def test_the_users_own_conftest_outside_the_suite_still_works(pytester, suite):
    """The conftest.py beside the suite (the user's) is loaded and its hooks see the cases; the suite's is not."""
    marker = pytester.path / "imported"
    (suite / "conftest.py").write_text(FLIP.format(marker=str(marker)))
    seen = pytester.path / "seen"
    pytester.makeconftest(f"""
        def pytest_runtest_setup(item):
            open({str(seen)!r}, "a").write(item.name + "\\n")
    """)
    result = pytester.runpytest("suite", "--backend", "opconform")
    result.assert_outcomes(passed=2, failed=1)
    assert not marker.exists()
    assert sorted(seen.read_text().split()) == sorted([f"{F16}[0]", f"{F16}[1]", f"{F8}[0]"])


# ---------------------------------------------------------------------------------------------
# item 2: symlinked directories
# ---------------------------------------------------------------------------------------------
def test_links_leaving_the_suite_are_not_followed(pytester, suite):
    """A link out of the suite (to a tree holding a test module and a case) is not followed, one line each;
    every case of the suite is still judged."""
    marker = pytester.path / "imported"
    outside = pytester.path / "elsewhere"
    outside.mkdir()
    (outside / "test_outside.py").write_text(MODULE.format(marker=str(marker)))
    shutil.copytree(suite / "node" / F16, outside / "test_stray_case")
    (suite / "out").symlink_to(outside)
    (suite / "node" / "test_linked_case").symlink_to(outside / "test_stray_case")
    report = pytester.path / "r.json"
    result = pytester.runpytest("suite", "--backend", "opconform", "--report", str(report))
    assert not marker.exists()
    result.assert_outcomes(passed=2, failed=1)
    assert sorted((r["case"], r["dataset"]) for r in _records(report)) == [(F16, 0), (F16, 1), (F8, 0)]
    for link in ("suite/out", "suite/node/test_linked_case"):
        assert [line for line in result.outlines if link in line and "leaves the suite" in line], _out(result)


def test_a_suite_copied_without_its_manifest_is_still_a_suite(pytester, suite):
    """A subset of a suite copied without manifest.json (a folder holding node/ of case directories) is still
    data: its root conftest, a test module beside the cases and a link to / are neither imported nor walked."""
    (suite / "manifest.json").unlink()
    marker = pytester.path / "imported"
    (suite / "conftest.py").write_text(FLIP.format(marker=str(marker)))
    (suite / "node" / "test_evil.py").write_text(MODULE.format(marker=str(marker)))
    (suite / "root").symlink_to("/")
    report = pytester.path / "r.json"
    result = pytester.runpytest("suite", "--backend", "opconform", "--report", str(report))
    assert not marker.exists(), _out(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, _out(result)
    result.assert_outcomes(passed=2, failed=1)
    assert sorted((r["case"], r["dataset"]) for r in _records(report)) == [(F16, 0), (F16, 1), (F8, 0)]
    for shown, what in (("suite/conftest.py", "never imported"), ("suite/node/test_evil.py", "never imported"),
                        ("suite/root", "leaves the suite")):
        assert [line for line in result.outlines if shown in line and what in line], _out(result)


@pytest.mark.parametrize("link, target", [("loop", "."), ("node/up", ".."), ("node/again", "../node")])
def test_a_link_loop_is_skipped(pytester, suite, link, target):
    """A link back to a folder the walk is in is skipped with one line; every case is judged once."""
    (suite / link).symlink_to(target)
    report = pytester.path / "r.json"
    result = pytester.runpytest("suite", "--backend", "opconform", "--report", str(report))
    result.assert_outcomes(passed=2, failed=1)
    assert sorted((r["case"], r["dataset"]) for r in _records(report)) == [(F16, 0), (F16, 1), (F8, 0)]
    assert [line for line in result.outlines if f"suite/{link}" in line and "loop" in line], _out(result)


# ---------------------------------------------------------------------------------------------
# item 4c: only the suites named are read
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("arg", ["suite", "suite/node"])
def test_a_bad_sibling_suite_does_not_touch_the_suite_named(pytester, suite, arg):
    """The folder holding both suites is the rootdir (an ini file there): pytest walks down from it, and
    the sibling beside the suite named (a manifest.json nested past any parser's depth) is not read."""
    pytester.makeini("[pytest]\n")
    other = pytester.path / "other"
    shutil.copytree(suite, other)
    (other / "manifest.json").write_text("[" * 100000)
    (other / "conftest.py").write_text("raise SystemExit('imported')\n")
    report = pytester.path / "r.json"
    result = pytester.runpytest(arg, "--backend", "opconform", "--report", str(report))
    result.assert_outcomes(passed=2, failed=1)
    assert "other" not in _out(result)
    assert list(json.loads(report.read_text())["suites"]) == ["suite"]


def test_a_model_folder_beside_the_ini_is_no_suite(pytester, suite):
    """A user's model folder (model.onnx alone, as gen-cases --from-model reads it) beside the folder holding
    pytest's configuration, or a model.onnx left in the folder above it (as in /tmp), does not make the folders
    around it a suite: the configuration is used, the run is not refused."""
    work = pytester.path / "work"
    work.mkdir()
    shutil.move(str(suite), work / "suite")
    (pytester.path / "mymodel").mkdir()
    (pytester.path / "mymodel" / "model.onnx").write_bytes(b"not read")
    (pytester.path / "model.onnx").write_bytes(b"not read")
    (work / "tox.ini").write_text("[pytest]\n")
    report = work / "r.json"
    result = pytester.runpytest("-c", str(work / "tox.ini"), str(work / "suite"), "--backend", "opconform",
                                "--report", str(report))
    assert "inside a suite" not in _out(result)
    result.assert_outcomes(passed=2, failed=1)


@pytest.mark.parametrize("arg", ["outer/suite", f"outer/suite/node/{F16}"])
def test_a_suite_around_the_suite_named_is_not_read(pytester, suite, arg):
    """The suite named lies inside another suite's folder: only the suite named is run and recorded."""
    outer = pytester.path / "outer"
    shutil.copytree(suite, outer)
    suite.rename(outer / "suite")
    report = pytester.path / "r.json"
    pytester.runpytest(arg, "--backend", "opconform", "--report", str(report))
    assert list(json.loads(report.read_text())["suites"]) == ["outer/suite"]


# ---------------------------------------------------------------------------------------------
# item 4d: an item is known by its directory
# ---------------------------------------------------------------------------------------------
def _rename_in_case_json(case_dir: Path, name: str) -> None:
    meta = json.loads((case_dir / "case.json").read_text())
    meta["name"] = name
    (case_dir / "case.json").write_text(json.dumps(meta))


def test_a_case_json_naming_another_case_is_invalid_and_keyed_by_its_directory(pytester, suite):
    """A copy of F16 in node/test_copy (case.json still says F16): two cases, two records, each known by its
    directory; the copy is invalid-case, F16 passes; the baseline keys them apart and an update clears
    the copy's regression."""
    rewrite_expected(suite / "node" / F8, 0, 0, 1.0)  # F8 passes again: only the copy is wrong here
    shutil.copytree(suite / "node" / F16, suite / "node" / "test_copy")
    report, baseline = pytester.path / "r.json", pytester.path / "baseline.json"
    result = pytester.runpytest("suite", "--backend", "opconform", "--report", str(report))
    records = _records(report)
    assert sorted((r["case"], r["dataset"], r["verdict"]) for r in records) == [
        (F16, 0, "pass"), (F16, 1, "pass"), (F8, 0, "pass"),
        ("test_copy", 0, "invalid-case"), ("test_copy", 1, "invalid-case")]
    bad = [r for r in records if r["case"] == "test_copy"]
    assert all("case.json" in r["message"] and F16 in r["message"] for r in bad), bad
    result.assert_outcomes(passed=3, failed=2)
    pytester.runpytest("suite", "--backend", "opconform", "--baseline", str(baseline), "--update-baseline")
    gate = pytester.runpytest("suite", "--backend", "opconform", "--baseline", str(baseline))
    assert gate.ret == pytest.ExitCode.OK, _out(gate)
    gate.stdout.fnmatch_lines(["opconform gate: 0 regression(s)*"])


def test_two_case_jsons_claiming_one_name_give_two_records(pytester, suite):
    """F8's case.json renamed to F16: F16 passes and F8 is invalid-case, each on its own record."""
    rewrite_expected(suite / "node" / F8, 0, 0, 1.0)
    _rename_in_case_json(suite / "node" / F8, F16)
    report = pytester.path / "r.json"
    result = pytester.runpytest("suite", "--backend", "opconform", "--report", str(report))
    result.assert_outcomes(passed=2, failed=1)
    assert sorted((r["case"], r["dataset"], r["verdict"]) for r in _records(report)) == [
        (F16, 0, "pass"), (F16, 1, "pass"), (F8, 0, "invalid-case")]


# ---------------------------------------------------------------------------------------------
# item 4e: kinds confined, manifest and case.json agree
# ---------------------------------------------------------------------------------------------
def _manifest_entries(suite: Path, entries: list[dict]) -> None:
    doc = json.loads((suite / "manifest.json").read_text())
    doc["cases"] = entries
    (suite / "manifest.json").write_text(json.dumps(doc))


@pytest.mark.parametrize("kind, name", [("..", "planted"), ("node", "../../planted"), ("tables", "planted"),
                                        ("node", "/"), ("", "planted")])
def test_a_manifest_entry_outside_the_kinds_is_invalid_and_nothing_outside_is_looked_at(pytester, suite, kind,
                                                                                        name):
    """An entry whose kind is none of the kinds, or whose name is no plain directory name, is one invalid-case
    item naming it (a case planted where it points, outside the suite, is not taken for it)."""
    planted = Path(os.path.normpath(os.path.join(suite, kind, name)))
    if pytester.path in planted.parents and suite not in planted.parents:  # never outside this test's folder
        planted.mkdir(parents=True, exist_ok=True)
        (planted / "model.onnx").touch()
    _manifest_entries(suite, [{"name": F16, "kind": "node"}, {"name": F8, "kind": "node"},
                              {"name": name, "kind": kind}])
    report = pytester.path / "r.json"
    result = pytester.runpytest("suite", "--backend", "opconform", "--report", str(report))
    result.assert_outcomes(passed=2, failed=2)
    bad = [r for r in _records(report) if r["verdict"] == "invalid-case"]
    assert len(bad) == 1 and "manifest.json" in bad[0]["message"] and "refused" in bad[0]["message"], bad


@pytest.mark.parametrize("field, value", [("family", "quantize_linear"), ("op", "QuantizeLinear"), ("kind", "probe")])
def test_manifest_and_case_json_disagreeing_is_invalid_case(pytester, suite, field, value):
    """The manifest lists F16 with another family / op / kind than its case.json says: --family and -m select
    by the manifest, so the case run must be the one selected, else invalid-case naming both."""
    rewrite_expected(suite / "node" / F8, 0, 0, 1.0)
    entry = {"name": F16, "kind": "node", "family": "cast", "op": "Cast", field: value}
    if field == "kind":  # the case moved to the probe folder the manifest names; its case.json says node
        (suite / "probe").mkdir()
        (suite / "node" / F16).rename(suite / "probe" / F16)
    _manifest_entries(suite, [entry, {"name": F8, "kind": "node", "family": "cast", "op": "Cast"}])
    report = pytester.path / "r.json"
    args = ["--family", value] if field == "family" else []
    result = pytester.runpytest("suite", "--backend", "opconform", "--report", str(report), *args)
    records = {(r["case"], r["dataset"]): r for r in _records(report)}
    for i in (0, 1):
        assert records[F16, i]["verdict"] == "invalid-case", records[F16, i]
        assert "case.json" in records[F16, i]["message"] and repr(value) in records[F16, i]["message"]
    result.assert_outcomes(failed=2, passed=0 if field == "family" else 1)


# ---------------------------------------------------------------------------------------------
# item 7: nothing reaches the terminal raw
# ---------------------------------------------------------------------------------------------
HOSTILE_BACKEND = f"""
from runners.backends.base import Unsupported
from runners.backends.opconform import OpconformBackend

class Hostile(OpconformBackend):
    name = "hostile"

    def run(self, prepared, inputs):
        if inputs[0].size == 1:
            raise Unsupported({HOSTILE!r})
        raise RuntimeError({HOSTILE!r})
"""


@pytest.mark.parametrize("verbosity", ["-q", "-vv", "-rA"])
def test_escapes_in_names_and_messages_never_reach_the_terminal(pytester, suite, monkeypatch, verbosity):
    """A case directory, a case.json family, a backend's messages (an error, an unsupported), a Python file
    and a link named with terminal escapes: every line printed shows them escaped; the case directory named
    so is one invalid-case item (nothing in it read) and every other case keeps its record."""
    pytester.makepyfile(hostile_backend=HOSTILE_BACKEND)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(pytester.path), os.environ.get("PYTHONPATH")])))
    pytester.syspathinsert()
    shutil.copytree(suite / "node" / F16, suite / "node" / f"test_{HOSTILE_NAME}")
    meta = json.loads((suite / "node" / F16 / "case.json").read_text())
    meta["family"] = HOSTILE
    (suite / "node" / F16 / "case.json").write_text(json.dumps(meta))
    one = write_suite(pytester.path / "one", [cast_case("test_one", "float32", "float16", [[1.0]])])
    shutil.copytree(one / "node" / "test_one", suite / "node" / "test_one")
    (suite / "node" / f"{HOSTILE_NAME}.py").write_text("raise SystemExit(1)\n")
    (suite / "node" / f"link{HOSTILE_NAME}").symlink_to(pytester.path)
    report = pytester.path / "r.json"
    result = pytester.runpytest("suite", "--backend", "hostile_backend:Hostile", "--report", str(report),
                                verbosity)
    _assert_printable(result)
    records = _records(report)
    assert sorted((r["case"], r["verdict"]) for r in records) == sorted([
        (F16, "invalid-case"), (F16, "invalid-case"), (F8, "error"), ("test_one", "unsupported"),
        (printable(f"test_{HOSTILE_NAME}"), "invalid-case")])
    assert any(HOSTILE in r["message"] for r in records if r["verdict"] == "error")  # the file keeps it raw
    assert printable(HOSTILE) in _out(result)
