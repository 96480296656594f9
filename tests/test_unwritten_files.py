"""A results file or baseline that cannot be written at the end of a run is exit 3 (issue 31, part 7), as the
README says, also when items failed (the plugin kept 1 then, and so did `opconform run`): a CI step must not
read "regressions" where the gate's file is missing. Both runners; the file is made a directory while the run
goes on (by the backend, at prepare: writable at the start, as the runners check, and not at the end)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_pytest_plugin import F8, F16, cast_case, rewrite_expected, write_suite

from runners.backends.opconform import OpconformBackend
from runners.run import run_main

pytest_plugins = ["pytester"]


class BlocksFiles(OpconformBackend):
    """The opconform backend; at each prepare, every path of $OPCONFORM_TEST_BLOCK becomes a directory."""

    name = "blocks-files"

    def prepare(self, model, case):
        for path in filter(None, os.environ.get("OPCONFORM_TEST_BLOCK", "").split(os.pathsep)):
            os.makedirs(path, exist_ok=True)
        return super().prepare(model, case)


@pytest.fixture
def suite(pytester) -> Path:
    """F16[0] passes; F8[0] passes too unless `failing` (a wrong expected value)."""
    return write_suite(pytester.path / "suite", [cast_case(F16, "float32", "float16", [[1.0, 2.0]]),
                                                 cast_case(F8, "float32", "float8e4m3fn", [[1.0, 448.0]])])


@pytest.mark.parametrize("runner", ["pytest", "opconform-run"])
@pytest.mark.parametrize("failing", [True, False], ids=["items-fail", "items-pass"])
@pytest.mark.parametrize("which", ["--report", "--update-baseline"])
def test_a_file_that_cannot_be_written_at_the_end_is_exit_3(pytester, monkeypatch, capsys, suite, runner, failing,
                                                           which):
    if failing:
        rewrite_expected(suite / "node" / F8, 0, 0, 2.0)
    monkeypatch.chdir(pytester.path)
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent))
    blocked = pytester.path / ("r.json" if which == "--report" else "b.json")
    monkeypatch.setenv("OPCONFORM_TEST_BLOCK", str(blocked))
    args = ["suite", "--backend", "test_unwritten_files:BlocksFiles",
            *(["--report", "r.json"] if which == "--report" else ["--baseline", "b.json", "--update-baseline"])]
    if runner == "pytest":
        result = pytester.runpytest(*args, "-p", "no:cacheprovider")
        rc, out = int(result.ret), result.stdout.str() + result.stderr.str()
    else:
        rc = run_main(args)
        captured = capsys.readouterr()
        out = captured.out + captured.err
    assert blocked.is_dir()  # the run went on after the backend made it one
    assert rc == 3, out[-3000:]
    option = "--report" if which == "--report" else "--baseline"
    assert [line for line in out.splitlines() if line.startswith(f"opconform: cannot write {option}")
            or (option == "--baseline" and line.startswith("opconform: --baseline"))], out[-3000:]
    assert "Traceback" not in out
