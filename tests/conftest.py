"""Fixtures shared by the project's tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import configuration

HERE = Path(__file__).resolve().parent
COMMITTED_NODES = HERE.parent / "cases" / "node"

# The pytest runs these tests start in processes of their own judge suites with opconform's plugin; hypothesis'
# and pytest-benchmark's plugins take no part there and cost about 2 s of start-up each (1.6 s against 3.5 s for
# a one-case run measured here), over a hundred times a test run. In-process runs (pytester.runpytest) load every
# plugin as before, so the plugin is still tried beside them. (This process and xdist's workers have parsed
# their options before this runs.)
FAST_START = ("-p", "no:hypothesispytest", "-p", "no:benchmark")
os.environ["PYTEST_ADDOPTS"] = " ".join([os.environ.get("PYTEST_ADDOPTS", ""), *FAST_START]).strip()


@pytest.fixture(autouse=True)
def _fast_subprocess_pytest(request, monkeypatch):
    """pytester clears PYTEST_ADDOPTS: its runpytest_subprocess gets FAST_START as arguments."""
    if "pytester" in request.fixturenames:
        pytester = request.getfixturevalue("pytester")
        run = pytester.runpytest_subprocess
        monkeypatch.setattr(pytester, "runpytest_subprocess", lambda *args, **kw: run(*args, *FAST_START, **kw))


def copied_node_cases(pytester, monkeypatch, names) -> Path:
    """A folder `s` of copies of the committed node cases `names` (copies: a link out of a suite is not
    followed), with tests/ on sys.path for the fixture backends."""
    monkeypatch.syspath_prepend(str(HERE))
    root = pytester.path / "s"
    root.mkdir()
    for name in names:
        shutil.copytree(COMMITTED_NODES / name, root / name)
    return root


def copied_suite(pytester, monkeypatch, names) -> Path:
    """A suite `s` of copies of the committed node cases `names` under node/, with a manifest listing them (whole
    suite runs), and tests/ on sys.path for the fixture backends."""
    import json

    from generator.serialize import SUITE_FORMAT

    monkeypatch.syspath_prepend(str(HERE))
    root = pytester.path / "s"
    (root / "node").mkdir(parents=True)
    for name in names:
        shutil.copytree(COMMITTED_NODES / name, root / "node" / name)
    (root / "manifest.json").write_text(json.dumps({"format": SUITE_FORMAT, "cases": [
        {"name": name, "kind": "node"} for name in names]}))
    return root


@pytest.fixture(scope="module")
def hypothesis_home(tmp_path_factory):
    """hypothesis keeps its caches in a temporary directory, not .hypothesis/ in the working directory."""
    configuration.set_hypothesis_home_dir(tmp_path_factory.mktemp("hypothesis"))
    yield
    configuration.set_hypothesis_home_dir(None)
