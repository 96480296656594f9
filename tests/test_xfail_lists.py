"""opconform xfails: a results file's failing items as the expected-failure lists vendors keep, each tried through
its consumer: opconform's --xfails-file, pytest's @FILE of --deselect lines, onnxruntime's test-filter regexes
against the names ONNX's Runner gives the exported cases."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from runners import cli

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "cases"
FAULT = "fault:quantize_linear.truncate"  # kills every data set of the first case, none of the second
FAILING, PASSING = "test_quantizelinear_uint8_opset25", "test_cast_uint8_to_int8_edge"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A two-case suite run on the mutant backend, from the suite's parent directory (node ids are relative)."""
    base = tmp_path_factory.mktemp("xfails")
    for name in (FAILING, PASSING):
        shutil.copytree(CASES / "node" / name, base / "suite" / "node" / name)
    (base / "suite" / "manifest.json").write_text("{}")
    subprocess.run([sys.executable, "-m", "runners.cli", "run", "suite", "--backend", FAULT, "--report", "r.json"],
                   cwd=base, capture_output=True, check=False)
    doc = json.loads((base / "r.json").read_text())
    assert {r["case"] for r in doc["records"] if r["verdict"] == "fail"} == {FAILING}
    return base, doc


def _write(base: Path, fmt: str, name: str) -> str:
    assert cli.main(["xfails", str(base / "r.json"), "--format", fmt, "-o", str(base / name)]) == 0
    return (base / name).read_text()


def test_the_opconform_list_turns_the_failures_into_xfails(run):
    base, doc = run
    text = _write(base, "opconform", "xfails.txt")
    failing = sorted(f"::{r['case']}[{r['dataset']}]" for r in doc["records"] if r["verdict"] == "fail")
    assert [line.split("  #")[0] for line in text.splitlines()[1:]] == failing
    again = subprocess.run([sys.executable, "-m", "runners.cli", "run", "suite", "--backend", FAULT, "--xfails-file",
                            "xfails.txt"], cwd=base, capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr


def test_the_pytest_list_deselects_the_failures(run):
    base, doc = run
    text = _write(base, "pytest", "deselect.txt")
    assert len(text.splitlines()) == sum(r["verdict"] == "fail" for r in doc["records"])
    done = subprocess.run([sys.executable, "-m", "pytest", "suite", "--backend", FAULT, "-q", "-p", "no:cacheprovider",
                           "@deselect.txt"], cwd=base, capture_output=True, text=True)
    assert done.returncode == 0 and f"{len(text.splitlines())} deselected" in done.stdout, done.stdout[-2000:]


def test_the_onnxruntime_filters_match_the_runners_names_of_the_failing_cases(run):
    from onnx.backend.test.loader import load_model_tests

    base, _ = run
    text = _write(base, "onnxruntime-filters", "filters.jsonc")
    filters = json.loads("\n".join(line.split("  //")[0] for line in text.splitlines() if not line.startswith("//")))
    assert cli.main(["export", str(base / "suite"), "--format", "onnx-backend-test", str(base / "exported")]) == 0
    names = [f"{t.name}_{d}" for t in load_model_tests(data_dir=str(base / "exported"), kind="opconform")
             for d in ("cpu", "cuda")]
    pattern = re.compile("(" + "|".join(filters["current_failing_tests"]) + ")")  # as onnxruntime's script joins them
    assert sorted(n for n in names if pattern.search(n)) == [f"{FAILING}_cpu", f"{FAILING}_cuda"]


def test_a_bad_results_file_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "bad.json").write_text("{")
    assert cli.main(["xfails", str(tmp_path / "bad.json"), "--format", "pytest"]) == 2
    assert cli.main(["xfails", str(tmp_path / "none.json"), "--format", "pytest"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("opconform xfails: error:") for line in err)
